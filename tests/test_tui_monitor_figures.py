"""Issue 12 defects 3, 4, 5, 7 on the monitor: figures from the run itself, a deliberate stop, detach,
and many GPUs. Real run directories, real processes, Textual Pilot."""

from __future__ import annotations

import asyncio
import json
import math
import os

import pytest

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from rocm_tune.tui.sample_run import write_sample_run
from rocm_tune.tui.scenes import FixedHost
from tests.helpers_tui import wait_for

START = 1_700_000_000.0


def text(app, sel) -> str:
    return str(app.screen.query_one(sel).render())


def rows(app) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


def _with_zero_rates(run) -> list[float]:
    """Make the trainer's epoch-boundary and final records log tokens_per_s 0 (as trainers do);
    returns the positive rates of the whole run (a finished run shows its average rate, issue 25 item 14)."""
    path = run / "metrics.jsonl"
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    steps = [r for r in recs if r.get("type") == "step"]
    for r in steps:
        if r["step"] in (30, steps[-1]["step"]):
            r["tokens_per_s"] = 0.0
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return [r["tokens_per_s"] for r in steps if r["tokens_per_s"] > 0]


def test_figures_come_from_the_run_not_from_the_attach(tmp_path):
    run = write_sample_run(tmp_path / "run", steps=60, total_steps=100, start=START, step_time=4.0, finished=True)
    rates = _with_zero_rates(run)
    attach_at = START + 3 * 3600   # attached hours after the run ended

    async def go():
        app = RocmTuneApp(attach=str(run), clock=lambda: attach_at, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi50-32gb", 1, seed=1, clock=lambda: attach_at))
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None and app.screen.view.step == 60)
            v = app.screen.view
            # elapsed from the run's own start (run.json) to its end (exit.json), kept after the end
            ended = json.loads((run / "exit.json").read_text())["ended_at"]
            assert v.elapsed_s == pytest.approx(ended - START)
            assert "elapsed 04:01" in text(app, "#mon-header")
            # a finished run: the run's average rate; the 0 of the final record is no rate
            assert v.tokens_per_s == pytest.approx(sum(rates) / len(rates)) and v.tokens_per_s > 1800
            assert f"{round(sum(rates) / len(rates)):,} tok/s" in text(app, "#mon-header")
            assert v.step_time_s == pytest.approx(4.0)
            # eval_loss is drawn over the training loss, steps on the x axis
            assert sum(x is not None for x in v.eval_series) == 3
            loss = text(app, "#chart-loss")
            assert "◆ eval" in loss and "└1" in loss and loss.rstrip().endswith("60")

    asyncio.run(go())


def test_nan_is_shown_as_nan_on_the_grad_norm_chart(tmp_path):
    run = write_sample_run(tmp_path / "run", steps=30, total_steps=100, finished=True, nan_at=25)

    async def go():
        app = RocmTuneApp(attach=str(run), clock=lambda: START + 400, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi50-32gb", 1, seed=1))
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None and app.screen.view.step == 30)
            assert math.isnan(app.screen.view.grad_series[-1])
            chart = text(app, "#chart-gn")
            assert chart.splitlines()[0].endswith("NaN") and "×" in chart

    asyncio.run(go())


