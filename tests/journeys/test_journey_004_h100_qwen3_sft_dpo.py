"""Journey 004 (field report 004): Qwen3-4B on 4 x H100 80GB, SFT then DPO with QLoRA, effective batch 128
(SFT: 4 per device x 8 accumulation x 4 GPUs; DPO OOMed at 2 per device: 1 x 32 x 4), and the DDP + LoRA +
gradient checkpointing crash `Expected to mark a variable ready only once` that made the user turn checkpointing off.

The journey: `rocm-tune export` of both stages as the report ran them -> both bundles are accepted by the real
LLaMA-Factory 0.9.5 parser (a real 2-process launch, tests/realstack/lf_parse.py) -> their LoRA counterparts
train a tiny model with 2 processes and gradient checkpointing on, without the crash.

Run on CPU: QLoRA needs bitsandbytes' GPU kernels and 4 x H100 are not here, so the training runs are the same
exports with `--method lora` for a tiny random Qwen2, 2 processes on gloo, fp32. What ran is read inside the
processes (tests/journeys/probe): torch's checkpoint was really called, non-reentrant. As a negative control the
same SFT bundle, with LLaMA-Factory's defaults put back (`use_reentrant_gc=true ddp_find_unused_parameters=true`
on run.sh's command line), does crash with the report's error — so its absence means something.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli
from tests.journeys.helpers import free_port, lf_parse, note, read_probes, run_script, train_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]

MARK_READY = "Expected to mark a variable ready only once"
REAL = {"sft": ["--micro-batch", "4"], "dpo": ["--micro-batch", "1"]}
COMMON = ["--model", "qwen3-4b", "--gpu", "h100-sxm", "--gpus", "4", "--method", "qlora", "--effective-batch",
          "128", "--gradient-checkpointing"]


@pytest.fixture(scope="module")
def pref_file(tmp_path_factory, data_file):
    """Preference pairs (alpaca: instruction, input, chosen, rejected) from the tiny records: the chosen answer
    is the record's own, the rejected one the next record's."""
    recs = json.loads(data_file.read_text(encoding="utf-8"))
    pairs = [{"instruction": r["instruction"], "input": r["input"], "chosen": r["output"],
              "rejected": recs[(i + 1) % len(recs)]["output"]} for i, r in enumerate(recs)]
    p = tmp_path_factory.mktemp("pref") / "pref.json"
    p.write_text(json.dumps(pairs), encoding="utf-8")
    return p


def _dataset(stage, data_file, pref_file):
    return str(pref_file if stage == "dpo" else data_file)


def test_sft_and_dpo_qlora_bundles_are_accepted_by_llamafactory(realstack, data_file, pref_file, tmp_path):
    yamls = {}
    for stage, flags in REAL.items():
        out = tmp_path / stage
        r = run_cli("export", *COMMON, "--stage", stage, *flags, "--dataset", _dataset(stage, data_file, pref_file),
                    "-o", str(out))
        assert r.returncode == 0, f"{stage}: {r.stderr}"
        plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))["recommended"]
        assert plan["micro_batch"] * plan["grad_accum"] * 4 == 128, plan
        yamls[stage] = out / "llamafactory.yaml"
    res = lf_parse(realstack, yamls, tmp_path)
    for stage, want_accum in (("sft", 8), ("dpo", 32)):
        x = res[stage]
        assert x["ok"], f"{stage}: {x['error']}\n{x.get('trace')}"
        assert all(v is not None for v in x["keys"].values()), {k for k, v in x["keys"].items() if v is None}
        keys = {k: v[1] for k, v in x["keys"].items()}
        assert keys["stage"] == stage and keys["quantization_bit"] == 4 and keys["finetuning_type"] == "lora"
        assert x["gradient_accumulation_steps"] == want_accum, (stage, x["gradient_accumulation_steps"])
        # the report's fix for the crash, kept with checkpointing on
        assert keys.get("disable_gradient_checkpointing") in (None, False), keys
        assert keys["use_reentrant_gc"] is False and keys["ddp_find_unused_parameters"] is False, keys


def _tiny_counterpart(tmp_path, tiny, dataset, stage):
    out = tmp_path / f"{stage}-lora"
    r = run_cli("export", "--model", str(tiny), "--gpu", "h100-sxm", "--gpus", "2", "--method", "lora",
                "--stage", stage, "--gradient-checkpointing", "--precision", "fp32", "--cutoff-len", "64",
                "--micro-batch", "2", "--effective-batch", "8", "--epochs", "1", "--attn", "sdpa",
                "--logging-steps", "1", "--master-port", str(free_port()), "--dataset", str(dataset),
                "--allow-unfit", "-o", str(out))
    assert r.returncode == 0, r.stderr
    return out


def _train(realstack, bundle, probe, *overrides):
    return run_script(bundle / "run.sh", "max_steps=2", *overrides, env=train_env(realstack, probe_out=probe))


def _assert_checkpointing_ran_without_the_crash(rc, out, probe, trainer):
    assert MARK_READY not in out, out[-4000:]
    assert rc == 0, out[-6000:]
    recs = read_probes(probe)
    assert [x["rank"] for x in recs] == [0, 1], recs
    for x in recs:
        assert x["trainer"] == trainer, x
        assert x["checkpoint_calls"] > 0, f"rank {x['rank']}: gradient checkpointing did not run: {x}"
        assert x["use_reentrant"] == ["False"], x
        assert x["trainable_dtypes"] and x["frozen_dtypes"], x  # LoRA: adapters train, the base is frozen


def test_sft_lora_ddp_with_checkpointing_trains_and_the_old_defaults_crash(realstack, tiny, data_file, tmp_path,
                                                                          record_property):
    note(record_property, "004: QLoRA on 4 x H100 replaced by LoRA on 2 CPU processes (gloo), tiny Qwen2, fp32")
    b = _tiny_counterpart(tmp_path, tiny, data_file, "sft")
    rc, out = _train(realstack, b, tmp_path / "probe")
    _assert_checkpointing_ran_without_the_crash(rc, out, tmp_path / "probe", "CustomSeq2SeqTrainer")
    # negative control: LLaMA-Factory's own defaults (reentrant checkpointing, DDP looking for unused parameters)
    rc, out = _train(realstack, b, tmp_path / "probe-defaults", "use_reentrant_gc=true",
                     "ddp_find_unused_parameters=true", "overwrite_output_dir=true")
    assert rc != 0 and MARK_READY in out, f"the negative control did not reproduce report 004's crash:\n{out[-4000:]}"


def test_dpo_lora_ddp_with_checkpointing_trains(realstack, tiny, pref_file, tmp_path, record_property):
    note(record_property, "004: DPO with LoRA on 2 CPU processes, tiny Qwen2, fp32 (QLoRA needs a GPU)")
    b = _tiny_counterpart(tmp_path, tiny, pref_file, "dpo")
    rc, out = _train(realstack, b, tmp_path / "probe")
    _assert_checkpointing_ran_without_the_crash(rc, out, tmp_path / "probe", "CustomDPOTrainer")
