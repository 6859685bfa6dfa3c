"""The small supervisor that owns one run: `python -m rocm_tune.core.runs.launch.supervisor RUN_DIR [READY_FD]`.

Started by the launcher in a new session (so no controlling terminal: SIGHUP of the SSH session
never reaches it). It forks once more so the launcher never has to reap it, ignores SIGHUP and
SIGINT and becomes a child subreaper (orphans of the run are re-parented to it, not to init).

Nothing runs before it is recorded:
1. run.json gets the supervisor's pid/start time and the run's cgroup (where one can be made), and a
   small reserve file keeps room for exit.json on a disk that fills up;
2. the command is started behind a gate (`sh` blocked reading its stdin), put into the cgroup and its
   pid/pgid/start time written to run.json; only then is the gate opened and the command exec'd.
   If recording fails (disk full), the gated process is killed before it ran anything.
The command runs in its own session and process group with `ROCM_TUNE_RUN_ID` in its environment
(stdin /dev/null, stdout+stderr appended to stdout.log, PYTHONUNBUFFERED=1). When the command ends,
the supervisor waits until *every* process of the run is gone (marker, cgroup; see procs.py) before
it writes exit.json, so a run is never reported ended while a part of it still runs. exit.json
carries a `reason` where one is known: "disk full", the kernel's OOM-killer line, "killed (SIGKILL)
— probably host memory" with the host RAM figures, or the error line a crash left in the log.

Standard library only: it must start fast and survive without torch.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rocm_tune.core.runs import procs
from rocm_tune.core.runs import rundir as rd

RESERVE_BYTES = 16384
DISK_FULL_FREE = 1 << 20      # less than this free on the run dir's filesystem at a failure: "disk full"
NOTIFY_ENV = "ROCM_TUNE_NOTIFY"        # `rocm-tune run --notify`: read and recorded by the supervisor only
RETRY_ENV = "ROCM_TUNE_RETRY_OOM"      # `rocm-tune run --retry-oom N`


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


def _make_subreaper() -> None:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except Exception:  # noqa: BLE001 - best effort (not Linux, no libc)
        pass


def _reap_any() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        except OSError:
            return
        if pid == 0:
            return


def _free_bytes(path: Path) -> int | None:
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def _meminfo() -> dict[str, int]:
    """This host's MemTotal / MemAvailable in bytes (psutil; {} when unreadable)."""
    import psutil

    try:
        vm = psutil.virtual_memory()
    except (psutil.Error, OSError, ValueError):
        return {}
    return {"MemTotal": int(vm.total), "MemAvailable": int(vm.available)}


