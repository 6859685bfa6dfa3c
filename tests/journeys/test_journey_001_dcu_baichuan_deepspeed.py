"""Journey 001 (field report 001): Baichuan2-7B-Chat, full fine-tuning with DeepSpeed on 16 GB Hygon DCUs.

The user ran out of memory at every batch size on 1-4 DCUs ("a 7B model's parameters alone take ~10 GB"; in fp16
they take ~14 GB) until ZeRO-3 with CPU offload. The journey: `rocm-tune plan` for 4 x 16 GB DCUs says so before
any run (ZeRO-3 + optimizer offload, fp16 not the emulated bf16, the DTK DeepSpeed check warning) -> `export
--launcher deepspeed` -> the bundle's DeepSpeed launch starts and trains.

Run on CPU: the last step needs DCUs, so the same export flags (ZeRO-3, optimizer offload, the deepspeed launcher)
are exported for a tiny random Qwen2 and run by the real `deepspeed` launcher of the real-stack venv with 2
processes on gloo/CPU, in fp32 (DeepSpeed's CPU accelerator has no fp16), one optimizer step. What ran is read
inside the processes (tests/journeys/probe): DeepSpeed's ZeRO-3 partitioned the parameters and the step was taken
by DeepSpeed's CPU Adam (the offloaded optimizer). The first run JIT-builds DeepSpeed's CPU ops (~1.5 min, cached
in the real-stack cache afterwards).
"""

from __future__ import annotations

import json
import math

import pytest
import yaml

from tests.conftest import run_cli
from tests.journeys.helpers import cli_json, free_port, note, read_probes, run_script, train_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

REPORT = ["--model", "baichuan2-7b-chat", "--gpu", "z100", "--vram-gib", "16", "--gpus", "4", "--method", "full"]
GiB = 2**30


def test_plan_for_16gb_dcus_says_zero3_with_offload_before_any_run():
    plan = cli_json("plan", *REPORT, "--json")
    rec = plan["recommended"]
    assert plan["fits"] is True
    assert (rec["method"], rec["zero_stage"], rec["offload"]) == ("full", 3, "optimizer"), rec
    assert rec["precision"] == "fp16", "gfx906 emulates bf16: the plan must not train in it"
    mem = plan["memory"]
    assert mem["reserved_bytes"] <= 0.85 * 16 * GiB
    # the report's arithmetic, corrected: the fp16 weights of 7.5 B parameters are ~14 GiB, sharded over 4 DCUs
    params = plan["model"]["params_total"]
    assert math.isclose(mem["weights_bytes"] * 4, 2 * params, rel_tol=0.02), (mem["weights_bytes"], params)
    codes = {w["code"] for w in plan["warnings"]}
    assert {"dtk-deepspeed-cuda-check", "offload-needs-cpu-ram", "bf16-emulated"} <= codes, codes
    # and the plan says why: without offload nothing fits on 16 GB
    human = run_cli("plan", *REPORT)
    assert human.returncode == 0, human.stderr
    assert "without CPU offload nothing fits" in human.stdout, human.stdout


def test_the_bundles_deepspeed_launch_starts_and_trains_on_cpu(realstack, tiny, data_file, tmp_path,
                                                              record_property):
    """The real bundle for the report, then the same flags for a tiny model run by the real deepspeed launcher."""
    note(record_property, "001: 4 x 16 GB DCU replaced by 2 CPU processes (gloo), tiny Qwen2, fp32, 1 step")
    real = tmp_path / "baichuan"
    r = run_cli("export", *REPORT, "--launcher", "deepspeed", "--dataset", str(data_file), "-o", str(real))
    assert r.returncode == 0, r.stderr
    ds = json.loads((real / "deepspeed.json").read_text(encoding="utf-8"))
    zero = ds["zero_optimization"]
    assert zero["stage"] == 3 and zero["offload_optimizer"]["device"] == "cpu", zero
    assert ds["fp16"]["enabled"] is True and ds["bf16"]["enabled"] is False
    run_sh = (real / "run.sh").read_text(encoding="utf-8")
    assert "deepspeed " in run_sh and "--include localhost:0,1,2,3" in run_sh, run_sh

    small = tmp_path / "tiny-bundle"
    flags = ["--gpu", "z100", "--vram-gib", "16", "--gpus", "2", "--method", "full", "--zero", "3",
             "--offload", "optimizer", "--launcher", "deepspeed", "--precision", "fp32",
             "--cutoff-len", "64", "--micro-batch", "4", "--effective-batch", "8", "--epochs", "1",
             "--attn", "sdpa", "--logging-steps", "1", "--master-port", str(free_port()), "--allow-unfit"]
    r = run_cli("export", "--model", str(tiny), "--dataset", str(data_file), "-o", str(small), *flags)
    assert r.returncode == 0, r.stderr
    small_ds = json.loads((small / "deepspeed.json").read_text(encoding="utf-8"))
    assert small_ds["zero_optimization"]["offload_optimizer"]["device"] == "cpu"
    probe = tmp_path / "probe"
    rc, out = run_script(small / "run.sh", "max_steps=1", env=train_env(realstack, probe_out=probe,
                                                                        extra={"LOCAL_SIZE": "2"}))
    assert rc == 0, out[-6000:]
    assert "world size: 2" in out and "distributed training: True" in out, out[-4000:]
    recs = read_probes(probe)
    assert [x["rank"] for x in recs] == [0, 1], recs
    for x in recs:
        assert x["zero3_params"] > 0, f"rank {x['rank']}: DeepSpeed ZeRO-3 did not partition the parameters: {x}"
        assert "DeepSpeedCPUAdam" in x["optimizer"], f"rank {x['rank']}: the optimizer was not offloaded: {x}"
        assert set(x["trainable_dtypes"]) == {"float32"}, x
    a = run_cli("attach", str(yaml.safe_load((small / "llamafactory.yaml").read_text())["output_dir"]),
                "--once", "--json", "--no-gpus")
    assert a.returncode == 0, a.stderr
    snap = json.loads(a.stdout)
    assert snap["step"] == 1 and snap["status"] == "finished", (snap["step"], snap["status"])
