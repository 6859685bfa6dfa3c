"""Parameter counts of rocm_tune.core.model.architecture equal what transformers instantiates (meta device, no memory)."""

from __future__ import annotations

import pytest

from rocm_tune.core.model.architecture import model_from_config

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def meta_counts(config: dict) -> dict:
    """Instantiate the transformers model for `config` on the meta device; return component sums."""
    cfg = dict(config)
    model_type = cfg.pop("model_type")
    for k in ("pad_token_id", "bos_token_id", "eos_token_id"):
        cfg.setdefault(k, 0)  # defaults like phi3's pad 32000 do not fit tiny vocabularies
    hf_cfg = transformers.AutoConfig.for_model(model_type, **cfg)
    with torch.device("meta"):
        if model_type == "mllama_text_model":          # Llama 3.2 Vision's decoder: no AutoModelForCausalLM entry
            model = transformers.MllamaForCausalLM(hf_cfg)
        else:
            model = transformers.AutoModelForCausalLM.from_config(hf_cfg)
    out = {"total": 0, "embed": 0, "lm_head": 0, "norms": 0, "layers": {}, "linears": {}}
    seen = set()
    for name, p in model.named_parameters():  # named_parameters skips tied duplicates
        if id(p) in seen:
            continue
        seen.add(id(p))
        n = p.numel()
        out["total"] += n
        layered = ".layers." in name or ".h." in name          # GPT-Neo: transformer.h.<i>
        if "embed_tokens" in name or name.endswith(("embed_in.weight", "wte.weight")):
            out["embed"] += n
        elif name.startswith(("lm_head", "embed_out")):
            out["lm_head"] += n
        if "norm" in name or ".ln_" in name:                   # GPT-Neo: ln_1 / ln_2 / ln_f
            out["norms"] += n
        elif layered:
            ffn = ".mlp." in name or ".feed_forward." in name  # llama4 calls its MLP/MoE block feed_forward
            ffn = ffn or name.rsplit(".", 2)[-2] in ("fc1", "fc2")    # OPT: fc1 / fc2 directly in the layer
            if "shared_expert" in name:
                comp = "shared_experts"
            elif ffn and ".experts." in name:
                comp = "experts"
            elif ffn and (".gate." in name or ".router." in name):
                comp = "router"
            elif ffn:
                comp = "mlp"
            elif ".self_attn." in name or ".attention." in name or ".linear_attn." in name or ".attn." in name \
                    or ".cross_attn" in name:                  # mllama's cross_attn.* and cross_attn_*_gate
                # gpt_neox: attention.query_key_value; Qwen3.5's Gated DeltaNet layers: linear_attn
                comp = "attention"
            else:
                comp = "other"
            out[comp] = out.get(comp, 0) + n
        if layered:
            idx = int(name.split(".layers." if ".layers." in name else ".h.")[1].split(".")[0])
            out["layers"][idx] = out["layers"].get(idx, 0) + n
    for name, mod in model.named_modules():
        # GPT-2's projections are transformers' Conv1D (a transposed Linear), which PEFT wraps as it does nn.Linear
        conv1d = getattr(transformers.pytorch_utils, "Conv1D", ())
        if isinstance(mod, (torch.nn.Linear, conv1d)) and (".layers." in name or ".h." in name):
            short = name.rsplit(".", 1)[1]
            out["linears"][short] = out["linears"].get(short, 0) + 1
    return out


def check(config: dict):
    spec = model_from_config(config)
    ref = meta_counts(config)
    assert spec.params.total == ref["total"]
    assert spec.params.embed == ref["embed"]
    assert spec.params.lm_head == ref["lm_head"]
    assert spec.params.norms == ref["norms"]
    for comp in ("attention", "mlp", "experts", "shared_experts", "router"):
        assert getattr(spec.params, comp) == ref.get(comp, 0), comp
    assert ref.get("other", 0) == 0
    assert spec.params.per_layer == tuple(ref["layers"][i] for i in range(spec.num_layers))
    # every nn.Linear in the decoder layers is listed under its PEFT name
    listed = {}
    for g in spec.linears:
        if g.kind in ("expert", "router"):
            continue  # fused parameters / non-Linear router in transformers 5
        listed[g.name] = listed.get(g.name, 0) + g.count * g.layers
    routers = {g.name for g in spec.linears if g.kind == "router"}  # llama4's router is an nn.Linear subclass
    assert listed == {k: v for k, v in ref["linears"].items() if k not in routers}
    return spec


