"""Assemble the export bundle (which files, their dependencies) and write it atomically.

Formats: ``sh`` (run.sh), ``llamafactory`` (llamafactory.yaml), ``deepspeed`` (deepspeed.json),
``accelerate`` (accelerate.yaml), ``slurm`` (slurm.sbatch), ``all``; other runners' files, only when named and
never in ``all``: ``torchtune`` (torchtune.yaml + tune_run.sh), ``swift`` (swift_sft.sh, the ms-swift command),
``axolotl`` (axolotl.yaml + axolotl.sh). plan.json is always written.
A file another one refers to comes along (run.sh needs llamafactory.yaml; ZeRO plans need
deepspeed.json; the accelerate launcher needs accelerate.yaml), so the bundle runs as is.
A dataset given as a file gets its own dataset_info.json entry in the bundle.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rocm_tune.core.errors import UserError
from rocm_tune.core.export import accelerate, axolotl, deepspeed, llamafactory, shell, slurm, swift, torchtune
from rocm_tune.core.export.common import (
    ACCEL_YAML,
    DATASET_INFO,
    HOSTFILE,
    LF_CALLBACKS,
    LF_LAUNCH,
    DS_JSON,
    LF_YAML,
    PLAN_JSON,
    RUN_SH,
    SLURM,
    ExportOptions,
    Resolved,
    resolve,
)
from rocm_tune.core.export.launch import LaunchSpec, launch_spec
from rocm_tune.core.plan.plan import Plan

FORMATS = ("sh", "llamafactory", "deepspeed", "accelerate", "slurm", "torchtune", "swift", "axolotl")
FILE_OF = {"sh": RUN_SH, "llamafactory": LF_YAML, "deepspeed": DS_JSON, "accelerate": ACCEL_YAML, "slurm": SLURM,
           "torchtune": torchtune.CONFIG_FILE, "swift": swift.SWIFT_SH, "axolotl": axolotl.YAML_FILE}
# another runner's own files: written when named, never by "all" (each refuses what its runner cannot run)
OTHER_RUNNERS = ("torchtune", "swift", "axolotl")
_ALIASES = {"run.sh": "sh", "bash": "sh", "shell": "sh", "lf": "llamafactory", "llama-factory": "llamafactory",
            "yaml": "llamafactory", "ds": "deepspeed", "sbatch": "slurm", "tune": "torchtune",
            "ms-swift": "swift", "ms_swift": "swift", "axolotl.yaml": "axolotl"}
EXECUTABLE = (RUN_SH, SLURM, torchtune.SCRIPT_FILE, swift.SWIFT_SH, axolotl.SCRIPT)


@dataclass(frozen=True)
class Bundle:
    files: dict  # file name -> text, in writing order
    formats: tuple[str, ...]  # formats after dependencies
    notes: tuple[str, ...]
    resolved: Resolved
    launch: LaunchSpec  # what run.sh starts (cwd "." = the bundle directory)
    # how it was built: write_bundle renders it again for its directory when opts.bundle_dir was not set,
    # so the YAML's deepspeed/output_dir/dataset_dir and slurm.sbatch name absolute paths in the bundle
    source: tuple | None = None  # (plan, formats, opts, dataset)


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
    from rocm_tune.core.data.dataset import detect, read_records, sample_keys

    p = Path(os.path.expanduser(path))
    if not p.is_file():  # before resolve(): a symlink loop is "does not exist", not a RuntimeError
        raise UserError(f"dataset file {path!r} does not exist (a dataset_info.json folder goes in --dataset-dir)")
    p = p.resolve()
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
    """The Hugging Face id behind a rocm-tune preset name (LLaMA-Factory cannot load a preset name). The plan
    names the model by its ref only, so a preset name is looked up in the presets; a hub id (owner/name)
    or a path is written as it is, nothing loaded."""
    if "/" in ref or os.sep in ref:
        return None
    from rocm_tune.core.model.architecture import load_model

    try:
        spec = load_model(ref)
    except UserError:
        return None
    if spec.source == "preset" and spec.hub_id and spec.hub_id != ref:
        return str(spec.hub_id)
    return None


def _abs_if_relative(path: str) -> str:
    p = os.path.expanduser(path)
    return p if os.path.isabs(p) else os.path.abspath(p)


def _model_path(plan: Plan, opts: ExportOptions, notes: list[str]) -> ExportOptions:
    """model_name_or_path: --model-path, else the plan's ref (local paths made absolute: run.sh changes
    directory); a rocm-tune preset name becomes its hub id (LLaMA-Factory cannot load a preset name)."""
    model = opts.model or plan.model.ref
    if os.path.exists(os.path.expanduser(model)):
        return opts.with_(model=os.path.abspath(os.path.expanduser(model)))
    if not opts.model:
        hub = _preset_hub_id(model)
        if hub:
            base = _base_variant(model, hub)
            notes.append(f"model_name_or_path: {hub} (hub id of preset {model}"
                         + (f", the instruct/chat weights; --model-path {base} for the base weights" if base else "")
                         + "); --model-path points at a local copy")
            return opts.with_(model=hub)
    return opts


_TUNED = re.compile(r"[-_](instruct|chat|it)(?=$|[-_])", re.I)


def _base_variant(ref: str, hub: str) -> str | None:
    """The base (pre-trained) weights' hub id among a preset's aliases when its hub id is an instruct/chat
    model (Qwen/Qwen2.5-7B-Instruct -> Qwen/Qwen2.5-7B), else None."""
    if not _TUNED.search(hub):
        return None
    from rocm_tune.core.model.architecture import load_model

    try:
        spec = load_model(ref)
    except UserError:
        return None
    want = _TUNED.sub("", hub).lower()
    for alias in spec.aliases:
        if "/" in alias and alias.lower() == want:
            return str(alias)
    return None


def _dataset(plan: Plan, opts: ExportOptions, dataset: str | None, notes: list[str],
             extra_files: dict[str, str]) -> ExportOptions:
    """LLaMA-Factory's dataset/dataset_dir for --dataset (a file or a dataset_info.json folder),
    --dataset-name/--dataset-dir, or the plan's goal.dataset."""
    if dataset is None and not opts.dataset_name and plan.goal.dataset:
        dataset = plan.goal.dataset
    if opts.dataset_name:  # names in a dataset_info.json folder, checked when it is readable here
        from rocm_tune.core.export.datasets import export_options

        return export_options(opts, dataset, notes)
    if not dataset:
        return opts
    dp = Path(os.path.expanduser(dataset))
    if opts.dataset_dir:
        raise UserError(f"--dataset-dir {opts.dataset_dir!r} applies with --dataset-name; --dataset {dataset!r} "
                        "is used as it is (drop one of them)")
    if dp.is_dir():
        info = dp / "dataset_info.json"
        if not info.is_file():
            raise UserError(f"dataset folder {dataset!r} has no dataset_info.json; pass a dataset file instead")
        from rocm_tune.core.files import MAX_CONFIG_BYTES, read_json

        # the shared reader: a regular file, bounded size and nesting (deep JSON is one line, not a RecursionError)
        names = [str(n) for n in read_json(info, "dataset list", hint=" of dataset entries",
                                           max_bytes=MAX_CONFIG_BYTES)]
        if len(names) != 1:
            raise UserError(f"{info} lists {len(names)} datasets; choose one with --dataset-name: {', '.join(names)}")
        return opts.with_(dataset_name=names[0], dataset_dir=str(dp.resolve()))
    name, entry = dataset_entry(dataset)
    extra_files[DATASET_INFO] = json.dumps({name: entry}, indent=2, ensure_ascii=False) + "\n"
    notes.append(f"{DATASET_INFO}: entry {name!r} for {entry['file_name']} ({entry.get('formatting', 'alpaca')})")
    return opts.with_(dataset_name=name, dataset_dir=".")


