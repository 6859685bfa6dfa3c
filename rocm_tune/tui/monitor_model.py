"""What the monitor shows, computed off the UI thread (no widgets here).

`MonitorSource(target)` follows one run through `rocm_tune.core.runs.watch.watch` (sources, parsers,
History, alerts) and the device backend, and `poll()` returns an immutable `RunView` that the
monitor screen renders. The screen calls `poll()` from a thread worker and re-arms the next poll
when the previous one finished.
"""

from __future__ import annotations

import bisect
import math
import os
import pwd
import re
import shlex
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, TypeGuard

GPU_HISTORY = 600   # samples kept per GPU (10 min at 1 Hz); the panes show as many as fit
RATE_WINDOW = 20    # logged steps the smoothed s/step and tokens/s are averaged over
HOST_EVERY = 1      # host CPU/RAM sampled every poll (psutil: one /proc read each)


@dataclass(frozen=True)
class RunView:
    target: str
    title: str = ""
    status: str = "unknown"          # running | finished | failed | stopped | lost | unknown
    source: str = ""
    step: int | None = None
    total_steps: int | None = None
    epoch: float | None = None
    loss: float | None = None
    smoothed_loss: float | None = None
    learning_rate: float | None = None
    grad_norm: float | None = None
    tokens_per_s: float | None = None
    step_time_s: float | None = None
    elapsed_s: float | None = None
    eta_s: float | None = None
    returncode: int | None = None
    loss_series: tuple = ()          # values (oldest first)
    smooth_series: tuple = ()
    lr_series: tuple = ()
    grad_series: tuple = ()
    steps: tuple = ()                # step numbers matching loss_series
    gpus: tuple = ()                 # GpuSample
    gpu_history: dict = field(default_factory=dict)   # index -> {"util": [...], "vram": [...]}
    backend: str = ""
    alerts: tuple = ()               # (code, evidence, fix)
    log_tail: tuple = ()
    error: str | None = None
    run_id: str | None = None        # registry id when the target is a registered run
    started_at: float | None = None  # the run's own start (run.json), not when the monitor attached
    stopped_by_user: bool = False    # status stopped because you (or `rocm-tune stop`) asked
    reason: str | None = None        # why it ended, as core records it
    run_dir: str | None = None
    checkpoints: tuple = ()          # (step, path) oldest first
    resume_cmd: str | None = None    # how to resume from the last checkpoint
    eval_series: tuple = ()          # eval_loss values aligned with `steps` (None where no eval)
    eval_loss: float | None = None
    tps_series: tuple = ()
    step_time_series: tuple = ()
    host: dict | None = None         # {"cpu_percent", "ram_used_bytes", "ram_total_bytes", "rss_bytes"}
    measured: Any = None             # core.runs.watch.measured.Measured | None
    predicted: dict | None = None    # core.runs.watch.measured.read_predicted()
    process_users: dict = field(default_factory=dict)   # pid -> (user, command)
    restarts: tuple = ()             # core.runs.watch.watch.restarts_of dicts (resume, OOM retry, Slurm requeue)
    restart_series: tuple = ()       # loss values aligned with `steps` at the first step after each restart
    segments: int = 1                # times the run started (elapsed_s counts them all)
    simulated: bool = False          # the GPUs are simulated (ROCM_TUNE_FAKE_GPUS / ROCM_TUNE_REPLAY): labelled so


def restart_marks(restarts: tuple, steps: tuple, losses: tuple) -> tuple:
    """A marker series for the loss chart: the loss of the first logged step after each restart's checkpoint step
    (the start of the curve for a restart from step 0), None elsewhere."""
    out: list = [None] * len(steps)
    for r in restarts:
        at = r.get("step") if isinstance(r, dict) else None
        i = bisect.bisect_right(steps, at) if isinstance(at, int) else 0
        if i >= len(steps):
            i = len(steps) - 1
        if 0 <= i < len(steps):
            out[i] = losses[i]
    return tuple(out)


