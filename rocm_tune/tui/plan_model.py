"""Plan state for the TUI: the planner's plan.json dict plus the user's edits (no widgets).

The plan comes from `rocm_tune.core.planner.plan()`. When a setting is edited the per-GPU memory is
recomputed at once with `rocm_tune.core.memory.estimate()` (pure, < 1 ms), then the planner runs
again with the edited values fixed (in a worker) for the speed, ETA, warnings and reasons.
Nothing here re-implements them.
"""

from __future__ import annotations

import copy
import dataclasses
from importlib import import_module
from typing import Any

from rocm_tune.core.errors import UserError

# editable settings: name -> (kind, choices)
EDITABLE: dict[str, tuple[str, tuple[str, ...]]] = {
    "cutoff_len": ("int", ()),
    "micro_batch": ("int", ()),
    "grad_accum": ("int", ()),
    "precision": ("choice", ("fp32", "bf16", "fp16", "pure_bf16")),
    "zero_stage": ("choice", ("0", "1", "2", "3")),
    "offload": ("choice", ("none", "optimizer", "all")),
    "gradient_checkpointing": ("choice", ("on", "off")),
    "attn": ("choice", ("eager", "sdpa", "fa2")),
}
LIMITS = {"cutoff_len": (16, 1_048_576), "micro_batch": (1, 4096), "grad_accum": (1, 65536)}


def parse_setting(name: str, raw: Any) -> Any:
    kind, choices = EDITABLE[name]
    if kind == "int":
        try:
            v = int(str(raw).strip())
        except ValueError:
            raise UserError(f"{name} must be an integer, got {raw!r}") from None
        lo, hi = LIMITS[name]
        if not lo <= v <= hi:
            raise UserError(f"{name} must be between {lo} and {hi}, got {v}")
        return v
    if kind == "bool":
        return bool(raw)
    if str(raw) not in choices:
        raise UserError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
    if name == "gradient_checkpointing":
        return raw == "on"
    return int(raw) if name == "zero_stage" else str(raw)


def dataset_stats(path: str, model_spec: Any = None) -> Any:
    """DatasetStats of a local dataset via `core.dataset.analyze_dataset` (call from a worker)."""
    dataset = import_module("rocm_tune.core.dataset")
    return dataset.analyze_dataset(path, model_spec)


def run_plan(answers: dict[str, Any], model_spec: Any = None, dataset_stats: Any = None,
             samples: Any = ()) -> tuple[Any, dict]:
    planner = import_module("rocm_tune.core.planner")
    from rocm_tune.core.questions import to_plan_request

    iommu = None
    doctor = import_module("rocm_tune.core.doctor")
    if samples and answers.get("gpu") in (None, "auto"):
        try:
            iommu = doctor.iommu_state()
            iommu = getattr(iommu, "state", iommu)
            iommu = iommu if isinstance(iommu, str) else None
        except Exception:  # noqa: BLE001 - a worker must not crash the app
            iommu = None
    request = to_plan_request(answers, model_spec, dataset_stats, samples, iommu)
    result = planner.plan(request)
    return result, result.to_dict()


def replan(result: Any, settings: dict) -> dict:
    """Plan again with the edited settings fixed (the planner's own speed, warnings and reasons)."""
    import dataclasses as dc

    planner = import_module("rocm_tune.core.planner")
    req = result.request
    world = req.gpus * req.nodes
    fixed = {k: settings[k] for k in ("cutoff_len", "precision", "micro_batch", "zero_stage", "offload", "attn",
                                      "gradient_checkpointing") if settings.get(k) is not None}
    if settings.get("grad_accum") and settings.get("micro_batch"):
        fixed["effective_batch"] = int(settings["micro_batch"]) * int(settings["grad_accum"]) * world
    new_req = dc.replace(req, **fixed)
    new_req.validate()
    return planner.plan(new_req).to_dict()


