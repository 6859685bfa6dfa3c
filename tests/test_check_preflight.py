"""`rocm-tune check ... --preflight` from the CLI (issue 19 item 3): the fixed config, never written over the
user's files, is what `rocm-tune preflight` verifies on this machine (CPU here, a tiny model)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.test_check_roundtrip import assert_documented

# micro-batch 64 of 512 tokens does not fit 0.6 GiB: check's minimal fix is micro-batch 4 x accumulation 32
CONFIG = """model_name_or_path: {model}
stage: sft
do_train: true
finetuning_type: lora
lora_rank: 4
dataset: tiny
template: qwen
cutoff_len: 512
per_device_train_batch_size: 64
gradient_accumulation_steps: 2
bf16: false
output_dir: out
"""


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model

    d = tmp_path_factory.mktemp("cpf")
    return make_tiny_model(d / "model", make_tiny_dataset(d / "data.json", n=24))


def test_without_gpu_or_with_nothing_understood_is_one_line_exit_2(tiny_model, tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    (user / "train.yaml").write_text(CONFIG.format(model=tiny_model))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {"TMPDIR": str(scratch)}
    r = run_cli("check", str(user / "train.yaml"), "--preflight", env=env)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "--gpu" in r.stderr
    (user / "ds.json").write_text('{"zero_optimization": {"stage": 3}}')
    r = run_cli("check", str(user / "ds.json"), "--gpu", "mi50-32gb", "--preflight", env=env)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "nothing to verify" in r.stderr
    assert list(scratch.iterdir()) == [] and sorted(p.name for p in user.iterdir()) == ["ds.json", "train.yaml"]


@pytest.mark.slow
def test_preflight_runs_the_fixed_config_in_a_temporary_copy(tiny_model, tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    cfg = user / "train.yaml"
    cfg.write_text(CONFIG.format(model=tiny_model))
    before = cfg.read_text()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    r = run_cli("check", str(cfg), "--gpu", "mi50-32gb", "--vram-gib", "0.6", "--preflight", "--json",
                env={"TMPDIR": str(scratch)}, timeout=600)
    d = json.loads(r.stdout)
    # MI50 (gfx906) has no SDPA flash/mem-efficient kernel: PyTorch's math kernel keeps the scores (c-under4),
    # so the fix that keeps the effective batch (64 x 2) steps down to micro-batch 1
    assert d["verdict"] == "oom" and d["fix"]["changes"] == {"per_device_train_batch_size": 1,
                                                              "gradient_accumulation_steps": 128}
    pf = d["preflight"]
    # the user's files are untouched; the fixed copy lives in a new directory under $TMPDIR
    assert cfg.read_text() == before and sorted(p.name for p in user.iterdir()) == ["train.yaml"]
    assert os.path.dirname(pf["dir"]) == str(scratch) and pf["config"] == "the fixed config"
    copy = (scratch / os.path.basename(pf["dir"]) / "train.yaml").read_text()
    assert copy == d["fix"]["files"]["train.yaml"] and "per_device_train_batch_size: 1\n" in copy
    # the plan preflight verified is the fixed config as check reads it back
    plan = json.loads(Path(pf["plan"]).read_text())
    rec = plan["recommended"]
    assert (rec["micro_batch"], rec["grad_accum"], rec["cutoff_len"], rec["method"], rec["precision"]) == \
        (1, 128, 512, "lora", "fp32")
    assert plan["model"]["ref"] == str(tiny_model) and pf["notes"] == []
    res = pf["result"]
    assert res["steps"]["attempts"][0]["micro_batch"] == 1 and res["steps"]["attempts"][0]["grad_accum"] == 128
    assert res["steps"]["attempts"][0]["outcome"] == "ok"
    assert pf["status"] == res["status"] and pf["exit_code"] == (0 if res["status"] == "verified" else 1)
    # exit: the user's config does not fit (1), whatever the preflight of the fix says
    assert r.returncode == 1
    # docs/internals.md "check --json" documents these keys
    assert_documented("top level", [d])
    assert_documented("preflight", [pf])
