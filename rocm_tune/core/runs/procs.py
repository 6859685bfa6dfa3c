"""Process identity and tracking of runs (psutil; a cgroup v2 where the system allows it).

A run's processes are found three ways, so none escapes:
- the environment marker: the supervisor starts the command with `ROCM_TUNE_RUN_ID=<id>`; every
  descendant inherits it, also ones that double-fork, `setsid` or start a session of their own
  (torchrun workers), so a scan of every process's environment finds them after their parent died;
- the run's cgroup (`rocm-tune-<id>` under the supervisor's own cgroup v2), when it could be made:
  a process that clears its environment stays in it;
- the recorded pid with its start time.
A process is signalled only when its identity is confirmed: it carries the marker, or it is in the
run's cgroup. A pid or pgid written into run.json alone is never trusted (it may have been reused
or edited). Processes are read through psutil; the cgroup v2 files by hand (psutil has no cgroups).
"""

from __future__ import annotations

import os
import re
import signal as _signal
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # psutil is imported where used: its few tens of ms stay off `estimate` and the app's start
    import psutil

MARKER = "ROCM_TUNE_RUN_ID"
CGROUP_PREFIX = "rocm-tune-"
_RUN_ID_OK = re.compile(r"^[A-Za-z0-9._-]{1,120}$")


def have_proc() -> bool:
    return os.path.isdir("/proc/self")


def _proc(pid: int) -> psutil.Process | None:
    """psutil's handle of a live, non-zombie process; None when gone, unreadable or a bad pid."""
    import psutil

    try:
        pid = int(pid)
        if pid <= 0 or pid > 1 << 30:
            return None
        p = psutil.Process(pid)
        if p.status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
            return None
        return p
    except (psutil.Error, ValueError, OverflowError, TypeError):
        return None


def _ticks(p: psutil.Process) -> int:
    """Start time of `p` in clock ticks since boot: the unit run.json records (`pid_start`), from psutil's
    create time (boot time + ticks / CLK_TCK on Linux, so the conversion is exact)."""
    import psutil

    return round((p.create_time() - psutil.boot_time()) * os.sysconf("SC_CLK_TCK"))


