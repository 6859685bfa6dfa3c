"""What the monitor shows, computed off the UI thread (no widgets here).

`MonitorSource(target)` follows one run through `rocm_tune.core.runs.watch` (sources, parsers,
History, alerts) and the device backend, and `poll()` returns an immutable `RunView` that the
monitor screen renders. The screen calls `poll()` from a thread worker and re-arms the next poll
when the previous one finished.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from rocm_tune.tui.util import optional

GPU_HISTORY = 120   # samples kept per GPU for the sparklines
LOG_LINES = 200


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


def _alert_tuple(a: Any) -> tuple[str, str, str, str]:
    get = (lambda k: a.get(k)) if isinstance(a, dict) else (lambda k: getattr(a, k, None))
    return (str(get("code") or "alert"), str(get("evidence") or get("message") or ""),
            str(get("fix") or ""), str(get("severity") or get("level") or "warning"))


def tail_lines(path: str, n: int = LOG_LINES, max_bytes: int = 256 * 1024) -> list[str]:
    """The last `n` lines of a text file (reads at most `max_bytes` from its end); [] if missing."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except OSError:
        return []
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    lines = [ln.rsplit("\r", 1)[-1] for ln in text.split("\n")]
    if size > max_bytes and lines:
        lines = lines[1:]
    while lines and not lines[-1]:
        lines.pop()
    return lines[-n:]


class MonitorSource:
    """Follows one run; `poll()` is called from a worker thread, never on the UI thread."""

    def __init__(self, target: str, clock: Callable[[], float], gpus: bool = True) -> None:
        self.target = target
        self.clock = clock
        self.want_gpus = gpus
        self._watcher: Any = None
        self._backend: Any = None
        self._gpu_hist: dict[int, dict[str, deque]] = {}
        self._error: str | None = None

    # -------------------------------------------------------------- run data
    def _open(self) -> None:
        watch = optional("rocm_tune.core.runs.watch")
        if watch is None or not hasattr(watch, "Watcher"):
            raise RuntimeError("run watching (rocm_tune.core.runs.watch) is not available yet")
        self._watcher = watch.Watcher(self.target)

    def _gpu_samples(self) -> tuple[str, tuple]:
        if not self.want_gpus:
            return "", ()
        devices = optional("rocm_tune.core.devices")
        if devices is None or not hasattr(devices, "detect"):
            return "none", ()
        try:
            if self._backend is None:
                self._backend = devices.detect()
            samples = tuple(self._backend.sample())
        except Exception:
            return "none", ()
        for s in samples:
            h = self._gpu_hist.setdefault(getattr(s, "index", 0), {"util": deque(maxlen=GPU_HISTORY),
                                                                   "vram": deque(maxlen=GPU_HISTORY)})
            h["util"].append(getattr(s, "util_percent", None))
            h["vram"].append(getattr(s, "vram_used_bytes", None))
        return getattr(self._backend, "name", "?"), samples

    def poll(self) -> RunView:
        from rocm_tune.core.errors import UserError

        try:
            if self._watcher is None:
                self._open()
            self._watcher.poll()
        except UserError as exc:
            return RunView(self.target, title=self.target, error=str(exc))
        except Exception as exc:  # keep the monitor alive; show why
            return RunView(self.target, title=self.target, error=f"{type(exc).__name__}: {exc}")
        backend, samples = self._gpu_samples()
        return self.view(backend, samples)

    def view(self, backend: str, samples: tuple) -> RunView:
        w = self._watcher
        h = w.history
        now = self.clock()

        def vals(name: str) -> tuple:
            s = h.series.get(name)
            return tuple(s.values()) if s is not None else ()

        loss_pts = h.series["loss"].points() if "loss" in h.series else []
        info = getattr(w, "run", None) or getattr(w, "info", None)
        status = str(getattr(w, "status", None) or getattr(info, "status", None) or
                     ("finished" if h.ended else "unknown"))
        if callable(status):
            status = status()
        alerts = tuple(_alert_tuple(a) for a in (getattr(w, "alerts", None) or ()))
        log_path = getattr(w, "log_path", None) or (str(info.stdout_log) if info is not None and
                                                    hasattr(info, "stdout_log") else None)
        tail = tuple(tail_lines(str(log_path))) if log_path else tuple(getattr(w, "log_tail", ()) or ())
        return RunView(
            target=self.target,
            title=str(getattr(info, "name", None) or getattr(w, "title", None) or self.target),
            run_id=getattr(info, "id", None),
            status=status,
            source=str(getattr(w, "source_kind", None) or getattr(w, "kind", "") or ""),
            step=h.step, total_steps=h.total_steps, epoch=h.epoch, loss=h.loss,
            smoothed_loss=h.smoothed_loss, learning_rate=h.learning_rate, grad_norm=h.grad_norm,
            tokens_per_s=h.tokens_per_s, step_time_s=h.median_step_time_s(),
            elapsed_s=h.elapsed_s(now), eta_s=h.eta_s(),
            returncode=getattr(info, "returncode", None),
            loss_series=tuple(v for _, v in loss_pts), steps=tuple(s for s, _ in loss_pts),
            smooth_series=vals("loss_smooth"), lr_series=vals("learning_rate"), grad_series=vals("grad_norm"),
            gpus=samples, backend=backend,
            gpu_history={k: {m: list(d) for m, d in v.items()} for k, v in self._gpu_hist.items()},
            alerts=alerts, log_tail=tail,
        )
