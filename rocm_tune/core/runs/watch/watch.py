"""Watch any training run: resolve a target, follow its logs, keep history, raise alerts.

Public API (stable; the TUI monitor, `attach` and `demo` use only this):

    target = resolve_target("20250101-120000-qwen-ab12")   # or a run dir, output dir, log file, PID
    snap = snapshot(target)            # one-shot Snapshot (attach --once --json); snap.to_dict()
    w = Watcher(target)                # incremental: w.poll() -> PollResult(events, new_alerts, ...)
    w.history                          # history.History (series, step, loss, ETA, ...)
    w.alerts                           # active alerts.Alert list (w.alert_engine.all: every one fired)
    w.process                          # ProcessState (alive / status / exit code)
    w.log_tail                         # last raw log lines (deque of str)
    stream_plain(target, out=sys.stdout, follow=True) -> int   # one line per logged step

TARGET kinds:
- `run`: a rocm-tune run id / prefix / name (registry.find_run) -> its run directory;
- `rundir`: a directory with run.json: metrics.jsonl (primary) + stdout.log (aux), pid, exit.json;
- `outdir`: a LLaMA-Factory / HF output directory: trainer_log.jsonl (primary) or trainer_state.json
  (+ checkpoint-*/trainer_state.json), running_log.txt / *.log as text;
- `file`: one log file (kind sniffed: metrics.jsonl, trainer_log.jsonl, trainer_state.json or text);
- `pid`: a live process: its stdout/stderr files (/proc/PID/fd/1, 2), other open *.log/*.txt/*.jsonl
  files, and the output_dir named on its command line or in the YAML it was given (LLaMA-Factory).

Primary sources give the steps; aux (text) sources add tqdm progress, OOM / overflow / failure
signatures and the end-of-training line, but their step dicts are ignored so steps never count twice.
"""

from __future__ import annotations

import math
import os
import re
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import decode_log_head, try_read_json, try_read_yaml
from rocm_tune.core.runs.watch.alerts import Alert, AlertEngine, RunContext, load_context
from rocm_tune.core.runs.watch.history import History, LossSmoother, _json_num, metrics_json
from rocm_tune.core.runs.watch.parsers import Event
from rocm_tune.core.runs.watch.sources import LOOK_TAIL, make_source, sniff_kind

SOURCE_KINDS = ("metrics", "llamafactory", "trainer_state", "text")
TARGET_KINDS = ("run", "rundir", "outdir", "file", "pid")
TEXT_LOG_NAMES = ("running_log.txt", "train.log", "training.log", "nohup.out", "stdout.log", "output.log", "log.txt")
_AUX_KEEP = frozenset(("progress", "overflow", "oom", "signal", "error", "end"))
# the exported slurm.sbatch's line when a requeued job starts again (core/export/slurm.py)
_REQUEUE = re.compile(r"rocm-tune: restart (\d{1,6}): resuming")


def restarts_of(run_dir: str | None) -> list[dict]:
    """The restarts run.json records (`rocm-tune resume`, OOM retries: core.runs.resume.resume.record_restart,
    supervisor), one dict each: n, reason (resume | oom-retry | ...), step (the checkpoint's, None = from the start),
    at (unix time), checkpoint, detail (what changed)."""
    if not run_dir:
        return []
    meta = try_read_json(os.path.join(run_dir, "run.json"))
    got = meta.get("restarts") if isinstance(meta, dict) else None
    out = []
    for i, r in enumerate(got if isinstance(got, list) else []):
        if not isinstance(r, dict):
            continue
        step = r.get("step")
        detail = r.get("change")
        if detail is None and r.get("world_before") != r.get("world_after") and r.get("world_after"):
            detail = f"world size {r.get('world_before')} -> {r.get('world_after')}"
        out.append({"n": r.get("n") if isinstance(r.get("n"), int) else i + 1,
                    "reason": str(r.get("reason") or "restart"),
                    "step": step if isinstance(step, int) and not isinstance(step, bool) else None,
                    "at": r.get("at") if _finite_time(r.get("at")) else None,
                    "checkpoint": r.get("checkpoint") if isinstance(r.get("checkpoint"), str) else None,
                    "detail": detail if isinstance(detail, str) else None})
    return out


def restart_line(r: dict) -> str:
    """`restart 1 at step 4 (resume) 2026-11-25 19:40:02 UTC, from checkpoint-4: world size 2 -> 1`."""
    at = time.strftime(" %Y-%m-%d %H:%M:%S UTC", time.gmtime(r["at"])) if r.get("at") else ""
    step = f"step {r['step']}" if r.get("step") is not None else "the start"
    text = f"restart {r['n']} at {step} ({r['reason']}){at}"
    if r.get("checkpoint"):
        text += f", from {os.path.basename(r['checkpoint'].rstrip('/'))}"
    if r.get("detail"):
        text += f": {r['detail']}"
    return text


@dataclass(frozen=True)
class SourceSpec:
    kind: str    # metrics | llamafactory | trainer_state | text
    path: str    # file (or, for trainer_state, the output dir to search)
    role: str = "primary"   # primary (steps) | aux (signals, progress, end)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "path": self.path, "role": self.role}


@dataclass(frozen=True)
class Target:
    spec: str                       # what the user typed
    kind: str                       # run | rundir | outdir | file | pid
    sources: tuple[SourceSpec, ...]
    run_dir: str | None = None
    run_id: str | None = None
    output_dir: str | None = None
    pid: int | None = None
    config_path: str | None = None  # training YAML found for the run (alerts use its numbers)
    title: str = ""

    @property
    def source_kind(self) -> str:
        """The kind of the primary source ('none' when there is none)."""
        for s in self.sources:
            if s.role == "primary":
                return s.kind
        return self.sources[0].kind if self.sources else "none"

    def to_dict(self) -> dict:
        return {"spec": self.spec, "kind": self.kind, "run_dir": self.run_dir, "run_id": self.run_id,
                "output_dir": self.output_dir, "pid": self.pid, "config_path": self.config_path,
                "sources": [s.to_dict() for s in self.sources]}


