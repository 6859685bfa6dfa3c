"""The run registry: `$XDG_STATE_HOME/rocm-tune/runs/` (default `~/.local/state/rocm-tune/runs/`).

Each run directory lives there, named by its id, unless `--dir` placed it elsewhere; then a small
pointer file `<id>.json` = {"id": ..., "dir": ...} is registered instead. Standard library only.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from rocm_tune.core.errors import UserError
from rocm_tune.core.runs.procs import scan_marked
from rocm_tune.core.runs.rundir import (
    RUN_JSON,
    RunInfo,
    load_run,
    read_json,
    register_pointer,
    runs_root,
    state_home,
)

__all__ = ["find_run", "list_runs", "register_pointer", "runs_root", "state_home", "run_candidates"]

_MAX_ENTRIES = 100_000


def _run_dirs(root: Path) -> list[tuple[Path, str | None]]:
    """Every registered run directory (own dirs and pointers) with the id the pointer names."""
    out: list[tuple[Path, str | None]] = []
    try:
        it = os.scandir(root)
    except OSError:
        return out
    seen: set[str] = set()
    with it:
        for n, e in enumerate(it):
            if n >= _MAX_ENTRIES:
                break
            try:
                if e.is_dir(follow_symlinks=False) and os.path.lexists(os.path.join(e.path, RUN_JSON)):
                    p, rid = Path(e.path), e.name
                elif e.is_file(follow_symlinks=False) and e.name.endswith(".json") and not e.name.startswith("."):
                    if e.stat(follow_symlinks=False).st_size > 65536:
                        continue
                    ptr = read_json(e.path)
                    if not isinstance(ptr, dict) or not isinstance(ptr.get("dir"), str):
                        continue
                    p = Path(ptr["dir"])
                    ptr_id = ptr.get("id")
                    rid = ptr_id if isinstance(ptr_id, str) else e.name[:-5]
                    if not os.path.lexists(p / RUN_JSON):
                        continue
                else:
                    continue
                key = str(p.resolve())
            except (OSError, ValueError, RuntimeError):
                continue
            if key not in seen:
                seen.add(key)
                out.append((p, rid))
    return out


def _sort_key(r: RunInfo) -> tuple:
    t = r.created_at if isinstance(r.created_at, (int, float)) and r.created_at == r.created_at else 0.0
    return (t, r.id)


def list_runs(all: bool = True, limit: int | None = None) -> list[RunInfo]:
    """Known runs, newest first. `all=False` keeps running runs plus the `limit` (default 20) newest.

    A run whose run.json is broken is listed with status `corrupt` (never hidden, never a traceback)."""
    infos: list[RunInfo] = []
    marked = scan_marked()
    for d, rid in _run_dirs(runs_root()):
        try:
            infos.append(load_run(d, marked=marked, run_id=rid))
        except (UserError, OSError):
            continue
    infos.sort(key=_sort_key, reverse=True)
    if not all:
        keep = limit if limit is not None else 20
        infos = [r for i, r in enumerate(infos) if i < keep or r.status == "running"]
    elif limit is not None:
        infos = infos[:limit]
    return infos


def _looks_like_path(ref: str) -> bool:
    return os.sep in ref or ref.startswith(("~", "."))


def run_candidates(ref: str) -> list[RunInfo]:
    """Every registered run `ref` names: the exact id, else a unique id prefix, else all runs of that name."""
    runs = list_runs(all=True)
    exact = [r for r in runs if r.id == ref]
    if exact:
        return exact
    pref = [r for r in runs if r.id.startswith(ref)]
    if len(pref) == 1:
        return pref
    named = [r for r in runs if r.name == ref]
    if named:
        return named
    return pref


def find_run(ref: str, *, prefer_running: bool = False) -> RunInfo:
    """A run by id, unique id prefix, name or directory path.

    Bare words are looked up in the registry first (a run named `hd` is found even where `./hd/`
    exists); a path (with `/`, `~` or `.`) or a directory holding run.json is used when the registry
    has no such run. Two or more runs of one name: the running one when exactly one runs, the
    newest when none runs, and a UserError listing the ids when several run. UserError when nothing
    matches. (`prefer_running` is accepted for callers that say so explicitly; it is the rule.)"""
    if not isinstance(ref, str) or not ref.strip():
        raise UserError("a run reference is empty; give a run id, id prefix, name or run directory")
    ref = ref.strip()
    if "\0" in ref or len(ref) > 4096:
        raise UserError("a run reference must be a run id, name or directory path (no NUL, at most 4096 characters)")
    if _looks_like_path(ref):
        p = Path(ref).expanduser()
        if _is_run_dir(p):
            return load_run(p)
    cands = run_candidates(ref)
    if len(cands) == 1:
        return cands[0]
    if cands and all(r.name == ref for r in cands):
        running = [r for r in cands if r.status == "running"]
        if len(running) == 1:
            return running[0]
        if len(running) > 1:
            ids = ", ".join(r.id for r in running[:6])
            raise UserError(f"{len(running)} runs named {ref!r} are running ({ids}); give the id")
        return cands[0]  # none runs: the newest
    if len(cands) > 1:
        ids = ", ".join(r.id for r in cands[:5])
        raise UserError(f"run {ref!r} is ambiguous: it prefixes {len(cands)} runs ({ids}); give more of the id")
    p = Path(ref).expanduser()
    if _is_run_dir(p):
        return load_run(p)
    if _looks_like_path(ref):
        raise UserError(f"{ref!r} is not a run directory (no {RUN_JSON} there) and no run has that id or name")
    raise UserError(f"no run {ref!r}: not an id, id prefix, run name or run directory (see `rocm-tune runs`)")


def _is_run_dir(p: Path) -> bool:
    try:
        return stat.S_ISDIR(os.stat(p).st_mode) and os.path.lexists(p / RUN_JSON)
    except (OSError, ValueError):
        return False
