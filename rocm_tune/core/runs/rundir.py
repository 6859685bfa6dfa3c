"""The run directory: one self-describing folder per run (layout fixed in docs/internals.md).

```
RUN_DIR/
  run.json       id, name, command, cwd, env (only what rocm-tune set), created_at, started_at,
                 pid, pgid, supervisor_pid, plan, kind, total_steps (+ pid_start / supervisor_start:
                 /proc start times so a recycled pid is never taken for the run)
  plan.json      when the run came from a plan
  stdout.log     combined stdout+stderr of the command
  metrics.jsonl  written by rocm-tune's trainer
  exit.json      {"status", "returncode", "signal", "ended_at", "reason", "stop_requested"} written by the
                 supervisor once *every* process of the run is gone (see procs.py)
```
run.json is validated on every read: a bad field makes that run `corrupt` (with the reason), never a
traceback, and the other runs keep working. Standard library only.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import secrets
import stat
import signal as _signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import atomic_write_json, load_json, try_read_json

RUN_JSON = "run.json"
PLAN_JSON = "plan.json"
STDOUT_LOG = "stdout.log"
METRICS_JSONL = "metrics.jsonl"
EXIT_JSON = "exit.json"
STOP_MARKER = ".stop-requested"  # written by `rocm-tune stop` so the supervisor records "stopped"

EXIT_RESERVE = ".exit-reserve"  # space kept so exit.json can be written on a full disk

STATUSES = ("running", "finished", "failed", "stopped", "lost", "corrupt")
KINDS = ("command", "script", "plan", "train", "preflight")

_NAME_BAD = re.compile(r"[^A-Za-z0-9._-]+")
_ID_OK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$")


# ----------------------------------------------------------------------------------------------
# small file helpers


read_json = try_read_json  # parsed JSON or a default, never raises
write_json_atomic = atomic_write_json  # temp file + os.replace: readers never see half a file


def sanitize_name(name: str | None, fallback: str = "run") -> str:
    """A run name usable inside ids and paths: [A-Za-z0-9._-], at most 40 characters."""
    text = _NAME_BAD.sub("-", (name or "").strip()).strip("-.")[:40]
    return text or fallback


def new_run_id(name: str, now: float | None = None) -> str:
    """`YYYYmmdd-HHMMSS-<name>-<4 hex>`."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now if now is not None else time.time()))
    return f"{stamp}-{sanitize_name(name)}-{secrets.token_hex(2)}"


# ----------------------------------------------------------------------------------------------
# process identity: see procs.py (re-exported here for the callers that know them from here)

from rocm_tune.core.runs.procs import (  # noqa: E402
    group_alive,
    group_members,
    pid_alive,
    proc_start_time,
    proc_stat,
    process_tree,
)

__all__ = ["group_alive", "group_members", "pid_alive", "proc_start_time", "proc_stat", "process_tree"]


# ----------------------------------------------------------------------------------------------
# RunInfo


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


def disk_full_error(exc: OSError, where: str | os.PathLike) -> UserError:
    """One line for an OSError while writing rocm-tune's own files (ENOSPC: 'disk full')."""
    if exc.errno == errno.ENOSPC:
        return UserError(f"disk full: cannot write {where} (no space left on device)")
    if exc.errno == errno.EDQUOT:
        return UserError(f"disk quota exceeded: cannot write {where}")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return UserError(f"permission denied: cannot write {where}")
    if exc.errno == errno.EROFS:
        return UserError(f"read-only file system: cannot write {where}")
    return UserError(f"cannot write {where}: {exc.strerror or exc}")


# ----------------------------------------------------------------------------------------------
# run.json: validated on every read (a bad field makes that one run `corrupt`, never a traceback)

