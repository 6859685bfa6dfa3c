"""A stopped and resumed built-in run, watched live (issue 25 items 4 and 5): the real trainer on a tiny random Qwen2
on CPU is stopped after its first checkpoints; the monitor offers `rocm-tune resume RUN`; after `rocm-tune resume`
the run is frozen (SIGSTOP: alive, no more steps) while `attach --once --json` and the monitor read it: the ETA comes
from the steps since the restart and the current rate, elapsed counts both segments and says so."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.helpers_train import read_jsonl, tiny_assets, train_dict, wait_for

pytest.importorskip("transformers")
STEPS = 5000   # never reached: the run is stopped twice


def _status(rid: str) -> str:
    from rocm_tune.core.runs.registry import find_run

    return find_run(rid).status


def _view(target: str):
    from rocm_tune.tui.monitor_model import MonitorSource
    from rocm_tune.tui.scenes import FixedHost

    src = MonitorSource(target, time.time, gpus=False, host=FixedHost())
    try:
        return src.poll()
    finally:
        src.close()


def _steps_after_resume(d: Path) -> list[dict]:
    recs = read_jsonl(d / "metrics.jsonl") if (d / "metrics.jsonl").exists() else []
    starts = [i for i, r in enumerate(recs) if r.get("type") == "start"]
    return [r for r in recs[starts[1]:] if r.get("type") == "step"] if len(starts) > 1 else []


def test_a_resumed_run_keeps_its_eta_and_counts_elapsed_over_both_segments(tmp_path_factory, tmp_path):
    from rocm_tune.tui.screens.monitor import render_header

    assets = tiny_assets(tmp_path_factory, n=64)
    out = tmp_path / "out"
    cfg = tmp_path / "train.yaml"
    cfg.write_text(yaml.safe_dump(train_dict(assets, out, max_steps=STEPS, save_steps=2, save_total_limit=2,
                                             logging_steps=1, per_device_train_batch_size=2,
                                             finetuning_type="lora")), encoding="utf-8")
    r = run_cli("run", "--config", str(cfg), "--name", "rl", "--json", env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    rid, d = json.loads(r.stdout)["id"], Path(json.loads(r.stdout)["dir"])
    assert wait_for(lambda: (out / "checkpoint-2" / "trainer_state.json").exists() or _status(rid) != "running",
                    timeout=300)
    assert json.loads(run_cli("stop", rid, "--grace", "60", "--json", timeout=120).stdout)["status"] == "stopped"

    # item 5: a stopped run with a checkpoint: the hint is the checkpoint list's command, and fits 80 columns
    v = _view(rid)
    assert v.status == "stopped" and v.checkpoints
    assert v.resume_cmd == f"rocm-tune resume {rid}"
    header = render_header(v, 80).plain.splitlines()
    assert f"resume: rocm-tune resume {rid}" in "\n".join(header) and max(map(len, header)) <= 80, header
    assert "bash run.sh" not in "\n".join(header)

    r = run_cli("resume", rid, "--json", timeout=120)
    assert r.returncode == 0, r.stderr
    assert wait_for(lambda: len(_steps_after_resume(d)) >= 4 or _status(rid) != "running", timeout=300)
    meta = json.loads((d / "run.json").read_text())
    pgid = meta["pgid"]
    os.killpg(pgid, signal.SIGSTOP)   # frozen: alive, no further steps while we look
    try:
        first = meta["restarts"][0]["previous_exit"]
        seg1 = first["ended_at"] - first["started_at"]      # the supervisor records each segment's start
        assert seg1 > 0
        before = time.time()
        snap = json.loads(run_cli("attach", rid, "--once", "--json", "--no-gpus").stdout)
        after = time.time()
        assert snap["status"] == "running" and snap["segments"] == 2
        step = snap["step"]
        assert step > meta["restarts"][0]["step"] and snap["total_steps"] == STEPS
        # ETA: the remaining steps at the rate of the steps since the restart (not 0:00, not n/a)
        recent = [x["step_time_s"] for x in _steps_after_resume(d) if x.get("step_time_s")]
        assert snap["eta_s"] is not None and snap["eta_s"] > 0
        lo, hi = min(recent), max(recent)
        assert (STEPS - step) * lo * 0.99 <= snap["eta_s"] <= (STEPS - step) * hi * 1.01
        # elapsed: both segments (the first one's length + the current one's so far), not restarted at 0
        started = meta["started_at"]
        assert seg1 + (before - started) - 1 <= snap["elapsed_s"] <= seg1 + (after - started) + 1
        human = run_cli("attach", rid, "--once", "--no-gpus").stdout
        assert "(all 2 segments)" in human, human

        # the run list's elapsed column: the whole run too
        from rocm_tune.core.runs.registry import find_run
        from rocm_tune.tui.screens.runs import earlier_times, run_row

        info = find_run(rid)
        listed = run_row(info, time.time(), None, earlier_times([info]).get(rid, 0.0))[-1]
        mm, ss = (int(x) for x in listed.split(":")[-2:])
        assert mm * 60 + ss >= int(seg1 + (before - started)) - 1, listed

        v = _view(rid)
        assert v.status == "running" and v.segments == 2 and v.eta_s is not None and v.eta_s > 0
        assert v.elapsed_s > seg1 and v.resume_cmd is None     # no resume hint while it runs
        lines = render_header(v, 80).plain.splitlines()
        assert "(2 parts)" in lines[1] and "ETA n/a" not in lines[1] and "ETA " in lines[1], lines
        assert max(map(len, lines)) <= 80, lines
    finally:
        os.killpg(pgid, signal.SIGCONT)
        stopped = run_cli("stop", rid, "--grace", "60", "--json", timeout=120)
    assert json.loads(stopped.stdout)["status"] == "stopped"
