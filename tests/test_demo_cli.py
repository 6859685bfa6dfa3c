"""`rocm-tune demo`: a tiny real training on CPU, planned, launched detached, watched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.mark.slow
def test_demo_headless_trains_and_loss_falls(tmp_path):
    out = run_cli("demo", "--headless", "--json", "--steps", "16", "--dir", str(tmp_path / "work"), timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    s = json.loads(out.stdout)
    assert s["status"] == "finished" and s["steps"] == 16 and s["total_steps"] == 16
    assert s["last_loss"] < s["first_loss"] - 0.5
    run_dir = Path(s["dir"])
    meta = json.loads((run_dir / "run.json").read_text())
    assert meta["kind"] == "train" and (run_dir / "train.yaml").is_file()
    assert (tmp_path / "work" / "tiny-qwen2" / "config.json").is_file()  # built locally
    recs = [json.loads(x) for x in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert recs[0]["type"] == "start" and recs[-1]["status"] == "finished"
    # it was planned when the planner is available (plan.json kept with the run)
    if meta["plan"]:
        plan = json.loads((run_dir / "plan.json").read_text())
        assert plan["recommended"]["method"] == "full"
    # the plain view and the registry see the finished run
    runs = json.loads(run_cli("runs", "--json").stdout)["runs"]
    assert runs[0]["id"] == s["id"] and runs[0]["status"] == "finished"


@pytest.mark.slow
def test_demo_plain_view_prints_steps(tmp_path):
    out = run_cli("demo", "--plain", "--steps", "6", "--dir", str(tmp_path / "w"), timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "started run" in out.stdout and "loss" in out.stdout
    assert "demo run" in out.stdout and ": finished" in out.stdout


@pytest.mark.parametrize("argv,needle", [
    (["demo", "--steps", "0"], "--steps"),
    (["demo", "--steps", "lots"], "--steps"),
    (["demo", "--gpu", "no-such-gpu", "--headless"], "no-such-gpu"),
])
def test_demo_bad_input(argv, needle, tmp_path):
    out = run_cli(*argv, "--dir", str(tmp_path / "w"))
    assert out.returncode == 2 and needle in out.stderr and out.stderr.strip().count("\n") == 0