@dataclass(frozen=True)
class ProcessState:
    pid: int | None = None
    alive: bool | None = None       # None: no process known
    status: str = "unknown"         # running | finished | failed | stopped | lost | exited | unknown
    exit_code: int | None = None
    signal: int | None = None
    ended_at: float | None = None
    reason: str | None = None       # why it ended: "disk full", the OOM killer, the error line of a crash
    processes: int | None = None    # live processes of a rocm-tune run (marker, cgroup)
    note: str | None = None         # e.g. "main process exited (0); 2 processes still running"
    problem: str | None = None      # status corrupt: what is wrong with run.json
    stopped_by_user: bool = False   # status stopped because `rocm-tune stop` (or the app) asked

    def to_dict(self) -> dict:
        return {"pid": self.pid, "alive": self.alive, "status": self.status, "exit_code": self.exit_code,
                "signal": self.signal, "ended_at": self.ended_at, "reason": self.reason,
                "processes": self.processes, "note": self.note, "problem": self.problem,
                "stopped_by_user": self.stopped_by_user}


# ------------------------------------------------------------------------------ resolve
def _has(d: str, name: str) -> bool:
    return os.path.exists(os.path.join(d, name))


def _outdir_sources(d: str, role_text: str = "aux") -> list[SourceSpec]:
    """Sources of a LLaMA-Factory / HF output directory (may be empty)."""
    out: list[SourceSpec] = []
    import glob

    if _has(d, "metrics.jsonl"):
        out.append(SourceSpec("metrics", os.path.join(d, "metrics.jsonl")))
    if _has(d, "trainer_log.jsonl"):
        out.append(SourceSpec("llamafactory", os.path.join(d, "trainer_log.jsonl"), "aux" if out else "primary"))
    has_state = _has(d, "trainer_state.json") or glob.glob(os.path.join(glob.escape(d), "checkpoint-*", "trainer_state.json"))
    if has_state:
        out.append(SourceSpec("trainer_state", d, "aux" if out else "primary"))
    for name in TEXT_LOG_NAMES:
        if _has(d, name):
            out.append(SourceSpec("text", os.path.join(d, name), role_text if out else "primary"))
    return out


def _files(pid: int) -> list[tuple[str, int, bool]]:
    """(path, fd, open for writing) of the regular files pid holds open ([] when it cannot be read).
    psutil reads the mode from /proc/PID/fdinfo: 'w', 'a', 'r+', 'a+' write, 'r' only reads."""
    import psutil

    try:
        return [(f.path, f.fd, f.mode != "r") for f in psutil.Process(pid).open_files()]
    except (psutil.Error, ValueError):
        return []


def _open_files(pid: int) -> list[str]:
    """Paths of the regular files pid holds open."""
    return [path for path, _fd, _w in _files(pid)]


def _proc_cwd(pid: int) -> str | None:
    import psutil

    try:
        return psutil.Process(pid).cwd() or None
    except (psutil.Error, ValueError):
        return None


def _proc_cmdline(pid: int) -> list[str]:
    from rocm_tune.core.runs.procs import cmdline

    return [a for a in cmdline(pid) if a]


def _proc_children(pid: int) -> list[int]:
    from rocm_tune.core.runs.procs import children

    return children(pid)


def output_dir_from_cmdline(args: Sequence[str], cwd: str | None) -> tuple[str | None, str | None]:
    """(output_dir, config_path) from a training command line: --output_dir X, output_dir=X, or a YAML."""
    outdir = None
    config = None
    for i, a in enumerate(args):
        if a in ("--output_dir", "--output-dir") and i + 1 < len(args):
            outdir = args[i + 1]
        elif a.startswith(("--output_dir=", "--output-dir=", "output_dir=")):
            outdir = a.split("=", 1)[1]
        elif a.endswith((".yaml", ".yml")) and config is None:
            config = a if os.path.isabs(a) or not cwd else os.path.join(cwd, a)
    if outdir is None and config:
        y = try_read_yaml(config)
        if y and isinstance(y.get("output_dir"), str):
            outdir = y["output_dir"]
    if outdir and cwd and not os.path.isabs(outdir):
        outdir = os.path.join(cwd, outdir)
    return outdir, config


def _written_files(pid: int) -> list[str]:
    """Paths of the files pid holds open FOR WRITING ([] when it cannot be read): a reader of a log
    (`tail -f`, another monitor) is never its writer."""
    return [path for path, _fd, writes in _files(pid) if writes]


_LAUNCHERS = ("python", "torchrun", "deepspeed", "accelerate", "llamafactory-cli", "lmf", "axolotl", "swift", "srun",
              "mpirun", "rocm-tune")


def _launcher_cmd(args: Sequence[str]) -> bool:
    """The command line is a training launcher's (python, torchrun, deepspeed, accelerate, llamafactory-cli, ...):
    an editor or pager that names the YAML (`vim train.yaml`, `less train.yaml`) is not the run."""
    return os.path.basename(args[0]).startswith(_LAUNCHERS)


def find_writer_pid(paths: Sequence[str], dirs: Sequence[str] = (), cmd_dirs: Sequence[str] = ()) -> int | None:
    """A live process that has one of `paths` (or a file under `dirs`) open FOR WRITING, or whose command
    line / YAML names one of `cmd_dirs` as output_dir. Processes that only read the log (`tail -f`, a
    monitor) are never taken. One scan of the processes (Linux); None when nothing matches."""
    if not os.path.isdir("/proc/self"):
        return None
    want = {os.path.realpath(p) for p in paths}
    want_dirs = tuple(os.path.realpath(d) + os.sep for d in dirs)
    want_cmd = {os.path.realpath(d) for d in cmd_dirs}
    me = os.getpid()
    import psutil

    for pid in psutil.pids():
        if pid == me:
            continue
        links = _open_files(pid)
        if any(link in want or (want_dirs and link.startswith(want_dirs)) for link in links):
            written = _written_files(pid)
            if any(link in want or (want_dirs and link.startswith(want_dirs)) for link in written) \
                    and _pid_alive(pid):
                return pid
        if want_cmd:
            args = _proc_cmdline(pid)
            if args and _launcher_cmd(args) and any(a.endswith((".yaml", ".yml")) or "output_dir" in a or "output-dir" in a for a in args):
                od, _ = output_dir_from_cmdline(args, _proc_cwd(pid))
                if od and os.path.realpath(od) in want_cmd and _pid_alive(pid):
                    return pid
    return None


