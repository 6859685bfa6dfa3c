"""The run registry: `$XDG_STATE_HOME/rocm-tune/runs/` (default `~/.local/state/rocm-tune/runs/`).

Each run directory lives there, named by its id, unless `--dir` placed it elsewhere; then a small
pointer file `<id>.json` = {"id": ..., "dir": ...} is registered instead. Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

from rocm_tune.core.errors import UserError
from rocm_tune.core.runs.rundir import RUN_JSON, RunInfo, load_run, read_json, write_json_atomic


def state_home() -> Path:
    base = os.environ.get("XDG_STATE_HOME")
    if base and os.path.isabs(base):
        return Path(base)
    return Path.home() / ".local" / "state"


def runs_root() -> Path:
    """The registry folder (not created here)."""
    return state_home() / "rocm-tune" / "runs"


def register_pointer(run_id: str, run_dir: str | os.PathLike, root: str | os.PathLike | None = None) -> Path:
    reg = Path(root) if root else runs_root()
    reg.mkdir(parents=True, exist_ok=True)
    path = reg / f"{run_id}.json"
    write_json_atomic(path, {"id": run_id, "dir": str(Path(run_dir).resolve())})
    return path


def _run_dirs(root: Path) -> list[Path]:
    """Every registered run directory (own dirs and pointers), existing ones only."""
    out: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return out
    seen: set[str] = set()
    for e in entries:
        try:
            if e.is_dir() and os.path.exists(os.path.join(e.path, RUN_JSON)):
                p = Path(e.path)
            elif e.is_file() and e.name.endswith(".json") and not e.name.startswith("."):
                ptr = read_json(e.path)
                if not isinstance(ptr, dict) or not isinstance(ptr.get("dir"), str):
                    continue
                p = Path(ptr["dir"])
                if not (p / RUN_JSON).exists():
                    continue
            else:
                continue
        except OSError:
            continue
        key = str(p.resolve())
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def list_runs(all: bool = True, limit: int | None = None) -> list[RunInfo]:
    """Known runs, newest first. `all=False` keeps running runs plus the `limit` (default 20) newest."""
    infos: list[RunInfo] = []
    for d in _run_dirs(runs_root()):
        try:
            infos.append(load_run(d))
        except UserError:
            continue
    infos.sort(key=lambda r: (r.created_at or 0, r.id), reverse=True)
    if not all:
        keep = limit if limit is not None else 20
        infos = [r for i, r in enumerate(infos) if i < keep or r.status == "running"]
    elif limit is not None:
        infos = infos[:limit]
    return infos


def find_run(ref: str) -> RunInfo:
    """A run by id, unique id prefix, name (latest run of that name) or directory path.

    UserError when nothing (or more than one run, for a prefix) matches."""
    if not isinstance(ref, str) or not ref.strip():
        raise UserError("a run reference is empty; give a run id, id prefix, name or run directory")
    ref = ref.strip()
    # 1. a directory path
    p = Path(ref).expanduser()
    if (p / RUN_JSON).is_file():
        return load_run(p)
    runs = list_runs(all=True)
    # 2. exact id
    for r in runs:
        if r.id == ref:
            return r
    # 3. unique prefix
    pref = [r for r in runs if r.id.startswith(ref)]
    if len(pref) == 1:
        return pref[0]
    # 4. name -> latest (runs are newest first)
    named = [r for r in runs if r.name == ref]
    if named:
        return named[0]
    if len(pref) > 1:
        ids = ", ".join(r.id for r in pref[:5])
        raise UserError(f"run {ref!r} is ambiguous: it prefixes {len(pref)} runs ({ids}); give more of the id")
    if os.sep in ref or ref.startswith("."):
        raise UserError(f"{ref!r} is not a run directory (no {RUN_JSON} there) and no run has that id or name")
    raise UserError(f"no run {ref!r}: not an id, id prefix, run name or run directory (see `rocm-tune runs`)")
