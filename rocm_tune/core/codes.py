"""The one catalogue of codes: plan warnings, check findings, preflight findings, doctor checks, live alerts and
`explain`'s failure signatures all take their code, severity and texts from here (issue 24 item 3).

A `Code` is a stable kebab-case `code`, the families that emit it (`sources`, of `SOURCES`), one `severity` (of
`Severity`), a one-line `title` (what it means), and where known the `cause`, the `fix` and how to `confirm` it.
The entries of `explain`'s catalogue (`core/runs/catalogue.py`: each signature carries its log regexes) are read
from there, so that each fact has one home; a code is defined once (tests/test_codes.py), and README's table of
codes is `readme_table()`. Codes are a public contract (plan.json, every `--json`): never rename one without
`tools/rename_codes.py`; add new ones here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Severity(str, Enum):
    """The one set of severity words (JSON `severity` values; doctor's pass/warn/fail/skip is a check status)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


SEVERITIES: tuple[str, ...] = tuple(s.value for s in Severity)
SOURCES: tuple[str, ...] = ("plan", "check", "preflight", "doctor", "alert", "explain")

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


@dataclass(frozen=True)
class Code:
    code: str
    sources: tuple[str, ...]        # the families that emit it (SOURCES)
    severity: str                   # Severity value
    title: str                      # one line: what it means
    cause: str = ""
    fix: str = ""
    confirm: str = ""

    def to_dict(self) -> dict:
        return {"code": self.code, "sources": list(self.sources), "severity": self.severity, "title": self.title,
                "cause": self.cause, "fix": self.fix, "confirm": self.confirm}


def _c(code: str, sources: tuple[str, ...], severity: str, title: str, fix: str = "", cause: str = "",
       confirm: str = "") -> Code:
    return Code(code, tuple(sources), Severity(severity).value, title, cause, fix, confirm)


# Codes of explain's catalogue that other families emit too (same fact, same code, the catalogue's texts).
CATALOGUE_ALSO: dict[str, tuple[str, ...]] = {"oom": ("preflight",)}

OWN: tuple[Code, ...] = (
    # ------------------------------------------------------------------ plan warnings (and their twins elsewhere)
    _c('bf16-emulated', ('plan', 'check', 'doctor', 'preflight'), 'warning',
       'this GPU has no bf16 hardware: bf16 is emulated, ~3x slower than fp16 (field report 000, MI50: 700+ s/it in bf16 vs 253 s/it in fp16 for the same job) (torch.cuda.is_bf16_supported() still answers True on ROCm)',
       fix='use fp16 (--fp16 True --bf16 False, and fp16 in the DeepSpeed JSON), or fp32 for models that overflow in fp16 - real fp32 needs the built-in trainer or LLaMA-Factory started through `python -m rocm_tune.train.lf_launch ... --compute-dtype fp32`: plain LLaMA-Factory keeps a bf16 checkpoint in bf16'),
    _c('runner-ignores-precision', ('plan', 'check'), 'info',
       'the runner does not train in the requested precision: LLaMA-Factory loads the checkpoint\'s dtype (torch_dtype="auto") and, with bf16 and fp16 off, runs no autocast - a bf16 checkpoint trains in bf16 (emulated on gfx906) although the plan says fp32',
       fix='use the built-in trainer (--runner builtin), or start LLaMA-Factory through `python -m rocm_tune.train.lf_launch CONFIG.yaml --compute-dtype fp32`, which pins the dtype before the model loads'),
    _c('bf16-half-rate', ('plan', 'doctor'), 'info',
       'bf16 runs at half the fp16 matrix rate on this GPU',
       fix='bf16 is still the safe choice for models trained in bf16; fp16 is faster only for models that do not overflow'),
    _c('fp16-overflow-risk', ('plan', 'check'), 'warning',
       'this model family is known to overflow in fp16 (grad_norm NaN, loss 0.0)',
       fix='train in bf16 on a GPU with native bf16, or in real fp32 (the built-in trainer, or LLaMA-Factory through lf_launch --compute-dtype fp32: plain LLaMA-Factory keeps a bf16 checkpoint in bf16); if fp16 is unavoidable use a low learning rate, max_grad_norm 0.5 and watch for NaN (rocm-tune attach alerts on it)'),
    _c('flash-attn-unsupported', ('plan', 'doctor'), 'warning',
       'no FlashAttention-2 and no SDPA flash/mem-efficient kernel for this GPU architecture: attention materialises the full score matrix (memory grows with cutoff_len squared)',
       fix='use eager attention (LLaMA-Factory: --flash_attn disabled) and keep cutoff_len modest; do not install flash-attn for this GPU'),
    _c('fa2-not-needed', ('plan',), 'info',
       'FlashAttention-2 is not required: PyTorch SDPA uses a flash kernel on this GPU at about the same speed with nothing to build',
       fix='use attn sdpa (LLaMA-Factory: --flash_attn sdpa); install flash-attn only if you need packing without cross-contamination'),
    _c('qlora-unsupported', ('plan', 'doctor'), 'warning',
       'bitsandbytes has no kernels for this GPU architecture, so 4/8-bit QLoRA cannot run on it (old bitsandbytes builds silently fall back to the CPU)',
       fix='use LoRA in 16-bit (or fp32) instead, with ZeRO-3 to shard the frozen weights across GPUs if they do not fit'),
    _c('iommu-p2p-hang-risk', ('plan', 'check', 'doctor'), 'warning',
       'several AMD GPUs with the IOMMU translating DMA: RCCL peer-to-peer over PCIe can hang at the first barrier with 0% GPU use',
       fix='add iommu=pt (AMD hosts: amd_iommu=on iommu=pt; Intel hosts: intel_iommu=on iommu=pt, or intel_iommu=off as field report 000 did) to GRUB_CMDLINE_LINUX_DEFAULT, update-grub, reboot and check /proc/cmdline; run `rocm-tune doctor`. NCCL_P2P_DISABLE=1 only works around it, slowly'),
    _c('ddp-lora-gc-reentrant', ('plan', 'check'), 'warning',
       "DDP + LoRA + gradient checkpointing with reentrant checkpointing fails with 'Expected to mark a variable ready only once'",
       fix="gradient_checkpointing_kwargs={'use_reentrant': False} and ddp_find_unused_parameters=False (set in this plan; the exported configs carry them)"),
    _c('zero3-lora-gc-nonreentrant', ('check',), 'warning',
       "LoRA + DeepSpeed ZeRO-3 + non-reentrant gradient checkpointing: the backward's recomputation finds the layers' parameters partitioned again and torch raises CheckpointError (recomputed shape [0]; deepspeedai/DeepSpeed#8148)",
       fix="reentrant checkpointing (gradient_checkpointing_kwargs={'use_reentrant': True}; LLaMA-Factory: use_reentrant_gc: true) or ZeRO-2; plans and `rocm-tune train` do this themselves, TRL's trainers too"),
    _c('does-not-fit', ('plan',), 'error',
       'no configuration of this goal fits the GPU memory with the requested headroom',
       fix='see the alternatives: fewer tokens (cutoff_len), another method (LoRA/QLoRA), more GPUs with ZeRO-3, or CPU offload'),
    _c('offload-needs-cpu-ram', ('plan', 'check', 'doctor'), 'info',
       'the plan offloads to CPU memory through DeepSpeed ZeRO; it needs this much free CPU RAM per node',
       fix='make sure the node has the CPU RAM (free -g) and pass --cpu-ram-gib so the planner can check it'),
    _c('hipblaslt-unsupported', ('plan', 'alert', 'explain'), 'info',
       "hipBLASLt unsupported on this GPU: PyTorch falls back to hipBLAS",
       cause="stock PyTorch wheels try hipBLASLt first; on GPUs it does not support (gfx906, gfx90a, gfx103x) they "
       "fall back to hipBLAS/rocBLAS — harmless",
       fix="nothing; set TORCH_BLAS_PREFER_HIPBLASLT=0 to silence it",
       confirm="training steps continue after the warning"),
    _c('hsa-override-needed', ('plan', 'doctor'), 'warning',
       'this GPU is an unofficial variant of a supported ISA: ROCm libraries load only with HSA_OVERRIDE_GFX_VERSION',
       fix="export the HSA_OVERRIDE_GFX_VERSION value in this plan's env (the exported run.sh does)"),
    _c('platform-unsupported', ('plan', 'doctor'), 'error',
       'this GPU is deprecated or unsupported by current ROCm releases',
       fix='pin a ROCm / PyTorch build that still ships kernels for it (gfx906: ROCm <= 6.3, e.g. the rocm6.1 PyTorch wheel, which runs on newer drivers)'),
    _c('effective-batch-inexact', ('plan',), 'warning',
       'the requested effective batch is not a multiple of micro_batch x GPUs, so it cannot be met exactly',
       fix='choose an effective batch that is a multiple of the number of GPUs, or accept the nearest value'),
    _c('eta-exceeds-budget', ('plan',), 'warning',
       'the predicted training time exceeds the time budget',
       fix='fewer epochs, fewer samples (max_samples), a shorter cutoff_len, LoRA instead of full, or more GPUs'),
    _c('cutoff-truncates-dataset', ('plan',), 'warning',
       'cutoff_len is shorter than some samples of the dataset: they will be truncated',
       fix='raise cutoff_len (more memory), or filter or split the long samples'),
    _c('zero3-slow-interconnect', ('plan',), 'warning',
       "ZeRO-3 gathers every layer's weights over the interconnect on each micro-step; over PCIe this dominates the step time",
       fix='prefer plain DDP, LoRA or fewer GPUs per job when they fit; raise the micro-batch to amortise the gathers'),
    _c('dtk-deepspeed-cuda-check', ('plan',), 'warning',
       "on Hygon DTK torch.version.cuda is None, which breaks DeepSpeed's CUDA version check (assert_no_cuda_mismatch)",
       fix="patch deepspeed's assert_no_cuda_mismatch to return early on ROCm/DTK, or use a DAS DeepSpeed wheel built for your DTK"),
    _c('deepspeed-rocm-build', ('plan',), 'warning',
       "DeepSpeed ops are JIT-built on first use; on ROCm the inference ops fail to build (No module named 'dskernels')",
       fix='DS_BUILD_CPU_ADAM=1 DS_BUILD_FUSED_ADAM=1 DS_BUILD_INFERENCE=0 pip install --no-build-isolation deepspeed; check with ds_report. If LLaMA-Factory rejects the DeepSpeed version: DISABLE_VERSION_CHECK=1'),
    _c('disk-will-fill', ('plan', 'check', 'alert'), 'warning',
       'the checkpoints (size x save_total_limit, or x every save when unlimited) do not fit on the disk where the run writes; the save that does not fit kills the run',
       fix='set save_total_limit (e.g. 2), save_steps higher, save_only_model: true, another output_dir, or free space'),
    _c('memory-tight', ('plan',), 'warning',
       'the plan uses most of the GPU memory: allocator fragmentation or a long sample can still OOM',
       fix='on OOM lower micro_batch first (raise grad_accum to keep the effective batch), then cutoff_len'),
    _c('multi-node-network', ('plan',), 'warning',
       'gradients cross the node network on every optimizer step; its bandwidth is assumed, not measured',
       fix='use InfiniBand/RoCE (NCCL_IB_HCA, NCCL_SOCKET_IFNAME) and measure with nccl-tests/rccl-tests'),
    _c('model-fallback', ('plan', 'check'), 'warning',
       "the model's architecture is not known to rocm-tune; it was treated as a generic decoder",
       fix='check the memory estimate against a short real run (rocm-tune estimate --probe)'),
    _c('fixed-value-risky', ('plan',), 'warning',
       "a value you fixed goes against this GPU's or model's rules",
       fix='drop the fixed value to let the planner choose'),
    # ------------------------------------------------------------------ check findings
    _c('bf16-unsupported', ('check', 'alert', 'explain'), 'error',
       "bf16 was requested but reported unavailable",
       cause="the GPU has no bf16 (V100, T4, MI50/gfx906) — or, on ROCm, a check that also requires "
       "torch.version.cuda (None on ROCm) gives a false negative on a bf16-capable GPU (RDNA3, MI200/MI300)",
       fix="on GPUs without bf16 use fp16 (or fp32 for models that overflow); on ROCm GPUs that have bf16 (the "
       "architecture says so: gfx90a/gfx94x/gfx95x, RDNA3 and later) update the framework or bypass its CUDA-only "
       "check - torch.cuda.is_bf16_supported() is no proof: it answers True on every ROCm GPU and, from torch 2.3, on "
       "CUDA GPUs that only emulate bf16 (T4, V100)",
       confirm="`python -c 'import torch; p = torch.cuda.get_device_properties(0); print(p.major, p.minor, "
       "getattr(p, \"gcnArchName\", \"\"), torch.version.hip)'`"),
    _c('shell-comment-cuts-command', ('check',), 'error',
       "a '#' line inside a backslash-continued command drops the flags after it",
       fix="delete the comment line (or move it below the command)"),
    _c('shell-space-after-backslash', ('check',), 'error',
       "whitespace after a final backslash ends the command: the flags below are dropped",
       fix="delete the whitespace after the backslash"),
    _c('shell-missing-backslash', ('check',), 'error',
       "a line of the training command lacks its trailing backslash: the flags on the next lines are dropped",
       fix="end the line with a backslash"),
    _c('several-trainings', ('check',), 'warning',
       "a script starts more than one training; the answer is for the first",
       fix="check the other one on its own"),
    _c('model-unknown', ('check',), 'error',
       "the model cannot be resolved (which model is it?): verdict `unknown`",
       fix="pass --model with a preset, a hub id or a directory holding config.json"),
    _c('model-missing', ('check',), 'error',
       "no model_name_or_path / --model in the config: verdict `unknown`",
       fix="pass --model ID|PATH"),
    _c('model-not-modelled', ('check',), 'error',
       "an unknown architecture with experts in its config (counted as a dense decoder it would be several times "
       "too low): verdict `unknown`",
       fix="a preset or transformers installed (exact count on the meta device)"),
    _c('reference-missing', ('check',), 'warning',
       "a YAML/JSON the config names is neither here nor given",
       fix="give the file too"),
    _c('yaml-excerpt', ('check',), 'warning',
       "the YAML does not parse whole; its complete `key: value` lines were read"),
    _c('format-not-modelled', ('check',), 'warning',
       "Python source that is not read (a training program, Unsloth): its settings are not modelled"),
    _c('program-settings-not-read', ('check',), 'info',
       "a Python program a given script starts: the flags the script passes it are read, the settings inside it "
       "are not"),
    _c('format-unknown', ('check',), 'warning',
       "a file that is no LLaMA-Factory YAML, DeepSpeed JSON, accelerate config or launch script"),
    _c('method-not-modelled', ('check',), 'warning',
       "a finetuning_type that is not modelled: estimated as LoRA"),
    _c('config-not-modelled', ('check',), 'error',
       "a configuration that is not modelled: no estimate"),
    _c('freeze-first-layers', ('check',), 'warning',
       "a negative freeze_trainable_layers trains the first layers: estimated as the last ones"),
    _c('whole-model-every-gpu', ('check',), 'warning',
       "several GPUs without sharding hold the whole model each (weights over half the card)",
       fix="DeepSpeed ZeRO-3 (deepspeed: ds_z3_config.json)"),
    _c('whole-model-fills-gpu', ('check',), 'error',
       "several GPUs without sharding hold the whole model each, and its weights alone fill over 85 % of a card",
       fix="DeepSpeed ZeRO-3 (deepspeed: ds_z3_config.json)"),
    _c('swift-deepspeed-device-map', ('check',), 'error',
       "ms-swift with more visible GPUs than NPROC_PER_NODE (each process spreads the model: device_map) and "
       "--deepspeed: swift stops at start (DeepSpeed is not compatible with `device_map`)",
       fix="NPROC_PER_NODE = the visible GPU count, before `swift`"),
    _c('zero-on-one-gpu', ('check',), 'warning',
       "ZeRO without offload on one GPU shards nothing: it only adds its buffers",
       fix="run with more GPUs, or drop DeepSpeed"),
    _c('zero3-init-flag-false', ('check',), 'warning',
       "every GPU loads the whole model before ZeRO-3 partitions it (the load phase)",
       fix="zero3_init_flag: true in the accelerate config"),
    _c('ds-precision-conflict', ('check',), 'error',
       "the DeepSpeed JSON enables fp16/bf16 that the training arguments do not (transformers stops with a "
       "mismatch error)",
       fix='set "enabled": "auto" in the JSON'),
    _c('fa2-no-kernels', ('check',), 'error',
       "the config asks for FlashAttention-2 on a GPU that has no FA2 kernels",
       fix="flash_attn: sdpa (or disabled)"),
    _c('default-eval-batch', ('check',), 'warning',
       "evaluation on with the HF default eval batch 8",
       fix="set per_device_eval_batch_size"),
    _c('warmup-steps-float', ('check',), 'warning',
       "a fraction in `warmup_steps` (transformers < 5 refuses it; a ratio from 5 on)",
       fix="warmup_ratio instead of warmup_steps"),
    _c('vlm-language-part', ('check',), 'warning',
       "only the language model of a vision-language model is estimated (its vision tower is not known: not "
       "Qwen2-VL/Qwen2.5-VL/Qwen3-VL, InternVL/MiniCPM-V/GLM-4V, Qwen2-Audio's encoder or a LLaVA `--vision_tower` "
       "CLIP)"),
    _c('margin-thin', ('check',), 'warning',
       "fits, but above the planner's 85 % headroom: inside the estimate's error"),
    _c('oom-margin-thin', ('check',), 'warning',
       "an OOM by less than 3 % of the card: inside the estimate's error, it may run (the verdict stays the "
       "estimate's)",
       fix="the change below, to be sure"),
    _c('dataset-not-in-info', ('check',), 'error',
       "a `dataset` name is not in dataset_info.json (given, or under `dataset_dir`)"),
    _c('quantized-base-not-modelled', ('check',), 'warning',
       "a GPTQ/AWQ-looking base model: estimated unquantised"),
    _c('quantization-not-modelled', ('check',), 'warning',
       "quantization_bit other than bitsandbytes 4/8: estimated unquantised"),
    _c('paged-optimizer', ('check',), 'info',
       "a paged optimizer's state may page out to host RAM (what that costs per step)"),
    _c('paged-spill', ('check',), 'warning',
       "only the paged optimizer's state is over the card: verdict `fits`, slower, with the amount that pages"),
    _c('kernels-not-modelled', ('check',), 'info',
       "Unsloth / Liger kernels, Axolotl's activation_offloading and Cut Cross-Entropy use less memory than "
       "estimated"),
    _c('bad-value', ('check',), 'error',
       "a value in the files that its key does not take (`per_device_train_batch_size: abc`)",
       fix="a whole number"),
    _c('no-fix-found', ('check',), 'error',
       "no change in the search fits the card and the host's RAM (`--host-ram-gib`); for a full fine-tune it names "
       "LoRA or QLoRA with its figure"),
    # ------------------------------------------------------------------ preflight findings
    _c('bf16-emulated-planned', ('preflight',), 'error',
       "the plan trains in bf16 and the measured bf16 matmul rate is far below fp16: bf16 is emulated on this GPU",
       fix="train in fp16 (or fp32 for models that overflow in fp16): --fp16 True --bf16 False, and fp16 in the "
       "DeepSpeed JSON"),
    _c('matmul-below-profile', ('preflight',), 'warning',
       "measured matmul rate is far below the GPU profile's",
       fix="check clocks/power limits (rocm-smi/nvidia-smi), other processes on the GPU, and the torch build (hipBLASLt/cuBLAS); the time estimate assumes the profile's rate"),
    _c('collective-hang', ('preflight',), 'error',
       'all_reduce / peer copies did not finish within the timeout: the IOMMU/P2P deadlock of field report 000 (a run would sit at the first barrier with 0% GPU use)',
       fix='kernel command line iommu=pt (AMD: amd_iommu=on iommu=pt; Intel: intel_iommu=on iommu=pt, or intel_iommu=off as report 000 did), update-grub, reboot, check /proc/cmdline and `rocm-tune doctor`; NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 only works around it, slowly'),
    _c('collective-wrong-values', ('preflight',), 'error',
       'collectives returned but delivered wrong values (broken P2P can deliver zeros silently)',
       fix='the same IOMMU/P2P fix as collective-hang (iommu=pt or intel_iommu=off, reboot); until then NCCL_P2P_DISABLE=1'),
    _c('collective-slow', ('preflight',), 'warning',
       "collective bandwidth is far below the link's: P2P is not working as it should",
       fix='check the IOMMU setting (iommu=pt), PCIe ACS and `rocm-smi --showtopo`/`nvidia-smi topo -m`; field report 000 saw this before the intel_iommu=off fix'),
    _c('collective-error', ('preflight',), 'error',
       'a collective process failed to start or crashed',
       fix='read the log lines quoted in the message; run `rocm-tune doctor`'),
    _c('oom-stepped-down', ('preflight',), 'error',
       'the plan ran out of GPU memory; a stepped-down configuration fits (written as the adjusted plan)',
       fix='run the adjusted plan (same effective batch)'),
    _c('micro-batch-raised', ('preflight',), 'info',
       'measured memory leaves room: a larger micro-batch (fewer accumulation steps, same effective batch) fits',
       fix='run the adjusted plan for more tokens/s'),
    _c('memory-above-prediction', ('preflight',), 'warning',
       "measured peak memory is well above the plan's prediction",
       fix="trust the measured number; keep the adjusted plan's margins"),
    _c('host-ram-short', ('preflight', 'check'), 'error',
       'predicted host RAM per node exceeds what is available: the run would be killed by the host OOM killer (exit -9)',
       fix='less offload (offload none/optimizer), fewer ranks per node, or more RAM'),
    _c('disk-short', ('preflight',), 'error',
       'checkpoints x save_total_limit need more space than is free where the run writes',
       fix='a lower save_total_limit, save_only_model, another output_dir, or free space'),
    _c('steps-error', ('preflight',), 'error',
       'the real steps failed with an error that is not out-of-memory',
       fix="read the run's stdout.log (ROCM_TUNE_DEBUG=1 shows a traceback)"),
    _c('zero-not-exercised', ('preflight',), 'warning',
       'DeepSpeed ZeRO is planned but was not exercised (DeepSpeed not installed or a single process): the steps ran un-sharded',
       fix='pip install deepspeed on the target box and preflight again to measure the sharded peak'),
    # ------------------------------------------------------------------ doctor checks (id = code; status pass|warn|fail|skip)
    _c('gpu-detected', ('doctor',), 'warning', "GPUs",
       cause="GPUs found, backend, matched profiles (backends tried when none)"),
    _c('platform-version', ('doctor',), 'error', "ROCm / DTK / CUDA",
       cause="ROCm (/opt/rocm/.info/version, rocm_version.h), DTK (/opt/dtk*), CUDA; gfx906 with torch for "
       "ROCm >= 6.4 fails, gfx950 needs ROCm >= 7"),
    _c('torch-build', ('doctor',), 'error', "torch build",
       cause="torch build (torch.version.hip / cuda, DAS) matches the GPUs"),
    _c('torch-gpus', ('doctor',), 'error', "torch sees the GPUs",
       cause="torch.cuda.is_available(), device count, gcnArchName vs torch.cuda.get_arch_list()"),
    _c('hsa-override', ('doctor',), 'error', "HSA_OVERRIDE_GFX_VERSION",
       cause="HSA_OVERRIDE_GFX_VERSION needed (gfx1031/1032 -> 10.3.0, gfx1101/1102 -> 11.0.0) and set correctly"),
    _c('bf16', ('doctor',), 'warning', "bf16 real or emulated",
       cause="real vs emulated bf16 from the profile (never torch.cuda.is_bf16_supported() on ROCm)"),
    _c('visible-devices', ('doctor',), 'error', "visible device variables",
       cause="HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES consistent and in range"),
    _c('iommu-p2p', ('doctor',), 'warning', "IOMMU and GPU peer-to-peer",
       cause="several AMD GPUs: IOMMU from /proc/cmdline, /sys/class/iommu, group types; P2P hang risk"),
    _c('hsa-fine-grain-pcie', ('doctor',), 'warning', "HSA_FORCE_FINE_GRAIN_PCIE",
       cause="HSA_FORCE_FINE_GRAIN_PCIE (needed before ROCm 5.7)"),
    _c('pcie-link', ('doctor',), 'warning', "PCIe link",
       cause="current vs maximum PCIe link width/speed from sysfs"),
    _c('deepspeed', ('doctor',), 'warning', "DeepSpeed",
       cause="version vs LLaMA-Factory's deepspeed>=0.10.0,<=0.16.9, pre-built ops, ROCm DS_BUILD_* flags"),
    _c('bitsandbytes', ('doctor',), 'warning', "bitsandbytes (QLoRA, 8-bit optimizers)",
       cause="installed and has kernels for this architecture"),
    _c('flash-attn', ('doctor',), 'warning', "FlashAttention-2 / SDPA kernels",
       cause="FlashAttention-2 / SDPA flash kernels for this architecture"),
    _c('expandable-segments', ('doctor',), 'warning', "expandable_segments",
       cause="PYTORCH_HIP_ALLOC_CONF=expandable_segments:True effective for this torch/ROCm"),
    _c('cpu-ram', ('doctor',), 'warning', "CPU RAM (offload)",
       cause="free RAM for ZeRO offload"),
    _c('disk-space', ('doctor',), 'error', "disk space (checkpoints)",
       cause="free disk for checkpoints (working directory, HF cache)"),
    _c('hf-cache', ('doctor',), 'error', "writable Hugging Face cache",
       cause="the Hugging Face cache is writable"),
    # ------------------------------------------------------------------ live alerts (attach, the monitor)
    _c('nan-grad-norm', ('alert',), 'error',
       'gradient norm is NaN or Inf',
       fix='lower the learning rate, clip gradients; fp16 -> bf16 (native) or fp32; resume from a good checkpoint',
       cause='grad_norm NaN/Inf while the loss is finite'),
    _c('stall-collective-hang', ('alert',), 'error',
       'no new step while GPUs are busy at low power: probably a collective (RCCL/NCCL) hang',
       fix='`py-spy dump --pid PID`, `rocm-tune doctor` (IOMMU), NCCL_P2P_DISABLE=1 to confirm',
       cause='no step for max(5x the median step time, 120 s) while the process is alive and the GPUs are busy at low power'),
    _c('stall-gpus-idle', ('alert',), 'error',
       'no new step and the GPUs are idle',
       fix='look at data loading, a barrier, a dead rank, the disk (`py-spy dump --pid PID`)',
       cause='no step for max(5x the median step time, 120 s) while the process is alive and the GPUs are idle'),
    _c('stall', ('alert',), 'warning',
       'no new step for several times the usual step time',
       fix='`py-spy dump --pid PID`',
       cause='no step for max(5x the median step time, 120 s) while the process is alive, and no GPU data'),
    _c('process-exited', ('alert',), 'error',
       'the training process exited without finishing',
       fix='read the reason (disk full, the OOM killer, the error line); SIGKILL often means the host OOM killer',
       cause='the process ended with a non-zero code, a signal, or no exit record; or the log ends in an error'),
    # ------------------------------------------------------------------ explain's fallback (core/runs/diagnose/resemble.py)
    _c('by-resemblance', ('explain',), 'error',
       "no rule reads the deciding line; the log's error lines resemble one family's (a weak guess, with its confidence)",
       cause="explain's lexicon, made from the fit part of the corpus (tools/build_explain_lexicon.py), scores the "
       "newest error lines; the family's generic cause and fix are given only when one family wins clearly",
       fix="the family's generic first step (explain names it); read the line shown to confirm it is that family",
       confirm="`rocm-tune explain --json`: root.numbers carries the family it resembles, the confidence and the line"),
    _c('by-resemblance-weak', ('explain',), 'error',
       "a guess: no rule reads the log and no family wins clearly; the family its error lines resemble most",
       cause="below the confident threshold, the lexicon's best failure family is still ahead by the lead "
       "tools/build_explain_lexicon.py chose by cross-validation on the fit corpus; never a harmless family",
       fix="that family's first check, to confirm or rule it out (explain names it)",
       confirm='`rocm-tune explain --json`: "guess" is true; root.numbers carries the family, the confidence, the '
       "number of known cases of that family and the line"),
    # ------------------------------------------------------------------ explain's last reading (core/runs/diagnose/last_reading.py)
    _c('last-reading', ('explain',), 'error',
       "best reading: no rule and no resemblance read the log; the GPU runtime's/library's name for its last failure, "
       "or the Python exception's class and frames",
       cause="the hipError_t/cudaError_t names and texts, the ROCm libraries' status names, amdgpu kernel lines, or "
       "where a Python exception was raised (the user's script, an installed package) give the family",
       fix="the family's first step (explain names it); read the line shown to confirm",
       confirm='`rocm-tune explain --json`: root.numbers carries "best_reading" and the line read'),
    _c('host-ram-snapshot-full', ('explain',), 'error',
       "the host's memory was exhausted: the log's own `free` / `top` / /proc/meminfo snapshot shows almost nothing "
       "available",
       cause="the processes on the node (ranks, data-loader workers, offloaded optimizer states, rollout workers) "
       "used up the host's RAM: a rank killed by the kernel's OOM killer or stalled in swap, and the other ranks' "
       "collectives wait for it",
       fix="need less host RAM (fewer ranks or data-loader workers per node, no CPU offload of parameters, "
       "low_cpu_mem_usage loading, a smaller rollout/offload share) or use nodes with more RAM",
       confirm="`dmesg -T | grep -i -E 'killed process|oom'` on the node; `free -g` while the job runs"),
    _c('multinode-silent-hang', ('explain',), 'error',
       "a multi-node job stopped with no message: its ranks joined the process group, then nothing (a collective "
       "that never completes)",
       cause="ranks on two or more nodes wait in a collective that never completes (an inter-node transport that "
       "stalls, or one rank that never reached it); the watchdog's timeout comes only after the group's timeout",
       fix="rerun with NCCL_DEBUG=INFO (and TORCH_NCCL_ASYNC_ERROR_HANDLING=1 with a shorter timeout) to see where "
       "it stops; check the nodes' interconnect (NCCL_SOCKET_IFNAME / NCCL_IB_* settings, firewall between nodes) "
       "and that every node runs the same torch and NCCL/RCCL",
       confirm="`py-spy dump --pid PID` on each node shows every rank inside the same collective"),
    _c('last-reading-warning', ('explain',), 'info',
       "no failure in the log (no traceback, error line, non-zero exit or kill): its most prominent warning",
       cause="the log printed only warnings the program went on past",
       fix="nothing to fix for the run; act on the warning's advice if it applies",
       confirm="`rocm-tune explain --json`: the harmless diagnosis names the warning, its kind and count"),
)



OWN_BY_CODE: dict[str, Code] = {}
for _e in OWN:
    if _e.code in OWN_BY_CODE:
        raise ValueError(f"code {_e.code!r} defined twice")
    OWN_BY_CODE[_e.code] = _e


def own(code: str) -> Code:
    """An entry defined here (not one of the catalogue's own); an unknown code is a bug (KeyError)."""
    try:
        return OWN_BY_CODE[code]
    except KeyError:
        raise KeyError(f"unknown code {code!r}: add it to rocm_tune/core/codes.py") from None


def codes_of(source: str) -> tuple[str, ...]:
    """The codes of `source` defined here (plan, check, preflight, doctor; alerts and explain also have the
    catalogue's: core/codebook.py)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")
    return tuple(c.code for c in OWN if source in c.sources)
