"""Export a plan as a ready-to-run bundle: run.sh, llamafactory.yaml, deepspeed.json, accelerate.yaml,
slurm.sbatch, dataset_info.json and plan.json. One module per target (shell, llamafactory, deepspeed,
accelerate, slurm); `launch` decides the command that starts the training (`LaunchSpec`, shared by run.sh
and `rocm_tune.core.runs.launch.plan_launch`); `bundle` assembles and writes them. Everything takes the typed
`rocm_tune.core.plan.plan.Plan`.
"""

from __future__ import annotations

from pathlib import Path

from rocm_tune.core.export.bundle import Bundle, build_bundle, parse_formats
from rocm_tune.core.export.bundle import write_bundle as _write
from rocm_tune.core.export.common import ExportOptions
from rocm_tune.core.export.launch import EnvRef, LaunchSpec
from rocm_tune.core.plan.plan import Plan


def _formats(formats) -> tuple[str, ...]:
    return parse_formats(formats if isinstance(formats, str) else ",".join(formats))


def render_bundle(plan: Plan, formats, opts: ExportOptions | None = None, dataset: str | None = None) -> dict:
    """{file name: text} of the bundle for `formats` (a list or a comma string; "all")."""
    return dict(build_bundle(plan, _formats(formats), opts or ExportOptions(), dataset=dataset).files)


def write_bundle(plan: Plan, formats, out_dir: str, force: bool = False, opts: ExportOptions | None = None,
                 dataset: str | None = None) -> list[Path]:
    """Render and write the bundle (all or nothing) into out_dir; UserError if a file exists and not force."""
    return _write(build_bundle(plan, _formats(formats), opts or ExportOptions(), dataset=dataset), out_dir, force)


__all__ = ["Bundle", "EnvRef", "ExportOptions", "LaunchSpec", "build_bundle", "render_bundle", "write_bundle"]
