"""History: bounded series, EMA, step time, ETA."""

from __future__ import annotations

import itertools
import math

import pytest

from rocm_tune.core.runs.history import EMA_ALPHA, History, Series
from rocm_tune.core.runs.parsers import Event


def step(i, loss=None, t=None, **kw):
    return Event("step", i, t, None, loss, kw.get("gn"), kw.get("lr"), kw.get("epoch"), kw.get("total"),
                 kw.get("tps"), None, kw.get("st"))


def test_series_memory_is_bounded_and_uniform():
    s = Series("x", full=100, old_cap=100)
    for i in range(1, 100_001):
        s.append(i, float(i))
    pts = s.points()
    assert len(pts) <= 300
    steps = [p[0] for p in pts]
    assert steps[0] == 1 and steps[-1] == 100_000 and steps == sorted(steps)
    assert steps[-100:] == list(range(99_901, 100_001))       # newest at full resolution
    gaps = {b - a for a, b in itertools.pairwise(steps[:90])}
    assert len(gaps) == 1 and gaps.pop() > 100                 # old part evenly decimated
    assert s.count == 100_000 and s.last == (100_000, 100_000.0)
    assert s.points(last=3) == [(99_998, 99_998.0), (99_999, 99_999.0), (100_000, 100_000.0)]


def test_history_rows_bounded_for_a_long_run():
    h = History(full=256, old_cap=256)
    h.extend(step(i, 2.0 / i, t=1000.0 + i, lr=1e-4, gn=0.5, total=1_000_000) for i in range(1, 300_001))
    for name in ("loss", "loss_smooth", "learning_rate", "grad_norm", "step_time_s"):
        pts = h.series[name].points()
        assert 0 < len(pts) <= 3 * 256, name
        # step 1 has no step time (no previous step); decimation keeps rows, not per-metric points
        assert pts[0][0] == (1 if name != "step_time_s" else 2049) and pts[-1][0] == 300_000
    assert h.steps_logged == 300_000 and h.step == 300_000


def test_ema_and_nan_do_not_poison_the_smoothed_loss():
    h = History()
    losses = [2.0, 1.0, float("nan"), 1.5, float("inf")]
    h.extend(step(i + 1, v) for i, v in enumerate(losses))
    sm = 2.0
    for v in (1.0, 1.5):
        sm = sm + EMA_ALPHA * (v - sm)
    assert h.smoothed_loss == pytest.approx(sm)
    assert math.isinf(h.loss)
    assert len(h.series["loss"]) == 5 and len(h.series["loss_smooth"]) == 3


def test_step_time_from_times_median_and_eta():
    h = History()
    times = [0, 10, 20, 30, 130, 140]  # one 100 s outlier (a checkpoint save)
    h.extend(step(i + 1, 1.0, t=1000.0 + t, total=100) for i, t in enumerate(times))
    assert h.median_step_time_s() == 10.0
    assert h.eta_s() == pytest.approx((100 - 6) * 10.0)
    assert h.progress() == pytest.approx(0.06)
    assert h.elapsed_s() == 140.0
    d = h.to_dict()
    assert d["step"] == 6 and d["total_steps"] == 100 and d["eta_s"] == pytest.approx(940.0)


def test_explicit_step_time_and_tqdm_rate_and_end():
    h = History()
    h.add(Event("progress", 5, total_steps=50, step_time_s=2.5))
    assert h.median_step_time_s() == 2.5 and h.step == 5 and h.eta_s() == pytest.approx(112.5)
    h.add(step(10, 1.0, st=4.0))
    assert h.median_step_time_s() == 4.0
    h.add(Event("end", 50, data={"status": "finished", "train_loss": 1.1, "runtime_s": 200.0}))
    assert h.ended and h.eta_s() == 0.0 and h.elapsed_s() == 200.0 and h.train_loss == 1.1


def test_restarted_run_steps_backwards_and_json_numbers():
    h = History()
    h.extend(step(i, 1.0, t=float(i)) for i in range(1, 11))
    h.add(step(3, float("nan"), t=100.0))
    assert h.step == 3
    assert h.to_dict()["loss"] == "nan"
    h.add(step(4, 1.0, t=101.0))
    assert h.median_step_time_s() == 1.0


def test_aux_grad_norm_fills_in_when_primary_has_none():
    h = History()
    h.add(step(1, 2.0))
    h.add_aux(step(1, 2.0, gn=0.7))
    assert h.grad_norm == 0.7 and h.series["grad_norm"].points() == [(1, 0.7)]
