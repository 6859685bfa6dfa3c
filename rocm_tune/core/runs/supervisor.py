"""The small supervisor that owns one run: `python -m rocm_tune.core.runs.supervisor RUN_DIR [READY_FD]`.

Started by the launcher in a new session (so no controlling terminal: SIGHUP of the SSH session
never reaches it). It forks once more so the launcher never has to reap it, ignores SIGHUP and
SIGINT, starts the command in *its own* new session and process group (stdin /dev/null, stdout and
stderr appended to stdout.log, PYTHONUNBUFFERED=1), records pid/pgid/start times in run.json,
waits for it and writes exit.json. Because the command's group does not contain the supervisor,
`rocm-tune stop` can SIGKILL the whole group and the supervisor still records the end.

Standard library only: it must start fast and survive without torch.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rocm_tune.core.runs import rundir as rd


def _note(log_path: Path, text: str) -> None:
    try:
        with open(log_path, "a", encoding="utf-8") as fh:
            fh.write(f"[rocm-tune supervisor] {text}\n")
    except OSError:
        pass


def _report(fd: int | None, text: str) -> None:
    if fd is None:
        return
    try:
        os.write(fd, (text + "\n").encode())
    except OSError:
        pass
    try:
        os.close(fd)
    except OSError:
        pass


def supervise(run_dir: str, ready_fd: int | None = None) -> int:
    d = Path(run_dir)
    log_path = d / rd.STDOUT_LOG
    meta = rd.read_json(d / rd.RUN_JSON)
    if not isinstance(meta, dict) or not meta.get("command"):
        _report(ready_fd, f"error: {d / rd.RUN_JSON} is missing or has no command")
        return 2

    state = {"child": None, "stop": False}

    def _ignore(signum, frame):  # a Python handler (not SIG_IGN) so exec() resets it in the child
        return None

    def _term(signum, frame):
        # someone asked the supervisor itself to end: pass it on to the command's group
        state["stop"] = True
        child = state["child"]
        if child is not None:
            try:
                os.killpg(child.pid, signal.SIGTERM)
            except OSError:
                pass

    signal.signal(signal.SIGHUP, _ignore)
    signal.signal(signal.SIGINT, _ignore)
    signal.signal(signal.SIGTERM, _term)

    env = dict(os.environ)
    env.update({str(k): str(v) for k, v in (meta.get("env") or {}).items()})
    env["PYTHONUNBUFFERED"] = "1"
    env["ROCM_TUNE_RUN_DIR"] = str(d.resolve())
    env["ROCM_TUNE_RUN_ID"] = str(meta.get("id"))
    cwd = meta.get("cwd") or str(d)
    if not os.path.isdir(cwd):
        cwd = str(d)

    try:
        log = open(log_path, "ab", buffering=0)
    except OSError as exc:
        _report(ready_fd, f"error: cannot open {log_path}: {exc.strerror}")
        return 2
    try:
        child = subprocess.Popen(
            [str(c) for c in meta["command"]],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        msg = f"cannot start {meta['command'][0]!r}: {exc.strerror or exc}"
        _note(log_path, msg)
        rd.update_run_json(d, supervisor_pid=os.getpid(), supervisor_start=rd.proc_start_time(os.getpid()),
                           started_at=time.time())
        code = 127 if isinstance(exc, FileNotFoundError) else 126
        rec = {"status": "failed", "returncode": code, "signal": None, "ended_at": time.time()}
        rd.write_json_atomic(d / rd.EXIT_JSON, rec)
        _report(ready_fd, f"error: {msg}")
        return code
    finally:
        log.close()
    state["child"] = child
    rd.update_run_json(
        d,
        pid=child.pid,
        pgid=child.pid,
        pid_start=rd.proc_start_time(child.pid),
        supervisor_pid=os.getpid(),
        supervisor_start=rd.proc_start_time(os.getpid()),
        started_at=time.time(),
    )
    _report(ready_fd, f"ok {child.pid}")
    while True:
        try:
            rc = child.wait()
            break
        except InterruptedError:  # pragma: no cover - PEP 475 retries, kept for safety
            continue
    stop_requested = state["stop"] or (d / rd.STOP_MARKER).exists()
    rec = rd.exit_record(rc, stop_requested=stop_requested, trainer_end=rd.trainer_end_status(d))
    rd.write_json_atomic(d / rd.EXIT_JSON, rec)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print("usage: python -m rocm_tune.core.runs.supervisor RUN_DIR [READY_FD] [--no-fork]", file=sys.stderr)
        return 2
    run_dir = argv[0]
    ready_fd = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else None
    if "--no-fork" not in argv:
        # the launcher waits for this first process; the grandchild is adopted by init/subreaper
        if os.fork() > 0:
            if ready_fd is not None:
                try:
                    os.close(ready_fd)
                except OSError:
                    pass
            os._exit(0)
    try:
        return supervise(run_dir, ready_fd)
    except Exception as exc:  # never leave a run without a word about it
        _note(Path(run_dir) / rd.STDOUT_LOG, f"supervisor error: {exc!r}")
        _report(ready_fd, f"error: supervisor: {exc!r}")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
