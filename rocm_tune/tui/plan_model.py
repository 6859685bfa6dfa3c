"""Plan state for the TUI: the planner's plan.json dict plus the user's edits (no widgets).

The plan comes from `rocm_tune.core.plan.answers.request_from_answers()` and `rocm_tune.core.plan.planner.plan()`,
the same two calls `rocm-tune plan` and `rocm-tune wizard --answers` make. When a setting is edited the
per-GPU memory is recomputed at once with `planner.estimate_settings()` (pure, < 1 ms), then the planner runs
again with the edited values fixed (in a worker) for the speed, ETA, warnings and reasons.
Nothing here re-implements them.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from rocm_tune.core.memory import fitting
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.plan import Plan

# editable settings: name -> (kind, choices); choices and limits from core.vocabulary
EDITABLE: dict[str, tuple[str, tuple[str, ...]]] = {
    "cutoff_len": ("int", ()),
    "micro_batch": ("int", ()),
    "grad_accum": ("int", ()),
    "precision": ("choice", tuple(V.PRECISIONS)),
    "zero_stage": ("choice", tuple(str(z) for z in V.ZERO_STAGES)),
    "offload": ("choice", tuple(V.OFFLOADS)),
    "gradient_checkpointing": ("choice", ("on", "off")),
    "attn": ("choice", tuple(V.ATTNS)),
}
LIMITS = {name: (int(V.LIMITS[name].lo), int(V.LIMITS[name].hi)) for name in ("cutoff_len", "micro_batch",
                                                                             "grad_accum")}


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
    """DatasetStats of a local dataset via `core.data.dataset.analyze_dataset` (call from a worker)."""
    from rocm_tune.core.data.dataset import analyze_dataset

    return analyze_dataset(path, model_spec)


def run_plan(answers: dict[str, Any], model_spec: Any = None, dataset_stats: Any = None,
             samples: Any = ()) -> tuple[Any, dict]:
    """The wizard's answers -> (PlanResult, plan.json dict), through the same request function and
    planner as `rocm-tune plan` and `rocm-tune wizard --answers`."""
    from rocm_tune.core.plan.planner import plan
    from rocm_tune.core.plan.answers import local_gpus_from_samples, request_from_answers

    local = local_gpus_from_samples(samples) if samples else None
    from rocm_tune.core.memory.checkpoint_size import with_local_disk

    request = with_local_disk(request_from_answers(answers, model=model_spec, dataset=dataset_stats, local=local))
    result = plan(request)
    return result, result.to_dict()


def replan(result: Any, settings: dict) -> dict:
    """Plan again with the edited settings fixed (the planner's own speed, warnings and reasons)."""
    from rocm_tune.core.plan.planner import plan

    req = result.request
    fixed = {k: settings[k] for k in ("cutoff_len", "precision", "micro_batch", "zero_stage", "offload", "attn",
                                      "gradient_checkpointing") if settings.get(k) is not None}
    if settings.get("grad_accum") and settings.get("micro_batch"):
        fixed["effective_batch"] = int(settings["micro_batch"]) * int(settings["grad_accum"]) * req.world
    new_req = dataclasses.replace(req, **fixed)
    new_req.validate()
    return plan(new_req).to_dict()


SETTING_KEYS = ("method", "precision", "attn", "cutoff_len", "micro_batch", "grad_accum", "zero_stage", "offload",
                "gradient_checkpointing", "optim", "launcher", "env", "lora_rank", "lora_alpha", "lora_targets",
                "ddp_find_unused_parameters", "use_reentrant", "learning_rate", "epochs")


def option_sets(plan_dict: dict) -> list[dict]:
    """[recommended, *alternatives], each {"label", "settings", "memory", "throughput", "fits", ...}."""
    rec = plan_dict.get("recommended") or {}
    out = [{"label": "recommended", "settings": dict(rec), "memory": dict(plan_dict.get("memory") or {}),
            "throughput": dict(plan_dict.get("throughput") or {}), "fits": plan_dict.get("fits"),
            "warnings": list(plan_dict.get("warnings") or []), "reasons": list(plan_dict.get("reasons") or []),
            "execution": plan_dict.get("execution")}]
    for i, alt in enumerate(plan_dict.get("alternatives") or [], 1):
        out.append({"label": f"alternative {i}", "settings": {k: alt[k] for k in SETTING_KEYS if k in alt},
                    "memory": dict(alt.get("memory") or {}), "throughput": dict(alt.get("throughput") or {}),
                    "fits": alt.get("fits"), "warnings": list(alt.get("warnings") or []),
                    "reasons": list(alt.get("reasons") or []), "execution": alt.get("execution")})
    return out


def option_plan(plan_dict: dict, opt: dict) -> dict:
    """plan.json for one option (recommended or an alternative): the alternative becomes `recommended`."""
    d = copy.deepcopy(plan_dict)
    d["recommended"] = {**(plan_dict.get("recommended") or {}), **opt["settings"]}
    d["memory"], d["throughput"], d["fits"] = opt["memory"], opt["throughput"], opt["fits"]
    d["warnings"], d["reasons"] = opt["warnings"], opt["reasons"]
    if opt.get("execution") is not None:
        d["execution"] = opt["execution"]
    else:
        d.pop("execution", None)
    return d


def _edited_plan(plan_dict: dict, settings: dict) -> tuple[Plan, Any]:
    """(the typed plan, the Settings with the user's edits)."""
    typed = Plan.from_dict(plan_dict)
    keys = {f.name for f in dataclasses.fields(type(typed.recommended))}
    edits = {k: v for k, v in settings.items() if k in keys}
    if isinstance(edits.get("lora_targets"), list):
        edits["lora_targets"] = tuple(edits["lora_targets"])
    edited = dataclasses.replace(typed.recommended, **edits)
    problem = V.offload_problem(edited.offload, edited.zero_stage)
    if problem:
        raise UserError(problem)
    return typed, edited


def train_config(plan_dict: dict, settings: dict) -> Any:
    """TrainConfig for the estimator from the plan and the (edited) settings (`Plan.train_config`)."""
    typed, edited = _edited_plan(plan_dict, settings)
    return typed.train_config(edited)


def reestimate(model_spec: Any, plan_dict: dict, settings: dict) -> dict:
    """Per-GPU memory dict of edited settings, counted as the planner counts it (< 1 ms)."""
    from rocm_tune.core.plan.planner import estimate_settings

    typed, edited = _edited_plan(plan_dict, settings)
    return estimate_settings(model_spec, typed, edited).to_dict()


def apply_edits(plan_dict: dict, settings: dict, memory: dict) -> dict:
    """The plan.json dict with the user's settings and memory substituted (speed follows from replan)."""
    out = copy.deepcopy(plan_dict)
    out.setdefault("recommended", {}).update(settings)
    out["memory"] = memory
    reserved = memory.get("reserved_bytes")
    if reserved is not None:
        out["fits"] = fits(out, reserved)
    return out


def headroom(plan_dict: dict) -> float:
    """The plan's headroom (share of VRAM a job may reserve): the VRAM bar's limit line."""
    return float((plan_dict.get("hardware") or {}).get("headroom") or V.DEFAULT_HEADROOM)


def fits(plan_dict: dict, reserved_bytes: float) -> bool:
    """The one meaning of "fits" (core.plan.plan.Hardware.fits): reserved + in use <= headroom x VRAM."""
    hw = plan_dict.get("hardware") or {}
    return fitting.fits(reserved_bytes, int(hw.get("vram_bytes") or 0), headroom(plan_dict),
                        int(hw.get("vram_in_use_bytes") or 0))
