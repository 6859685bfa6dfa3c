"""The smallest change from a run's plan that fits after an out-of-memory error, with numbers.

Shared by `explain` (diagnose.py) and `attach`'s `oom` alert (alerts.py); uses the same estimator
(core.memory.estimate) and plan (core.plan.plan) as `rocm-tune plan`. Pure: no torch.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from rocm_tune.core.memory import fitting
from rocm_tune.core import vocabulary as V

GIB = 2**30


def _g1(n: float) -> str:
    return f"{n / GIB:.1f}"


def _plan_obj(plan: Mapping[str, Any]):
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.plan.plan import Plan

    try:
        return Plan.from_dict(plan)
    except (UserError, TypeError, ValueError, KeyError, AttributeError):
        return None


@functools.lru_cache(maxsize=32)
def _model(ref: str):
    from rocm_tune.core.model.architecture import load_model

    return load_model(ref)


def oom_plan_fix(plan: Mapping[str, Any], oom: Mapping[str, Any] | None = None) -> dict | None:
    """With the run's plan.json: by how much the OOM missed, and the smallest change from the plan
    whose prediction (scaled by what the OOM measured) fits. None when the plan cannot be used."""
    from rocm_tune.core.errors import UserError

    p = _plan_obj(plan)
    if p is None:
        return None
    try:
        model = _model(p.model.ref)
        cfg = p.train_config()
    except (UserError, OSError, ValueError, TypeError, KeyError):
        return None
    s = p.recommended
    try:    # the plan's GPU: its interconnect sizes the NCCL/RCCL communicators, as the plan counted them
        from rocm_tune.profiles.gpu_profiles import get_gpu_profile

        gpu = get_gpu_profile(p.hardware.gpu)
    except (UserError, KeyError, ValueError):
        gpu = None
    return smallest_fit(model, cfg, s.grad_accum, p.hardware.world, p.hardware.vram_bytes, p.hardware.headroom,
                        p.hardware.limit_bytes, oom, "the plan", gpu=gpu)


def smallest_fit(model, cfg, grad_accum: int, world: int, vram: int, headroom: float, limit: float,
                 oom: Mapping[str, Any] | None, source: str, gpu=None) -> dict | None:
    """The smallest single change of `cfg` whose predicted memory, scaled by what the OOM measured, fits.

    Need at the OOM >= memory in use + the request (total - free + tried when the message gives them;
    else the GPU's memory + the request). The ratio need / predicted scales every candidate's
    prediction; candidates in order of how little they change the training: micro_batch down (grad_accum
    up, same effective batch), gradient checkpointing on, ZeRO stage up, optimizer offload, cutoff_len down.
    """
    from dataclasses import replace

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.memory.estimate import estimate

    try:
        base = estimate(model, cfg, gpu).per_gpu.reserved_bytes
    except (UserError, ValueError, TypeError, KeyError):
        return None
    oom = oom or {}
    total = oom.get("total_bytes") or vram
    tried = oom.get("tried_bytes") or 0
    free = oom.get("free_bytes")
    used = (total - free) if free is not None else total
    need = used + tried
    ratio = max(1.0, need / base) if base else 1.0
    out: dict[str, Any] = {"source": source, "predicted_bytes": int(base), "needed_at_least_bytes": int(need),
                           "vram_bytes": int(vram), "limit_bytes": int(limit), "scale": round(ratio, 3),
                           "short_by_bytes": int(max(0, need - total))}
    cands: list[tuple[str, Any, dict]] = []
    mb0 = cfg.micro_batch
    mb = mb0
    while mb > 1:
        mb //= 2
        ga = grad_accum * mb0 // mb if (grad_accum * mb0) % mb == 0 else None
        if ga:
            cands.append((f"micro_batch {mb0} -> {mb}, grad_accum {grad_accum} -> {ga} (same effective batch)",
                          replace(cfg, micro_batch=mb), {"micro_batch": mb, "grad_accum": ga}))
    if not cfg.gradient_checkpointing:
        cands.append(("gradient_checkpointing false -> true", replace(cfg, gradient_checkpointing=True),
                      {"gradient_checkpointing": True}))
    if world > 1:
        for z in (2, 3):
            if cfg.zero_stage < z:
                cands.append((f"zero_stage {cfg.zero_stage} -> {z}", replace(cfg, zero_stage=z), {"zero_stage": z}))
    if cfg.offload == "none" and (cfg.zero_stage >= 1 or world > 1):
        z = max(cfg.zero_stage, 2)
        cands.append((f"offload none -> optimizer (ZeRO-{z})", replace(cfg, zero_stage=z, offload="optimizer"),
                      {"zero_stage": z, "offload": "optimizer"}))
    cl = cfg.cutoff_len
    while cl > 256:
        cl //= 2
        cands.append((f"cutoff_len {cfg.cutoff_len} -> {cl} (truncates more samples: `rocm-tune dataset`)",
                      replace(cfg, cutoff_len=cl), {"cutoff_len": cl}))
    best = None
    for text, c, change in cands:
        try:
            c.validate()
            pred = estimate(model, c, gpu).per_gpu.reserved_bytes
        except (UserError, ValueError, TypeError):
            continue
        if pred * ratio <= limit:
            best = (text, pred, change)
            break
    gb = vram / GIB
    out["summary"] = (f"{source} predicted {_g1(base)} GiB per GPU; at the OOM at least {_g1(need)} GiB was needed "
                      f"({_g1(max(0, need - total))} GiB over the {gb:.0f} GiB GPU)")
    if best is None:
        out["fix"] = (f"{source} predicted {_g1(base)} GiB; the OOM shows at least {_g1(need)} GiB of {gb:.0f} "
                      "needed; no single change fits: re-plan (`rocm-tune plan`) with more GPUs, QLoRA or a "
                      "shorter cutoff_len")
        return out
    text, pred, change = best
    out["change"] = change
    out["predicted_after_bytes"] = int(pred)
    scaled = f", x{ratio:.2f} as measured = {_g1(pred * ratio)} GiB" if ratio > 1.005 else ""
    out["fix"] = (f"{text} (predicted {_g1(base)} -> {_g1(pred)} GiB of {gb:.0f}{scaled}; limit "
                  f"{_g1(limit)} GiB at headroom {headroom:g})")
    return out


def closest_model(ref: str):
    """The model a config names: itself (path, cached hub id, preset) or, failing that, the preset of
    the same family and size closest in name (Meta-Llama-3-8B-Instruct -> llama-3.1-8b). None if none."""
    import difflib
    import os
    import re

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.model.architecture import list_presets

    base = os.path.basename(ref.rstrip("/"))
    for cand in (ref, base):
        if cand:
            try:
                return _model(cand)
            except (UserError, OSError, ValueError):
                pass
    key = re.sub(r"^(?:meta-)", "", base.lower())
    key = re.sub(r"-(?:instruct|chat|hf|base)$", "", key)
    size = re.search(r"(\d+(?:\.\d+)?b)\b", key)
    if not size:
        return None
    names = [n for n in list_presets() if size.group(1) in n.split("-")]
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.75)
    if not close:
        return None
    try:
        return _model(close[0])
    except (UserError, OSError, ValueError):
        return None


def lf_train_config(train: Mapping[str, Any], world: int = 1, path: str | None = None):
    """(model, TrainConfig, grad_accum) from a LLaMA-Factory training config, or None. The settings are read by
    the one LLaMA-Factory reader with its defaults (core/runners/llamafactory.py), as `check` reads them; the
    DeepSpeed JSON it names is read beside `path` (the YAML's own file), else by its name."""
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runners import llamafactory
    from rocm_tune.core.runners.common import as_int
    from rocm_tune.core.runners.config import build_config

    model = closest_model(str(train.get("model_name_or_path") or ""))
    if model is None:
        return None
    try:
        job = llamafactory.job_from_mapping(dict(train), path or "config.yaml")
        cfg, _f, _a = build_config(job, model, max(1, int(world)), None, llamafactory.DEFAULTS)
        cfg.validate()
    except (UserError, ValueError, TypeError):
        return None
    return model, cfg, as_int(job.get("gradient_accumulation_steps")) or 1


def oom_config_fix(train: Mapping[str, Any], oom: Mapping[str, Any], world: int = 1,
                   headroom: float = V.DEFAULT_HEADROOM, path: str | None = None) -> dict | None:
    """The same answer from a LLaMA-Factory training YAML when there is no plan: the GPU's size comes
    from the OOM message itself (total capacity), the model from model_name_or_path."""
    total = oom.get("total_bytes")
    if not total:
        return None
    built = lf_train_config(train, world, path)
    if built is None:
        return None
    model, cfg, ga = built
    return smallest_fit(model, cfg, ga, world, int(total), headroom, fitting.limit_bytes(total, headroom), oom,
                        "the training YAML (estimated)")
