"""Issue 25 item 11: the app offers `rocm-tune demo`'s tiny real run where a first-time user looks, and starts it
as the command does (`rocm_tune.train.demo.start_demo`, the code behind `rocm-tune demo`).

From the Model screen, ctrl+t asks first, then builds the tiny model and data in the demo folder, starts a detached
`rocm-tune train` run and opens the monitor on it; the run really trains (logged steps with a loss). A launch
without a dataset offers the same run (declined here: it says where the dataset goes).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.core.runs.registry import find_run
from rocm_tune.train.demo import default_dir
from rocm_tune.tui.app import RocmTuneApp
from tests.conftest import run_cli
from tests.helpers_tui import burst, wait_for

pytest.importorskip("transformers")


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


def steps_logged(info) -> list[dict]:
    path = Path(info.dir, "metrics.jsonl")
    recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []
    return [r for r in recs if r.get("type") == "step" and isinstance(r.get("loss"), float)]


@pytest.mark.slow
def test_the_model_screen_starts_the_demo_run_and_a_launch_without_dataset_offers_it(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    started: dict = {}

    async def go():
        app = RocmTuneApp(start="model", answers={"gpu": "mi50-32gb", "gpus": 1},
                          backend=FakeBackend("mi50-32gb", 1, seed=1), poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            # the screen's first search answered (its "N preset(s) match" would otherwise land on the status
            # line after the decline below and overwrite it, whenever that worker is the slower)
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ModelScreen"
                           and app.screen.query("#demo-hint") and app.screen.query_one("#presets").option_count > 0)
            # where a first-time user looks: said on the screen and in the footer
            assert "ctrl+t" in str(app.screen.query_one("#demo-hint").render())
            assert any(b.key == "ctrl+t" and b.show for b in app.screen.BINDINGS)
            model_screen = app.screen
            burst(app, "ctrl+t")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
            burst(app, "n")   # declining starts nothing
            await wait_for(pilot, lambda: app.screen is model_screen and "no demo run started" in status(app))
            burst(app, "ctrl+t")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
            burst(app, "y")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "MonitorScreen", 300, "the demo's monitor")
            started["id"] = app.screen.target
            info = find_run(started["id"])
            await wait_for(pilot, lambda: len(steps_logged(find_run(started["id"]))) >= 2, 300, "logged steps")
            await pilot.press("ctrl+q")
        return info

    info = asyncio.run(go())
    try:
        # the run `rocm-tune demo` starts: a `rocm-tune train` of the tiny model on the tiny data, in the demo folder
        meta = json.loads(Path(info.dir, "run.json").read_text())
        assert info.name == "demo" and meta["kind"] == "train"
        assert meta["command"] == [sys.executable, "-m", "rocm_tune", "train", str(Path(info.dir, "train.yaml"))]
        train = Path(info.dir, "train.yaml").read_text()
        assert str(default_dir() / "tiny-qwen2") in train and str(default_dir() / "data.json") in train
        assert (default_dir() / "tiny-qwen2" / "config.json").is_file()
        assert info.pgid and os.getsid(info.pid) != os.getsid(0)   # detached, like any run
    finally:
        run_cli("stop", started["id"], "--grace", "30", timeout=120)

    # the Plan screen without a dataset: ctrl+l says where the dataset goes and offers the demo run instead
    async def launch_without_data():
        answers = {"gpu": "mi50-32gb", "gpus": 1, "model": "qwen2.5-0.5b", "method": "lora", "effective_batch": 8}
        app = RocmTuneApp(start="plan", answers=answers, backend=FakeBackend("mi50-32gb", 1, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict)
            plan_screen = app.screen
            burst(app, "ctrl+l")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal" and app.screen.query(".title"))
            body = "\n".join(str(w.render()) for w in app.screen.query("Static"))
            assert "No dataset to launch with" in body and "rocm-tune demo" in body
            burst(app, "n")
            await wait_for(pilot, lambda: app.screen is plan_screen)
            assert "launch needs a dataset: set it on the Goal screen" in status(app)

    asyncio.run(launch_without_data())