def _pid_target(spec: str, pid: int) -> Target:
    sources: list[SourceSpec] = []
    seen: set[str] = set()
    procs = [pid] + _proc_children(pid)
    for p in list(procs):
        procs += [c for c in _proc_children(p) if c not in procs]
    for p in procs[:64]:
        for link, fd, _w in sorted(_files(p), key=lambda f: f[1]):
            if fd in (1, 2) and link.startswith("/") and os.path.isfile(link) and link not in seen:
                seen.add(link)
                sources.append(SourceSpec("text", link, "primary"))
    for p in procs[:64]:
        for link in _written_files(p):   # its own logs: files it writes, not ones it only reads
            if link in seen or not link.startswith("/") or link.startswith(("/dev/", "/proc/", "/sys/")):
                continue
            base = os.path.basename(link)
            if base in ("metrics.jsonl", "trainer_log.jsonl") or base.endswith((".log", ".out")) or \
                    base in TEXT_LOG_NAMES:
                if os.path.isfile(link):
                    seen.add(link)
                    sources.append(SourceSpec(sniff_kind(link), link, "primary"))
    cwd = _proc_cwd(pid)
    outdir, config = output_dir_from_cmdline(_proc_cmdline(pid), cwd)
    if outdir is None:
        for c in procs[1:16]:
            outdir, cfg2 = output_dir_from_cmdline(_proc_cmdline(c), _proc_cwd(c))
            config = config or cfg2
            if outdir:
                break
    run_dir = None
    for s in sources:
        d = os.path.dirname(s.path)
        if _has(d, "run.json"):
            run_dir = d
    extra: list[SourceSpec] = []
    if run_dir:
        extra = [SourceSpec("metrics", os.path.join(run_dir, "metrics.jsonl"))]
    if outdir:
        # LLaMA-Factory creates trainer_log.jsonl only at the first logged step: watch for it anyway.
        od = _outdir_sources(outdir)
        if not any(s.kind == "llamafactory" for s in od):
            od.insert(0, SourceSpec("llamafactory", os.path.join(outdir, "trainer_log.jsonl")))
        extra += [s for s in od if s.path not in seen]
    # structured sources first and primary; text logs become aux when there is a structured one
    ordered = extra + sources
    structured = any(s.kind != "text" for s in ordered)
    final: list[SourceSpec] = []
    primary_taken = False
    for s in ordered:
        role = "aux"
        if not primary_taken and (s.kind != "text" or not structured):
            role, primary_taken = "primary", True
        final.append(SourceSpec(s.kind, s.path, role))
    cmd = " ".join(_proc_cmdline(pid))[:80]
    return Target(spec, "pid", tuple(final), run_dir=run_dir, output_dir=outdir, pid=pid, config_path=config,
                  title=f"PID {pid}: {cmd}" if cmd else f"PID {pid}")


def _rundir_target(spec: str, d: str, kind: str = "rundir", run_id: str | None = None) -> Target:
    meta = try_read_json(os.path.join(d, "run.json"), {}) or {}
    if not isinstance(meta, dict):
        meta = {}
    srcs = [SourceSpec("metrics", os.path.join(d, "metrics.jsonl")), SourceSpec("text", os.path.join(d, "stdout.log"), "aux")]
    # a run that wraps llamafactory-cli: its output_dir has trainer_log.jsonl when there is no metrics.jsonl
    raw_cmd, raw_cwd = meta.get("command"), meta.get("cwd")
    cmd: list = raw_cmd if isinstance(raw_cmd, list) else []
    outdir, config = output_dir_from_cmdline([str(c) for c in cmd], raw_cwd if isinstance(raw_cwd, str) else d)
    if config is None:
        for name in ("llamafactory.yaml", "train.yaml"):
            if _has(d, name):
                config = os.path.join(d, name)
                break
    if outdir and os.path.abspath(outdir) != os.path.abspath(d) and not _has(d, "metrics.jsonl"):
        srcs = [SourceSpec("llamafactory", os.path.join(outdir, "trainer_log.jsonl")),
                SourceSpec("metrics", os.path.join(d, "metrics.jsonl"), "aux"),
                SourceSpec("text", os.path.join(d, "stdout.log"), "aux")]
    rid = run_id or (meta.get("id") if isinstance(meta.get("id"), str) else None)
    run_name = meta.get("name") if isinstance(meta.get("name"), str) else None
    pid = meta.get("pid") if isinstance(meta.get("pid"), int) else None
    return Target(spec, kind, tuple(srcs), run_dir=d, run_id=rid, output_dir=outdir, pid=pid, config_path=config,
                  title=run_name or rid or d)


def _registry_target(spec: str) -> Target | None:
    from rocm_tune.core.runs.registry import run_candidates

    cands = run_candidates(spec)
    if not cands:
        return None
    from rocm_tune.core.runs.registry import find_run

    info = find_run(spec)  # duplicates: the running one, or a UserError asking for the id
    return _rundir_target(spec, str(info.dir), kind="run", run_id=info.id)


def _check_readable_file(spec: str, path: str) -> None:
    """A log file must be a regular file we may read: FIFOs, devices and sockets are refused."""
    import stat as _stat

    try:
        st = os.stat(path)
    except PermissionError:
        raise UserError(f"{spec!r}: permission denied") from None
    except OSError as exc:
        raise UserError(f"{spec!r}: {exc.strerror or exc}") from None
    if not _stat.S_ISREG(st.st_mode):
        raise UserError(f"{spec!r} is not a regular file (a FIFO, device or socket); give a log file, "
                        "run directory, run id or PID")
    if not os.access(path, os.R_OK):
        raise UserError(f"{spec!r}: permission denied (cannot read the log)")


def _outdir_target(spec: str, path: str) -> Target:
    """A directory without run.json: a trainer's output directory, or a directory with one log file."""
    srcs = _outdir_sources(path)
    if not srcs:
        try:
            names = os.listdir(path)[:10000]
        except OSError as exc:
            raise UserError(f"{spec!r}: {exc.strerror or exc}") from None
        logs = sorted(f for f in names if f.endswith((".log", ".jsonl", ".txt", ".out"))
                      and os.path.isfile(os.path.join(path, f)))
        if len(logs) == 1:
            f = os.path.join(path, logs[0])
            srcs = [SourceSpec(sniff_kind(f), f)]
    if not srcs:
        raise UserError(f"{spec!r} is a directory with no run.json, metrics.jsonl, trainer_log.jsonl, "
                        "trainer_state.json or log file; give a run id, run/output directory, log file or PID")
    config = None
    for name in ("train.yaml", "llamafactory.yaml", "training_args.yaml"):
        if _has(path, name):
            config = os.path.join(path, name)
            break
    pid = find_writer_pid([s.path for s in srcs if s.kind != "trainer_state"], cmd_dirs=[path])
    return Target(spec, "outdir", tuple(srcs), output_dir=path, pid=pid, config_path=config, title=path)


_MAX_PID = 1 << 22


