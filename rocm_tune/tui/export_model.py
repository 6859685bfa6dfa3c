"""The app's export: the same bundle `rocm-tune export --plan plan.json -o DIR` writes (no widgets here).

The options are `ExportOptions()`, the defaults of every `rocm-tune export` flag, and the formats default
to all of them (the CLI's `--format all`), so for the same plan the app and the CLI write the same file
set, byte for byte (tests/test_export_bundle.py proves it against a real `rocm-tune export`).
"""

from __future__ import annotations

import os
from pathlib import Path

from rocm_tune.core.errors import UserError
from rocm_tune.core.export import bundle as b
from rocm_tune.core.export.common import ExportOptions
from rocm_tune.core.plan.plan import Plan

FORMATS = {
    "sh": "run.sh launcher script",
    "llamafactory": "LLaMA-Factory YAML",
    "deepspeed": "DeepSpeed JSON",
    "accelerate": "accelerate config",
    "slurm": "Slurm batch script",
    "torchtune": "torchtune config + tune_run.sh",
    "swift": "ms-swift command (swift_sft.sh)",
    "axolotl": "Axolotl YAML + axolotl.sh",
}
# = `--format all`, the CLI's default; the formats for another runner (torchtune, ms-swift, Axolotl) are ticked by
# the user
DEFAULT_FORMATS = tuple(f for f in FORMATS if f not in b.OTHER_RUNNERS)


def _formats(formats: list[str]) -> tuple[str, ...]:
    """Every default format ticked is `all` (as the CLI's default: deepspeed.json only when the plan uses ZeRO),
    plus any other runner's format ticked."""
    if set(formats) >= set(DEFAULT_FORMATS):
        return ("all",) + tuple(f for f in FORMATS if f in b.OTHER_RUNNERS and f in formats)
    return b.parse_formats(",".join(formats))


def _bundle(plan_dict: dict | None, formats: list[str], opts: ExportOptions | None = None) -> b.Bundle:
    if not plan_dict:
        raise UserError("no plan to export yet")
    # the app keeps the plan as its plan.json dict: validated here, as `export --plan` validates the file
    return b.build_bundle(Plan.from_dict(plan_dict), _formats(formats), opts or ExportOptions())


def render(plan_dict: dict | None, formats: list[str], opts: ExportOptions | None = None) -> dict[str, str]:
    if not formats:
        return {}
    return dict(_bundle(plan_dict, formats, opts).files)


def existing(out_dir: str, names: list[str]) -> list[str]:
    return [n for n in names if os.path.lexists(os.path.join(os.path.expanduser(out_dir), n))]


def other_files(out_dir: str) -> bool:
    """out_dir is a folder that holds files of its own and is no earlier bundle: `export -o` refuses it without
    --force; the app asks first instead (none of those files is written over)."""
    out = Path(os.path.expanduser(out_dir))
    if not out.is_dir() or out.is_symlink():
        return False
    try:
        entries = [e for e in os.listdir(out) if not e.startswith(".rocm-tune-export.")]
    except OSError:
        return False
    return bool(entries) and not b._looks_like_a_bundle(out)


def write(plan_dict: dict | None, formats: list[str], out_dir: str, force: bool,
          opts: ExportOptions | None = None) -> list[str]:
    if not formats:
        raise UserError("nothing to write: choose at least one format")
    paths: list[Path] = b.write_bundle(_bundle(plan_dict, formats, opts), os.path.expanduser(out_dir), force=force)
    return [str(p) for p in paths]
