"""What the plan says matches what it plans (issue 25 items 7, 9, 14): through the real CLI."""

from __future__ import annotations

import json

import yaml

from tests.conftest import run_cli


def plan(*args: str) -> tuple[dict, str]:
    j = run_cli("plan", *args, "--json")
    assert j.returncode == 0, j.stderr
    t = run_cli("plan", *args)
    assert t.returncode == 0, t.stderr
    return json.loads(j.stdout), t.stdout


def codes(d: dict) -> list[str]:
    return [w["code"] for w in d["warnings"]]


def test_zero3_bf16_says_deepspeed_keeps_fp32_optimizer_state():
    d, text = plan("--model", "qwen2.5-7b", "--gpu", "mi300x", "--gpus", "8", "--method", "full",
                   "--precision", "bf16", "--zero", "3")
    ex = d["execution"]
    assert d["recommended"]["zero_stage"] == 3
    assert ex["trainable_weights"] == "bf16" and ex["optimizer_state"] == "fp32"
    assert "optimizer state and master weights fp32" in text
    assert "optimizer state bf16" not in text and "optimizer state\nbf16" not in text


def test_no_zero_keeps_the_optimizer_state_with_the_weights():
    d, _ = plan("--model", "qwen2.5-0.5b", "--gpu", "h100-sxm", "--method", "lora", "--precision", "bf16")
    ex = d["execution"]
    assert d["recommended"]["zero_stage"] == 0 and ex["optimizer_state"] == ex["trainable_weights"]


def test_ddp_lora_reentrant_warning_only_under_plain_ddp():
    gc = ("--model", "qwen2.5-7b", "--gpu", "mi300x", "--gpus", "4", "--method", "lora", "--gradient-checkpointing")
    d, _ = plan(*gc, "--zero", "3")
    assert d["recommended"]["gradient_checkpointing"] and "ddp-lora-gc-reentrant" not in codes(d)
    d, _ = plan(*gc, "--zero", "0")
    assert d["recommended"]["gradient_checkpointing"] and "ddp-lora-gc-reentrant" in codes(d)


def test_zero3_slow_interconnect_never_advises_what_the_plan_cannot_take():
    # 72B LoRA over 8 x 24 GB PCIe cards: plain DDP does not fit and the plan is already LoRA
    d, _ = plan("--model", "qwen2.5-72b", "--gpu", "rtx4090", "--gpus", "8", "--method", "lora")
    w = next(w for w in d["warnings"] if w["code"] == "zero3-slow-interconnect")
    assert "DDP" not in w["fix"] and "LoRA" not in w["fix"]
    # 7B LoRA forced onto ZeRO-3 where plain DDP fits: DDP is the advice, LoRA (already) is not
    d, _ = plan("--model", "qwen2.5-7b", "--gpu", "rtx4090", "--gpus", "4", "--method", "lora", "--zero", "3")
    w = next(w for w in d["warnings"] if w["code"] == "zero3-slow-interconnect")
    assert "plain DDP" in w["fix"] and "LoRA" not in w["fix"]


def test_hand_set_bf16_on_mi50_is_not_a_plain_fits_headline():
    _, text = plan("--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2", "--precision", "bf16")
    headline = text.splitlines()[1]
    assert headline.startswith("FITS") and "bf16 is emulated" in headline
    _, text = plan("--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2")  # the planner's fp32
    assert text.splitlines()[1] == "FITS"


def test_tiny_plan_eta_is_one_figure(tmp_path):
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([{"instruction": "hi", "input": "", "output": "hello there"}] * 20))
    _, text = plan("--model", "qwen2.5-0.5b", "--gpu", "h100-sxm", "--dataset", str(data))
    eta = next(line for line in text.splitlines() if line.strip().startswith("ETA"))
    assert "0 min" not in eta and "(" not in eta.split(" for ")[0], eta


def test_export_trust_remote_code_only_for_models_with_their_own_code(tmp_path):
    for model, want in (("qwen2.5-7b", False), ("chatglm3-6b", True)):
        out = tmp_path / model
        r = run_cli("export", "--model", model, "--gpu", "mi300x", "--dataset-name", "alpaca_en_demo", "-o", str(out))
        assert r.returncode == 0, r.stderr
        cfg = yaml.safe_load((out / "llamafactory.yaml").read_text())
        assert cfg["trust_remote_code"] is want, model
        if model == "qwen2.5-7b":
            assert cfg["model_name_or_path"] == "Qwen/Qwen2.5-7B-Instruct"
            assert "--model-path Qwen/Qwen2.5-7B for the base weights" in r.stdout + r.stderr
