"""`rocm-tune preflight` end to end on CPU with a tiny model: detached run, OOM step-down, micro-batch raise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_tune.core.check.preflight import PreflightOptions, start_preflight
from tests.conftest import run_cli
from tests.helpers_train import wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model

    d = tmp_path_factory.mktemp("pf")
    return make_tiny_model(d / "model", make_tiny_dataset(d / "data.json", n=24))


def _plan(tiny_model, tmp_path, *flags) -> Path:
    r = run_cli("plan", "--model", str(tiny_model), "--gpu", "mi50-32gb", "--method", "lora", "--json", *flags)
    assert r.returncode == 0, r.stderr
    p = tmp_path / "plan.json"
    p.write_text(r.stdout)
    return p


def test_detached_preflight_steps_down_after_oom_and_writes_adjusted_plan(tiny_model, tmp_path):
    plan = _plan(tiny_model, tmp_path, "--gpus", "2", "--cutoff-len", "64", "--micro-batch", "8",
                 "--effective-batch", "32")
    rec = json.loads(plan.read_text())["recommended"]
    assert (rec["micro_batch"], rec["grad_accum"]) == (8, 2)
    r = run_cli("preflight", str(plan), "--wait", "--json", "--steps", "2", "--timeout", "60",
                "--simulate-oom-above-micro-batch", "2", "--name", "pf-oom", timeout=600)
    assert r.returncode == 1, r.stderr[-2000:]           # the plan as given does not hold
    res = json.loads(r.stdout)
    assert res["status"] == "does-not-hold"
    attempts = res["steps"]["attempts"]
    assert [(a["micro_batch"], a["grad_accum"], a["outcome"]) for a in attempts] == [
        (8, 2, "oom"), (4, 4, "oom"), (2, 8, "ok")]
    assert "simulated out of memory" in attempts[0]["message"]
    assert res["replan"]["to"] == {"micro_batch": 2, "grad_accum": 8, "gradient_checkpointing": False,
                                   "zero_stage": 0}
    adjusted = tmp_path / "plan.preflight.json"
    assert res["replan"]["written"] == str(adjusted)
    new = json.loads(adjusted.read_text())["recommended"]
    assert (new["micro_batch"], new["grad_accum"]) == (2, 8)
    assert [f["code"] for f in res["findings"]] == ["oom-stepped-down"]
    # CPU: the device check timed CPU dtypes; collectives ran on gloo; memory came from the probe
    assert res["device"]["backend"] == "cpu" and res["device"]["gpus"][0]["matmul_tflops"]["fp32"] > 0
    assert res["collectives"]["status"] == "ok" and res["collectives"]["backend"] == "gloo"
    assert res["memory"]["source"].startswith("fake-tensor probe")
    assert res["memory"]["measured"]["outcome"] == "oom" and res["memory"]["adjusted"]["peak_allocated_bytes"] > 0
    assert any("fake-tensor probe" in n for n in res["notes"])
    assert res["eval"]["status"] == "ok" and res["eval"]["batch_size"] == 8
    assert res["save"]["kind"] == "adapter" and res["save"]["bytes"] > 0
    assert res["disk"]["ok"] is True and res["host_ram"]["ok"] is True
    # it was a run like any other: attach shows it, its rank sample is the probe's
    run_dir = Path(res["run_dir"])
    assert json.loads((run_dir / "run.json").read_text())["kind"] == "preflight"
    snap = json.loads(run_cli("attach", str(run_dir), "--once", "--json", "--no-gpus").stdout)
    assert snap["status"] == "failed" and snap["exit_code"] == 1
    assert snap["measured"]["ranks"][0]["source"] == "fake-tensor probe"
    assert snap["predicted"]["peak_allocated_bytes"] == json.loads(plan.read_text())["memory"]["peak_allocated_bytes"]
    # a second preflight refuses to overwrite the adjusted plan
    again = run_cli("preflight", str(plan), "--cpu")
    assert again.returncode == 2 and "--force" in again.stderr


def test_room_raises_the_micro_batch_same_effective_batch(tiny_model, tmp_path):
    plan = _plan(tiny_model, tmp_path, "--gpus", "1", "--cutoff-len", "32", "--micro-batch", "2",
                 "--effective-batch", "16")
    r = run_cli("preflight", str(plan), "--foreground", "--json", "--steps", "1", "--skip", "device",
                "--skip", "collectives", "--out", str(tmp_path / "raised.json"), timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(r.stdout)
    assert res["status"] == "verified" and res["collectives"]["status"] == "skipped"
    mbs = [(a["micro_batch"], a["grad_accum"], a["outcome"], a["fits"]) for a in res["steps"]["attempts"]]
    assert mbs == [(2, 8, "ok", True), (4, 4, "ok", True), (8, 2, "ok", True)]
    # memory grows with the micro-batch (probe of the planned model)
    peaks = [a["peak_allocated_bytes"] for a in res["steps"]["attempts"]]
    assert peaks[0] < peaks[1] < peaks[2]
    assert res["replan"]["changed"] and res["replan"]["to"]["micro_batch"] == 8
    assert json.loads((tmp_path / "raised.json").read_text())["recommended"]["grad_accum"] == 2
    assert [f["code"] for f in res["findings"]] == ["micro-batch-raised"]


def test_start_preflight_core_api_for_the_tui(tiny_model, tmp_path):
    plan = json.loads(_plan(tiny_model, tmp_path, "--gpus", "1", "--cutoff-len", "16").read_text())
    info = start_preflight(plan, options=PreflightOptions(steps=1, skip=("device", "collectives"), replan=False),
                           run_dir=str(tmp_path / "run"))
    assert info.kind == "preflight" and info.status == "running"
    assert wait_for(lambda: (tmp_path / "run" / "exit.json").exists(), timeout=300), \
        (tmp_path / "run" / "stdout.log").read_text()[-2000:]
    res = json.loads((tmp_path / "run" / "preflight.json").read_text())
    assert res["status"] == "verified" and len(res["steps"]["attempts"]) == 1
    log = (tmp_path / "run" / "stdout.log").read_text()
    assert "VERIFIED" in log and "predicted" in log


def test_a_peer_that_never_joins_fails_the_preflight_within_the_timeout(tiny_model, tmp_path):
    plan = _plan(tiny_model, tmp_path, "--gpus", "2", "--cutoff-len", "16")
    r = run_cli("preflight", str(plan), "--wait", "--timeout", "3", "--skip", "device", "--skip", "steps",
                "--absent-rank", "1", timeout=300)
    assert r.returncode == 1, r.stderr[-2000:]
    out = r.stdout                                   # the run's log followed live, then the verdict
    assert "collectives across 2 processes (timeout 3 s)" in out
    assert "DOES NOT HOLD" in out and "[collective-hang]" in out and "intel_iommu=off" in out
    assert not (tmp_path / "plan.preflight.json").exists()      # nothing re-planned, nothing written
