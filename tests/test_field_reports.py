"""The bar: the five field reports (shared/knowledge/field-notes.md) replayed through `rocm-tune plan`
must give the advice their authors learned the hard way. Real subprocesses, real presets and profiles."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli

GIB = 2**30


def plan_json(*args, expect=(0,), env=None):
    p = run_cli("plan", *args, "--json", env=env)
    assert p.returncode in expect, (p.returncode, p.stderr, p.stdout[-2000:])
    return json.loads(p.stdout), p


def codes(d):
    return [w["code"] for w in d["warnings"]]


def assert_consistent(d, effective=None):
    rec = d["recommended"]
    hw = d["hardware"]
    world = hw["gpus"] * hw["nodes"]
    if effective is not None:
        assert rec["micro_batch"] * world * rec["grad_accum"] == effective
    assert d["memory"]["reserved_bytes"] > 0
    assert d["throughput"]["seconds_per_step"] > 0


# ---------------------------------------------------------------- report 000: Qwen2.5-7B LoRA on 2x MI50 32GB

def test_report_000_qwen25_lora_on_two_mi50():
    d, _ = plan_json("--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2", "--lora-rank", "64",
                     "--effective-batch", "64")
    rec = d["recommended"]
    assert d["fits"] is True
    # no bf16: MI50 emulates it (the author lost 2x to it)
    assert rec["precision"] not in ("bf16", "pure_bf16")
    # Qwen2.5 overflows in fp16: the safe regime is chosen and the risk is spelled out
    assert rec["precision"] == "fp32"
    assert "fp16-overflow-risk" in codes(d) and "bf16-emulated" in codes(d)
    # no flash attention on gfx906: eager, and the eager score matrix is in the memory estimate
    assert rec["attn"] == "eager" and "flash-attn-unsupported" in codes(d)
    # a fitting cutoff_len / micro-batch within the default 85% headroom
    assert rec["cutoff_len"] >= 512 and rec["micro_batch"] >= 1
    assert d["memory"]["reserved_bytes"] <= 0.85 * d["hardware"]["vram_bytes"]
    assert_consistent(d, effective=64)
    # the IOMMU check for several AMD GPUs, with the grub fix
    iommu = next(w for w in d["warnings"] if w["code"] == "iommu-p2p-hang-risk")
    assert "iommu=pt" in iommu["fix"] and "intel_iommu=off" in iommu["fix"]
    # DDP + LoRA + checkpointing handled; env only where it does something
    # (the DDP reducer's error: warned under plain DDP only, never under ZeRO -- issue 25 item 9)
    if rec["gradient_checkpointing"]:
        # non-reentrant for DDP's reducer; reentrant under LoRA + ZeRO-3, where non-reentrant recomputation raises
        # CheckpointError (DeepSpeed#8148)
        assert rec["use_reentrant"] is (rec["zero_stage"] == 3)
        assert ("ddp-lora-gc-reentrant" in codes(d)) == (rec["zero_stage"] == 0)
    assert rec["ddp_find_unused_parameters"] is False
    env = rec["env"]
    assert env["HIP_VISIBLE_DEVICES"] == "0,1" and "HSA_OVERRIDE_GFX_VERSION" not in env
    assert "PYTORCH_HIP_ALLOC_CONF" not in env  # gfx906 stays on ROCm <= 6.3: no expandable segments
    assert rec["launcher"] == "torchrun"
    # no alternative is bf16 either
    assert all(a["precision"] not in ("bf16", "pure_bf16") for a in d["alternatives"])


def test_report_000_forcing_fp16_is_allowed_but_warned():
    d, _ = plan_json("--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--gpus", "2", "--lora-rank", "64",
                     "--precision", "fp16", "--cutoff-len", "1024")
    assert d["recommended"]["precision"] == "fp16" and d["recommended"]["cutoff_len"] == 1024
    w = next(w for w in d["warnings"] if w["code"] == "fp16-overflow-risk")
    assert "NaN" in w["message"]
    assert "fixed-value-risky" in codes(d)


def test_report_000_single_gpu_cutoff_4096_does_not_fit_but_2048_does():
    # the author's single-GPU attempt: batch 1, checkpointing, cutoff 4096 -> OOM on 32 GB
    d, _p = plan_json("--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--lora-rank", "64", "--precision", "fp16",
                     "--cutoff-len", "4096", "--micro-batch", "1", "--offload", "none", "--headroom", "0.95",
                     expect=(0, 1))
    d2, _ = plan_json("--model", "qwen2.5-7b", "--gpu", "mi50-32gb", "--lora-rank", "64", "--precision", "fp16",
                      "--cutoff-len", "2048", "--micro-batch", "1", "--offload", "none", "--headroom", "0.95")
    assert d2["fits"] is True
    assert d2["memory"]["reserved_bytes"] < d["memory"]["reserved_bytes"]


# ---------------------------------------------------------------- report 001: Baichuan2-7B full FT on 16 GB DCUs

def test_report_001_full_finetune_7b_on_16gb_dcus_needs_offload_or_lora():
    args = ("--model", "baichuan2-7b-chat", "--gpu", "z100", "--vram-gib", "16", "--gpus", "4", "--method", "full")
    # without offload: does not fit, with concrete alternatives (numbers)
    d, _p = plan_json(*args, "--offload", "none", expect=(1,))
    assert d["fits"] is False
    nofit = next(w for w in d["warnings"] if w["code"] == "does-not-fit")
    assert "GiB" in nofit["message"]
    assert "lora" in nofit["fix"].lower() and "GPUs" in nofit["fix"]
    assert any(a["method"] in ("lora", "qlora") and a["fits"] for a in d["alternatives"])
    assert d["recommended"]["precision"] not in ("bf16", "pure_bf16")      # Z100 is gfx906: no bf16
    # human output says so too, exit code 1
    p2 = run_cli("plan", *args, "--offload", "none")
    assert p2.returncode == 1 and "DOES NOT FIT" in p2.stdout and "does-not-fit" in p2.stdout

    # letting the planner offload, with enough CPU RAM: fits only through ZeRO-3 + offload, and says it
    d, _ = plan_json(*args, "--cpu-ram-gib", "512")
    rec = d["recommended"]
    assert d["fits"] is True and rec["offload"] != "none" and rec["zero_stage"] == 3
    assert "offload-needs-cpu-ram" in codes(d)
    assert d["memory"]["cpu_offload_bytes"] > 50 * GIB
    assert any("without CPU offload nothing fits" in r for r in d["reasons"])
    assert any(a["method"] in ("lora", "qlora") for a in d["alternatives"])

    # too little CPU RAM for the offload: does not fit, and the RAM it would take is named
    d, _ = plan_json(*args, "--cpu-ram-gib", "32", expect=(1,))
    nofit = next(w for w in d["warnings"] if w["code"] == "does-not-fit")
    assert "CPU RAM" in nofit["message"] + nofit["fix"]


# ---------------------------------------------------------------- report 002: MI50 docker, bf16 errors

def test_report_002_mi50_docker_gets_no_bf16_even_when_detected(tmp_path):
    # planning for the GPUs of this machine (fake backend = two MI50s as in the docker report)
    d, _ = plan_json("--model", "llama-3.1-8b", env={"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2"})
    assert d["hardware"]["gpu"] == "mi50-32gb" and d["hardware"]["gpus"] == 2
    assert d["recommended"]["precision"] in ("fp16", "fp32")
    w = next(w for w in d["warnings"] if w["code"] == "bf16-emulated")
    assert "is_bf16_supported" in w["message"] and "DeepSpeed" in w["fix"]


# ---------------------------------------------------------------- report 003: R1-Distill-Qwen-32B LoRA on 8x K100

def test_report_003_r1_distill_qwen_32b_lora_on_eight_k100_within_90_percent():
    d, _ = plan_json("--model", "deepseek-r1-distill-qwen-32b", "--gpu", "k100", "--gpus", "8",
                     "--headroom", "0.9", "--cutoff-len", "1024", "--effective-batch", "128")
    assert d["fits"] is True
    assert d["memory"]["reserved_bytes"] <= 0.9 * 64 * GIB
    rec = d["recommended"]
    assert rec["cutoff_len"] == 1024
    assert rec["precision"] not in ("bf16", "pure_bf16")        # K100 (gfx926) has no bf16 hardware
    assert rec["attn"] == "eager"
    assert_consistent(d, effective=128)
    for a in d["alternatives"]:
        assert a["memory"]["reserved_bytes"] <= 0.9 * 64 * GIB


# ---------------------------------------------------------------- report 004: Qwen3-4B DPO on 4x H100

@pytest.mark.parametrize("method", ["qlora", "lora"])
def test_report_004_qwen3_4b_dpo_on_four_h100(method):
    d, _ = plan_json("--model", "qwen3-4b", "--gpu", "h100-sxm", "--gpus", "4", "--stage", "dpo",
                     "--method", method, "--effective-batch", "128")
    rec = d["recommended"]
    assert d["fits"] is True and rec["method"] == method
    assert rec["attn"] == "sdpa"                      # SDPA, not a FlashAttention-2 build
    assert rec["precision"] == "bf16"
    assert_consistent(d, effective=128)               # the batch keeps the effective 128
    assert rec["ddp_find_unused_parameters"] is False
    if rec["gradient_checkpointing"]:
        assert "ddp-lora-gc-reentrant" in codes(d) and rec["use_reentrant"] is False
    assert "iommu-p2p-hang-risk" not in codes(d) and "bf16-emulated" not in codes(d)
    assert rec["env"]["CUDA_VISIBLE_DEVICES"] == "0,1,2,3"


def test_report_004_dpo_at_batch_one_keeps_effective_128():
    d, _ = plan_json("--model", "qwen3-4b", "--gpu", "h100-sxm", "--gpus", "4", "--stage", "dpo",
                     "--method", "qlora", "--effective-batch", "128", "--micro-batch", "1",
                     "--gradient-checkpointing")
    rec = d["recommended"]
    assert rec["micro_batch"] == 1 and rec["grad_accum"] == 32
    assert "ddp-lora-gc-reentrant" in codes(d)
    assert rec["use_reentrant"] is False and rec["ddp_find_unused_parameters"] is False
