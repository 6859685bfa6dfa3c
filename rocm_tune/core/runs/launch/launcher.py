"""Detached launcher and stop: `launch(...) -> RunInfo`, `stop_run(ref, grace=10) -> RunInfo`.

`launch` creates the run directory, starts the supervisor (`rocm_tune.core.runs.launch.supervisor`) in
a new session and returns as soon as the command runs. The command lives in its own session and
process group, so SIGHUP of the terminal, closing the TUI or Ctrl-C in a monitor never reaches it.
`stop_run` sends SIGTERM to every process of the run (found by the run-id marker in their
environment and the run's cgroup, see procs.py: torchrun/DeepSpeed workers, double-forked
`setsid` grandchildren and workers whose launcher was SIGKILLed included), waits the grace period,
then SIGKILLs what is left, and nothing else: no pid or pgid is signalled on run.json's word alone.
Standard library only.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from rocm_tune.core.errors import UserError
from rocm_tune.core.runs import procs
from rocm_tune.core.runs import rundir as rd
from rocm_tune.core.runs.registry import find_run


def parse_env_pairs(pairs: list[str] | None) -> dict[str, str]:
    """`["K=V", ...]` -> dict; UserError naming a malformed pair."""
    env: dict[str, str] = {}
    for p in pairs or ():
        key, sep, value = p.partition("=")
        if not sep or not key or not (key[0].isalpha() or key[0] == "_") or not all(
            c.isalnum() or c == "_" for c in key
        ):
            raise UserError(f"--env {p!r} is not KEY=VALUE with KEY made of letters, digits and _")
        env[key] = value
    return env


def _resolve_executable(cmd0: str, cwd: str | None) -> None:
    if os.sep in cmd0:
        path = Path(cmd0) if os.path.isabs(cmd0) else Path(cwd or os.getcwd()) / cmd0
        if not path.exists():
            raise UserError(f"command {cmd0!r} does not exist")
        if not os.access(path, os.X_OK):
            raise UserError(f"command {cmd0!r} is not executable (chmod +x it or run it via bash)")
    elif shutil.which(cmd0) is None:
        raise UserError(f"command {cmd0!r} is not found on PATH")


def _discard(d: Path) -> None:
    """Remove a run that never started (its files, its pointer, its directory when nothing else is in it)."""
    meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    meta_id = meta.get("id") if isinstance(meta, dict) else None
    rid = meta_id if isinstance(meta_id, str) else d.name
    root = rd.runs_root()
    in_registry = d.parent.resolve() == root.resolve() if root.exists() else False
    rd.discard_run_dir(d, rid, created=in_registry)
    if not in_registry:
        try:
            os.rmdir(d)
        except OSError:
            pass


def start_run(run_dir: str | os.PathLike, timeout: float = 60.0, discard: bool = True) -> rd.RunInfo:
    """Start the supervisor of an already created run directory; returns once the command runs.

    When the supervisor could not record the run (disk full ...) nothing was started and the run
    directory is removed again (`discard=False`, a resumed run: it is kept); the UserError says why in one line."""
    d = Path(run_dir)
    # a resumed run holds the user's checkpoints and history: never removed
    forget = _discard if discard else (lambda _d: None)
    r, w = os.pipe()
    try:
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "rocm_tune.core.runs.launch.supervisor", str(d), str(w)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                pass_fds=(w,),
                close_fds=True,
                cwd=str(d),
            )
        except OSError as exc:
            forget(d)
            raise UserError(f"cannot start the supervisor ({sys.executable}): {exc.strerror or exc}") from None
    finally:
        os.close(w)
    proc.wait()  # the first supervisor process forks and exits at once
    buf = b""
    deadline = time.time() + timeout
    try:
        while b"\n" not in buf and time.time() < deadline:
            ready, _, _ = select.select([r], [], [], max(0.0, deadline - time.time()))
            if not ready:
                break
            chunk = os.read(r, 4096)
            if not chunk:
                break
            buf += chunk
    finally:
        os.close(r)
    answer = buf.decode(errors="replace").strip()
    if answer.startswith("ok"):
        return rd.load_run(d)
    meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    recorded = isinstance(meta, dict) and isinstance(meta.get("pid"), int)
    if answer.startswith("error:"):
        if not os.path.exists(d / rd.EXIT_JSON) and not recorded:
            forget(d)
        raise UserError(f"run {d.name}: {answer[6:].strip()}")
    if recorded:  # it did start and is recorded; the answer got lost
        return rd.load_run(d)
    # no word and nothing recorded: end whatever may have started, leave no ghost run
    rid = meta.get("id") if isinstance(meta, dict) and isinstance(meta.get("id"), str) else None
    if rid:
        procs.signal_run(rid, signal.SIGKILL)
    forget(d)
    raise UserError(f"the supervisor of {d} did not report back within {timeout:g} s; nothing was started")


def launch(
    command: list[str],
    *,
    name: str | None = None,
    run_dir: str | os.PathLike | None = None,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    kind: str = "command",
    plan: dict | None = None,
    total_steps: int | None = None,
) -> rd.RunInfo:
    """Create a run directory for `command` and start it detached. Returns the running RunInfo."""
    if not command:
        raise UserError("nothing to run: give a command after `--`, --script or --plan")
    if cwd is not None and not os.path.isdir(cwd):
        raise UserError(f"working directory {cwd!r} does not exist")
    _resolve_executable(command[0], cwd)
    _, d = rd.create_run_dir(
        list(command), name=name, run_dir=run_dir, cwd=cwd, env=env, kind=kind, plan=plan,
        total_steps=total_steps,
    )
    return start_run(d)


# ----------------------------------------------------------------------------------------------
# stop


def _run_identity(info: rd.RunInfo) -> tuple[dict, str | None, int | None, int | None]:
    """(run.json or {}, validated cgroup, pgid, pgid start) — pgid only when it is the recorded pid."""
    meta = rd.read_json(Path(info.dir) / rd.RUN_JSON, {})
    if not isinstance(meta, dict) or rd.validate_meta(meta) is not None or meta.get("id") != info.id:
        return {}, None, None, None
    cgroup = meta.get("cgroup") if procs.valid_cgroup(meta.get("cgroup"), info.id) else None
    pgid = meta.get("pgid")
    start = meta.get("pid_start")
    if pgid is None or pgid != meta.get("pid") or start is None:
        pgid, start = None, None
    return meta, cgroup, pgid, start


def stop_run(ref: str | rd.RunInfo, grace: float = 10.0, wait_exit: float = 10.0) -> rd.RunInfo:
    """SIGTERM every process of the run, wait up to `grace` s, then SIGKILL what is left.

    Reaches every confirmed process of the run (marker / cgroup), also after its launcher or its
    supervisor was SIGKILLed. Returns the RunInfo afterwards (status "stopped"). A run with no
    process left is returned as is."""
    if not grace >= 0:  # also refuses NaN
        raise UserError(f"--grace must be 0 or more seconds, got {grace}")
    info = ref if isinstance(ref, rd.RunInfo) else find_run(ref, prefer_running=True)
    d = Path(info.dir)
    if info.status != "running" and not info.processes:
        return info
    meta, cgroup, pgid, pgid_start = _run_identity(info)
    # tell the supervisor this end is a stop, whatever exit code the command returns
    try:
        (d / rd.STOP_MARKER).write_text(f"{time.time()}\n")
    except OSError:
        pass
    sup, sup_start = meta.get("supervisor_pid"), meta.get("supervisor_start")
    if sup and sup_start is not None and procs.pid_alive(sup, sup_start):
        st = procs.proc_stat(sup)
        if st is not None and st[3] == sup_start and procs.is_supervisor(sup, d):
            try:
                os.kill(sup, signal.SIGTERM)  # the supervisor records the stop and passes it on
            except OSError:
                pass
    rid = info.id

    def left() -> dict[int, int]:
        return procs.run_processes(rid, cgroup=cgroup)

    procs.signal_run(rid, signal.SIGTERM, cgroup=cgroup, pgid=pgid, pgid_start=pgid_start)
    deadline = time.time() + grace
    empty = 0
    while time.time() < deadline:
        if left():
            empty = 0
        else:
            empty += 1
            if empty >= 2:
                break
        time.sleep(0.1)
    if empty < 2:
        end = time.time() + 30
        while time.time() < end:
            if not left():
                if not left():
                    break
            procs.signal_run(rid, signal.SIGKILL, cgroup=cgroup, pgid=pgid, pgid_start=pgid_start)
            time.sleep(0.05)
    if cgroup and not left():
        procs.remove_cgroup(cgroup)  # the supervisor removes it; after a kill -9 of the supervisor, here
    # the supervisor writes exit.json once all are gone; if it is gone too (lost run), write it here
    deadline = time.time() + wait_exit
    while time.time() < deadline and not (d / rd.EXIT_JSON).exists():
        if not (sup and procs.pid_alive(sup, sup_start)):
            break
        time.sleep(0.05)
    if not (d / rd.EXIT_JSON).exists():
        try:
            rd.write_json_atomic(
                d / rd.EXIT_JSON,
                {"status": "stopped", "returncode": 128 + signal.SIGTERM, "signal": signal.SIGTERM,
                 "ended_at": time.time(), "stop_requested": True},
            )
        except OSError:
            pass
    try:
        return rd.load_run(d, run_id=info.id)
    except UserError:
        return info
