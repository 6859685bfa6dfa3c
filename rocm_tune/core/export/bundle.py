"""Assemble the export bundle (which files, their dependencies) and write it atomically.

Formats: ``sh`` (run.sh), ``llamafactory`` (llamafactory.yaml), ``deepspeed`` (deepspeed.json),
``accelerate`` (accelerate.yaml), ``slurm`` (slurm.sbatch), ``all``. plan.json is always written.
A file another one refers to comes along (run.sh needs llamafactory.yaml; ZeRO plans need
deepspeed.json; the accelerate launcher needs accelerate.yaml), so the bundle runs as is.
A dataset given as a file gets its own dataset_info.json entry in the bundle.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from rocm_tune.core.errors import UserError
from rocm_tune.core.export import accelerate, deepspeed, llamafactory, shell, slurm
from rocm_tune.core.export.common import (
    ACCEL_YAML,
    DATASET_INFO,
    HOSTFILE,
    DS_JSON,
    LF_YAML,
    PLAN_JSON,
    RUN_SH,
    SLURM,
    TRAINERS,
    ExportOptions,
    Resolved,
    resolve,
)
from rocm_tune.core.files import atomic_write_text

FORMATS = ("sh", "llamafactory", "deepspeed", "accelerate", "slurm")
FILE_OF = {"sh": RUN_SH, "llamafactory": LF_YAML, "deepspeed": DS_JSON, "accelerate": ACCEL_YAML, "slurm": SLURM}
_ALIASES = {"run.sh": "sh", "bash": "sh", "shell": "sh", "lf": "llamafactory", "llama-factory": "llamafactory",
            "yaml": "llamafactory", "ds": "deepspeed", "sbatch": "slurm"}
EXECUTABLE = (RUN_SH, SLURM)


@dataclass(frozen=True)
class Bundle:
    files: dict  # file name -> text, in writing order
    formats: tuple[str, ...]  # formats after dependencies
    notes: tuple[str, ...]
    resolved: Resolved


def parse_formats(text: str) -> tuple[str, ...]:
    """Formats named by --format; "all" is expanded later (deepspeed only when the plan uses ZeRO)."""
    items = [t.strip().lower() for t in str(text).split(",") if t.strip()]
    if not items:
        raise UserError(f"--format is empty; expected a comma list of {', '.join(FORMATS)} or all")
    out: list[str] = []
    for item in items:
        if item == "all":
            if "all" not in out:
                out.append("all")
            continue
        name = _ALIASES.get(item, item)
        if name not in FORMATS:
            raise UserError(f"--format {item!r} is not known; expected a comma list of {', '.join(FORMATS)} or all")
        if name not in out:
            out.append(name)
    return tuple(out)


_NAME_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def dataset_entry(path: str) -> tuple[str, dict]:
    """(name, dataset_info.json entry) for a local dataset file, with the detected format mapping."""
    from rocm_tune.core.dataset import detect, read_records, sample_keys

    p = Path(os.path.expanduser(path)).resolve()
    if not p.is_file():
        raise UserError(f"dataset file {path!r} does not exist (a dataset_info.json folder goes in --dataset-dir)")
    records = read_records(p)
    if not records:
        raise UserError(f"dataset {p} has no samples")
    a = detect(records[0], str(p), sample_keys(records))
    name = _NAME_SAFE.sub("_", p.stem).strip("_") or "dataset"
    entry: dict = {"file_name": str(p)}
    if a.formatting == "sharegpt":
        entry["formatting"] = "sharegpt"
        if a.ranking:
            entry["ranking"] = True
        cols = {"messages": a.columns["messages"]}
        for k in ("system", "tools", "chosen", "rejected"):
            if a.columns.get(k):
                cols[k] = a.columns[k]
        entry["columns"] = cols
        if a.tags.get("role_tag") == "role":
            entry["tags"] = {
                "role_tag": "role", "content_tag": "content", "user_tag": "user",
                "assistant_tag": "assistant", "observation_tag": "tool", "system_tag": "system",
            }
    else:
        if a.ranking:
            entry["ranking"] = True
        keys = sample_keys(records)
        cols = {}
        for k in ("prompt", "query", "response", "system", "history", "chosen", "rejected"):
            v = a.columns.get(k)
            if v and v in keys and not (k == "response" and a.ranking):
                cols[k] = v
        entry["columns"] = cols
    return name, entry


def _preset_hub_id(ref: str) -> str | None:
    """The Hugging Face id behind a rocm-tune preset name (LLaMA-Factory cannot load a preset name)."""
    try:
        from rocm_tune.core.model import load_model

        spec = load_model(ref)
    except (UserError, ImportError, OSError, ValueError):
        return None
    if getattr(spec, "source", None) == "preset" and getattr(spec, "hub_id", None) and spec.hub_id != ref:
        return str(spec.hub_id)
    return None


def _abs_if_relative(path: str) -> str:
    p = os.path.expanduser(path)
    return p if os.path.isabs(p) else os.path.abspath(p)


def build_bundle(plan: dict, formats: tuple[str, ...], opts: ExportOptions, dataset: str | None = None) -> Bundle:
    """All files of the bundle as text. `dataset`: a local file or a dataset_info.json folder."""
    if opts.trainer not in TRAINERS:
        raise UserError(f"--trainer {opts.trainer!r} is not known; expected one of: {', '.join(TRAINERS)}")
    notes: list[str] = []
    extra_files: dict[str, str] = {}
    # model path: local paths absolute (run.sh changes directory), hub ids as they are
    plan_model = plan.get("model") if isinstance(plan.get("model"), dict) else {}
    model = opts.model or plan_model.get("ref")
    if model and os.path.exists(os.path.expanduser(str(model))):
        opts = opts.with_(model=os.path.abspath(os.path.expanduser(str(model))))
    elif model and not opts.model:
        hub = _preset_hub_id(str(model))
        if hub:
            opts = opts.with_(model=hub)
            notes.append(f"model_name_or_path: {hub} (hub id of preset {model}); --model-path points at a local copy")
    if opts.output_dir != "output":
        opts = opts.with_(output_dir=_abs_if_relative(opts.output_dir))
    # dataset
    if dataset is None and not opts.dataset_name:
        goal = plan.get("goal") if isinstance(plan.get("goal"), dict) else {}
        if isinstance(goal.get("dataset"), str) and goal.get("dataset"):
            dataset = goal["dataset"]
    if opts.dataset_name:
        if opts.dataset_dir:
            opts = opts.with_(dataset_dir=_abs_if_relative(opts.dataset_dir))
        elif dataset and Path(os.path.expanduser(dataset)).is_dir():
            opts = opts.with_(dataset_dir=_abs_if_relative(dataset))
    elif dataset:
        dp = Path(os.path.expanduser(dataset))
        if dp.is_dir():
            info = dp / "dataset_info.json"
            if not info.is_file():
                raise UserError(f"dataset folder {dataset!r} has no dataset_info.json; pass a dataset file instead")
            try:
                names = list(json.loads(info.read_text(encoding="utf-8")))
            except (ValueError, OSError) as exc:
                raise UserError(f"cannot read {info}: {exc}") from None
            if len(names) != 1:
                raise UserError(f"{info} lists {len(names)} datasets; choose one with --dataset-name: {', '.join(names)}")
            opts = opts.with_(dataset_name=names[0], dataset_dir=str(dp.resolve()))
        else:
            name, entry = dataset_entry(dataset)
            extra_files[DATASET_INFO] = json.dumps({name: entry}, indent=2, ensure_ascii=False) + "\n"
            opts = opts.with_(dataset_name=name, dataset_dir=".")
            notes.append(f"{DATASET_INFO}: entry {name!r} for {entry['file_name']} ({entry.get('formatting', 'alpaca')})")
    r = resolve(plan, opts)
    for f in formats:
        if f not in FORMATS + ("all",):
            raise UserError(f"format {f!r} is not known; expected {', '.join(FORMATS)} or all")
    wanted = [f for f in formats if f != "all"]
    if "all" in formats:
        for f in FORMATS:
            if f == "deepspeed" and not r.uses_deepspeed and f not in wanted:
                notes.append("no deepspeed.json: the plan uses no ZeRO (zero_stage 0)")
                continue
            if f not in wanted:
                wanted.append(f)

    def need(fmt: str, why: str) -> None:
        if fmt not in wanted:
            wanted.append(fmt)
            notes.append(f"added {FILE_OF[fmt]}: {why}")

    if "sh" in wanted or "slurm" in wanted:
        need("llamafactory", "the launch scripts run it")
    if r.launcher == "accelerate" and "sh" in wanted:
        need("accelerate", "run.sh starts `accelerate launch --config_file accelerate.yaml`")
    if r.uses_deepspeed and any(f in wanted for f in ("llamafactory", "accelerate")):
        need("deepspeed", f"ZeRO stage {r.zero_stage} is configured there")
    if "deepspeed" in wanted and not r.uses_deepspeed:
        notes.append("deepspeed.json: the plan uses no ZeRO (zero_stage 0), so llamafactory.yaml does not refer to it")
    if r.launcher == "deepspeed" and not r.uses_deepspeed:
        notes.append("the deepspeed launcher with zero_stage 0 runs plain data parallel")
    files: dict[str, str] = {}
    for fmt in FORMATS:  # stable order
        if fmt not in wanted:
            continue
        if fmt == "sh":
            files[RUN_SH] = shell.render(r, plan, opts)
        elif fmt == "llamafactory":
            files[LF_YAML] = llamafactory.render(r, opts)
        elif fmt == "deepspeed":
            files[DS_JSON] = deepspeed.render(r, opts)
        elif fmt == "accelerate":
            files[ACCEL_YAML] = accelerate.render(r, opts)
        elif fmt == "slurm":
            files[SLURM] = slurm.render(r, plan, opts)
    if "sh" in wanted and r.launcher == "deepspeed" and r.nodes > 1:
        files[HOSTFILE] = deepspeed.hostfile(r)
    files.update(extra_files)
    files[PLAN_JSON] = json.dumps(plan, indent=2, ensure_ascii=False) + "\n"
    notes += list(r.notes)
    return Bundle(files=files, formats=tuple(f for f in FORMATS if f in wanted), notes=tuple(notes), resolved=r)


def write_bundle(bundle: Bundle, out_dir: str, force: bool = False) -> list[Path]:
    """Write every file of the bundle into out_dir (created if missing). Existing files are an error
    without force, checked for all files before anything is written."""
    out = Path(os.path.expanduser(out_dir))
    if out.exists() and not out.is_dir():
        raise UserError(f"-o {out_dir!r} exists and is not a directory")
    in_the_way = [name for name in bundle.files if (out / name).is_dir()]
    if in_the_way:  # checked before anything is written, --force or not
        raise UserError(f"{out / in_the_way[0]} is a directory; remove it or choose another -o")
    if not force and out.is_dir():
        existing = [name for name in bundle.files if (out / name).exists()]
        if existing:
            more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
            raise UserError(f"{out / existing[0]} already exists{more}; use --force to overwrite")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {out_dir!r}: {exc.strerror or exc}") from None
    written = []
    for name, text in bundle.files.items():
        target = out / name
        try:
            atomic_write_text(target, text, mode=0o755 if name in EXECUTABLE else 0o644, fsync=True)
        except OSError as exc:
            raise UserError(f"cannot write {target}: {exc.strerror or exc}") from None
        written.append(target)
    return written
