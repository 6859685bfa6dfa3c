"""The run directory: one self-describing folder per run (layout fixed in docs/internals.md).

```
RUN_DIR/
  run.json       id, name, command, cwd, env (only what rocm-tune set), created_at, started_at,
                 pid, pgid, supervisor_pid, plan, kind, total_steps (+ pid_start / supervisor_start:
                 /proc start times so a recycled pid is never taken for the run)
  plan.json      when the run came from a plan
  stdout.log     combined stdout+stderr of the command
  metrics.jsonl  written by rocm-tune's trainer
  exit.json      {"status", "returncode", "signal", "ended_at"} written by the supervisor
```
Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal as _signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import atomic_write_json, try_read_json

RUN_JSON = "run.json"
PLAN_JSON = "plan.json"
STDOUT_LOG = "stdout.log"
METRICS_JSONL = "metrics.jsonl"
EXIT_JSON = "exit.json"
STOP_MARKER = ".stop-requested"  # written by `rocm-tune stop` so the supervisor records "stopped"

STATUSES = ("running", "finished", "failed", "stopped", "lost")
KINDS = ("command", "script", "plan", "train", "preflight")

_NAME_BAD = re.compile(r"[^A-Za-z0-9._-]+")


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
# process identity (Linux /proc; elsewhere fall back to kill(pid, 0))


def proc_stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, pgrp, session, starttime) of a live process from /proc/PID/stat, None if gone.

    Zombies count as gone. Returns None when /proc is not available too (see pid_alive)."""
    try:
        with open(f"/proc/{int(pid)}/stat", encoding="utf-8", errors="replace") as fh:
            data = fh.read()
    except (OSError, ValueError):
        return None
    # comm may contain spaces and parentheses: split after the last ')'
    try:
        rest = data[data.rindex(")") + 2 :].split()
        state, pgrp, session, start = rest[0], int(rest[2]), int(rest[3]), int(rest[19])
    except (ValueError, IndexError):
        return None
    if state in ("Z", "X", "x"):
        return None
    return state, pgrp, session, start


def proc_start_time(pid: int | None) -> int | None:
    """Start time of `pid` in clock ticks since boot (Linux), or None."""
    if not pid:
        return None
    st = proc_stat(pid)
    return st[3] if st else None


def _have_proc() -> bool:
    return os.path.isdir("/proc/self")


def pid_alive(pid: int | None, start_time: int | None = None) -> bool:
    """True when `pid` runs and (when `start_time` is known) is the same process as recorded."""
    if not pid or pid <= 0:
        return False
    if _have_proc():
        st = proc_stat(pid)
        if st is None:
            return False
        return start_time is None or st[3] == start_time
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) pids whose process group is `pgid` (Linux /proc scan; [] elsewhere)."""
    out: list[int] = []
    if not pgid or not _have_proc():
        return out
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        st = proc_stat(int(entry))
        if st is not None and st[1] == pgid:
            out.append(int(entry))
    return out


def _ppid_map() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, starttime) of every live process (Linux /proc)."""
    out: dict[int, tuple[int, int]] = {}
    if not _have_proc():
        return out
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                data = fh.read()
            rest = data[data.rindex(")") + 2 :].split()
        except (OSError, ValueError):
            continue
        if rest and rest[0] not in ("Z", "X", "x"):
            try:
                out[int(entry)] = (int(rest[1]), int(rest[19]))
            except (ValueError, IndexError):
                continue
    return out


def process_tree(root: int, known: dict[int, int] | None = None) -> dict[int, int]:
    """{pid: starttime} of `root` and all its live descendants, plus still-live pids of `known`.

    Descendants that started their own session (torchrun workers do) are found through the
    parent links; `known` keeps ones already seen whose parent has died meanwhile."""
    procs = _ppid_map()
    tree: dict[int, int] = {}
    if known:
        for pid, start in known.items():
            if pid in procs and procs[pid][1] == start:
                tree[pid] = start
    if root in procs:
        tree.setdefault(root, procs[root][1])
    changed = True
    while changed:
        changed = False
        for pid, (ppid, start) in procs.items():
            if ppid in tree and pid not in tree:
                tree[pid] = start
                changed = True
    return tree


def group_alive(pgid: int | None) -> bool:
    if not pgid or pgid <= 0:
        return False
    if _have_proc():
        return bool(group_members(pgid))
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ----------------------------------------------------------------------------------------------
# RunInfo


@dataclass(frozen=True)
class RunInfo:
    """What `runs`, `attach`, `stop` and the TUI know about one run."""

    id: str
    name: str
    dir: str
    status: str                      # running | finished | failed | stopped | lost
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
    step: int | None = None          # last logged step from metrics.jsonl
    loss: float | None = None        # last logged loss
    plan: str | None = None
    env: dict = field(default_factory=dict)

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

    def to_dict(self) -> dict:
        d = asdict(self)
        d["command"] = list(self.command)
        d["progress"] = self.progress
        return d


def _tail_metrics(path: Path, max_bytes: int = 65536) -> tuple[int | None, int | None, float | None, str | None]:
    """(total_steps from the start record, last step, last loss, end status) of a metrics.jsonl.

    Reads the first line and at most the last `max_bytes`, so it is cheap on huge files."""
    total = step = None
    loss = None
    end_status = None
    try:
        with open(path, "rb") as fh:
            first = fh.readline()
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - max_bytes))
            tail = fh.read()
    except OSError:
        return None, None, None, None
    lines = [first] + tail.splitlines()
    for raw in lines:
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        kind = rec.get("type")
        if kind == "start" and isinstance(rec.get("total_steps"), int):
            total = rec["total_steps"]
        if isinstance(rec.get("step"), int) and kind in ("step", "eval", "checkpoint", "end"):
            if step is None or rec["step"] >= step or kind == "start":
                step = rec["step"]
        if kind == "step" and isinstance(rec.get("loss"), (int, float)):
            loss = float(rec["loss"])
        if kind == "end":
            end_status = rec.get("status")
        if kind == "start":
            end_status = None
    return total, step, loss, end_status


