"""Pilot tests of the monitor: attach to a recorded run, switch runs, stop a real run with confirmation."""

from __future__ import annotations

import asyncio
import os

from rocm_tune.tui.app import RocmTuneApp
from rocm_tune.tui.sample_run import write_sample_run
from tests.helpers_tui import wait_for

FIXED = 1_700_000_000.0 + 400


def screen_text(app) -> str:
    from textual.widgets import Static

    return "\n".join(str(w.render()) for w in app.screen.query(Static))


def test_attach_to_recorded_run_shows_progress_charts_gpus_and_log(tmp_path, monkeypatch):
    monkeypatch.setenv("ROCM_TUNE_FAKE_GPUS", "mi50-32gb:2")
    run = write_sample_run(tmp_path / "run", steps=60, total_steps=100, finished=True)

    async def go():
        app = RocmTuneApp(attach=str(run), clock=lambda: FIXED, poll_interval=0.2)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None
                           and app.screen.view.step == 60 and app.screen.view.gpus)
            v = app.screen.view
            assert v.status == "finished" and v.total_steps == 100 and len(v.loss_series) == 60
            # the loss falls in this recording; the smoothed series follows it
            assert v.loss_series[0] > v.loss_series[-1] and len(v.smooth_series) == 60
            header = str(app.screen.query_one("#mon-header").render())
            assert "60/100" in header and "finished" in header
            chart = app.screen.query_one("#chart-loss")
            assert any(0x2800 < ord(c) <= 0x28FF for c in str(chart.render()))
            gpu0 = str(app.screen.query_one("#gpu-detail").render())
            assert "GPU0" in gpu0 and "MI50" in gpu0 and "GiB / 32.0 GiB" in gpu0
            table = str(app.screen.query_one("#gpu-table").render()).splitlines()
            assert table[0] == "SIMULATED GPUs & processes"   # FakeBackend: labelled (issue 25 item 13)
            table = table[1:]
            assert len(table) == 3 and table[1].startswith("> 0") and table[2].startswith("  1")
            await pilot.press("g")   # the next GPU in detail
            assert "GPU1" in str(app.screen.query_one("#gpu-detail").render())
            log = app.screen.query_one("#mon-log")
            assert log.line_count >= 5 and "training finished" in log.lines[-1]
            assert not log.display   # at 80x24 the charts get the rows; `l` shows the log
            await pilot.press("l")
            assert log.display
            await pilot.press("l")
            assert not log.display
            await pilot.press("d")
        return app.return_value

    assert asyncio.run(go()) == 0


def test_alerts_show_code_and_fix_for_nan_loss(tmp_path):
    run = write_sample_run(tmp_path / "run", steps=30, total_steps=100, finished=True, nan_at=25)

    async def go():
        app = RocmTuneApp(attach=str(run), clock=lambda: FIXED, poll_interval=0.2)
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None and app.screen.view.alerts)
            codes = [a[0] for a in app.screen.view.alerts]
            text = str(app.screen.query_one("#mon-alerts").render())
            assert any("nan" in c for c in codes), codes
            assert "fix:" in text

    asyncio.run(go())


def test_unknown_target_is_a_message_not_a_crash(tmp_path):
    async def go():
        app = RocmTuneApp(attach=str(tmp_path / "nope"), clock=lambda: FIXED, poll_interval=0.2)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None)
            assert app.screen.view.error and "nope" in str(app.screen.query_one("#mon-header").render())

    asyncio.run(go())


def _launch_sleep(name: str):
    from rocm_tune.core.runs.launch.launcher import launch

    return launch(["sleep", "60"], name=name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purpose
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def test_stop_asks_first_then_kills_the_real_process(tmp_path):
    info = _launch_sleep("sleeper")
    assert info.pid and _alive(info.pid)

    async def go():
        app = RocmTuneApp(attach=info.id, poll_interval=0.2)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None
                           and app.screen.view.status == "running")
            monitor = app.screen
            await pilot.press("s")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
            await pilot.press("n")  # declined: nothing happens
            await wait_for(pilot, lambda: app.screen is monitor)
            await pilot.pause(0.3)
            assert _alive(info.pid)
            await pilot.press("s")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmModal")
            await pilot.press("y")
            await wait_for(pilot, lambda: monitor.view.status == "stopped", timeout=60)
            assert not _alive(info.pid)

    try:
        asyncio.run(go())
    finally:
        if _alive(info.pid):
            os.killpg(info.pgid, 9)


def test_run_list_switches_between_runs(tmp_path):
    a = _launch_sleep("first")
    b = _launch_sleep("second")
    try:
        async def go():
            app = RocmTuneApp(attach=a.id, poll_interval=0.2)
            async with app.run_test(size=(100, 30)) as pilot:
                await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None)
                monitor = app.screen
                assert monitor.view.run_id == a.id
                await pilot.press("r")
                await wait_for(pilot, lambda: type(app.screen).__name__ == "RunListScreen")
                table = app.screen.query_one("DataTable")
                await wait_for(pilot, lambda: table.row_count == 2)
                ids = [table.get_row_at(i)[0] for i in range(2)]
                assert set(ids) == {a.id, b.id}
                # move the cursor to the other run and watch it
                target = ids.index(b.id)
                for _ in range(target):
                    await pilot.press("down")
                await pilot.press("enter")
                await wait_for(pilot, lambda: app.screen is monitor and monitor.view is not None
                               and monitor.view.run_id == b.id)
                assert "second" in str(monitor.query_one("#mon-header").render())

        asyncio.run(go())
    finally:
        from rocm_tune.core.runs.launch.launcher import stop_run

        for r in (a, b):
            stop_run(r.id, grace=1)
