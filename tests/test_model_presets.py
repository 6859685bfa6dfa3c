"""Model presets: published parameter totals, name index, lookups and the TUI's search."""

from __future__ import annotations

import pytest
import yaml

from rocm_tune.core.model import architecture as model_mod
from rocm_tune.core.errors import UserError
from rocm_tune.core.model.architecture import list_presets, load_model, search_presets
from rocm_tune.profiles.model_presets import INDEX_FILE, build_index, preset_files

PRESETS = {p.stem: yaml.safe_load(p.read_text()) for p in preset_files()}

REQUIRED = [
    "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b",
    "qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b", "qwen3-30b-a3b",
    "deepseek-r1-distill-qwen-1.5b", "deepseek-r1-distill-qwen-7b", "deepseek-r1-distill-qwen-14b",
    "deepseek-r1-distill-qwen-32b", "deepseek-r1-distill-llama-8b", "deepseek-r1-distill-llama-70b",
    "llama-3.1-8b", "llama-3.1-70b", "llama-3.2-1b", "llama-3.2-3b", "llama-3.3-70b", "mistral-7b-v0.3",
    "mixtral-8x7b", "gemma-2-2b", "gemma-2-9b", "gemma-2-27b", "gemma-3-1b", "gemma-3-4b", "gemma-3-12b",
    "gemma-3-27b", "phi-3-mini", "phi-4", "baichuan2-7b-chat", "baichuan2-13b-chat", "chatglm3-6b", "yi-6b",
    "yi-34b", "qwen1.5-moe-a2.7b", "qwen2-57b-a14b", "deepseek-v2-lite",
    # the base models real configs use (issue 19)
    "llama-7b", "llama-13b", "llama-30b", "llama-65b", "llama-2-7b", "llama-2-13b", "llama-2-70b", "mistral-7b-v0.1",
    "qwen1.5-0.5b", "qwen1.5-1.8b", "qwen1.5-4b", "qwen1.5-7b", "qwen1.5-14b", "qwen1.5-32b", "qwen1.5-72b",
    "qwen1.5-110b", "gpt-oss-20b", "gpt-oss-120b", "llama-4-scout", "llama-4-maverick", "qwen2.5-vl-3b",
    "qwen2.5-vl-7b", "qwen2.5-vl-72b", "kimi-vl-a3b", "pythia-70m", "pythia-160m", "pythia-410m", "pythia-1b",
    "pythia-1.4b", "pythia-2.8b", "pythia-6.9b", "pythia-12b",
]


