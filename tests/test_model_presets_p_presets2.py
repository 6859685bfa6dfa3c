"""p-presets2: real shapes for models check used to estimate from a shape assumed from the name (issue 26).

OPT (125m .. 66b; core's own opt family), Olmo 3 7B, OLMo 2 32B and MiniCPM-Llama3-V 2.5 presets carry their published
config.json (sources in each preset's header). Counts: transformers' own classes on the meta device; names as users write them (hub ids, paths, suffixes,
lower case) reach the preset. The meta-device counter builds a multimodal text sub-config's own <Name>ForCausalLM
(Llama 3.2 Vision's MllamaTextConfig), and a preset counted before the counter was installed is counted anew.
DeepSpeed at ZeRO-0 with 16-bit weights keeps fp32 masters and fp32 moments (FP16_Optimizer / BF16_Optimizer).
"""

from __future__ import annotations

import pytest
import yaml

from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model import architecture as arch
from rocm_tune.core.model.architecture import identify_model, load_model
from rocm_tune.profiles.model_presets import PRESET_DIR

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _preset(name: str) -> dict:
    with open(PRESET_DIR / f"{name}.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _meta(config: dict, cls=None) -> int:
    cfg = {k: v for k, v in config.items() if k not in ("architectures", "auto_map")}
    model_type = cfg.pop("model_type")
    hf_cfg = transformers.AutoConfig.for_model(model_type, **cfg)
    with torch.device("meta"):
        model = cls(hf_cfg) if cls is not None else transformers.AutoModelForCausalLM.from_config(hf_cfg)
    return sum(p.numel() for p in model.parameters())


# ---- counts -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "card_b"), [
    ("opt-125m", 0.125), ("opt-350m", 0.331), ("opt-1.3b", 1.316), ("opt-2.7b", 2.652), ("opt-6.7b", 6.658),
    ("opt-13b", 12.853), ("opt-30b", 29.975), ("opt-66b", 65.72),
])
def test_opt_counts_equal_the_meta_device(name, card_b):
    spec = load_model(name)       # core's opt family: no meta-device counter needed
    total = _meta(spec.config)
    assert spec.params.total == total == _preset(name)["params_verified"] and spec.warnings == ()
    assert round(total / 1e9, 3) == card_b
    assert spec.tie_word_embeddings and spec.params.lm_head == 0 and not spec.gated_mlp and spec.mlp_act == "relu"
    assert {g.name for g in spec.linears} == {"q_proj", "k_proj", "v_proj", "out_proj", "fc1", "fc2"}


def test_opt_350m_projects_its_512_wide_embedding_and_has_no_final_norm():
    spec = load_model("opt-350m")
    assert spec.params.embed == 50272 * 512
    H = spec.hidden_size
    # positions (2048 + 2 rows) + project_in + project_out; post-LN: only the two LayerNorms of each layer
    assert spec.params.other == 2050 * H + 2 * 512 * H
    assert spec.params.norms == spec.num_layers * 2 * 2 * H


@pytest.mark.parametrize(("name", "total"), [("olmo-3-7b", 7_298_011_136), ("olmo-2-32b", 32_234_279_936)])
def test_native_families_equal_the_meta_device(name, total):
    spec = load_model(name)       # counted by core's own olmo2 / llama handlers: no counter needed
    assert spec.params.total == _meta(spec.config) == total == _preset(name)["params_verified"]


def test_olmo3_is_olmo2_7b_with_dolma2_vocab():
    three, two = load_model("olmo-3-7b"), load_model("olmo-2-7b")
    assert three.params.total - two.params.total == (100278 - 100352) * 4096 * 2
    assert three.config["max_position_embeddings"] == 65536


def test_meta_counter_builds_a_text_sub_config_own_causal_lm():
    from rocm_tune.train.meta_count import count

    # Llama 3.2 11B Vision's language model: MllamaTextConfig's defaults (its auto_docstring checkpoint) with the
    # published cross_attention_layers; AutoModelForCausalLM does not map it, MllamaForCausalLM builds it
    text = {"model_type": "mllama_text_model", "cross_attention_layers": [3, 8, 13, 18, 23, 28, 33, 38]}
    got = count(text)
    assert not isinstance(got, str) and "MllamaForCausalLM" in got.counter
    assert got.params.total == _meta(text, transformers.MllamaForCausalLM) == 9_775_192_080
    # a config no auto class maps and that is no <Name>TextConfig still says why not
    assert isinstance(count({"model_type": "mllama_vision_model", "hidden_size": 32}), str)


def test_preset_cache_follows_the_counter():
    from rocm_tune.train import meta_count

    previous = arch.set_exact_counter(None)
    try:
        load_model("olmo-3-7b")
        assert arch._PRESET_CACHE                       # parsed once, kept
        arch.set_exact_counter(meta_count.count)
        assert not arch._PRESET_CACHE                   # a new counter: presets are counted anew
        assert load_model("olmo-3-7b").params.total == 7_298_011_136
        arch.set_exact_counter(meta_count.count)        # the same counter again keeps the cache
        assert arch._PRESET_CACHE
    finally:
        arch.set_exact_counter(previous)