_MAX_PID = 1 << 22          # Linux pid_max is at most 4194304
_INT_FIELDS = ("pid", "pgid", "supervisor_pid")
_START_FIELDS = ("pid_start", "supervisor_start")
_TIME_FIELDS = ("created_at", "started_at")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def validate_meta(meta: Any) -> str | None:
    """None when run.json's fields are all well-formed, else the first problem in one line."""
    if not isinstance(meta, dict):
        return f"{RUN_JSON} is not a JSON object"
    rid = meta.get("id")
    if not isinstance(rid, str) or not _ID_OK.match(rid):
        return f"{RUN_JSON}: id must be a string of letters, digits, '.', '_' or '-', got {rid!r:.60}"
    if "name" in meta and meta["name"] is not None and not isinstance(meta["name"], str):
        return f"{RUN_JSON}: name must be a string, got {type(meta['name']).__name__}"
    cmd = meta.get("command")
    if not isinstance(cmd, list) or not cmd or not all(isinstance(c, str) for c in cmd):
        return f"{RUN_JSON}: command must be a non-empty list of strings"
    for key in ("cwd", "plan", "cgroup"):
        if meta.get(key) is not None and not isinstance(meta[key], str):
            return f"{RUN_JSON}: {key} must be a string or null, got {type(meta[key]).__name__}"
    env = meta.get("env")
    if env is not None and (not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        return f"{RUN_JSON}: env must be an object of strings, got {type(env).__name__}"
    for key in _TIME_FIELDS:
        v = meta.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
                              or v < 0):
            return f"{RUN_JSON}: {key} must be a finite number of seconds or null, got {v!r:.40}"
    for key in _INT_FIELDS:
        v = meta.get(key)
        if v is not None and (not _is_int(v) or not 0 < v <= _MAX_PID):
            return f"{RUN_JSON}: {key} must be a process id (1..{_MAX_PID}) or null, got {v!r:.40}"
    for key in _START_FIELDS:
        v = meta.get(key)
        if v is not None and (not _is_int(v) or v < 0):
            return f"{RUN_JSON}: {key} must be a non-negative integer or null, got {v!r:.40}"
    kind = meta.get("kind", "command")
    if kind not in KINDS:
        return f"{RUN_JSON}: kind must be one of {', '.join(KINDS)}, got {kind!r:.40}"
    ts = meta.get("total_steps")
    if ts is not None and (not _is_int(ts) or ts < 0):
        return f"{RUN_JSON}: total_steps must be a non-negative integer or null, got {ts!r:.40}"
    return None


def _valid_exit(rec: Any) -> dict | None:
    if not isinstance(rec, dict) or rec.get("status") not in ("finished", "failed", "stopped"):
        return None
    out = dict(rec)
    for key in ("returncode", "signal"):
        if out.get(key) is not None and not _is_int(out[key]):
            out[key] = None
    t = out.get("ended_at")
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t)):
        out["ended_at"] = None
    if out.get("reason") is not None and not isinstance(out["reason"], str):
        out["reason"] = None
    return out


# ----------------------------------------------------------------------------------------------
# RunInfo


@dataclass(frozen=True)
class RunInfo:
    """What `runs`, `attach`, `stop` and the TUI know about one run."""

    id: str
    name: str
    dir: str
    status: str                      # running | finished | failed | stopped | lost | corrupt
    kind: str = "command"
    command: tuple[str, ...] = ()
    cwd: str | None = None
    created_at: float | None = None
    started_at: float | None = None
    ended_at: float | None = None
    pid: int | None = None
    pgid: int | None = None
    supervisor_pid: int | None = None
    returncode: int | None = None
    signal: int | None = None
    total_steps: int | None = None
    step: int | None = None          # last logged step (metrics.jsonl, else the text log)
    loss: float | None = None        # last logged loss
    plan: str | None = None
    env: dict = field(default_factory=dict)
    reason: str | None = None        # why it ended ("disk full", "killed (SIGKILL) ...", the error line)
    problem: str | None = None       # status corrupt: what is wrong with run.json
    processes: int = 0               # live processes of the run (marker, cgroup, recorded pid)
    note: str | None = None          # e.g. "main process exited (0); 2 processes still running"
    stopped_by_user: bool = False    # status stopped because `rocm-tune stop` asked

    @property
    def progress(self) -> float | None:
        if self.total_steps and self.step is not None:
            return max(0.0, min(1.0, self.step / self.total_steps))
        return None

    @property
    def path(self) -> Path:
        return Path(self.dir)

    @property
    def stdout_log(self) -> Path:
        return Path(self.dir) / STDOUT_LOG

    @property
    def metrics_path(self) -> Path:
        return Path(self.dir) / METRICS_JSONL

    @property
    def age_s(self) -> float | None:
        t = self.started_at or self.created_at
        return None if t is None else max(0.0, time.time() - t)

    @property
    def ended(self) -> bool:
        return self.status in ("finished", "failed", "stopped", "lost")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["command"] = list(self.command)
        d["progress"] = self.progress
        for key in ("created_at", "started_at", "ended_at", "loss"):  # JSON has no NaN/Infinity
            v = d.get(key)
            if isinstance(v, float) and not math.isfinite(v):
                d[key] = None
        return d


