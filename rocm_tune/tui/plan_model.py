"""Plan state for the TUI: the planner's plan.json dict plus the user's edits (no widgets).

The plan comes from `rocm_tune.core.planner.plan()`; when a setting is edited the per-GPU memory is
recomputed with `rocm_tune.core.memory.estimate()` (pure, < 1 ms) and the speed with
`rocm_tune.core.throughput` when that module offers an estimator. Nothing here re-implements them.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from typing import Any

from rocm_tune.core.errors import UserError
from rocm_tune.tui.util import optional

# editable settings: name -> (kind, choices)
EDITABLE: dict[str, tuple[str, tuple[str, ...]]] = {
    "cutoff_len": ("int", ()),
    "micro_batch": ("int", ()),
    "grad_accum": ("int", ()),
    "precision": ("choice", ("fp32", "bf16", "fp16", "pure_bf16")),
    "zero_stage": ("choice", ("0", "1", "2", "3")),
    "offload": ("choice", ("none", "optimizer", "all")),
    "gradient_checkpointing": ("bool", ()),
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
    return int(raw) if name == "zero_stage" else str(raw)


def run_plan(answers: dict[str, Any], model_spec: Any = None, dataset_stats: Any = None) -> tuple[Any, dict]:
    planner = optional("rocm_tune.core.planner")
    from rocm_tune.core.questions import to_plan_request

    if planner is None:
        raise UserError("the planner is not available yet")
    request = to_plan_request(answers, model_spec, dataset_stats)
    result = planner.plan(request)
    return result, result.to_dict()


def option_sets(plan_dict: dict) -> list[dict]:
    """[recommended, *alternatives], each {"settings", "memory", "throughput"}."""
    rec = plan_dict.get("recommended") or {}
    out = [{"label": "recommended", "settings": dict(rec), "memory": dict(plan_dict.get("memory") or {}),
            "throughput": dict(plan_dict.get("throughput") or {})}]
    for i, alt in enumerate(plan_dict.get("alternatives") or [], 1):
        settings = {k: v for k, v in alt.items() if k not in ("memory", "throughput")}
        out.append({"label": f"alternative {i}", "settings": settings, "memory": dict(alt.get("memory") or {}),
                    "throughput": dict(alt.get("throughput") or {})})
    return out


def train_config(plan_dict: dict, settings: dict) -> Any:
    """TrainConfig for the estimator from the plan's goal/hardware and the (edited) settings."""
    memory = optional("rocm_tune.core.memory")
    if memory is None:
        raise UserError("the memory estimator is not available yet")
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


def reestimate(model_spec: Any, plan_dict: dict, settings: dict) -> tuple[dict, dict | None]:
    """(per-GPU memory dict, throughput dict or None) for edited settings."""
    memory = optional("rocm_tune.core.memory")
    cfg = train_config(plan_dict, settings)
    est = memory.estimate(model_spec, cfg)
    d = est.to_dict()
    mem = dict(d.get("per_gpu") or {})
    mem["cpu_offload_bytes"] = d.get("cpu_offload_bytes", 0)
    return mem, estimate_throughput(model_spec, cfg, plan_dict, settings)


def estimate_throughput(model_spec: Any, cfg: Any, plan_dict: dict, settings: dict) -> dict | None:
    """Ask core.throughput for tokens/s, s/step and ETA of edited settings, when it offers that."""
    tp = optional("rocm_tune.core.throughput")
    fn = getattr(tp, "predict", None) or getattr(tp, "estimate_throughput", None) if tp else None
    if fn is None:
        return None
    try:
        profiles = optional("rocm_tune.profiles.gpu_profiles")
        hw, goal = plan_dict.get("hardware") or {}, plan_dict.get("goal") or {}
        profile = profiles.get_gpu_profile(hw.get("gpu")) if profiles and hw.get("gpu") else None
        params = inspect.signature(fn).parameters
        kw: dict[str, Any] = {}
        avail = {"model": model_spec, "spec": model_spec, "cfg": cfg, "config": cfg, "profile": profile,
                 "gpu": profile, "grad_accum": settings.get("grad_accum"),
                 "effective_batch": goal.get("effective_batch"), "epochs": goal.get("epochs"),
                 "dataset_samples": (goal.get("dataset") or {}).get("count") if isinstance(goal.get("dataset"), dict)
                 else None, "nodes": hw.get("nodes")}
        for name, p in params.items():
            if name in avail and avail[name] is not None:
                kw[name] = avail[name]
            elif p.default is inspect.Parameter.empty and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                return None
        out = fn(**kw)
        return out.to_dict() if hasattr(out, "to_dict") else dict(dataclasses.asdict(out)) if \
            dataclasses.is_dataclass(out) else dict(out)
    except Exception:
        return None


def apply_edits(plan_dict: dict, settings: dict, memory: dict, throughput: dict | None) -> dict:
    """The plan.json dict with the user's settings, memory and (when known) speed substituted."""
    out = copy.deepcopy(plan_dict)
    out.setdefault("recommended", {}).update(settings)
    out["memory"] = memory
    if throughput:
        out["throughput"] = {**(out.get("throughput") or {}), **throughput}
    vram = (out.get("hardware") or {}).get("vram_bytes")
    reserved = memory.get("reserved_bytes")
    if vram and reserved is not None:
        out["fits"] = reserved <= vram
    return out
