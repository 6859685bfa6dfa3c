"""LoRA "all" on an MoE model under the transformers release the files show: transformers 4.x builds Mixtral /
Qwen2-MoE / Qwen3-MoE / DeepSeek / OLMoE experts as one nn.Linear each and the router as an nn.Linear, and PEFT's
all-linear (tuners_utils.py _maybe_include_all_linear_layers), LLaMA-Factory's find_all_linear_modules and ms-swift's
find_all_linears wrap every one; transformers 5 fuses them into 3-D parameters that all-linear leaves alone."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace

from rocm_tune.cli import main
from rocm_tune.core.memory.estimate import TrainConfig
from rocm_tune.core.model.architecture import model_from_config
from rocm_tune.core.model.trainable import trainable_params

QWEN3_MOE = {
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
    "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
    "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
    "vocab_size": 151936, "max_position_embeddings": 40960, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
    "rms_norm_eps": 1e-6, "decoder_sparse_step": 1, "mlp_only_layers": [], "norm_topk_prob": True,
}
GPT_OSS = {
    "architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": 2880, "intermediate_size": 2880,
    "num_local_experts": 32, "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_attention_heads": 64,
    "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 201088, "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16", "tie_word_embeddings": False, "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"] * 12,
}
YAML = """model_name_or_path: {model}
stage: sft
do_train: true
finetuning_type: lora
lora_target: {target}
lora_rank: 8
dataset: alpaca_en_demo
template: qwen3
cutoff_len: 1024
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
bf16: true
output_dir: out
"""


def _check(tmp_path, name: str, pins: str | None, config: dict = QWEN3_MOE, target: str = "all") -> dict:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "model").mkdir()
    (folder / "model" / "config.json").write_text(json.dumps(config))
    (folder / "sft.yaml").write_text(YAML.format(model=folder / "model", target=target))
    files = [str(folder / "sft.yaml")]
    if pins is not None:
        (folder / "requirements.txt").write_text(pins)
        files.append(str(folder / "requirements.txt"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", *files, "--gpu", "mi300x", "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def _step(got: dict) -> int:
    return int(got["memory"]["step"]["peak_allocated_bytes"])


def _expert_adapters(config: dict, rank: int) -> int:
    model = model_from_config(config, "qwen3-moe")
    base = TrainConfig(method="lora", lora_rank=rank)
    return trainable_params(model, replace(base, lora_expert_linears=True)) - trainable_params(model, base)


def test_expert_adapters_are_every_routed_expert_and_the_router():
    model = model_from_config(QWEN3_MOE, "qwen3-moe")
    extra = _expert_adapters(QWEN3_MOE, 8)
    # 48 layers x (128 experts x (gate, up: 2048 -> 768; down: 768 -> 2048) + router 2048 -> 128), (in + out) x r
    by_hand = 48 * (128 * 3 * (2048 + 768) + (2048 + 128)) * 8
    assert extra == by_hand
    assert extra > 400e6
    assert sum(g.params for g in model.linears if g.kind == "expert") > 20 * extra


def test_transformers_4_pin_wraps_the_experts(tmp_path):
    undated = _check(tmp_path, "undated", None)
    four = _check(tmp_path, "four", "transformers==4.51.3\npeft==0.15.2\n")
    five = _check(tmp_path, "five", "transformers==5.0.0\n")
    assert four["understood"].get("lora_expert_linears") is True
    assert "lora_expert_linears" not in undated["understood"]
    assert "lora_expert_linears" not in five["understood"]
    assert any("transformers 4.51 pinned" in n and "nn.Linear" in n for n in four["notes"])
    assert _step(undated) == _step(five)
    # LLaMA-Factory keeps the trainable adapters in fp32: weight and two Adam moments (12 bytes each) held through the
    # step, and their fp32 gradients (4 more) as the backward makes them
    grown = _step(four) - _step(undated)
    assert 12 * _expert_adapters(QWEN3_MOE, 8) < grown <= 16 * _expert_adapters(QWEN3_MOE, 8)


def test_llamafactory_release_pins_the_transformers_range(tmp_path):
    capped = _check(tmp_path, "lf094", "llamafactory==0.9.4\n")      # transformers>=4.51.0,<=4.57.1
    open_top = _check(tmp_path, "lf095", "llamafactory==0.9.5\n")    # transformers>=4.55.0,<=5.6.0
    assert capped["understood"].get("lora_expert_linears") is True
    assert "lora_expert_linears" not in open_top["understood"]
    assert _step(capped) > _step(open_top)


def test_fused_experts_and_named_targets_are_left_alone(tmp_path):
    fused = _check(tmp_path, "gptoss", "transformers==4.56.2\n", config=GPT_OSS)
    assert "lora_expert_linears" not in fused["understood"]
    named = _check(tmp_path, "named", "transformers==4.51.3\n", target="q_proj,v_proj")
    assert "lora_expert_linears" not in named["understood"]


DEEPSEEK_V2_LITE = {
    "architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "hidden_size": 2048,
    "intermediate_size": 10944, "moe_intermediate_size": 1408, "n_routed_experts": 64, "n_shared_experts": 2,
    "num_experts_per_tok": 6, "first_k_dense_replace": 1, "moe_layer_freq": 1, "num_hidden_layers": 27,
    "num_attention_heads": 16, "num_key_value_heads": 16, "kv_lora_rank": 512, "q_lora_rank": None,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 102400,
    "max_position_embeddings": 163840, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
}


def test_deepseek_router_is_a_parameter_not_wrapped():
    model = model_from_config(DEEPSEEK_V2_LITE, "deepseek-v2-lite")
    assert not model.router_as_linear and model.experts_as_linears
    experts = sum((g.in_features + g.out_features) * g.count * g.layers for g in model.linears if g.kind == "expert")
    assert experts > 0
    assert _expert_adapters(DEEPSEEK_V2_LITE, 16) == 16 * experts


def test_qwen3_vl_moe_experts_stay_fused_under_4_57(tmp_path):
    text = {k: v for k, v in QWEN3_MOE.items() if k != "architectures"} | {"model_type": "qwen3_vl_moe_text"}
    vl = {"architectures": ["Qwen3VLMoeForConditionalGeneration"], "model_type": "qwen3_vl_moe", "text_config": text,
          "vision_config": {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304, "num_heads": 16,
                            "out_hidden_size": 2048, "patch_size": 16, "spatial_merge_size": 2,
                            "temporal_patch_size": 2}}
    got = _check(tmp_path, "vl", "transformers==4.57.1\n", config=vl)
    assert "lora_expert_linears" not in got["understood"]
