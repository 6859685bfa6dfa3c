"""Ling 2.0 / Ring 2.0 (BailingMoeV2ForCausalLM, inclusionAI's remote code modeling_bailing_moe_v2.py): counted as
that code builds it. transformers has no such class, so the count is checked (a) against a module tree built on the
meta device with the remote code's layout (the classes below mirror its __init__s: module names and Linear shapes
only), (b) against Ling-flash-2.0's published parameter count (test_model_presets), (c) Ling-mini-2.0's 16.26B."""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.model.architecture import load_model, model_from_config

torch = pytest.importorskip("torch")
nn = torch.nn

SMALL = {"model_type": "bailing_moe", "architectures": ["BailingMoeV2ForCausalLM"], "vocab_size": 320,
         "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 4, "num_attention_heads": 4,
         "num_key_value_heads": 2, "head_dim": 32, "num_experts": 8, "num_shared_experts": 1,
         "num_experts_per_tok": 2, "moe_intermediate_size": 24, "first_k_dense_replace": 1, "use_qk_norm": True,
         "use_qkv_bias": False, "use_bias": False, "tie_word_embeddings": False}


def _mlp(h, i):
    return nn.ModuleDict({"gate_proj": nn.Linear(h, i, bias=False), "up_proj": nn.Linear(h, i, bias=False),
                          "down_proj": nn.Linear(i, h, bias=False)})


def _remote_layout(c: dict) -> nn.Module:
    """BailingMoeV2ForCausalLM's parameters: word_embeddings, layers (attention.query_key_value / dense /
    query_layernorm / key_layernorm, input/post_attention_layernorm, mlp = MLP before first_k_dense_replace else
    gate.weight [E, H] + experts + shared_experts), norm, lm_head."""
    h, hd, nh, kv = c["hidden_size"], c["head_dim"], c["num_attention_heads"], c["num_key_value_heads"]
    layers = nn.ModuleList()
    for i in range(c["num_hidden_layers"]):
        attn = nn.ModuleDict({"query_key_value": nn.Linear(h, (nh + 2 * kv) * hd, bias=c["use_qkv_bias"]),
                              "dense": nn.Linear(nh * hd, h, bias=c["use_bias"])})
        attn.query_layernorm = nn.Parameter(torch.empty(hd))
        attn.key_layernorm = nn.Parameter(torch.empty(hd))
        if i >= c["first_k_dense_replace"]:
            mlp = nn.Module()
            mlp.gate = nn.Parameter(torch.empty(c["num_experts"], h))   # BailingMoeV2Gate.weight; expert_bias: buffer
            mlp.experts = nn.ModuleList(_mlp(h, c["moe_intermediate_size"]) for _ in range(c["num_experts"]))
            mlp.shared_experts = _mlp(h, c["moe_intermediate_size"] * c["num_shared_experts"])
        else:
            mlp = _mlp(h, c["intermediate_size"])
        layer = nn.ModuleDict({"attention": attn, "mlp": mlp})
        layer.input_layernorm = nn.Parameter(torch.empty(h))
        layer.post_attention_layernorm = nn.Parameter(torch.empty(h))
        layers.append(layer)
    m = nn.Module()
    m.word_embeddings = nn.Embedding(c["vocab_size"], h)
    m.layers = layers
    m.norm = nn.Parameter(torch.empty(h))
    m.lm_head = nn.Linear(h, c["vocab_size"], bias=False)
    return m


def test_small_config_counts_what_the_remote_code_builds():
    with torch.device("meta"):
        ref = _remote_layout(SMALL)
    spec = model_from_config(SMALL)
    assert spec.family == "bailing_moe_v2" and spec.warnings == ()
    assert spec.params.total == sum(p.numel() for p in ref.parameters())
    per_layer = tuple(sum(p.numel() for p in layer.parameters()) for layer in ref.layers)
    assert spec.params.per_layer == per_layer
    assert spec.moe_layers == 3 and spec.num_experts == 8 and spec.num_shared_experts == 1
    names = {g.name for g in spec.linears}
    assert {"query_key_value", "dense", "gate_proj", "up_proj", "down_proj"} <= names
    assert spec.params.shared_experts == 3 * 3 * 64 * 24 and spec.params.router == 3 * 8 * 64


def test_ling_1_config_is_not_read_as_v2():
    # Ling-lite (1.x) says model_type bailing_moe with BailingMoeForCausalLM: not the V2 counter
    spec = model_from_config({**SMALL, "architectures": ["BailingMoeForCausalLM"]})
    assert spec.family != "bailing_moe_v2"


def test_ling_mini_2_preset_is_the_published_16_26b_and_ring_mini_names_it():
    spec = load_model("inclusionAI/Ring-mini-2.0")
    assert spec.name == "ling-mini-2.0" and round(spec.params.total / 1e9, 2) == 16.26
    assert spec.moe_layers == 19 and spec.num_experts == 256 and spec.num_experts_per_tok == 8
    flash = load_model("inclusionAI/Ring-flash-2.0")
    assert flash.name == "ling-flash-2.0" and flash.params.total == 102_889_697_280


def test_check_answers_a_ring_mini_full_finetune(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    y = tmp_path / "train.yaml"
    y.write_text("model_name_or_path: inclusionAI/Ring-mini-2.0\nstage: sft\ndo_train: true\nfinetuning_type: full\n"
                 "template: bailing_v2\ncutoff_len: 2048\nper_device_train_batch_size: 1\nbf16: true\n"
                 "gradient_checkpointing: true\noutput_dir: out\n")
    main(["check", str(y), "--gpu", "mi300x", "--json", "--no-app"])
    d = json.loads(capsys.readouterr().out)
    assert d["verdict"] in ("fits", "oom") and d["model"]["name"] == "ling-mini-2.0"
    assert d["model"]["identified_by"] == "preset"
