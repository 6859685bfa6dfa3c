"""Per-GPU training memory of one configuration, itemised (pure, standard library only)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from itertools import accumulate

from rocm_tune.core.model import lora as model_lora
from rocm_tune.core.memory import fused_loss
from rocm_tune.core import runners
from rocm_tune.core.errors import UserError
from rocm_tune.core.runners import Regime
from rocm_tune.core.vocabulary import ATTNS, METHODS, OFFLOADS, OPTIMS, PRECISIONS, RUNNERS, STAGES, offload_problem
from rocm_tune.core.runners import deepspeed as ds
from rocm_tune.core.memory.vision_memory import vision_memory
from rocm_tune.core.memory import loss_copies
from rocm_tune.core.memory import heads as model_heads
from rocm_tune.profiles.model_heads import HEADS
from rocm_tune.core.model.trainable import (  # noqa: F401 (trainable_params: public here too)
    _DECODER_KINDS,
    full_module_params,
    _lora_wrapped,
    _training,
    _Training,
    trainable_params,
)

# the allowed values live in core/vocabulary.py (re-exported here for the estimator's callers)
__all__ = ["ATTNS", "METHODS", "OFFLOADS", "OPTIMS", "PRECISIONS", "STAGES", "MemoryEstimate", "PerGpuMemory",
           "TrainConfig", "estimate", "trainable_params"]


def _check_int(name: str, value, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{name} must be an integer between {lo} and {hi}, got {value!r}")
    if not lo <= value <= hi:
        raise UserError(f"{name} must be between {lo} and {hi}, got {value}")


def _check_pair(name: str, value, low: float, high: float, what: str, whole: bool = False) -> None:
    """None, or two numbers between low and high (`whole`: integers): else a UserError naming the value."""
    kinds = (int,) if whole else (int, float)
    if value is not None and not (isinstance(value, tuple) and len(value) == 2 and all(
            isinstance(v, kinds) and not isinstance(v, bool) and low <= v <= high for v in value)):
        raise UserError(f"{name} must be two {what} between {low:g} and {high:g}, got {value!r}")


def _check_choice(name: str, value, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise UserError(f"{name} {value!r} is not known; expected one of: {', '.join(allowed)}")


@dataclass(frozen=True)
class TrainConfig:
    method: str = "lora"
    lora_rank: int = 8
    lora_alpha: int | None = None
    lora_targets: tuple[str, ...] = ("all",)
    # PEFT modules_to_save (LLaMA-Factory additional_target, axolotl lora_modules_to_save): "embed" / "lm_head" train
    # whole as a deep copy of the module beside the frozen original (core/model/trainable.py)
    lora_full_modules: tuple[str, ...] = ()
    dora: bool = False
    quant_bits: int = 4
    double_quant: bool = True
    freeze_trainable_layers: int = 2
    precision: str = "bf16"
    cutoff_len: int = 1024
    micro_batch: int = 1
    gradient_checkpointing: bool = True
    attn: str = "sdpa"
    optim: str = "adamw"
    gpus: int = 1
    nodes: int = 1
    zero_stage: int = 0
    # DeepSpeed runs the training at ZeRO stage 0 too (a DeepSpeed config given): its fp16/bf16 optimizers keep an
    # fp32 master copy and fp32 moments as ZeRO does (deepspeed/runtime/fp16/fused_optimizer.py FP16_Optimizer
    # fp32_groups_flat; bf16_optimizer.py BF16_Optimizer fp32_groups_flat_partition)
    deepspeed: bool = False
    offload: str = "none"
    stage: str = "sft"
    # a frozen reference model beside the trained one: None = the stage decides (DPO full fine-tuning keeps a copy,
    # DPO LoRA disables the adapter instead); True / False where the runner decides otherwise (LLaMA-Factory: no
    # reference for ORPO/SimPO, a loaded ref_model under LoRA, KTO's copy: core/runners/llamafactory.stage_of)
    reference_model: bool | None = None
    # who executes it (core/runners/). "builtin" = exactly the requested precision; the plan passes its own
    # runner (vocabulary.DEFAULT_RUNNER is llamafactory), whose real dtypes may differ
    runner: str = "builtin"
    # LLaMA-Factory started through rocm-tune's lf_launch (every bundle): fp32 is pinned before the model loads
    # (core/runners: compute_pin); False = stock llamafactory-cli, which keeps a bf16 checkpoint in bf16
    lf_launch: bool = False
    # a vision-language model (ModelSpec.vision): the language tokens of one sample's images (inside cutoff_len;
    # the tower sees merge^2 patches per token) and whether the vision tower is trained (full fine-tuning only)
    image_tokens: int = 0
    vision_trainable: bool = False
    # the runner makes a frozen tower's input require grad (ms-swift: vision_tower.enable_input_require_grads()
    # under gradient checkpointing), so autograd records the tower's pass although no tower weight trains
    vision_input_grads: bool = False
    # the tower's attention materialises its scores (heads x n x n over the micro-batch's n patches) although attn is
    # not eager: transformers 4.45-4.51's Qwen2-VL / Qwen2.5-VL VisionSdpaAttention calls SDPA on 3-D tensors with a
    # [1, n, n] mask, which only the math backend takes (core/memory/vision_memory.py)
    vision_scores: bool = False
    # Liger kernels the runner patches into the model (linkedin/Liger-Kernel transformers/monkey_patch.py
    # apply_liger_kernel_to_<model_type>, rms_norm=True / swiglu=True by default): LigerRMSNorm saves its input in
    # its own dtype and one fp32 rstd per row (ops/rms_norm.py LigerRMSNormFunction: save_for_backward(X, W, RSTD)),
    # not the fp32 copies of transformers' RMSNorm; LigerSiLUMulFunction saves only the gate and up projections
    # (ops/swiglu.py: save_for_backward(a, b)), not the activation's output
    liger_norm: bool = False
    liger_swiglu: bool = False
    # a fused linear cross-entropy (Liger's LigerFusedLinearCrossEntropyFunction, Cut Cross-Entropy, Unsloth's fused
    # loss): the loss and its gradient are made chunk by chunk inside the forward, the [tokens, vocab] logits never
    # exist (ops/fused_linear_cross_entropy.py: chunk_size = next_power_of_2(cdiv(BT, cdiv(V, H))), a zeroed
    # grad_input of the hidden states' size, an fp32 grad_weight when lm_head trains)
    fused_ce: bool = False
    # a fused loss whose chunks of logits are sized to a memory target, not to the hidden states: Unsloth's
    # unsloth_fused_ce_loss (unsloth_zoo fused_losses/cross_entropy_loss.py: n_chunks from target_gb): that target
    # in bytes (core/memory/fused_loss.py); 0 = Liger's chunk (about the hidden states' size)
    fused_ce_target: int = 0
    # projections whose LoRA runs in Unsloth's autograd functions (unsloth/kernels/fast_lora.py LoRA_QKV / LoRA_W /
    # LoRA_MLP): they save the layer's 16-bit input only (A and B are cast to it: no fp32 copy of the input, lora_A's
    # output not kept), and LoRA_MLP keeps the gate and up outputs, not the product that feeds down_proj
    lora_kernels: tuple[str, ...] = ()
    # Unsloth's TiledMLP (unsloth_zoo/tiled_mlp.py, from_pretrained(unsloth_tiled_mlp=True)): each layer's MLP runs
    # under no_grad tile by tile and saves only its input; the backward recomputes one tile at a time into a
    # zeros_like(x) input gradient. The tile's tokens (core/runners/unsloth.tiled_mlp_tile); 0 = off
    tiled_mlp: int = 0
    # the runner hands the model a [rows, 1, seq, seq] attention mask in the compute dtype although attn is not eager:
    # LLaMA-Factory's neat_packing without FlashAttention-2 (data/collator.py SFTDataCollatorWith4DAttentionMask:
    # `block_diag_attn and attn_implementation != "flash_attention_2"` -> prepare_4d_attention_mask(.., compute_dtype))
    mask_4d: bool = False
    # the loss takes the log-softmax of the 16-bit logits and never makes an fp32 copy: (copies of the logits in the
    # compute dtype at the forward's peak, at the loss backward's) - TRL's DPOTrainer under DeepSpeed (accelerate runs
    # no autocast there: core/runners/preference_logits.py, profiles/preference_logits.py); also, as bytes per logit
    # / 2, torchtune's chunked loss (runners/config.py _torchtune_chunked_ce; a dated transformers 4.31-4.48 loss with
    # its fp32 shifted copy is hf_loss_bytes); None = the fp32 loss transformers 4.49 on makes
    logits_16bit_loss: tuple[float, float] | None = None
    # a no-grad reference forward runs after the policy's, while the policy's fp32 logits and their log-softmax are
    # alive: (bytes per logit the policy holds then, bytes per logit of the reference pass at its peak) -
    # LLaMA-Factory's DPO and KTO trainers (get_batch_loss_metrics: concatenated_forward(model) then
    # compute_reference_log_probs, the copy or the adapter-disabled policy; profiles/preference_logits.py); None = none
    reference_pass: tuple[float, float] | None = None
    # transformers' own causal-LM loss at the release the user's files show, where it holds other than today's 10 bytes
    # per logit under a 16-bit compute dtype: (bytes per logit with two rows or more in the batch, with one row: no
    # shifted copy then) - v4.31-v4.45 upcast in the forward and shift a contiguous fp32 copy (12, 8), v4.46-v4.48
    # ForCausalLMLoss keeps the 16-bit logits beside both (14, 10)
    # (profiles/model_losses.py HF_LOSS_BYTES_16BIT, core/runners/hf_loss.py); None = today's
    hf_loss_bytes: tuple[int, int] | None = None
    # the share of the sequence's positions whose logits the loss makes: TRL's GRPOTrainer (and ms-swift's, built on
    # it) calls the model with logits_to_keep = completion length + 1 (trl/trainer/grpo_trainer.py
    # _get_per_token_logps), so only the completion's [tokens, vocab] logits exist; 1.0 = every position
    logit_share: float = 1.0
    # eager attention whose softmax kernel keeps other bytes per score than transformers' fp32 softmax (6 kept: its
    # fp32 output and the 16-bit copy; 6 at the backward's peak): (bytes per score kept, bytes per score the softmax
    # backward adds) - Megatron's / Transformer Engine's FusedScaleMaskSoftmax keeps only its 16-bit output and its
    # backward runs in place on the incoming gradient, plus core attention's dropout mask and dropped copy
    # (core/memory/megatron_attention.py); None = transformers' eager softmax
    scores_bytes: tuple[float, float] | None = None
    # Transformer Engine's FP8 training (Megatron --fp8-format e4m3|hybrid): every TE linear quantizes its input to
    # FP8 and saves that 1-byte copy for the weight gradient, not the 16-bit input (transformer_engine/pytorch/module/
    # linear.py, layernorm_linear.py, grouped_linear.py under fp8_autocast) - counted where the weights train; the
    # parts whose linears run in FP8: "dense" (attention, dense / shared MLP) and "experts" (the routed experts in TE's
    # GroupedLinear; Megatron's legacy GroupedMLP runs grouped_gemm's bf16 gmm and saves 16-bit inputs)
    fp8_linears: tuple[str, ...] = ()
    # the routing probabilities multiply inside the experts' activation, and the combine only scatters the expert
    # outputs back (Megatron-core since 2025-04, "Memory efficient token permutation": experts.py
    # activation_func_with_probs / weighted_bias_swiglu_impl, token_dispatcher.py unpermute without probs): no routed
    # copy's weighted output is kept for the probabilities' gradient
    moe_probs_in_act: bool = False
    # the runner turns on transformers' router load-balancing loss (output_router_logits: ms-swift router_aux_loss_coef
    # > 0, swift/trainers/seq2seq_trainer.py; LLaMA-Factory moe_aux_loss_coef, model_utils/moe.py configure_moe):
    # load_balancing_loss_func (models/qwen3_moe/modeling_qwen3_moe.py, the same in Mixtral / Qwen2-MoE / OLMoE /
    # ...) concatenates every MoE layer's [tokens, experts] router logits, softmaxes them (saved) and one-hots the
    # top-k as int64 [layers x tokens, top_k, experts]; with an attention mask it expands that mask to the same
    # shape (a reshape copy, int64) and multiplies it with the one-hot's float copy - at the forward's end.
    # "masked": the batch's attention mask reaches it; "unmasked": none does (a padding-free batch); "" = off
    router_aux_loss: str = ""
    # LoRA "all" wraps the routed experts and the router too: the transformers release the files show (4.x) builds an
    # MoE model's experts as one nn.Linear each and its router as an nn.Linear (models/mixtral, qwen2_moe, qwen3_moe,
    # deepseek_v3, olmoe ...), and PEFT's all-linear (tuners_utils.py _maybe_include_all_linear_layers), LLaMA-Factory's
    # find_all_linear_modules and ms-swift's find_all_linears take every such nn.Linear but the output layer
    lora_expert_linears: bool = False
    # named LoRA targets (gate_proj / up_proj / down_proj) leave the routed experts and router alone: under
    # transformers 5 (or a model whose experts are fused 3-D parameters in 4.x too) they are no nn.Linear modules and
    # PEFT's target_modules matches modules only (tuners_utils.py check_target_module_exists), so the names wrap the
    # dense / shared MLPs (core/runners/config.py _lora_fused_experts)
    lora_fused_experts: bool = False
    # the model's head (profiles/model_heads.py): "lm" = the vocabulary's logits and cross-entropy; "score" a
    # Linear(hidden, head_labels) classifier / reward head (no lm_head), "value" a value head beside the causal LM,
    # "token" one token's logit scores the row, "pooled" an embedding model (core/memory/heads.py counts them)
    head: str = "lm"
    head_labels: int = 0
    # the AdamW step's temporary of the second moment's square root: "foreach" = torch.optim.AdamW's foreach
    # implementation (the HF Trainer's `adamw_torch`, its default before torch 2.8 made it `adamw_torch_fused`; torch
    # picks foreach for CUDA/ROCm tensors when neither foreach nor fused is given): torch/optim/adamw.py (adam.py
    # since 2.6) _multi_tensor_adamw makes exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs), one temporary
    # over the whole group; "per_param" = transformers' own AdamW (`adamw_hf`, optimization.py AdamW.step: denom =
    # exp_avg_sq.sqrt().add_(eps) parameter by parameter): the largest parameter's; "" = none (fused kernels)
    adam_sqrt_temp: str = ""

    @property
    def world_size(self) -> int:
        return self.gpus * self.nodes

    @property
    def is_lora(self) -> bool:
        return self.method in ("lora", "qlora")

    def validate(self) -> None:
        """Raise UserError naming the first bad value."""
        _check_choice("method", self.method, METHODS)
        _check_choice("precision", self.precision, PRECISIONS)
        _check_choice("attn", self.attn, ATTNS)
        _check_choice("optim", self.optim, OPTIMS)
        _check_choice("offload", self.offload, OFFLOADS)
        _check_choice("stage", self.stage, STAGES)
        _check_choice("runner", self.runner, RUNNERS)
        _check_choice("head", self.head, HEADS)
        _check_int("head_labels", self.head_labels, 0, 1_000_000)
        _check_int("lora_rank", self.lora_rank, 1, 65536)
        if self.lora_alpha is not None:
            _check_int("lora_alpha", self.lora_alpha, 1, 1_048_576)
        if not isinstance(self.lora_targets, tuple) or not self.lora_targets:
            raise UserError(f"lora_targets must be 'all' or module names, got {self.lora_targets!r}")
        for t in self.lora_targets:
            if not model_lora.valid_target(t):
                raise UserError(f"lora target {t!r} is not a module name; use 'all' or names like q_proj,v_proj")
        if "all" in self.lora_targets and len(self.lora_targets) > 1:
            raise UserError(f"lora targets {','.join(self.lora_targets)!r}: 'all' cannot be combined with names")
        if not isinstance(self.dora, bool) or not isinstance(self.double_quant, bool):
            raise UserError("dora and double_quant must be true or false")
        if self.reference_model is not None and not isinstance(self.reference_model, bool):
            raise UserError(f"reference_model must be true, false or unset, got {self.reference_model!r}")
        if not isinstance(self.lf_launch, bool):
            raise UserError(f"lf_launch must be true or false, got {self.lf_launch!r}")
        if not all(isinstance(v, bool) for v in (self.liger_norm, self.liger_swiglu, self.fused_ce, self.mask_4d)):
            raise UserError("liger_norm, liger_swiglu, fused_ce and mask_4d must be true or false")
        if not isinstance(self.fused_ce_target, int) or isinstance(self.fused_ce_target, bool) or self.fused_ce_target < 0:
            raise UserError(f"fused_ce_target must be a byte count >= 0, got {self.fused_ce_target!r}")
        if not isinstance(self.lora_kernels, tuple) or not all(model_lora.valid_target(t) for t in self.lora_kernels):
            raise UserError(f"lora_kernels must be module names, got {self.lora_kernels!r}")
        _check_pair("reference_pass", self.reference_pass, 0, 64, "byte counts per logit")
        _check_pair("scores_bytes", self.scores_bytes, 0, 64, "byte counts per score")
        if self.router_aux_loss not in ("", "masked", "unmasked"):
            raise UserError(f"router_aux_loss must be masked or unmasked, got {self.router_aux_loss!r}")
        if not isinstance(self.moe_probs_in_act, bool):
            raise UserError(f"moe_probs_in_act must be true or false, got {self.moe_probs_in_act!r}")
        if not isinstance(self.fp8_linears, tuple) or any(p not in ("dense", "experts") for p in self.fp8_linears):
            raise UserError(f"fp8_linears must name dense and/or experts, got {self.fp8_linears!r}")
        _check_pair("hf_loss_bytes", self.hf_loss_bytes, 1, 64, "byte counts per logit", whole=True)
        _check_pair("logits_16bit_loss", self.logits_16bit_loss, 0, 16, "copy counts")
        if isinstance(self.logit_share, bool) or not isinstance(self.logit_share, (int, float)) \
                or not 0 < self.logit_share <= 1:
            raise UserError(f"logit_share must be a share above 0 and at most 1, got {self.logit_share!r}")
        if not isinstance(self.gradient_checkpointing, bool):
            raise UserError(f"gradient_checkpointing must be true or false, got {self.gradient_checkpointing!r}")
        if self.quant_bits not in (4, 8) or isinstance(self.quant_bits, bool):
            raise UserError(f"quant_bits must be 4 or 8, got {self.quant_bits!r}")
        _check_int("freeze_trainable_layers", self.freeze_trainable_layers, 1, 100_000)
        _check_int("cutoff_len", self.cutoff_len, 1, 1_048_576)
        _check_int("micro_batch", self.micro_batch, 1, 65_536)
        _check_int("gpus", self.gpus, 1, 1024)
        _check_int("nodes", self.nodes, 1, 100_000)
        _check_int("zero_stage", self.zero_stage, 0, 3)
        _check_int("image_tokens", self.image_tokens, 0, 1_048_576)
        if not isinstance(self.lora_full_modules, tuple) or any(m not in ("embed", "lm_head")
                                                                  for m in self.lora_full_modules):
            raise UserError(f"lora_full_modules must name embed and/or lm_head, got {self.lora_full_modules!r}")
        if self.lora_full_modules and not self.is_lora:
            raise UserError(f"lora_full_modules needs method lora or qlora, got method {self.method!r}")
        if self.dora and not self.is_lora:
            raise UserError(f"dora needs method lora or qlora, got method {self.method!r}")
        problem = offload_problem(self.offload, self.zero_stage)
        if problem:
            raise UserError(problem)
        if self.attn == "fa2" and self.precision == "fp32":
            raise UserError("attn 'fa2' (FlashAttention-2) needs precision bf16, fp16 or pure_bf16, got fp32")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        d["lora_full_modules"] = list(self.lora_full_modules)
        if not d["lora_full_modules"]:     # said only where a module trains whole beside the adapters
            d.pop("lora_full_modules")
        if d["reference_model"] is None:   # said only where the runner decides it apart from the stage
            d.pop("reference_model")
        if d["reference_pass"] is None:
            d.pop("reference_pass")
        else:
            d["reference_pass"] = list(self.reference_pass or ())
        if d["logit_share"] == 1.0:        # said only where the trainer keeps fewer positions' logits
            d.pop("logit_share")
        if d["hf_loss_bytes"] is None:      # said only where the files date an older transformers' loss
            d.pop("hf_loss_bytes")
        else:
            d["hf_loss_bytes"] = list(self.hf_loss_bytes or ())
        if d["logits_16bit_loss"] is None:
            d.pop("logits_16bit_loss")
        else:
            d["logits_16bit_loss"] = list(self.logits_16bit_loss or ())
        d["lora_kernels"] = list(self.lora_kernels)
        d["fp8_linears"] = list(self.fp8_linears)
        if d["scores_bytes"] is None:
            d.pop("scores_bytes")
        else:
            d["scores_bytes"] = list(self.scores_bytes or ())
        if self.head == "lm":              # said only where the head is not the vocabulary's
            d.pop("head")
            d.pop("head_labels")
        for k in ("image_tokens", "vision_trainable", "vision_input_grads", "vision_scores",   # said only where a vision
                  "liger_norm", "liger_swiglu", "fused_ce", "mask_4d",              # tower / Liger kernel is estimated
                  "fused_ce_target", "lora_kernels", "fp8_linears", "moe_probs_in_act", "tiled_mlp",  # (or Unsloth's)
                  "router_aux_loss", "adam_sqrt_temp", "lora_expert_linears", "lora_fused_experts"):                                   # said only where the Trainer's AdamW makes it
            if not d[k]:
                d.pop(k)
        return d


@dataclass(frozen=True)
class PerGpuMemory:
    """Bytes on one GPU during one steady-state training step (step 2 onwards)."""

    weights_bytes: int
    frozen_weights_bytes: int
    trainable_weights_bytes: int
    gradients_bytes: int
    optimizer_bytes: int
    activations_bytes: int
    transient_bytes: int
    autocast_copies_bytes: int
    comm_buffers_bytes: int
    peak_allocated_bytes: int
    reserved_bytes: int
    # NCCL/RCCL communicator buffers outside PyTorch's allocator (in reserved, not in peak allocated)
    communicator_bytes: int = 0
    # of the above (weights, gradients, optimizer, activations): a vision-language model's vision tower
    vision_bytes: int = 0

    def to_dict(self) -> dict:
        d = {k: int(v) for k, v in asdict(self).items()}
        if not d["vision_bytes"]:
            d.pop("vision_bytes")
        return d


@dataclass(frozen=True)
class MemoryEstimate:
    model: object  # ModelSpec
    config: TrainConfig
    params_total: int
    params_trainable: int
    per_gpu: PerGpuMemory
    cpu_offload_bytes: int
    notes: tuple[str, ...] = ()
    # reserved / peak allocated of the caching allocator (ZeRO-3 never calls empty_cache in its step)
    reserved_factor: float = 1.08

    def to_dict(self) -> dict:
        return {
            "params": {"total": int(self.params_total), "trainable": int(self.params_trainable)},
            "per_gpu": self.per_gpu.to_dict(),
            "cpu_offload_bytes": int(self.cpu_offload_bytes),
            "config": self.config.to_dict(),
            "notes": list(self.notes),
        }


# ----------------------------------------------------------------------------------------------------
# The analytic model. Activation figures are "bytes per token" (tokens = micro_batch x cutoff_len, x2 for
# DPO's chosen + rejected) of what autograd keeps, following what the transformers / PEFT code does
# under the regime the runner really executes (core/runners/); `benchmarks/estimator_accuracy.py` checks
# it against the fake-tensor probe (rocm_tune/train/probe.py), which runs the real code.
# ----------------------------------------------------------------------------------------------------

_BLOCK = 512
# CUDA/HIP context + kernels + cuBLAS/hipBLAS workspaces, and the caching allocator's reserved-but-free
# share at the peak: published PyTorch/ROCm context sizes are 300-600 MiB; 8 % is the fragmentation seen in the
# field reports' rocm-smi figures. Measured on an H200 (benchmarks/results/gpu_truth-nvidia-h200.md, 40
# configurations): max_memory_reserved within 4.5 % (median) of this; kept as is.
_ALLOC_CONTEXT = 500 * 2**20
_FRAGMENTATION = 0.08
# bytes per trainable parameter of each optimizer's state, for trainable weights of `w` bytes
_STATE_BYTES = {"adamw": lambda w: 2 * w, "paged_adamw": lambda w: 2 * w, "adamw_8bit": lambda w: 2,
                "paged_adamw_8bit": lambda w: 2, "sgd": lambda w: 0, "sgd_momentum": lambda w: w,
                "adafactor": lambda w: 0}


def _round(n: float) -> int:
    return int(-(-int(n) // _BLOCK) * _BLOCK) if n > 0 else 0


# ---------------------------------------------------------------------------------------------- weights


@dataclass(frozen=True)
class _Weights:
    frozen: float      # frozen weights of the trained model (quantised ones for QLoRA)
    trainable: float   # trainable weights in the runner's trainable dtype
    reference: float   # DPO full fine-tuning: the frozen reference model


def _qlora_frozen_bytes(model, cfg: TrainConfig, regime: Regime) -> float:
    """bitsandbytes: every nn.Linear but lm_head quantised (decoder linears; routed experts and the router where
    they are nn.Linear modules), everything else in the runner's frozen dtype."""
    kinds = _DECODER_KINDS + (("expert", "router") if getattr(model, "experts_as_linears", False) else ())
    decoder = [g for g in model.linears if g.kind in kinds]
    quantised = sum(g.params for g in decoder)
    if cfg.quant_bits == 4:
        # 4-bit values + fp32 absmax per 64 (double quant: 8-bit absmax + fp32 per 256 of those)
        per_weight = 0.5 + (1 / 64 + 4 / (64 * 256) if cfg.double_quant else 4 / 64)
        quantised_bytes = quantised * per_weight
    else:
        # int8 values + an fp32 scale per output row
        quantised_bytes = quantised + 4 * sum(g.out_features * g.count * g.layers for g in decoder)
    return quantised_bytes + (model.params.total - quantised) * regime.frozen_bytes


