"""`--format torchtune`: torchtune.yaml (a torchtune recipe config) and tune_run.sh (`tune run RECIPE --config
torchtune.yaml`). The writer lives with torchtune's reader and defaults in `rocm_tune.core.runners.torchtune`; this
module only finds the dataset the bundle names (the dataset_info.json entry `--dataset FILE` made, or the one of
`--dataset-name` in `--dataset-dir`)."""

from __future__ import annotations

import json
import os

from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import DATASET_INFO, ExportOptions, Resolved
from rocm_tune.core.export.launch import LaunchSpec
from rocm_tune.core.runners import torchtune

CONFIG_FILE = torchtune.CONFIG_FILE
SCRIPT_FILE = torchtune.SCRIPT_FILE


def dataset_entry(opts: ExportOptions, extra_files: dict[str, str]) -> dict | None:
    """The dataset_info.json entry of the bundle's dataset (its file_name absolute), None when none is named."""
    if DATASET_INFO in extra_files:                    # --dataset FILE: the entry the bundle writes
        return next(iter(json.loads(extra_files[DATASET_INFO]).values()))
    if not opts.dataset_name:
        return None
    names = [n.strip() for n in opts.dataset_name.split(",")]
    info = os.path.join(os.path.expanduser(opts.dataset_dir or ""), "dataset_info.json")
    try:
        with open(info, encoding="utf-8") as fh:
            entries = json.load(fh)
    except (OSError, ValueError):
        entries = {}
    entry = entries.get(names[0]) if isinstance(entries, dict) and len(names) == 1 else None
    if not isinstance(entry, dict) or not entry.get("file_name"):
        raise UserError(f"--format torchtune: dataset {opts.dataset_name}: a LLaMA-Factory dataset name torchtune "
                        "cannot read; pass --dataset FILE (a json/jsonl/parquet/csv file)")
    path = os.path.join(os.path.dirname(os.path.abspath(info)), os.path.expanduser(str(entry["file_name"])))
    return {**entry, "file_name": path}


def render(r: Resolved, opts: ExportOptions, extra_files: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """({torchtune.yaml, tune_run.sh: text}, notes)."""
    return torchtune.write(r, opts, dataset_entry(opts, extra_files))


def resolve_for(plan, opts: ExportOptions) -> Resolved:
    """The plan's numbers for a bundle of torchtune's files only: resolved as the built-in trainer's (torchtune
    runs the same one-dtype regime; LLaMA-Factory's own refusals do not apply), stage checked first."""
    from dataclasses import replace

    from rocm_tune.core.export.common import resolve

    if plan.goal.stage != "sft":
        torchtune.refuse(f"stage {plan.goal.stage}", "the torchtune format writes the SFT recipes "
                         "({full,lora}_finetune_*)")
    r = resolve(plan, opts.with_(runner="builtin", launcher=None))
    dtype = "bf16" if r.precision == "pure_bf16" else r.precision
    return replace(r, runner="torchtune", launcher="tune run", execution=(f"torchtune {torchtune.recipe(r)}: weights, gradients and "
                                                     f"optimizer state in {dtype}, no autocast",))


def launch_spec() -> LaunchSpec:
    """What starts a torchtune bundle: its tune_run.sh, from the bundle's folder."""
    return LaunchSpec(argv=("bash", SCRIPT_FILE), lines=(2,),
                      program=f"torchtune's `tune` (pip install torchtune=={torchtune.VERSION} torchao)")
