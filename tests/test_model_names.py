"""Models named the way real configs name them (issue 26 item 1): the name parser and identify_model.

The references are `model_name_or_path` / `--model` values from public configs, scripts and issue threads
(LLaMA-Factory YAMLs and issues, ms-swift commands, notes of 2024-2026), as found with the code/issues search.
TUNED were read while core/model/names.py was written; HELD_OUT were collected afterwards and never tuned on:
both must hold. The expected answers are the models' facts (series, size, quantization, the preset of that
shape), not what the parser happened to print.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.model.architecture import identify_model, load_model
from rocm_tune.core.model.names import name_stem, parse_name


@pytest.fixture(autouse=True)
def _no_caches(tmp_path, monkeypatch):
    """No developer cache leaks in: an empty HOME and no cache variables (HF_HUB_OFFLINE is set by conftest)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "MODELSCOPE_CACHE"):
        monkeypatch.delenv(var, raising=False)


# (reference, series, size_b, active_b, quantization, how, preset or None)
TUNED = [
    ("/home/sleepy/Depot/ModelTrain/qwen/Qwen2___5-7B-Instruct", "qwen2.5", 7, None, None, "name", "qwen2.5-7b"),
    ("/root/autodl-tmp/models/Qwen2.5-VL-7B-Instruct", "qwen2.5vl", 7, None, None, "name", "qwen2.5-vl-7b"),
    ("/root/autodl-tmp/comp/LLaMA-Factory/Qwen3-Coder-30B-A3B-Instruct", "qwen3coder", 30, 3, None, "name",
     "qwen3-coder-30b-a3b"),
    ("/root/autodl-tmp/models/Llama3-8B-Chinese-Chat", "llama3", 8, None, None, "name", "llama-3-8b"),
    ("/root/autodl-tmp/models/Qwen/Qwen2___5-3B-Instruct", "qwen2.5", 3, None, None, "name", "qwen2.5-3b"),
    ("/data/models/DeepSeek-R1-Distill-Qwen-32B", "deepseekr1distillqwen", 32, None, None, "name",
     "deepseek-r1-distill-qwen-32b"),
    ("/data/modelscope/Qwen2___5-VL-7B-Instruct", "qwen2.5vl", 7, None, None, "name", "qwen2.5-vl-7b"),
    ("/data/jinzhihong/vaEVAS/models/base/Qwen2.5-Coder-7B-Instruct-vaevas", "qwen2.5coder", 7, None, None, "name",
     "qwen2.5-7b"),
    ("/home/cc/.cache/modelscope/hub/models/Qwen/Qwen3-1___7B", "qwen3", 1.7, None, None, "name", "qwen3-1.7b"),
    ("/root/DeepSeek-R1-Distill-Qwen-1___5B", "deepseekr1distillqwen", 1.5, None, None, "name",
     "deepseek-r1-distill-qwen-1.5b"),
    ("unsloth/llama-3.2-3b-bnb-4bit", "llama3.2", 3, None, "bnb-4bit", "name", "llama-3.2-3b"),
    ("unsloth/Llama-3.2-1B-Instruct", "llama3.2", 1, None, None, "name", "llama-3.2-1b"),
    ("unsloth/Qwen3-0.6B-unsloth-bnb-4bit", "qwen3", 0.6, None, "bnb-4bit", "name", "qwen3-0.6b"),
    ("/mnt/d/models/Qwen2.5-14B-Instruct", "qwen2.5", 14, None, None, "name", "qwen2.5-14b"),
    ("/mnt/e/UbuntuFiles/models_saved/Qwen1.5-14B-Chat-GPTQ-Int4", "qwen1.5", 14, None, "GPTQ-Int4", "name",
     "qwen1.5-14b"),
    ("/mnt/eye_team/jyhu/LLM_assets/models/chatglm2-6b", "chatglm2", 6, None, None, "name", "chatglm2-6b"),
    ("/home/wei/models/model/LLM-Research/Meta-Llama-3-8B-Instruct", "llama3", 8, None, None, "name", "llama-3-8b"),
    ("/home/dev/model/THUDM/glm-4-9b-chat/", "glm4", 9, None, None, "name", "glm-4-9b-chat"),
    ("/home/work/wenku_yq/DataVault/models/Yi-1.5-34B-Chat", "yi1.5", 34, None, None, "name", "yi-34b"),
    ("/home/jiuben/models/Qwen3-14B", "qwen3", 14, None, None, "name", "qwen3-14b"),
    ("meta-llama/Llama-2-70b-hf", "llama2", 70, None, None, "preset", "llama-2-70b"),
    ("meta-llama/Meta-Llama-3-8B-Instruct", "llama3", 8, None, None, "preset", "llama-3-8b"),
    ("meta-llama/Llama-3.2-1B", "llama3.2", 1, None, None, "preset", "llama-3.2-1b"),
    ("Qwen/Qwen3-VL-4B-Instruct", "qwen3vl", 4, None, None, "preset", "qwen3-vl-4b"),
    ("Qwen/Qwen3-8B", "qwen3", 8, None, None, "preset", "qwen3-8b"),
    ("google/gemma-2-2b-it", "gemma2", 2, None, None, "preset", "gemma-2-2b"),
    ("google/gemma-3-4b-it", "gemma3", 4, None, None, "preset", "gemma-3-4b"),
    ("google/gemma-1.1-2b-it", "gemma1.1", 2, None, None, "preset", "gemma-2b"),
    ("mistralai/Mistral-7B-Instruct-v0.2", "mistral", 7, None, None, "name", "mistral-7b-v0.3"),
    ("mistralai/Mistral-7B-v0.1", "mistral", 7, None, None, "preset", "mistral-7b-v0.1"),
    ("deepseek-ai/DeepSeek-V2-Lite-Chat", "deepseekv2lite", None, None, None, "preset", "deepseek-v2-lite"),
    ("microsoft/Phi-3-mini-4k-instruct", "phi3mini", None, None, None, "preset", "phi-3-mini"),
    ("microsoft/Phi-3.5-mini-instruct", "phi3.5mini", None, None, None, "preset", "phi-3-mini"),
    ("THUDM/chatglm3-6b", "chatglm3", 6, None, None, "preset", "chatglm3-6b"),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "qwen2.5", 7, None, "GPTQ-Int4", "name", "qwen2.5-7b"),
    ("Qwen/Qwen1.5-32B-Chat-AWQ", "qwen1.5", 32, None, "AWQ", "name", "qwen1.5-32b"),
    ("Qwen/Qwen3-30B-A3B-GPTQ-Int4", "qwen3", 30, 3, "GPTQ-Int4", "name", "qwen3-30b-a3b"),
    ("Qwen/Qwen2.5-Coder-7B-Instruct-AWQ", "qwen2.5coder", 7, None, "AWQ", "name", "qwen2.5-7b"),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8", "qwen3coder", 30, 3, "FP8", "name", "qwen3-coder-30b-a3b"),
    ("nvidia/Llama-3.1-8B-Instruct-FP8", "llama3.1", 8, None, "FP8", "name", "llama-3.1-8b"),
    ("/root/model/meta-llama/Llama-3.3-70B-Instruct", "llama3.3", 70, None, None, "name", "llama-3.3-70b"),
    ("/dev/shm/base_model/Qwen2.5-Coder-32B-Instruct", "qwen2.5coder", 32, None, None, "name", "qwen2.5-32b"),
    ("/mnt/nvme_raid0/Qwen2-7B-Instruct", "qwen2", 7, None, None, "name", "qwen2.5-7b"),
    ("/models--Qwen--Qwen2.5-VL-7B-Instruct/snapshots/6e6556e8ce728c7b3e438d75ebf04ec93403dc19", "qwen2.5vl", 7, None,
     None, "name", "qwen2.5-vl-7b"),
    ("/root/data3/Qwen.Qwen2.5-VL-7B-Instruct", "qwen2.5vl", 7, None, None, "name", "qwen2.5-vl-7b"),
    ("/workspace/model/Qwen3.5-27B", "qwen3.5", 27, None, None, "name", "qwen3.5-27b"),
    ("/jfs/zhenlin.liang/model/Qwen3-Omni-30B-A3B-Instruct", "qwen3omni", 30, 3, None, "assumed", None),
    ("/root/autodl-tmp/models/Qwen/Qwen3___5-2B", "qwen3.5", 2, None, None, "name", "qwen3.5-2b"),
    ("unsloth/gemma-4-31B-it-unsloth-bnb-4bit", "gemma4", 31, None, "bnb-4bit", "name", "gemma-4-31b"),
    ("/root/autodl-tmp/models/", None, None, None, None, "unknown", None),
    ("/models/base-model", None, None, None, None, "unknown", None),
]

