"""What each GPU architecture and model family can and cannot do, read from the profiles.

Never from `torch.cuda.is_bf16_supported()`: on ROCm it answers True for every device, including
gfx906 where bf16 is emulated (hardware.md 3.7, field report 002). Everything here is a pure function
of a `GpuProfile` and a `ModelSpec`; the planner combines them.
"""

from __future__ import annotations

from dataclasses import dataclass

# Model families (HF model_type) known to overflow in fp16: NaN grad_norm / loss 0.0.
# Sources: hardware.md 3.7 — Qwen maintainers (QwenLM issues #670 #868 #826, "trained in bf16 ... finetune
# in bf16 or fp32"), field report 000 (Qwen2.5-7B fp16 -> grad_norm NaN), Unsloth FORCE_FLOAT32 list
# (gemma3*, gemma4, glm4_moe, gpt_oss, qwen3_5, qwen3_moe), T5/mT5 FFN overflow (transformers #4287/#9295),
# Gemma/Gemma2 (activations beyond the fp16 range; trained in bf16, same family as gemma3).
FP16_OVERFLOW_FAMILIES: dict[str, str] = {
    "qwen2": "Qwen2/Qwen2.5 (and DeepSeek-R1-Distill-Qwen): fp16 NaN reported by Qwen maintainers and field report 000",
    "qwen2_moe": "Qwen2-MoE: same numerics as Qwen2",
    "qwen2_vl": "Qwen2-VL: Qwen2 language model",
    "qwen2_5_vl": "Qwen2.5-VL: Qwen2.5 language model",
    "qwen3_moe": "Qwen3-MoE: forced off fp16 by Unsloth (FORCE_FLOAT32)",
    "qwen3_5": "Qwen3.5: GDN layers NaN in fp16 (Unsloth)",
    "qwen3_5_moe": "Qwen3.5-MoE: GDN layers NaN in fp16 (Unsloth)",
    "gemma": "Gemma: trained in bf16, activations exceed the fp16 range",
    "gemma2": "Gemma 2: trained in bf16, activations exceed the fp16 range",
    "gemma3": "Gemma 3: forced off fp16 by Unsloth (FORCE_FLOAT32)",
    "gemma3_text": "Gemma 3: forced off fp16 by Unsloth (FORCE_FLOAT32)",
    "gemma3n": "Gemma 3n: forced off fp16 by Unsloth (FORCE_FLOAT32)",
    "gemma4": "Gemma 4: fp16 NaN at step 6 reported (Unsloth)",
    "glm4_moe": "GLM-4-MoE: forced off fp16 by Unsloth (FORCE_FLOAT32)",
    "gpt_oss": "gpt-oss: forced off fp16 by Unsloth (FORCE_FLOAT32)",
    "t5": "T5: FFN activations overflow 65504 in fp16",
    "mt5": "mT5: FFN activations overflow 65504 in fp16",
}

# Families whose attention has no FlashAttention-2 / SDPA path in transformers (eager only).
EAGER_ONLY_FAMILIES = {"baichuan", "chatglm"}

GOOD_IOMMU_STATES = {"pt", "passthrough", "identity", "off", "disabled"}


def is_amd_like(gpu) -> bool:
    """AMD ROCm and Hygon DTK devices (RCCL, HIP env vars)."""
    return gpu.vendor in ("amd", "hygon") or gpu.platform in ("rocm", "dtk")


# --------------------------------------------------------------------------- precision


def bf16_usable(gpu) -> bool:
    return gpu.bf16 in ("native", "half-rate")


def fp16_overflow_risk(model) -> str | None:
    """Why this model family overflows in fp16, or None."""
    family = (model.family or "").lower()
    if family in FP16_OVERFLOW_FAMILIES:
        return FP16_OVERFLOW_FAMILIES[family]
    name = (model.name or "").lower()
    if "qwen2" in name or "qwen-2" in name:
        return FP16_OVERFLOW_FAMILIES["qwen2"]
    return None


@dataclass(frozen=True)
class PrecisionChoice:
    precision: str      # fp32 | bf16 | fp16 | pure_bf16
    risk: int           # 0 safe, 1 small numeric cost, 2 known failure risk (NaN), 3 never (emulated)
    why: str