def kernel_oom_line(pid: int) -> str | None:
    """The kernel log's OOM-killer line for `pid` (dmesg, else journalctl -k), where readable."""
    needles = (f"Killed process {pid} ", f"Killed process {pid}(", f"pid={pid},", f"pid {pid} ")
    for cmd in (["dmesg"], ["journalctl", "-k", "--no-pager", "-q", "-n", "2000"]):
        if shutil.which(cmd[0]) is None:
            continue
        try:
            res = subprocess.run(cmd, capture_output=True, timeout=5, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            continue
        if res.returncode != 0:
            continue
        text = res.stdout[-4 * 2**20:].decode("utf-8", "replace")
        for line in reversed(text.splitlines()):
            low = line.lower()
            if ("out of memory" in low or "oom" in low or "killed process" in low) and any(n in line for n in needles):
                return line.strip()[:300]
    return None


def sigkill_reason(pid: int, maxrss_bytes: int | None) -> str:
    line = kernel_oom_line(pid)
    if line:
        return f"killed by the kernel's out-of-memory killer (host memory): {line}"
    mi = _meminfo()
    parts = []
    if mi.get("MemTotal"):
        parts.append(f"host RAM {mi['MemTotal'] / 2**30:.1f} GiB")
    if mi.get("MemAvailable") is not None and mi.get("MemTotal"):
        parts.append(f"{mi['MemAvailable'] / 2**30:.1f} GiB available at the end")
    if maxrss_bytes:
        parts.append(f"the run's peak resident memory {maxrss_bytes / 2**30:.2f} GiB")
    figures = f" ({', '.join(parts)})" if parts else ""
    return "killed (SIGKILL) — probably host memory (the kernel's OOM killer; no kernel log readable)" + figures


_ERROR_HEADS = ("Traceback", "Error", "Exception", "RuntimeError", "ValueError", "OSError", "KeyError",
                "ImportError", "ModuleNotFoundError", "torch.OutOfMemoryError", "AssertionError", "TypeError",
                "FileNotFoundError", "PermissionError", "MemoryError", "SystemExit", "fatal", "FATAL")


def last_error_line(log_path: Path, max_bytes: int = 65536) -> str | None:
    """The last line of the log that names an error (a traceback's final line), or None."""
    try:
        fd = os.open(log_path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        import stat as _stat

        st = os.fstat(fd)
        if not _stat.S_ISREG(st.st_mode):
            return None
        data = os.pread(fd, max_bytes, max(0, st.st_size - max_bytes))
    except OSError:
        return None
    finally:
        os.close(fd)
    for line in reversed(data.decode("utf-8", "replace").splitlines()[-200:]):
        s = line.strip()[:400]
        if not s or s.startswith("[rocm-tune supervisor]"):
            continue
        head = s.split(":", 1)[0]
        if head.endswith(("Error", "Exception", "Interrupt")) or head in _ERROR_HEADS or "Error:" in s[:120]:
            return s
    return None


def _exit_with_segment_start(d: Path, rc: int | None, stop_requested: bool) -> dict:
    """The exit record, with this segment's start (run.json's started_at): a resumed run's elapsed time sums its
    segments (watch.earlier_segments reads it from run.json's restarts)."""
    rec = rd.exit_record(rc, stop_requested=stop_requested, trainer_end=rd.trainer_end_status(d))
    seg_start = (rd.read_json(d / rd.RUN_JSON, {}) or {}).get("started_at")
    if isinstance(seg_start, (int, float)) and not isinstance(seg_start, bool):
        rec["started_at"] = seg_start
    return rec


def _write_exit(d: Path, rec: dict) -> None:
    try:
        rd.write_json_atomic(d / rd.EXIT_JSON, rec)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        # the disk filled up: give back the reserved room, then write the record
        try:
            os.unlink(d / rd.EXIT_RESERVE)
        except OSError:
            pass
        rd.write_json_atomic(d / rd.EXIT_JSON, rec)
    try:
        os.unlink(d / rd.EXIT_RESERVE)
    except OSError:
        pass


def _wait_all_gone(run_id: str, cgroup: str | None, d: Path) -> None:
    """After the main process ended: reap orphans and wait until no process of the run is left."""
    empty = 0
    interval = 0.05
    while True:
        _reap_any()
        if procs.run_processes(run_id, cgroup=cgroup):
            empty = 0
        else:
            empty += 1
            if empty >= 2:
                return
        time.sleep(interval)
        interval = min(0.5, interval * 1.5)


def _install_signals(run_id: str, state: dict) -> None:
    """SIGHUP/SIGINT ignored (by a Python handler, so exec() resets them in the child); SIGTERM to the
    supervisor is passed on to every process of the run and marks the stop in `state`."""
    def _ignore(signum, frame):  # a Python handler (not SIG_IGN) so exec() resets it in the child
        return None

    def _term(signum, frame):
        # someone asked the supervisor itself to end: pass it on to every process of the run
        state["stop"] = True
        procs.signal_run(run_id, signal.SIGTERM, cgroup=state["cgroup"])

    signal.signal(signal.SIGHUP, _ignore)
    signal.signal(signal.SIGINT, _ignore)
    signal.signal(signal.SIGTERM, _term)


def _child_env(meta: dict, d: Path, run_id: str) -> dict:
    """The run's environment: ours, the run's own env on top, the run markers; no supervisor-only secrets."""
    env = dict(os.environ)
    env.update({str(k): str(v) for k, v in (meta.get("env") or {}).items()})
    env["PYTHONUNBUFFERED"] = "1"
    env["ROCM_TUNE_RUN_DIR"] = str(d.resolve())
    env[procs.MARKER] = run_id
    env.pop(NOTIFY_ENV, None)  # for the supervisor only (a webhook URL is a secret the training never needs)
    env.pop(RETRY_ENV, None)
    return env


def _unresolved(exe: str, cwd: str, env: dict) -> tuple[str, int] | None:
    """(message, exit code) when the command's program cannot start: missing, not executable, not on PATH."""
    if os.sep in exe:
        path = exe if os.path.isabs(exe) else os.path.join(cwd, exe)
        if not os.path.exists(path):
            return f"cannot start {exe!r}: no such file", 127
        if not os.access(path, os.X_OK) or os.path.isdir(path):
            return f"cannot start {exe!r}: not executable", 126
    elif shutil.which(exe, path=env.get("PATH")) is None:
        return f"cannot start {exe!r}: not found on PATH", 127
    return None


def _add_failure_reason(rec: dict, d: Path, pid: int, maxrss, log_path: Path) -> None:
    """The reason of a failed attempt: a full disk, the SIGKILL's likely sender, else the log's last error."""
    free = _free_bytes(d)
    if free is not None and free < DISK_FULL_FREE:
        rec["reason"] = f"disk full ({free} bytes free where the run directory is)"
    elif rec["signal"] == signal.SIGKILL:
        rec["reason"] = sigkill_reason(pid, maxrss)
    else:
        err = last_error_line(log_path)
        if err:
            rec["reason"] = err


def _notify_end(notify, d: Path, rec: dict, offset: int) -> None:
    """Deliver the run's end to every webhook (with the alert of a failed last attempt)."""
    from rocm_tune.core.runs.notify import deliver, payload

    alert = None
    if rec["status"] == "failed":
        from rocm_tune.core.runs.resume.retry import scan_attempt

        alert = _alert_line(scan_attempt(d, offset).alert)
    p = payload(d, rec["status"], alert=alert)
    for spec in notify:
        deliver(spec, d, p)


def _record_supervisor(d: Path, cgroup: str | None, log_path: Path, ready_fd: int | None) -> int | None:
    """Keep room for exit.json, record the supervisor and open the log: the exit code when the run must not
    start (a write failed: 2; `stop` came first: 0, the cgroup removed), else None."""
    try:
        with open(d / rd.EXIT_RESERVE, "wb") as fh:
            fh.write(b"\0" * RESERVE_BYTES)
        rd.update_run_json(d, supervisor_pid=os.getpid(), supervisor_start=procs.proc_start_time(os.getpid()),
                           cgroup=cgroup)
        log = open(log_path, "ab", buffering=0)
    except OSError as exc:
        procs.remove_cgroup(cgroup)
        _report(ready_fd, f"error: {rd.disk_full_error(exc, d)}")
        return 2

    if (d / rd.STOP_MARKER).exists():  # `stop` came before the start: nothing runs
        log.close()
        procs.remove_cgroup(cgroup)
        _report(ready_fd, "error: the run was stopped before its command started")
        return 0
    log.close()
    return None


def supervise(run_dir: str, ready_fd: int | None = None) -> int:
    d = Path(run_dir)
    log_path = d / rd.STDOUT_LOG
    meta = rd.read_json(d / rd.RUN_JSON)
    problem = rd.validate_meta(meta)
    if problem is not None:
        _report(ready_fd, f"error: {d / rd.RUN_JSON}: {problem}")
        return 2
    run_id = meta["id"]
    state: dict = {"stop": False, "cgroup": None}

    _install_signals(run_id, state)
    _make_subreaper()

    env = _child_env(meta, d, run_id)
    cwd = meta.get("cwd") or str(d)
    if not os.path.isdir(cwd):
        cwd = str(d)
    command = [str(c) for c in meta["command"]]

    # the command must resolve before anything starts
    unresolved = _unresolved(command[0], cwd, env)
    if unresolved is not None:
        return _fail_start(d, log_path, ready_fd, *unresolved)

    # 1. record the supervisor, keep room for exit.json, make the cgroup: all before the start
    cgroup = procs.create_cgroup(run_id)
    state["cgroup"] = cgroup
    early = _record_supervisor(d, cgroup, log_path, ready_fd)
    if early is not None:
        return early

    # 2. start behind the gate: `sh` waits on its stdin until the pid is on disk; 3. wait for it and for every other
    # process of the run. An attempt that died of GPU OOM is started again stepped down (--retry-oom N, retry.py).
    notify = _notify_spec(d, meta)
    threads = []
    watch = _AlertWatch(d, notify) if notify else None
    attempt = 1
    while True:
        offset = _log_size(log_path)
        started = _start_gated(d, command, cwd, env, log_path, cgroup, state, ready_fd if attempt == 1 else None)
        if isinstance(started, int):
            return started
        child, cgroup = started
        if watch is not None:
            watch.start()
        rc, maxrss = _wait_child(child)
        try:
            rd.update_run_json(d, main_exit={"returncode": rc, "ended_at": time.time()})
        except OSError:
            pass
        _wait_all_gone(run_id, cgroup, d)
        procs.remove_cgroup(cgroup)

        stop_requested = state["stop"] or (d / rd.STOP_MARKER).exists()
        rec = _exit_with_segment_start(d, rc, stop_requested)
        if rec["status"] == "failed":
            _add_failure_reason(rec, d, child.pid, maxrss, log_path)
            nxt = _oom_retry(d, offset, rec)
            if nxt is not None:
                command = nxt
                attempt += 1
                cgroup = procs.create_cgroup(run_id)
                state["cgroup"] = cgroup
                if notify:
                    threads.append(_notify_thread(notify, d, "retry"))
                continue
        break
    if watch is not None:
        watch.stop()
    _write_exit(d, rec)
    if notify:
        _notify_end(notify, d, rec, offset)
    for t in threads:
        if t is not None:
            t.join(timeout=120)
    return 0


def _log_size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _alert_line(a: dict | None) -> dict | None:
    if not a:
        return None
    return {"code": a.get("code"), "severity": a.get("severity"), "title": a.get("title"), "fix": a.get("fix"),
            "evidence": (a.get("evidence") or "")[:500], "step": a.get("step")}


def _notify_spec(d: Path, meta: dict) -> list[str]:
    """--notify (or the config file's list): given to this supervisor by `rocm-tune run` in its environment
    (recorded in run.json, never passed to the command), else what run.json holds (a resumed run)."""
    from rocm_tune.core.runs.notify import decode, specs

    raw = os.environ.pop(NOTIFY_ENV, None)
    given = decode(raw)
    retry = os.environ.pop(RETRY_ENV, None)
    fields: dict[str, object] = {}
    if given:
        fields["notify"] = given[0] if len(given) == 1 else given
    if retry and retry.isdigit():
        fields["retry_oom"] = int(retry)
    if fields:
        try:
            rd.update_run_json(d, **fields)
        except OSError:
            pass
    return given or specs(meta.get("notify"))


def _notify_thread(targets: list[str], d: Path, event: str):
    try:
        import threading

        from rocm_tune.core.runs.notify import deliver, payload

        p = payload(d, event, detail=_last_restart_line(d))
        t = threading.Thread(target=lambda: [deliver(s, d, p) for s in targets], daemon=True,
                             name="rocm-tune-notify")
        t.start()
        return t
    except Exception:  # noqa: BLE001 - a notification never breaks the run
        return None


ALERT_POLL_ENV = "ROCM_TUNE_ALERT_POLL_S"   # seconds between the supervisor's looks at a running run (default 15)
_NOT_NOTIFIED = ("process-exited",)          # the end of the run has its own notification


class _AlertWatch:
    """While the command runs: read the run as `attach` does (core.runs.watch.watch.Watcher: NaN, stalls, disk-will-fill,
    ...) every ROCM_TUNE_ALERT_POLL_S seconds and notify each new alert with its fix, once per code per run
    (notify.send_alert). Runs in a daemon thread; nothing in it can break the run."""

    def __init__(self, d: Path, targets: list[str]):
        import threading

        self.d = d
        self.targets = targets
        self.done = threading.Event()
        self.thread: threading.Thread | None = None
        self.watcher: Any = None
        try:
            self.interval = max(0.2, float(os.environ.get(ALERT_POLL_ENV, "15")))
        except ValueError:
            self.interval = 15.0

    def start(self) -> None:
        import threading

        if self.thread is None:
            self.thread = threading.Thread(target=self._loop, daemon=True, name="rocm-tune-alerts")
            self.thread.start()

    def _loop(self) -> None:
        while not self.done.wait(self.interval):
            try:
                self._poll()
            except Exception as exc:  # noqa: BLE001 - the run goes on without alert notifications
                _note(self.d / rd.STDOUT_LOG, f"alert watch stopped: {exc!r}")
                return

    def _poll(self) -> None:
        from rocm_tune.core.runs.notify import send_alert

        if self.watcher is None:
            from rocm_tune.core.runs.watch.watch import Watcher

            self.watcher = Watcher(str(self.d), gpus=True)
        res = self.watcher.poll()
        for a in res.new_alerts:
            if self.done.is_set():
                return
            if a.code in _NOT_NOTIFIED:
                continue
            if send_alert(self.targets, self.d, _alert_line(a.to_dict()) or {}):
                _note(self.d / rd.STDOUT_LOG, f"alert {a.code} notified: {a.title}")

    def stop(self) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join(timeout=30)


def _last_restart_line(d: Path) -> str | None:
    meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    rs = meta.get("restarts") if isinstance(meta, dict) else None
    if not rs:
        return None
    r = rs[-1]
    return f"retry {r.get('n_retry')}: {r.get('change')} ({r.get('after')})" + (
        f", from {r['checkpoint']}" if r.get("checkpoint") else ", from the start")


def _oom_retry(d: Path, offset: int, rec: dict) -> list[str] | None:
    """The command of the next attempt after a GPU OOM (recorded in run.json), or None (rec says why not)."""
    try:
        from rocm_tune.core.runs.resume import retry

        meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
        limit = retry.retry_limit(meta)
        if not limit:
            return None
        scan = retry.scan_attempt(d, offset)
        if scan.oom is None:
            return None
        done = len([r for r in meta.get("restarts") or [] if isinstance(r, dict) and r.get("reason") == "oom-retry"
                    and r.get("n_retry")])
        cmd, why = retry.next_attempt(d, meta, scan, done, limit)
        if cmd is None:
            rec["retry"] = why.get("refused")
            _note(d / rd.STDOUT_LOG, f"OOM: not retried: {why.get('refused')}")
            refusals = list(meta.get("retry_refusals") or []) + [{"at": time.time(), **why}]
            rd.update_run_json(d, retry_refusals=refusals)
            return None
        restarts = list(meta.get("restarts") or [])
        prev = {k: rec.get(k) for k in ("status", "returncode", "signal", "reason", "ended_at")}
        restarts.append({"n": len(restarts) + 1, "at": time.time(), "previous_exit": prev, **why})
        fields = {"restarts": restarts, "command": cmd,
                  "first_command": meta.get("first_command") or meta.get("command")}
        if why.get("zero_stage") is not None:
            fields["retry_zero_stage"] = why["zero_stage"]
        rd.update_run_json(d, **fields)
        _note(d / rd.STDOUT_LOG, f"OOM retry {why['n_retry']}/{limit}: {why['change']}; "
              + (f"resuming from {why['checkpoint']}" if why.get("checkpoint") else "from the start")
              + f" -> {' '.join(cmd)}")
        return cmd
    except Exception as exc:  # noqa: BLE001 - a retry that cannot be prepared leaves the failure as it is
        _note(d / rd.STDOUT_LOG, f"OOM retry not possible: {exc!r}")
        return None


def _wait_child(child) -> tuple[int, int | None]:
    maxrss = None
    while True:
        try:
            _, status, usage = os.wait4(child.pid, 0)
            rc = os.waitstatus_to_exitcode(status)
            maxrss = int(usage.ru_maxrss) * 1024
            break
        except InterruptedError:  # pragma: no cover - PEP 475 retries, kept for safety
            continue
        except ChildProcessError:
            rc = child.returncode if child.returncode is not None else -1
            break
    child.returncode = rc
    return rc, maxrss


def _start_gated(d: Path, command: list[str], cwd: str, env: dict, log_path: Path, cgroup: str | None, state: dict,
                 ready_fd: int | None):
    """Start `command` behind the gate and record it; (child, cgroup) or an exit code when it could not start."""
    try:
        log = open(log_path, "ab", buffering=0)
    except OSError as exc:
        procs.remove_cgroup(cgroup)
        _report(ready_fd, f"error: {rd.disk_full_error(exc, d)}")
        return 2
    gate_r, gate_w = os.pipe()
    try:
        child = subprocess.Popen(
            ["/bin/sh", "-c", 'read _ || exit 125; exec </dev/null; exec "$@"', "rocm-tune-gate", *command],
            cwd=cwd,
            env=env,
            stdin=gate_r,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        os.close(gate_r)
        os.close(gate_w)
        log.close()
        procs.remove_cgroup(cgroup)
        return _fail_start(d, log_path, ready_fd, f"cannot start {command[0]!r}: {exc.strerror or exc}", 126)
    finally:
        log.close()
    os.close(gate_r)
    if cgroup and not procs.cgroup_add(cgroup, child.pid):
        procs.remove_cgroup(cgroup)
        cgroup = state["cgroup"] = None
    try:
        rd.update_run_json(
            d,
            pid=child.pid,
            pgid=child.pid,
            pid_start=procs.proc_start_time(child.pid),
            supervisor_pid=os.getpid(),
            supervisor_start=procs.proc_start_time(os.getpid()),
            cgroup=cgroup,
            started_at=time.time(),
        )
    except OSError as exc:
        # not recorded: the gated process never ran the command; end it before it can
        os.close(gate_w)
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        child.wait()
        procs.remove_cgroup(cgroup)
        _report(ready_fd, f"error: {rd.disk_full_error(exc, d / rd.RUN_JSON)}; the command was not started")
        return 2
    if not state["stop"]:  # a stop that came before the start: the command never runs
        try:
            os.write(gate_w, b"go\n")
        except OSError:
            pass
    os.close(gate_w)
    _report(ready_fd, f"ok {child.pid}")
    return child, cgroup


def _fail_start(d: Path, log_path: Path, ready_fd: int | None, msg: str, code: int) -> int:
    _note(log_path, msg)
    try:
        rd.update_run_json(d, supervisor_pid=os.getpid(), supervisor_start=procs.proc_start_time(os.getpid()),
                           started_at=time.time())
        _write_exit(d, {"status": "failed", "returncode": code, "signal": None, "ended_at": time.time(),
                        "reason": msg})
    except OSError:
        pass
    _report(ready_fd, f"error: {msg}")
    return code



def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        print("usage: python -m rocm_tune.core.runs.launch.supervisor RUN_DIR [READY_FD] [--no-fork]", file=sys.stderr)
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
