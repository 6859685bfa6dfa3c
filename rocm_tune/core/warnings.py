"""Stable warning codes of the planner: code -> (what it means, how to fix it).

The codes are a public contract (plan.json, `rocm-tune plan --json`, the README table): never
rename one; add new ones. `make(code, message=..., fix=...)` builds a `PlanWarning` whose message
and fix default to the table's text and may be made specific (numbers, names) by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

# The one measured cost of emulated bf16 on gfx906, used wherever a message quotes it. Field report 000
# (2 x MI50 32GB, Qwen2.5-7B LoRA, LLaMA-Factory): 700+ s/it with --bf16 True, 253 s/it with --fp16 True
# for the same job ("about 3x faster"). The report's "100x slower" is the author's hearsay, not a
# measurement; its final "fp32" run (340 s/it, another batch/accumulation) was not fp32 either: LLaMA-Factory
# loaded the bf16 checkpoint as stored and, with bf16 and fp16 off, computed in (emulated) bf16.
BF16_EMULATED_COST = ("~3x slower than fp16 (field report 000, MI50: 700+ s/it in bf16 vs 253 s/it in fp16 "
                      "for the same job)")

# The rocm-tune module that starts LLaMA-Factory with its compute/load dtype pinned (owner: pre/export;
# see BRIEF-interfaces): `python -m rocm_tune.train.lf_launch CONFIG.yaml --compute-dtype fp32`.
LF_FP32_LAUNCHER = "rocm_tune.train.lf_launch"

# code -> (summary, fix). The summary says what the risk is; the fix says what to do.
WARNINGS: dict[str, tuple[str, str]] = {
    "bf16-emulated": (
        (f"this GPU has no bf16 hardware: bf16 is emulated, {BF16_EMULATED_COST} "
        "(torch.cuda.is_bf16_supported() still answers True on ROCm)"),
        ("use fp16 (--fp16 True --bf16 False, and fp16 in the DeepSpeed JSON), or fp32 for models that "
        "overflow in fp16 - real fp32 needs the built-in trainer or LLaMA-Factory started through "
        f"`python -m {LF_FP32_LAUNCHER} ... --compute-dtype fp32`: plain LLaMA-Factory keeps a bf16 "
        "checkpoint in bf16"),
    ),
    "runner-ignores-precision": (
        ("the runner does not train in the requested precision: LLaMA-Factory loads the checkpoint's dtype "
        "(torch_dtype=\"auto\") and, with bf16 and fp16 off, runs no autocast - a bf16 checkpoint trains "
        "in bf16 (emulated on gfx906) although the plan says fp32"),
        ("use the built-in trainer (--runner builtin), or start LLaMA-Factory through "
        f"`python -m {LF_FP32_LAUNCHER} CONFIG.yaml --compute-dtype fp32`, which pins the dtype before "
        "the model loads"),
    ),
    "bf16-half-rate": (
        "bf16 runs at half the fp16 matrix rate on this GPU",
        ("bf16 is still the safe choice for models trained in bf16; fp16 is faster only for models "
        "that do not overflow"),
    ),
    "fp16-overflow-risk": (
        "this model family is known to overflow in fp16 (grad_norm NaN, loss 0.0)",
        ("train in bf16 on a GPU with native bf16, or in real fp32 (the built-in trainer, or LLaMA-Factory "
        "through lf_launch --compute-dtype fp32: plain LLaMA-Factory keeps a bf16 checkpoint in bf16); if fp16 "
        "is unavoidable use a low learning rate, max_grad_norm 0.5 and watch for NaN (rocm-tune attach alerts "
        "on it)"),
    ),
    "flash-attn-unsupported": (
        ("no FlashAttention-2 and no SDPA flash/mem-efficient kernel for this GPU architecture: "
        "attention materialises the full score matrix (memory grows with cutoff_len squared)"),
        ("use eager attention (LLaMA-Factory: --flash_attn disabled) and keep cutoff_len modest; "
        "do not install flash-attn for this GPU"),
    ),
    "fa2-not-needed": (
        ("FlashAttention-2 is not required: PyTorch SDPA uses a flash kernel on this GPU at about the same "
        "speed with nothing to build"),
        ("use attn sdpa (LLaMA-Factory: --flash_attn sdpa); install flash-attn only if you need packing "
        "without cross-contamination"),
    ),
    "qlora-unsupported": (
        ("bitsandbytes has no kernels for this GPU architecture, so 4/8-bit QLoRA cannot run on it "
        "(old bitsandbytes builds silently fall back to the CPU)"),
        ("use LoRA in 16-bit (or fp32) instead, with ZeRO-3 to shard the frozen weights across GPUs if "
        "they do not fit"),
    ),
    "iommu-p2p-hang-risk": (
        ("several AMD GPUs with the IOMMU translating DMA: RCCL peer-to-peer over PCIe can hang at the "
        "first barrier with 0% GPU use"),
        ("add iommu=pt (AMD hosts: amd_iommu=on iommu=pt; Intel hosts: intel_iommu=on iommu=pt, or "
        "intel_iommu=off as field report 000 did) to GRUB_CMDLINE_LINUX_DEFAULT, update-grub, reboot and "
        "check /proc/cmdline; run `rocm-tune doctor`. NCCL_P2P_DISABLE=1 only works around it, slowly"),
    ),
    "ddp-lora-gc-reentrant": (
        ("DDP + LoRA + gradient checkpointing with reentrant checkpointing fails with 'Expected to mark a "
        "variable ready only once'"),
        ("gradient_checkpointing_kwargs={'use_reentrant': False} and ddp_find_unused_parameters=False "
        "(set in this plan; the exported configs carry them)"),
    ),
    "does-not-fit": (
        "no configuration of this goal fits the GPU memory with the requested headroom",
        ("see the alternatives: fewer tokens (cutoff_len), another method (LoRA/QLoRA), more GPUs with "
        "ZeRO-3, or CPU offload"),
    ),
    "offload-needs-cpu-ram": (
        "the plan offloads to CPU memory through DeepSpeed ZeRO; it needs this much free CPU RAM per node",
        "make sure the node has the CPU RAM (free -g) and pass --cpu-ram-gib so the planner can check it",
    ),
    "hipblaslt-unsupported": (
        ("hipBLASLt has no kernels for this architecture; PyTorch falls back to rocBLAS and warns "
        "'Attempting to use hipBLASLt on an unsupported architecture'"),
        "harmless; TORCH_BLAS_PREFER_HIPBLASLT=0 (set in this plan) silences it",
    ),
    "hsa-override-needed": (
        ("this GPU is an unofficial variant of a supported ISA: ROCm libraries load only with "
        "HSA_OVERRIDE_GFX_VERSION"),
        "export the HSA_OVERRIDE_GFX_VERSION value in this plan's env (the exported run.sh does)",
    ),
    "platform-unsupported": (
        "this GPU is deprecated or unsupported by current ROCm releases",
        ("pin a ROCm / PyTorch build that still ships kernels for it (gfx906: ROCm <= 6.3, e.g. the "
        "rocm6.1 PyTorch wheel, which runs on newer drivers)"),
    ),
    "effective-batch-inexact": (
        "the requested effective batch is not a multiple of micro_batch x GPUs, so it cannot be met exactly",
        "choose an effective batch that is a multiple of the number of GPUs, or accept the nearest value",
    ),
    "eta-exceeds-budget": (
        "the predicted training time exceeds the time budget",
        "fewer epochs, fewer samples (max_samples), a shorter cutoff_len, LoRA instead of full, or more GPUs",
    ),
    "cutoff-truncates-dataset": (
        "cutoff_len is shorter than some samples of the dataset: they will be truncated",
        "raise cutoff_len (more memory), or filter or split the long samples",
    ),
    "zero3-slow-interconnect": (
        ("ZeRO-3 gathers every layer's weights over the interconnect on each micro-step; over PCIe this "
        "dominates the step time"),
        ("prefer plain DDP, LoRA or fewer GPUs per job when they fit; raise the micro-batch to amortise "
        "the gathers"),
    ),
    "dtk-deepspeed-cuda-check": (
        ("on Hygon DTK torch.version.cuda is None, which breaks DeepSpeed's CUDA version check "
        "(assert_no_cuda_mismatch)"),
        ("patch deepspeed's assert_no_cuda_mismatch to return early on ROCm/DTK, or use a DAS DeepSpeed "
        "wheel built for your DTK"),
    ),
    "deepspeed-rocm-build": (
        ("DeepSpeed ops are JIT-built on first use; on ROCm the inference ops fail to build "
        "(No module named 'dskernels')"),
        ("DS_BUILD_CPU_ADAM=1 DS_BUILD_FUSED_ADAM=1 DS_BUILD_INFERENCE=0 pip install --no-build-isolation "
        "deepspeed; check with ds_report. If LLaMA-Factory rejects the DeepSpeed version: "
        "DISABLE_VERSION_CHECK=1"),
    ),
    "disk-will-fill": (
        "the checkpoints (size x save_total_limit, or x every save when unlimited) do not fit on the disk where "
        "the run writes; the save that does not fit kills the run",
        "set save_total_limit (e.g. 2), save_steps higher, save_only_model: true, another output_dir, or free space",
    ),
    "memory-tight": (
        "the plan uses most of the GPU memory: allocator fragmentation or a long sample can still OOM",
        "on OOM lower micro_batch first (raise grad_accum to keep the effective batch), then cutoff_len",
    ),
    "multi-node-network": (
        "gradients cross the node network on every optimizer step; its bandwidth is assumed, not measured",
        "use InfiniBand/RoCE (NCCL_IB_HCA, NCCL_SOCKET_IFNAME) and measure with nccl-tests/rccl-tests",
    ),
    "model-fallback": (
        "the model's architecture is not known to rocm-tune; it was treated as a generic decoder",
        "check the memory estimate against a short real run (rocm-tune estimate --probe)",
    ),
    "fixed-value-risky": (
        "a value you fixed goes against this GPU's or model's rules",
        "drop the fixed value to let the planner choose",
    ),
}


@dataclass(frozen=True)
class PlanWarning:
    code: str
    message: str
    fix: str

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "fix": self.fix}


def make(code: str, message: str | None = None, fix: str | None = None) -> PlanWarning:
    """A warning with the table's text, or a more specific message/fix. Unknown code = bug."""
    if code not in WARNINGS:
        raise KeyError(f"unknown warning code {code!r}")
    summary, default_fix = WARNINGS[code]
    return PlanWarning(code, message or summary, fix or default_fix)


