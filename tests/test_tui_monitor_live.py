"""The monitor at 80x24 (issue 25 items 8, 12, 13): simulated GPUs and their processes are labelled as such, every
header line fits, and an OOM alert's whole fix (explain's) is in a pane that scrolls. Real run directories,
Textual Pilot."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from rocm_tune.tui.sample_run import write_sample_run
from rocm_tune.tui.scenes import FixedHost
from tests.conftest import run_cli
from tests.helpers_tui import wait_for

START = 1_700_000_000.0
LOGS = Path(__file__).parent / "fixtures" / "logs"


def text(app, sel) -> str:
    return str(app.screen.query_one(sel).render())


def screen_lines(app) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips()]


def test_simulated_gpus_and_their_processes_are_labelled(tmp_path):
    run = write_sample_run(tmp_path / "run", steps=40, total_steps=100, start=START, finished=True)

    async def go(count: int):
        app = RocmTuneApp(attach=str(run), clock=lambda: START + 400, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi300x", count, seed=1, clock=lambda: START + 400))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None and app.screen.view.gpus)
            await pilot.pause(0.2)
            v = app.screen.view
            assert v.simulated
            # the made-up processes are never looked up on this machine
            assert v.process_users and all(u == "sim" and c.endswith("(simulated)")
                                           for u, c in v.process_users.values())
            shown = text(app, "#gpu-table") if count > 1 else text(app, "#gpu-detail")
            assert shown.startswith("SIMULATED GPUs & processes\n"), shown
            procs = [ln for ln in text(app, "#gpu-detail").splitlines() if ln.startswith("40000 ")]
            assert procs and procs[0].split()[1] == "sim", procs      # the user column says so too
            assert "SIMULATED GPUs & processes" in "\n".join(screen_lines(app))
            await pilot.press("q")

    asyncio.run(go(1))
    asyncio.run(go(8))


def test_a_stopped_run_header_fits_80_columns_and_a_finished_one_has_no_resume_hint(tmp_path):
    run = write_sample_run(tmp_path / "run", steps=40, total_steps=100, start=START, finished=True)
    (run / "output" / "checkpoint-40").mkdir(parents=True)
    ex = json.loads((run / "exit.json").read_text())

    async def go():
        app = RocmTuneApp(attach=str(run), clock=lambda: START + 400, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi50-32gb", 1, seed=1, clock=lambda: START + 400))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None
                           and app.screen.view.step == 40)
            await pilot.pause(0.2)
            v = app.screen.view
            header = text(app, "#mon-header")
            if v.status == "finished":
                assert v.resume_cmd is None and "resume" not in header
            else:
                assert v.resume_cmd == f"rocm-tune resume {v.run_id}" and f"resume: {v.resume_cmd}" in header
            assert "ETA" not in header and "n/a" not in header.splitlines()[1]   # an ended run has no ETA
            assert all(len(line) <= 78 for line in header.splitlines()), header
            await pilot.press("q")
            return v.status

    assert asyncio.run(go()) == "finished"
    (run / "exit.json").write_text(json.dumps({**ex, "status": "stopped", "stop_requested": True}))
    assert asyncio.run(go()) == "stopped"


def test_an_oom_alert_shows_explains_whole_fix_in_a_pane_that_scrolls(tmp_path):
    run = write_sample_run(tmp_path / "run", steps=40, total_steps=100, start=START, finished=True)
    with open(run / "stdout.log", "a", encoding="utf-8") as fh:
        fh.write((LOGS / "alert-oom-cuda.log").read_text())
    ex = json.loads((run / "exit.json").read_text())
    (run / "exit.json").write_text(json.dumps({**ex, "status": "failed", "returncode": 1}))
    r = run_cli("explain", str(run), "--json")
    d = json.loads(r.stdout)
    fix = next(x["fix"] for x in d["diagnoses"] if x["code"] == "oom")

    async def go():
        app = RocmTuneApp(attach=str(run), clock=lambda: START + 400, poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi50-32gb", 1, seed=1, clock=lambda: START + 400))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None
                           and any(a[0] == "oom" for a in app.screen.view.alerts))
            await pilot.pause(0.3)
            body = " ".join(text(app, "#mon-alerts").split())
            assert " ".join(f"fix: {fix}".split()) in body      # whole, word for word (wrapped to the width)
            pane = app.screen.query_one("#mon-alerts-pane")
            assert pane.display and pane.virtual_size.height > pane.size.height > 4   # more than fits: it scrolls
            await pilot.press("a")
            assert app.focused is pane
            await pilot.press("end")
            await wait_for(pilot, lambda: pane.scroll_y > 0)
            await pilot.press("q")

    asyncio.run(go())
    shutil.rmtree(run)
