"""What Unsloth's own kernels do to training memory, from unslothai/unsloth and unslothai/unsloth-zoo (data; the logic
is core/runners/unsloth.py). Each term names the source file it comes from."""

from __future__ import annotations

# FastLanguageModel.from_pretrained dispatches these model types to Unsloth's hand-written decoders (unsloth/models/
# loader.py: llama -> FastLlamaModel, mistral -> FastMistralModel, gemma -> FastGemmaModel, gemma2 -> FastGemma2Model,
# qwen2 -> FastQwen2Model, qwen3 -> FastQwen3Model; cohere / granite / falcon_h1 are commented out there; every other
# type, and every FastModel / FastVisionModel load, goes to FastModel: transformers' own modules rewritten by
# unsloth_zoo's compiler, whose savings are not pinned here)
FAST_DECODER_TYPES = frozenset(("llama", "mistral", "gemma", "gemma2", "qwen2", "qwen3"))
FAST_DECODER_LOADERS = ("FastLanguageModel",)
LOADER_SRC = "unslothai/unsloth:unsloth/models/loader.py (FastLanguageModel.from_pretrained dispatch by model_type)"

# RMSNorm: fast_rms_layernorm (unsloth/kernels/rms_layernorm.py Fast_RMS_Layernorm.forward: ctx.save_for_backward(X,
# W, r), r = one fp32 inverse RMS per row): the input in its own dtype and an fp32 per row, the fp32 copies of
# transformers' RMSNorm never exist - what TrainConfig.liger_norm counts
NORM_SRC = "unslothai/unsloth:unsloth/kernels/rms_layernorm.py (save_for_backward(X, W, r))"

# LoRA: the fast autograd functions patched on a layer whose q/k/v, o or gate/up/down all carry LoRA, when
# lora_dropout == 0 and bias == "none" (unsloth/models/llama.py FastLlamaModel.patch_peft_model): LoRA_QKV saves X
# (the norm's output, shared by q/k/v) and the A/B matrices, LoRA_W saves X, LoRA_MLP saves X, e (gate) and g (up),
# not the SiLU/GELU output; matmul_lora casts A and B to X's dtype (unsloth/kernels/utils.py), so no fp32 copy of X
# is made for fp32 adapters and lora_A's output is not kept (unsloth/kernels/fast_lora.py)
LORA_SRC = ("unslothai/unsloth:unsloth/kernels/fast_lora.py (LoRA_QKV / LoRA_W / LoRA_MLP save_for_backward) and "
            "unsloth/models/llama.py patch_peft_model (lora_dropout == 0 and bias == \"none\")")
QKV_TARGETS = ("q_proj", "k_proj", "v_proj")
# model types whose q/k/v projections carry a bias: LoRA_QKV is not patched there (patch_peft_model checks
# `base_layer.bias is None`; Qwen2's attention has qkv bias)
QKV_BIAS_TYPES = frozenset(("qwen2",))
O_TARGETS = ("o_proj",)
MLP_TARGETS = ("gate_proj", "up_proj", "down_proj")
# get_peft_model's defaults (unsloth/models/llama.py FastLlamaModel.get_peft_model: lora_dropout = 0.0, bias = "none")
DEFAULT_LORA_DROPOUT = 0.0
DEFAULT_LORA_BIAS = "none"

# The loss: with labels in training CausalLM_fast_forward calls unslothai/unsloth-zoo unsloth_zoo/fused_losses/
# cross_entropy_loss.py unsloth_fused_ce_loss (unsloth 2025.8 on; before it cut_cross_entropy's
# fused_linear_cross_entropy): the [tokens, vocab] logits never exist; an empty_like(hidden_states) grad_inputs and
# one chunk's logits live at once. get_chunk_size cuts the tokens into n_chunks (a multiple of 4, rounded up) so
# that a chunk's eager chain (_CE_BYTES_PER_LOGIT = 16 bytes per token x vocab element) fits target_gb less the
# fixed grad_inputs: target_gb = half the free memory capped at _CE_TARGET_GB_CAP = 4 GiB (1 GiB in 2025.8) - the cap
# is counted (a fuller card only makes chunks smaller). The chunk runs compiled (torch_compile=True): its 16-bit
# logits and their 16-bit gradient stay, the fp32 upcast and log-softmax are fused away - 4 bytes per element, as
# check counts torchtitan's compiled loss
FUSED_CE_SRC = ("unslothai/unsloth-zoo:unsloth_zoo/fused_losses/cross_entropy_loss.py (unsloth_fused_ce_loss, "
                "get_chunk_size; called from unsloth/models/llama.py CausalLM_fast_forward)")
CE_BUDGET_BYTES_PER_LOGIT = 16
CE_TARGET_BYTES = 4 * 2**30
CE_KEPT_BYTES_PER_LOGIT = 4

# Offloaded checkpointing (use_gradient_checkpointing="unsloth"): unsloth_zoo/gradient_checkpointing.py
# UnslothCheckpointFunction copies each checkpointed layer's input to a pinned CPU buffer (non_blocking, on a side
# stream) when it has more than MINIMUM_SIZE elements (2 MiB over the element size), except the last layer after
# the first step (LAST_GC_INDEX); the recompute reads it back into one of two GPU buffers of one layer's input
# (GPU_BUFFERS / GPU_BUFFERS_B, double buffering). Host: one pinned buffer per offloaded layer, grown to the input's
# size, beside INITIAL_CPU_BUFFER_COUNT buffers of INITIAL_CPU_BUFFER_SIZE elements made at start
OFFLOAD_SRC = "unslothai/unsloth-zoo:unsloth_zoo/gradient_checkpointing.py (UnslothCheckpointFunction)"
OFFLOAD_MIN_BYTES = 2 * 1024 * 1024
OFFLOAD_GPU_BUFFERS = 2
OFFLOAD_KEPT_LAYERS = 1
INITIAL_CPU_BUFFER_COUNT = 200
INITIAL_CPU_BUFFER_ELEMENTS = 128 * 1024
