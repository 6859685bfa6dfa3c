"""Pilot test: launch a real tiny training from the Plan screen (ctrl+l) and watch it in the monitor.

The wizard's answers point at a tiny random Qwen2 (2 layers, hidden 64) and a 64-sample dataset built
here; ctrl+l asks first, starts the run through `rocm_tune.core.runs.launch.plan_launch.launch_plan` (what
`rocm-tune run --plan` runs), the monitor follows the real metrics; quitting the app leaves it running.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.core.runs.registry import find_run
from rocm_tune.tui.app import RocmTuneApp
from tests.helpers_tui import wait_for


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


def said(app) -> str:
    """The status line and the notifications (a status line longer than the terminal is cut to fit;
    the whole message is in a notification)."""
    return "\n".join([status(app), *(n.message for n in app._notifications)])


def _screen(app) -> str:
    return type(app.screen).__name__


@pytest.fixture
def tiny(tmp_path):
    """Tiny model + 64-sample dataset, built in a subprocess (no torch in the test process)."""
    code = ("import sys; from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model; "
            "d = make_tiny_dataset(sys.argv[1] + '/data.json', n=64); make_tiny_model(sys.argv[1] + '/model', d)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120, check=False,
                         env={**os.environ, "TRANSFORMERS_VERBOSITY": "error"})
    assert out.returncode == 0, out.stderr[-2000:]
    return tmp_path / "model", tmp_path / "data.json"


def _answers(model, data=None) -> dict:
    a = {"gpu": "mi50-32gb", "gpus": 1, "model": str(model), "method": "lora", "effective_batch": 8,
         "epochs": 1.0}
    if data is not None:
        a["dataset"] = str(data)
    return a


@pytest.mark.slow
def test_launch_from_plan_trains_and_the_monitor_follows_it(tiny, tmp_path, monkeypatch):
    model, data = tiny
    monkeypatch.chdir(tmp_path)
    backend = FakeBackend("mi50-32gb", 1, seed=1)
    builtin = shutil.which("llamafactory-cli") is None
    started: dict = {}
    told = tmp_path / "told.jsonl"
    notify_cmd = f"sh -c 'cat >> {told}; echo >> {told}'"

    async def go():
        app = RocmTuneApp(start="plan", answers=_answers(model, data), backend=backend, poll_interval=0.3)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: _screen(app) == "PlanScreen" and app.state.plan_dict, 90, "plan")
            assert any(b.key == "ctrl+l" and b.description == "Launch" and b.show for b in app.screen.BINDINGS)
            plan_screen = app.screen
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: _screen(app) == "LaunchModal", 60, "confirmation")
            body = "\n".join(str(w.render()) for w in app.screen.query("Static"))
            assert str(data) in body and "in RUN_DIR/bundle (what its run.sh runs)" in body
            assert "leaves the run going" in body
            if builtin:
                assert "built-in trainer (rocm-tune train)" in body and "python -m rocm_tune train llamafactory.yaml" in body
            # declining starts nothing
            await pilot.press("n")
            await wait_for(pilot, lambda: app.screen is plan_screen, 30, "back on the plan")
            assert "not launched" in status(app)
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: _screen(app) == "LaunchModal", 60, "confirmation")
            # `rocm-tune run`'s long-run options: --retry-oom N and --notify, checked as run checks them
            modal = app.screen
            modal.query_one("#retry-oom").value = "2"
            modal.query_one("#notify").value = "no-such-notifier --x"
            await pilot.press("y")
            await wait_for(pilot, lambda: "is not found" in str(modal.query_one("#launch-error").render()), 10,
                           "the bad notify target named")
            assert app.screen is modal
            modal.query_one("#notify").value = notify_cmd
            await pilot.press("y")
            await wait_for(pilot, lambda: _screen(app) == "MonitorScreen", 90, "monitor")
            mon = app.screen
            started["id"] = mon.target
            info = find_run(mon.target)
            assert info.kind == "plan" and (info.dir and os.path.isfile(os.path.join(info.dir, "bundle", "run.sh")))
            # detached: the command runs in a session of its own, not the app's
            assert info.pgid and os.getsid(info.pid) != os.getsid(0)
            await wait_for(pilot, lambda: mon.view is not None and (mon.view.step or 0) > 0
                           and mon.view.loss is not None, 120, "a logged step")
            header = str(mon.query_one("#mon-header").render())
            assert f"{mon.view.step}/" in header
            await pilot.press("escape")   # back to the plan the run came from
            await wait_for(pilot, lambda: app.screen is plan_screen, 30, "back on the plan")
            await pilot.press("ctrl+q")   # quit the app: the run goes on
            await wait_for(pilot, lambda: app.return_code is not None, 30, "app exit")
        return app.return_code

    assert asyncio.run(go()) == 0
    run_id = started["id"]
    # the run was not stopped by closing the app: it reaches its end on its own
    end = time.time() + 180   # an upper bound for a loaded 2-core machine; the run needs a few seconds when idle
    while time.time() < end and find_run(run_id).status == "running":
        time.sleep(0.3)
    info = find_run(run_id)
    assert info.status == "finished", Path(info.dir, "stdout.log").read_text()[-3000:]
    recs = [json.loads(x) for x in Path(info.dir, "metrics.jsonl").read_text().splitlines() if x.strip()]
    steps = [r for r in recs if r["type"] == "step"]
    assert steps and steps[-1]["step"] == 8 and all(isinstance(r["loss"], float) for r in steps)
    # the options reached the run's supervisor (recorded in run.json) and the notify command was told the end
    meta = json.loads(Path(info.dir, "run.json").read_text())
    assert meta["retry_oom"] == 2 and meta["notify"] == notify_cmd
    end = time.time() + 60
    while time.time() < end and '"finished"' not in (told.read_text() if told.exists() else ""):
        time.sleep(0.2)
    events = [json.loads(x) for x in told.read_text().splitlines() if x.strip()]
    assert any(e.get("status") == "finished" and e.get("run_id") == run_id for e in events), events

    # attach again: the monitor shows the finished run with every step
    async def again():
        app = RocmTuneApp(attach=run_id, backend=backend, poll_interval=0.3)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None
                           and app.screen.view.status == "finished", 15, "finished")
            v = app.screen.view
            assert v.step == 8 and len(v.loss_series) == 8
            assert "finished" in str(app.screen.query_one("#mon-header").render())

    asyncio.run(again())


def test_launch_without_dataset_says_so_and_starts_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps({
        "model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 400, "max_position_embeddings": 512,
        "tie_word_embeddings": True}))
    backend = FakeBackend("mi50-32gb", 1, seed=1)

    async def go():
        app = RocmTuneApp(start="plan", answers=_answers(tmp_path / "m"), backend=backend, poll_interval=0.3)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: _screen(app) == "PlanScreen" and app.state.plan_dict, 90, "plan")
            plan_screen = app.screen
            await pilot.press("ctrl+l")
            # says where the dataset goes and offers `rocm-tune demo`'s tiny run instead (issue 25 item 11)
            await wait_for(pilot, lambda: _screen(app) == "ConfirmModal", 10, "the demo offered")
            await pilot.press("n")
            await wait_for(pilot, lambda: app.screen is plan_screen, 10, "back on the plan")
            assert "launch needs a dataset" in status(app) and "Goal screen" in said(app)
            assert len(status(app)) <= 78
            # a dataset that does not exist is named
            app.state.answers["dataset"] = str(tmp_path / "nope.json")
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: "nope.json" in said(app), 10, "missing file message")
            assert "does not exist" in said(app) and _screen(app) == "PlanScreen"
            # the same key on the Export screen
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: _screen(app) == "ExportScreen", 10, "export")
            app.state.answers["dataset"] = None
            await pilot.press("ctrl+l")
            await wait_for(pilot, lambda: _screen(app) == "ConfirmModal", 10, "the demo offered on export")
            await pilot.press("n")
            await wait_for(pilot, lambda: "launch needs a dataset" in status(app), 10, "dataset message on export")

    asyncio.run(go())
    from rocm_tune.core.runs.registry import runs_root

    assert not runs_root().exists() or not any(runs_root().iterdir())


@pytest.mark.slow
def test_plan_screen_starts_a_preflight_and_watches_it(tmp_path, monkeypatch):
    """ctrl+p on the Plan screen: asks first, then `core.check.preflight.start_preflight` of the plan shown."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps({
        "model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 400, "max_position_embeddings": 512,
        "tie_word_embeddings": True}))
    backend = FakeBackend("mi50-32gb", 1, seed=1)
    started: dict = {}

    async def go():
        app = RocmTuneApp(start="plan", answers=_answers(tmp_path / "m"), backend=backend, poll_interval=0.3)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: _screen(app) == "PlanScreen" and app.state.plan_dict, 90, "plan")
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: _screen(app) == "ConfirmModal", 10, "confirmation")
            await pilot.press("n")
            await wait_for(pilot, lambda: "no preflight" in status(app), 30, "declined")
            await pilot.press("ctrl+p")
            await wait_for(pilot, lambda: _screen(app) == "ConfirmModal", 10, "confirmation")
            await pilot.press("y")
            await wait_for(pilot, lambda: _screen(app) == "MonitorScreen", 90, "monitor")
            started["id"] = app.screen.target

    try:
        asyncio.run(go())
        info = find_run(started["id"])
        assert info.kind == "preflight"
        assert json.loads((Path(info.dir) / "plan.json").read_text())["model"]["name"]
    finally:
        if started.get("id") and find_run(started["id"]).status == "running":
            from rocm_tune.core.runs.launch.launcher import stop_run

            stop_run(started["id"], grace=2)