def precision_choices(gpu, model) -> list[PrecisionChoice]:
    """Every precision regime with its risk on this GPU for this model, best first."""
    overflow = fp16_overflow_risk(model)
    out: list[PrecisionChoice] = []
    if bf16_usable(gpu):
        rate = "native" if gpu.bf16 == "native" else "half-rate"
        out.append(PrecisionChoice("bf16", 0, f"bf16 is {rate} on {gpu.arch}; same range as fp32, no loss scaling"))
        out.append(PrecisionChoice("pure_bf16", 1, "pure bf16 (optimizer state in bf16 too) saves memory at some precision cost"))
        out.append(PrecisionChoice("fp32", 0, "fp32 is numerically safest but slower and twice the weight memory"))
        if overflow:
            out.append(PrecisionChoice("fp16", 2, f"fp16 overflows for this family ({overflow})"))
        else:
            out.append(PrecisionChoice("fp16", 1, "fp16 needs loss scaling; bf16 is the safer 16-bit format here"))
    else:
        kind = "emulated" if gpu.bf16 == "emulated" else "not supported"
        if overflow:
            out.append(PrecisionChoice("fp32", 0, f"fp32: no bf16 hardware on {gpu.arch} and fp16 overflows for this family"))
            out.append(PrecisionChoice("fp16", 2, f"fp16 overflows for this family ({overflow})"))
        else:
            out.append(PrecisionChoice("fp16", 0, f"fp16 with loss scaling: bf16 is {kind} on {gpu.arch}"))
            out.append(PrecisionChoice("fp32", 0, "fp32 is numerically safest but slower and twice the weight memory"))
        slow = "~3x slower than fp16, field report 000" if gpu.bf16 == "emulated" else "no bf16 kernels"
        out.append(PrecisionChoice("bf16", 3, f"bf16 is {kind} on {gpu.arch}: {slow}"))
        out.append(PrecisionChoice("pure_bf16", 3, f"bf16 is {kind} on {gpu.arch}: {slow}"))
    return out


# --------------------------------------------------------------------------- attention


def sdpa_efficient(gpu) -> bool:
    """Does PyTorch SDPA have a flash or mem-efficient kernel for this arch (else it runs math)."""
    return bool(gpu.sdpa_flash or gpu.sdpa_mem_efficient)


def attn_choices(gpu, model, precision: str) -> list[tuple[str, str]]:
    """Attention implementations worth trying, best first, with the reason."""
    family = (model.family or "").lower()
    if family in EAGER_ONLY_FAMILIES:
        return [("eager", f"{model.family} has no SDPA/FlashAttention path in transformers: eager attention")]
    if sdpa_efficient(gpu):
        return [("sdpa", ("PyTorch SDPA has a flash/mem-efficient kernel on this GPU: no score matrix in "
                         "memory, nothing to build (FlashAttention-2 not required)"))]
    return [("eager", (f"no FlashAttention-2 or SDPA flash kernel on {gpu.arch}: eager attention "
                      "(the most compatible; its score-matrix memory is counted)"))]


def attn_allowed(gpu, model, attn: str, precision: str) -> str | None:
    """None when allowed, else why not."""
    family = (model.family or "").lower()
    if attn == "fa2":
        if gpu.fa2 is None:
            return f"FlashAttention-2 has no kernels for {gpu.arch}"
        if precision == "fp32":
            return "FlashAttention-2 needs fp16 or bf16, not fp32"
        if family in EAGER_ONLY_FAMILIES:
            return f"{model.family} has no FlashAttention-2 path in transformers"
    if attn == "sdpa" and family in EAGER_ONLY_FAMILIES:
        return f"{model.family} has no SDPA path in transformers"
    return None


def memory_attn(gpu, attn: str, dtype: str | None = None) -> str:
    """Which attention the memory estimator must count: SDPA without a flash kernel is the math path. `dtype`: the
    dtype the attention runs in (autocast's, else the compute dtype); None: whichever the GPU has a kernel for."""
    if attn == "sdpa" and sdpa_backend(gpu, dtype) == "math":
        return "eager"
    return attn


def _cuda_sm(gpu) -> int | None:
    """The CUDA compute capability of an NVIDIA profile as one number (sm_75 -> 75); None off CUDA."""
    arch = str(getattr(gpu, "arch", "") or "").lower()
    if not arch.startswith("sm_"):
        return None
    digits = "".join(ch for ch in arch[3:] if ch.isdigit())
    return int(digits) if digits else None


def sdpa_backend(gpu, dtype: str | None = None) -> str:
    """The backend PyTorch's scaled_dot_product_attention dispatches to on `gpu` for q/k/v of `dtype` ("fp32",
    "fp16", "bf16"; None: any the GPU has a kernel for): "flash", "mem_efficient" or "math" (the fallback, which
    materialises the [heads, seq, seq] scores and the softmax as eager attention does).
    Source: pytorch aten/src/ATen/native/transformers/cuda/sdp_utils.cpp - use_flash_attention checks the dtype
    against {Half, BFloat16} (no fp32 flash kernel); use_mem_efficient_attention against {Half, Float, BFloat16} from
    sm80 on and {Half, Float} below sm80 (CUDA), {Half, Float, BFloat16} under AOTriton (ROCm); the profile's
    sdpa_flash / sdpa_mem_efficient say whether the architecture has the kernels at all."""
    flash, efficient = bool(getattr(gpu, "sdpa_flash", False)), bool(getattr(gpu, "sdpa_mem_efficient", False))
    if dtype is None:
        return "flash" if flash else "mem_efficient" if efficient else "math"
    if flash and dtype in ("fp16", "bf16"):
        return "flash"
    sm = _cuda_sm(gpu)
    if efficient and not (dtype == "bf16" and sm is not None and sm < 80):
        return "mem_efficient"
    return "math"