def test_required_presets_present():
    names = list_presets()
    assert len(names) >= 30
    assert names == sorted(names, key=str.lower)
    missing = [n for n in REQUIRED if n not in names]
    assert not missing


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_file_is_well_formed_and_loads(name):
    data = PRESETS[name]
    assert data["name"] == name
    assert "/" in data["hub_id"]
    assert data["size_label"]
    cfg = data["config"]
    assert isinstance(cfg["model_type"], str) and cfg["architectures"]
    spec = load_model(name)
    assert spec.source == "preset"
    assert spec.location.endswith(f"{name}.yaml")
    assert spec.hub_id == data["hub_id"] and spec.size_label == data["size_label"]
    assert spec.warnings == ()
    # embeddings + lm_head + layers + final norm (RMSNorm; LayerNorm with bias for gpt_neox, gpt_neo, bert, opt) make the total
    p = spec.params
    # (the first ChatGLM-6B, the chatglm family with inner_hidden_size, has a LayerNorm with bias; ChatGLM2/3 RMSNorm)
    biased = spec.family in ("gpt_neox", "gpt_neo", "gpt2", "bert", "opt", "deberta-v2") \
        or spec.family == "chatglm" and "inner_hidden_size" in cfg
    final_norm = spec.hidden_size * (2 if biased else 1)
    if spec.family == "opt" and cfg.get("do_layer_norm_before") is False:   # OPT-350m: post-LN, no final norm
        final_norm = 0
    assert p.total == p.embed + p.lm_head + sum(p.per_layer) + final_norm + p.other
    assert len(p.per_layer) == spec.num_layers
    # every linear group adds up to the component totals
    by_kind = {}
    for g in spec.linears:
        by_kind[g.kind] = by_kind.get(g.kind, 0) + g.params
    sinks = spec.num_attention_heads * spec.num_layers if spec.family == "gpt_oss" else 0  # self_attn.sinks
    if spec.family in ("qwen3_5_text", "qwen3_5_moe_text"):  # each Gated DeltaNet layer's conv1d, dt_bias, A_log
        c = data["config"]
        n_linear = sum(k == "linear_attention" for k in c["layer_types"])
        conv = 2 * c["linear_num_key_heads"] * c["linear_key_head_dim"] \
            + c["linear_num_value_heads"] * c["linear_value_head_dim"]
        sinks = n_linear * (conv * c["linear_conv_kernel_dim"] + 2 * c["linear_num_value_heads"])
    if spec.family == "mllama_text":     # each cross-attention layer's two tanh gates (one scalar each)
        sinks = 2 * len(data["config"]["cross_attention_layers"])
    assert by_kind.get("attn", 0) + sinks == spec.params.attention
    assert by_kind.get("mlp", 0) == spec.params.mlp
    assert by_kind.get("expert", 0) == spec.params.experts
    assert by_kind.get("shared_expert", 0) == spec.params.shared_experts
    assert by_kind.get("router", 0) == spec.params.router


@pytest.mark.parametrize("name", sorted(n for n, d in PRESETS.items() if d.get("params_published")))
def test_preset_total_equals_published_parameter_count(name):
    assert load_model(name).params.total == PRESETS[name]["params_published"]


@pytest.mark.parametrize("name", sorted(n for n, d in PRESETS.items() if d.get("params_checkpoint")))
def test_tied_preset_whose_checkpoint_also_stores_lm_head(name):
    spec = load_model(name)
    assert spec.tie_word_embeddings and spec.params.lm_head == 0
    assert spec.params.total + spec.vocab_size * spec.hidden_size == PRESETS[name]["params_checkpoint"]


@pytest.mark.parametrize(
    "ref,total",
    [
        ("qwen2.5-7b", 7_615_616_512),
        ("llama-3.1-8b", 8_030_261_248),
        ("baichuan2-7b-chat", 7_505_973_248),
        ("chatglm3-6b", 6_243_584_000),
        ("mixtral-8x7b", 46_702_792_704),
    ],
)
def test_headline_published_counts(ref, total):
    assert load_model(ref).params.total == total


def test_baichuan2_13b_about_13_9b_and_remote_code_structure():
    spec = load_model("baichuan2-13b-chat")
    assert 13.85e9 < spec.params.total < 13.95e9
    groups = {g.name: g for g in spec.linears}
    assert set(groups) == {"W_pack", "o_proj", "gate_proj", "up_proj", "down_proj"}
    assert (groups["W_pack"].in_features, groups["W_pack"].out_features, groups["W_pack"].bias) == (5120, 15360, False)
    assert spec.params.lm_head == spec.params.embed  # NormHead: untied [vocab, hidden]


def test_chatglm3_remote_code_structure():
    spec = load_model("chatglm3-6b")
    g = {x.name: x for x in spec.linears}
    assert set(g) == {"query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"}
    # MQA with 2 groups: 32*128 + 2*2*128 = 4608 outputs, qkv bias only
    assert (g["query_key_value"].out_features, g["query_key_value"].bias) == (4608, True)
    assert (g["dense_h_to_4h"].out_features, g["dense_h_to_4h"].bias) == (27392, False)
    assert g["dense_4h_to_h"].in_features == 13696
    assert all(x.layers == 28 for x in spec.linears)
    assert spec.num_kv_heads == 2 and spec.head_dim == 128 and not spec.tie_word_embeddings