_TAIL_BYTES = 65536


def _tail_metrics(path: Path, max_bytes: int = _TAIL_BYTES) -> tuple[int | None, int | None, float | None, str | None]:
    """(total_steps from the start record, last step, last loss, end status) of a metrics.jsonl.

    Reads the first line (at most 64 KiB of it) and at most the last `max_bytes`, so it is cheap on
    huge files. Only regular files are opened."""
    total = step = None
    loss = None
    end_status = None
    data = _read_regular(path, head=max_bytes, tail=max_bytes)
    if data is None:
        return None, None, None, None
    first, tail = data
    lines = [first.split(b"\n", 1)[0]] + tail.splitlines()
    for raw in lines:
        if len(raw) > max_bytes:
            continue
        try:
            rec = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(rec, dict):
            continue
        kind = rec.get("type")
        if kind == "start" and _is_int(rec.get("total_steps")):
            total = rec["total_steps"]
        if _is_int(rec.get("step")) and kind in ("step", "eval", "checkpoint", "end"):
            if step is None or rec["step"] >= step:
                step = rec["step"]
        if kind == "step" and isinstance(rec.get("loss"), (int, float)) and not isinstance(rec.get("loss"), bool):
            loss = float(rec["loss"])
        if kind == "end":
            end_status = rec.get("status") if isinstance(rec.get("status"), str) else None
        if kind == "start":
            end_status = None
    return total, step, loss, end_status


def _read_regular(path: Path, head: int, tail: int) -> tuple[bytes, bytes] | None:
    """(first `head` bytes, last `tail` bytes) of a regular file; None when missing or not regular."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        first = os.pread(fd, head, 0) if head else b""
        tail_bytes = os.pread(fd, tail, max(0, st.st_size - tail)) if tail else b""
        return first, tail_bytes
    except OSError:
        return None
    finally:
        os.close(fd)


def _tail_text(path: Path, max_bytes: int = _TAIL_BYTES) -> tuple[int | None, int | None, float | None]:
    """(total_steps, last step, last loss) that the text-log parser finds in the end of a log."""
    data = _read_regular(path, head=0, tail=min(max_bytes, 32768))
    if not data or not data[1]:
        return None, None, None
    from rocm_tune.core.runs.watch.parsers import TextParser

    text = data[1].decode("utf-8", "replace").replace("\r", "\n")
    parser = TextParser()
    total = step = None
    loss = None
    for line in text.split("\n")[-2000:]:
        for ev in parser.feed(line[:4096]):
            if ev.total_steps:
                total = ev.total_steps
            if ev.kind in ("step", "progress") and ev.step is not None:
                step = ev.step if step is None else max(step, ev.step)
            if ev.kind == "step" and ev.loss is not None and math.isfinite(ev.loss):
                loss = ev.loss
    return total, step, loss


def _exit_reason(ex: dict) -> str | None:
    r = ex.get("reason")
    return r if isinstance(r, str) and r else None


def compute_status(meta: dict, exit_rec: dict | None, n_procs: int = 0) -> str:
    """running while any process of the run lives (or its supervisor); then exit.json's word."""
    if n_procs:
        return "running"
    ex = _valid_exit(exit_rec)
    if ex is not None:  # the supervisor writes it only once every process is gone
        return ex["status"]
    if meta.get("supervisor_start") is not None and pid_alive(meta.get("supervisor_pid"), meta["supervisor_start"]):
        return "running"
    if not meta.get("supervisor_pid") and not meta.get("pid"):
        # created but never started (or the launcher crashed before recording a pid)
        created = meta.get("created_at") or 0
        return "running" if 0 <= time.time() - created < 10 else "lost"
    return "lost"