def _weights(model, cfg: TrainConfig, regime: Regime, training: _Training, notes: list[str]) -> _Weights:
    total = model.params.total
    if cfg.method == "qlora":
        frozen = _qlora_frozen_bytes(model, cfg, regime)
        quant = "double quant" if cfg.double_quant and cfg.quant_bits == 4 else "no double quant"
        experts = bool(model.num_experts) and getattr(model, "experts_as_linears", False)
        notes.append(f"QLoRA {cfg.quant_bits}-bit: decoder linears quantised ({quant}); "
                     + ("the routed experts too (one nn.Linear per expert, as transformers 4.x builds them; under "
                        "transformers 5 they are fused 3-D parameters that bitsandbytes leaves 16-bit); "
                        "embeddings, norms and lm_head stay 16-bit" if experts else
                        "embeddings, norms, routed experts and lm_head stay 16-bit"))
    elif cfg.is_lora:
        frozen = total * regime.frozen_bytes
    else:
        frozen = (total - training.count) * regime.frozen_bytes
    whole = full_module_params(model, cfg)
    if whole:
        names = " and ".join("embed_tokens" if m == "embed" else "lm_head" for m in cfg.lora_full_modules)
        notes.append(f"LoRA modules_to_save {names}: PEFT trains a full copy beside the frozen original "
                     f"({sum(whole) / 1e6:.0f}M parameters with their gradients and optimizer state)")
    reference = 0
    keeps = cfg.reference_model if cfg.reference_model is not None else (cfg.stage == "dpo" and not cfg.is_lora)
    if keeps:
        reference = total * regime.frozen_bytes
        notes.append("a frozen reference model copy is kept in 16-bit" if cfg.reference_model is not None else
                     "DPO full: a frozen reference model copy is kept in 16-bit")
    elif cfg.stage == "dpo" and cfg.reference_model is None:
        notes.append("DPO LoRA: no reference copy (the adapter is disabled for the reference pass)")
    elif cfg.stage == "dpo":
        notes.append("no reference model (the runner's preference loss needs none)")
    return _Weights(frozen=frozen, trainable=training.count * regime.trainable_bytes, reference=reference)