def proc_stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, pgrp, session, starttime) of a live process, None if gone.

    Zombies count as gone. Returns None when the process cannot be read too (see pid_alive)."""
    import psutil

    p = _proc(pid)
    if p is None:
        return None
    try:
        with p.oneshot():
            state, start = p.status(), _ticks(p)
        return state, os.getpgid(p.pid), os.getsid(p.pid), start
    except (psutil.Error, OSError):
        return None


def proc_start_time(pid: int | None) -> int | None:
    """Start time of `pid` in clock ticks since boot (Linux), or None."""
    if not pid:
        return None
    st = proc_stat(pid)
    return st[3] if st else None


def proc_started_at(pid: int | None) -> float | None:
    """Unix time `pid` started, or None."""
    import psutil

    p = _proc(pid) if pid else None
    try:
        return p.create_time() if p is not None else None
    except psutil.Error:
        return None


def pid_alive(pid: int | None, start_time: int | None = None) -> bool:
    """True when `pid` runs and (when `start_time` is known) is the same process as recorded."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0 or pid > 1 << 30:
        return False
    if have_proc():
        st = proc_stat(pid)
        if st is None:
            return False
        return start_time is None or st[3] == start_time
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) pids whose process group is `pgid` ([] where processes cannot be listed)."""
    import psutil

    if not pgid or not have_proc():
        return []
    out = []
    for pid in psutil.pids():
        st = proc_stat(pid)
        if st is not None and st[1] == pgid:
            out.append(pid)
    return out


def group_alive(pgid: int | None) -> bool:
    if not pgid or pgid <= 0:
        return False
    if have_proc():
        return bool(group_members(pgid))
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


def process_tree(root: int, known: dict[int, int] | None = None) -> dict[int, int]:
    """{pid: starttime} of `root` and all its live descendants, plus still-live pids of `known`."""
    import psutil

    tree: dict[int, int] = {}
    for pid, start in (known or {}).items():
        if pid_alive(pid, start):
            tree[pid] = start
    p = _proc(root)
    if p is None:
        return tree
    try:
        family = [p] + p.children(recursive=True)
    except psutil.Error:
        family = [p]
    for q in family:
        st = proc_stat(q.pid)
        if st is not None:
            tree.setdefault(q.pid, st[3])
    return tree


def cmdline(pid: int) -> list[str]:
    """The command line of a live process ([] when gone or unreadable)."""
    import psutil

    p = _proc(pid)
    try:
        return p.cmdline() if p is not None else []
    except psutil.Error:
        return []


def children(pid: int, *, recursive: bool = False) -> list[int]:
    """Pids of the live children (all descendants with `recursive`) of `pid`; [] when gone or unreadable."""
    import psutil

    p = _proc(pid)
    try:
        return [c.pid for c in p.children(recursive=recursive)] if p is not None else []
    except psutil.Error:
        return []


# ----------------------------------------------------------------------------------------------
# the environment marker


def environ(pid: int) -> dict[str, str] | None:
    """The environment `pid` was started with (None: gone or unreadable)."""
    import psutil

    p = _proc(pid)
    try:
        return p.environ() if p is not None else None
    except psutil.Error:
        return None


def environ_marker(pid: int) -> str | None:
    """The ROCM_TUNE_RUN_ID in the environment `pid` was started with (None: none or unreadable)."""
    env = environ(pid)
    return env.get(MARKER) if env else None


def scan_marked() -> dict[str, dict[int, int]]:
    """{run id: {pid: starttime}} of every live process that carries a run-id marker (one process scan)."""
    import psutil

    out: dict[str, dict[int, int]] = {}
    if not have_proc():
        return out
    me = os.getpid()
    for pid in psutil.pids():
        if pid == me:
            continue
        rid = environ_marker(pid)
        if rid is None:
            continue
        st = proc_stat(pid)
        if st is None:
            continue
        out.setdefault(rid, {})[pid] = st[3]
    return out


def marked_processes(run_id: str) -> dict[int, int]:
    """{pid: starttime} of live processes whose environment carries this run id."""
    return scan_marked().get(run_id, {})


def confirmed(pid: int, run_id: str, cgroup: str | None = None) -> bool:
    """True only when `pid` is live and provably the run's: it carries the marker or is in its cgroup."""
    if proc_stat(pid) is None:
        return False
    if environ_marker(pid) == run_id:
        return True
    return bool(cgroup) and pid in cgroup_members(cgroup)


def is_supervisor(pid: int, run_dir: str | os.PathLike) -> bool:
    """True only when `pid` is live and its command line is rocm-tune's supervisor of `run_dir`
    (`python -m rocm_tune.core.runs.launch.supervisor RUN_DIR ...`): a supervisor pid written in run.json,
    even with its start time, proves nothing by itself."""
    if proc_stat(pid) is None:
        return False
    argv = cmdline(pid)
    mod = "rocm_tune.core.runs.launch.supervisor"
    if mod not in argv or argv.index(mod) + 1 >= len(argv):
        return False
    try:
        return os.path.samefile(argv[argv.index(mod) + 1], os.fspath(run_dir))
    except OSError:
        return False


# ----------------------------------------------------------------------------------------------
# cgroup v2 (best effort)


def _cgroup2_mount() -> str | None:
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 3 and parts[2] == "cgroup2":
                    return parts[1]
    except OSError:
        return None
    return None


