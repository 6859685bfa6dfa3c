"""History: bounded series, EMA, step time, ETA."""

from __future__ import annotations

import itertools
import math

import pytest

from rocm_tune.core.runs.watch.history import History, Series
from rocm_tune.core.runs.watch.parsers import Event


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
    # bias-corrected EMA with a 10-step window (run length unknown): weights exp(-gap/10); NaN/inf skipped,
    # so 1.5 at step 4 comes 2 steps after 1.0 at step 2
    acc = norm = 0.0
    for gap, v in ((1, 2.0), (1, 1.0), (2, 1.5)):
        w = math.exp(-gap / 10)
        acc, norm = w * acc + (1 - w) * v, w * norm + (1 - w)
    assert h.smoothed_loss == pytest.approx(acc / norm)
    assert math.isinf(h.loss)
    assert len(h.series["loss"]) == 5 and len(h.series["loss_smooth"]) == 3


def _real_curve(name: str):
    """Events of a real log in tests/fixtures/logs (metrics.jsonl of a real built-in trainer run of 100 steps,
    logging every 2 steps; LLaMA-Factory 0.9.5's own trainer_log.jsonl, every step)."""
    from pathlib import Path

    from rocm_tune.core.runs.watch.parsers import parser_for

    path = Path(__file__).parent / "fixtures" / "logs" / name
    kind = "metrics" if name.endswith("metrics.jsonl") else "llamafactory"
    return parser_for(kind).feed_lines(path.read_text().splitlines())


def test_the_smoothed_loss_follows_a_falling_curve():
    """Issue 25 item 14: the old EMA (0.1 per logged point) sat at 3.4-5.2 while the raw loss of this real run fell
    from 3.45 to 2.3 (steps 16-40); the smoothed loss stays inside the raw values of the last 10 steps."""
    h = History()
    raw: list[tuple[int, float]] = []
    old = None
    old_outside = 0
    for ev in _real_curve("falling-loss-builtin-metrics.jsonl"):
        h.add(ev)
        if ev.kind != "step":
            continue
        raw.append((ev.step, ev.loss))
        window = [v for s, v in raw if s > ev.step - 10]
        assert min(window) - 1e-9 <= h.smoothed_loss <= max(window) + 1e-9, (ev.step, h.smoothed_loss, window)
        old = ev.loss if old is None else old + 0.1 * (ev.loss - old)
        old_outside += old > max(window)
        if ev.step == 90:
            assert ev.loss == pytest.approx(1.5555, abs=1e-3) and abs(h.smoothed_loss - ev.loss) < 0.1
    assert old_outside > 20          # the test fails with the old smoothing
    assert h.step == 100 and h.ended


def test_the_smoothed_loss_is_smoother_than_the_raw_loss():
    """On a real noisy, slowly falling curve (LLaMA-Factory, every step) it still removes noise."""
    h = History()
    h.extend(_real_curve("llamafactory-0.9.5-lora-cpu/trainer_log.jsonl"))
    raw, sm = h.series["loss"].values(), h.series["loss_smooth"].values()
    assert len(raw) == len(sm) == 36

    def variation(xs):
        return sum(abs(b - a) for a, b in itertools.pairwise(xs))

    assert variation(sm) < 0.6 * variation(raw)
    assert min(raw) <= sm[-1] <= max(raw[-5:])


def test_a_finished_run_keeps_its_average_rate_not_the_final_zero():
    h = History()
    h.extend([step(1, 2.0, tps=1000.0), step(2, 1.9, tps=3000.0), step(3, 1.8, tps=0.0)])
    h.add(Event("end", 3, None, data={"status": "finished"}))
    assert h.tokens_per_s == 0.0 and h.mean_tokens_per_s() == pytest.approx(2000.0)


def test_a_new_start_record_opens_a_segment_with_its_own_rate_and_eta():
    """A resumed run appends a second `start` to the same log: the first segment's end no longer holds, the ETA
    comes from the new segment's steps."""
    h = History()
    h.add(Event("start", None, 1000.0, total_steps=100))
    h.extend(step(i, 2.0, t=1000.0 + 10 * i, total=100) for i in range(1, 11))      # 10 s/step
    h.add(Event("end", 10, 1100.0, data={"status": "stopped"}))
    assert h.ended and h.eta_s() == 0.0
    h.add(Event("start", None, 5000.0, total_steps=100))
    assert not h.ended and h.end_status is None and h.segments == 2
    h.extend(step(i, 1.5, t=5000.0 + 2 * (i - 8), total=100) for i in range(9, 21))  # from checkpoint-8, 2 s/step
    assert h.median_step_time_s() == pytest.approx(2.0)
    assert h.eta_s() == pytest.approx((100 - 20) * 2.0)


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
