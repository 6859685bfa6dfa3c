"""Preflight core (no torch): input, options, re-plan arithmetic, adjusted plan/bundle writing, verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rocm_tune.core.check import preflight as core
from rocm_tune.core.errors import UserError
from tests.conftest import REPO, run_cli

GOLDEN = REPO / "tests" / "golden" / "export" / "mi50-ddp-fp32"
_PLAN: dict = {}


def _plan() -> dict:
    """Field report 000's setup planned now: Qwen2.5-7B LoRA on 2 x MI50 32GB, fp32, micro-batch 1."""
    if not _PLAN:
        r = run_cli("plan", "--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2", "--method", "lora",
                    "--precision", "fp32", "--micro-batch", "1", "--effective-batch", "64", "--json")
        assert r.returncode == 0, r.stderr
        _PLAN.update(json.loads(r.stdout))
    return json.loads(json.dumps(_PLAN))


@pytest.fixture
def bundle(tmp_path):
    """An exported bundle (the golden one's files) holding a current plan.json."""
    d = tmp_path / "bundle"
    d.mkdir()
    for f in GOLDEN.iterdir():
        (d / f.name).write_bytes(f.read_bytes())
    (d / "plan.json").write_text(json.dumps(_plan()))
    return d


def test_load_input_plan_file_and_bundle(bundle):
    plan, b = core.load_input(str(bundle / "plan.json"))
    assert b is None and plan["recommended"]["grad_accum"] == 32
    plan2, b2 = core.load_input(str(bundle))
    assert b2 == str(bundle.resolve()) and plan2 == plan
    s = core.bundle_settings(b2)
    assert s["output_dir"] == "/runs/qwen-lora"


@pytest.mark.parametrize("content, needle", [
    ("not json", "is not valid JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"model": {"ref": "x"}}', "no \"recommended\" object"),
    ('{"model": {"ref": "x"}, "recommended": {"cutoff_len": 1e999, "micro_batch": 1}}', "recommended.cutoff_len"),
    ('{"recommended": {"cutoff_len": 8, "micro_batch": 1}}', "model.ref is missing"),
])
def test_bad_plans_are_one_line_user_errors(tmp_path, content, needle):
    p = tmp_path / "plan.json"
    p.write_text(content)
    with pytest.raises(UserError, match=needle.replace("(", r"\(").replace('"', '"')):
        core.load_input(str(p))


def test_options_validation_names_the_flag():
    for kw, needle in (({"timeout_s": 0}, "--timeout"), ({"steps": 0}, "--steps"), ({"device": "tpu"}, "--device"),
                       ({"skip": ("memory",)}, "--skip"), ({"weights": "/nonexistent/w"}, "--weights")):
        with pytest.raises(UserError, match=needle):
            core.PreflightOptions(**kw).validate()
    o = core.PreflightOptions(timeout_s=5, skip=("device",), simulate_oom_above_micro_batch=2)
    assert core.PreflightOptions.from_dict(json.loads(json.dumps(o.to_dict()))) == o


def test_replan_arithmetic_keeps_the_effective_batch():
    from rocm_tune.train.preflight.runner import _larger, _smaller

    assert _smaller(32, 32) == 16 and _smaller(3, 24) == 1 and _smaller(6, 12) == 3 and _smaller(1, 8) is None
    assert _larger(4, 32) == 8 and _larger(32, 32) is None and _larger(3, 9) is None
    new = core.adjusted_plan(_plan(), {"micro_batch": 4, "grad_accum": 8}, {"replan_reason": "raised"})
    assert new["recommended"]["micro_batch"] * new["recommended"]["grad_accum"] == 32
    from rocm_tune.core.plan.plan import Plan

    assert Plan.from_dict(new).recommended.micro_batch == 4             # still a valid plan
    assert new["reasons"][-1] == "preflight: raised" and _plan()["recommended"]["micro_batch"] == 1