# ---------------------------------------------------------------------------------------------- optimizer


def _optimizer_state(model, cfg: TrainConfig, trainable: int, weight_bytes: int) -> float:
    """Bytes of optimizer state for `trainable` weights stored in `weight_bytes` bytes each."""
    if cfg.optim == "adafactor":
        return _adafactor_state(model, cfg, trainable)
    state = trainable * _STATE_BYTES[cfg.optim](weight_bytes)
    if cfg.optim in ("adamw_8bit", "paged_adamw_8bit"):
        state += trainable * 2 * 4 / 2048  # block-wise fp32 absmax, block 2048
    return state


def paged_state_bytes(model, cfg: TrainConfig, est: MemoryEstimate) -> float:
    """Per-GPU bytes a bitsandbytes paged optimizer keeps in managed memory: its own state buffers only
    (bitsandbytes optim/optimizer.py get_state_buffer: state1/state2 of tensors >= 1e5 elements via get_paged).
    Under DeepSpeed ZeRO the fp32 master partition it steps is DeepSpeed's plain tensor
    (stage_1_and_2.py single_partition_of_fp32_groups, stage3.py fp32_partitioned_groups_flat): not paged;
    with the optimizer offloaded nothing of it is on the GPU."""
    if not cfg.optim.startswith("paged_"):
        return 0.0
    if cfg.zero_stage == 0:
        return float(est.per_gpu.optimizer_bytes)
    if cfg.offload in ("optimizer", "all"):
        return 0.0
    return _optimizer_state(model, cfg, est.params_trainable, 4) / max(1, cfg.world_size)