SMALL = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4,
             "num_key_value_heads": 2, "vocab_size": 128, "max_position_embeddings": 256}


@pytest.mark.parametrize("tie", [False, True])
def test_llama_small(tie):
    check({"model_type": "llama", **SMALL, "tie_word_embeddings": tie})


def test_llama_bias_and_head_dim():
    check({"model_type": "llama", **SMALL, "attention_bias": True, "mlp_bias": True, "head_dim": 24})


def test_qwen2_small():
    spec = check({"model_type": "qwen2", **SMALL})
    assert {g.name: g.bias for g in spec.linears}["q_proj"] is True


MOE = {"moe_intermediate_size": 32, "num_experts_per_tok": 2}


@pytest.mark.parametrize(
    "config",
    [
        pytest.param({"model_type": "mistral", **SMALL}, id="mistral"),
        pytest.param({"model_type": "mistral", **SMALL, "head_dim": 32}, id="mistral-head_dim"),
        pytest.param({"model_type": "mixtral", **SMALL, "num_local_experts": 4, "num_experts_per_tok": 2}, id="mixtral"),
        pytest.param({"model_type": "qwen2", **SMALL, "tie_word_embeddings": True, "num_key_value_heads": 1}, id="qwen2-mqa-tied"),
        pytest.param({"model_type": "qwen2_moe", **SMALL, **MOE, "num_experts": 4, "shared_expert_intermediate_size": 48,
                      "decoder_sparse_step": 2, "mlp_only_layers": [2], "num_hidden_layers": 5}, id="qwen2_moe-sparse"),
        pytest.param({"model_type": "qwen2_moe", **SMALL, **MOE, "num_experts": 4, "shared_expert_intermediate_size": 48}, id="qwen2_moe"),
        pytest.param({"model_type": "qwen3", **SMALL, "head_dim": 32}, id="qwen3"),
        pytest.param({"model_type": "qwen3", **SMALL, "head_dim": 16, "attention_bias": True, "tie_word_embeddings": True}, id="qwen3-bias-tied"),
        pytest.param({"model_type": "qwen3_moe", **SMALL, **MOE, "num_experts": 6, "head_dim": 16,
                      "decoder_sparse_step": 1, "mlp_only_layers": [0]}, id="qwen3_moe"),
        pytest.param({"model_type": "gemma", **SMALL, "head_dim": 32}, id="gemma"),
        pytest.param({"model_type": "gemma2", **SMALL, "head_dim": 32}, id="gemma2"),
        pytest.param({"model_type": "gemma3_text", **SMALL, "head_dim": 32}, id="gemma3_text"),
        pytest.param({"model_type": "phi3", **SMALL}, id="phi3"),
        pytest.param({"model_type": "phi3", **SMALL, "num_key_value_heads": 4, "tie_word_embeddings": True}, id="phi3-mha-tied"),
        pytest.param({"model_type": "deepseek_v2", **SMALL, **MOE, "n_routed_experts": 4, "n_shared_experts": 2,
                      "first_k_dense_replace": 1, "q_lora_rank": None, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
                      "qk_rope_head_dim": 4, "v_head_dim": 8, "num_key_value_heads": 4}, id="deepseek_v2-lite"),
        pytest.param({"model_type": "deepseek_v2", **SMALL, **MOE, "n_routed_experts": 4, "n_shared_experts": 1,
                      "first_k_dense_replace": 0, "q_lora_rank": 24, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
                      "qk_rope_head_dim": 4, "v_head_dim": 12, "num_key_value_heads": 4, "num_hidden_layers": 4,
                      "moe_layer_freq": 2}, id="deepseek_v2-q_lora-freq"),
        pytest.param({"model_type": "deepseek_v3", **SMALL, **MOE, "n_routed_experts": 4, "n_shared_experts": 1,
                      "first_k_dense_replace": 1, "q_lora_rank": 24, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
                      "qk_rope_head_dim": 4, "v_head_dim": 8, "num_key_value_heads": 4, "n_group": 1, "topk_group": 1},
                     id="deepseek_v3"),
        pytest.param({"model_type": "glm", **SMALL}, id="glm"),
        pytest.param({"model_type": "glm4", **SMALL, "head_dim": 16, "attention_bias": False}, id="glm4"),
        pytest.param({"model_type": "gemma", **SMALL, "head_dim": 16, "num_key_value_heads": 1}, id="gemma-mqa"),
        pytest.param({"model_type": "granite", **SMALL, "attention_bias": True, "mlp_bias": True}, id="granite-bias"),
        pytest.param({"model_type": "olmo2", **SMALL}, id="olmo2"),
        pytest.param({"model_type": "starcoder2", **SMALL}, id="starcoder2"),
        pytest.param({"model_type": "starcoder2", **SMALL, "use_bias": False, "tie_word_embeddings": False}, id="starcoder2-nobias"),
        pytest.param({"model_type": "phi", **SMALL}, id="phi"),
        pytest.param({"model_type": "phi", **SMALL, "qk_layernorm": True, "tie_word_embeddings": True}, id="phi-qk_layernorm"),
        pytest.param({"model_type": "cohere", **SMALL}, id="cohere"),
        pytest.param({"model_type": "cohere", **SMALL, "use_qk_norm": True, "num_key_value_heads": 4}, id="cohere-qk_norm"),
        pytest.param({"model_type": "gpt_oss", **SMALL, "head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 2,
                      "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]}, id="gpt_oss"),
        pytest.param({"model_type": "gpt_oss", **SMALL, "head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 2,
                      "attention_bias": False, "tie_word_embeddings": True,
                      "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]}, id="gpt_oss-nobias-tied"),
        pytest.param({"model_type": "llama4_text", **SMALL, "head_dim": 16, "intermediate_size": 32,
                      "intermediate_size_mlp": 80, "num_local_experts": 4, "num_experts_per_tok": 1,
                      "interleave_moe_layer_step": 1, "no_rope_layers": [1, 1, 0]}, id="llama4_text-all-moe"),
        pytest.param({"model_type": "llama4_text", **SMALL, "head_dim": 16, "intermediate_size": 32,
                      "intermediate_size_mlp": 80, "num_local_experts": 4, "num_experts_per_tok": 1,
                      "interleave_moe_layer_step": 2, "num_hidden_layers": 4, "no_rope_layers": [1, 1, 1, 0]},
                     id="llama4_text-interleave-2"),
        pytest.param({"model_type": "gpt_neox", **SMALL, "num_key_value_heads": 4, "rotary_pct": 0.25,
                      "use_parallel_residual": True}, id="gpt_neox"),
        pytest.param({"model_type": "gpt_neox", **SMALL, "num_key_value_heads": 4, "use_parallel_residual": False,
                      "tie_word_embeddings": True}, id="gpt_neox-serial-tied"),
    ],
)
def test_family_small(config):
    spec = check(config)
    assert not [w for w in spec.warnings if "unknown" in w]
    assert spec.family == config["model_type"]


def _preset_configs():
    import yaml

    from rocm_tune.profiles.model_presets import preset_files

    out = []
    for path in preset_files():
        data = yaml.safe_load(path.read_text())
        out.append(pytest.param(data, id=data["name"]))
    return out


@pytest.mark.parametrize("preset", _preset_configs())
def test_real_size_preset_equals_transformers(preset):
    """Every preset (real sizes, 0.5B..671B) counted exactly as transformers builds it, component by component."""
    if "auto_map" in preset["config"]:
        pytest.skip("remote-code model (baichuan, chatglm, internlm2), not in transformers: "
                    "checked against published totals in test_model_presets")
    config = preset["config"]
    if config["model_type"] in ("bert", "t5", "deberta-v2"):
        pytest.skip("an encoder / encoder-decoder, no causal-LM class: counted against BertForPreTraining, "
                    "T5ForConditionalGeneration and DebertaV2ForMaskedLM in "
                    "test_encoder_presets_equal_their_transformers_class / test_deberta_presets_equal_their_mlm_class")
    if config["model_type"] in ("qwen2_vl_text", "qwen2_5_vl_text", "qwen3_vl_text", "qwen3_vl_moe_text"):
        # no causal-LM class of its own in transformers; it is the Qwen2 (Qwen3) decoder
        # (test_qwen2_5_vl_counts_the_language_model_of_the_real_class, for Qwen2-VL
        # tests/test_vision_tower.py test_qwen2_vl_presets_..., for Qwen3-VL tests/test_model_presets_2025.py prove it
        # on the real VLM class)
        config = {**config, "model_type": {"qwen2_vl_text": "qwen2", "qwen2_5_vl_text": "qwen2", "qwen3_vl_text": "qwen3",
                                          "qwen3_vl_moe_text": "qwen3_moe"}[config["model_type"]]}
    if isinstance(config.get("attn_temperature_tuning"), int):
        # Scout's published 4 is a truthy flag; transformers 5's strict config wants a bool (no effect on counts)
        config = {**config, "attn_temperature_tuning": bool(config["attn_temperature_tuning"])}
    if config["model_type"] == "glm_moe_dsa":
        # GLM-5's DeepSeek sparse attention adds a lightning indexer per layer (its own small q/k projections and
        # head weights) that check does not count (said with the preset: counted as DeepSeek-V3); everything else
        # is transformers' exactly
        _glm_dsa_is_deepseek_v3_without_the_indexer(config)
        return
    spec = check(config)
    assert spec.params.total > 60_000_000


def _glm_dsa_is_deepseek_v3_without_the_indexer(config: dict) -> None:
    cfg = dict(config)
    hf_cfg = transformers.AutoConfig.for_model(cfg.pop("model_type"), **cfg)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf_cfg)
    total = sum(p.numel() for p in model.parameters())
    indexer = sum(p.numel() for n, p in model.named_parameters() if ".indexer." in n)
    assert 0 < indexer < 0.002 * total
    assert model_from_config(config).params.total == total - indexer


def test_gemma3_multimodal_config_counts_text_decoder():
    """A Gemma 3 multimodal config.json (model_type gemma3 + text_config): the spec is the text decoder."""
    text = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4,
            "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 300, "model_type": "gemma3_text"}
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "image_size": 28, "patch_size": 14, "model_type": "siglip_vision_model"}
    cfg = {"model_type": "gemma3", "architectures": ["Gemma3ForConditionalGeneration"], "text_config": text,
           "vision_config": vision, "mm_tokens_per_image": 4, "boi_token_index": 1, "eoi_token_index": 2,
           "image_token_index": 3, "torch_dtype": "bfloat16"}
    spec = model_from_config(cfg)
    assert spec.family == "gemma3_text"
    assert spec.torch_dtype == "bfloat16"
    assert any("text decoder only" in w for w in spec.warnings)
    hf_cfg = transformers.Gemma3Config(text_config=text, vision_config=vision, mm_tokens_per_image=4,
                                       boi_token_index=1, eoi_token_index=2, image_token_index=3)
    with torch.device("meta"):
        full = transformers.Gemma3ForConditionalGeneration(hf_cfg)
    lm = full.model.language_model
    assert spec.params.total == sum(p.numel() for p in lm.parameters())
    assert full.lm_head.weight is lm.embed_tokens.weight  # tied: no extra lm_head parameters
    assert spec.params.lm_head == 0


def test_deepseek_moe_layer_freq_warns():
    cfg = {"model_type": "deepseek_v2", **SMALL, **MOE, "n_routed_experts": 4, "n_shared_experts": 1,
           "first_k_dense_replace": 0, "q_lora_rank": None, "kv_lora_rank": 16, "qk_nope_head_dim": 8,
           "qk_rope_head_dim": 4, "v_head_dim": 8, "num_key_value_heads": 4, "moe_layer_freq": 2}
    spec = check(cfg)
    assert spec.moe_layers == 3
    assert any("moe_layer_freq=2" in w for w in spec.warnings)


def test_unknown_family_falls_back_to_generic_decoder_with_warning():
    cfg = {"model_type": "my_new_llm", **SMALL}
    spec = model_from_config(cfg)
    assert spec.family == "my_new_llm"
    assert any("unknown model_type 'my_new_llm'" in w for w in spec.warnings)
    # the generic decoder counts like a Llama with the same sizes
    llama = check({**cfg, "model_type": "llama"})
    assert spec.params.total == llama.params.total
    assert [g.name for g in spec.linears] == [g.name for g in llama.linears]


def test_generic_decoder_reads_gpt_style_key_names():
    spec = model_from_config({"model_type": "oddball", "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 100})
    assert (spec.hidden_size, spec.num_layers, spec.num_attention_heads, spec.intermediate_size) == (64, 2, 4, 256)
    assert spec.warnings


VLM_TEXT = {**SMALL, "head_dim": 16}


@pytest.mark.parametrize("layout", ["top-level", "text_config"])
def test_qwen2_5_vl_counts_the_language_model_of_the_real_class(layout):
    """Qwen2.5-VL's published config.json keeps the language model's keys at the top level; newer saves nest
    them under text_config. Either way the count is the language model of Qwen2_5_VLForConditionalGeneration."""
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "out_hidden_size": 64,
              "fullatt_block_indexes": [0], "window_size": 28, "patch_size": 14, "spatial_merge_size": 2,
              "temporal_patch_size": 2}
    text = {k: v for k, v in SMALL.items()}
    if layout == "top-level":
        cfg = {"model_type": "qwen2_5_vl", "architectures": ["Qwen2_5_VLForConditionalGeneration"], **text,
               "vision_config": vision, "torch_dtype": "bfloat16"}
    else:
        cfg = {"model_type": "qwen2_5_vl", "architectures": ["Qwen2_5_VLForConditionalGeneration"],
               "text_config": {**text, "model_type": "qwen2_5_vl_text"}, "vision_config": vision}
    spec = model_from_config(cfg)
    assert spec.family == "qwen2"
    assert any("the vision tower (1 ViT blocks + merger" in n for n in spec.notes)
    hf = transformers.Qwen2_5_VLConfig(text_config=text, vision_config=vision)
    with torch.device("meta"):
        full = transformers.Qwen2_5_VLForConditionalGeneration(hf)
    lm = full.model.language_model
    lm_params = sum(p.numel() for p in lm.parameters()) + full.lm_head.weight.numel()
    assert spec.params.total == lm_params
    # the vision tower (ViT + merger) is counted apart, exactly as the real class holds it
    assert spec.vision.params == sum(p.numel() for p in full.model.visual.parameters())
    assert sum(p.numel() for p in full.parameters()) > spec.params.total  # the vision tower is really left out


def test_llama4_multimodal_config_counts_the_text_model():
    text = {**VLM_TEXT, "model_type": "llama4_text", "intermediate_size": 32, "intermediate_size_mlp": 80,
            "num_local_experts": 4, "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "num_hidden_layers": 4,
            "no_rope_layers": [1, 1, 1, 0]}
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
              "image_size": 28, "patch_size": 14, "vision_output_dim": 32, "projector_input_dim": 32,
              "projector_output_dim": 32}
    cfg = {"model_type": "llama4", "architectures": ["Llama4ForConditionalGeneration"], "text_config": text,
           "vision_config": vision}
    spec = model_from_config(cfg)
    assert spec.family == "llama4_text" and spec.moe_layers == 2 and spec.num_experts == 4
    assert any("only the language model is counted" in n for n in spec.notes)
    with torch.device("meta"):
        full = transformers.Llama4ForConditionalGeneration(transformers.Llama4Config(text_config=text,
                                                                                     vision_config=vision))
    lm = full.language_model if hasattr(full, "language_model") else full.model.language_model
    lm_params = sum(p.numel() for p in lm.parameters())
    if not any(n.startswith("lm_head") for n, _ in lm.named_parameters()):
        lm_params += full.lm_head.weight.numel()
    assert spec.params.total == lm_params


def test_kimi_vl_language_model_is_deepseek_v3_style():
    """Kimi-VL (remote code, model_type kimi_vl) wraps a DeepSeek-V3-style text model (MLA + MoE)."""
    text = {**SMALL, **MOE, "n_routed_experts": 4, "n_shared_experts": 2, "first_k_dense_replace": 1,
            "q_lora_rank": None, "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8,
            "num_key_value_heads": 4, "n_group": 1, "topk_group": 1}
    spec = model_from_config({"model_type": "kimi_vl", "architectures": ["KimiVLForConditionalGeneration"],
                              "text_config": text, "vision_config": {"hidden_size": 32}})
    assert spec.family == "deepseek_v3" and spec.num_experts == 4 and spec.num_shared_experts == 2
    assert any("only the language model is counted" in n for n in spec.notes)
    assert spec.params.total == check({**text, "model_type": "deepseek_v3"}).params.total


@pytest.mark.parametrize("extra", [{}, {"layer_types": ["full_attention", "linear_attention", "linear_attention"]},
                                   {"tie_word_embeddings": True, "attn_output_gate": False}])
def test_qwen3_5_hybrid_small(extra):
    """Qwen3.5's hybrid decoder (Gated DeltaNet + gated full attention) counted as transformers builds it."""
    cfg = {"model_type": "qwen3_5_text", **SMALL, "head_dim": 16, "linear_num_key_heads": 2,
           "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 12,
           "linear_conv_kernel_dim": 4, "full_attention_interval": 3, **extra}
    spec = check(cfg)
    assert spec.warnings == ()
    names = {g.name for g in spec.linears}
    assert {"in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj", "q_proj"} <= names


def test_qwen3_5_moe_hybrid_small():
    """Qwen3.5-MoE: the hybrid decoder with routed experts + a gated shared expert on every layer."""
    cfg = {"model_type": "qwen3_5_moe_text", **SMALL, "head_dim": 16, "linear_num_key_heads": 2,
           "linear_num_value_heads": 4, "linear_key_head_dim": 8, "linear_value_head_dim": 12,
           "full_attention_interval": 3, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
           "shared_expert_intermediate_size": 48}
    spec = check(cfg)
    assert spec.warnings == () and spec.moe_layers == 3 and spec.num_experts == 4


@pytest.mark.parametrize("preset", [p for p in _preset_configs() if p.values[0]["config"]["model_type"] in ("bert", "t5")])
def test_encoder_presets_equal_their_transformers_class(preset):
    """BERT presets as BertForPreTraining builds them (pre-training heads included), T5 presets as
    T5ForConditionalGeneration does - on the meta device, the installed transformers. T5 v1.1 / FLAN-T5 checkpoints
    carry their own lm_head (`tie_word_embeddings: false` in their config.json, built untied by transformers 4.x);
    transformers 5 ties lm_head to the shared embedding whatever the config says (T5Config forces
    tie_word_embeddings True), so there the checkpoint's separate lm_head is the one matrix its count lacks."""
    import torch
    import transformers

    config = dict(preset["config"])
    spec = model_from_config(config)
    model_type = config.pop("model_type")
    cls = transformers.BertForPreTraining if model_type == "bert" else transformers.T5ForConditionalGeneration
    cfg = (transformers.BertConfig if model_type == "bert" else transformers.T5Config)(**config)
    with torch.device("meta"):
        model = cls(cfg)
    built = sum(p.numel() for p in model.parameters())
    if model_type == "t5" and preset["config"].get("tie_word_embeddings") is False \
            and model.lm_head.weight is model.shared.weight:
        built += model.lm_head.weight.numel()
    assert spec.params.total == built


def test_deberta_presets_equal_their_mlm_class():
    """DeBERTa-v2/v3 presets (c-new15) counted exactly as transformers builds DebertaV2ForMaskedLM (the backbone, its
    relative position embeddings and the MLM head the checkpoints carry)."""
    import yaml

    from rocm_tune.profiles.model_presets import preset_files

    seen = 0
    for path in preset_files():
        data = yaml.safe_load(path.read_text())
        cfg = data["config"]
        if cfg["model_type"] != "deberta-v2":
            continue
        hf = transformers.DebertaV2Config(**{k: v for k, v in cfg.items() if k != "model_type"})
        with torch.device("meta"):
            mlm = transformers.DebertaV2ForMaskedLM(hf)
        assert model_from_config(cfg).params.total == sum(p.numel() for p in mlm.parameters()), data["name"]
        seen += 1
    assert seen == 4