def test_minicpm_llama3_v_2_5_decoder_and_tower():
    spec = load_model("minicpm-llama3-v-2_5")
    assert spec.family == "llama" and spec.params.total == load_model("llama-3-8b").params.total
    assert spec.params.total == _meta({**spec.config, "model_type": "llama"})
    assert spec.vision is not None and spec.vision.depth == 27 and 0.45e9 < spec.vision.params < 0.55e9
    assert round((spec.params.total + spec.vision.params) / 1e9, 1) == 8.5


# ---- names as users write them -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("ref", "preset"), [
    ("facebook/opt-1.3b", "opt-1.3b"), ("/root/.cache/modelscope/hub/facebook/opt-1___3b", "opt-1.3b"),
    ("OPT-6.7B", "opt-6.7b"), ("/data/models/opt-350m/", "opt-350m"), ("facebook/opt-iml-1.3b", "opt-1.3b"),
    ("facebook/opt-66b", "opt-66b"), ("opt-2.7b-hf", "opt-2.7b"),
    ("allenai/Olmo-3-7B-Instruct-SFT", "olmo-3-7b"), ("/ckpt/Olmo-3-1025-7B", "olmo-3-7b"),
    ("allenai/Olmo-3-7B-Think", "olmo-3-7b"), ("allenai/OLMo-2-0325-32B-Instruct", "olmo-2-32b"),
    ("/models/OLMo-2-0325-32B-DPO", "olmo-2-32b"), ("AI-ModelScope/OLMo-2-0325-32B", "olmo-2-32b"),
    ("openbmb/MiniCPM-Llama3-V-2_5", "minicpm-llama3-v-2_5"), ("/data/MiniCPM-Llama3-V-2_5", "minicpm-llama3-v-2_5"),
])
def test_names_reach_the_preset(ref, preset):
    got = identify_model(ref, network=False)
    assert got.how in ("preset", "name"), got.detail
    assert got.spec is not None and got.spec.name == preset


def test_other_families_and_sizes_keep_theirs():
    # Llama 3.2 text models, Baichuan 2, OLMo 2 and an OPT size OPT never released stay where they were
    for ref, preset in (("meta-llama/Llama-3.2-3B-Instruct", "llama-3.2-3b"), ("Baichuan2-7B-Chat", "baichuan2-7b-chat"),
                        ("allenai/OLMo-2-1124-7B", "olmo-2-7b"), ("Baichuan-13B-Chat", "baichuan-13b-chat")):
        got = identify_model(ref, network=False)
        assert got.spec is not None and got.spec.name == preset, (ref, got.detail)
    assert identify_model("allenai/OLMo-2-0425-1B", network=False).how == "assumed"     # no 1B preset: no shape
    assert identify_model("facebook/opt-4b", network=False).how == "assumed"            # no such OPT size
    assert identify_model("MiniCPM-Llama3-V-2_5-int4", network=False).quant_bits == 4


# ---- DeepSpeed ZeRO-0 keeps fp32 masters -----------------------------------------------------------------------------

def test_deepspeed_zero0_16bit_keeps_fp32_master_and_moments():
    spec = load_model("olmo-3-7b")      # a bf16 checkpoint: the hf runner trains it in bf16
    base = dict(method="full", precision="bf16", runner="hf", micro_batch=1, cutoff_len=512)
    plain = estimate(spec, TrainConfig(**base)).per_gpu.optimizer_bytes
    ds0 = estimate(spec, TrainConfig(**base, deepspeed=True)).per_gpu.optimizer_bytes
    p = spec.params.total
    # fp32 master + fp32 moments vs 16-bit moments, and BF16_Optimizer's fp32 gradient accumulators of every element
    # (bf16_optimizer.py fp32_groups_gradients_flat; c-ds8)
    assert ds0 - plain == pytest.approx(p * (4 + 8 - 4 + 4), rel=0.01)
    zero1 = estimate(spec, TrainConfig(**base, zero_stage=1)).per_gpu.optimizer_bytes
    assert ds0 - 4 * p == pytest.approx(zero1, rel=0.01)               # one rank: ZeRO-1 shards nothing


def test_deepspeed_switch_script_reads_as_zero0_deepspeed(tmp_path):
    import json

    from rocm_tune.cli import main

    script = tmp_path / "run.sh"
    script.write_text("deepspeed --num_gpus 1 main.py --model_name_or_path Qwen/Qwen2.5-0.5B "
                      "--per_device_train_batch_size 4 --zero_stage 0 --deepspeed --output_dir out\n")
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["check", str(script), "--gpu", "a100-40gb", "--gpus", "1", "--json"])
    d = json.loads(out.getvalue())
    assert d["model"]["name"] == "qwen2.5-0.5b"
    assert "master weights fp32" in " ".join(d["execution"]["summary"])