def _alert_tuple(a: Any) -> tuple[str, str, str, str]:
    get = (lambda k: a.get(k)) if isinstance(a, dict) else (lambda k: getattr(a, k, None))
    title, evidence = str(get("title") or ""), str(get("evidence") or get("message") or "")
    return (str(get("code") or "alert"), f"{title}: {evidence}" if title and evidence else title or evidence,
            str(get("fix") or ""), str(get("severity") or get("level") or "warning"))


class MonitorSource:
    """Follows one run; `poll()` is called from a worker thread, never on the UI thread."""

    def __init__(self, target: str, clock: Callable[[], float], gpus: Any = True, host: Any = None) -> None:
        self.target = target
        self.clock = clock
        self.want_gpus = gpus
        self._watcher: Any = None
        self._fixes: Any = None    # core.runs.diagnose.alert_fix.AlertFixes of the run, once opened
        self._gpu_hist: dict[int, dict[str, deque]] = {}
        self._info: Any = None
        self._last_status: str | None = None
        self._ckpts: tuple = ()
        self._polls = 0
        self._host = host if host is not None else HostProbe()   # tests/scenes: a fixed host

    # -------------------------------------------------------------- run data
    def _open(self) -> None:
        watch = import_module("rocm_tune.core.runs.watch.watch")
        self._watcher = watch.Watcher(self.target, clock=self.clock, gpus=self.want_gpus)
        # an OOM alert's fix is explain's for the same run (computed once per new alert, off the UI thread)
        self._fixes = import_module("rocm_tune.core.runs.diagnose.alert_fix").AlertFixes(self._watcher.target.spec)

    def poll(self) -> RunView:
        from rocm_tune.core.errors import UserError

        try:
            if self._watcher is None:
                self._open()
            self._watcher.poll()
        except UserError as exc:
            return RunView(self.target, title=self.target, error=str(exc))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app  # keep the monitor alive; show why
            return RunView(self.target, title=self.target, error=f"{type(exc).__name__}: {exc}")
        return self.view()

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.close()

    # -------------------------------------------------------------- run facts
    def _run_info(self, refresh: bool) -> Any:
        """RunInfo of the run directory (started_at, ended_at, stopped_by_user); None for a bare log."""
        run_dir = getattr(self._watcher.target, "run_dir", None)
        if not run_dir:
            return None
        if self._info is None or refresh:
            try:
                rd = import_module("rocm_tune.core.runs.rundir")
                self._info = rd.load_run(run_dir)
            except Exception:  # noqa: BLE001 - a run dir without run.json is a bare output dir
                self._info = None
        return self._info

    def _measured(self, run_dir: str | None) -> tuple[Any, dict | None]:
        if not run_dir:
            return None, None
        ms = import_module("rocm_tune.core.runs.watch.measured")
        try:
            return ms.read_measured(run_dir), ms.read_predicted(run_dir)
        except Exception:  # noqa: BLE001 - missing or partial rank files are a normal state
            return None, None

    def view(self) -> RunView:
        w = self._watcher
        h = w.history
        now = self.clock()
        samples = tuple(getattr(w, "gpu_samples", ()) or ())
        for s in samples:
            hist = self._gpu_hist.setdefault(getattr(s, "index", 0), {"util": deque(maxlen=GPU_HISTORY),
                                                                      "vram": deque(maxlen=GPU_HISTORY)})
            hist["util"].append(getattr(s, "util_percent", None))
            hist["vram"].append(getattr(s, "vram_used_bytes", None))

        def vals(name: str) -> tuple:
            s = h.series.get(name)
            return tuple(s.values()) if s is not None else ()

        loss_pts = h.series["loss"].points() if "loss" in h.series else []
        steps = tuple(s for s, _ in loss_pts)
        proc = getattr(w, "process", None)
        status = str(w.status)
        info = self._run_info(refresh=status != self._last_status and status != "running")
        self._last_status = status
        run_dir = getattr(w.target, "run_dir", None)
        started_at = w.run_started_at()   # run.json, else its process; never when the monitor attached
        if self._polls % 5 == 0 or status != "running" or not self._ckpts:
            self._ckpts = find_checkpoints(run_dir, getattr(w.target, "output_dir", None))
        self._polls += 1
        step_time = smoothed_step_time(h, str(w.source_kind))
        alive = getattr(proc, "alive", None) is True   # a live process is not over, whatever an old end line says
        ended = not alive and (status in ("finished", "failed", "stopped", "lost", "exited") or h.ended)
        if ended:
            eta = None
        elif h.total_steps and h.step is not None and step_time:
            eta = max(0, h.total_steps - h.step) * step_time
        else:
            eta = w.eta_s() if hasattr(w, "eta_s") else h.eta_s()
        measured, predicted = self._measured(run_dir)
        watch = import_module("rocm_tune.core.runs.watch.watch")
        restarts = tuple({**r, "line": watch.restart_line(r)} for r in w.restart_marks()) \
            if hasattr(w, "restart_marks") else ()
        loss_values = tuple(v for _, v in loss_pts)
        simulated = getattr(w, "gpu_backend_kind", "") == "synthetic"
        procs = {p[0]: p[1] if len(p) > 1 else "?" for s in samples for p in (getattr(s, "processes", ()) or ())}
        if simulated:   # made-up processes: never look their PIDs up on this machine
            users = {pid: ("sim", f"{name} (simulated)") for pid, name in sorted(procs.items())}
        else:
            users = {pid: self._host.owner(pid) for pid in sorted(procs)}
        return RunView(
            target=self.target,
            title=str(w.title),
            run_id=getattr(w.target, "run_id", None),
            status=status,
            source=str(w.source_kind),
            step=h.step, total_steps=h.total_steps, epoch=h.epoch, loss=h.loss,
            smoothed_loss=h.smoothed_loss, learning_rate=h.learning_rate, grad_norm=h.grad_norm,
            tokens_per_s=h.mean_tokens_per_s() if ended and h.mean_tokens_per_s() else smoothed_tokens_per_s(h),
            step_time_s=step_time,
            elapsed_s=w.elapsed_s(now),   # from the run's start: the figure `attach --once` prints
            eta_s=eta,
            returncode=getattr(proc, "exit_code", None),
            loss_series=tuple(v for _, v in loss_pts), steps=steps,
            smooth_series=vals("loss_smooth"), lr_series=vals("learning_rate"), grad_series=vals("grad_norm"),
            eval_series=align(h.series["eval_loss"].points() if "eval_loss" in h.series else [], steps),
            eval_loss=h.eval_loss,
            tps_series=vals("tokens_per_s"), step_time_series=vals("step_time_s"),
            gpus=samples, backend=str(getattr(w, "gpu_backend_name", "") or ""),
            gpu_history={k: {m: list(d) for m, d in v.items()} for k, v in self._gpu_hist.items()},
            alerts=tuple(_alert_tuple(a) for a in (self._fixes.apply(w.alerts) if self._fixes else w.alerts)),
            log_tail=tuple(getattr(w, "log_tail", ()) or ()),
            started_at=started_at, stopped_by_user=bool(getattr(info, "stopped_by_user", False)),
            reason=getattr(info, "reason", None), run_dir=run_dir,
            checkpoints=self._ckpts,
            resume_cmd=resume_command(run_dir, getattr(w.target, "run_id", None) or getattr(info, "id", None),
                                      self._ckpts, status),
            segments=int(getattr(w, "segments", 1) or 1),
            host=self._host.sample(), measured=measured, predicted=predicted,
            process_users=users, simulated=simulated,
            restarts=restarts, restart_series=restart_marks(restarts, steps, loss_values) if restarts else (),
        )


