"""p-presets: real shapes for models users name (Qwen v1, ChatGLM2, Baichuan 1) instead of a shape assumed from the name.

Counts: these are remote-code models (transformers has no class for them), so each preset's total is checked against
the architecture's formula from its config.json (modeling_qwen.py / modeling_baichuan.py / modeling_chatglm.py) and
against the size the model card states; names as users write them (paths, suffixes, lowercase) must reach the preset.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.model.architecture import identify_model, load_model, model_from_config


def _qwen_v1_total(cfg: dict) -> int:
    # QWenLMHeadModel: wte + h[i](ln_1, c_attn H->3H with bias, c_proj H->H, ln_2, w1/w2 H->ff/2, c_proj ff/2->H)
    # + ln_f + untied lm_head
    H, ff, V, L = cfg["hidden_size"], cfg["intermediate_size"] // 2, cfg["vocab_size"], cfg["num_hidden_layers"]
    per_layer = (3 * H * H + 3 * H) + H * H + 3 * H * ff + 2 * H
    return L * per_layer + 2 * V * H + H


def _baichuan_total(cfg: dict) -> int:
    H, inter, V, L = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    return L * (4 * H * H + 3 * H * inter + 2 * H) + 2 * V * H + H


@pytest.mark.parametrize(("name", "card_b"), [("qwen-1.8b", 1.84), ("qwen-7b", 7.72), ("qwen-14b", 14.17),
                                              ("qwen-72b", 72.29)])
def test_qwen_v1_counts(name, card_b):
    spec = load_model(name)
    assert spec.params.total == _qwen_v1_total(spec.config)
    assert round(spec.params.total / 1e9, 2) == card_b
    assert spec.config["model_type"] == "qwen" and spec.torch_dtype == "bfloat16"   # remote code casts itself


@pytest.mark.parametrize(("name", "total"), [("baichuan-13b-chat", 13_264_901_120)])
def test_baichuan1_counts(name, total):
    spec = load_model(name)
    assert spec.params.total == _baichuan_total(spec.config) == total
    assert spec.config["vocab_size"] == 64000          # not Baichuan2's 125696


def test_chatglm2_is_chatglm3_shape_with_its_own_context():
    two, three = load_model("chatglm2-6b"), load_model("chatglm3-6b")
    assert two.params.total == three.params.total == 6_243_584_000
    assert two.config["seq_length"] == 32768 and three.config["seq_length"] == 8192


def test_qwen_v1_dtype_follows_its_flags():
    base = dict(load_model("qwen-7b").config)
    assert model_from_config({**base, "fp16": True}).torch_dtype == "float16"
    assert model_from_config({**base, "fp32": True}).torch_dtype == "float32"
    assert model_from_config({**base, "torch_dtype": "float16"}).torch_dtype == "float16"


@pytest.mark.parametrize(("ref", "preset"), [
    ("qwen-7b-chat", "qwen-7b"), ("Qwen/Qwen-7B-Chat", "qwen-7b"), ("/data/models/Qwen-7B", "qwen-7b"),
    ("Qwen/Qwen-72B-Chat-Int4", "qwen-72b"), ("/mnt/Qwen-14B-Chat-Int8", "qwen-14b"), ("/Qwen-1_8B", "qwen-1.8b"),
    ("Qwen/Qwen-1_8B-Chat", "qwen-1.8b"), ("qwen/Qwen-72B", "qwen-72b"),
    ("/home/u/ChatGLM2-6B/ptuning/chatglm2-6b/", "chatglm2-6b"), ("ZhipuAI/chatglm2-6b", "chatglm2-6b"),
    ("/home/x/llm-model/baichuan-13b-chat", "baichuan-13b-chat"), ("Baichuan-13B-Base", "baichuan-13b-chat"),
])
def test_names_reach_the_preset(ref, preset):
    got = identify_model(ref, network=False)
    assert got.how in ("preset", "name"), got.detail
    assert got.spec is not None and got.spec.name == preset


def test_other_generations_keep_their_own_presets():
    # Qwen1.5 / Qwen2 / Baichuan2 / ChatGLM3 names must not fall onto the v1 presets
    for ref, preset in (("Qwen/Qwen1.5-7B-Chat", "qwen1.5-7b"), ("baichuan-inc/Baichuan2-7B-Chat", "baichuan2-7b-chat"),
                        ("THUDM/chatglm3-6b", "chatglm3-6b"), ("Qwen1.5-72B", "qwen1.5-72b")):
        got = identify_model(ref, network=False)
        assert got.spec is not None and got.spec.name == preset, (ref, got.detail)


def test_int4_name_keeps_its_quantization():
    got = identify_model("Qwen/Qwen-72B-Chat-Int4", network=False)
    assert got.quant_bits == 4


# ---- llama / mixtral presets: the count transformers builds on the meta device --------------------------------------

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _meta_total(config: dict) -> int:
    cfg = dict(config)
    model_type = cfg.pop("model_type")
    cfg.pop("architectures", None)
    hf_cfg = transformers.AutoConfig.for_model(model_type, **cfg)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf_cfg)
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize(("name", "card_b"), [
    ("codellama-7b", 6.74), ("codellama-13b", 13.02), ("codellama-34b", 33.74), ("codellama-70b", 68.98),
    ("mixtral-8x22b", 140.63), ("deepseek-llm-7b", 6.91), ("deepseek-coder-7b-v1.5", 6.91), ("salamandra-7b", 7.77),
    ("salamandra-2b", 2.25),
])
def test_meta_device_counts(name, card_b):
    spec = load_model(name)
    assert spec.params.total == _meta_total(spec.config)
    assert round(spec.params.total / 1e9, 2) == card_b


@pytest.mark.parametrize(("ref", "preset"), [
    ("codellama/CodeLlama-34b-hf", "codellama-34b"), ("codellama/CodeLlama-7b-Instruct-hf", "codellama-7b"),
    ("/data/codellama-7b-python", "codellama-7b"), ("TheBloke/CodeLlama-13B-Instruct-AWQ", "codellama-13b"),
    ("./Mixtral-8x22B", "mixtral-8x22b"), ("mistral-community/Mixtral-8x22B-v0.1", "mixtral-8x22b"),
    ("deepseek-ai/deepseek-llm-7b-chat", "deepseek-llm-7b"), ("/models/deepseek-llm-7b-base", "deepseek-llm-7b"),
    ("deepseek-ai/deepseek-coder-7b-instruct-v1.5", "deepseek-coder-7b-v1.5"),
    ("BSC-LT/salamandra-7b-instruct", "salamandra-7b"), ("/ckpt/salamandra-2b", "salamandra-2b"),
    # fine-tune families named without their base (profiles/finetune_bases.py)
    ("152334H/miqu-1-70b-sf", "llama-2-70b"), ("/data/miqu-1-70b", "llama-2-70b"), ("miqu-1-70b", "llama-2-70b"),
])
def test_more_names_reach_the_preset(ref, preset):
    got = identify_model(ref, network=False)
    assert got.how in ("preset", "name"), got.detail
    assert got.spec is not None and got.spec.name == preset


def test_finetune_base_needs_the_family_and_its_size():
    # the entry is the family at its size: another size or another family stays assumed
    for ref in ("miqu-2-70b", "miqu-1-8b", "/data/miqu-1-13b"):
        assert identify_model(ref, network=False).how == "assumed", ref
    assert identify_model("deepseek-ai/deepseek-coder-6.7b-instruct", network=False).how == "assumed"


def test_qwen3_6_27b_is_the_qwen3_5_27b_decoder():
    six, five = load_model("qwen3.6-27b"), load_model("qwen3.5-27b")
    assert six.params.total == five.params.total == _meta_total(six.config)
    for ref, quant in (("Qwen/Qwen3.6-27B", None), ("/models/Qwen3.6-27B", None), ("Qwen3.6-27B-FP8", "FP8")):
        got = identify_model(ref, network=False)
        assert got.spec is not None and got.spec.name == "qwen3.6-27b" and got.quant == quant, got.detail
    # no config source for a Qwen3.6 MoE here: it stays assumed
    assert identify_model("Qwen/Qwen3.6-35B-A3B", network=False).how == "assumed"
