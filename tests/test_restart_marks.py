"""Restarts shown in `attach` and the app's monitor (issue 21): a real built-in trainer run (tiny random Qwen2 on
CPU) is stopped after it saved checkpoints and resumed once with `rocm-tune resume`; `attach --once` (text and
--json) lists "restart 1 at step N (resume)" with the one loss curve continued across it, and the app's monitor
(Textual pilot) shows the restart in its header and marks it (↻) on the loss chart at the first step after N."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.helpers_train import tiny_assets, train_dict, wait_for

pytest.importorskip("transformers")
STEPS = 12


def _status(rid: str) -> str:
    from rocm_tune.core.runs.registry import find_run

    return find_run(rid).status


def test_a_resumed_run_shows_its_restart_in_attach_and_the_monitor(tmp_path_factory, tmp_path):
    assets = tiny_assets(tmp_path_factory, n=64)
    out = tmp_path / "out"
    cfg = tmp_path / "train.yaml"
    cfg.write_text(yaml.safe_dump(train_dict(assets, out, max_steps=STEPS, save_steps=1, logging_steps=1,
                                             per_device_train_batch_size=2, finetuning_type="lora")), encoding="utf-8")
    r = run_cli("run", "--config", str(cfg), "--name", "rs", "--json", env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    rid, d = json.loads(r.stdout)["id"], Path(json.loads(r.stdout)["dir"])
    assert wait_for(lambda: (out / "checkpoint-2" / "trainer_state.json").exists() or _status(rid) != "running",
                    timeout=300)
    assert json.loads(run_cli("stop", rid, "--grace", "60", "--json", timeout=120).stdout)["status"] == "stopped"
    assert not (out / f"checkpoint-{STEPS}").exists(), "the run finished before it was stopped"
    # before the resume: no restart
    assert json.loads(run_cli("attach", rid, "--once", "--json", "--no-gpus").stdout)["restarts"] == []
    # `resume` without --notify uses the config file's notify list (a command that gets the JSON on stdin)
    got = tmp_path / "notified.jsonl"
    sink = tmp_path / "sink.py"
    sink.write_text(f"import sys; open({str(got)!r}, 'a').write(sys.stdin.read().strip() + '\\n')\n")
    conf = tmp_path / "config.toml"
    conf.write_text(f'notify = ["{sys.executable} {sink}"]\n')
    r = run_cli("resume", rid, "--json", timeout=120, env={"ROCM_TUNE_CONFIG": str(conf)})
    assert r.returncode == 0, r.stderr
    n = json.loads(r.stdout)["resume"]["checkpoint"]["global_step"]
    assert wait_for(lambda: _status(rid) != "running", timeout=300) and _status(rid) == "finished"
    assert wait_for(lambda: got.exists() and "finished" in got.read_text(), timeout=60)
    (fin,) = [json.loads(x) for x in got.read_text().splitlines() if '"finished"' in x]
    assert fin["run_id"] == rid and fin["restarts"] == 1 and fin["step"] == STEPS

    text = run_cli("attach", rid, "--once", "--no-gpus").stdout
    assert f"restart 1 at step {n} (resume)" in text and f"from checkpoint-{n}" in text, text
    snap = json.loads(run_cli("attach", rid, "--once", "--json", "--no-gpus").stdout)
    (mark,) = snap["restarts"]
    assert mark["n"] == 1 and mark["step"] == n and mark["reason"] == "resume" and mark["at"] > 0
    assert snap["step"] == STEPS and snap["status"] == "finished"

    from rocm_tune.tui.app import RocmTuneApp
    from tests.helpers_tui import wait_for as pilot_wait

    async def go():
        app = RocmTuneApp(attach=str(d), poll_interval=0.2)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot_wait(pilot, lambda: getattr(app.screen, "view", None) is not None
                             and app.screen.view.step == STEPS)
            v = app.screen.view
            header = str(app.screen.query_one("#mon-header").render())
            assert f"restart 1 at step {n} (resume)" in header, header
            # one loss curve 1..STEPS, the restart marked at the first step after the checkpoint
            assert list(v.steps) == list(range(1, STEPS + 1)), v.steps
            (i,) = [k for k, x in enumerate(v.restart_series) if x is not None]
            assert v.steps[i] == n + 1 and v.restart_series[i] == v.loss_series[i]
            assert "restart" in str(app.screen.query_one("#chart-loss").render())
            await pilot.press("q")

    asyncio.run(go())
