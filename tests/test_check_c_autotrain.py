"""check reads AutoTrain Advanced's LLM fine-tunes (huggingface/autotrain-advanced): `autotrain --config X.yml` with
the YAMLs of its configs/llm_finetuning folder (b5c98fb, 2025-01), the `autotrain llm --train` command of its Colab
notebook (colabs/AutoTrain_LLM.ipynb, 2023 spelling --use-peft --use-int4 --fp16) and the later spelling (--peft
--quantization --mixed-precision), each with the defaults and the launch of the release that spelling names."""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core.runners import autotrain

# configs/llm_finetuning/llama3-8b-orpo.yml (hub: section left out)
ORPO = """task: llm-orpo
base_model: meta-llama/Meta-Llama-3-8B-Instruct
project_name: autotrain-llama3-8b-orpo
log: tensorboard
backend: local

data:
  path: argilla/distilabel-capybara-dpo-7k-binarized
  train_split: train
  valid_split: null
  chat_template: chatml
  column_mapping:
    text_column: chosen
    rejected_text_column: rejected
    prompt_text_column: prompt

params:
  block_size: 1024
  model_max_length: 8192
  max_prompt_length: 512
  epochs: 3
  batch_size: 2
  lr: 3e-5
  peft: true
  quantization: int4
  target_modules: all-linear
  padding: right
  optimizer: adamw_torch
  scheduler: linear
  gradient_accumulation: 4
  mixed_precision: fp16
"""

# configs/llm_finetuning/gpt2_sft.yml: no peft -> a full fine-tune
GPT2 = """task: llm-sft
base_model: openai-community/gpt2
project_name: autotrain-gpt2-finetuned-guanaco
log: tensorboard
backend: local

data:
  path: timdettmers/openassistant-guanaco
  train_split: train
  valid_split: null
  chat_template: null
  column_mapping:
    text_column: text

params:
  block_size: 1024
  model_max_length: 2048
  max_prompt_length: 512
  epochs: 3
  batch_size: 2
  lr: 3e-5
  padding: right
  optimizer: adamw_torch
  scheduler: linear
  gradient_accumulation: 4
  mixed_precision: fp16
  merge_adapter: true
"""

# configs/llm_finetuning/llama3-70b-sft.yml: LoRA over the unquantized 70B, paged 8-bit AdamW, bf16
L70 = """task: llm-sft
base_model: meta-llama/Meta-Llama-3-70B-Instruct
project_name: autotrain-llama3-70b-math-v1
log: tensorboard
backend: local

data:
  path: rishiraj/guanaco-style-metamath-40k
  train_split: train
  valid_split: null
  chat_template: null
  column_mapping:
    text_column: text

params:
  block_size: 2048
  model_max_length: 8192
  epochs: 2
  batch_size: 1
  lr: 1e-5
  peft: true
  quantization: null
  target_modules: all-linear
  padding: right
  optimizer: paged_adamw_8bit
  scheduler: linear
  gradient_accumulation: 8
  mixed_precision: bf16
"""

# colabs/AutoTrain_LLM.ipynb's cell (at baaf553), its variables written out
COLAB = ("!autotrain llm --train --model abhishek/llama-2-7b-hf-small-shards --project-name my-llm --data-path data/ "
         "--text-column text --lr 2e-4 --batch-size 1 --epochs 1 --block-size 1024 --warmup-ratio 0.1 --lora-r 16 "
         "--lora-alpha 32 --lora-dropout 0.05 --weight-decay 0.01 --gradient-accumulation 4 --fp16 --use-peft "
         "--use-int4\n")
NEW_CLI = ("autotrain llm --train --model meta-llama/Llama-2-7b-hf --project-name p --data-path data/ --peft "
           "--quantization int4 --mixed-precision bf16 --batch-size 2 --block-size 2048 {extra}\n")


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _check(capsys, tmp_path, files: dict[str, str], *args: str) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    rc = main(["check", *[str(tmp_path / n) for n in files], *args, "--json", "--no-app"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def _said(d) -> str:
    return " ".join(d.get("notes", []) + d.get("assumptions", []))


def test_orpo_yaml_is_a_4bit_lora_preference_step(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"llama3-8b-orpo.yml": ORPO}, "--gpu", "rtx4090")
    u = d["understood"]
    assert u["method"] == "qlora" and u["quant_bits"] == 4 and u["lora_targets"] == ["all"]
    assert u["cutoff_len"] == 1024 and u["micro_batch"] == 2 and u["precision"] == "fp16"
    assert u["stage"] == "dpo" and u["reference_model"] is False     # ORPO: chosen + rejected, no reference
    assert u["gradient_checkpointing"] is True
    assert "release 0.7.32+" in _said(d)
    assert d["verdict"] == "fits"


def test_gpt2_yaml_without_peft_is_a_full_fine_tune_in_fp32_weights(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"gpt2_sft.yml": GPT2}, "--gpu", "t4")
    u = d["understood"]
    assert u["method"] == "full" and u["precision"] == "fp16" and u["cutoff_len"] == 1024
    assert "weights load in fp32" in _said(d)
    assert d["verdict"] == "fits"


