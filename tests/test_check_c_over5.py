"""Settings check read wrongly in runs that fit (helper c-over5, issue 26). Every file is written for the test from the
sources named; none is a corpus case.

* shuxueslpi/chatGLM-6B-QLoRA train_qlora.py (--train_args_json FILE, a TrainingArguments JSON): the program calls
  PEFT's prepare_model_for_kbit_training(model, use_gradient_checkpointing=True) itself, so gradient checkpointing is
  on whatever the JSON says, and it cuts every sample at max_input_length + max_output_length (512 + 1536 by
  default; DataCollatorForChatGLM pads each batch to its longest), with LoRA on PEFT's chatglm targets
  (query_key_value). Firefly's train_qlora.py (--train_args_file) passes
  its TrainingArguments' gradient_checkpointing instead: not read as forced."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main

# the README's default TrainingArguments file of chatGLM-6B-QLoRA, as its keys are written there (values of our own)
ARGS = {"output_dir": "saved_files/glm2_qlora", "per_device_train_batch_size": 2, "gradient_accumulation_steps": 16,
        "learning_rate": 0.0002, "num_train_epochs": 2.0, "lr_scheduler_type": "cosine", "logging_steps": 10,
        "save_strategy": "epoch", "optim": "adamw_torch", "fp16": False, "remove_unused_columns": False,
        "ddp_find_unused_parameters": False, "seed": 7}


def _check(tmp_path: Path, capsys, files: dict[str, str], *args: str) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    rc = main(["check", *[str(tmp_path / n) for n in files], *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _said(out: dict, words: str) -> bool:
    return any(words in str(a) for a in [*out.get("assumptions", []), *out.get("notes", [])])


def _glm_launch(extra: str = "") -> str:
    return ("python3 train_qlora.py \\\n  --train_args_json glm_args.json \\\n  --model_name_or_path THUDM/chatglm2-6b \\\n"
            "  --train_data_path data/train.jsonl \\\n  --lora_rank 8 \\\n  --compute_dtype fp16" + extra + "\n")


def test_chatglm_qlora_program_turns_checkpointing_on(tmp_path, capsys):
    out = _check(tmp_path, capsys, {"glm_args.json": json.dumps(ARGS), "run.sh": _glm_launch()},
                 "--gpu", "rtx4090", "--gpus", "1")
    u = out["understood"]
    assert u["gradient_checkpointing"] is True
    assert u["method"] == "qlora" and u["micro_batch"] == 2
    # LoraConfig(target_modules=TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING['chatglm'])
    assert u["lora_targets"] == ["query_key_value"]
    # the program's own defaults: 512 + 1536
    assert u["cutoff_len"] == 2048
    assert _said(out, "prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)")


def test_chatglm_qlora_program_ignores_the_json_switch_and_sums_its_lengths(tmp_path, capsys):
    args = dict(ARGS, gradient_checkpointing=False)
    out = _check(tmp_path, capsys, {"glm_args.json": json.dumps(args),
                                    "run.sh": _glm_launch(" \\\n  --max_input_length 300 \\\n  --max_output_length 200")},
                 "--gpu", "rtx4090", "--gpus", "1")
    u = out["understood"]
    assert u["gradient_checkpointing"] is True
    assert u["cutoff_len"] == 500
    assert _said(out, "max_input_length 300 + max_output_length 200")


def test_checkpointing_changes_the_verdict(tmp_path, capsys):
    # batch 6 of 2048-token samples on a 24 GiB card: over without checkpointing, under with it (as the program runs)
    args = dict(ARGS, per_device_train_batch_size=6)
    on = _check(tmp_path, capsys, {"glm_args.json": json.dumps(args), "run.sh": _glm_launch()},
                "--gpu", "rtx4090", "--gpus", "1")
    other = tmp_path / "other"
    other.mkdir()
    off = _check(other, capsys, {"glm_args.json": json.dumps(dict(args, gradient_checkpointing=False)),
                                 "run.sh": _glm_launch().replace("train_qlora.py", "finetune_qlora.py")},
                 "--gpu", "rtx4090", "--gpus", "1")
    assert off["understood"]["gradient_checkpointing"] is False
    peak = lambda o: o["memory"]["step"]["peak_allocated_bytes"]  # noqa: E731
    assert peak(on) < peak(off)


def test_firefly_train_qlora_follows_its_training_arguments(tmp_path, capsys):
    # yangjianxin1/Firefly train_qlora.py: prepare_model_for_kbit_training(model,
    # use_gradient_checkpointing=training_args.gradient_checkpointing): the JSON's value stands
    ff = {"output_dir": "output/firefly-qwen-7b", "model_name_or_path": "Qwen/Qwen-7B-Chat",
          "train_file": "./data/dummy_data.jsonl", "num_train_epochs": 1, "per_device_train_batch_size": 4,
          "gradient_accumulation_steps": 4, "learning_rate": 0.0002, "max_seq_length": 1024, "lora_rank": 64,
          "lora_alpha": 16, "lora_dropout": 0.05, "fp16": True, "gradient_checkpointing": False}
    out = _check(tmp_path, capsys, {"qlora.json": json.dumps(ff),
                                    "run.sh": "torchrun --nproc_per_node=1 train_qlora.py --train_args_file qlora.json\n"},
                 "--gpu", "a100-80gb", "--gpus", "1")
    assert out["understood"]["gradient_checkpointing"] is False
    assert not _said(out, "use_gradient_checkpointing=True")