def _corrupt_info(d: Path, run_id: str, problem: str, marked: dict | None) -> RunInfo:
    from rocm_tune.core.runs.procs import run_processes

    procs = run_processes(run_id, marked=marked) if _ID_OK.match(run_id) else {}
    note = f"{len(procs)} process(es) still running" if procs else None
    return RunInfo(id=run_id, name=run_id, dir=str(d.resolve()), status="corrupt", problem=problem,
                   processes=len(procs), note=note)


def _read_run_json(path: Path) -> tuple[Any, str | None]:
    """(run.json's content, None), or (None, the one-line reason it cannot be used)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            return None, f"{RUN_JSON} is not a regular file"
        if st.st_size > 4 * 2**20:
            return None, f"{RUN_JSON} is {st.st_size} bytes (at most 4 MiB)"
        with open(path, encoding="utf-8") as fh:
            meta = load_json(fh.read(), path, RUN_JSON, lenient=True)  # core/files: depth, digits, 1e400
        if meta is None:
            raise ValueError("not JSON")
    except UserError as exc:
        return None, str(exc)
    except PermissionError:
        return None, f"{RUN_JSON}: permission denied"
    except (OSError, ValueError, RecursionError) as exc:
        why = "not valid JSON" if isinstance(exc, (ValueError, RecursionError)) else (
            getattr(exc, "strerror", None) or str(exc))
        return None, f"{RUN_JSON}: {why}"
    return meta, None


def _status_note(meta: dict, status: str, nprocs: int) -> str | None:
    """What the status alone does not say: a main process gone with others left, a supervisor gone, a lost run."""
    plural = f"{nprocs} process{'es' if nprocs != 1 else ''} still running"
    main = meta.get("main_exit") if isinstance(meta.get("main_exit"), dict) else None
    if status == "running" and nprocs and main is not None and _is_int(main.get("returncode")):
        return f"main process exited ({main['returncode']}); {plural}"
    if status == "running" and nprocs and meta.get("supervisor_pid") \
            and not pid_alive(meta.get("supervisor_pid"), meta.get("supervisor_start")):
        return f"supervisor gone; {plural}"
    if status == "lost":
        return "no exit record and no process left (exit status unknown)"
    return None


def load_run(run_dir: str | os.PathLike, *, marked: dict | None = None, run_id: str | None = None) -> RunInfo:
    """RunInfo of a run directory; UserError when it holds no run.json at all.

    A run.json that is unreadable, not JSON or has a bad field gives status `corrupt` with the
    reason in `problem` (its processes, found by the run id from the directory name or pointer,
    can still be stopped). `marked`: a `procs.scan_marked()` result to share one /proc scan."""
    from rocm_tune.core.runs.procs import run_processes, valid_cgroup

    d = Path(run_dir).expanduser()
    path = d / RUN_JSON
    if not os.path.lexists(path):
        raise UserError(f"{str(d)!r} is not a rocm-tune run directory (no {RUN_JSON})")
    fallback_id = run_id or d.name
    meta, why = _read_run_json(path)
    if why is not None:
        return _corrupt_info(d, fallback_id, why, marked)
    problem = validate_meta(meta)
    if problem is not None:
        meta_id = meta.get("id") if isinstance(meta, dict) else None
        rid = meta_id if isinstance(meta_id, str) and _ID_OK.match(meta_id or "") else fallback_id
        return _corrupt_info(d, rid, problem, marked)
    rid = meta["id"]
    cgroup = meta.get("cgroup") if valid_cgroup(meta.get("cgroup"), rid) else None
    procs = run_processes(rid, cgroup=cgroup, pid=meta.get("pid"), pid_start=meta.get("pid_start"), marked=marked)
    exit_raw = read_json(d / EXIT_JSON) if os.path.isfile(d / EXIT_JSON) else None
    ex = _valid_exit(exit_raw) or {}
    status = compute_status(meta, exit_raw, len(procs))
    total, step, loss, _ = _tail_metrics(d / METRICS_JSONL)
    if step is None:
        t_total, t_step, t_loss = _tail_text(d / STDOUT_LOG)
        total, step, loss = total or t_total, t_step, t_loss
    if total is None and _is_int(meta.get("total_steps")) and meta["total_steps"] > 0:
        total = meta["total_steps"]
    note = _status_note(meta, status, len(procs))
    return RunInfo(
        id=rid,
        name=str(meta.get("name") or rid),
        dir=str(d.resolve()),
        status=status,
        kind=str(meta.get("kind") or "command"),
        command=tuple(meta["command"]),
        cwd=meta.get("cwd"),
        created_at=meta.get("created_at"),
        started_at=meta.get("started_at"),
        ended_at=ex.get("ended_at") if status != "running" else None,
        pid=meta.get("pid"),
        pgid=meta.get("pgid"),
        supervisor_pid=meta.get("supervisor_pid"),
        returncode=ex.get("returncode") if status != "running" else None,
        signal=ex.get("signal") if status != "running" else None,
        total_steps=total,
        step=step,
        loss=loss,
        plan=meta.get("plan"),
        env=dict(meta.get("env") or {}),
        reason=_exit_reason(ex) if status != "running" else None,
        processes=len(procs),
        note=note,
        stopped_by_user=bool(ex.get("stop_requested")) if status == "stopped" else False,
    )


def _make_given_dir(run_dir: str | os.PathLike, *, with_plan: bool, force: bool, made: list[Path]) -> Path:
    """The `--dir` of a new run, created if missing (the highest folder made is appended to `made`).
    Refused when it already holds a run, or a plan.json when `with_plan` and not `force`."""
    from rocm_tune.core.files import directory_path, existing

    d = directory_path(run_dir, "--dir")
    for f in _OWN_FILES:
        there = existing(d / f)
        if there is not None:
            raise UserError(f"--dir {str(d)!r} already holds a run ({f} {there}); "
                            "choose an empty or new directory")
    there = existing(d / PLAN_JSON) if with_plan else None
    if there is not None and not force:
        raise UserError(f"--dir {str(d)!r}: {PLAN_JSON} {'exists already' if there == 'exists' else there}; "
                        "pass --force to replace it, or choose an empty or new directory")
    top = d  # the highest folder made here (removed again on failure)
    while not os.path.lexists(top.parent) and top.parent != top:
        top = top.parent
    try:
        if not d.exists():
            d.mkdir(parents=True)
            made.append(top)
    except OSError as exc:
        remove_empty_dirs(d, top)
        raise disk_full_error(exc, f"run directory {str(d)!r}") if exc.errno == errno.ENOSPC else UserError(
            f"cannot create run directory {str(d)!r}: {exc.strerror}") from None
    return d


def create_run_dir(
    command: list[str],
    *,
    name: str | None = None,
    run_dir: str | os.PathLike | None = None,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    kind: str = "command",
    plan: dict | None = None,
    total_steps: int | None = None,
    root: str | os.PathLike | None = None,
    force: bool = False,
) -> tuple[str, Path]:
    """Create the directory and run.json of a new run (not started). Returns (run id, dir).

    `run_dir` places the directory elsewhere (a pointer is registered); otherwise it lives in the
    registry root. An existing directory that already holds a run is refused; so is one holding a
    plan.json (a symlink, even a dangling one, included) when `plan` is given, unless `force` (then the
    file or link itself is replaced, never a link's target). A dangling symlink or a symlink loop as the
    directory is refused. A failure to write (disk full, permission) is one UserError and leaves
    nothing behind; nothing that was there before is removed."""
    if not command or not all(isinstance(c, str) for c in command):
        raise UserError("the run needs a command (a non-empty list of strings)")
    if kind not in KINDS:
        raise UserError(f"run kind {kind!r} is not one of {', '.join(KINDS)}")
    nice = sanitize_name(name or os.path.basename(command[0]))
    run_id = new_run_id(nice)
    reg_root = Path(root) if root else runs_root()
    made: list[Path] = []
    if run_dir is not None:
        d = _make_given_dir(run_dir, with_plan=plan is not None, force=force, made=made)
    else:
        try:
            reg_root.mkdir(parents=True, exist_ok=True)
            d = reg_root / run_id
            d.mkdir()
            made.append(d)
        except OSError as exc:
            raise disk_full_error(exc, f"the run registry {str(reg_root)!r}") from None
    meta = {
        "id": run_id,
        "name": nice,
        "command": list(command),
        "cwd": str(Path(cwd).resolve()) if cwd else os.getcwd(),
        "env": dict(env or {}),
        "created_at": time.time(),
        "started_at": None,
        "pid": None,
        "pgid": None,
        "supervisor_pid": None,
        "plan": None,
        "kind": kind,
        "total_steps": total_steps,
    }
    where = d / RUN_JSON
    written: list[str] = []
    try:
        if plan is not None:
            where = d / PLAN_JSON
            write_json_atomic(d / PLAN_JSON, plan)
            written.append(PLAN_JSON)
            meta["plan"] = PLAN_JSON
        where = d / RUN_JSON
        write_json_atomic(d / RUN_JSON, meta)
        written.append(RUN_JSON)
        if run_dir is not None:
            where = reg_root / f"{run_id}.json"
            register_pointer(run_id, d, root=reg_root)
    except OSError as exc:
        discard_run_dir(d, run_id, created=bool(made), root=reg_root, files=written)
        if made and made[0] != d:
            remove_empty_dirs(d.parent, made[0])
        raise disk_full_error(exc, where) from None
    return run_id, d


# the files a run directory gets from rocm-tune (an existing --dir holding one of them is refused)
_OWN_FILES = (RUN_JSON, EXIT_JSON, METRICS_JSONL, STDOUT_LOG, STOP_MARKER, EXIT_RESERVE)


def remove_empty_dirs(d: Path, top: Path) -> None:
    """rmdir `d` and its parents up to and including `top` (folders create_run_dir made) while they
    are empty; never a folder above `top`."""
    while d == top or top in d.parents:
        try:
            os.rmdir(d)
        except FileNotFoundError:
            pass
        except OSError:
            return
        if d == top:
            return
        d = d.parent


def discard_run_dir(d: Path, run_id: str, *, created: bool, root: str | os.PathLike | None = None,
                    files: list[str] | tuple[str, ...] | None = None) -> None:
    """Remove what create_run_dir made for a run that never started (files, pointer, the dir if new).

    In a directory that existed before only rocm-tune's own files go: `files`, else the run's files
    and plan.json only when run.json says the run wrote it (a user's plan.json stays)."""
    import shutil

    reg = Path(root) if root else runs_root()
    try:
        os.unlink(reg / f"{run_id}.json")
    except OSError:
        pass
    if created:
        shutil.rmtree(d, ignore_errors=True)
        return
    if files is None:
        meta = read_json(d / RUN_JSON, {})
        files = _OWN_FILES + ((PLAN_JSON,) if isinstance(meta, dict) and meta.get("plan") == PLAN_JSON else ())
    for f in files:
        try:
            os.unlink(d / f)
        except OSError:
            pass


def update_run_json(run_dir: str | os.PathLike, **fields: Any) -> dict:
    """Merge fields into run.json (atomic replace). OSError (e.g. ENOSPC) propagates."""
    path = Path(run_dir) / RUN_JSON
    meta = read_json(path, {}) or {}
    if not isinstance(meta, dict):
        meta = {}
    meta.update(fields)
    write_json_atomic(path, meta)
    return meta


def exit_record(returncode: int | None, *, stop_requested: bool, trainer_end: str | None) -> dict:
    """The exit.json record for a command that ended with Popen-style `returncode` (<0 = signal)."""
    sig = None
    code = returncode if returncode is not None else -1
    if returncode is not None and returncode < 0:
        sig = -returncode
        code = 128 + sig
    if stop_requested:
        status = "stopped"
    elif sig is not None:
        gentle = {_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP, getattr(_signal, "SIGQUIT", 3)}
        # SIGKILL from the kernel OOM killer, SIGSEGV, SIGABRT ... are failures
        status = "stopped" if sig in gentle else "failed"
    elif code == 0:
        status = "stopped" if trainer_end == "stopped" else "finished"
    elif trainer_end == "stopped" and code in (128 + _signal.SIGTERM, 143):
        status = "stopped"
    else:
        status = "failed"
    return {"status": status, "returncode": code, "signal": sig, "ended_at": time.time(),
            "stop_requested": bool(stop_requested)}


def trainer_end_status(run_dir: str | os.PathLike) -> str | None:
    return _tail_metrics(Path(run_dir) / METRICS_JSONL)[3]


def create_run(command: list[str], **kwargs: Any) -> RunInfo:
    """Create (but do not start) a run directory; see `create_run_dir` for the keywords."""
    _, d = create_run_dir(command, **kwargs)
    return load_run(d)
