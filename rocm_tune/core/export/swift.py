"""`swift_sft.sh`: the plan as the ms-swift command a ms-swift user runs (`export --format swift`).

The arguments and what ms-swift cannot express live with ms-swift's reader and defaults in
`rocm_tune.core.runners.ms_swift` (issue 24: one home per runner); this module adds what the bundle knows: the
header, the plan's environment, the model path and the dataset ms-swift's `--dataset` takes (a data file, or a
hub dataset id).
"""

from __future__ import annotations

import os
from pathlib import Path

from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import DS_JSON, ExportOptions, Resolved, comment
from rocm_tune.core.runners import ms_swift

SWIFT_SH = ms_swift.SWIFT_SH


def header(r: Resolved, opts: ExportOptions) -> list[str]:
    ver = f" {opts.tool_version}" if opts.tool_version else ""
    lines = [f"# ms-swift training script, written by rocm-tune{ver} export from plan.json",
             "# " + comment(f"model {r.model_name}: {r.method} ({r.stage}), {r.precision}, max_length {r.cutoff_len}, "
                            f"micro-batch {r.micro_batch} x accumulation {r.grad_accum} on {r.gpus} x {r.gpu_name}"
                            + (f" x {r.nodes} nodes" if r.nodes > 1 else "")),
             f"# effective batch = {r.micro_batch} x {r.grad_accum} x {r.world_size} GPU(s) = "
             f"{r.micro_batch * r.grad_accum * r.world_size}"]
    for code, message, fix in r.warnings:
        lines.append(f"# warning [{comment(code)}]: {comment(message)}" + (f" Fix: {comment(fix)}" if fix else ""))
    return lines


def _named_file(name: str, dataset_dir: str) -> str:
    """The data file of a dataset_info.json entry (LLaMA-Factory's names mean nothing to ms-swift)."""
    from rocm_tune.core.files import MAX_CONFIG_BYTES, read_json

    folder = Path(os.path.expanduser(dataset_dir))
    info = folder / "dataset_info.json"
    if not info.is_file():
        raise UserError(f"--dataset-name {name!r}: {info} is not readable here, and ms-swift needs the data file "
                        "itself; pass --dataset FILE")
    entry = read_json(info, "dataset list", max_bytes=MAX_CONFIG_BYTES).get(name)
    if not isinstance(entry, dict) or not entry.get("file_name"):
        raise UserError(f"--dataset-name {name!r}: {info} names no file_name for it; pass --dataset FILE")
    return str((folder / str(entry["file_name"])).resolve())


def dataset_arg(plan_dataset: str | None, opts: ExportOptions, dataset: str | None) -> str:
    """ms-swift's --dataset: a local file (absolute), a hub dataset id given as --dataset-name, or the file a
    dataset_info.json entry names. Read before the bundle turns a file into a dataset_info.json entry."""
    given = dataset if dataset is not None else (None if opts.dataset_name else plan_dataset)
    if given:
        p = Path(os.path.expanduser(given))
        if p.is_dir():
            raise UserError(f"--dataset {given!r} is a folder; ms-swift takes a data file (.json/.jsonl/.csv) or "
                            "a hub dataset id")
        if not p.is_file():
            raise UserError(f"dataset file {given!r} does not exist")
        return str(p.resolve())
    if opts.dataset_name:
        names = [n.strip() for n in str(opts.dataset_name).split(",") if n.strip()]
        if len(names) != 1:
            raise UserError(f"--dataset-name {opts.dataset_name!r}: give one dataset for ms-swift")
        from rocm_tune.core.export.datasets import PLACEHOLDER, is_hub_dir

        if names[0] == PLACEHOLDER:       # the app's marked stand-in when no dataset is given: written as it is
            return PLACEHOLDER
        if opts.dataset_dir and not is_hub_dir(opts.dataset_dir):
            return _named_file(names[0], opts.dataset_dir)
        return names[0]                   # a hub dataset id (ModelScope / Hugging Face), as ms-swift reads it
    raise UserError(f"{SWIFT_SH} needs a dataset: pass --dataset FILE, or --dataset-name HUB_ID")


def render(r: Resolved, opts: ExportOptions, dataset: str) -> str:
    """The script's text; `dataset` from dataset_arg."""
    from rocm_tune.core.export.llamafactory import in_bundle

    ds_json = in_bundle(opts, DS_JSON) if ms_swift.needs_ds_json(r) else None
    out = opts.output_dir
    files = ms_swift.write(r, opts, opts.model or r.model_ref, dataset, out if os.path.isabs(out) else
                           in_bundle(opts, out), header(r, opts), r.env, ds_json)
    return files[SWIFT_SH]


__all__ = ["SWIFT_SH", "dataset_arg", "header", "render"]