HELD_OUT = [
    ("/root/models/Qwen3-0.6B", "qwen3", 0.6, None, None, "name", "qwen3-0.6b"),
    ("/root/models/Qwen3.5-0.8B", "qwen3.5", 0.8, None, None, "name", "qwen3.5-0.8b"),
    ("/root/models/Qwen2-0___5B-Instruct", "qwen2", 0.5, None, None, "name", "qwen2.5-0.5b"),
    ("/root/models/Qwen2.5-7B-Instruct", "qwen2.5", 7, None, None, "name", "qwen2.5-7b"),
    ("/mnt/models/qwen3-0.6b", "qwen3", 0.6, None, None, "name", "qwen3-0.6b"),
    ("/mnt/sdb/zjk/ALL-Models/llama2-7b-uncensored-chat", "llama2", 7, None, None, "name", "llama-2-7b"),
    ("/mnt/ceph/huggingface/Meta-Llama-3.1-8B-Instruct", "llama3.1", 8, None, None, "name", "llama-3.1-8b"),
    ("/mnt/g/neko-sft/models/nf4", None, None, None, "bnb-4bit", "unknown", None),
    ("/mnt/data/models/Qwen3-30B-A3B", "qwen3", 30, 3, None, "name", "qwen3-30b-a3b"),
    ("/mnt/model/qwen2_5_vl_3b", "qwen2.5vl", 3, None, None, "name", "qwen2.5-vl-3b"),
    ("modelscope/Llama-2-70b-chat-ms", "llama2", 70, None, None, "name", "llama-2-70b"),
    ("qwen/Qwen-7B-Chat", "qwen", 7, None, None, "preset", "qwen-7b"),
    # no size in the name: the qwen-vl-chat preset (session 17; its config.json's Qwen-7B decoder + vision tower)
    ("qwen/Qwen-VL-Chat", "qwenvl", None, None, None, "preset", "qwen-vl-chat"),
    ("/root/.cache/modelscope/hub/models/LLM-Research/Meta-Llama-3-8B-Instruct", "llama3", 8, None, None, "name",
     "llama-3-8b"),
    ("/share/u/models/meta-llama/Llama-3.1-8B-Instruct", "llama3.1", 8, None, None, "name", "llama-3.1-8b"),
    ("meta-llama/Llama-3-8B", "llama3", 8, None, None, "name", "llama-3-8b"),
    ("Qwen/Qwen2.5-3B-Instruct", "qwen2.5", 3, None, None, "preset", "qwen2.5-3b"),
    ("meta-llama/Llama-3.2-3B-Instruct", "llama3.2", 3, None, None, "preset", "llama-3.2-3b"),
    ("/data/public/model/Qwen2.5-1.5B-Instruct", "qwen2.5", 1.5, None, None, "name", "qwen2.5-1.5b"),
    ("/home/jz08/zhouzy/model_Param/Qwen2-VL-2B-Instruct", "qwen2vl", 2, None, None, "name", "qwen2-vl-2b"),
    ("/data/msz/models/Qwen3.5-27B", "qwen3.5", 27, None, None, "name", "qwen3.5-27b"),
    ("/mnt/data/hetinggao/models/Qwen2-1.5B", "qwen2", 1.5, None, None, "name", "qwen2.5-1.5b"),
    ("/root/autodl-tmp/models/llama-3.1-8b", "llama3.1", 8, None, None, "name", "llama-3.1-8b"),
    ("/root/autodl-tmp/huggingface/Qwen2.5-VL-3B-Instruct", "qwen2.5vl", 3, None, None, "name", "qwen2.5-vl-3b"),
]


