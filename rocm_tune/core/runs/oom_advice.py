"""The smallest change from a run's plan that fits after an out-of-memory error, with numbers.

Shared by `explain` (diagnose.py) and `attach`'s `oom` alert (alerts.py); uses the same estimator
(core.memory) and plan (core.plan) as `rocm-tune plan`. Pure: no torch.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

GIB = 2**30


def _g1(n: float) -> str:
    return f"{n / GIB:.1f}"


def _plan_obj(plan: Mapping[str, Any]):
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.plan import Plan

    try:
        return Plan.from_dict(plan)
    except (UserError, TypeError, ValueError, KeyError, AttributeError):
        return None


@functools.lru_cache(maxsize=32)
def _model(ref: str):
    from rocm_tune.core.model import load_model

    return load_model(ref)


def oom_plan_fix(plan: Mapping[str, Any], oom: Mapping[str, Any] | None = None) -> dict | None:
    """With the run's plan.json: by how much the OOM missed, and the smallest change from the plan
    whose prediction (scaled by what the OOM measured) fits. None when the plan cannot be used.

    Need at the OOM >= memory in use + the request (total - free + tried when the message gives them;
    else the GPU's memory + the request). The ratio need / predicted scales every candidate's
    prediction; candidates in order of how little they change the training: micro_batch down (grad_accum
    up, same effective batch), gradient checkpointing on, ZeRO stage up, optimizer offload, cutoff_len down.
    """
    from dataclasses import replace

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.memory import estimate

    p = _plan_obj(plan)
    if p is None:
        return None
    try:
        model = _model(p.model.ref)
        cfg = p.train_config()
        base = estimate(model, cfg).per_gpu.reserved_bytes
    except (UserError, OSError, ValueError, TypeError, KeyError):
        return None
    oom = oom or {}
    vram = p.hardware.vram_bytes
    total = oom.get("total_bytes") or vram
    tried = oom.get("tried_bytes") or 0
    free = oom.get("free_bytes")
    used = (total - free) if free is not None else total
    need = used + tried
    ratio = max(1.0, need / base) if base else 1.0
    limit = p.hardware.limit_bytes
    s = p.recommended
    out: dict[str, Any] = {"predicted_bytes": int(base), "needed_at_least_bytes": int(need), "vram_bytes": int(vram),
                           "limit_bytes": int(limit), "scale": round(ratio, 3),
                           "short_by_bytes": int(max(0, need - total))}
    cands: list[tuple[str, Any, dict]] = []
    mb = s.micro_batch
    while mb > 1:
        mb //= 2
        ga = s.grad_accum * s.micro_batch // mb if (s.grad_accum * s.micro_batch) % mb == 0 else None
        if ga:
            cands.append((f"micro_batch {s.micro_batch} -> {mb}, grad_accum {s.grad_accum} -> {ga} (same effective "
                          f"batch)", replace(cfg, micro_batch=mb), {"micro_batch": mb, "grad_accum": ga}))
    if not s.gradient_checkpointing:
        cands.append(("gradient_checkpointing false -> true", replace(cfg, gradient_checkpointing=True),
                      {"gradient_checkpointing": True}))
    if p.hardware.world > 1:
        for z in (2, 3):
            if s.zero_stage < z:
                cands.append((f"zero_stage {s.zero_stage} -> {z}", replace(cfg, zero_stage=z), {"zero_stage": z}))
    if s.offload == "none" and s.zero_stage >= 1 or (s.offload == "none" and p.hardware.world > 1):
        z = max(s.zero_stage, 2)
        cands.append((f"offload none -> optimizer (ZeRO-{z})", replace(cfg, zero_stage=z, offload="optimizer"),
                      {"zero_stage": z, "offload": "optimizer"}))
    cl = s.cutoff_len
    while cl > 256:
        cl //= 2
        cands.append((f"cutoff_len {s.cutoff_len} -> {cl} (truncates more samples: `rocm-tune dataset`)",
                      replace(cfg, cutoff_len=cl), {"cutoff_len": cl}))
    best = None
    for text, c, change in cands:
        try:
            c.validate()
            pred = estimate(model, c).per_gpu.reserved_bytes
        except (UserError, ValueError, TypeError):
            continue
        if pred * ratio <= limit:
            best = (text, pred, change)
            break
    gb = vram / GIB
    if best is None:
        out["fix"] = (f"the plan predicted {_g1(base)} GiB; the OOM shows at least {_g1(need)} GiB of {gb:.0f} "
                      "needed; no single change from the plan fits: re-plan (`rocm-tune plan`) with more GPUs, "
                      "QLoRA or a shorter cutoff_len")
        return out
    text, pred, change = best
    out["change"] = change
    out["predicted_after_bytes"] = int(pred)
    scaled = f", x{ratio:.2f} as measured = {_g1(pred * ratio)} GiB" if ratio > 1.005 else ""
    out["fix"] = (f"{text} (predicted {_g1(base)} -> {_g1(pred)} GiB of {gb:.0f}{scaled}; limit "
                  f"{_g1(limit)} GiB at headroom {p.hardware.headroom:g})")
    out["summary"] = (f"the plan predicted {_g1(base)} GiB per GPU; at the OOM at least {_g1(need)} GiB was needed "
                      f"({_g1(max(0, need - total))} GiB over the {gb:.0f} GiB GPU)")
    return out