def resolve_target(target: str | Target) -> Target:
    """What to watch for TARGET (see the module doc). UserError when it is none of the kinds.

    A bare word (no `/`, not starting with `~` or `.`) is looked up in the run registry first, so a
    run named `hd` is found even where a directory `./hd/` exists; paths are used as paths."""
    if isinstance(target, Target):
        return target
    if not isinstance(target, str) or not target.strip():
        raise UserError("attach needs a TARGET: a run id, run directory, output directory, log file or PID")
    spec = target.strip()
    if "\0" in spec or len(spec) > 4096:
        raise UserError("attach TARGET must be a run id, path or PID (no NUL, at most 4096 characters)")
    bare = os.sep not in spec and not spec.startswith(("~", "."))
    digits = spec.isascii() and spec.isdigit()  # a PID is ASCII digits only: never '²' or '٣'
    if bare and not digits:
        t = _registry_target(spec)
        if t is not None:
            return t
    path = os.path.abspath(os.path.expanduser(spec))
    if os.path.isdir(path):
        if not os.access(path, os.R_OK | os.X_OK):
            raise UserError(f"{spec!r}: permission denied (cannot read the directory)")
        if _has(path, "run.json"):
            return _rundir_target(spec, path)
        return _outdir_target(spec, path)
    if os.path.lexists(path) and not digits:
        _check_readable_file(spec, path)
        kind = sniff_kind(path)
        d = os.path.dirname(path)
        srcs = [SourceSpec(kind, d if kind == "trainer_state" and os.path.basename(path) == "trainer_state.json"
                           and not os.path.basename(d).startswith("checkpoint-") else path)]
        run_dir = d if _has(d, "run.json") else None
        pid = None
        run_id = None
        if run_dir:
            rt = _rundir_target(spec, run_dir)
            pid, run_id = rt.pid, rt.run_id
            srcs += [s for s in rt.sources if s.path != path and s.kind != "text"]
            srcs = [srcs[0]] + [SourceSpec(s.kind, s.path, "aux") for s in srcs[1:]]
        if pid is None:
            pid = find_writer_pid([path])
        return Target(spec, "file", tuple(srcs), run_dir=run_dir, run_id=run_id, pid=pid, title=path)
    if digits:
        pid = int(spec) if len(spec) <= 12 else _MAX_PID + 1
        if 0 < pid <= _MAX_PID:
            if os.path.isdir(f"/proc/{pid}"):
                return _pid_target(spec, pid)
            try:
                os.kill(pid, 0)
                return Target(spec, "pid", (), pid=pid, title=f"PID {pid}")
            except (ProcessLookupError, PermissionError, OSError, OverflowError):
                pass
        t = _registry_target(spec)
        if t is not None:
            return t
        if os.path.isfile(path):
            _check_readable_file(spec, path)
            return Target(spec, "file", (SourceSpec(sniff_kind(path), path),), title=path)
        raise UserError(f"no process with PID {spec} and no run, directory or file named {spec!r}")
    if not bare:
        t = _registry_target(spec)
        if t is not None:
            return t
    raise UserError(f"unknown target {spec!r}: not a run id/name, run directory, output directory, log file "
                    "or running PID (see `rocm-tune runs`)")


# ------------------------------------------------------------------------------ process
def _pid_alive(pid: int) -> bool:
    from rocm_tune.core.runs.rundir import pid_alive

    return pid_alive(pid)


def process_state(target: Target, history: History | None = None, log_tail: Iterable[str] = ()) -> ProcessState:
    """Alive / exit status of the run's process, from exit.json, run.json's pid or the PID, else from
    what the files say: an end record, trainer_state.json's `should_training_stop` / `global_step ==
    max_steps`, the last step reaching total_steps, or an error as the last lines of the log with no
    progress after it (failed, with that line as the reason)."""
    if target.run_dir and _has(target.run_dir, "run.json"):
        try:
            from rocm_tune.core.runs.rundir import load_run

            info = load_run(target.run_dir, run_id=target.run_id)
            alive = info.status == "running"
            if info.status == "corrupt":
                return ProcessState(None, bool(info.processes) or None, "corrupt", problem=info.problem,
                                    processes=info.processes, note=info.note)
            reason = info.reason
            if info.status in ("failed", "lost") and not reason:
                reason = trailing_error(log_tail)
            return ProcessState(info.pid, alive, info.status, info.returncode, info.signal, info.ended_at,
                                reason=reason, processes=info.processes, note=info.note,
                                stopped_by_user=info.stopped_by_user)
        except (UserError, OSError):
            pass
    if target.pid:
        if _pid_alive(target.pid):
            return ProcessState(target.pid, True, "running")
        if history is not None and history.ended:
            return ProcessState(target.pid, False, "finished" if history.end_status in (None, "finished")
                                else history.end_status, 0 if history.end_status in (None, "finished") else None)
        err = trailing_error(log_tail)
        if err:
            return ProcessState(target.pid, False, "failed", reason=err)
        return ProcessState(target.pid, False, "exited")
    if history is not None and history.ended:
        st = history.end_status or "finished"
        return ProcessState(None, None, st, None)
    err = trailing_error(log_tail)
    if err:
        return ProcessState(None, False, "failed", reason=err)
    if history is not None and history.total_steps and history.step is not None and history.step >= history.total_steps:
        return ProcessState(None, None, "finished")
    return ProcessState()


_WORLD = re.compile(r"(?:world size|world_size|WORLD_SIZE)\s*[:=]\s*(\d{1,7})\b")
_DTYPE = re.compile(r"compute dtype:\s*(torch\.\w+|None|\w+)")
_ERR_HEAD = re.compile(r"^(?:\[(?:rank|default)\d+\]:\s*)?(?:[\w.]*(?:Error|Exception)|Traceback \(most recent call "
                       r"last\)|Killed|Segmentation fault|Aborted|terminate called|FATAL|Fatal Python error)\b")


def trailing_error(lines: Iterable[str]) -> str | None:
    """The error line at the end of a log (a traceback's final line, `ValueError: ...`) when no
    training progress follows it; None otherwise."""
    from rocm_tune.core.runs.watch.parsers import TextParser

    tail = list(lines)[-200:]
    parser = TextParser()
    found = None
    for line in reversed(tail):
        text = line.strip()[:2000]
        if not text:
            continue
        if any(e.kind in ("step", "progress", "eval", "end") for e in parser.feed(text)):
            return found
        if found is None and _ERR_HEAD.match(text) and not text.startswith("Traceback"):
            found = text[:400]
        elif found is None and text.startswith("Traceback"):
            found = text[:400]
    return found