def test_internlm2_remote_code_structure():
    spec = load_model("internlm/internlm2_5-7b-chat")
    g = {x.name: x for x in spec.linears}
    assert list(g) == ["wqkv", "wo", "w1", "w3", "w2"]
    assert g["wqkv"].out_features == (32 + 2 * 8) * 128 and not g["wqkv"].bias
    assert spec.params.lm_head == spec.params.embed


def test_chatglm_layernorm_and_bias_variant():
    base = dict(load_model("chatglm3-6b").config)
    spec = model_mod.model_from_config({**base, "rmsnorm": False, "add_bias_linear": True, "num_layers": 2})
    h, ffn = 4096, 13696
    qkv = h * 4608 + 4608
    dense = h * h + h
    mlp = h * 2 * ffn + 2 * ffn + ffn * h + h
    norms = 2 * 2 * h
    assert spec.params.per_layer == (qkv + dense + mlp + norms,) * 2
    assert spec.params.norms == 2 * norms + 2 * h  # LayerNorm weight + bias, final_layernorm too


def test_moe_active_parameters_match_published_active_counts():
    def billions(ref):  # published figures truncate to one decimal
        return int(load_model(ref).active_params / 1e8) / 10

    assert billions("mixtral-8x7b") == 12.8  # 12.88B ("12.9B" rounded)
    assert billions("qwen3-30b-a3b") == 3.3
    lite = load_model("deepseek-v2-lite")  # DeepSeek's "2.4B activated" leaves out the input embedding
    assert int((lite.active_params - lite.params.embed) / 1e8) / 10 == 2.4
    assert int(load_model("deepseek-v3").active_params / 1e9) == 37
    assert int(load_model("qwen2-57b-a14b").active_params / 1e9) == 14
    assert billions("qwen1.5-moe-a2.7b") == 2.6  # 2.69B ("A2.7B")
    dense = load_model("qwen2.5-7b")
    assert dense.active_params == dense.params.total and not dense.is_moe


def test_deepseek_v2_lite_structure():
    spec = load_model("deepseek-v2-lite")
    assert spec.num_experts == 64 and spec.num_experts_per_tok == 6 and spec.num_shared_experts == 2
    assert spec.moe_layers == 26  # first_k_dense_replace = 1 of 27
    names = [g.name for g in spec.linears if g.kind == "attn"]
    assert names == ["q_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"]  # q_lora_rank null
    dense_mlp = [g for g in spec.linears if g.kind == "mlp"]
    assert all(g.layers == 1 for g in dense_mlp)
    assert spec.params.per_layer[0] != spec.params.per_layer[1]


def test_index_is_up_to_date():
    on_disk = yaml.safe_load(INDEX_FILE.read_text())
    assert on_disk == build_index(), "run: python -m rocm_tune.profiles.model_presets"


