"""Gemma 4 (gemma4_text) and Llama 3.2 Vision (mllama) language models: counted from transformers' modeling code
(models/gemma4 Gemma4TextAttention, models/mllama MllamaTextModel), presets verified on the meta device."""
from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.model.architecture import identify_model, load_model, model_from_config

# totals transformers 5.24 builds on the meta device (Gemma4ForCausalLM / MllamaForCausalLM from the presets'
# configs); the Gemma 4 31B text decoder is 30.7B of the card's 31B, the Mllama text decoders 9.78B / 87.7B of the
# cards' 10.6B / 88.6B (the vision towers are not counted)
_TOTALS = {"gemma-4-31b": 30_697_345_280, "llama-3.2-11b-vision": 9_775_192_080,
           "llama-3.2-90b-vision": 87_666_865_192}


@pytest.mark.parametrize(("name", "total"), sorted(_TOTALS.items()))
def test_preset_totals(name, total):
    spec = load_model(name)
    assert spec.params.total == total


def test_gemma4_full_attention_layers_use_global_heads_and_share_k_as_v():
    spec = load_model("gemma-4-31b")
    H = spec.hidden_size
    sliding, full = spec.params.per_layer[0], spec.params.per_layer[5]
    mlp = 3 * H * spec.intermediate_size
    # sliding: q 32x256, k and v 16x256, o; full: q 32x512, k 4x512 (no v_proj: attention_k_eq_v), o
    assert sliding - mlp - 4 * H - 2 * 256 == H * (8192 + 2 * 4096 + 8192)
    assert full - mlp - 4 * H - 2 * 512 == H * (16384 + 2048 + 16384)
    # without attention_k_eq_v the full layers have a v_proj of the global width too
    cfg = dict(spec.config, attention_k_eq_v=False)
    assert model_from_config(cfg).params.per_layer[5] == full + H * 2048


def test_gemma4_wrapper_config_counts_its_text_config():
    text = load_model("gemma-4-31b").config
    wrapped = {"model_type": "gemma4", "architectures": ["Gemma4ForConditionalGeneration"], "text_config": dict(text),
               "vision_config": {"model_type": "gemma4_vision", "hidden_size": 1152}}
    spec = model_from_config(wrapped)
    assert spec.family == "gemma4_text" and spec.params.total == _TOTALS["gemma-4-31b"]


def test_gemma4_per_layer_embedding_variant_is_flagged():
    cfg = dict(load_model("gemma-4-31b").config, hidden_size_per_layer_input=256, num_kv_shared_layers=20)
    assert any("not modelled" in w for w in model_from_config(cfg).warnings)


def test_mllama_cross_layers_add_norms_and_gates_only():
    spec = load_model("llama-3.2-11b-vision")
    per = spec.params.per_layer
    assert per[3] - per[2] == 2 * 128 + 2      # q_norm + k_norm (head_dim 128) + two tanh gates
    assert spec.params.embed - spec.params.lm_head == 8 * 4096   # embed_tokens has vocab_size + 8 rows
    top = {"model_type": "mllama", "text_config": {"model_type": "mllama_text_model", "hidden_size": 8192,
           "intermediate_size": 28672, "num_attention_heads": 64, "num_hidden_layers": 100,
           "cross_attention_layers": list(range(3, 100, 5))}}
    assert model_from_config(top).params.total == _TOTALS["llama-3.2-90b-vision"]   # MllamaTextConfig defaults


@pytest.mark.parametrize(("ref", "preset"), [
    ("unsloth/gemma-4-31B-it-unsloth-bnb-4bit", "gemma-4-31b"), ("google/gemma-4-31B", "gemma-4-31b"),
    ("/tmp/Llama-3.2-11B-Vision-Instruct/", "llama-3.2-11b-vision"),
    ("meta-llama/Llama-3.2-90B-Vision-Instruct", "llama-3.2-90b-vision"),
    ("LLM-Research/Llama-3.2-11B-Vision-Instruct", "llama-3.2-11b-vision"),
])
def test_names_reach_the_presets(ref, preset):
    got = identify_model(ref, network=False)
    assert got.spec is not None and got.spec.name == preset, got.detail


def test_check_reads_gemma4_31b_qlora_through_the_cli(tmp_path, capsys):
    cfg = tmp_path / "train.yaml"
    cfg.write_text("base_model: google/gemma-4-31B-it\nadapter: qlora\nload_in_4bit: true\nlora_r: 16\n"
                   "sequence_len: 2048\nmicro_batch_size: 1\ngradient_checkpointing: true\nbf16: true\n")
    main(["check", str(cfg), "--gpu", "mi300x", "--gpus", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["model"]["name"] == "gemma-4-31b" and out["model"]["family"] == "gemma4_text"
    assert out["verdict"] == "fits"


@pytest.mark.parametrize("name", sorted(_TOTALS))
def test_presets_match_transformers_on_the_meta_device(name):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    spec = load_model(name)
    cfg = {k: v for k, v in spec.config.items() if k not in ("architectures", "torch_dtype", "model_type")}
    if spec.family == "gemma4_text":
        if not hasattr(transformers, "Gemma4ForCausalLM"):
            pytest.skip("transformers without Gemma 4")
        conf, cls = transformers.Gemma4TextConfig(**cfg), transformers.Gemma4ForCausalLM
    else:
        conf, cls = transformers.MllamaTextConfig(**cfg), transformers.MllamaForCausalLM
    with torch.device("meta"):
        model = cls(conf)
    assert sum(p.numel() for p in model.parameters()) == spec.params.total


@pytest.mark.parametrize(("ref", "raw_b"), [("google/gemma-4-E4B-it", 8.0), ("unsloth/gemma-4-E2B-it", 5.1)])
def test_gemma4_effective_sizes_load_their_raw_totals(ref, raw_b):
    got = identify_model(ref, network=False)
    assert got.how == "assumed" and got.spec is not None
    assert abs(got.spec.params.total / 1e9 - raw_b) < 0.2    # the per-layer embeddings are loaded too