def _check(ref, series, size, active, quant, how, preset):
    p = parse_name(ref)
    assert (p.series, p.size_b, p.active_b, p.quant) == (series, size, active, quant), p
    got = identify_model(ref, network=False)
    assert got.how == how, got.detail
    if preset is not None:
        assert got.spec.name == preset
        assert got.spec.identified_by == how and got.spec.quantization == quant
    if how == "assumed":
        assert got.spec is not None and got.assumption and "assumed" in got.assumption
        total = got.spec.params.total / 1e9
        if size is None:                                          # a size word / version: the model card's total
            from rocm_tune.core.model.names import named_size

            size = named_size(p)[0]
        assert 0.8 * size <= total <= 1.2 * size, total          # bounded by what the name says
    if how == "unknown":
        assert got.spec is None and got.question == "--model"


@pytest.mark.parametrize("case", TUNED, ids=[c[0] for c in TUNED])
def test_tuned_real_names(case):
    _check(*case)


@pytest.mark.parametrize("case", HELD_OUT, ids=[c[0] for c in HELD_OUT])
def test_held_out_real_names(case):
    _check(*case)


def test_stems_of_paths_caches_and_modelscope_spellings():
    assert name_stem("/home/u/qwen/Qwen2___5-7B-Instruct") == ("qwen", "Qwen2.5-7B-Instruct")
    assert name_stem("/hub/models--Qwen--Qwen2.5-7B/snapshots/" + "a" * 40) == ("Qwen", "Qwen2.5-7B")
    assert name_stem("/root/data3/Qwen.Qwen2.5-VL-7B-Instruct") == ("Qwen", "Qwen2.5-VL-7B-Instruct")
    assert name_stem("D:\\llm\\Qwen\\Qwen2___5-7B-Instruct\\") == ("Qwen", "Qwen2.5-7B-Instruct")
    assert name_stem("Qwen2.5-7B") == (None, "Qwen2.5-7B")
    # a run's output inside the model's folder: the folder names the model
    assert name_stem("saves/Qwen2.5-7B-Instruct/full/sft/checkpoint-500") == ("saves", "Qwen2.5-7B-Instruct")
    assert name_stem("/out/llama3-8b/merged") == ("out", "llama3-8b")
    assert name_stem("sft") == (None, "sft")