def launcher_files() -> dict[str, str]:
    """The bundle's own copies of rocm_tune/train/lf_launch.py and callbacks.py (standard library at import), so
    run.sh starts LLaMA-Factory through them on a training machine where rocm-tune is not installed. Read as
    text: core imports nothing from train."""
    train = Path(__file__).resolve().parents[2] / "train"
    return {LF_LAUNCH: (train / "lf_launch.py").read_text(encoding="utf-8"),
            LF_CALLBACKS: (train / "callbacks.py").read_text(encoding="utf-8")}


def build_bundle(plan: Plan, formats: tuple[str, ...], opts: ExportOptions, dataset: str | None = None) -> Bundle:
    """All files of the bundle as text, and the launch spec of its run.sh.
    `dataset`: a local file or a dataset_info.json folder (default: the plan's goal.dataset)."""
    source = (plan, formats, opts, dataset)
    notes: list[str] = []
    extra_files: dict[str, str] = {}
    opts = _model_path(plan, opts, notes)
    if opts.output_dir != "output":
        opts = opts.with_(output_dir=_abs_if_relative(opts.output_dir))
    swift_data = swift.dataset_arg(plan.goal.dataset, opts, dataset) if "swift" in formats else None
    opts = _dataset(plan, opts, dataset, notes, extra_files)
    r = torchtune.resolve_for(plan, opts) if set(formats) == {"torchtune"} else resolve(plan, opts)
    for f in formats:
        if f not in FORMATS + ("all",):
            raise UserError(f"format {f!r} is not known; expected {', '.join(FORMATS)} or all")
    wanted = [f for f in formats if f != "all"]
    if "all" in formats:
        for f in FORMATS:
            if f in OTHER_RUNNERS:
                continue
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
    if r.uses_deepspeed and any(f in wanted for f in ("llamafactory", "accelerate", "axolotl")):
        need("deepspeed", f"ZeRO stage {r.zero_stage} is configured there")
    if "swift" in wanted and swift.ms_swift.needs_ds_json(r):
        need("deepspeed", f"ms-swift has no named config for ZeRO-{r.zero_stage} with offload {r.offload}")
    if "deepspeed" in wanted and not r.uses_deepspeed:
        notes.append("deepspeed.json: the plan uses no ZeRO (zero_stage 0), so llamafactory.yaml does not refer to it")
    if r.launcher == "deepspeed" and not r.uses_deepspeed:
        notes.append("the deepspeed launcher with zero_stage 0 runs plain data parallel")
    spec = torchtune.launch_spec() if r.runner == "torchtune" else launch_spec(r, opts)
    files: dict[str, str] = {}
    for fmt in FORMATS:  # stable order
        if fmt not in wanted:
            continue
        if fmt == "sh":
            files[RUN_SH] = shell.render(r, opts, spec)
        elif fmt == "llamafactory":
            files[LF_YAML] = llamafactory.render(r, opts)
        elif fmt == "deepspeed":
            files[DS_JSON] = deepspeed.render(r, opts)
        elif fmt == "accelerate":
            files[ACCEL_YAML] = accelerate.render(r, opts)
        elif fmt == "slurm":
            files[SLURM] = slurm.render(r, opts, plan.to_dict())
        elif fmt == "torchtune":
            tt_files, tt_notes = torchtune.render(r, opts, extra_files)
            files.update(tt_files)
            notes += tt_notes
        elif fmt == "swift":
            files[swift.SWIFT_SH] = swift.render(r, opts, str(swift_data))
        elif fmt == "axolotl":
            files.update(axolotl.render(r, opts, plan.model.ref, extra_files))
    if "sh" in wanted and r.launcher == "deepspeed" and r.nodes > 1:
        files[HOSTFILE] = deepspeed.hostfile(r)
    if r.runner == "llamafactory" and ("sh" in wanted or "slurm" in wanted):
        files.update(launcher_files())
    if "swift" in wanted and not {"sh", "slurm", "llamafactory"} & set(wanted):   # ms-swift reads the file itself
        extra_files.pop(DATASET_INFO, None)
        notes = [n for n in notes if not n.startswith(DATASET_INFO)]
    files.update(extra_files)
    files[PLAN_JSON] = json.dumps(plan.to_dict(), indent=2, ensure_ascii=False) + "\n"
    notes += list(r.notes)
    return Bundle(files=files, formats=tuple(f for f in FORMATS if f in wanted), notes=tuple(notes), resolved=r,
                  launch=spec, source=source)