SETTING_KEYS = ("method", "precision", "attn", "cutoff_len", "micro_batch", "grad_accum", "zero_stage", "offload",
                "gradient_checkpointing", "optim", "launcher", "env", "lora_rank", "lora_alpha", "lora_targets",
                "ddp_find_unused_parameters", "use_reentrant", "learning_rate", "epochs")


def option_sets(plan_dict: dict) -> list[dict]:
    """[recommended, *alternatives], each {"label", "settings", "memory", "throughput", "fits", ...}."""
    rec = plan_dict.get("recommended") or {}
    out = [{"label": "recommended", "settings": dict(rec), "memory": dict(plan_dict.get("memory") or {}),
            "throughput": dict(plan_dict.get("throughput") or {}), "fits": plan_dict.get("fits"),
            "warnings": list(plan_dict.get("warnings") or []), "reasons": list(plan_dict.get("reasons") or [])}]
    for i, alt in enumerate(plan_dict.get("alternatives") or [], 1):
        out.append({"label": f"alternative {i}", "settings": {k: alt[k] for k in SETTING_KEYS if k in alt},
                    "memory": dict(alt.get("memory") or {}), "throughput": dict(alt.get("throughput") or {}),
                    "fits": alt.get("fits"), "warnings": list(alt.get("warnings") or []),
                    "reasons": list(alt.get("reasons") or [])})
    return out


def option_plan(plan_dict: dict, opt: dict) -> dict:
    """plan.json for one option (recommended or an alternative): the alternative becomes `recommended`."""
    d = copy.deepcopy(plan_dict)
    d["recommended"] = {**(plan_dict.get("recommended") or {}), **opt["settings"]}
    d["memory"], d["throughput"], d["fits"] = opt["memory"], opt["throughput"], opt["fits"]
    d["warnings"], d["reasons"] = opt["warnings"], opt["reasons"]
    return d


def train_config(plan_dict: dict, settings: dict) -> Any:
    """TrainConfig for the estimator from the plan's goal/hardware and the (edited) settings."""
    memory = import_module("rocm_tune.core.memory")
    hw, goal = plan_dict.get("hardware") or {}, plan_dict.get("goal") or {}
    fields = {f.name for f in dataclasses.fields(memory.TrainConfig)}
    kw: dict[str, Any] = {
        "gpus": hw.get("gpus"), "nodes": hw.get("nodes"), "stage": goal.get("stage"),
        "lora_rank": goal.get("lora_rank"), "lora_alpha": goal.get("lora_alpha"),
    }
    targets = goal.get("lora_targets")
    if targets:
        kw["lora_targets"] = tuple(targets) if isinstance(targets, (list, tuple)) else tuple(
            str(targets).split(","))
    for k, v in settings.items():
        if k in fields:
            kw[k] = v
    if isinstance(kw.get("lora_targets"), list):
        kw["lora_targets"] = tuple(kw["lora_targets"])
    kw = {k: v for k, v in kw.items() if k in fields and v is not None}
    cfg = memory.TrainConfig(**kw)
    cfg.validate()
    return cfg


def reestimate(model_spec: Any, plan_dict: dict, settings: dict) -> dict:
    """Per-GPU memory dict of edited settings, straight from `memory.estimate()` (< 1 ms)."""
    memory = import_module("rocm_tune.core.memory")
    cfg = train_config(plan_dict, settings)
    d = memory.estimate(model_spec, cfg).to_dict()
    mem = dict(d.get("per_gpu") or {})
    mem["cpu_offload_bytes"] = d.get("cpu_offload_bytes", 0)
    return mem


def apply_edits(plan_dict: dict, settings: dict, memory: dict) -> dict:
    """The plan.json dict with the user's settings and memory substituted (speed follows from replan)."""
    out = copy.deepcopy(plan_dict)
    out.setdefault("recommended", {}).update(settings)
    out["memory"] = memory
    vram = (out.get("hardware") or {}).get("vram_bytes")
    reserved = memory.get("reserved_bytes")
    if vram and reserved is not None:
        out["fits"] = reserved <= vram
    return out