def test_eight_gpus_fit_80x24_one_row_each(tmp_path):
    run = write_sample_run(tmp_path / "run", steps=10, total_steps=100, finished=True)

    async def go():
        app = RocmTuneApp(attach=str(run), clock=lambda: START + 400, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi300x", 8, seed=1, clock=lambda: START))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None and app.screen.view.gpus)
            await pilot.pause(0.2)
            screen = rows(app)
            for i in range(8):
                assert any(f"{'>' if i == 0 else ' '} {i} " in r and "/192" in r for r in screen), (i, screen)
            # the selected GPU in detail, with its processes (PID, user, VRAM, command); simulated GPUs' made-up
            # processes are labelled `sim`, never looked up on this machine (issue 25 item 13)
            detail = text(app, "#gpu-detail")
            assert "GPU0" in detail and "PID user" in detail and "40000 sim " in detail and "alice" not in detail
            assert text(app, "#gpu-table").startswith("SIMULATED GPUs & processes")
            assert "host CPU  37% of 64" in text(app, "#host")

    asyncio.run(go())


def _launch_sleep(name: str):
    from rocm_tune.core.runs.launch.launcher import launch

    return launch(["sleep", "60"], name=name)


def test_a_deliberate_stop_says_stopped_by_you_with_checkpoint_and_resume_and_detach_prints_attach(tmp_path):
    info = _launch_sleep("sleeper")
    # what a trainer leaves: a bundle and a checkpoint saved on SIGTERM
    (tmp_path / "x").mkdir()
    bundle = os.path.join(info.dir, "bundle")
    os.makedirs(bundle)
    with open(os.path.join(bundle, "run.sh"), "w") as fh:
        fh.write("#!/usr/bin/env bash\npython -m rocm_tune train llamafactory.yaml \"$@\"\n")
    os.makedirs(os.path.join(info.dir, "output", "checkpoint-381"))

    async def go():
        app = RocmTuneApp(attach=info.id, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi50-32gb", 1, seed=1))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None
                           and app.screen.view.status == "running")
            monitor = app.screen
            await pilot.press("s")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
            body = "\n".join(str(w.render()) for w in app.screen.query("Static"))
            assert "SIGKILL after 30 s" in body
            await pilot.press("y")
            await wait_for(pilot, lambda: monitor.view.status == "stopped", timeout=60)
            await wait_for(pilot, lambda: monitor.view.stopped_by_user, timeout=30)
            header = text(app, "#mon-header")
            assert "stopped by you" in header and "exit" not in header
            assert "checkpoint-381 saved" in header and f"resume: rocm-tune resume {info.id}" in header
            assert not any(a[0] == "process-exited" for a in monitor.view.alerts)
            await pilot.press("c")   # the checkpoint list (resume from one of them), escape closes it
            await wait_for(pilot, lambda: type(app.screen).__name__ == "CheckpointsScreen")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is monitor)
            await pilot.press("d")
            await wait_for(pilot, lambda: app.return_code is not None)
            said = "".join(str(r) for r in app._exit_renderables)
            assert info.id in said and f"rocm-tune attach {info.id}" in said

    try:
        asyncio.run(go())
    finally:
        from rocm_tune.core.runs.launch.launcher import stop_run
        from rocm_tune.core.runs.registry import find_run

        if find_run(info.id).status == "running":
            stop_run(info.id, grace=1)


def test_predicted_vs_measured_memory_per_gpu_and_every_nodes_ranks(tmp_path):
    from rocm_tune.train.callbacks import append_rank_record

    gib = 2**30
    run = write_sample_run(tmp_path / "run", steps=10, total_steps=100, finished=True)
    (run / "plan.json").write_text(json.dumps({"memory": {"reserved_bytes": 20 * gib, "peak_allocated_bytes": 18 * gib},
                                               "throughput": {"tokens_per_s": 1800.0},
                                               "hardware": {"gpus": 1, "nodes": 2, "vram_bytes": 32 * gib}}))
    for node, host, peak in (("0", "node-a", 21), ("1", "node-b", 19)):
        append_rank_record(run, {"node": node, "rank": int(node), "host": host, "local_rank": 0, "gpu_index": 0,
                                 "step": 10, "time": START + 40, "allocated_bytes": 17 * gib,
                                 "reserved_bytes": peak * gib, "peak_allocated_bytes": 18 * gib,
                                 "peak_reserved_bytes": peak * gib})

    async def go():
        app = RocmTuneApp(attach=str(run), clock=lambda: START + 400, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi50-32gb", 1, seed=1))
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None and app.screen.view.step == 10)
            detail = text(app, "#gpu-detail")
            assert "predicted 20.0 GiB" in detail and "measured 21.0 GiB (+5%)" in detail
            nodes = text(app, "#nodes")
            assert "node-a" in nodes and "node-b" in nodes and "peak 19.0 GiB" in nodes

    asyncio.run(go())


def test_a_text_log_attached_mid_way_agrees_with_its_tqdm_bar(tmp_path):
    """No run.json: elapsed is the bar's own (not the time since attaching), s/step tqdm's s/it."""
    bars = []
    for s in range(1, 118):
        el, rem = int(s * 0.70), int((400 - s) * 0.70)
        bars.append(f" {s * 100 // 400:3d}%|#         | {s}/400 [{el // 60:02d}:{el % 60:02d}<{rem // 60:02d}:{rem % 60:02d},"
                    "  0.70s/it]")
        if s % 10 == 0:
            bars.append("{'loss': 1.2, 'grad_norm': 0.9, 'learning_rate': 1e-05, 'epoch': %.2f}" % (s / 400))
    log = tmp_path / "train.log"
    log.write_text("\r".join(bars) + "\n")

    async def go():
        app = RocmTuneApp(attach=str(log), clock=lambda: START, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi50-32gb", 1, seed=1))
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None and app.screen.view.step == 117)
            v = app.screen.view
            assert v.elapsed_s == 81.0 and v.step_time_s == pytest.approx(0.70)
            assert v.eta_s == pytest.approx((400 - 117) * 0.70)
            header = text(app, "#mon-header")
            assert "elapsed 01:21" in header and "ETA 03:18" in header and "0.70 s/step" in header

    asyncio.run(go())