def compute_status(meta: dict, exit_rec: dict | None) -> str:
    if isinstance(exit_rec, dict) and exit_rec.get("status") in ("finished", "failed", "stopped"):
        return exit_rec["status"]
    sup_alive = pid_alive(meta.get("supervisor_pid"), meta.get("supervisor_start"))
    cmd_alive = pid_alive(meta.get("pid"), meta.get("pid_start"))
    if sup_alive or cmd_alive:
        return "running"
    if not meta.get("supervisor_pid") and not meta.get("pid"):
        # created but never started (or the launcher crashed before recording a pid)
        created = meta.get("created_at") or 0
        return "running" if time.time() - created < 10 else "lost"
    return "lost"


def load_run(run_dir: str | os.PathLike) -> RunInfo:
    """RunInfo of a run directory; UserError when it holds no readable run.json."""
    d = Path(run_dir).expanduser()
    meta = read_json(d / RUN_JSON)
    if not isinstance(meta, dict) or "id" not in meta:
        raise UserError(f"{str(d)!r} is not a rocm-tune run directory (no readable {RUN_JSON})")
    exit_rec = read_json(d / EXIT_JSON)
    status = compute_status(meta, exit_rec)
    total, step, loss, _ = _tail_metrics(d / METRICS_JSONL)
    if total is None and isinstance(meta.get("total_steps"), int):
        total = meta["total_steps"]
    ex = exit_rec if isinstance(exit_rec, dict) else {}

    def _int(v):
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    return RunInfo(
        id=str(meta["id"]),
        name=str(meta.get("name") or meta["id"]),
        dir=str(d.resolve()),
        status=status,
        kind=str(meta.get("kind") or "command"),
        command=tuple(str(c) for c in (meta.get("command") or ())),
        cwd=meta.get("cwd"),
        created_at=meta.get("created_at"),
        started_at=meta.get("started_at"),
        ended_at=ex.get("ended_at"),
        pid=_int(meta.get("pid")),
        pgid=_int(meta.get("pgid")),
        supervisor_pid=_int(meta.get("supervisor_pid")),
        returncode=_int(ex.get("returncode")),
        signal=_int(ex.get("signal")),
        total_steps=total,
        step=step,
        loss=loss,
        plan=meta.get("plan"),
        env=dict(meta.get("env") or {}),
    )


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
) -> tuple[str, Path]:
    """Create the directory and run.json of a new run (not started). Returns (run id, dir).

    `run_dir` places the directory elsewhere (a pointer is registered); otherwise it lives in the
    registry root. An existing directory that already holds a run is refused."""
    from rocm_tune.core.runs import registry

    if not command or not all(isinstance(c, str) for c in command):
        raise UserError("the run needs a command (a non-empty list of strings)")
    if kind not in KINDS:
        raise UserError(f"run kind {kind!r} is not one of {', '.join(KINDS)}")
    nice = sanitize_name(name or os.path.basename(command[0]))
    run_id = new_run_id(nice)
    reg_root = Path(root) if root else registry.runs_root()
    if run_dir is not None:
        d = Path(run_dir).expanduser().resolve()
        if d.exists() and not d.is_dir():
            raise UserError(f"--dir {str(d)!r} exists and is not a directory")
        for f in (RUN_JSON, EXIT_JSON, METRICS_JSONL, STDOUT_LOG):
            if (d / f).exists():
                raise UserError(
                    f"--dir {str(d)!r} already holds a run ({f} exists); choose an empty or new directory"
                )
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create run directory {str(d)!r}: {exc.strerror}") from None
    else:
        try:
            reg_root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create the run registry {str(reg_root)!r}: {exc.strerror}") from None
        d = reg_root / run_id
        d.mkdir()
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
    if plan is not None:
        write_json_atomic(d / PLAN_JSON, plan)
        meta["plan"] = PLAN_JSON
    write_json_atomic(d / RUN_JSON, meta)
    if run_dir is not None:
        registry.register_pointer(run_id, d, root=reg_root)
    return run_id, d


def update_run_json(run_dir: str | os.PathLike, **fields: Any) -> dict:
    path = Path(run_dir) / RUN_JSON
    meta = read_json(path, {}) or {}
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
    return {"status": status, "returncode": code, "signal": sig, "ended_at": time.time()}


def trainer_end_status(run_dir: str | os.PathLike) -> str | None:
    return _tail_metrics(Path(run_dir) / METRICS_JSONL)[3]


# ----------------------------------------------------------------------------------------------
# the API named in docs/internals.md, importable from here too (implemented in registry/launcher)


def create_run(command: list[str], **kwargs: Any) -> RunInfo:
    """Create (but do not start) a run directory; see `create_run_dir` for the keywords."""
    _, d = create_run_dir(command, **kwargs)
    return load_run(d)


def launch(command: list[str], **kwargs: Any) -> RunInfo:
    from rocm_tune.core.runs.launcher import launch as _launch

    return _launch(command, **kwargs)


def list_runs(all: bool = True, limit: int | None = None) -> list[RunInfo]:
    from rocm_tune.core.runs.registry import list_runs as _list

    return _list(all=all, limit=limit)


def find_run(ref: str) -> RunInfo:
    from rocm_tune.core.runs.registry import find_run as _find

    return _find(ref)


def stop_run(ref: str, grace: float = 10.0) -> RunInfo:
    from rocm_tune.core.runs.launcher import stop_run as _stop

    return _stop(ref, grace=grace)
