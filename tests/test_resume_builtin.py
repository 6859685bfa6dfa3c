"""`rocm-tune resume` of a built-in trainer run (`rocm-tune run --config`): the real trainer on a tiny random Qwen2
on CPU is stopped after it saved checkpoints, resumed with `--resume <the newest complete checkpoint>` in the same run
directory, and finishes with its step count continued."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.helpers_train import read_jsonl, tiny_assets, train_dict, wait_for

pytest.importorskip("transformers")
STEPS = 16


def _status(rid: str) -> str:
    from rocm_tune.core.runs.registry import find_run

    return find_run(rid).status


def test_a_stopped_builtin_run_resumes_from_its_newest_complete_checkpoint(tmp_path_factory, tmp_path):
    assets = tiny_assets(tmp_path_factory, n=64)
    out = tmp_path / "out"
    cfg = tmp_path / "train.yaml"
    cfg.write_text(yaml.safe_dump(train_dict(assets, out, max_steps=STEPS, save_steps=1, logging_steps=1,
                                             per_device_train_batch_size=2, finetuning_type="lora")), encoding="utf-8")
    r = run_cli("run", "--config", str(cfg), "--name", "bi", "--json", env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0, r.stderr
    rid, d = json.loads(r.stdout)["id"], Path(json.loads(r.stdout)["dir"])
    assert wait_for(lambda: (out / "checkpoint-2" / "trainer_state.json").exists() or _status(rid) != "running",
                    timeout=300)
    s = run_cli("stop", rid, "--grace", "60", "--json", timeout=120)
    assert json.loads(s.stdout)["status"] == "stopped", s.stdout
    assert not (out / f"checkpoint-{STEPS}").exists(), "the run finished before it was stopped"
    r = run_cli("resume", rid, "--json", timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    ck = got["resume"]["checkpoint"]
    assert got["id"] == rid and ck["complete"] and ck["global_step"] >= 2
    assert got["command"][-2:] == ["--resume", ck["path"]]
    assert wait_for(lambda: _status(rid) != "running", timeout=300)
    assert _status(rid) == "finished", (d / "stdout.log").read_text()[-3000:]
    recs = read_jsonl(d / "metrics.jsonl")
    starts = [x for x in recs if x["type"] == "start"]
    assert len(starts) == 2 and starts[1]["resumed_from_step"] == ck["global_step"]
    after = [x["step"] for x in recs[recs.index(starts[1]):] if x["type"] == "step"]
    assert after == list(range(ck["global_step"] + 1, STEPS + 1))
    meta = json.loads((d / "run.json").read_text())
    assert meta["restarts"][0]["checkpoint"] == ck["path"] and meta["restarts"][0]["previous_exit"]["status"] == "stopped"