# ------------------------------------------------------------------------------ snapshot
@dataclass(frozen=True)
class Snapshot:
    target: Target
    time: float
    source_kind: str
    step: int | None
    total_steps: int | None
    progress: float | None
    epoch: float | None
    loss: float | None
    smoothed_loss: float | None
    learning_rate: float | None
    grad_norm: float | None
    eval_loss: float | None
    tokens_per_s: float | None
    samples_per_s: float | None
    step_time_s: float | None
    elapsed_s: float | None
    eta_s: float | None
    overflow_skips: int
    process: ProcessState
    gpu_backend: str
    gpus: tuple = ()
    alerts: tuple[Alert, ...] = ()
    history: dict = field(default_factory=dict)
    world_size: int | None = None     # from the log ("world size: 2"), else the plan's GPUs
    restarts: tuple = ()              # restarts_of() + requeues seen in the log: one loss curve, these marks on it
    segments: int = 1                 # times the run started; elapsed_s sums them all (a resume does not reset it)

    def to_dict(self) -> dict:
        t = self.target
        return {
            "target": t.spec,
            "kind": t.kind,
            "source_kind": self.source_kind,
            "sources": [s.to_dict() for s in t.sources],
            "run_id": t.run_id,
            "run_dir": t.run_dir,
            "output_dir": t.output_dir,
            "time": self.time,
            "step": self.step,
            "total_steps": self.total_steps,
            "progress": self.progress,
            "epoch": self.epoch,
            **metrics_json(self),
            "step_time_s": _json_num(self.step_time_s),
            "elapsed_s": _json_num(self.elapsed_s),
            "segments": self.segments,
            "eta_s": _json_num(self.eta_s),
            "overflow_skips": self.overflow_skips,
            "process": self.process.to_dict(),
            "alive": self.process.alive,
            "status": self.process.status,
            "exit_code": self.process.exit_code,
            "reason": self.process.reason,
            "world_size": self.world_size,
            "gpu_backend": self.gpu_backend,
            "gpus": [_sample_dict(g) for g in self.gpus],
            "alerts": [a.to_dict() for a in self.alerts],
            "restarts": [dict(r) for r in self.restarts],
        }


def _sample_dict(g: Any) -> dict:
    if hasattr(g, "to_dict"):
        try:
            return g.to_dict()
        except Exception:
            pass
    import dataclasses

    if dataclasses.is_dataclass(g):
        out = {}
        for f in dataclasses.fields(g):
            v = getattr(g, f.name)
            out[f.name] = v if isinstance(v, (int, float, str, type(None), list, tuple)) else None
        return out
    return {"value": str(g)}


# ------------------------------------------------------------------------------ watcher
@dataclass(frozen=True)
class PollResult:
    events: tuple[Event, ...]        # the newest events of this poll (at most Watcher.max_events)
    n_events: int                    # how many events this poll parsed in all
    new_alerts: tuple[Alert, ...]
    lines: int                       # raw lines read
    process: ProcessState

    @property
    def changed(self) -> bool:
        return bool(self.n_events or self.new_alerts or self.lines)


ENDED_STATUSES = frozenset(("finished", "failed", "stopped", "lost", "exited", "corrupt"))
DISK_CHECK_S = 30.0   # how often a running run's free space is compared with one checkpoint (disk-will-fill)


