"""What the monitor shows, computed off the UI thread (no widgets here).

`MonitorSource(target)` follows one run through `rocm_tune.core.runs.watch` (sources, parsers,
History, alerts) and the device backend, and `poll()` returns an immutable `RunView` that the
monitor screen renders. The screen calls `poll()` from a thread worker and re-arms the next poll
when the previous one finished.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any

GPU_HISTORY = 120   # samples kept per GPU for the sparklines


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
    title, evidence = str(get("title") or ""), str(get("evidence") or get("message") or "")
    return (str(get("code") or "alert"), f"{title}: {evidence}" if title and evidence else title or evidence,
            str(get("fix") or ""), str(get("severity") or get("level") or "warning"))


class MonitorSource:
    """Follows one run; `poll()` is called from a worker thread, never on the UI thread."""

    def __init__(self, target: str, clock: Callable[[], float], gpus: Any = True) -> None:
        self.target = target
        self.clock = clock
        self.want_gpus = gpus
        self._watcher: Any = None
        self._gpu_hist: dict[int, dict[str, deque]] = {}

    # -------------------------------------------------------------- run data
    def _open(self) -> None:
        watch = import_module("rocm_tune.core.runs.watch")
        self._watcher = watch.Watcher(self.target, clock=self.clock, gpus=self.want_gpus)

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
        proc = getattr(w, "process", None)
        alive = getattr(proc, "alive", None)
        return RunView(
            target=self.target,
            title=str(w.title),
            run_id=getattr(w.target, "run_id", None),
            status=str(w.status),
            source=str(w.source_kind),
            step=h.step, total_steps=h.total_steps, epoch=h.epoch, loss=h.loss,
            smoothed_loss=h.smoothed_loss, learning_rate=h.learning_rate, grad_norm=h.grad_norm,
            tokens_per_s=h.tokens_per_s, step_time_s=h.median_step_time_s(),
            elapsed_s=h.elapsed_s(now if alive else None), eta_s=h.eta_s(),
            returncode=getattr(proc, "exit_code", None),
            loss_series=tuple(v for _, v in loss_pts), steps=tuple(s for s, _ in loss_pts),
            smooth_series=vals("loss_smooth"), lr_series=vals("learning_rate"), grad_series=vals("grad_norm"),
            gpus=samples, backend=str(getattr(w, "gpu_backend_name", "") or ""),
            gpu_history={k: {m: list(d) for m, d in v.items()} for k, v in self._gpu_hist.items()},
            alerts=tuple(_alert_tuple(a) for a in w.alerts),
            log_tail=tuple(getattr(w, "log_tail", ()) or ()),
        )
