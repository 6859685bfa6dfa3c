"""c-pre8: presets for models users name that check used to estimate from a shape assumed from the name (issue 26).

GPT-2 (gpt2 / -medium / -large / -xl: transformers' GPT2LMHeadModel, core's new gpt2 family), the first ChatGLM-6B
(THUDM/chatglm-6b: GLM blocks with LayerNorms, biased linears and a GELU MLP of inner_hidden_size, tied lm_head),
Baichuan-7B (the first Baichuan: Baichuan2-7B's layers with a 64000 vocab) and Qwen-VL-Chat (Qwen-7B's decoder +
visual.py's ViT-bigG and resampler, counted as the vision tower). Every count is derived here from the published
config.json and the modelling code, or taken from transformers' class on the meta device.
"""

from __future__ import annotations

import json

import pytest
import yaml

from rocm_tune.cli import main
from rocm_tune.core.model.architecture import load_model
from rocm_tune.profiles.model_presets import PRESET_DIR


def _preset(name: str) -> dict:
    with open(PRESET_DIR / f"{name}.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _plan_model(capsys, ref: str) -> dict:
    rc = main(["plan", "--model", ref, "--gpu", "w7900", "--json"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)["model"]


# ---- GPT-2 ---------------------------------------------------------------------------------------------------------

GPT2 = {"gpt2": (12, 12, 768), "gpt2-medium": (24, 16, 1024), "gpt2-large": (36, 20, 1280), "gpt2-xl": (48, 25, 1600)}


def _gpt2_formula(layers: int, width: int, vocab: int = 50257, positions: int = 1024) -> int:
    """modeling_gpt2.py: wte + wpe; per block ln_1, c_attn (H -> 3H, bias), c_proj (bias), ln_2, c_fc (H -> 4H, bias),
    mlp.c_proj (bias); ln_f; lm_head tied."""
    h = width
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + 2 * h + (4 * h * h + 4 * h) + (4 * h * h + h)
    return vocab * h + positions * h + layers * block + 2 * h


@pytest.mark.parametrize("name", sorted(GPT2))
def test_gpt2_presets_count_the_gpt2_layout(name):
    layers, heads, width = GPT2[name]
    spec = load_model(name)
    assert spec.family == "gpt2" and spec.num_layers == layers and spec.hidden_size == width
    assert spec.tie_word_embeddings and spec.params.lm_head == 0
    assert spec.params.total == _gpt2_formula(layers, width) == _preset(name)["params_verified"]
    assert spec.warnings == ()


@pytest.mark.parametrize("name", sorted(GPT2))
def test_gpt2_presets_equal_transformers_on_the_meta_device(name):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    cfg = {k: v for k, v in _preset(name)["config"].items() if k not in ("architectures", "model_type")}
    with torch.device("meta"):
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(**cfg))
    assert load_model(name).params.total == sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize(("ref", "name", "total_m"), [
    ("gpt2", "gpt2", 124), ("openai-community/gpt2-medium", "gpt2-medium", 355), ("GPT2-Large", "gpt2-large", 774),
    ("openai-community/gpt2-xl", "gpt2-xl", 1558),
])
def test_plan_names_the_gpt2_models_users_write(capsys, ref, name, total_m):
    got = _plan_model(capsys, ref)
    assert got["name"] == name and got["family"] == "gpt2" and round(got["params_total"] / 1e6) == total_m


def test_a_name_that_is_no_preset_still_is_unknown(capsys):
    assert main(["plan", "--model", "gpt2-huge", "--gpu", "w7900", "--json"]) == 2
    assert "unknown model 'gpt2-huge'" in capsys.readouterr().err


# ---- ChatGLM-6B (the first) -----------------------------------------------------------------------------------------

def test_first_chatglm_6b_counts_its_glm_blocks():
    spec = load_model("THUDM/chatglm-6b")
    h, inner, vocab, layers = 4096, 16384, 130528, 28
    # modeling_chatglm.py (chatglm-6b): input/post-attention LayerNorms with bias, query_key_value and dense with
    # bias, dense_h_to_4h / dense_4h_to_h with bias (GELU); final_layernorm; lm_head tied to word_embeddings
    block = 2 * 2 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * inner + inner) + (inner * h + h)
    assert spec.name == "chatglm-6b" and spec.num_layers == layers
    assert spec.params.total == vocab * h + layers * block + 2 * h == _preset("chatglm-6b")["params_published"]
    assert spec.params.lm_head == 0 and spec.warnings == ()
    assert {g.name for g in spec.linears} >= {"query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"}


def test_chatglm2_keeps_its_own_shape_beside_the_first_chatglm():
    two, one = load_model("chatglm2-6b"), load_model("chatglm-6b")
    assert two.params.total == 6_243_584_000 and two.params.lm_head > 0
    assert one.params.total != two.params.total and one.vocab_size == 130528 and two.vocab_size == 65024


# ---- Baichuan-7B ---------------------------------------------------------------------------------------------------

def test_baichuan_7b_is_baichuan2_7b_layers_with_the_64000_vocab():
    one, two = load_model("baichuan-inc/baichuan-7B"), load_model("baichuan2-7b-chat")
    assert one.name == "baichuan-7b" and one.params.total == 7_000_559_616 == _preset("baichuan-7b")["params_published"]
    assert one.params.per_layer == two.params.per_layer
    assert two.params.total - one.params.total == (125696 - 64000) * 4096 * 2     # untied embed + lm_head


# ---- Qwen-VL-Chat --------------------------------------------------------------------------------------------------

def test_qwen_vl_chat_is_qwen_7b_plus_the_visual_py_tower():
    spec, lm = load_model("Qwen/Qwen-VL-Chat"), load_model("qwen-7b")
    assert spec.name == "qwen-vl-chat" and spec.params.total == lm.params.total == 7_721_324_544
    v = spec.vision
    d, i, out = 1664, int(1664 * 4.9231), 4096
    block = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (d * i + i) + (i * d + d)
    resampler = 2 * 256 * out + d * out + (3 * out * out + 3 * out) + (out * out + out) + 2 * 2 * out
    other = 3 * 14 * 14 * d + 256 * d + 2 * d + resampler + 2 * out + out * out
    assert v is not None and v.kind == "qwen_vl" and v.depth == 48 and i == 8192
    assert v.params == 48 * block + other == 1_935_610_624
    assert round((spec.params.total + v.params) / 1e9, 1) == 9.7 and (spec.params.total + v.params) // 10**8 == 96
    assert v.tokens_for(1) == 256 + 2 and v.patches_per_tile == 1024


def test_check_reads_qwen_vl_chat_from_its_finetune_script(tmp_path, capsys):
    script = tmp_path / "finetune_lora_single_gpu.sh"
    script.write_text("python finetune.py --model_name_or_path Qwen/Qwen-VL-Chat --bf16 True --fix_vit True "
                      "--per_device_train_batch_size 1 --model_max_length 2048 --use_lora\n", encoding="utf-8")
    main(["check", str(script), "--gpu", "mi300x", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert d["model"]["name"] == "qwen-vl-chat" and d["model"]["source"] == "preset"
    assert not any("assumed" in a and "model" in a for a in d["assumptions"])