def test_70b_lora_without_quantization_does_not_fit_one_80gb_gpu_per_rank(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"llama3-70b-sft.yml": L70}, "--gpu", "h100", "--gpus", "8")
    u = d["understood"]
    assert u["method"] == "lora" and u["precision"] == "bf16"
    assert u["cutoff_len"] == 2048 and u["micro_batch"] == 1
    assert d["verdict"] == "oom"          # DDP: every rank loads the whole 70B (no torch_dtype: fp32)


def test_the_colab_command_reads_the_2023_spelling(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"cell.sh": COLAB}, "--gpu", "t4")
    u = d["understood"]
    assert u["method"] == "qlora" and u["quant_bits"] == 4 and u["precision"] == "fp16"
    assert u["micro_batch"] == 1 and u["cutoff_len"] == 1024 and u["gradient_checkpointing"] is True
    assert "0.6.21-0.6.51" in _said(d)
    assert d["verdict"] == "fits"


def test_the_later_spelling_reads_peft_quantization_and_mixed_precision(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"run.sh": NEW_CLI.format(extra="")}, "--gpu", "a10")
    u = d["understood"]
    assert u["method"] == "qlora" and u["quant_bits"] == 4 and u["precision"] == "bf16"
    assert u["cutoff_len"] == 2048 and u["micro_batch"] == 2 and u["gradient_checkpointing"] is True
    off = _check(capsys, tmp_path, {"run.sh": NEW_CLI.format(extra="--disable-gc")}, "--gpu", "a10")
    assert off["understood"]["gradient_checkpointing"] is False
    assert off["memory"]["step"]["peak_allocated_bytes"] > d["memory"]["step"]["peak_allocated_bytes"]


def test_a_pinned_2023_release_splits_the_model_in_one_process(offline, tmp_path, capsys):
    cmd = COLAB.replace("--batch-size 1", "--batch-size 4")
    ddp = _check(capsys, tmp_path, {"cell.sh": cmd}, "--gpu", "t4", "--gpus", "2")
    pinned = _check(capsys, tmp_path, {"cell.sh": "!pip install autotrain-advanced==0.6.10\n" + cmd},
                    "--gpu", "t4", "--gpus", "2")
    assert "release 0.6.3-0.6.20" in _said(pinned) and 'device_map="auto"' in _said(pinned)
    assert "DDP" in _said(ddp)
    assert pinned["memory"]["load"]["peak_allocated_bytes"] < ddp["memory"]["load"]["peak_allocated_bytes"]


def test_deepspeed_backend_is_zero3(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"run.sh": NEW_CLI.format(extra="--distributed-backend deepspeed")},
               "--gpu", "a10", "--gpus", "4")
    assert d["understood"]["zero_stage"] == 3


def test_config_command_reads_the_yaml_beside_it_and_says_when_missing(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, {"run.sh": "autotrain --config llama3-8b-orpo.yml\n", "llama3-8b-orpo.yml": ORPO},
               "--gpu", "rtx4090")
    assert d["understood"]["method"] == "qlora" and d["understood"]["stage"] == "dpo"
    (tmp_path / "llama3-8b-orpo.yml").unlink()
    miss = _check(capsys, tmp_path, {"run.sh": "autotrain --config other.yml\n"}, "--gpu", "rtx4090")
    assert any(f["code"] == "reference-missing" for f in miss["findings"])


def test_release_and_spelling_rules():
    fields, old = autotrain.fields_of_flags({"use_int4": ("true", 1), "train_batch_size": ("4", 1)})
    assert old and fields == {"quantization": ("int4", 1), "batch_size": ("4", 1)}
    fields, old = autotrain.fields_of_flags({"use-peft": ("true", 1), "mp": ("bf16", 1)})
    assert not old and fields == {"peft": ("true", 1), "mixed_precision": ("bf16", 1)}
    r, _ = autotrain.release_of({"a": "pip install autotrain-advanced==0.7.40"}, True)
    assert r["name"] == "0.7.32+"
    r, _ = autotrain.release_of({"a": "pip install autotrain-advanced==0.6.40"}, False)
    assert r["name"] == "0.6.21-0.6.51" and r["defaults"]["gradient_accumulation"] == 1
    assert not autotrain.is_config({"task": "text-classification", "base_model": "bert-base-uncased"})
    assert autotrain.entry(["!autotrain", "llm", "--train"]) == 1 and autotrain.entry(["autotrain", "app"]) is None
    assert autotrain.entry(["autotrain", "llm", "--inference", "--model", "gpt2"]) is None