def _own_cgroup() -> str | None:
    try:
        with open("/proc/self/cgroup", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        return None
    return None


def create_cgroup(run_id: str) -> str | None:
    """Make `rocm-tune-<id>` beside the caller's cgroup v2; its path, or None where not allowed."""
    if os.environ.get("ROCM_TUNE_NO_CGROUP") or not _RUN_ID_OK.match(run_id or ""):
        return None
    mount = _cgroup2_mount()
    own = _own_cgroup()
    if not mount or own is None:
        return None
    base = os.path.join(mount, own.lstrip("/"))
    path = os.path.join(base, CGROUP_PREFIX + run_id)
    try:
        os.mkdir(path)
    except FileExistsError:
        pass
    except OSError:
        return None
    if not os.access(os.path.join(path, "cgroup.procs"), os.W_OK):
        remove_cgroup(path)
        return None
    return path


def valid_cgroup(path: object, run_id: str) -> bool:
    """A cgroup path from run.json is used only if it is this run's: under a cgroup2 mount, named for it."""
    if not isinstance(path, str) or not os.path.isabs(path) or ".." in path.split("/"):
        return False
    mount = _cgroup2_mount()
    if not mount or not path.startswith(mount.rstrip("/") + "/"):
        return False
    return os.path.basename(path) == CGROUP_PREFIX + run_id


def cgroup_add(path: str, pid: int) -> bool:
    try:
        with open(os.path.join(path, "cgroup.procs"), "w") as fh:
            fh.write(f"{int(pid)}\n")
        return True
    except OSError:
        return False


def cgroup_members(path: str | None) -> list[int]:
    if not path:
        return []
    try:
        with open(os.path.join(path, "cgroup.procs"), encoding="ascii", errors="replace") as fh:
            pids = [int(x) for x in fh.read(1 << 20).split() if x.isdigit()]
    except OSError:
        return []
    return [p for p in pids if proc_stat(p) is not None]


def remove_cgroup(path: str | None) -> None:
    if path:
        try:
            os.rmdir(path)
        except OSError:
            pass


# ----------------------------------------------------------------------------------------------
# a run's processes, and signalling them


def run_processes(run_id: str, *, cgroup: str | None = None, pid: int | None = None,
                  pid_start: int | None = None, marked: dict[str, dict[int, int]] | None = None) -> dict[int, int]:
    """{pid: starttime} of every live process of the run: marker ∪ cgroup ∪ recorded pid (start confirmed)."""
    scan = marked if marked is not None else scan_marked()
    out = dict(scan.get(run_id, {}))
    for p in cgroup_members(cgroup):
        st = proc_start_time(p)
        if st is not None:
            out.setdefault(p, st)
    out.pop(os.getpid(), None)
    if pid and pid_start is not None and pid_alive(pid, pid_start):
        out.setdefault(pid, pid_start)
    return out


def signal_run(run_id: str, sig: int, *, cgroup: str | None = None, pgid: int | None = None,
               pgid_start: int | None = None) -> int:
    """Send `sig` to every confirmed process of the run; returns how many were signalled.

    The process group is signalled as a whole only when its leader (pid == pgid, start time as
    recorded) carries the run's marker; members are otherwise signalled one by one after their
    own identity check."""
    n = 0
    if pgid and pgid_start is not None and pid_alive(pgid, pgid_start) and environ_marker(pgid) == run_id:
        st = proc_stat(pgid)
        if st is not None and st[1] == pgid:
            try:
                os.killpg(pgid, sig)
                n += 1
            except OSError:
                pass
    if cgroup and sig == _signal.SIGKILL and os.path.exists(os.path.join(cgroup, "cgroup.kill")):
        try:
            with open(os.path.join(cgroup, "cgroup.kill"), "w") as fh:
                fh.write("1\n")
            n += 1
        except OSError:
            pass
    me = os.getpid()
    targets = set(marked_processes(run_id)) | set(cgroup_members(cgroup))
    for p in targets:
        if p == me:
            continue
        try:
            os.kill(p, sig)
            n += 1
        except OSError:
            pass
    return n


def wait_gone(run_id: str, timeout: float, *, cgroup: str | None = None, poll: float = 0.05) -> bool:
    """Wait until no process of the run is left (two empty scans in a row); True when gone."""
    deadline = time.time() + timeout
    empty = 0
    while True:
        if run_processes(run_id, cgroup=cgroup):
            empty = 0
        else:
            empty += 1
            if empty >= 2:
                return True
        if time.time() >= deadline:
            return False
        time.sleep(poll)
