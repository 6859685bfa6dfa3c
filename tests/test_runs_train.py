"""Integration: real tiny trainings on CPU started with `rocm-tune run`, stopped, resumed, multi-process."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from rocm_tune.core.runs import rundir as rd
from rocm_tune.core.runs.registry import find_run
from tests.conftest import run_cli
from tests.helpers_train import read_jsonl, tiny_assets, train_dict
from tests.helpers_train import wait_for as _wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    return tiny_assets(tmp_path_factory, n=128)


def write_cfg(path: Path, assets, **kw) -> Path:
    d = train_dict(assets, path.parent / "out", finetuning_type="full", max_steps=2000, logging_steps=2,
                   save_steps=4, lr_scheduler_type="constant")
    d.update(kw)
    path.write_text(yaml.safe_dump(d))
    return path


def metrics(info) -> list[dict]:
    return read_jsonl(Path(info.dir, "metrics.jsonl"))


def wait_for(pred, timeout=120.0, every=0.2):
    return _wait_for(pred, timeout, every)


def last_step(info) -> int:
    steps = [r["step"] for r in metrics(info) if r["type"] == "step"]
    return steps[-1] if steps else 0


def test_train_through_run_stop_and_resume(assets, tmp_path):
    cfg = write_cfg(tmp_path / "train.yaml", assets)
    out = run_cli("run", "--config", str(cfg), "--name", "tiny")
    assert out.returncode == 0, out.stderr
    run_id = out.stdout.split()[0]
    info = find_run(run_id)
    assert info.kind == "train" and info.status == "running"
    assert wait_for(lambda: last_step(info) >= 16, timeout=150), Path(info.dir, "stdout.log").read_text()[-3000:]
    steps = [r for r in metrics(info) if r["type"] == "step"]
    assert steps[-1]["loss"] < steps[0]["loss"] - 0.5, [s["loss"] for s in steps]
    # progress as `rocm-tune runs` shows it
    listed = json.loads(run_cli("runs", "--json").stdout)["runs"][0]
    assert listed["id"] == run_id and listed["total_steps"] == 2000 and listed["step"] >= 16
    st = run_cli("stop", run_id, "--grace", "60")
    assert st.returncode == 0, st.stderr
    info = find_run(run_id)
    assert info.status == "stopped"
    recs = metrics(info)
    end = recs[-1]
    assert end["type"] == "end" and end["status"] == "stopped"
    ck = [r for r in recs if r["type"] == "checkpoint"]
    assert ck[-1]["step"] == end["step"] and Path(ck[-1]["path"]).is_dir()  # SIGTERM saved a checkpoint
    stopped_at = end["step"]
    # resume: same output_dir, the latest checkpoint is picked up; run 8 more steps
    cfg2 = write_cfg(tmp_path / "resume.yaml", assets, max_steps=stopped_at + 8, resume_from_checkpoint=True)
    out2 = run_cli("run", "--config", str(cfg2), "--name", "tiny-resume")
    assert out2.returncode == 0, out2.stderr
    info2 = find_run(out2.stdout.split()[0])
    assert wait_for(lambda: find_run(info2.id).status != "running", timeout=150)
    info2 = find_run(info2.id)
    assert info2.status == "finished", Path(info2.dir, "stdout.log").read_text()[-3000:]
    recs2 = metrics(info2)
    assert recs2[0]["type"] == "start" and recs2[0]["resumed_from_step"] == stopped_at
    steps2 = [r for r in recs2 if r["type"] == "step"]
    assert steps2[0]["step"] > stopped_at and recs2[-1]["step"] == stopped_at + 8
    # the resumed model carries on from the trained weights, not from scratch
    assert steps2[0]["loss"] < steps[0]["loss"] - 0.5


@pytest.mark.skipif(shutil.which("torchrun") is None, reason="torchrun not installed")
def test_multiprocess_torchrun_run_is_stopped_cleanly(assets, tmp_path):
    cfg = write_cfg(tmp_path / "ddp.yaml", assets, finetuning_type="lora", per_device_train_batch_size=4,
                    save_steps=100000, logging_steps=1)
    out = run_cli("run", "--name", "ddp", "--", "torchrun", "--standalone", "--nproc_per_node", "2",
                  "-m", "rocm_tune", "train", str(cfg))
    assert out.returncode == 0, out.stderr
    info = find_run(out.stdout.split()[0])
    assert wait_for(lambda: Path(info.dir, "metrics.jsonl").exists() and last_step(info) >= 3, timeout=180), \
        Path(info.dir, "stdout.log").read_text()[-3000:]
    tree = rd.process_tree(info.pid)
    assert len(tree) >= 3  # torchrun + 2 workers (torchrun puts its workers in sessions of their own)
    start = [r for r in metrics(info) if r["type"] == "start"][0]
    assert start["world_size"] == 2
    st = run_cli("stop", info.id, "--grace", "60")
    assert st.returncode == 0, st.stderr
    info = find_run(info.id)
    assert info.status == "stopped"
    assert rd.group_members(info.pgid) == [] and not any(rd.pid_alive(p, t) for p, t in tree.items())
    recs = metrics(info)
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "stopped"
    assert [r for r in recs if r["type"] == "checkpoint"][-1]["step"] == recs[-1]["step"]


def test_run_plan_with_the_builtin_trainer(assets, tmp_path):
    """`rocm-tune run --plan plan.json` exports the plan and trains it with the built-in trainer."""
    model, data = assets
    plan_out = run_cli("plan", "--model", str(model), "--gpu", "mi50-32gb", "--method", "lora", "--json")
    if plan_out.returncode != 0:
        pytest.skip(f"planner not usable yet: {plan_out.stderr.strip()[:200]}")
    plan = json.loads(plan_out.stdout)
    plan["recommended"]["epochs"] = 1
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(plan))
    out = run_cli("run", "--plan", str(p), "--runner", "builtin", "--dataset", str(data), "--name", "planned",
                  "--env", "CUDA_VISIBLE_DEVICES=")
    assert out.returncode == 0, out.stderr
    info = find_run(out.stdout.split()[0])
    assert info.kind == "plan" and (Path(info.dir) / "plan.json").is_file()
    assert wait_for(lambda: last_step(info) >= 1 or find_run(info.id).status != "running", timeout=150)
    log = Path(info.dir, "stdout.log").read_text()
    assert last_step(info) >= 1, log[-3000:]
    run_cli("stop", info.id, "--grace", "30")
    assert find_run(info.id).status in ("stopped", "finished")