def _umask() -> int:
    """The process umask without changing it (os.umask would race with other threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _looks_like_a_bundle(out: Path) -> bool:
    """A directory an earlier export wrote (its plan.json and run.sh or llamafactory.yaml are there)."""
    return (out / PLAN_JSON).is_file() and any((out / n).is_file() for n in (RUN_SH, LF_YAML, DS_JSON, SLURM,
                                                                            torchtune.CONFIG_FILE, swift.SWIFT_SH,
                                                                            axolotl.YAML_FILE))


def _oserror(exc: OSError, out_dir: str) -> UserError:
    why = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        why = "no space left on device"
    return UserError(f"cannot write the bundle to {out_dir!r}: {why}; nothing was written")


def _write_files(folder: Path, files: dict) -> None:
    for name, text in files.items():
        target = folder / name
        with open(target, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(target, 0o755 if name in EXECUTABLE else 0o644)


def write_bundle(bundle: Bundle, out_dir: str, force: bool = False) -> list[Path]:
    """Write every file of the bundle into out_dir, all or nothing.

    out_dir must be new, empty, or an earlier bundle (else --force). Existing files (a dangling symlink
    included) are an error without force, checked before anything is written. The files are written
    into a temporary directory first: a new out_dir is that directory renamed; into an existing one
    each file is renamed into place after all of them were written. A failure (a full disk) leaves
    nothing behind, so the retry needs no --force."""
    out = Path(os.path.expanduser(out_dir))
    if bundle.source is not None and bundle.source[2].bundle_dir is None:
        plan, formats, opts, dataset = bundle.source
        bundle = build_bundle(plan, formats, opts.with_(bundle_dir=os.path.abspath(out)), dataset=dataset)
    from rocm_tune.core.files import directory_path

    directory_path(out_dir, "-o")  # -o or a folder above it a dangling symlink / symlink loop: refused
    if os.path.lexists(out) and not out.is_dir():
        raise UserError(f"-o {out_dir!r} exists and is not a directory")
    exists = out.is_dir()
    if exists:
        in_the_way = [n for n in bundle.files if (out / n).is_dir() and not (out / n).is_symlink()]
        if in_the_way:  # checked before anything is written, --force or not
            raise UserError(f"{out / in_the_way[0]} is a directory; remove it or choose another -o")
        if not force:
            try:
                entries = [e for e in os.listdir(out) if not e.startswith(".rocm-tune-export.")]
            except OSError as exc:
                raise UserError(f"cannot read -o {out_dir!r}: {exc.strerror or exc}") from None
            existing = [n for n in bundle.files if os.path.lexists(out / n)]
            if existing:
                more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
                raise UserError(f"{out / existing[0]} already exists{more}; use --force to overwrite")
            if entries and not _looks_like_a_bundle(out):
                raise UserError(f"-o {out_dir!r} is a directory with other files in it; give an empty or new "
                                "directory for the bundle (or --force to write into it)")
    created: list[Path] = []  # parent directories made here, removed again on failure
    tmp: Path | None = None
    try:
        if exists:
            tmp = Path(tempfile.mkdtemp(prefix=".rocm-tune-export.", dir=str(out)))
        else:
            parent = out.parent
            missing = []
            while not parent.is_dir():
                missing.append(parent)
                parent = parent.parent
            for d in reversed(missing):
                d.mkdir()
                created.append(d)
            tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.rocm-tune-export.", dir=str(out.parent)))
        _write_files(tmp, bundle.files)
        if exists:
            for name in bundle.files:
                os.replace(tmp / name, out / name)
            tmp.rmdir()
        else:
            os.chmod(tmp, 0o777 & ~_umask())
            os.rename(tmp, out)
        tmp = None
    except OSError as exc:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        for d in reversed(created):
            try:
                d.rmdir()
            except OSError:
                pass
        if isinstance(exc, FileExistsError) and not exists:
            raise UserError(f"-o {out_dir!r} was created by someone else while exporting; try again") from None
        raise _oserror(exc, out_dir) from None
    return [out / name for name in bundle.files]
