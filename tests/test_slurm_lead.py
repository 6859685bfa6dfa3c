"""The Slurm warning lead sized from a measured save (issue 21): the exported slurm.sbatch asks for
`--signal=B:USR1@LEAD` with LEAD = 3 x the measured checkpoint save of this plan + one step (at least 120 s), else
3 x the planned checkpoint size at 200 MB/s + one planned step, and its header says which. Real path: a bundle of a
tiny random Qwen2 plan (built-in trainer) is run with its own run.sh, as the Slurm job runs it; the save-on-signal
callback times each save into the bundle's output/rocm-tune-saves.jsonl; exporting the plan again into that bundle
sizes the lead from it."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
from pathlib import Path

import pytest

from rocm_tune.core.memory import checkpoint_size as cs
from tests.conftest import run_cli
from tests.helpers_train import tiny_assets

pytest.importorskip("transformers")


def _lead(sbatch: str) -> int:
    return int(re.search(r"^#SBATCH --signal=B:USR1@(\d+)$", sbatch, re.MULTILINE).group(1))


def test_the_lead_comes_from_the_plan_then_from_a_measured_save(tmp_path_factory, tmp_path):
    model, data = tiny_assets(tmp_path_factory, n=16)
    r = run_cli("plan", "--model", str(model), "--gpu", "mi50-32gb", "--method", "lora", "--json")
    assert r.returncode == 0, r.stderr
    plan = json.loads(r.stdout)
    plan["recommended"].update(epochs=1, micro_batch=4, grad_accum=1)
    p = tmp_path / "plan.json"
    p.write_text(json.dumps(plan))
    b = tmp_path / "bundle"
    args = ["export", "--plan", str(p), "--runner", "builtin", "--dataset", str(data), "--format", "sh,slurm", "--save-steps",
            "1", "-o", str(b)]
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    sbatch = (b / "slurm.sbatch").read_text()
    size = cs.size_from_plan(plan)
    planned_step = plan["throughput"]["seconds_per_step"]
    want = max(120, math.ceil(3 * size.bytes / cs.PLANNED_WRITE_BPS + planned_step))
    assert _lead(sbatch) == want and "# --signal lead" in sbatch and "no measured save for this plan" in sbatch

    # the job's training, as slurm.sbatch starts it (no rocm-tune run dir): saves are timed in the output dir
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "ROCM_TUNE_RUN_DIR": ""}
    run = subprocess.run(["bash", str(b / "run.sh")], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    saves = cs.read_saves(b / "output")
    assert saves and all(s["seconds"] >= 0 and s["bytes"] and s["bytes"] > 0 for s in saves), saves
    assert [s["step"] for s in saves] == sorted(s["step"] for s in saves)
    assert any((b / "output" / f"checkpoint-{s['step']}").is_dir() for s in saves)

    r = run_cli(*args, "--force")
    assert r.returncode == 0, r.stderr
    sbatch = (b / "slurm.sbatch").read_text()
    slowest = max(s["seconds"] for s in saves)
    steps = [s["step_s"] for s in saves if s.get("step_s")]
    raw = 3 * slowest + (max(steps) if steps else planned_step)
    assert _lead(sbatch) == max(120, math.ceil(raw))
    assert f"3 x the measured checkpoint save ({slowest:.1f} s" in sbatch and str(b / "output") in sbatch
    assert subprocess.run(["bash", "-n", str(b / "slurm.sbatch")]).returncode == 0


def test_a_slow_measured_save_raises_the_lead_and_a_plan_without_sizes_keeps_300(tmp_path):
    (tmp_path / cs.SAVES_FILE).write_text(json.dumps({"type": "save", "step": 10, "seconds": 95.5, "step_s": 12.0,
                                                      "bytes": 10**10}) + "\n" + "not json\n")
    plan = {"model": {"ref": "x", "params_total": 10**9}, "recommended": {"method": "full"},
            "throughput": {"seconds_per_step": 3.0}}
    lead, why = cs.signal_lead(plan, (str(tmp_path),))
    assert lead == math.ceil(3 * 95.5 + 12.0) and "95.5 s" in why
    assert cs.signal_lead({"model": {"ref": "x"}}, ())[0] == 300


def test_a_run_of_the_same_plan_in_the_registry_sizes_the_lead(tmp_path):
    r = run_cli("plan", "-m", "qwen2.5-0.5b", "--gpu", "mi300x", "--json")
    plan = json.loads(r.stdout)
    p = tmp_path / "plan.json"
    p.write_text(r.stdout)
    started = json.loads(run_cli("run", "--name", "timed", "--json", "--", "true").stdout)
    d = Path(started["dir"])
    # what the run of this plan left: its plan.json and one timed save (written by the save-on-signal callback)
    (d / "plan.json").write_text(r.stdout)
    (d / cs.SAVES_FILE).write_text(json.dumps({"type": "save", "step": 500, "seconds": 61.0, "step_s": 9.5}) + "\n")
    out = tmp_path / "b"
    e = run_cli("export", "--plan", str(p), "--format", "slurm", "--dataset-name", "alpaca_en_demo", "-o", str(out))
    assert e.returncode == 0, e.stderr
    sbatch = (out / "slurm.sbatch").read_text()
    assert _lead(sbatch) == math.ceil(3 * 61.0 + 9.5) and f"run {started['id']}" in sbatch
    # another plan (another model) does not borrow it
    other = dict(plan, model={**plan["model"], "ref": "qwen2.5-1.5b"})
    assert cs.measured_save(other) is None