def _adafactor_state(model, cfg: TrainConfig, trainable: int) -> float:
    """Adafactor keeps a row and a column second-moment vector per matrix, a full one per vector."""
    if cfg.is_lora:
        return trainable / max(1, cfg.lora_rank) * 4  # rows/cols of thin adapter matrices
    share = trainable / max(1, model.params.total)
    vectors = sum((g.in_features + g.out_features) * g.count * g.layers for g in model.linears)
    if model.params.embed:
        vectors += model.vocab_size + model.hidden_size
    if model.params.lm_head:
        vectors += model.vocab_size + model.hidden_size
    vectors += model.params.norms
    return vectors * 4 * share


def _optimizer_transient(model, cfg: TrainConfig) -> float:
    """Adafactor's per-matrix temporaries in the step (fused AdamW / SGD have none)."""
    if cfg.optim != "adafactor":
        return 0.0
    if cfg.is_lora:
        biggest = max(g.in_features for g in model.linears) * cfg.lora_rank
    else:
        biggest = max([g.in_features * g.out_features for g in model.linears] +
                      ([model.params.embed] if cfg.method == "full" else []))
    return biggest * 4 * 3


# ---------------------------------------------------------------------------------------------- residency


@dataclass(frozen=True)
class _Resident:
    """Per-GPU bytes that stay allocated through the step, and what DeepSpeed adds."""

    weights: float
    gradients: float
    optimizer: float
    comm: float
    cpu_offload: float           # host bytes per node (pinned when DeepSpeed offloads)
    zero_step_transient: float   # DeepSpeed's flattened + fp32 gradient partition in step()
    shard_grads: int             # gradients are divided by this many ranks (ZeRO-2/3)
    shard_params: int            # weights are divided by this many ranks (ZeRO-3)
    grad_bytes: int              # bytes per gradient element


def _ds_casts_module(cfg: TrainConfig) -> bool:
    """DeepSpeed runs the module in the JSON's 16-bit dtype (engine.py _configure_distributed_model: module.half() /
    module.bfloat16()) at every ZeRO stage, stage 0 included."""
    return cfg.precision in ("bf16", "fp16") and (cfg.zero_stage >= 1 or cfg.deepspeed)


def _ds_frozen(cfg: TrainConfig, regime: Regime, frozen: float) -> float:
    """Frozen (and reference) weights once DeepSpeed has cast the module: fp32 ones halve (a 4-bit base stays)."""
    return frozen / 2 if regime.frozen_bytes == 4 and cfg.method != "qlora" else frozen


def _resident(model, cfg: TrainConfig, regime: Regime, training: _Training, weights: _Weights,
              notes: list[str]) -> _Resident:
    world = cfg.world_size
    if cfg.zero_stage == 0:
        grad_bytes = regime.trainable_bytes
        held = weights.frozen + weights.trainable + weights.reference
        if _ds_casts_module(cfg):
            # engine.py _configure_distributed_model: module.half() / module.bfloat16() at every stage
            grad_bytes = 2
            held = _ds_frozen(cfg, regime, weights.frozen + weights.reference) + training.count * 2.0
        grads = training.count * grad_bytes
        comm, transient = 0.0, 0.0
        optimizer = _optimizer_state(model, cfg, training.count, grad_bytes)
        if cfg.deepspeed:
            # no DDP under DeepSpeed: its engine reduces, its fp16/bf16 wrapper keeps what runners/deepspeed.stage0 says
            z0 = ds.stage0(cfg, trainable=training.count, largest=training.largest,
                           fp32_state=_optimizer_state(model, cfg, training.count, 4), native_state=optimizer,
                           grad_bytes=grad_bytes)
            optimizer, transient = z0.optimizer, z0.step_transient
            notes.append(z0.note)
        elif world > 1:
            comm = grads  # DDP reducer buckets: a flat copy of every gradient
            notes.append("DDP: the reducer keeps gradient buckets as large as all gradients together")
        return _Resident(weights=held, gradients=grads, optimizer=optimizer,
                         comm=comm, cpu_offload=0.0, zero_step_transient=transient, shard_grads=1, shard_params=1,
                         grad_bytes=grad_bytes)
    zero = ds.allocations(model, cfg, regime, trainable=training.count, largest_trainable=training.largest,
                          frozen_bytes=weights.frozen, reference_bytes=weights.reference,
                          optimizer_fp32_state=_optimizer_state(model, cfg, training.count, 4))
    offload = f", offload {cfg.offload} (pinned host memory)" if cfg.offload != "none" else ""
    notes.append(f"DeepSpeed ZeRO-{cfg.zero_stage} over {world} GPU(s){offload}")
    return _Resident(weights=zero.weights, gradients=zero.gradients, optimizer=zero.optimizer, comm=zero.buffers,
                     cpu_offload=zero.host_pinned * cfg.gpus,  # one node holds its own GPUs' partitions
                     zero_step_transient=zero.step_transient,
                     shard_grads=world if cfg.zero_stage >= 2 else 1,
                     shard_params=world if cfg.zero_stage == 3 else 1, grad_bytes=zero.grad_bytes)


# ---------------------------------------------------------------------------------------------- activations