def test_moe_sizes_variants_and_versions():
    p = parse_name("Qwen/Qwen3-235B-A22B-Thinking-2507-FP8")
    assert (p.series, p.size_b, p.active_b, p.quant, p.quant_bits) == ("qwen3", 235, 22, "FP8", 8)
    assert "2507" in p.variants and "thinking" in p.variants and p.size_text() == "235B-A22B"
    m = parse_name("mistralai/Mixtral-8x7B-Instruct-v0.1")
    assert (m.series, m.experts, m.version, m.size_b) == ("mixtral", "8x7b", "v0.1", 56)
    assert parse_name("Qwen2.5-7B-Instruct-1M").size_b == 7            # a context suffix is not the size
    assert parse_name("EleutherAI/pythia-70m-deduped").size_b == pytest.approx(0.07)
    assert parse_name("Llama-3.1-8B-Instruct-AWQ").quant_bits == 4
    assert parse_name("Qwen2.5-7B-Instruct-GPTQ-Int8").quant == "GPTQ-Int8"


def test_assumed_moe_keeps_total_and_active_in_bounds():
    got = identify_model("/data/llm/Qwen3-Omni-30B-A3B-Instruct", network=False)
    spec = got.spec
    assert got.how == "assumed" and spec.is_moe
    assert 24e9 <= spec.params.total <= 36e9 and 2e9 <= spec.active_params <= 4.5e9


def test_load_model_takes_a_name_that_matches_one_preset_and_says_so():
    spec = load_model("/nowhere/Qwen2___5-7B-Instruct")
    assert spec.name == "qwen2.5-7b" and any("identified by its name" in n for n in spec.notes)
    with pytest.raises(Exception, match="no such file"):
        load_model("/nowhere/my-own-model")
