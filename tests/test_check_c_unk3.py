"""c-unk3: the models people fine-tune in 2025-2026, named as users name them (check; issue 26).

Names are real hub ids and folder spellings (Hugging Face model pages, ModelScope folders, unsloth / mlx-community /
RedHatAI re-uploads, community fine-tunes), not the corpus's. Presets are checked against transformers on the meta
device. No mocks of core.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rocm_tune.core.model.architecture import identify_model, load_model, model_from_config
from rocm_tune.core.model.names import base_inside_readings, named_size, parse_name


def _ident(ref: str):
    return identify_model(ref, network=False)


# --- names: (reference, series, size B, active B, quantization) ---------------------------------------------------
@pytest.mark.parametrize("ref,series,size,active,quant", [
    ("mlx-community/Qwen3-8B-4bit", "qwen3", 8, None, "MLX"),
    ("lmstudio-community/Qwen3-8B-MLX-4bit", "qwen3", 8, None, "MLX"),
    ("mlx-community/Qwen3-30B-A3B-4bit-DWQ", "qwen3", 30, 3, "MLX"),
    ("unsloth/Qwen3-8B-bnb-4bit", "qwen3", 8, None, "bnb-4bit"),                 # not MLX: bnb stays bnb
    ("unsloth/Qwen3-30B-A3B-GGUF", "qwen3", 30, 3, "GGUF"),
    ("stabilityai/stablelm-2-1_6b", "stablelm2", 1.6, None, None),               # 1_6b is 1.6B, not 6B
    ("Qwen/Qwen-1_8B-Chat", "qwen", 1.8, None, None),
    ("internlm/internlm2-1_8b", "internlm2", 1.8, None, None),
    ("llama3_8b", "llama3", 8, None, None),                                       # a version and a size
    ("qwen25-7b-instruct", "qwen2.5", 7, None, None),                            # X.Y written without its dot
    ("llama31-8b", "llama3.1", 8, None, None),
    ("qwen35_9b", "qwen3.5", 9, None, None),
    ("glm45-air", "glm4.5air", None, None, None),
    ("huihui-ai/Qwen3-8B-abliterated", "qwen3", 8, None, None),
    ("tencent/Hunyuan-A13B-Instruct", "hunyuan", None, 13, None),
])
def test_names_as_users_write_them(ref, series, size, active, quant):
    p = parse_name(ref)
    assert (p.series, p.size_b, p.active_b, p.quant) == (series, size, active, quant)


def test_mlx_and_gguf_carry_no_bit_width():
    # inference-only formats: check estimates the 16-bit base (and says so), never a 4-bit one
    assert parse_name("mlx-community/Llama-3.2-3B-Instruct-4bit").quant_bits is None
    assert parse_name("bartowski/Qwen2.5-7B-Instruct-GGUF").quant_bits is None


# --- identification: reference -> (how, preset) -----------------------------------------------------------------
@pytest.mark.parametrize("ref,how,preset", [
    ("moonshotai/Kimi-K2-Instruct", "preset", "kimi-k2"),
    ("moonshotai/Kimi-K2-Thinking", "preset", "kimi-k2"),
    ("deepseek-ai/DeepSeek-V3.1", "preset", "deepseek-v3"),
    ("deepseek-ai/DeepSeek-V3.1-Terminus", "preset", "deepseek-v3"),
    ("HuggingFaceTB/SmolLM3-3B-Base", "preset", "smollm3-3b"),
    ("ibm-granite/granite-3.3-8b-instruct", "preset", "granite-3.3-8b"),
    ("allenai/OLMo-2-1124-7B-Instruct", "preset", "olmo-2-7b"),
    ("allenai/OLMo-2-1124-13B", "preset", "olmo-2-13b"),
    ("ByteDance-Seed/Seed-OSS-36B-Instruct", "preset", "seed-oss-36b"),
    ("baidu/ERNIE-4.5-0.3B-PT", "preset", "ernie-4.5-0.3b"),
    ("google/gemma-3-270m-it", "preset", "gemma-3-270m"),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "preset", "qwen3-coder-480b-a35b"),
    ("/data/models/Seed-OSS-36B-Instruct-AWQ", "name", "seed-oss-36b"),
    ("/root/.cache/modelscope/hub/models/Qwen/Qwen3___5-9B", "name", "qwen3.5-9b"),
    ("unsloth/Qwen3-4B-Instruct-2507-unsloth-bnb-4bit", "name", "qwen3-4b"),
    ("/models/Qwen3-8B-Thinking-2507-FP8-dynamic", "name", "qwen3-8b"),
    ("RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "name", "llama-3.1-8b"),
    ("/mnt/llm/Llama-3.3-70B-Instruct-abliterated-GPTQ-Int4", "name", "llama-3.3-70b"),
    # fine-tunes and merges named with their base inside
    ("NousResearch/Hermes-3-Llama-3.1-8B", "name", "llama-3.1-8b"),
    ("cognitivecomputations/Dolphin3.0-Llama3.1-8B", "name", "llama-3.1-8b"),
    ("nvidia/Llama-3.1-Nemotron-Nano-8B-v1", "name", "llama-3.1-8b"),
    ("huihui-ai/Huihui-Qwen3-4B-Instruct-2507-abliterated", "name", "qwen3-4b"),
    ("Qwen/Qwen3-Embedding-0.6B", "name", "qwen3-0.6b"),
    ("/data/llama33-70b", "name", "llama-3.3-70b"),
])
def test_identified(ref, how, preset):
    got = _ident(ref)
    assert (got.how, got.spec.name if got.spec else None) == (how, preset)


def test_base_inside_sets_aside_no_modality_word():
    # Qwen2.5-Omni-7B is not Qwen2.5-7B (audio and vision encoders); it stays an assumption of its own size
    assert not any(r.series == "qwen2.5" for r in base_inside_readings(parse_name("Qwen/Qwen2.5-Omni-7B")))
    got = _ident("Qwen/Qwen2.5-Omni-7B")
    assert got.how == "assumed"
    # a name with no known base inside stays an assumption from its size
    assert _ident("nvidia/OpenReasoning-Nemotron-7B").how == "assumed"
    # the reading says what it did
    got = _ident("NousResearch/Hermes-3-Llama-3.1-8B")
    assert "named after its base" in got.detail


@pytest.mark.parametrize("ref,total,active", [
    ("zai-org/GLM-4.5-Air", 106, 12),
    ("zai-org/GLM-4.5", 355, 32),
    ("zai-org/GLM-4.6-FP8", 355, 32),
    ("MiniMaxAI/MiniMax-M2", 230, 10),
    ("mistralai/Mistral-Large-Instruct-2411", 123, None),
    # (Mistral-Small-Instruct-2409 is a preset since c-over4: its exact shape, tests/test_check_c_over4.py)
    ("microsoft/Phi-3.5-MoE-instruct", 41.9, 6.6),
    ("microsoft/Phi-4-multimodal-instruct", 5.6, None),
    ("deepseek-ai/DeepSeek-V2.5", 236, 21),
    ("databricks/dbrx-instruct", 132, 36),
    ("tencent/Hunyuan-A13B-Instruct", 80, 13),
    ("microsoft/phi-2", 2.7, None),
])
def test_sizeless_names_are_bounded_by_the_model_cards_size(ref, total, active):
    got = _ident(ref)
    assert got.how == "assumed" and got.spec is not None
    assert abs(got.spec.params.total / 1e9 - total) / total < 0.02
    if active is not None:
        assert named_size(parse_name(ref)) is not None or parse_name(ref).active_b == active
        assert abs(got.spec.active_params / 1e9 - active) / active < 0.15
    assert "model card" in (got.assumption or "")


def test_gemma3n_effective_size_counts_the_raw_parameters():
    got = _ident("google/gemma-3n-E4B-it")
    assert got.how == "assumed" and 7.5e9 < got.spec.params.total < 8.5e9
    assert "effective" in got.assumption
    assert 5.5e9 < _ident("google/gemma-3n-E2B").spec.params.total < 6.5e9


def test_unknown_stays_unknown_without_size_or_family():
    assert _ident("/data/v2_pipeline/v1_merged_base").how == "unknown"
    assert _ident("microsoft/Phi-4-reasoning-plus").how != "unknown"    # Phi-4's shape (phi4plus is no series)


# --- presets against transformers on the meta device -------------------------------------------------------------
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def _meta_total(config: dict) -> int:
    cfg = {k: v for k, v in config.items() if k not in ("architectures", "rope_scaling")}
    model_type = cfg.pop("model_type")
    for k in ("pad_token_id", "bos_token_id", "eos_token_id"):
        cfg[k] = 0
    hf = transformers.AutoConfig.for_model(model_type, **cfg)
    with torch.device("meta"):
        m = transformers.AutoModelForCausalLM.from_config(hf)
    return sum(p.numel() for p in m.parameters())


@pytest.mark.parametrize("name", ["smollm3-3b", "olmo-2-7b", "olmo-2-13b", "granite-3.3-8b",
                                  "seed-oss-36b", "gemma-3-270m", "ernie-4.5-0.3b"])
def test_new_presets_equal_transformers_meta_count(name):
    spec = load_model(name)
    assert spec.warnings == ()
    assert spec.params.total == _meta_total(dict(spec.config))


def test_kimi_k2_is_deepseek_v3_shaped_and_matches_transformers():
    spec = load_model("kimi-k2")
    assert spec.num_experts == 384 and spec.num_experts_per_tok == 8 and spec.moe_layers == 60
    assert 1.02e12 < spec.params.total < 1.03e12 and 32e9 < spec.active_params < 33.5e9   # "1T total, 32B active"
    cfg = {**spec.config, "model_type": "deepseek_v3", "num_hidden_layers": 3}          # 1 dense + 2 MoE layers
    assert model_from_config({**spec.config, "num_hidden_layers": 3}).params.total == _meta_total(cfg)


@pytest.mark.parametrize("model_type", ["olmo3", "smollm3", "seed_oss", "ernie4_5", "hunyuan_v1_dense"])
@pytest.mark.parametrize("head_dim", [None, 16])
def test_new_model_types_count_as_transformers_builds_them(model_type, head_dim):
    if head_dim is None and model_type == "hunyuan_v1_dense":
        pytest.skip("HunYuanDenseV1Config has no head_dim default (its configs always give one)")
    cfg = dict(model_type=model_type, hidden_size=64, intermediate_size=96, num_hidden_layers=4,
               num_attention_heads=4, num_key_value_heads=2, vocab_size=128, max_position_embeddings=256)
    if head_dim:
        cfg["head_dim"] = head_dim
    hf_tie = transformers.AutoConfig.for_model(model_type).tie_word_embeddings
    spec = model_from_config({**cfg, "tie_word_embeddings": hf_tie})
    assert spec.warnings == ()
    assert spec.params.total == _meta_total({**cfg, "tie_word_embeddings": hf_tie})


# --- check end to end --------------------------------------------------------------------------------------------
def _check(tmp_path, name: str, text: str) -> dict:
    f = tmp_path / name
    f.write_text(text)
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "check", str(f), "--gpu", "mi300x", "--json"],
                         capture_output=True, text=True, check=False)
    return json.loads(out.stdout)


_LF = """model_name_or_path: {model}
{extra}stage: sft
do_train: true
finetuning_type: lora
dataset: alpaca_en_demo
cutoff_len: 1024
per_device_train_batch_size: 1
output_dir: saves/run1
bf16: true
"""


def test_tokenizer_names_the_model_of_a_local_folder(tmp_path):
    d = _check(tmp_path, "sft.yaml", _LF.format(model="/data/ckpt/merged_base",
                                                extra="tokenizer_name_or_path: meta-llama/Llama-3.1-8B-Instruct\n"))
    assert d["model"]["name"] == "llama-3.1-8b"
    assert any("tokenizer_name_or_path" in a for a in d["assumptions"])


def test_hf_script_tokenizer_name_is_read(tmp_path):
    d = _check(tmp_path, "train.sh", "torchrun --nproc_per_node 1 run_clm.py --model_name_or_path /data/ckpt/base "
                                     "--tokenizer_name Qwen/Qwen3-8B --per_device_train_batch_size 1 "
                                     "--block_size 1024 --bf16 --output_dir out --do_train\n")
    assert d["model"]["name"] == "qwen3-8b"


def test_mlx_model_is_said_not_trainable(tmp_path):
    d = _check(tmp_path, "sft.yaml", _LF.format(model="mlx-community/Qwen3-8B-4bit", extra=""))
    msgs = [f["message"] for f in d["findings"] if f["code"] == "quantized-base-not-modelled"]
    assert msgs and "MLX" in msgs[0] and "do not train it" in msgs[0]


@pytest.mark.parametrize("line,model", [
    ("huggingface-cli download Qwen/Qwen3-8B --local-dir /data/models/base", "qwen3-8b"),
    ("hf download meta-llama/Llama-3.1-8B-Instruct --local-dir /data/models/base", "llama-3.1-8b"),
    ("huggingface-cli download --resume-download Qwen/Qwen2.5-7B-Instruct --local-dir /data/models/base",
     "qwen2.5-7b"),
    ("modelscope download --model Qwen/Qwen3-4B --local_dir /data/models/base", "qwen3-4b"),
    ("git clone https://www.modelscope.cn/models/Qwen/Qwen2.5-7B-Instruct.git /data/models/base", "qwen2.5-7b"),
])
def test_a_download_in_the_script_names_the_model(tmp_path, line, model):
    d = _check(tmp_path, "run.sh", f"#!/bin/bash\n{line}\naccelerate launch train.py --model_name_or_path "
                                   f"/data/models/base --per_device_train_batch_size 1 --bf16 --output_dir out\n")
    assert d["model"]["name"] == model
    assert any("a download of the model" in a for a in d["assumptions"])


def test_a_dataset_download_names_no_model(tmp_path):
    d = _check(tmp_path, "run.sh", "#!/bin/bash\nhuggingface-cli download --repo-type dataset "
                                   "Qwen/Qwen3-8B-sft-data --local-dir data\naccelerate launch train.py "
                                   "--model_name_or_path /data/models/base --per_device_train_batch_size 1 --bf16\n")
    assert d["verdict"] == "unknown"


@pytest.mark.parametrize("line,repo", [
    ("model_dir = snapshot_download('Qwen/Qwen3-4B', cache_dir='/x')", "Qwen/Qwen3-4B"),
    ("snapshot_download(repo_id=\"google/gemma-3-4b-it\", local_dir=d)", "google/gemma-3-4b-it"),
    ("git clone https://huggingface.co/THUDM/glm-4-9b-chat", "THUDM/glm-4-9b-chat"),
    ("huggingface-cli download --local-dir /data/x Qwen/Qwen3-8B", "Qwen/Qwen3-8B"),
    ("pip download foo/bar", None),
])
def test_download_forms(line, repo):
    import re

    from rocm_tune.profiles.model_clues import DOWNLOAD_PATTERNS

    m = re.search("|".join(f"(?:{p})" for p in DOWNLOAD_PATTERNS), line)
    assert (next(g for g in m.groups() if g) if m else None) == repo