class _LayerActivations:
    """Bytes per token that autograd keeps in one decoder layer, module by module."""

    def __init__(self, model, cfg: TrainConfig, regime: Regime, wrapped, seq: int):
        self.model, self.cfg, self.regime, self.seq = model, cfg, regime, seq
        self.hidden = int(model.hidden_size)
        self.heads = max(1, int(model.num_attention_heads))
        head_dim = max(1, int(model.head_dim))
        self.q_dim = self.heads * head_dim
        self.kv_dim = max(1, int(model.num_kv_heads)) * head_dim
        self.compute = regime.compute_bytes
        self.wrapped_names = {g.name for g in wrapped}
        # residual stream dtype: the embedding's output dtype (its weights train only in full fine-tuning)
        self.residual = regime.trainable_bytes if cfg.method == "full" else regime.frozen_bytes
        self.eager = cfg.attn == "eager"
        self.embed_kept = self.residual * self.hidden
        eager_scores = 0.0
        if self.eager:
            # scores: the fp32 softmax output + its 16-bit copy (both saved) + repeated k/v
            probs: float = 4 + self.compute if self.compute == 2 else 4
            if cfg.scores_bytes is not None:       # the runner's own softmax kernel (TrainConfig.scores_bytes)
                probs = cfg.scores_bytes[0]
            eager_scores = self.heads * seq * probs + 2 * self.compute * self.q_dim
        self._mlp_kept = {True: 0.0, False: 0.0}
        self._kept = {True: self._layer(True) + eager_scores, False: self._layer(False) + eager_scores}
        self.checkpoint_kept = self.residual * self.hidden
        # the MLP's backward: the gradients of the down projection's input, of the activation and of the gate (Liger's
        # SiLU-mul writes the gate's and up's gradients into its saved a and b in place: ops/swiglu.py
        # swiglu_backward returns a, b - only the incoming gradient is new)
        self._mlp_backward = 4 * self.residual * self.hidden \
            + (1 if cfg.liger_swiglu else 3) * self.compute * model.intermediate_size
        if cfg.is_lora and all(m in cfg.lora_kernels for m in ("gate_proj", "up_proj", "down_proj")):
            # Unsloth's LoRA_MLP.backward (unsloth/kernels/fast_lora.py): the incoming gradient and DW = dY @ down^T;
            # the SwiGLU backward writes h, df, de into DW, e, g and dX into the saved X (inplace=True)
            self._mlp_backward = self.residual * self.hidden + self.compute * model.intermediate_size
        if cfg.tiled_mlp:
            # TiledMLP.backward: the input's full-size zeros_like gradient and the incoming gradient, beside one
            # tile's recomputed MLP (what it keeps and its backward), spread here over the micro-batch's tokens
            tokens = max(1, cfg.micro_batch * seq * (2 if cfg.stage == "dpo" else 1))
            tile = min(cfg.tiled_mlp, tokens)
            one_tile = (self._mlp_backward + self._mlp_intermediates() + 2 * self.compute * self.hidden) * tile
            self._mlp_backward = 2 * self.residual * self.hidden + one_tile / tokens

    def kept(self, weights_train: bool) -> float:
        return self._kept[weights_train]

    def backward_transient(self, train: bool) -> float:
        """Bytes per token a layer's backward adds on top of what it kept: the larger of the MLP backward
        and, for eager attention, the softmax backward. There the MLP's saved tensors are already freed and
        so is the 16-bit copy of the probabilities (by the matmul's backward), while the fp32
        probabilities, their fp32 gradient and the softmax's output gradient are live at once (the probe's
        peak op is aten._softmax_backward_data)."""
        if not self.eager:
            return self._mlp_backward
        copy = self.compute if self.compute == 2 else 0
        per_score = 8 - copy if self.cfg.scores_bytes is None else self.cfg.scores_bytes[1]
        softmax = self.heads * self.seq * per_score - self._mlp_kept[train]
        return max(self._mlp_backward, softmax)

    def eager_mask_bytes(self, rows: int) -> int:
        """The 4-D attention mask the forward keeps: eager attention's causal mask, or one the runner builds itself
        (cfg.mask_4d)."""
        return rows * self.seq * self.seq * self.compute if self.eager or self.cfg.mask_4d else 0

    def _norms(self, weights_train: bool) -> float:
        """RMSNorm saves its fp32 input; with a trainable weight the normalised input too. Liger's RMSNorm saves its
        input in its own dtype and an fp32 rstd per row, whether the weight trains or not (its backward makes the
        weight's gradient from them)."""
        model, hidden = self.model, self.hidden
        if self.cfg.liger_norm:
            kept = model.norms_per_layer * (self.residual * hidden + 4)
            if model.qk_norm:   # q_norm / k_norm are the same class: patched too, one rstd per head row
                kept += self.compute * (self.q_dim + self.kv_dim) + 4 * (self.heads + max(1, int(model.num_kv_heads)))
            return kept
        fp32_product = model.norm_fp32_product
        kept = model.norms_per_layer * 4 * hidden
        if weights_train:
            kept += model.norms_per_layer * (4 if (fp32_product or self.residual == 4) else self.residual) * hidden
        if model.qk_norm:
            width = self.q_dim + self.kv_dim
            kept += 4 * width
            if weights_train:
                kept += (4 if fp32_product or self.regime.trainable_bytes == 4 else self.compute) * width
        return kept

    def _linear_inputs(self, groups, in_bytes: int, already_saved: bool, weights_train: bool) -> float:
        """Bytes saved for the inputs of the linears in ``groups``, which all read one tensor."""
        regime, cfg = self.regime, self.cfg
        extra = 0.0
        shared = False
        for g in groups:
            n_in = g.in_features
            if cfg.is_lora and g.name in self.wrapped_names and g.name in cfg.lora_kernels:
                shared = True                  # Unsloth's LoRA function saves the input as it is, nothing else
            elif cfg.is_lora and g.name in self.wrapped_names:
                adapter = regime.trainable_bytes
                lora_out = self.compute if regime.autocast else adapter   # lora_A's output
                extra += lora_out * cfg.lora_rank * (2 if cfg.dora else 1)
                if cfg.dora:
                    extra += 2 * self.compute * g.out_features
                if regime.autocast and adapter == 4:
                    extra += 2 * n_in          # PEFT casts x to fp32, autocast back: a copy each
                elif adapter != in_bytes:
                    extra += adapter * n_in    # PEFT casts x to the adapter's dtype, saved by lora_A
                else:
                    shared = True
            elif weights_train:
                if regime.autocast and in_bytes == 4:
                    extra += 2 * n_in          # autocast casts the fp32 input once per linear
                else:
                    shared = True
        if shared and not already_saved:
            extra += in_bytes * groups[0].in_features
        return extra

    def _layer(self, train: bool) -> float:
        model, regime = self.model, self.regime
        weights_train = train and not self.cfg.is_lora
        norm_out = regime.trainable_bytes if weights_train else regime.frozen_bytes
        kept = self._norms(weights_train)
        by_input: dict[str, list] = {"norm1": [], "attn_out": [], "norm2": [], "mlp_mid": []}
        o_names = {"o_proj", "dense", "out_proj", "wo", "c_proj"}
        for g in model.linears:
            if g.kind == "attn":
                is_out = g.in_features == self.q_dim and g.out_features == self.hidden and g.name in o_names
                by_input["attn_out" if is_out else "norm1"].append(g)
            elif g.kind in ("mlp", "shared_expert"):
                by_input["norm2" if g.in_features == self.hidden else "mlp_mid"].append(g)
        inputs = {"norm1": (norm_out, False), "attn_out": (self.compute, True), "norm2": (norm_out, False),
                  "mlp_mid": (self.compute, False)}
        fp8 = self.cfg.fp8_linears if weights_train else ()
        if "dense" in fp8:   # each linear saves its own FP8 copy of its input (TrainConfig.fp8_linears), even o_proj's
            inputs = {k: (1, False) for k in inputs}
        mlp = self._mlp_intermediates("experts" in fp8)
        if groups_in(by_input["mlp_mid"], self.cfg.lora_kernels) and self.cfg.is_lora:
            by_input["mlp_mid"] = []           # LoRA_MLP recomputes down_proj's input from the gate and up outputs
        if self.cfg.tiled_mlp:                 # TiledMLP: the MLP runs under no_grad, its input saved once
            by_input["norm2"], by_input["mlp_mid"] = [], []
            mlp = norm_out * self.hidden
        for key, groups in by_input.items():
            if groups:
                in_bytes, already_saved = inputs[key]
                saved = self._linear_inputs(groups, in_bytes, already_saved, weights_train)
                kept += saved
                if key in ("norm2", "mlp_mid"):
                    mlp += saved
        self._mlp_kept[train] = mlp
        # attention core (sdpa / flash): q and k after RoPE, v, the output, fp32 logsumexp
        kept += self.compute * (2 * self.q_dim + 2 * self.kv_dim) + 4 * self.heads
        if self.cfg.tiled_mlp:
            return kept + mlp
        return kept + self._mlp_intermediates("experts" in fp8)

    def _mlp_intermediates(self, fp8: bool = False) -> float:
        """Gated: gate out (act input), act out, up out; plain: the activation input. MoE: per routed copy
        the gathered input, gate_up out, act out, product and weighted output; fp32 router logits/softmax. `fp8`:
        the routed experts' grouped linears save their inputs (the gathered input, the product) as 1-byte FP8."""
        model, c = self.model, self.compute
        lin = 1 if fp8 else c
        # Liger's fused SiLU-mul keeps the gate and up outputs only (the activation's output is recomputed)
        gated = 2 if self.cfg.liger_swiglu else 3
        moe = bool(model.num_experts) and model.moe_layers >= model.num_layers
        if not moe:
            return c * model.intermediate_size * (gated if model.gated_mlp else 1)
        top_k = max(1, model.num_experts_per_tok)
        expert_width = model.moe_intermediate_size or model.intermediate_size
        weighted = 0 if self.cfg.moe_probs_in_act else self.hidden
        kept = top_k * (lin * (self.hidden + expert_width) + c * (weighted + gated * expert_width)) \
            + 8 * model.num_experts
        if model.shared_expert_intermediate_size:
            kept += c * model.shared_expert_intermediate_size * gated
        return kept


