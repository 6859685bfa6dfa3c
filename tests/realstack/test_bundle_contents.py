"""Bundle contents the real tools depend on, checked without them (fast): the DeepSpeed buckets are the
estimator's numbers, the warmup key, and the refusals."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli


@pytest.mark.parametrize("flags", [["--zero", "2"], ["--zero", "3"], ["--zero", "3", "--offload", "optimizer"],
                                   ["--zero", "2", "--method", "full"]])
def test_deepspeed_json_zero_block_is_the_estimators(tmp_path, flags):
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.plan.plan import Plan
    from rocm_tune.core.runners.deepspeed import zero_settings

    out = tmp_path / "b"
    data = tmp_path / "d.json"
    data.write_text(json.dumps([{"instruction": "say hi", "output": "hi"}] * 8), encoding="utf-8")
    r = run_cli("export", "--model", "qwen2.5-0.5b", "--gpu", "mi250x", "--gpus", "2", "--dataset", str(data),
                "--allow-unfit", "-o", str(out), *flags)
    assert r.returncode == 0, r.stderr
    plan = Plan.from_dict(json.loads((out / "plan.json").read_text(encoding="utf-8")))
    ds = json.loads((out / "deepspeed.json").read_text(encoding="utf-8"))
    want = zero_settings(load_model(plan.model.ref), plan.train_config())
    assert ds["zero_optimization"] == want
    # a LoRA run's reduce bucket is no larger than what trains (not DeepSpeed's 5e8 default)
    assert ds["zero_optimization"]["reduce_bucket_size"] < 500_000_000
