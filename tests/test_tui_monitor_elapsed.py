"""Elapsed counts from the run's own start, not from when the monitor opened (issue 18, item 5), and the
app, `attach --once --json` and `attach --plain` agree. Real run directories and real processes."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time

import pytest

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from rocm_tune.tui.sample_run import write_sample_run
from rocm_tune.tui.scenes import FixedHost
from tests.conftest import run_cli
from tests.helpers_tui import wait_for

TWO_HOURS = 7200.0


def header(app) -> str:
    return str(app.screen.query_one("#mon-header").render())


def clock_in(text: str) -> float:
    """Seconds of the H:MM:SS after 'elapsed ' in `text`."""
    m = re.search(r"elapsed\s+(\d+):(\d\d):(\d\d)", text)
    assert m, text
    h, mi, s = (int(g) for g in m.groups())
    return h * 3600 + mi * 60 + s


@pytest.fixture
def sleeper():
    """A real process that runs while the test looks at it."""
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield p
    p.kill()
    p.wait()


def test_running_run_started_two_hours_ago_shows_two_hours(tmp_path, sleeper):
    """A run that logs no times (LLaMA-Factory's stdout only): its run.json says it started 2 h ago."""
    started = time.time() - TWO_HOURS
    run = write_sample_run(tmp_path / "run", steps=20, total_steps=100, start=started, pid=sleeper.pid)
    (run / "metrics.jsonl").unlink()    # only the text log, whose lines carry no time

    async def go():
        app = RocmTuneApp(attach=str(run), poll_interval=0.2, host_probe=FixedHost(),
                          backend=FakeBackend("mi50-32gb", 1, seed=1))
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None
                           and app.screen.view.step == 20 and app.screen.view.status == "running")
            await pilot.pause(0.5)   # later polls stamp new lines with the clock: elapsed must not restart
            v = app.screen.view
            assert TWO_HOURS <= v.elapsed_s < TWO_HOURS + 600
            assert TWO_HOURS <= clock_in(header(app)) < TWO_HOURS + 600
            return v.elapsed_s

    shown = asyncio.run(go())
    r = run_cli("attach", str(run), "--once", "--json", "--no-gpus")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["status"] == "running" and shown <= d["elapsed_s"] < shown + 600
    r = run_cli("attach", str(run), "--once", "--no-gpus")
    assert TWO_HOURS <= clock_in(r.stdout) < TWO_HOURS + 600
    r = run_cli("attach", str(run), "--plain", "--no-follow")
    m = re.search(r"started (\d+):(\d\d):(\d\d) ago", r.stdout)
    assert m and m.group(1) == "2", r.stdout


def test_attached_pid_counts_from_the_process_start(tmp_path):
    """A bare PID: the process's own start time (/proc), not the first line the monitor saw. The app's
    clock runs 2 h ahead, so counting from the monitor's start would read seconds."""
    log = tmp_path / "train.log"
    with open(log, "w") as out:
        p = subprocess.Popen([sys.executable, "-c", "import time; print('step 1', flush=True); time.sleep(600)"],
                             stdout=out, stderr=subprocess.STDOUT)
    try:
        async def go():
            app = RocmTuneApp(attach=str(p.pid), clock=lambda: time.time() + TWO_HOURS, poll_interval=0.2,
                              host_probe=FixedHost(), backend=FakeBackend("mi50-32gb", 1, seed=1))
            async with app.run_test(size=(120, 36)) as pilot:
                await wait_for(pilot, lambda: getattr(app.screen, "view", None) is not None
                               and app.screen.view.elapsed_s is not None)
                await pilot.pause(0.5)
                v = app.screen.view
                assert TWO_HOURS <= v.elapsed_s < TWO_HOURS + 600
                assert TWO_HOURS <= clock_in(header(app)) < TWO_HOURS + 600

        asyncio.run(go())
        r = run_cli("attach", str(p.pid), "--once", "--json", "--no-gpus")
        assert r.returncode == 0, r.stderr
        assert 0 <= json.loads(r.stdout)["elapsed_s"] < 600   # the real clock: the process is seconds old
    finally:
        p.kill()
        p.wait()


def test_finished_run_keeps_its_duration(tmp_path):
    """After the end: from run.json's start to exit.json's end, however long ago that was."""
    run = write_sample_run(tmp_path / "run", steps=60, total_steps=100, start=time.time() - 3 * TWO_HOURS,
                           finished=True)
    r = run_cli("attach", str(run), "--once", "--json", "--no-gpus")
    assert json.loads(r.stdout)["elapsed_s"] == pytest.approx(60 * 4.0 + 1)
    r = run_cli("attach", str(run), "--plain", "--no-follow")
    assert "elapsed 4:01" in r.stdout
