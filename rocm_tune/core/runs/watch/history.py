"""Bounded metric history of one training run, fed by parser `Event`s.

`History` keeps, per metric, a `Series` of (step, value) points with bounded memory: the newest
`full` points at full resolution and older points decimated (every other point dropped each time
the old part overflows), so a month-long run costs the same memory as a short one. It also keeps
the scalar state the monitor shows: step / total steps, epoch, last and smoothed (EMA) loss, lr,
grad_norm, throughput, median step time and ETA, fp16 overflow skips, last eval loss.

The TUI monitor and `attach` read only this API (and `watch.Snapshot`); it is stable:

    h = History()
    h.add(event)                 # or h.extend(events)
    h.series["loss"].points()    # [(step, value), ...] oldest first, bounded
    h.step, h.total_steps, h.epoch, h.loss, h.smoothed_loss, h.learning_rate, h.grad_norm
    h.tokens_per_s, h.samples_per_s, h.median_step_time_s(), h.eta_s(), h.progress()
    h.to_dict()

Step time comes, in order of preference, from the source's own `step_time_s`, from tqdm's `s/it`
(`it/s`) rate, or from the differences of event times between logged steps (times are unix seconds
given by the source or, for sources without times, the moment the watcher saw the line).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard, cast

from rocm_tune.core.runs.watch.parsers import Event, parse_hms

# Series names (stable, used by the TUI).
METRICS = (
    "loss",            # training loss as logged
    "loss_smooth",     # bias-corrected EMA of loss over a short window in steps (LossSmoother; non-finite skipped)
    "learning_rate",
    "grad_norm",
    "tokens_per_s",
    "samples_per_s",
    "step_time_s",     # seconds per optimizer step
    "eval_loss",
    "loss_scale",      # fp16 dynamic loss scale (DeepSpeed / AMP) when logged
    "vram_allocated_bytes",  # peak allocated on rank 0 when the source logs it
)

SMOOTH_FRACTION = 0.02   # the smoothing window: this share of the run's steps ...
SMOOTH_MIN_STEPS = 2.0   # ... at least this many steps ...
SMOOTH_MAX_STEPS = 50.0  # ... at most this many
SMOOTH_STEPS = 10.0      # while the run's length is unknown


def smoothing_window(total_steps: int | None) -> float:
    """Time constant of the smoothed loss in optimizer steps: short, so a falling curve is followed
    (2 % of the run, 2 to 50 steps; 10 while the length is unknown)."""
    if not total_steps or total_steps <= 0:
        return SMOOTH_STEPS
    return min(SMOOTH_MAX_STEPS, max(SMOOTH_MIN_STEPS, SMOOTH_FRACTION * total_steps))


class LossSmoother:
    """Bias-corrected exponential moving average over a window in STEPS (TensorBoard's debiased EMA,
    with the weight of a point set by how many steps it covers): a point logged every 10 steps counts
    as much as 10 per-step points, and the start is not pulled toward the first value. Non-finite
    values are skipped. `add(step, value, total_steps)` returns the smoothed value."""

    __slots__ = ("_acc", "_norm", "_step")

    def __init__(self) -> None:
        self._acc = 0.0
        self._norm = 0.0
        self._step: int | None = None

    def add(self, step: int | None, value: float, total_steps: int | None = None) -> float | None:
        if not _finite(value):
            return self.value
        gap = 1.0
        if step is not None and self._step is not None and step > self._step:
            gap = float(step - self._step)
        if step is not None:
            self._step = step
        w = math.exp(-gap / smoothing_window(total_steps))
        self._acc = w * self._acc + (1.0 - w) * value
        self._norm = w * self._norm + (1.0 - w)
        return self.value

    @property
    def value(self) -> float | None:
        return self._acc / self._norm if self._norm > 0 else None


class Series:
    """(step, value) points, newest `full` at full resolution, older decimated to <= `old_cap`.

    Appending is O(1) amortised; memory is O(full + old_cap) whatever the run length.
    """

    __slots__ = (
        "_old_steps",
        "_old_values",
        "_phase",
        "_steps",
        "_stride",
        "_values",
        "count",
        "full",
        "name",
        "old_cap",
    )

    def __init__(self, name: str, full: int = 2048, old_cap: int = 2048):
        self.name = name
        self.full = max(2, int(full))
        self.old_cap = max(2, int(old_cap))
        self._steps: list[int] = []
        self._values: list[float] = []
        self._old_steps: list[int] = []
        self._old_values: list[float] = []
        self.count = 0  # points ever appended
        self._stride = 1
        self._phase = 0

    def append(self, step: int, value: float) -> None:
        self._steps.append(step)
        self._values.append(value)
        self.count += 1
        if len(self._steps) >= 2 * self.full:
            self._compact()

    def _compact(self) -> None:
        cut = len(self._steps) - self.full
        first = (-self._phase) % self._stride   # _phase: points retired so far (see _Rows.compact)
        self._old_steps.extend(self._steps[first:cut:self._stride])
        self._old_values.extend(self._values[first:cut:self._stride])
        self._phase += cut
        del self._steps[:cut]
        del self._values[:cut]
        while len(self._old_steps) > self.old_cap:
            # keep every other old point: resolution halves uniformly, the shape stays.
            self._old_steps = self._old_steps[::2]
            self._old_values = self._old_values[::2]
            self._stride *= 2

    def __len__(self) -> int:
        return len(self._old_steps) + len(self._steps)

    def points(self, last: int | None = None) -> list[tuple[int, float]]:
        """All kept points, oldest first (a copy). `last=N` returns only the newest N kept points."""
        if last is not None:
            if last <= 0:
                return []
            if last <= len(self._steps):
                return list(zip(self._steps[-last:], self._values[-last:]))
        pts = list(zip(self._old_steps, self._old_values)) + list(zip(self._steps, self._values))
        return pts if last is None else pts[-last:]

    def values(self, last: int | None = None) -> list[float]:
        return [v for _, v in self.points(last)]

    @property
    def last(self) -> tuple[int, float] | None:
        if self._steps:
            return self._steps[-1], self._values[-1]
        if self._old_steps:
            return self._old_steps[-1], self._old_values[-1]
        return None

    def clear(self) -> None:
        self._steps.clear()
        self._values.clear()
        self._old_steps.clear()
        self._old_values.clear()
        self.count = 0


# Per-step metrics live in one row store (a tuple per logged step: one append instead of eight);
# the series of these metrics are views over it.
ROW_METRICS = ("loss", "loss_smooth", "learning_rate", "grad_norm", "tokens_per_s", "samples_per_s",
               "step_time_s", "vram_allocated_bytes")
_COL = {name: i + 1 for i, name in enumerate(ROW_METRICS)}


class _Rows:
    """Rows (step, *ROW_METRICS), newest `full` at full resolution, older decimated to <= `old_cap`."""

    __slots__ = ("_phase", "count", "full", "old", "old_cap", "recent", "stride")

    def __init__(self, full: int, old_cap: int):
        self.full = max(2, int(full))
        self.old_cap = max(2, int(old_cap))
        self.recent: list[tuple] = []
        self.old: list[tuple] = []
        self.count = 0
        self.stride = 1      # the old part keeps every stride-th row (uniform over the whole run)
        self._phase = 0      # rows retired so far

    def compact(self) -> None:
        cut = len(self.recent) - self.full
        retired = self.recent[:cut]
        del self.recent[:cut]
        # keep the rows whose index in the whole run is a multiple of stride: uniform, and halving
        # the old part ([::2]) keeps exactly the multiples of 2 x stride
        self.old.extend(retired[(-self._phase) % self.stride::self.stride])
        self._phase += len(retired)
        while len(self.old) > self.old_cap:
            self.old = self.old[::2]
            self.stride *= 2

    def clear(self) -> None:
        self.recent.clear()
        self.old.clear()
        self.count = 0


class SeriesView:
    """A per-step metric as (step, value) points: same read API as `Series`, backed by the row store."""

    __slots__ = ("_col", "_rows", "name")

    def __init__(self, name: str, rows: _Rows):
        self.name = name
        self._rows = rows
        self._col = _COL[name]

    @property
    def count(self) -> int:
        return self._rows.count

    def _iter_rev(self):
        c = self._col
        for rows in (self._rows.recent, self._rows.old):
            for r in reversed(rows):
                v = r[c]
                if v is not None:
                    yield r[0], v

    def points(self, last: int | None = None) -> list[tuple[int, float]]:
        if last is not None:
            if last <= 0:
                return []
            out = []
            for p in self._iter_rev():
                out.append(p)
                if len(out) >= last:
                    break
            out.reverse()
            return out
        c = self._col
        return [(r[0], r[c]) for rows in (self._rows.old, self._rows.recent) for r in rows if r[c] is not None]

    def values(self, last: int | None = None) -> list[float]:
        return [v for _, v in self.points(last)]

    @property
    def last(self) -> tuple[int, float] | None:
        for p in self._iter_rev():
            return p
        return None

    def __len__(self) -> int:
        c = self._col
        return sum(1 for rows in (self._rows.old, self._rows.recent) for r in rows if r[c] is not None)


_INF = (math.inf, -math.inf)


def _finite(x: float | None) -> TypeGuard[float]:
    return x is not None and x == x and x not in (math.inf, -math.inf)


class History:
    """Everything known about a run's progress, bounded in memory. Feed it `Event`s."""

    def __init__(self, full: int = 2048, old_cap: int = 2048, step_time_window: int = 64):
        self._rows = _Rows(full, old_cap)
        self.series: dict[str, Series | SeriesView] = {
            m: SeriesView(m, self._rows) if m in _COL else Series(m, full, old_cap) for m in METRICS}
        self._aux_gn = Series("grad_norm", full, old_cap)
        self.step: int | None = None
        self.total_steps: int | None = None
        self.num_train_epochs: float | None = None
        self.epoch: float | None = None
        self.loss: float | None = None
        self.smoothed_loss: float | None = None
        self.learning_rate: float | None = None
        self.grad_norm: float | None = None
        self.tokens_per_s: float | None = None
        self.samples_per_s: float | None = None
        self.eval_loss: float | None = None
        self.loss_scale: float | None = None
        self.overflow_skips = 0
        self.steps_logged = 0
        self.start_time: float | None = None      # unix time of the first event with a time
        self.last_time: float | None = None       # unix time of the newest event with a time
        self.last_step_time: float | None = None  # unix time the newest step was logged
        self.ended: bool = False                  # the source logged the end of training
        self.end_status: str | None = None        # finished | failed | stopped when the source says
        self.train_loss: float | None = None      # final average loss when the source logs it
        self.runtime_s: float | None = None       # source-reported runtime (end of training)
        self._elapsed_raw = None     # elapsed / remaining time as the source reports it (parsed on read)
        self._remaining_raw = None
        self.vram: dict[int, dict[str, int]] = {}     # rank -> {"allocated_bytes", "reserved_bytes"}
        self._step_times: deque[float] = deque(maxlen=max(4, step_time_window))
        self._rate_step_time: float | None = None  # from tqdm s/it
        self._prev_step_for_dt: tuple[int, float] | None = None
        self._primary_gn = False
        self.segments = 1          # starts of training this log records (a resume adds one)
        self._smoother = LossSmoother()
        self._tps_sum = 0.0    # logged tokens/s > 0 over the whole run: its average rate once it ended
        self._tps_n = 0

    # ------------------------------------------------------------------ feeding
    def extend(self, events: Iterable[Event]) -> None:
        add = self.add
        add_step = self._add_step
        start, last = self.start_time, self.last_time
        for ev in events:
            if ev[0] == "step" and not ev[8]:
                t = ev[2]
                if t is not None:
                    if start is None or t < start:
                        start = self.start_time = t
                    if last is None or t > last:
                        last = self.last_time = t
                add_step(ev)
            else:
                add(ev)
                start, last = self.start_time, self.last_time

    def add(self, ev: Event) -> None:
        kind = ev.kind
        t = ev.time
        if t is not None:
            if self.start_time is None or t < self.start_time:
                self.start_time = t
            if self.last_time is None or t > self.last_time:
                self.last_time = t
        if ev.total_steps:
            self.total_steps = ev.total_steps
        if kind == "step":
            self._add_step(ev)
        elif kind == "progress":
            self._add_progress(ev)
        elif kind == "eval":
            if _finite(ev.loss) and ev.step is not None:
                self.eval_loss = ev.loss
                cast(Series, self.series["eval_loss"]).append(ev.step, ev.loss)
            elif ev.loss is not None:
                self.eval_loss = ev.loss
        elif kind == "overflow":
            self.overflow_skips += 1
            scale = ev.get("loss_scale")
            if scale is not None:
                self.loss_scale = scale
                cast(Series, self.series["loss_scale"]).append(self.step or 0, scale)
        elif kind == "start":
            n = ev.get("num_train_epochs")
            if n is not None:
                self.num_train_epochs = n
            if self.steps_logged or self.ended:
                self._new_segment()
        elif kind == "end":
            self.ended = True
            status = ev.get("status")
            if status:
                self.end_status = str(status)
            if ev.get("train_loss") is not None:
                self.train_loss = ev.get("train_loss")
            if ev.get("runtime_s") is not None:
                self.runtime_s = ev.get("runtime_s")
            if ev.epoch is not None:
                self.epoch = ev.epoch
            if ev.step is not None and (self.step is None or ev.step > self.step):
                self.step = ev.step

    def _new_segment(self) -> None:
        """The run started again (a resume, an OOM retry: a new `start` record in the same log): the previous
        end no longer holds, and the rate (step times, ETA) is the new segment's own; the curves go on."""
        self.segments += 1
        self.ended = False
        self.end_status = None
        self.train_loss = None
        self.runtime_s = None
        self._remaining_raw = None
        self._step_times.clear()
        self._rate_step_time = None
        self._prev_step_for_dt = None

    def add_aux(self, ev: Event) -> None:
        """A step event from a secondary source: only fills grad_norm when the primary has none
        (LLaMA-Factory's trainer_log.jsonl has no grad_norm; its stdout / trainer_state.json do)."""
        gn = ev.grad_norm
        if gn is None or ev.step is None or self._primary_gn:
            return
        s = self._aux_gn
        self.series["grad_norm"] = s
        last = s.last
        if last is None or ev.step > last[0]:
            s.append(ev.step, gn)
            if self.step is None or ev.step >= self.step:
                self.grad_norm = gn

    def _add_step(self, ev: Event) -> None:
        (_, step, t, rank, loss, gn, lr, epoch, total, tps, sps, st, extra, _line) = ev
        if step is None:
            step = (self.step or 0) + 1
        if self.step is not None and step < self.step:
            # a restarted / resumed run logs from an earlier step again: keep going from there.
            self._prev_step_for_dt = None
        self.step = step
        self.steps_logged += 1
        if total:
            self.total_steps = total
        if epoch is not None:
            self.epoch = epoch
        sm = None
        if loss is not None:
            self.loss = loss
            if loss == loss and loss not in _INF:
                sm = self._smoother.add(step, loss, self.total_steps)
                self.smoothed_loss = sm
        if lr is not None:
            self.learning_rate = lr
        if gn is not None:
            if not self._primary_gn:
                self._primary_gn = True
                self.series["grad_norm"] = SeriesView("grad_norm", self._rows)
            self.grad_norm = gn
        if tps is not None:
            self.tokens_per_s = tps
            if tps > 0 and tps not in _INF:   # 0 (an epoch boundary, a final record) is no rate
                self._tps_sum += tps
                self._tps_n += 1
        if sps is not None:
            self.samples_per_s = sps
        if st is None and t is not None:
            prev = self._prev_step_for_dt
            if prev is not None and step > prev[0] and t >= prev[1]:
                st = (t - prev[1]) / (step - prev[0])
        if t is not None:
            self._prev_step_for_dt = (step, t)
            self.last_step_time = t
        if st is not None:
            if st >= 0 and st not in _INF:
                self._step_times.append(st)
            else:
                st = None
        va = None
        if extra:
            self._take_extra(extra, rank)
            if not rank:  # the rows keep rank 0's VRAM
                va = extra.get("vram_allocated_bytes")
            ls = extra.get("loss_scale")
            if ls is not None:
                self.loss_scale = ls
                cast(Series, self.series["loss_scale"]).append(step, ls)
        rows = self._rows
        rows.recent.append((step, loss, sm, lr, gn, tps, sps, st, va))
        rows.count += 1
        if len(rows.recent) >= 2 * rows.full:
            rows.compact()

    def _add_progress(self, ev: Event) -> None:
        # tqdm bar (train bar only; parsers drop other bars) or a DeepSpeed step/throughput line:
        # it moves the step only forward.
        if ev.learning_rate is not None:
            self.learning_rate = ev.learning_rate
        if ev.samples_per_s is not None:
            self.samples_per_s = ev.samples_per_s
        if ev.epoch is not None:
            self.epoch = ev.epoch
        if ev.step_time_s is not None and _finite(ev.step_time_s) and ev.step_time_s > 0:
            self._rate_step_time = ev.step_time_s
        if ev.step is not None and (self.step is None or ev.step > self.step):
            self.step = ev.step
            if ev.time is not None:
                self.last_step_time = ev.time
        if ev.data:
            self._take_extra(ev.data, ev.rank)

    def _take_extra(self, extra: Mapping[str, Any], rank: int | None) -> None:
        """What step and progress events both carry in `data`: the source's elapsed/remaining time,
        the overflow-skip count and per-rank VRAM."""
        el = extra.get("elapsed_time")
        if el is not None:
            self._elapsed_raw = el
        rem = extra.get("remaining_time")
        if rem is not None:
            self._remaining_raw = rem
        sk = extra.get("skipped")
        if sk is not None and sk > self.overflow_skips:
            self.overflow_skips = int(sk)
        va = extra.get("vram_allocated_bytes")
        if va is not None:
            d = self.vram.get(rank or 0)
            if d is None:
                d = self.vram[rank or 0] = {}
            d["allocated_bytes"] = int(va)
            vr = extra.get("vram_reserved_bytes")
            if vr is not None:
                d["reserved_bytes"] = int(vr)

    # ------------------------------------------------------------------ derived
    @property
    def source_elapsed_s(self) -> float | None:
        """Elapsed seconds as the source reports it (LLaMA-Factory elapsed_time), None if it does not."""
        return parse_hms(self._elapsed_raw) if self._elapsed_raw is not None else None

    @property
    def source_remaining_s(self) -> float | None:
        return parse_hms(self._remaining_raw) if self._remaining_raw is not None else None

    def median_step_time_s(self) -> float | None:
        """Median of the recent step times (seconds per optimizer step), or the tqdm rate."""
        if self._step_times:
            xs = sorted(self._step_times)
            n = len(xs)
            return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
        return self._rate_step_time

    def mean_tokens_per_s(self) -> float | None:
        """The run's average of its logged tokens/s (rates > 0), None when none was logged: what a
        finished run shows instead of its last record's 0."""
        return self._tps_sum / self._tps_n if self._tps_n else None

    def eta_s(self, live: bool = False) -> float | None:
        """Seconds to the last step: remaining steps x median step time (None when unknown). 0 once the log
        says training ended, unless `live` (its process is known to run: an end line of an earlier segment
        in a text log does not end a resumed run)."""
        if self.ended and not live:
            return 0.0
        if self.total_steps and self.step is not None:
            st = self.median_step_time_s()
            if st is not None:
                return max(0, self.total_steps - self.step) * st
        return self.source_remaining_s

    def progress(self) -> float | None:
        """Fraction done in [0, 1], None when the total is unknown."""
        if self.total_steps and self.step is not None:
            return max(0.0, min(1.0, self.step / self.total_steps))
        return None

    def elapsed_s(self, now: float | None = None) -> float | None:
        """Seconds since the first timed event (to `now`, or to the newest event)."""
        if self.runtime_s is not None and self.ended:
            return self.runtime_s
        if self.start_time is not None:
            end = now if now is not None and not self.ended else self.last_time
            if end is not None:
                return max(0.0, end - self.start_time)
        return self.source_elapsed_s

    def to_dict(self, now: float | None = None) -> dict:
        return {
            "step": self.step,
            "total_steps": self.total_steps,
            "progress": self.progress(),
            "epoch": self.epoch,
            **metrics_json(self),
            "step_time_s": _json_num(self.median_step_time_s()),
            "elapsed_s": _json_num(self.elapsed_s(now)),
            "eta_s": _json_num(self.eta_s()),
            "loss_scale": _json_num(self.loss_scale),
            "overflow_skips": self.overflow_skips,
            "steps_logged": self.steps_logged,
            "ended": self.ended,
            "train_loss": _json_num(self.train_loss),
            "vram": {str(k): dict(v) for k, v in sorted(self.vram.items())},
        }


# the latest values of a History that a Snapshot copies (watch.py); both write them with metrics_json
LATEST = ("loss", "smoothed_loss", "learning_rate", "grad_norm", "eval_loss", "tokens_per_s", "samples_per_s")


def metrics_json(obj) -> dict:
    """The LATEST attributes of a History or Snapshot as JSON-safe values."""
    return {k: _json_num(getattr(obj, k)) for k in LATEST}


def _json_num(x):
    """JSON has no NaN/Infinity: non-finite numbers become the strings "nan", "inf", "-inf"."""
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return x