@pytest.mark.parametrize(
    "ref,name",
    [
        ("QWEN2.5-7B", "qwen2.5-7b"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
        ("qwen/qwen2.5-7b-instruct", "qwen2.5-7b"),
        ("Qwen/Qwen2.5-7B", "qwen2.5-7b"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"),
        ("llama3.1-8b", "llama-3.1-8b"),
        ("THUDM/chatglm3-6b", "chatglm3-6b"),
        ("  gemma-2-9b ", "gemma-2-9b"),
    ],
)
def test_lookup_by_name_alias_and_hub_id(ref, name):
    spec = load_model(ref)
    assert spec.name == name and spec.source == "preset"


def test_preset_load_parses_only_the_index_and_one_file(monkeypatch):
    calls = []
    real = model_mod._yaml_load
    monkeypatch.setattr(model_mod, "_INDEX", None)
    monkeypatch.setattr(model_mod, "_PRESET_CACHE", {})
    monkeypatch.setattr(model_mod, "_yaml_load", lambda text: calls.append(len(text)) or real(text))
    load_model("qwen2.5-7b")
    assert len(calls) == 2  # _index.yaml + qwen2.5-7b.yaml
    load_model("Qwen/Qwen2.5-7B-Instruct")
    assert len(calls) == 2  # cached


def test_stale_index_falls_back_to_scanning(monkeypatch, tmp_path):
    d = tmp_path / "models"
    d.mkdir()
    (d / "tiny.yaml").write_text(yaml.safe_dump({"name": "tiny", "hub_id": "me/tiny", "size_label": "1M", "config": {
        "model_type": "llama", "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
        "num_attention_heads": 4, "vocab_size": 100}}))
    (d / "_index.yaml").write_text("gone: missing.yaml\n")
    monkeypatch.setattr(model_mod, "_PRESET_DIR", d)
    monkeypatch.setattr(model_mod, "_INDEX", None)
    monkeypatch.setattr(model_mod, "_PRESET_CACHE", {})
    assert list_presets() == ["tiny"]
    assert load_model("me/tiny").name == "tiny"


def test_search_presets_by_size_family_and_moe():
    seven = [s.name for s in search_presets("7b")]
    assert "qwen2.5-7b" in seven and "mistral-7b-v0.3" in seven and "deepseek-r1-distill-qwen-7b" in seven
    assert "gemma-2-27b" not in seven and "qwen2.5-72b" not in seven
    q3 = search_presets("qwen3")
    assert {s.name for s in q3} == {n for n in list_presets() if n.startswith("qwen3")}
    # grouped by series (qwen3, qwen3-coder, qwen3-vl, qwen3.5), by size within a series
    plain = [s for s in q3 if not s.name.startswith(("qwen3-vl", "qwen3-coder", "qwen3.5", "qwen3.6"))]
    assert [s.params.total for s in plain] == sorted(s.params.total for s in plain)
    q35 = [s.name for s in q3 if s.name.startswith("qwen3.5")]
    assert q35 == ["qwen3.5-0.8b", "qwen3.5-2b", "qwen3.5-4b", "qwen3.5-9b", "qwen3.5-27b", "qwen3.5-35b-a3b"]
    vl = [s.name for s in q3 if s.name.startswith("qwen3-vl")]
    assert vl == ["qwen3-vl-2b", "qwen3-vl-4b", "qwen3-vl-8b", "qwen3-vl-30b-a3b", "qwen3-vl-32b"]
    moe = search_presets("moe")
    assert moe and all(s.is_moe for s in moe)
    assert {"mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v2-lite"} <= {s.name for s in moe}
    assert [s.name for s in search_presets("Llama 70B")] == [
        "codellama-70b", "deepseek-r1-distill-llama-70b", "llama-2-70b", "llama-3-70b", "llama-3.1-70b", "llama-3.3-70b"]
    assert [s.name for s in search_presets("0.5b")] == ["qwen1.5-0.5b", "qwen2.5-0.5b"]
    assert search_presets("no-such-model-xyz") == []
    assert len(search_presets("")) == len(list_presets())


def test_unknown_preset_suggests_close_names():
    # "qwen2.5-8" is no released Qwen2.5 size (a bare "qwen2.5-7" is: it names qwen2.5-7b, tests/
    # test_check_model_bare_size.py), so it stays unknown with the close names suggested
    with pytest.raises(UserError) as e:
        load_model("qwen2.5-8")
    msg = str(e.value)
    assert "'qwen2.5-8'" in msg and "qwen2.5-7b" in msg and "\n" not in msg
    assert load_model("qwen2.5-7").name == "qwen2.5-7b"
    with pytest.raises(UserError, match="presets include"):
        load_model("zzzz")


@pytest.mark.parametrize("name", sorted(n for n, d in PRESETS.items() if d.get("params_published_multimodal")))
def test_gemma3_text_part_plus_vision_tower_equals_published_multimodal_total(name):
    """Gemma 3 4B/12B/27B share one SigLIP vision tower; text decoder + tower + projector = the published total."""
    spec = load_model(name)
    siglip_so400m_896 = 416_866_032  # same vision encoder in every size
    projector = 1152 * spec.hidden_size + 1152  # mm_input_projection_weight + mm_soft_emb_norm
    assert spec.params.total + siglip_so400m_896 + projector == PRESETS[name]["params_published_multimodal"]


@pytest.mark.parametrize("last_component,name", [
    # the last path component of model_name_or_path in real configs (/root/data3/Qwen2.5-VL-7B-Instruct, ...)
    ("Llama-2-7b-hf", "llama-2-7b"), ("Llama-2-13b-chat-hf", "llama-2-13b"), ("llama-7b", "llama-7b"),
    ("llama-30b", "llama-30b"), ("llama-33b", "llama-30b"), ("Qwen1.5-7B-Chat", "qwen1.5-7b"),
    ("Qwen1.5-110B-Chat", "qwen1.5-110b"), ("Qwen1.5-0.5B", "qwen1.5-0.5b"), ("Mistral-7B-v0.1", "mistral-7b-v0.1"),
    ("Mistral-7B-Instruct-v0.1", "mistral-7b-v0.1"), ("Qwen2.5-VL-7B-Instruct", "qwen2.5-vl-7b"),
    ("Qwen2.5-VL-72B-Instruct", "qwen2.5-vl-72b"), ("pythia-2.8b-deduped", "pythia-2.8b"), ("pythia-12b", "pythia-12b"),
    ("gpt-oss-20b", "gpt-oss-20b"), ("gpt-oss-120b", "gpt-oss-120b"), ("Llama-4-Scout-17B-16E-Instruct", "llama-4-scout"),
    ("Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick"), ("Kimi-VL-A3B-Instruct", "kimi-vl-a3b"),
    ("Kimi-VL-A3B-Thinking", "kimi-vl-a3b"),
])
def test_names_real_configs_use_resolve(last_component, name):
    assert load_model(last_component).name == name


def test_vision_language_presets_say_only_the_language_model_is_counted():
    for name in ("llama-4-scout", "llama-4-maverick", "kimi-vl-a3b"):
        spec = load_model(name)
        assert any("only the language model is counted" in n for n in spec.notes), name
        assert any("only the language model is counted" in n for n in spec.to_dict()["notes"])
    # Qwen2.5-VL presets carry the published vision_config: the tower is counted beside the language model
    for name in ("qwen2.5-vl-3b", "qwen2.5-vl-7b", "qwen2.5-vl-32b", "qwen2.5-vl-72b"):
        spec = load_model(name)
        assert spec.vision is not None and spec.vision.out_hidden == spec.hidden_size, name
        assert not any("only the language model is counted" in n for n in spec.notes), name
        assert any("the vision tower (32 ViT blocks + merger" in n for n in spec.to_dict()["notes"]), name
    assert load_model("qwen2.5-7b").notes == ()
    # Qwen2.5-VL's language model is the Qwen2.5 decoder of the same size
    assert load_model("qwen2.5-vl-7b").params.total == load_model("qwen2.5-7b").params.total
    assert load_model("qwen2.5-vl-72b").params.total == load_model("qwen2.5-72b").params.total


def test_new_architectures_published_shapes():
    oss = load_model("gpt-oss-20b")
    assert oss.num_experts == 32 and oss.num_experts_per_tok == 4 and oss.moe_layers == 24
    # OpenAI's "3.6B active" / "5.1B active" leave out the embedding
    assert round((oss.active_params - oss.params.embed) / 1e9, 1) == 3.6
    big = load_model("gpt-oss-120b")
    assert round((big.active_params - big.params.embed) / 1e9, 1) == 5.1
    scout, maverick = load_model("llama-4-scout"), load_model("llama-4-maverick")
    assert scout.moe_layers == 48 and maverick.moe_layers == 24
    assert int(scout.active_params / 1e9) == int(maverick.active_params / 1e9) == 17  # "17B active"
    assert int(maverick.params.total / 1e9) == 400
    neox = load_model("pythia-6.9b")
    assert {g.name for g in neox.linears} == {"query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"}
    assert all(g.bias for g in neox.linears) and not neox.gated_mlp


def test_plan_says_a_vlm_preset_counts_its_vision_tower(capsys):
    import json

    from rocm_tune.cli import main

    rc = main(["plan", "--model", "/root/data3/Qwen2.5-VL-7B-Instruct".rsplit("/", 1)[1], "--gpu", "NVIDIA RTX A6000",
               "--gpus", "2", "--json"])
    plan = json.loads(capsys.readouterr().out)
    assert rc in (0, 1) and plan["model"]["name"] == "qwen2.5-vl-7b"
    assert any("the vision tower (32 ViT blocks + merger, 677M params)" in r for r in plan["reasons"])
    main(["plan", "--model", "qwen2.5-7b", "--gpu", "NVIDIA RTX A6000", "--gpus", "2", "--json"])
    assert not any("vision" in r for r in json.loads(capsys.readouterr().out)["reasons"])


@pytest.mark.parametrize("name", sorted(n for n, d in PRESETS.items() if d.get("params_verified")))
def test_preset_total_equals_the_count_verified_on_the_meta_device(name):
    """Presets of issue 26 record the total rocm-tune and transformers (meta device, test_model_counts) both count."""
    assert load_model(name).params.total == PRESETS[name]["params_verified"]


def test_presets_people_fine_tune_in_2025_2026_resolve_by_their_hub_names():
    for ref, name in [("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b"),
                      ("meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b"),
                      ("mistralai/Mistral-Nemo-Instruct-2407", "mistral-nemo-12b"),
                      ("mistralai/Mistral-Small-24B-Instruct-2501", "mistral-small-24b"),
                      ("microsoft/Phi-4-mini-instruct", "phi-4-mini"), ("THUDM/GLM-4-9B-0414", "glm-4-9b-0414"),
                      ("internlm/internlm3-8b-instruct", "internlm3-8b"), ("01-ai/Yi-1.5-9B-Chat", "yi-1.5-9b"),
                      ("Qwen/Qwen3-VL-8B-Instruct", "qwen3-vl-8b"), ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen2.5-32b"),
                      ("Qwen/QwQ-32B", "qwen2.5-32b"), ("Qwen/Qwen2-72B-Instruct", "qwen2.5-72b")]:
        assert load_model(ref).name == name, ref
    big = load_model("qwen3-235b-a22b")
    assert round(big.params.total / 1e9) == 235 and round(big.active_params / 1e9) == 22      # "235B-A22B"
    assert load_model("qwen3-vl-8b").params.total == load_model("qwen3-8b").params.total      # Qwen3-8B decoder
    assert any("only the language model" in n for n in load_model("mistral-small-3.1-24b").notes)


@pytest.mark.parametrize("name", ["qwen3-vl-2b", "qwen3-vl-8b", "qwen3-vl-30b-a3b"])
def test_qwen3_vl_counts_the_language_model_of_the_real_class(name):
    """The Qwen3-VL presets keep the published text_config; the real VLM class (meta device, a tiny vision tower)
    holds exactly that many parameters in its language model and lm_head."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    tc = {k: v for k, v in PRESETS[name]["config"].items() if k not in ("architectures", "model_type")}
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2,
              "out_hidden_size": tc["hidden_size"], "deepstack_visual_indexes": [0]}
    moe = "num_experts" in tc
    config_cls = transformers.Qwen3VLMoeConfig if moe else transformers.Qwen3VLConfig
    model_cls = transformers.Qwen3VLMoeForConditionalGeneration if moe else transformers.Qwen3VLForConditionalGeneration
    cfg = config_cls(text_config=tc, vision_config=vision, tie_word_embeddings=tc["tie_word_embeddings"])
    with torch.device("meta"):
        vlm = model_cls(cfg)
    params = {id(p): p.numel() for p in [*vlm.model.language_model.parameters(), *vlm.lm_head.parameters()]}
    assert sum(params.values()) == load_model(name).params.total
