"""Answers -> PlanRequest: the one translation for `rocm-tune plan` flags, wizard answers and the app.

`request_from_answers(answers, ...)` takes a mapping whose keys are the plan's own names (the wizard's
question names, the CLI flags without dashes: model, gpu, gpus, nodes, cpu_ram_gib, vram_gib, method,
stage, effective_batch, priority, runner, lora_rank, lora_alpha, lora_targets, dora, quant_bits,
double_quant, freeze_trainable_layers, precision, cutoff_len, micro_batch, zero_stage, offload, attn,
gradient_checkpointing, optim, dataset, dataset_name, percentile, hours, epochs, headroom). A missing
or None value means "not given": the vocabulary's default, or the planner's choice.

Hardware: `gpu` None or "auto" plans for the GPUs on this machine (the most common detected profile,
their count, the CPU RAM available, the IOMMU state and the VRAM other processes already use);
a named profile plans for that hardware and knows nothing about this machine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.planner import PlanRequest
from rocm_tune.core.units import GIB

ANSWER_KEYS = (
    "model", "gpu", "gpus", "nodes", "cpu_ram_gib", "vram_gib", "method", "stage", "effective_batch", "priority",
    "runner", "lora_rank", "lora_alpha", "lora_targets", "dora", "quant_bits", "double_quant",
    "freeze_trainable_layers", "precision", "cutoff_len", "micro_batch", "zero_stage", "offload", "attn",
    "gradient_checkpointing", "optim", "dataset", "dataset_name", "percentile", "hours", "epochs", "headroom",
)


@dataclass(frozen=True)
class LocalGpus:
    """What this machine's GPU backend reported. `synthetic` (ROCM_TUNE_FAKE_GPUS / ROCM_TUNE_REPLAY)
    samples simulate a run in progress, so their memory use is not counted as taken."""

    samples: tuple = ()
    backend: str = "none"
    synthetic: bool = False


def detect_local_gpus() -> LocalGpus:
    from rocm_tune.core.hardware.devices import detect

    backend = detect()
    return LocalGpus(tuple(backend.sample()), backend.name, backend.kind == "synthetic")


def local_gpus_from_samples(samples, backend: str = "app") -> LocalGpus:
    """Samples a caller already holds (the app's hardware screen) from `core.hardware.devices.detect()`."""
    synthetic = bool(os.environ.get("ROCM_TUNE_REPLAY") or os.environ.get("ROCM_TUNE_FAKE_GPUS"))
    return LocalGpus(tuple(samples or ()), backend, synthetic)


def meminfo_bytes(field: str = "MemAvailable") -> int | None:
    """This host's RAM in bytes, "MemAvailable" or "MemTotal" as /proc/meminfo names them (psutil reads
    it; None when unreadable)."""
    import psutil

    try:
        vm = psutil.virtual_memory()
    except (psutil.Error, OSError, ValueError):
        return None
    return {"MemAvailable": int(vm.available), "MemTotal": int(vm.total)}.get(field)


def local_iommu() -> str:
    """This host's IOMMU state, normalised ('pt' | 'off' | 'translated' | 'unknown')."""
    from rocm_tune.core.hardware.doctor import iommu_state
    from rocm_tune.core.hardware.rules import normalize_iommu

    try:
        return normalize_iommu(iommu_state())
    except OSError:
        return "unknown"


@dataclass(frozen=True)
class HardwareChoice:
    profile: Any                # GpuProfile
    gpus: int
    cpu_ram_bytes: int | None
    iommu: str
    vram_in_use_bytes: int
    source: str


def choose_hardware(answers: Mapping[str, Any], local: LocalGpus | None = None) -> HardwareChoice:
    """The GPU profile, count and host facts the plan is for (see the module docstring)."""
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    gpu, gpus = answers.get("gpu"), answers.get("gpus")
    vram_gib, ram_gib = answers.get("vram_gib"), answers.get("cpu_ram_gib")
    ram = None if ram_gib is None else int(float(ram_gib) * GIB)
    if gpu not in (None, "", "auto"):
        return HardwareChoice(get_gpu_profile(str(gpu), vram_gib), int(gpus or 1), ram, "unknown", 0, f"gpu {gpu}")
    local = detect_local_gpus() if local is None else local
    if not local.samples:
        raise UserError("no GPU detected on this machine; pass --gpu ID (e.g. --gpu mi50-32gb, --gpus 2) to plan "
                        "for other hardware (`rocm-tune gpus --profiles` lists the ids)")
    ids = [s.profile_id for s in local.samples if s.profile_id]
    if not ids:
        raise UserError(f"detected GPU {local.samples[0].name!r} matches no known profile; pass --gpu ID "
                        "(and --vram-gib) for the closest one (`rocm-tune gpus --profiles`)")
    pid = max(sorted(set(ids)), key=ids.count)
    same = [s for s in local.samples if s.profile_id == pid]
    profile = get_gpu_profile(pid, vram_gib if vram_gib is not None else _detected_gib(same, get_gpu_profile(pid)))
    if gpus is not None and int(gpus) > len(same):
        raise UserError(f"--gpus {gpus}: only {len(same)} {profile.display_name} detected on this machine")
    count = int(gpus or len(same))
    in_use = 0 if local.synthetic else max(_used_bytes(s) for s in same[:count])
    iommu = local_iommu() if profile.vendor in ("amd", "hygon") else "unknown"
    return HardwareChoice(profile, count, ram if ram is not None else meminfo_bytes("MemAvailable"), iommu,
                          in_use, f"detected ({local.backend})")


def _detected_gib(samples, profile) -> float | None:
    """The memory the devices report where it is not the profile's (a card matched by its architecture alone, e.g. a
    Quadro P4000's 8 GB against the Tesla P40's profile, or an odd SKU): planned with what is there, not the
    profile's figure. None where the devices agree with the profile (within -15 %/+8 %, what drivers report below
    the nominal size) or report no total."""
    totals = [int(s.vram_total_bytes) for s in samples
              if isinstance(s.vram_total_bytes, (int, float)) and not isinstance(s.vram_total_bytes, bool)
              and s.vram_total_bytes > 0]
    if not totals or not profile.vram_bytes:
        return None
    least = min(totals)
    return None if 0.85 <= least / profile.vram_bytes <= 1.08 else round(least / GIB, 2)


def _used_bytes(sample) -> int:
    used = sample.vram_used_bytes
    return int(used) if isinstance(used, (int, float)) and not isinstance(used, bool) and used > 0 else 0


def _targets(value) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        names = tuple(t.strip() for t in value.split(",") if t.strip())
    else:
        names = tuple(str(t) for t in value)
    return names or None


def check_method_options(answers: Mapping[str, Any], method: str) -> None:
    """UserError when an option of one fine-tuning method is given with another (it would be ignored)."""
    # given = set, and --no-double-quant (False) is a choice too; dora False is the default (nothing ignored)
    given = {k for k, v in answers.items() if v is not None and not (k == "dora" and v is False)}

    def flag(k: str) -> str:
        return "--" + k.replace("_", "-").replace("freeze-trainable-layers", "freeze-layers") \
            .replace("lora-targets", "lora-target")

    if method not in V.LORA_METHODS:
        for key in ("lora_rank", "lora_alpha", "lora_targets", "dora"):
            if key in given:
                raise UserError(f"{flag(key)} only applies to --method lora or qlora, not --method {method}")
    if method != "qlora":
        for key in ("quant_bits", "double_quant"):
            if key in given:
                shown = "--double-quant/--no-double-quant" if key == "double_quant" else flag(key)
                raise UserError(f"{shown} only applies to --method qlora, not --method {method}")
    if method == "qlora" and "double_quant" in given and answers.get("quant_bits") == 8:
        raise UserError("--double-quant/--no-double-quant only applies to 4-bit QLoRA, not --quant-bits 8")
    if method != "freeze" and "freeze_trainable_layers" in given:
        raise UserError(f"--freeze-layers only applies to --method freeze, not --method {method}")


def request_from_answers(answers: Mapping[str, Any], *, model: Any = None, dataset: Any = None,
                         local: LocalGpus | None = None) -> PlanRequest:
    """The validated PlanRequest for these answers. `model` / `dataset` are the already loaded
    ModelSpec / DatasetStats when the caller has them (else loaded from answers["model"/"dataset"])."""
    unknown = sorted(set(answers) - set(ANSWER_KEYS))
    if unknown:
        raise UserError(f"unknown setting {unknown[0]!r}; known: {', '.join(ANSWER_KEYS)}")
    a = {k: v for k, v in answers.items() if v is not None}
    ref = a.get("model")
    if not ref and model is None:
        raise UserError("model is required: a preset name such as qwen2.5-7b, a model directory, a config.json "
                        "or a cached hub id")
    method = a.get("method", V.DEFAULT_METHOD)
    V.check_choice("method", method, V.METHODS)
    check_method_options(a, method)
    if a.get("dataset_name") and not a.get("dataset"):
        raise UserError(f"--dataset-name {a['dataset_name']!r} needs --dataset DIR (a folder with "
                        "dataset_info.json)")
    if model is None:
        from rocm_tune.core.model.architecture import load_model

        model = load_model(str(ref))
    hw = choose_hardware(a, local)
    if dataset is None and a.get("dataset"):
        from rocm_tune.core.data.dataset import analyze_dataset

        dataset = analyze_dataset(str(a["dataset"]), model, a.get("dataset_name"))
    lora = method in V.LORA_METHODS
    zero = a.get("zero_stage")
    req = PlanRequest(
        model=model, gpu=hw.profile, gpus=hw.gpus, nodes=int(a.get("nodes", 1)), cpu_ram_bytes=hw.cpu_ram_bytes,
        method=method, stage=a.get("stage", V.DEFAULT_STAGE), effective_batch=a.get("effective_batch"),
        priority=a.get("priority", V.DEFAULT_PRIORITY), runner=a.get("runner", V.DEFAULT_RUNNER),
        cutoff_len=a.get("cutoff_len"), precision=a.get("precision"), micro_batch=a.get("micro_batch"),
        zero_stage=None if zero is None else int(zero), offload=a.get("offload"), attn=a.get("attn"),
        gradient_checkpointing=a.get("gradient_checkpointing"), optim=a.get("optim"),
        lora_rank=a.get("lora_rank") if lora else None, lora_alpha=a.get("lora_alpha") if lora else None,
        lora_targets=_targets(a.get("lora_targets")) if lora else None, dora=bool(a.get("dora", False)),
        quant_bits=a.get("quant_bits"), double_quant=a.get("double_quant"),
        freeze_trainable_layers=a.get("freeze_trainable_layers"),
        dataset=dataset, percentile=float(a.get("percentile", V.DEFAULT_PERCENTILE)), hours=a.get("hours"),
        epochs=a.get("epochs"), headroom=float(a.get("headroom", V.DEFAULT_HEADROOM)), iommu=hw.iommu,
        model_ref=str(ref) if ref else None, vram_in_use_bytes=hw.vram_in_use_bytes,
    )
    req.validate()
    return req