# --------------------------------------------------------------------------- methods


def qlora_supported(gpu) -> bool:
    return bool(gpu.bitsandbytes)


# --------------------------------------------------------------------------- multi-GPU


def normalize_iommu(state: str | None) -> str:
    """doctor.iommu_state() result -> 'pt' | 'off' | 'translated' | 'unknown'."""
    if state is None:
        return "unknown"
    s = str(state).strip().lower()
    if s in ("pt", "passthrough", "identity", "iommu=pt"):
        return "pt"
    if s in ("off", "disabled", "none", "intel_iommu=off", "amd_iommu=off"):
        return "off"
    if s in ("translated", "dma", "dma-fq", "on", "enabled", "lazy", "strict"):
        return "translated"
    return "unknown"


def iommu_hang_risk(gpu, gpus_per_node: int, iommu: str) -> bool:
    return is_amd_like(gpu) and gpus_per_node > 1 and normalize_iommu(iommu) not in ("pt", "off")


# --------------------------------------------------------------------------- environment


def env_for(gpu, gpus_per_node: int, nodes: int) -> tuple[dict[str, str], list[str]]:
    """Environment variables that do something for this GPU and layout, with one reason each."""
    env: dict[str, str] = {}
    why: list[str] = []
    devices = ",".join(str(i) for i in range(gpus_per_node))
    if is_amd_like(gpu):
        env["HIP_VISIBLE_DEVICES"] = devices
        why.append(f"HIP_VISIBLE_DEVICES={devices}: the GPUs this job uses (one variable only, no "
                   "conflicting ROCR_/CUDA_VISIBLE_DEVICES)")
        if getattr(gpu, "platform_status", "") == "deprecated":
            why.append(f"PYTORCH_HIP_ALLOC_CONF not set: expandable segments need ROCm >= 7.0 and {gpu.arch} "
                       "stays on ROCm <= 6.3 (its builds ignore the setting with a warning)")
        else:
            env["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True"
            why.append("PYTORCH_HIP_ALLOC_CONF=expandable_segments:True reduces fragmentation (effective with "
                       "torch >= 2.11 on ROCm >= 7.0; older builds ignore it with a warning)")
        if gpu.hsa_override:
            env["HSA_OVERRIDE_GFX_VERSION"] = gpu.hsa_override
            why.append(f"HSA_OVERRIDE_GFX_VERSION={gpu.hsa_override}: {gpu.arch} loads the kernels of a "
                       "supported sibling ISA")
        else:
            why.append(f"HSA_OVERRIDE_GFX_VERSION not set: {gpu.arch} needs none (setting it on a supported "
                       "or donor-less ISA such as gfx906 does nothing)")
        if gpu.platform == "rocm" and not gpu.hipblaslt:
            env["TORCH_BLAS_PREFER_HIPBLASLT"] = "0"
            why.append("TORCH_BLAS_PREFER_HIPBLASLT=0: hipBLASLt has no kernels for "
                       f"{gpu.arch}; use rocBLAS without the fallback warning")
    else:
        env["CUDA_VISIBLE_DEVICES"] = devices
        why.append(f"CUDA_VISIBLE_DEVICES={devices}: the GPUs this job uses")
        env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
        why.append("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces allocator fragmentation")
    if gpus_per_node * nodes > 1:
        env["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
        why.append("TORCH_NCCL_ASYNC_ERROR_HANDLING=1: a failed or hung collective ends the job instead of "
                   "hanging forever (successor of NCCL_ASYNC_ERROR_HANDLING)")
    return env, why


def launcher_for(world: int, zero_stage: int) -> str:
    """'python' (one process) or 'torchrun' (one process per GPU; DeepSpeed through its config)."""
    return "torchrun" if world > 1 or zero_stage > 0 else "python"


def arch_class(gpu) -> str:
    """Coarse architecture class used by the throughput efficiency table."""
    arch = gpu.arch
    if arch.startswith("sm_"):
        cc = int(arch[3:])
        if cc < 80:
            return "nv-volta-turing"
        if cc < 90:
            return "nv-ampere-ada"
        return "nv-hopper-blackwell"
    if gpu.vendor == "hygon" and arch != "gfx906":
        return "dcu"
    if arch in ("gfx900", "gfx906") or arch.startswith(("gfx103", "gfx101")):
        return "gcn"
    if arch in ("gfx908", "gfx90a"):
        return "cdna12"
    if arch.startswith(("gfx94", "gfx95")):
        return "cdna3"
    if arch.startswith(("gfx11", "gfx12")):
        return "rdna3"
    if arch.startswith(("gfx92", "gfx93")):
        return "dcu"
    return "generic"
