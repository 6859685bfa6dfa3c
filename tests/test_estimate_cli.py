"""`rocm-tune estimate` as a real subprocess."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli


def test_json_contract():
    r = run_cli("estimate", "--model", "qwen2.5-7b", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["params"]["total"] == 7615616512
    assert d["params"]["trainable"] == 20185088       # LoRA r8 on all 7 linears x 28 layers
    for k in ("weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes",
              "peak_allocated_bytes", "reserved_bytes"):
        assert isinstance(d["per_gpu"][k], int)
    assert d["per_gpu"]["frozen_weights_bytes"] >= 2 * 7615616512
    assert d["cpu_offload_bytes"] == 0
    assert d["config"]["method"] == "lora" and d["model"]["source"] == "preset"


def test_flags_reach_the_config(tmp_path):
    cfg = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    r = run_cli("estimate", "--model", str(tmp_path), "--method", "full", "--precision", "fp32",
                "--cutoff-len", "512", "--micro-batch", "2", "--no-gradient-checkpointing", "--attn", "eager",
                "--optim", "sgd", "--gpus", "2", "--zero", "2", "--offload", "optimizer", "--stage", "pt", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    c = d["config"]
    assert (c["method"], c["precision"], c["cutoff_len"], c["micro_batch"], c["gradient_checkpointing"],
            c["attn"], c["optim"], c["gpus"], c["zero_stage"], c["offload"], c["stage"]) == \
        ("full", "fp32", 512, 2, False, "eager", "sgd", 2, 2, "optimizer", "pt")
    assert d["cpu_offload_bytes"] > 0 and d["per_gpu"]["optimizer_bytes"] == 0


def test_human_table():
    r = run_cli("estimate", "--model", "qwen2.5-7b", "--method", "qlora", "--lora-target", "q_proj,v_proj")
    assert r.returncode == 0, r.stderr
    assert "peak allocated" in r.stdout and "reserved" in r.stdout and "GiB" in r.stdout
    assert "QLoRA 4-bit" in r.stdout


@pytest.mark.parametrize("args, needle", [
    (["--model", "qwen2.5-7b", "--method", "full", "--lora-rank", "8"], "--lora-rank"),
    (["--model", "qwen2.5-7b", "--cutoff-len", "0"], "--cutoff-len"),
    (["--model", "qwen2.5-7b", "--micro-batch", "abc"], "--micro-batch"),
    (["--model", "qwen2.5-7b", "--precision", "fp8"], "fp8"),
    (["--model", "qwen2.5-7b", "--zero", "5"], "--zero"),
    (["--model", "qwen2.5-7b", "--offload", "all", "--zero", "2"], "needs ZeRO-3"),
    (["--model", "qwen2.5-7b", "--lora-target", "qq_proj"], "qq_proj"),
    (["--model", "no-such-model-xyz"], "no-such-model-xyz"),
    (["--method", "lora"], "--model"),
])
def test_bad_input_one_line_exit_2(args, needle):
    r = run_cli("estimate", *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_malformed_config_json(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    r = run_cli("estimate", "--model", str(tmp_path))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_probe_flag_reports_both(tmp_path):
    cfg = {"model_type": "qwen2", "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 2000}
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    r = run_cli("estimate", "--model", str(tmp_path), "--cutoff-len", "256", "--probe", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    probe_peak = d["probe"]["peak_allocated_bytes"]
    assert probe_peak > 0
    assert abs(d["per_gpu"]["peak_allocated_bytes"] / probe_peak - 1) < 0.10
    r = run_cli("estimate", "--model", str(tmp_path), "--method", "qlora", "--probe")
    assert r.returncode == 0 and "Probe      not run:" in r.stdout and "bitsandbytes" in r.stdout