class Watcher:
    """Incremental polling of one target (the TUI calls poll() from a worker thread).

    clock: injectable time source (unix seconds), used for stall checks and to time-stamp events of
    sources that carry no time. gpus: True = sample local GPUs via rocm_tune.core.hardware.devices.detect()
    at each poll, False = never, or a Backend object (anything with .name and .sample()).
    """

    def __init__(self, target: str | Target, *, clock: Callable[[], float] = time.time, gpus: Any = False,
                 history: History | None = None, context: RunContext | None = None, tail_lines: int = 200,
                 max_events: int = 2000, stall_factor: float = 5.0, stall_min_s: float = 120.0,
                 sample_first_read: bool = True, look: bool = False):
        self.target = resolve_target(target)
        self.clock = clock
        self.history = history or History()
        ctx = context or load_context(self.target.run_dir, self.target.config_path)
        self.alert_engine = AlertEngine(ctx, stall_factor=stall_factor, stall_min_s=stall_min_s)
        self.sources = [(s, make_source(s.kind, s.path)) for s in self.target.sources]
        self.log_tail: deque[str] = deque(maxlen=tail_lines)
        self.max_events = max_events
        self.sample_first_read = sample_first_read
        self.look = look                  # the first read takes a huge log's start and end only (poll_look)
        self.process = ProcessState(self.target.pid, None, "unknown")
        self.gpu_samples: tuple = ()
        self.gpu_backend_name = "none"
        self.gpu_backend_kind = "none"
        self._gpus = gpus
        self._backend = None if gpus is True or gpus is False else gpus
        self._polls = 0
        self._finished_sources = False
        self._promoted = not self._primary_exists()
        self.world_size: int | None = None
        self._startup_lines = 20000
        self.restarts = 0                 # times the primary log was rewritten from scratch
        self._started_at: float | None = None   # the run's own start (run_started_at), once known
        self._disk_checked = float("-inf")      # when disk-will-fill was last checked
        self.log_restarts: list[dict] = []      # `rocm-tune: restart N: resuming` lines (a requeued Slurm job)
        self._segments_sig: int | None = -1      # run.json's mtime when earlier_segments was read
        self._segments: tuple[float, int] = (0.0, 0)

    # attributes the TUI reads -------------------------------------------------
    @property
    def alerts(self) -> list[Alert]:
        """Active alerts (stall alerts clear when the run moves again)."""
        return list(self.alert_engine.active)

    @property
    def source_kind(self) -> str:
        """The source the steps come from now ('text' while a missing primary is stood in for)."""
        if self._promoted and any(s.kind == "text" for s in self.target.sources):
            return "text"
        return self.target.source_kind

    @property
    def title(self) -> str:
        return self.target.title or self.target.spec

    @property
    def status(self) -> str:
        return self.process.status

    @property
    def log_path(self) -> str | None:
        for s in self.target.sources:
            if s.kind == "text":
                return s.path
        return None

    # polling -------------------------------------------------------------------
    def _sample_gpus(self) -> None:
        if self._gpus is False:
            return
        try:
            if self._backend is None:
                from rocm_tune.core.hardware.devices import detect

                self._backend = detect()
            self.gpu_backend_name = str(getattr(self._backend, "name", "?"))
            self.gpu_backend_kind = str(getattr(self._backend, "kind", "?"))   # "synthetic": simulated GPUs
            self.gpu_samples = tuple(self._backend.sample())
        except Exception:
            self.gpu_samples = ()

    def poll(self) -> PollResult:
        first = self._polls == 0
        self._polls += 1
        now = self.clock()
        hist = self.history
        eng = self.alert_engine
        newest: deque[Event] = deque(maxlen=self.max_events)
        new_alerts: list[Alert] = []
        counts = [0, 0]
        was_alive = self.process.alive
        if first:
            self._prescan_text_heads()
        self._read(first, now, newest, new_alerts, counts)
        if first and hist.last_step_time is None:
            # a log without times: the newest write is when the last step was logged
            mt = [m for m in (src.mtime() for _, src in self.sources) if m is not None]
            if mt and hist.step is not None:
                hist.last_step_time = max(mt)
        if not first and hist.last_step_time is None and hist.step is not None:
            hist.last_step_time = now
        self.process = process_state(self.target, hist, self.log_tail)
        if self.process.alive is False and not self._finished_sources:
            self._finished_sources = True
            if was_alive is not False:
                # it died after our read: what it wrote last is there now
                self._read(False, now, newest, new_alerts, counts)
            for spec, src in self.sources:
                evs = src.finish()
                if spec.role == "aux":
                    evs = [e for e in evs if e.kind in _AUX_KEEP]
                hist.extend(evs)
                new_alerts += eng.feed_many(evs)
                newest.extend(evs)
            self.process = process_state(self.target, hist, self.log_tail)
        self._sample_gpus()
        new_alerts += eng.check(hist, now, self.process, self.gpu_samples)
        if first or now - self._disk_checked >= DISK_CHECK_S:  # a stat of the output dir, a walk of one checkpoint
            self._disk_checked = now
            new_alerts += eng.check_disk(self.target.output_dir, now, self.process.alive, hist.step)
        return PollResult(tuple(newest), counts[0], tuple(new_alerts), counts[1], self.process)

    def _read(self, first: bool, now: float, newest: deque, new_alerts: list, counts: list) -> None:
        hist = self.history
        eng = self.alert_engine
        # while the primary source does not exist (a plain command's run dir has no metrics.jsonl;
        # LLaMA-Factory writes trainer_log.jsonl only at its first logged step) the text log stands in
        promote = not self._primary_exists()
        self._promoted = promote
        for spec, src in self.sources:
            aux = spec.role == "aux" and not (promote and spec.kind == "text")
            is_text = spec.kind == "text"
            fol = getattr(src, "follower", None)
            gen = getattr(fol, "truncations", 0)
            for lines, evs in self._batches(src, first):
                if fol is not None and fol.truncations != gen:
                    # the log was rewritten from scratch (detected by its first bytes, not only its
                    # size): a new run, so the history starts over instead of mixing the two runs
                    gen = fol.truncations
                    if not aux:
                        self._restart(src, lines)
                        evs = src.parser.feed_lines(lines) if hasattr(src, "parser") else evs
                counts[1] += len(lines)
                if is_text and lines:
                    self._scan_requeues(lines, now)
                    self.log_tail.extend(lines[-self.log_tail.maxlen:] if self.log_tail.maxlen else lines)
                    if self._startup_lines > 0:
                        self._scan_startup(lines[: self._startup_lines])
                        self._startup_lines -= len(lines)
                if not evs:
                    continue
                if aux:
                    for e in evs:
                        if e.kind == "step":
                            hist.add_aux(e)
                            new_alerts += eng.feed_aux_step(e)
                    evs = [e for e in evs if e.kind in _AUX_KEEP]
                if not first:
                    evs = [e if e.time is not None else e.with_time(now) for e in evs]
                hist.extend(evs)
                new_alerts += eng.feed_many(evs)
                counts[0] += len(evs)
                newest.extend(evs)
        for _, src in self.sources:
            parser = getattr(src, "parser", None)
            sk = getattr(parser, "skipped_lines", 0)
            if sk and parser is not None:
                hist.steps_logged += sk  # ordinary step lines a sampled first read did not parse
                parser.skipped_lines = 0

    def _scan_requeues(self, lines: list[str], now: float) -> None:
        for line in lines:
            if "rocm-tune: restart " not in line:
                continue
            m = _REQUEUE.search(line[:400])
            if m and not any(r["n"] == int(m.group(1)) for r in self.log_restarts):
                self.log_restarts.append({"n": int(m.group(1)), "reason": "requeue", "step": self.history.step,
                                          "at": None, "checkpoint": None, "detail": "Slurm requeue"})

    def _restart(self, src, lines: list[str]) -> None:
        from rocm_tune.core.runs.watch.parsers import parser_for

        h = self.history
        type(h).__init__(h)  # in place: callers hold this object
        e = self.alert_engine
        type(e).__init__(e, e.context, overflow_streak=e.overflow_streak, overflow_streak_cold=e.overflow_streak_cold,
                   stall_factor=e.stall_factor, stall_min_s=e.stall_min_s, busy_util=e.busy_util,
                   low_power_frac=e.low_power_frac)
        if hasattr(src, "parser"):
            src.parser = parser_for(src.kind)
        self.restarts += 1

    def _prescan_text_heads(self, max_bytes: int = 65536) -> None:
        """Start-up lines of the text logs before any step is judged (the precision shapes the
        loss-collapse fix, and the structured source is read first)."""
        import stat as _stat

        for spec, _ in self.sources:
            if spec.kind != "text":
                continue
            try:
                fd = os.open(spec.path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                if _stat.S_ISREG(os.fstat(fd).st_mode):
                    head = decode_log_head(os.pread(fd, max_bytes, 0))
                    self._scan_startup(head.splitlines()[:2000])
            except OSError:
                pass
            finally:
                os.close(fd)

    def _scan_startup(self, lines: list[str]) -> None:
        """`world size: 2` and `compute dtype: torch.float16` from the start-up lines (LLaMA-Factory,
        torchrun): the snapshot reports the world size, the loss-collapse fix the precision."""
        for line in lines:
            if "world size" not in line and "compute dtype" not in line and "WORLD_SIZE" not in line:
                continue
            m = _WORLD.search(line[:4096])
            if m:
                n = int(m.group(1))
                if 0 < n <= 1 << 20:
                    self.world_size = max(self.world_size or 0, n)
            m = _DTYPE.search(line[:4096])
            if m:
                self.alert_engine.compute_dtype = m.group(1)

    def _primary_exists(self) -> bool:
        for spec, src in self.sources:
            if spec.role == "primary":
                return spec.kind == "text" or bool(src.exists())
        return True

    def _batches(self, src, first: bool) -> Iterable[tuple[list[str], list[Event]]]:
        if first and self.look and hasattr(src, "poll_look"):
            yield from src.poll_look()
        elif hasattr(src, "poll_lines"):
            yield from src.poll_lines(sample=first and self.sample_first_read)
        else:
            for evs in src.poll():
                yield [], evs

    def run_started_at(self) -> float | None:
        """When the run itself started (not when watching began): run.json's started_at (else its
        created_at) for a run directory, else the start of its process (an attached PID, the process
        writing the log), else None. Kept once known."""
        if self._started_at is None:
            self._started_at = run_started_at(self.target)
        return self._started_at

    def elapsed_s(self, now: float | None = None) -> float | None:
        """Seconds the run has run, all its segments together (a resumed run counts its time before the
        resume too; to its end once it ended): what attach and the app show."""
        h = self.history
        ended = self.process.alive is False or h.ended
        earlier, _ = self.earlier_segments()
        return run_elapsed(h, self.run_started_at(), self.process.ended_at, self.clock() if now is None else now,
                           ended, earlier)

    def earlier_segments(self) -> tuple[float, int]:
        """(seconds, count) of the segments before the current one (earlier_segments); re-read when the
        run directory records another restart."""
        rd = self.target.run_dir
        if not rd:
            return 0.0, 0
        try:
            sig = os.stat(os.path.join(rd, "run.json")).st_mtime_ns
        except OSError:
            sig = None
        if self._segments_sig != sig:
            self._segments_sig, self._segments = sig, earlier_segments(rd)
            self._started_at = None   # the current segment's start changed with it
        return self._segments

    @property
    def segments(self) -> int:
        """How many times the run started (1 + its restarts in run.json, else the log's start records)."""
        return max(self.earlier_segments()[1] + 1, self.history.segments)

    def eta_s(self) -> float | None:
        """Seconds to the last step while the run goes on; None once it ended (finished, failed, stopped,
        lost: a run that is over has no ETA) or when unknown."""
        if self.process.alive is True:
            return self.history.eta_s(live=True)
        if self.ended() or self.process.status in ENDED_STATUSES or self.history.ended:
            return None
        return self.history.eta_s()

    def tokens_per_s(self) -> float | None:
        """The newest logged tokens/s while the run goes on (a 0 is no rate); once it ended, the run's
        average rate — never the 0 of a final record."""
        h = self.history
        last = h.tokens_per_s
        over = self.process.alive is not True and (self.ended() or self.process.status in ENDED_STATUSES or h.ended)
        if over or last is None or not last > 0:
            return h.mean_tokens_per_s() if h.mean_tokens_per_s() is not None else last
        return last

    def snapshot(self) -> Snapshot:
        h = self.history
        now = self.clock()
        return Snapshot(
            target=self.target, time=now, source_kind=self.source_kind, step=h.step,
            total_steps=h.total_steps, progress=h.progress(), epoch=h.epoch, loss=h.loss,
            smoothed_loss=h.smoothed_loss, learning_rate=h.learning_rate, grad_norm=h.grad_norm,
            eval_loss=h.eval_loss, tokens_per_s=self.tokens_per_s(), samples_per_s=h.samples_per_s,
            step_time_s=h.median_step_time_s(), elapsed_s=self.elapsed_s(now),
            eta_s=self.eta_s(), overflow_skips=h.overflow_skips, process=self.process,
            gpu_backend=self.gpu_backend_name, gpus=self.gpu_samples, alerts=tuple(self.alerts),
            history=h.to_dict(now), world_size=self.world_size or self.alert_engine.context.gpus,
            restarts=tuple(self.restart_marks()), segments=self.segments)

    def restart_marks(self) -> list[dict]:
        """Every restart of this run: run.json's (resume, OOM retry) and the Slurm requeues its log shows."""
        return restarts_of(self.target.run_dir) + list(self.log_restarts)

    def close(self) -> None:
        for _, src in self.sources:
            src.close()

    def ended(self) -> bool:
        """The run is over: its process is gone, or (no process known) the log says training ended."""
        p = self.process
        if p.alive is False:
            return True
        h = self.history
        return bool(p.alive is None and (h.ended or (h.total_steps and h.step is not None
                                                     and h.step >= h.total_steps)))

    def exit_code(self) -> int:
        """Exit code when known; else 0 if the log ended normally, 1 if the process vanished."""
        p = self.process
        if p.exit_code is not None:
            return int(p.exit_code)
        if p.signal:
            return 128 + int(p.signal)
        if self.history.ended:
            return 1 if self.history.end_status in ("failed",) else 0
        if p.alive is False:
            return 1
        return 0


def _finite_time(v: Any) -> TypeGuard[float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def run_started_at(target: Target) -> float | None:
    """Unix time the run of `target` (its current segment, after a resume) started: run.json's started_at,
    else its newest restart's time, else its created_at; else the start time of its process (/proc), else
    None (then the log's own elapsed time stands in)."""
    if target.run_dir:
        meta = try_read_json(os.path.join(target.run_dir, "run.json"), {}) or {}
        if isinstance(meta, dict):
            rs = meta.get("restarts") if isinstance(meta.get("restarts"), list) else []
            last = rs[-1].get("at") if rs and isinstance(rs[-1], dict) else None
            for v in (meta.get("started_at"), last, meta.get("created_at")):
                if _finite_time(v):
                    return float(v)
    if target.pid:
        from rocm_tune.core.runs.procs import proc_started_at

        return proc_started_at(target.pid)
    return None


def earlier_segments(run_dir: str | None) -> tuple[float, int]:
    """(seconds, count) of the run's segments before the current one: a run resumed (or retried after an OOM)
    in its own directory ran from each earlier start to that segment's exit (run.json `restarts`, each with
    the exit.json it replaced). A segment's start: its exit's `started_at`, else the restart before it (the
    first: the run's created_at); its end: the exit's `ended_at`, else when the restart was recorded."""
    if not run_dir:
        return 0.0, 0
    meta = try_read_json(os.path.join(run_dir, "run.json"))
    rs = meta.get("restarts") if isinstance(meta, dict) else None
    rs = [r for r in rs if isinstance(r, dict)] if isinstance(rs, list) else []
    total, n = 0.0, 0
    prev_at = meta.get("created_at") if isinstance(meta, dict) else None
    for r in rs:
        pe = r.get("previous_exit") if isinstance(r.get("previous_exit"), dict) else {}
        start = pe.get("started_at") if _finite_time(pe.get("started_at")) else prev_at
        end = pe.get("ended_at") if _finite_time(pe.get("ended_at")) else r.get("at")
        if _finite_time(start) and _finite_time(end) and end >= start:
            total += float(end) - float(start)
            n += 1
        prev_at = r.get("at") if _finite_time(r.get("at")) else prev_at
    return total, n


def run_elapsed(h: History, started_at: float | None, ended_at: float | None, now: float,
                ended: bool, earlier_s: float = 0.0) -> float | None:
    """Seconds the run has run: from its (current segment's) start to now (to its end once ended), plus
    `earlier_s`, the time of its earlier segments (before a resume). Without a known start: the runtime
    the log reports at the end, else the elapsed time it reports (tqdm, LLaMA-Factory), else the
    time between its first and newest timed events."""
    if _finite_time(started_at):
        end = ended_at if _finite_time(ended_at) else (h.last_time if ended and _finite_time(h.last_time) else now)
        return max(0.0, float(end) - float(started_at)) + earlier_s
    if ended and h.runtime_s is not None:
        return h.runtime_s
    src = h.source_elapsed_s
    if src is not None:
        return src
    return h.elapsed_s(None if ended else now)


def snapshot(target: str | Target, *, gpus: Any = True, clock: Callable[[], float] = time.time) -> Snapshot:
    """Everything known about TARGET now (one full read of its logs; GPU samples when local)."""
    w = Watcher(target, clock=clock, gpus=gpus)
    try:
        w.poll()
        return w.snapshot()
    finally:
        w.close()


# ------------------------------------------------------------------------------ plain streaming
def _fmt(x: float | None, spec: str) -> str:
    if x is None:
        return "-"
    try:
        return format(x, spec)
    except (TypeError, ValueError):
        return str(x)


def _hms(s: float | None) -> str:
    if s is None or s != s or s in (float("inf"), float("-inf")):
        return "-"
    s = int(s)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def format_step_line(ev: Event, h: History, smoothed: float | None = None) -> str:
    """`step 12/500 ep 0.40 loss 1.2345 (avg 1.3012) lr 2.00e-04 gn 0.91 1234 tok/s 1.23 s/it eta 0:10:02`"""
    total = f"/{h.total_steps}" if h.total_steps else ""
    parts = [f"step {ev.step}{total}"]
    if ev.epoch is not None:
        parts.append(f"ep {ev.epoch:.2f}")
    parts.append(f"loss {_fmt(ev.loss, '.4f')}")
    if smoothed is not None:
        parts.append(f"(avg {_fmt(smoothed, '.4f')})")
    if ev.learning_rate is not None:
        parts.append(f"lr {_fmt(ev.learning_rate, '.2e')}")
    if ev.grad_norm is not None:
        parts.append(f"gn {_fmt(ev.grad_norm, '.3g')}")
    if ev.tokens_per_s is not None:
        parts.append(f"{_fmt(ev.tokens_per_s, '.0f')} tok/s")
    st = h.median_step_time_s()
    if st is not None:
        parts.append(f"{st:.3g} s/it")
    if st is not None and h.total_steps and ev.step is not None:
        parts.append(f"eta {_hms(max(0, h.total_steps - ev.step) * st)}")
    return " ".join(parts)


def stream_plain(target: str | Target, out=None, follow: bool = True, interval: float = 1.0,
                 clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep,
                 max_polls: int | None = None, fix_alerts: Callable[[Sequence[Alert]], tuple] | None = None) -> int:
    """Print one line per logged step (plus alerts and the end) until the run ends; return its exit code.

    fix_alerts: replaces alerts' fixes before they are printed (attach gives explain's, core.runs.diagnose.alert_fix).
    With follow=False: print what is logged so far and return. For a target without a known process
    and without an end marker in its log, following continues until interrupted (Ctrl-C: 130).
    """
    out = out if out is not None else sys.stdout
    w = Watcher(target, clock=clock, gpus=False, look=not follow)

    def emit(text: str) -> None:
        out.write(text + "\n")
        out.flush()

    polls = 0
    state: dict = {"fix_alerts": fix_alerts}
    try:
        t = w.target
        started = w.run_started_at()
        emit(f"# watching {t.title or t.spec} ({t.kind}; source {w.source_kind}"
             + (f", pid {t.pid}" if t.pid else "")
             + (f"; started {_hms(max(0.0, clock() - started))} ago" if started is not None else "") + ")")
        while True:
            res = w.poll()
            polls += 1
            _emit_skipped(w, emit)
            _emit_events(res, w, emit, state)
            if not follow or w.ended() or (max_polls is not None and polls >= max_polls):
                break
            sleep(interval)
        if w.ended():
            p = w.process
            h = w.history
            status = p.status if p.status != "unknown" else ("finished" if h.ended else "ended")
            tail = f"exit code {p.exit_code}" if p.exit_code is not None else ""
            emit(f"# run {status}" + (f" ({tail})" if tail else "") + f" at step {h.step}"
                 + (f"/{h.total_steps}" if h.total_steps else "")
                 + (f", train_loss {h.train_loss:.4f}" if isinstance(h.train_loss, float) else "")
                 + (f", elapsed {_hms(el)}" if (el := w.elapsed_s()) is not None else ""))
            return w.exit_code()
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        w.close()


def _emit_skipped(w: Watcher, emit) -> None:
    """What a no-follow look left unread in the middle of a huge log (said once)."""
    for _spec, src in w.sources:
        skipped = getattr(src, "skipped", 0)
        if skipped:
            src.skipped = 0
            emit(f"# ... {skipped / 2**20:.0f} MiB in the middle of {os.path.basename(src.path)} not read (its start "
                 f"and its last {LOOK_TAIL // 2**20} MiB are; following without --no-follow reads it all)")


def _emit_events(res: PollResult, w: Watcher, emit, state: dict) -> None:
    h = w.history
    # steps of the primary source; a poll's events are the newest max_events (older ones were
    # summarised when the backlog is huge).
    if res.n_events > len(res.events):
        emit(f"# ... {res.n_events - len(res.events)} earlier events not shown")
    for ev in res.events:
        if ev.kind == "step":
            smoother = state.setdefault("smoother", LossSmoother())
            sm = smoother.add(ev.step, ev.loss, h.total_steps) if ev.loss is not None else smoother.value
            emit(format_step_line(ev, h, sm))
        elif ev.kind == "eval" and ev.loss is not None:
            emit(f"eval step {ev.step}: eval_loss {_fmt(ev.loss, '.4f')}")
    fix_alerts = state.get("fix_alerts")
    for a in (fix_alerts(res.new_alerts) if fix_alerts and res.new_alerts else res.new_alerts):
        emit(f"! [{a.code}] {a.title}")
        emit(f"!   fix: {a.fix}")
