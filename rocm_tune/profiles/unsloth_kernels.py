"""What Unsloth's own kernels do to training memory, from unslothai/unsloth and unslothai/unsloth-zoo (data; the logic
is core/runners/unsloth.py). Each term names the source file it comes from."""

from __future__ import annotations

# FastLanguageModel.from_pretrained dispatches these model types to Unsloth's hand-written decoders (unsloth/models/
# loader.py: llama -> FastLlamaModel, mistral -> FastMistralModel, gemma -> FastGemmaModel, gemma2 -> FastGemma2Model,
# qwen2 -> FastQwen2Model, qwen3 -> FastQwen3Model; cohere / granite / falcon_h1 are commented out there; every other
# type, and every FastModel / FastVisionModel load, goes to FastModel: transformers' own modules rewritten by
# unsloth_zoo's compiler - COMPILED_* below)
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
# unsloth/models/_utils.py apply_unsloth_gradient_checkpointing (unslothai/unsloth#3867, Feb 2026): "unsloth" with
# max_seq_length under 512 becomes plain checkpointing, nothing offloaded; releases before it offload there too (the
# inputs are small at such lengths: not counting their offload keeps the estimate on the high side for either)
OFFLOAD_MIN_SEQ = 512
OFFLOAD_GPU_BUFFERS = 2
OFFLOAD_KEPT_LAYERS = 1
INITIAL_CPU_BUFFER_COUNT = 200
INITIAL_CPU_BUFFER_ELEMENTS = 128 * 1024

# FastModel (unsloth/models/loader.py FastModel.from_pretrained; FastVisionModel is the same class, and
# FastLanguageModel hands every model type outside FAST_DECODER_TYPES to it): transformers' own modules rewritten by
# unsloth_zoo's compiler, called with fuse_lm_head=True and gradient_checkpointing=True. Pinned there: the causal LM
# forward's loss is the same unsloth_fused_ce_loss (unsloth_zoo/compiler.py apply_fused_lm_head, the logits never
# made in training) and use_gradient_checkpointing="unsloth" is the same UnslothCheckpointFunction
# (unsloth/models/_utils.py apply_unsloth_gradient_checkpointing -> patch_unsloth_smart_gradient_checkpointing, and
# unsloth_zoo/training_utils.py prepare_model_for_training). Not pinned: what torch.compile (compile_torch_modules,
# fast_lora_forwards) fuses inside a layer - RMSNorm's fp32 copies, PEFT's LoRA intermediates: counted as
# transformers keeps them (the estimate may be high by one layer's worth under checkpointing, every layer's without)
COMPILED_LOADERS = ("FastModel", "FastVisionModel", "FastLanguageModel")
# FastLanguageModel.from_pretrained hands these loads to FastModel.from_pretrained whatever the model type
# (loader.py: `if load_in_8bit or full_finetuning or qat_scheme is not None: ... FastModel.from_pretrained`)
DELEGATED_SRC = "unslothai/unsloth:unsloth/models/loader.py (load_in_8bit / full_finetuning / qat_scheme -> FastModel)"
COMPILED_SRC = ("unslothai/unsloth:unsloth/models/loader.py (FastModel.from_pretrained: unsloth_compile_transformers("
                "fuse_lm_head=True, gradient_checkpointing=True)) and unslothai/unsloth-zoo:unsloth_zoo/compiler.py "
                "(apply_fused_lm_head -> unsloth_fused_ce_loss)")

# TiledMLP (unsloth_zoo/tiled_mlp.py; from_pretrained(unsloth_tiled_mlp=True) or UNSLOTH_TILED_MLP, loader.py
# patch_tiled_mlp "arctic"): every *.mlp / *.feed_forward / *.block_sparse_moe module runs its forward under no_grad
# in tiles of hidden_size tokens (tiled_forward_arctic_size: chunk_size = H, n_shards = S // H, the rest of the
# flattened B*S tokens one last split) and saves its input only; the backward recomputes tile by tile
TILED_MLP_SRC = "unslothai/unsloth-zoo:unsloth_zoo/tiled_mlp.py (TiledMLP, tiled_forward_arctic_size)"
# the environment spelling loader.py reads first (os.environ.get("UNSLOTH_TILED_MLP", "arctic" if unsloth_tiled_mlp
# else "0")): "arctic" / "1" tile by hidden_size tokens; other modes size tiles from the free memory (not counted)
TILED_MLP_ENV = r"""os\.environ\[\s*["']UNSLOTH_TILED_MLP["']\s*\]\s*=\s*["'](?:arctic|1)(?::[^"']*)?["']"""