def groups_in(groups, names: tuple[str, ...]) -> bool:
    """Every linear of `groups` is one of `names` (and there is one)."""
    return bool(groups) and all(g.name in names for g in groups)


@dataclass(frozen=True)
class _Activations:
    per_layer: tuple[float, ...]   # bytes kept by each decoder layer through the forward
    prefix: float                  # kept before the first layer (embedding output, eager mask)
    layers: _LayerActivations
    tokens: int

    @property
    def total(self) -> float:
        return self.prefix + sum(self.per_layer)


def _activations(model, cfg: TrainConfig, regime: Regime, training: _Training, notes: list[str]) -> _Activations:
    rows = cfg.micro_batch * (2 if cfg.stage == "dpo" else 1)
    tokens = rows * cfg.cutoff_len
    cfg_act = cfg
    if not model.sdpa_supported and cfg.attn == "sdpa":
        why = "logit soft-capping" if model.family == "gemma2" else "no _supports_sdpa"
        notes.append(f"{model.family} has no sdpa attention in transformers ({why}): estimated as eager")
        cfg_act = replace(cfg, attn="eager")
    layers = _LayerActivations(model, cfg_act, regime, training.wrapped, cfg.cutoff_len)
    per_layer = []
    for trains, in_graph in zip(training.layer_trains, _graph_layers(cfg, training)):
        if not in_graph:
            per_layer.append(0.0)
        elif cfg.gradient_checkpointing:
            per_layer.append(layers.checkpoint_kept * tokens)
        else:
            per_layer.append(layers.kept(trains) * tokens)
    prefix = layers.embed_kept * tokens + layers.eager_mask_bytes(rows)
    return _Activations(per_layer=tuple(per_layer), prefix=prefix, layers=layers, tokens=tokens)


def _graph_layers(cfg: TrainConfig, training: _Training) -> list[bool]:
    """Layers below the first trainable one keep nothing unless checkpointing made inputs require grad.
    LLaMA-Factory's checkpointing does not: its custom checkpoint function makes the hidden states require grad only
    for a layer with trainable parameters and runs any other layer plainly (model/model_utils/checkpointing.py
    get_custom_gradient_checkpointing_func; the new GC format never calls enable_input_require_grads), so the frozen
    layers below a freeze-tuned block keep nothing."""
    everywhere = cfg.is_lora or cfg.method == "full" or (cfg.gradient_checkpointing and cfg.runner != "llamafactory")
    return [trains or everywhere for trains in training.layer_trains]


# ---------------------------------------------------------------------------------------------- autocast


@dataclass(frozen=True)
class _AutocastCopies:
    """16-bit copies autocast makes of fp32 trainable weights, cached until it exits after the loss."""

    forward: float      # alive at the end of the forward
    saved: float        # still referenced by autograd during backward
    per_layer: float    # one trainable layer's copies (made again by a checkpointed layer's recompute)
    head_grad: float    # the lm_head copy's gradient in the head's backward


def _trained_head(model, cfg: TrainConfig) -> int:
    """Elements of the output head when its weight trains: full fine-tuning, or LoRA's modules_to_save copy."""
    if cfg.method == "full":
        return int(model.params.lm_head or model.params.embed)
    if "lm_head" in cfg.lora_full_modules:
        return full_module_params(model, replace(cfg, lora_full_modules=("lm_head",)))[0]
    return 0


def _autocast_copies(model, cfg: TrainConfig, regime: Regime, training: _Training,
                     sharded: bool = False) -> _AutocastCopies:
    head = _trained_head(model, cfg)
    if not (regime.autocast and regime.trainable_bytes == 4) or _ds_casts_module(cfg) or sharded:
        # no autocast, weights already 16-bit, or DeepSpeed runs the 16-bit module itself; a fully sharded data
        # parallel (`sharded`: torch FSDP's MixedPrecision / FSDP2's MixedPrecisionPolicy param_dtype, Megatron's
        # 16-bit module) all-gathers each unit already in the 16-bit dtype, so autocast finds no fp32 weight to cast
        # (torch/distributed/fsdp/_flat_param.py: the low-precision shard is what is unsharded)
        return _AutocastCopies(0.0, 0.0, 0.0, head * 2 if regime.mixed else 0.0)
    trained_layers = sum(training.layer_trains) if not cfg.is_lora else 0
    per_layer_linear = sum(g.params for g in model.linears) / max(1, model.num_layers)
    linear = per_layer_linear * trained_layers
    forward = (linear + head) * 2
    saved = ((0 if cfg.gradient_checkpointing else linear) + head) * 2
    per_layer = per_layer_linear * 2 if trained_layers else 0.0
    return _AutocastCopies(forward=forward, saved=saved, per_layer=per_layer, head_grad=head * 2)


# ---------------------------------------------------------------------------------------------- the step


def _layer_gradients(model, cfg: TrainConfig, training: _Training, resident: _Resident) -> list[float]:
    """Gradient bytes each decoder layer adds when its backward finishes."""
    num_layers = max(1, int(model.num_layers))
    if cfg.zero_stage >= 1 and cfg.offload != "none":
        return [0.0] * num_layers   # gradient partitions go to the host bucket by bucket
    per_element = resident.grad_bytes
    if cfg.is_lora:
        grads = [training.count * per_element / num_layers] * num_layers
    elif model.params.per_layer:
        grads = [p * per_element if trains else 0 for p, trains in zip(model.params.per_layer, training.layer_trains)]
    else:
        grads = [0.0] * num_layers
    return [g / resident.shard_grads for g in grads]


def _step_peak(model, cfg: TrainConfig, regime: Regime, training: _Training, resident: _Resident,
               acts: _Activations, casts: _AutocastCopies) -> tuple[float, float]:
    """Largest live total (beyond weights, optimizer state and buffers) over the phases of one step, and
    the gradients alive when backward ends."""
    params = model.params
    logits = model.vocab_size * acts.tokens * cfg.logit_share
    compute = regime.compute_bytes
    softcap = compute * logits if model.final_logit_softcapping else 0   # tanh output saved by soft-capping
    offloaded = cfg.zero_stage >= 1 and cfg.offload != "none"
    head_params = (params.lm_head or params.embed) if cfg.method == "full" else 0
    head_grad = 0 if offloaded else head_params * resident.grad_bytes / resident.shard_grads
    kept = acts.total
    own_loss = (loss_copies.extra_bytes_per_logit(model, compute, hf_loss=cfg.hf_loss_bytes, rows=cfg.micro_batch)
                if loss_copies.model_computes_loss(cfg) else 0)
    # forward end, inside autocast: lm_head output, its fp32 upcast and the fp32 log-softmax (a remote-code model's
    # own loss may hold more: core/memory/loss_copies.py); loss backward: fp32 log-softmax kept, the incoming gradient
    # and the gradient of its input. A loss on the 16-bit logits holds the copies TrainConfig.logits_16bit_loss says
    loss_fwd, loss_bwd, logit_grad = float(compute + 8 + own_loss), 12.0, float(compute)
    if cfg.logits_16bit_loss and compute == 2:
        loss_fwd, loss_bwd = (c * compute for c in cfg.logits_16bit_loss)
    head = model_heads.step_terms(model, cfg.head, cfg.head_labels, compute)
    if head is not None:
        # another head (core/memory/heads.py): its own width and copies, and what it keeps beside its output (a value
        # head's fp32 input); soft-capping only where the causal LM's forward runs (Gemma-2's is in ForCausalLM)
        lm_runs = head.width == model.vocab_size
        logits, softcap = head.width * acts.tokens, head.kept * acts.tokens + (softcap if lm_runs else 0)
        loss_fwd, loss_bwd, logit_grad = head.fwd, head.loss_bwd, head.grad
    if cfg.fused_ce and head is None:
        phases = _fused_ce_phases(model, cfg, acts, casts, compute, head_params, head_grad)
    else:
        phases = [
            kept + casts.forward + loss_fwd * logits + softcap,
            kept + casts.saved + loss_bwd * logits + softcap,
            # lm_head backward: gradient of the logits in compute dtype + the head's weight gradient
            kept + casts.saved + logit_grad * logits + softcap + head_grad + casts.head_grad,
        ]
        if cfg.reference_pass and head is None and not (cfg.logits_16bit_loss and compute == 2):
            # the reference's no-grad forward beside the policy's fp32 logits and log-softmax
            policy, reference = cfg.reference_pass
            phases.append(kept + casts.forward + (policy + reference) * logits + softcap)
    aux = router_aux_bytes(model, cfg, regime.compute_bytes) * acts.tokens
    if aux:   # after the loss: the logits and what the loss keeps for its backward are still there
        kept_loss = 0.0 if cfg.fused_ce and head is None else (compute + 4.0) * logits + softcap
        phases.append(kept + casts.forward + kept_loss + aux)
    grads_after = float(head_grad)
    live_layers = acts.prefix + sum(acts.per_layer)
    layer_grads = _layer_gradients(model, cfg, training, resident)
    graph = _graph_layers(cfg, training)
    trained_before = list(accumulate(training.layer_trains))   # trainable layers up to and including i
    inner_of = {}
    for trains in (True, False):
        inner_of[trains] = acts.layers.backward_transient(trains) * acts.tokens
        if cfg.gradient_checkpointing:   # the layer's forward runs again and keeps everything
            inner_of[trains] += acts.layers.kept(trains) * acts.tokens + (casts.per_layer if trains else 0)
    for i in range(len(graph) - 1, -1, -1):
        if not graph[i]:
            break
        inner = inner_of[training.layer_trains[i]]
        saved_casts = 0.0 if cfg.gradient_checkpointing else casts.per_layer * trained_before[i]
        phases.append(live_layers + inner + grads_after + layer_grads[i] + saved_casts)
        live_layers -= acts.per_layer[i]
        grads_after += layer_grads[i]
    # end of backward: every gradient; a trainable embedding adds its dense gradient (tied to lm_head: the
    # dense gradient and the out-of-place sum with the head's gradient)
    embed_grad = 0.0
    if cfg.method == "full" and not offloaded:
        embed_grad = params.embed * resident.grad_bytes / resident.shard_grads
    all_grads = grads_after + (embed_grad if params.lm_head else 0)
    phases.append(all_grads + (0 if params.lm_head else 2 * embed_grad))
    # optimizer step: Adafactor's temporaries, or DeepSpeed's flattened + fp32 gradient partition
    phases.append(_zero1_step_grads(model, cfg, all_grads, phases) + _optimizer_transient(model, cfg)
                  + resident.zero_step_transient + _foreach_adam(cfg, training, regime, resident))
    return max(phases), all_grads


