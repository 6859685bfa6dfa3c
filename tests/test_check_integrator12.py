"""check, integrator rules of session 12: Qwen(-VL) v1's finetune.py LoRA trains whole copies of wte and lm_head
(QwenLM/Qwen-VL and QwenLM/Qwen finetune.py: LoraConfig(modules_to_save=["wte", "lm_head"]) unless --q_lora, and in
Qwen's LLM script unless the model path holds "chat"). Scripts written from the repos' finetune_lora_*.sh."""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main

SCRIPT = """#!/bin/bash
MODEL="{model}"
torchrun --nproc_per_node 1 finetune.py \\
    --model_name_or_path $MODEL \\
    --data_path data.json \\
    --bf16 True \\
    --output_dir output_qwen \\
    --per_device_train_batch_size 1 \\
    --gradient_accumulation_steps 8 \\
    --model_max_length 1024 \\
    --lazy_preprocess True \\
    --use_lora {extra}\\
    --gradient_checkpointing
"""


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _check(capsys, tmp_path, model, extra=""):
    (tmp_path / "finetune_lora_single_gpu.sh").write_text(SCRIPT.format(model=model, extra=extra))
    rc = main(["check", str(tmp_path / "finetune_lora_single_gpu.sh"), "--gpu", "a100-80gb", "--json", "--no-app"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def _step(d) -> float:
    return d["memory"]["step"]["peak_allocated_bytes"] if d.get("memory") else 0.0


@pytest.mark.parametrize("model,whole", [("Qwen/Qwen-7B", True), ("Qwen/Qwen-7B-Chat", False)])
def test_qwen_finetune_lora_trains_wte_and_lm_head_where_the_script_does(offline, tmp_path, capsys, model, whole):
    d = _check(capsys, tmp_path, model)
    said = any("wte and lm_head" in n for n in d.get("notes", []) + d.get("assumptions", []))
    assert said is whole
    q = _check(capsys, tmp_path, model, "--q_lora True ")
    assert not any("wte and lm_head" in n for n in q.get("notes", []) + q.get("assumptions", []))
    if whole:   # two 151936 x 4096 copies with fp32 gradients and Adam moments: several GiB more than QLoRA's none
        assert _step(d) - _step(q) > 4 * 2**30


@pytest.mark.parametrize("name,preset", [
    ("HuggingFaceH4/zephyr-7b-beta", "mistral-7b-v0.1"), ("/data/ckpt/zephyr-7b-sft-full", "mistral-7b-v0.1"),
    ("alignment-handbook/zephyr-7b-dpo-full", "mistral-7b-v0.1"),
    ("HuggingFaceH4/zephyr-orpo-141b-A35b-v0.1", "mixtral-8x22b"),
])
def test_zephyr_checkpoints_take_their_base_models_shape(name, preset):
    # their config.json files are MistralForCausalLM / MixtralForCausalLM with the bases' sizes
    from rocm_tune.core.model.architecture import load_model

    assert load_model(name).name == preset


def test_zephyr_gemma_is_not_read_as_mistral():
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.errors import UserError

    with pytest.raises(UserError, match="unknown model"):
        load_model("HuggingFaceH4/zephyr-7b-gemma-v0.1")