def test_adjusted_plan_never_overwrites_without_force(tmp_path):
    out = tmp_path / "plan.preflight.json"
    out.write_text("{}")
    with pytest.raises(UserError, match="--force"):
        core.write_adjusted(_plan(), str(out), bundle=None, force=False)
    assert out.read_text() == "{}"
    core.write_adjusted(_plan(), str(out), bundle=None, force=True)
    assert json.loads(out.read_text())["recommended"]["micro_batch"] == 1
    link = tmp_path / "dangling"
    link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(UserError, match="exists"):
        core.check_out(str(link), force=False)


def test_adjusted_bundle_is_a_copy_with_the_new_batch(tmp_path, bundle):
    new = core.adjusted_plan(_plan(), {"micro_batch": 2, "grad_accum": 16, "gradient_checkpointing": True})
    out = tmp_path / "bundle.preflight"
    core.write_adjusted(new, str(out), bundle=str(bundle), force=False)
    y = yaml.safe_load((out / "llamafactory.yaml").read_text())
    assert y["per_device_train_batch_size"] == 2 and y["gradient_accumulation_steps"] == 16
    assert y["model_name_or_path"] == "Qwen/Qwen2.5-7B-Instruct"        # the rest is the user's bundle
    assert json.loads((out / "plan.json").read_text())["recommended"]["micro_batch"] == 2
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in bundle.iterdir())
    orig = yaml.safe_load((bundle / "llamafactory.yaml").read_text())
    assert orig["per_device_train_batch_size"] == 1                       # the source is untouched


def test_bf16_verdict_from_measured_rates():
    from rocm_tune.train.preflight.device import bf16_verdict

    # MI50-like: fp16 26.5 TF, bf16 emulated near the fp32 rate or below
    assert bf16_verdict({"fp32": 13.3, "fp16": 24.0, "bf16": 0.9}) == "emulated"
    assert bf16_verdict({"fp32": 50.0, "fp16": 700.0, "bf16": 690.0}) == "native"
    assert bf16_verdict({"fp32": 1.0}) == "unknown"


def test_render_and_exit_codes_of_a_result():
    result = {"status": "does-not-hold", "plan_name": "m", "seconds": 1.0,
              "memory": {"source": "fake-tensor probe", "predicted": {"peak_allocated_bytes": 2**30},
                         "measured": {"outcome": "oom"},
                         "adjusted": {"micro_batch": 2, "peak_allocated_bytes": 3 * 2**28}},
              "findings": [core.finding("collective-hang", "ranks [1] did not finish")]}
    text = core.render(result)
    assert "DOES NOT HOLD" in text and "OOM" in text and "0.75 GiB" in text and "[collective-hang]" in text
    assert "iommu=pt" in text
    assert core.exit_code(result) == 1 and core.exit_code({"status": "verified"}) == 0 and core.exit_code(None) == 1


def test_cli_bad_input_exits_2_with_one_line(tmp_path, bundle):
    r = run_cli("preflight", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "does not exist" in r.stderr
    r = run_cli("preflight")
    assert r.returncode == 2 and "--model" in r.stderr
    out = tmp_path / "taken.json"
    out.write_text("{}")
    r = run_cli("preflight", str(bundle / "plan.json"), "--out", str(out), "--cpu")
    assert r.returncode == 2 and "--force" in r.stderr and r.stderr.count("\n") == 1
    r = run_cli("preflight", str(bundle / "plan.json"), "--timeout", "-1")
    assert r.returncode == 2 and "--timeout" in r.stderr
    r = run_cli("preflight", str(bundle / "plan.json"), "--wait", "--foreground")
    assert r.returncode == 2 and "--foreground" in r.stderr
    assert out.read_text() == "{}"
    assert not list(Path(tmp_path).glob("*.preflight.json")) and not list(bundle.parent.glob("*.preflight*"))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**_plan(), "version": 1}))          # a plan of the older format
    r = run_cli("preflight", str(old), "--cpu")
    assert r.returncode == 2 and "version 1" in r.stderr and r.stderr.count("\n") == 1