def _finite(v: Any) -> TypeGuard[float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def smoothed_step_time(h: Any, source_kind: str) -> float | None:
    """Seconds per optimizer step: tqdm's own rate when the log has one (what the user sees in the log),
    else the mean of the last RATE_WINDOW logged step times, else the history's median."""
    tqdm = getattr(h, "_rate_step_time", None)   # History keeps tqdm's s/it here (parsed progress bars)
    if _finite(tqdm) and tqdm > 0 and source_kind == "text":
        return float(tqdm)
    series = h.series.get("step_time_s")
    window = [v for v in (series.values(last=RATE_WINDOW) if series is not None else []) if _finite(v) and v > 0]
    if window:
        return sum(window) / len(window)
    if _finite(tqdm) and tqdm > 0:
        return float(tqdm)
    return h.median_step_time_s()


def smoothed_tokens_per_s(h: Any) -> float | None:
    """Mean tokens/s of the last RATE_WINDOW steps that logged a rate; 0 (an epoch boundary, the final
    record) is no rate."""
    series = h.series.get("tokens_per_s")
    window = [v for v in (series.values(last=RATE_WINDOW) if series is not None else []) if _finite(v) and v > 0]
    if window:
        return sum(window) / len(window)
    v = h.tokens_per_s
    return float(v) if _finite(v) and v > 0 else None


def align(points: list, steps: tuple) -> tuple:
    """Values at `steps` (None where `points` has none): eval_loss drawn over the training loss."""
    if not points or not steps:
        return ()
    out: list = [None] * len(steps)
    for step, v in points:
        i = bisect.bisect_left(steps, step)
        if i >= len(steps):
            i = len(steps) - 1
        out[i] = v
    return tuple(out)


def find_checkpoints(run_dir: str | None, output_dir: str | None) -> tuple:
    """(step, path) of every checkpoint-N directory in the run's output, oldest first."""
    seen: dict[str, int] = {}
    for base in (output_dir, os.path.join(run_dir, "output") if run_dir else None, run_dir):
        if not base or not os.path.isdir(base):
            continue
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            m = _CKPT.fullmatch(name)
            p = os.path.join(base, name)
            if m and os.path.isdir(p):
                seen.setdefault(os.path.realpath(p), int(m.group(1)))
    return tuple(sorted(((step, path) for path, step in seen.items())))


_CKPT = re.compile(r"checkpoint-(\d+)")


RESUMABLE = ("stopped", "failed", "lost")   # statuses that end before the last step: `rocm-tune resume` continues them


def resume_command(run_dir: str | None, ref: str | None, checkpoints: tuple, status: str | None = None) -> str | None:
    """`rocm-tune resume RUN` (the command the checkpoint list runs) for a tracked run that stopped or failed
    with a checkpoint to continue from; None for a finished or running run, a run without a checkpoint, or a
    log that is not a rocm-tune run (nothing to resume it with)."""
    if not checkpoints or not run_dir or not ref or status not in RESUMABLE:
        return None
    return f"rocm-tune resume {shlex.quote(ref)}"


def process_owner(pid: int) -> tuple[str, str]:
    """(user, command line) of a local process, '?' where the system does not say (another container)."""
    import psutil

    user, cmd = "?", "?"
    try:
        p = psutil.Process(int(pid))
        uid = p.uids().real
        try:
            user = pwd.getpwuid(uid).pw_name
        except KeyError:
            user = str(uid)
        cmd = " ".join(p.cmdline())[:4096].strip() or "?"
    except (psutil.Error, OSError, ValueError):
        pass
    return user, cmd


class HostProbe:
    """This host: CPU % (since the previous sample) and RAM (psutil), and who runs a process;
    None / '?' where the system does not say. Injectable (the scenes use a fixed host)."""

    def __init__(self) -> None:
        self._primed = False
        self.sample()   # the baseline: the first real sample already has a CPU %

    def owner(self, pid: int) -> tuple[str, str]:
        return process_owner(pid)

    def sample(self) -> dict | None:
        import psutil

        out: dict = {}
        try:
            cpu = psutil.cpu_percent(interval=None)   # since psutil's previous call: the baseline on the first
            if self._primed:
                out["cpu_percent"] = float(cpu)
            self._primed = True
            out["cpus"] = os.cpu_count()
            vm = psutil.virtual_memory()
            out["ram_total_bytes"] = int(vm.total)
            out["ram_used_bytes"] = int(vm.total) - int(vm.available)
        except (psutil.Error, OSError, ValueError):
            return out or None
        return out
