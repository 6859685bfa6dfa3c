"""Export a plan as a ready-to-run bundle: run.sh, llamafactory.yaml, deepspeed.json, accelerate.yaml,
slurm.sbatch and plan.json. One module per target (shell, llamafactory, deepspeed, accelerate, slurm);
`bundle` assembles and writes them. Every renderer takes the plan.json dict (docs/internals.md).
"""

from __future__ import annotations

from pathlib import Path


def render_bundle(plan: dict, formats, opts=None, dataset: str | None = None) -> dict:
    """{file name: text} of the bundle for `formats` (a list or a comma string; "all")."""
    from rocm_tune.core.export.bundle import build_bundle, parse_formats
    from rocm_tune.core.export.common import ExportOptions

    fmts = parse_formats(formats if isinstance(formats, str) else ",".join(formats))
    return dict(build_bundle(plan, fmts, opts or ExportOptions(), dataset=dataset).files)


def write_bundle(plan: dict, formats, out_dir: str, force: bool = False, opts=None,
                 dataset: str | None = None) -> list[Path]:
    """Render and write the bundle atomically into out_dir; UserError if a file exists and not force."""
    from rocm_tune.core.export import bundle as b
    from rocm_tune.core.export.common import ExportOptions

    fmts = b.parse_formats(formats if isinstance(formats, str) else ",".join(formats))
    return b.write_bundle(b.build_bundle(plan, fmts, opts or ExportOptions(), dataset=dataset), out_dir, force)


__all__ = ["render_bundle", "write_bundle"]
