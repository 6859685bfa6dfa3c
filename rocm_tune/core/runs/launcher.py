"""Detached launcher and stop: `launch(...) -> RunInfo`, `stop_run(ref, grace=10) -> RunInfo`.

`launch` creates the run directory, starts the supervisor (`rocm_tune.core.runs.supervisor`) in
a new session and returns as soon as the command runs. The command lives in its own session and
process group, so SIGHUP of the terminal, closing the TUI or Ctrl-C in a monitor never reaches it.
`stop_run` sends SIGTERM to the command's whole process group (torchrun/DeepSpeed workers
included), waits the grace period, then SIGKILLs what is left of that group, and nothing else.
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


def start_run(run_dir: str | os.PathLike, timeout: float = 60.0) -> rd.RunInfo:
    """Start the supervisor of an already created run directory; returns once the command runs."""
    d = Path(run_dir)
    r, w = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "rocm_tune.core.runs.supervisor", str(d), str(w)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            pass_fds=(w,),
            close_fds=True,
            cwd=str(d),
        )
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
    if answer.startswith("error:"):
        raise UserError(f"run {d.name}: {answer[6:].strip()} (see {d / rd.STDOUT_LOG})")
    if not answer.startswith("ok"):
        raise UserError(f"the supervisor of {d} did not report back within {timeout:g} s")
    return rd.load_run(d)


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


def _signal_group(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
        return True
    except ProcessLookupError:
        return False
    except PermissionError as exc:
        raise UserError(f"not allowed to signal process group {pgid}: {exc.strerror}") from None


def _live(tree: dict[int, int]) -> dict[int, int]:
    return {pid: st for pid, st in tree.items() if rd.pid_alive(pid, st)}


def _signal_tree(tree: dict[int, int], pgid: int, sig: int) -> None:
    """Signal the recorded descendants outside the group (identity checked by start time)."""
    for pid, start in _live(tree).items():
        st = rd.proc_stat(pid)
        if st is None or st[1] == pgid or st[3] != start:
            continue
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _owns_group(info: rd.RunInfo, meta: dict) -> bool:
    """True when process group `pgid` is still this run's (not a recycled id)."""
    pgid = info.pgid
    if not pgid:
        return False
    if rd.pid_alive(info.pid, meta.get("pid_start")):
        return True
    # leader gone: members that remain must be of the session the run started (sid == pgid)
    for pid in rd.group_members(pgid):
        st = rd.proc_stat(pid)
        if st and st[2] == pgid and (meta.get("pid_start") is None or st[3] >= meta["pid_start"]):
            return True
    return False


def stop_run(ref: str, grace: float = 10.0, wait_exit: float = 5.0) -> rd.RunInfo:
    """SIGTERM the run's process group, wait up to `grace` s, then SIGKILL the rest of the group.

    Returns the RunInfo afterwards (status "stopped"). A run that is not running is returned as is."""
    if not grace >= 0:  # also refuses NaN
        raise UserError(f"--grace must be 0 or more seconds, got {grace}")
    info = find_run(ref)
    d = Path(info.dir)
    meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    if info.status != "running":
        return info
    # tell the supervisor this end is a stop, whatever exit code the command returns
    try:
        (d / rd.STOP_MARKER).write_text(f"{time.time()}\n")
    except OSError:
        pass
    if not info.pgid:
        # supervisor is up but the command has not been recorded yet: give it a moment
        for _ in range(50):
            time.sleep(0.1)
            info = rd.load_run(d)
            if info.pgid or info.status != "running":
                break
        meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    pgid = info.pgid
    if pgid and _owns_group(info, meta):
        # the run's processes: its process group, plus descendants that left it for a session of
        # their own (torchrun starts its workers with start_new_session=True)
        tree = rd.process_tree(info.pid) if rd.pid_alive(info.pid, meta.get("pid_start")) else {}
        _signal_group(pgid, signal.SIGTERM)
        _signal_tree(tree, pgid, signal.SIGTERM)

        def alive() -> bool:
            return rd.group_alive(pgid) or bool(_live(tree))

        deadline = time.time() + grace
        while time.time() < deadline and alive():
            time.sleep(0.1)
            if info.pid and rd.pid_alive(info.pid, meta.get("pid_start")):
                tree = rd.process_tree(info.pid, tree)
        if alive():
            if rd.group_alive(pgid) and _owns_group(info, meta):
                _signal_group(pgid, signal.SIGKILL)
            _signal_tree(tree, pgid, signal.SIGKILL)
            t_end = time.time() + 5
            while time.time() < t_end and alive():
                time.sleep(0.05)
    # the supervisor writes exit.json; if it is gone (lost run), write it ourselves
    deadline = time.time() + wait_exit
    while time.time() < deadline and not (d / rd.EXIT_JSON).exists():
        if not rd.pid_alive(info.supervisor_pid, meta.get("supervisor_start")):
            break
        time.sleep(0.05)
    if not (d / rd.EXIT_JSON).exists():
        rd.write_json_atomic(
            d / rd.EXIT_JSON,
            {"status": "stopped", "returncode": 128 + signal.SIGTERM, "signal": signal.SIGTERM,
             "ended_at": time.time()},
        )
    return rd.load_run(d)