def _zero1_step_grads(model, cfg: TrainConfig, all_grads: float, phases: list[float]) -> float:
    """Gradients alive in the optimizer step. ZeRO-1 keeps every gradient through backward and the reduction, but
    its step() frees those outside the rank's partition before it flattens the partition (stage_1_and_2.py step:
    free_grad_in_param_list(self.params_not_in_partition[i]), v0.9-v0.18): 1/W of them remain. fp16's overflow check
    runs before that, on all of them (appended to `phases`)."""
    if cfg.zero_stage != 1 or cfg.offload != "none":
        return all_grads
    z12 = ds.zero12_step(model, cfg, ds_optimizer_block=False)
    if z12 is not None and z12.overflow_check:
        phases.append(all_grads + z12.overflow_check)
    return all_grads / max(1, cfg.world_size)


def router_aux_bytes(model, cfg: TrainConfig, compute: int) -> float:
    """Bytes per token transformers' load_balancing_loss_func holds at once (TrainConfig.router_aux_loss): the MoE
    layers' router logits (kept through the forward for it), their concatenation and its softmax (compute dtype,
    [layers x tokens, experts] each), and the top-k one-hot int64 mask [layers x tokens, k, experts] with its float
    copy; with an attention mask also that mask expanded to the one-hot's shape (int64) and their product (fp32):
    3 E L compute bytes + 24 k E L (12 k E L without a mask)."""
    if not cfg.router_aux_loss or not model.num_experts:
        return 0.0
    layers, experts, top_k = max(1, model.moe_layers), model.num_experts, max(1, model.num_experts_per_tok)
    per_choice = 24 if cfg.router_aux_loss == "masked" else 12
    return float(3 * compute * experts * layers + per_choice * top_k * experts * layers)


def _router_aux_note(model, cfg: TrainConfig, compute: int, tokens: int) -> list[str]:
    aux = router_aux_bytes(model, cfg, compute) * tokens
    if not aux:
        return []
    return [f"router load-balancing loss (output_router_logits): transformers' load_balancing_loss_func holds "
            f"{aux / 2**30:.2f} GiB at the forward's end ({model.moe_layers} MoE layers x {tokens} tokens x "
            f"top-{model.num_experts_per_tok} of {model.num_experts} experts: the int64 one-hot"
            + (" and the attention mask expanded to it" if cfg.router_aux_loss == "masked" else "")
            + ", fp32 copies, the router logits and their softmax)"]


def _foreach_adam(cfg: TrainConfig, training: _Training, regime: Regime, resident: _Resident) -> float:
    """The AdamW step's square-root temporary (TrainConfig.adam_sqrt_temp), in the moments' dtype (the trainable
    weights'), where every rank steps whole parameters (DDP, one GPU; ZeRO-1/2's is in runners/deepspeed.py
    zero12_step)."""
    if not cfg.adam_sqrt_temp or cfg.optim != "adamw" or cfg.zero_stage != 0 or resident.shard_grads != 1 \
            or cfg.deepspeed:      # DeepSpeed ZeRO-0: counted in runners/deepspeed.stage0
        return 0.0
    return float((training.count if cfg.adam_sqrt_temp == "foreach" else training.largest) * regime.trainable_bytes)


def _foreach_adam_note(cfg: TrainConfig, foreach: float) -> list[str]:
    """What the AdamW step's square-root temporary (_foreach_adam) is, said where it is counted."""
    if not foreach:
        return []
    if cfg.adam_sqrt_temp == "foreach":
        return [f"torch AdamW (foreach, the Trainer's adamw_torch): its step makes a temporary of the second moment's "
                f"size, {foreach / 2**30:.2f} GiB, beside the gradients (torch/optim _multi_tensor_adamw "
                f"torch._foreach_sqrt(exp_avg_sqs); optim adamw_torch_fused steps in place)"]
    return [f"transformers' AdamW (adamw_hf): its step makes the largest parameter's exp_avg_sq.sqrt(), "
            f"{foreach / 2**30:.2f} GiB, beside the gradients (transformers/optimization.py AdamW.step)"]


def _fused_ce_phases(model, cfg: TrainConfig, acts: _Activations, casts: _AutocastCopies, compute: int,
                     head_params: float, head_grad: float) -> list[float]:
    """The loss's phases under a fused linear cross-entropy (Liger ops/fused_linear_cross_entropy.py
    fused_linear_cross_entropy_forward): in the forward, a zeroed grad_input of the hidden states' size, one chunk of
    logits (chunk_size ~ tokens / cdiv(vocab, hidden) rows: about the hidden states' size again) and, when lm_head
    trains, an fp32 grad_weight with the fp32 product of each chunk's mm; grad_input stays saved until the loss's
    backward hands it on. No [tokens, vocab] tensor."""
    hidden_states = acts.tokens * int(model.hidden_size) * compute
    head_fp32 = 8 * head_params if head_params else 0.0      # fp32 grad_weight + the fp32 mm result it accumulates
    kept = acts.total
    chunk = hidden_states                                    # Liger's chunk: about the hidden states' size
    if cfg.fused_ce_target:                                  # Unsloth's is sized to its target
        chunk = fused_loss.chunk_bytes(acts.tokens, int(model.vocab_size), int(hidden_states), cfg.fused_ce_target)
    return [
        kept + casts.forward + hidden_states + chunk + head_fp32,
        kept + casts.saved + hidden_states + head_grad + casts.head_grad,
    ]


def _kernel_notes(model, cfg: TrainConfig, tokens: int, notes: list[str]) -> None:
    """What the fused loss and the Liger / Unsloth kernels change, said."""
    unsloth = bool(cfg.fused_ce_target or cfg.lora_kernels)
    if cfg.fused_ce and cfg.fused_ce_target:
        vocab, fixed = int(model.vocab_size), tokens * int(model.hidden_size) * 2
        n = fused_loss.ce_chunks(tokens, vocab, fixed, cfg.fused_ce_target)
        chunk = fused_loss.chunk_bytes(tokens, vocab, fixed, cfg.fused_ce_target)
        notes.append(f"Unsloth's fused cross-entropy: the loss is made in {n} chunk(s), no [tokens, vocab] logits; the "
                     f"hidden states' gradient and one chunk ({chunk / 2**30:.2f} GiB: its 16-bit logits and their "
                     f"gradient) counted instead")
    elif cfg.fused_ce:
        notes.append("fused linear cross-entropy (Liger / Cut Cross-Entropy): the loss is made chunk by chunk, no "
                     "[tokens, vocab] logits; its chunks and the hidden states' gradient counted instead")
    if cfg.liger_norm or cfg.liger_swiglu:
        notes.append(("Unsloth's kernels: " if unsloth else "Liger kernels: ") + " and ".join(
            k for k, on in (("RMSNorm keeps its 16-bit input and an fp32 rstd per row", cfg.liger_norm),
                            ("SwiGLU keeps only the gate and up outputs", cfg.liger_swiglu)) if on))
    if cfg.lora_kernels:
        notes.append(f"Unsloth's LoRA functions on {', '.join(cfg.lora_kernels)}: each saves its 16-bit input only "
                     f"(no fp32 copy for the adapters, no lora_A output)")


