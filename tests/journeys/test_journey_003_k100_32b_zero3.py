"""Journey 003 (field report 003): DeepSeek-R1-Distill-Qwen-32B LoRA on 8 x Hygon DCU K100 (64 GB), cutoff 1024,
ZeRO-3 — and the run that dies with `HIP out of memory. Tried to allocate 1.45 GiB`.

The journey: `rocm-tune plan` -> `export --zero 3` -> the YAML and the DeepSpeed JSON are accepted by the real
LLaMA-Factory 0.9.5 argument parser and DeepSpeed's own config class (a real 2-process launch, as
tests/realstack/ does) -> the run is started the way the user starts it (`rocm-tune run --script bundle/run.sh`)
and ends in the report's error -> `rocm-tune attach RUN` names the fix with the plan's own numbers.

Run on CPU: 8 x K100 cannot run here, so the Python that run.sh starts the training with (its LLAMAFACTORY_PYTHON
knob) is, for that run only, a stand-in that prints the report's own error line (taken from
/work/shared/seeds/003_*.txt) and exits 1, as the real launch does when a rank runs out of memory. Everything the user touches is real: the
bundle, run.sh, `rocm-tune run`, its supervisor and run directory, `rocm-tune attach`.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.journeys.helpers import cli_json, lf_parse, note, seed_text

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

REPORT = ["--model", "deepseek-r1-distill-qwen-32b", "--gpu", "k100", "--gpus", "8", "--method", "lora",
          "--cutoff-len", "1024", "--zero", "3"]
OOM_LINE = "HIP out of memory. Tried to allocate 1.45 GiB"  # report 003, verbatim


@pytest.fixture(scope="module")
def bundle(tmp_path_factory, data_file):
    out = tmp_path_factory.mktemp("j003") / "bundle"
    r = run_cli("export", *REPORT, "--dataset", str(data_file), "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out


def test_the_report_names_this_error():
    text = seed_text("003")
    assert OOM_LINE in text


def test_plan_and_bundle_are_zero3_as_planned(bundle):
    plan = cli_json("plan", *REPORT, "--json")
    rec = plan["recommended"]
    assert rec["zero_stage"] == 3 and rec["cutoff_len"] == 1024 and rec["method"] == "lora"
    assert plan["fits"] is True
    ds = json.loads((bundle / "deepspeed.json").read_text(encoding="utf-8"))
    assert ds["zero_optimization"]["stage"] == 3
    saved = json.loads((bundle / "plan.json").read_text(encoding="utf-8"))
    assert saved["recommended"] == rec, "the bundle's plan is the plan the user was shown"


def test_llamafactory_and_deepspeed_accept_the_bundle(realstack, bundle, tmp_path):
    """LLaMA-Factory's get_train_args (strict: an unknown key is an error) under a real 2-process launch, then
    transformers' DeepSpeed integration fills the JSON and DeepSpeed's DeepSpeedConfig loads it
    (tests/realstack/lf_parse.py, reused)."""
    res = lf_parse(realstack, {"003": bundle / "llamafactory.yaml"}, tmp_path)["003"]
    assert res["ok"], f"{res['error']}\n{res.get('trace')}"
    assert all(v is not None for v in res["keys"].values()), {k for k, v in res["keys"].items() if v is None}
    assert res["keys"]["cutoff_len"][1] == 1024 and res["keys"]["finetuning_type"][1] == "lora"
    c = res["ds_checked"]
    assert c["zero_stage"] == 3
    assert c["train_batch_size"] == c["train_micro_batch_size_per_gpu"] * c["gradient_accumulation_steps"] * 2
    assert (c["fp16"], c["bf16"]) == (res["fp16"], res["bf16"])


def _oom_run(bundle: Path, tmp_path: Path) -> dict:
    """`rocm-tune run --script bundle/run.sh`, whose launcher dies as report 003's did; the attach snapshot."""
    stand_in = tmp_path / "stand-in-python"
    stand_in.write_text("#!/usr/bin/env bash\n"
                        "# stand-in for the 8 x K100 launch (`python -m torch.distributed.run ... lf_launch.py ...`):\n"
                        "# prints report 003's error and fails as the real launch does when a rank runs out of memory\n"
                        f"echo '[rank3]: torch.OutOfMemoryError: {OOM_LINE}' >&2\nexit 1\n", encoding="utf-8")
    stand_in.chmod(0o755)
    assert "LLAMAFACTORY_PYTHON" in (bundle / "run.sh").read_text(encoding="utf-8")
    env = dict(os.environ, LLAMAFACTORY_PYTHON=str(stand_in))  # run.sh's own knob: the Python that trains
    run_dir = tmp_path / "run"
    r = run_cli("run", "--script", str(bundle / "run.sh"), "--dir", str(run_dir), "--json", env=env)
    assert r.returncode == 0, r.stderr
    rid = json.loads(r.stdout)["id"]
    deadline = time.monotonic() + 120  # an upper bound for a loaded machine; the run ends by itself at once
    while True:
        snap = json.loads(run_cli("attach", rid, "--once", "--json", "--no-gpus", env=env).stdout)
        if snap["status"] != "running" or time.monotonic() > deadline:
            return snap
        time.sleep(0.5)


def test_attach_of_the_oom_run_names_the_error(bundle, tmp_path, record_property):
    note(record_property, "003: the 8 x K100 launch is a stand-in (run.sh's LLAMAFACTORY_PYTHON) printing the report's OOM line")
    snap = _oom_run(bundle, tmp_path)
    assert snap["status"] == "failed" and snap["exit_code"] == 1, snap
    oom = [a for a in snap["alerts"] if a["code"] == "oom"]
    assert oom, [a["code"] for a in snap["alerts"]]
    assert "1.45 GiB" in oom[0]["title"] + oom[0]["evidence"]
    assert oom[0]["fix"]


def test_attach_of_the_oom_run_gives_the_fix_with_the_plans_numbers(bundle, tmp_path):
    """What the user needs from the alert: the smallest change to make, in the numbers of the plan the run came
    from (its micro-batch and accumulation, the same effective batch, the predicted memory before and after
    against the card's 64 GiB), not generic advice; and no advice to do what the plan already does (ZeRO-3)."""
    import re

    plan = json.loads((bundle / "plan.json").read_text(encoding="utf-8"))["recommended"]
    fix = next(a for a in _oom_run(bundle, tmp_path)["alerts"] if a["code"] == "oom")["fix"]
    mb, ga = plan["micro_batch"], plan["grad_accum"]
    assert mb > 1, plan
    assert f"micro_batch {mb} -> {mb // 2}, grad_accum {ga} -> {ga * 2} (same effective batch)" in fix, fix
    before, after = map(float, re.search(r"predicted ([\d.]+) -> ([\d.]+) GiB of 64", fix).groups())
    assert after < before, fix
    assert "shard and offload with DeepSpeed ZeRO-3" not in fix, f"the plan is already ZeRO-3: {fix}"