# warnings that change what "fits" means for this run: the headline says them beside the verdict (a plan that fits
# but runs emulated bf16, or not the precision asked for, is not the green "FITS" the user expects)
HEADLINE: dict[str, str] = {
    "bf16-emulated": "bf16 is emulated on this GPU (slow)",
    "runner-ignores-precision": "the runner does not run the precision asked for",
    "fp16-overflow-risk": "fp16 may overflow for this model",
}


def headline_caveats(warnings, precision: str | None = None) -> list[str]:
    """The HEADLINE words of the warnings (PlanWarning objects or plan.json dicts) present, in table order;
    fp16-overflow-risk only when the plan trains in fp16, bf16-emulated only in bf16 (elsewhere they are advice
    against switching)."""
    codes = {w.get("code") if isinstance(w, dict) else getattr(w, "code", None) for w in warnings or ()}
    if precision != "fp16":
        codes.discard("fp16-overflow-risk")
    if precision not in ("bf16", "pure_bf16", None):
        codes.discard("bf16-emulated")
    return [f"{text} [{code}]" for code, text in HEADLINE.items() if code in codes]


def table() -> list[tuple[str, str, str]]:
    """(code, meaning, fix) rows for documentation."""
    return [(code, summary, fix) for code, (summary, fix) in WARNINGS.items()]