def _step_extras(model, cfg: TrainConfig, training: _Training, notes: list[str]) -> float:
    """Transients on top of every phase: a dequantised weight (QLoRA), DoRA's weight-norm computation."""
    extra = 0.0
    if cfg.method == "qlora":
        extra += 2 * max((g.in_features * g.out_features for g in model.linears if g.kind in _DECODER_KINDS),
                         default=0)
    if cfg.dora:
        # PEFT's DoRA materialises the full delta weight (through an identity matrix) and the weight norm
        # of the largest wrapped linear in fp32; ~14.5 bytes per weight element measured by the probe
        extra += max((14.5 * g.in_features * g.out_features for g in training.wrapped), default=0)
        notes.append("DoRA: the transient of its weight-norm computation is approximate (within ~10%)")
    return extra


# ---------------------------------------------------------------------------------------------- communicators
# GPU memory outside PyTorch's caching allocator per NCCL/RCCL communicator: nvidia-smi/rocm-smi show it, torch's
# reserved does not (../shared/knowledge/zero3-memory.md 2.6): NVIDIA/nccl#964 measured 544-688 MB per communicator
# on NVLink A100s; with NVLS (NVSwitch H100/H200, on by default) vLLM#9699 logs nvlsTotalSize 2.25 GiB more per
# communicator; 8 x RTX 3090 over PCIe 0.7-1.5 GiB for DeepSpeed's two. DeepSpeed opens two world-size
# communicators (torch's default group and deepspeed/utils/groups.py _clone_world_group), DDP/FSDP one.
COMM_PCIE = int(0.5 * 2**30)
COMM_LINK = int(0.6 * 2**30)
COMM_NVLS = COMM_LINK + int(2.25 * 2**30)


def communicator_bytes(cfg: TrainConfig, gpu=None) -> tuple[int, str | None]:
    """Bytes per GPU of the job's collective communicators (0 on one GPU) and the note that says so. `gpu`: its
    profile (the interconnect decides the size); None: PCIe assumed."""
    if cfg.world_size <= 1:
        return 0, None
    n = 2 if cfg.zero_stage or cfg.deepspeed else 1   # ZeRO-0 too: engine.py groups._get_data_parallel_group()
    ic = str(getattr(gpu, "interconnect", "") or "").lower().replace("no nvlink", "")
    if ("nvlink4" in ic or "nvlink5" in ic) and "bridge" not in ic:
        per, kind = COMM_NVLS, "NVSwitch with NVLS"
    elif ("nvlink" in ic or "infinity fabric" in ic or "xgmi" in ic) and "bridge" not in ic:
        per, kind = COMM_LINK, "GPU links"
    else:
        per, kind = COMM_PCIE, "PCIe" if ic else "interconnect unknown, PCIe assumed"
    return n * per, (f"{n} NCCL/RCCL communicator(s) over {kind}: {n * per / 2**30:.2f} GiB per GPU outside "
                     f"PyTorch's allocator (in reserved, as nvidia-smi/rocm-smi show it)")


def estimate(model, cfg: TrainConfig, gpu=None, *, prefetch_bucket: int | None = None,
             grad_shards: int = 1) -> MemoryEstimate:
    """Per-GPU memory of one steady-state training step of `model` (a ModelSpec) under `cfg`, in the
    regime ``cfg.runner`` really executes. `gpu`: the GPU profile (its interconnect sizes the NCCL/RCCL
    communicators on more than one GPU; None: PCIe assumed); `prefetch_bucket`: ZeRO-3
    stage3_prefetch_bucket_size in elements as a user's JSON sets it (None: transformers' "auto", 0.9 hidden**2);
    `grad_shards`: without ZeRO, each gradient is kept as 1/N of itself once its layer's backward ends (a
    fully sharded data parallel outside DeepSpeed, Megatron's FSDP: reduce-scattered layer by layer)."""
    cfg.validate()
    model = model_heads.without_lm_head(model, cfg.head, cfg.head_labels)
    regime = runners.regime(model, cfg)
    notes: list[str] = list(regime.notes)
    head_terms = model_heads.step_terms(model, cfg.head, cfg.head_labels, 2)
    if head_terms is not None:
        notes.append(head_terms.note)
    training = _training(model, cfg)
    weights = _weights(model, cfg, regime, training, notes)
    resident = _resident(model, cfg, regime, training, weights, notes)
    if grad_shards > 1 and cfg.zero_stage == 0:
        resident = replace(resident, gradients=resident.gradients / grad_shards, shard_grads=grad_shards)
    acts = _activations(model, cfg, regime, training, notes)
    casts = _autocast_copies(model, cfg, regime, training, sharded=grad_shards > 1)
    step, all_grads = _step_peak(model, cfg, regime, training, resident, acts, casts)
    own_loss = loss_copies.note(model, int(model.vocab_size * acts.tokens), regime.compute_bytes) \
        if loss_copies.model_computes_loss(cfg) and cfg.head == "lm" else None
    if own_loss:
        notes.append(own_loss)
    _kernel_notes(model, cfg, acts.tokens, notes)
    notes.extend(_router_aux_note(model, cfg, regime.compute_bytes, acts.tokens))
    step += _step_extras(model, cfg, training, notes)
    notes += _foreach_adam_note(cfg, _foreach_adam(cfg, training, regime, resident))
    vis = vision_memory(model, cfg, regime, lambda n, b: _optimizer_state(model, cfg, n, b))
    if vis is not None:
        notes.append(vis.note)
        # kept ViT activations live until the tower's backward, the last; a frozen tower's block runs before the
        # language model's layers keep anything
        step = max(step + vis.kept, vis.transient)
    factor = 1 + _FRAGMENTATION
    z3 = ds.zero3_terms(model, cfg, prefetch_bucket)
    if z3 is not None:
        # the offload temporaries come when the embedding's gradient is partitioned, at the end of backward (its
        # backward is the last): next to the gradients then alive, not on top of the logits' peak. Measured on an
        # H200 (benchmarks/results/gpu_truth-nvidia-h200.md): counting them at the peak over-estimated offload by 60 %
        step = max(step + z3.step_extra, all_grads + z3.step_extra + z3.offload_grad_temps)
        factor = z3.reserved_factor
        counted = [f"{n} {v / 2**30:.2f} GiB" for n, v in (("dense vocab gradient", z3.vocab_grad),
                                                            ("offload gradient temporaries", z3.offload_grad_temps),
                                                            ("coalesced gather", z3.coalesced_gather)) if v]
        notes.append("ZeRO-3 terms counted: " + (", ".join(counted) or "none")
                     + f"; reserved = {z3.reserved_factor:.2f} x peak (no empty_cache in the ZeRO-3 step)")
    comm, comm_note = communicator_bytes(cfg, gpu)
    if comm_note:
        notes.append(comm_note)
    vis_res = vis.resident if vis is not None else 0.0
    peak = _round(resident.weights + resident.optimizer + resident.comm + step + vis_res)
    transient = max(0.0, step - acts.total - casts.saved - all_grads)
    frozen_here = 0.0
    if cfg.offload != "all":
        frozen_here = (weights.frozen + weights.reference) / resident.shard_params
        if _ds_casts_module(cfg):
            frozen_here = _ds_frozen(cfg, regime, frozen_here)   # DeepSpeed casts the module to its 16-bit dtype
    per_gpu = PerGpuMemory(
        weights_bytes=_round(resident.weights + (vis.weights if vis else 0)),
        frozen_weights_bytes=_round(frozen_here + (vis.weights if vis and not vis.gradients else 0)),
        trainable_weights_bytes=_round(resident.weights - frozen_here + (vis.weights if vis and vis.gradients else 0)),
        gradients_bytes=_round(resident.gradients + (vis.gradients if vis else 0)),
        optimizer_bytes=_round(resident.optimizer + (vis.optimizer if vis else 0)),
        activations_bytes=_round(acts.total + (vis.kept if vis else 0)),
        transient_bytes=_round(transient),
        autocast_copies_bytes=_round(casts.forward),
        comm_buffers_bytes=_round(resident.comm),
        peak_allocated_bytes=peak,
        reserved_bytes=_round(peak * factor + _ALLOC_CONTEXT + comm),
        communicator_bytes=int(comm),
        vision_bytes=_round(vis.resident + vis.kept) if vis else 0,
    )
    return MemoryEstimate(model=model, config=cfg, params_total=int(model.params.total),
                          params_trainable=training.count, per_gpu=per_gpu,
                          cpu_offload_bytes=_round(resident.cpu_offload), notes=tuple(notes), reserved_factor=factor)
