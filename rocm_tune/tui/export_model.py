"""Bridge to the bundle writer (`rocm_tune.core.export`): render in memory, write with --force semantics."""

from __future__ import annotations

import os
from importlib import import_module
from typing import Any

from rocm_tune.core.errors import UserError

FORMATS = {
    "sh": "run.sh launcher script",
    "llamafactory": "LLaMA-Factory YAML",
    "deepspeed": "DeepSpeed JSON",
    "accelerate": "accelerate config",
    "slurm": "Slurm batch script",
}
DEFAULT_FORMATS = ("sh", "llamafactory", "deepspeed")


def _export():
    mod = import_module("rocm_tune.core.export")
    return mod


def render(plan_dict: dict | None, formats: list[str], opts: Any = None) -> dict[str, str]:
    if not plan_dict:
        raise UserError("no plan to export yet")
    if not formats:
        return {}
    mod = _export()
    fn = getattr(mod, "render_bundle", None) or mod.bundle_files
    files = fn(plan_dict, formats, opts)
    return {str(k): str(v) for k, v in dict(files).items()}


def existing(out_dir: str, names: list[str]) -> list[str]:
    return [n for n in names if os.path.exists(os.path.join(os.path.expanduser(out_dir), n))]


def write(plan_dict: dict | None, formats: list[str], out_dir: str, force: bool, opts: Any = None) -> list[str]:
    mod = _export()
    fn = getattr(mod, "write_bundle", None)
    out_dir = os.path.expanduser(out_dir)
    if fn is None:
        raise UserError("the bundle writer has no write_bundle() yet")
    res: Any = fn(plan_dict, formats, out_dir, force=force, opts=opts)
    return [str(p) for p in (res or [])]
