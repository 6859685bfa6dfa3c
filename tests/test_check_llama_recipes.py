"""`check` on meta-llama/llama-recipes (llama-cookbook) `finetuning.py` launches (issue 26 item 2): its own flags,
not TrainingArguments. The launch line is the one of ROCm's blog "PyTorch FSDP on AMD GPUs with ROCm"
(rocm-blogs fsdp-training-pytorch/src/utils/fsdp_ft_single_node_core.sh), which reports Llama-2-70B at batch 4
OOM on 1 and 2 MI300X and trained on 4 and 8."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_tune.cli import main
from rocm_tune.core.formats import shell
from rocm_tune.core.runners import hf

LAUNCH = """#!/bin/bash
#SBATCH --gres=gpu:mi300:8
fine_tune_script="./recipes/quickstart/finetuning/finetuning.py"
srun -l docker exec -w /root/ fsdp torchrun --nnodes 1 --nproc_per_node {n} \\
    $fine_tune_script  --model_name ./meta-llama/Llama-2-{size}-hf \\
    --output_dir ./out --enable_fsdp {extra}\\
    --num_epochs 1 --batch_size_training {bs} \\
    --dataset alpaca_dataset --save_model False \\
    --context_length 4096
"""


def _check(tmp_path: Path, capsys, **kw) -> dict:
    p = tmp_path / "run.sh"
    p.write_text(LAUNCH.format(**{"n": 8, "size": "70b", "bs": 4, "extra": "", **kw}))
    main(["check", str(p), "--gpu", "mi300x", "--json"])
    return json.loads(capsys.readouterr().out)


def test_llama_recipes_flags_are_read(tmp_path, capsys):
    d = _check(tmp_path, capsys)
    u = d["understood"]
    assert d["model"]["name"] == "llama-2-70b"
    assert (u["method"], u["micro_batch"], u["cutoff_len"], u["gpus"]) == ("full", 4, 4096, 8)
    assert u["gradient_checkpointing"] is True         # fsdp_activation_checkpointing defaults to True under FSDP
    assert any("llama-recipes" in n for n in d["notes"])


@pytest.mark.parametrize("n", [1, 2, 4, 8])
def test_llama2_70b_fsdp_verdict_follows_the_gpu_count(tmp_path, capsys, n):
    # bf16-loaded weights and AdamW on them (8 B/param sharded): 70B needs more than 2 x 192 GB, fits 4
    d = _check(tmp_path, capsys, n=n)
    assert d["verdict"] == ("oom" if n <= 2 else "fits"), (n, d["reason"])


def test_activation_checkpointing_off_and_peft_flags(tmp_path, capsys):
    d = _check(tmp_path, capsys, n=8, size="7b", bs=16,
               extra="--fsdp_activation_checkpointing False --use_peft --peft_method lora ")
    u = d["understood"]
    assert d["model"]["name"] == "llama-2-7b"
    assert u["gradient_checkpointing"] is False and u["method"] == "lora"


def test_reader_says_its_defaults():
    flags = shell.flag_values(shell.parse_script("torchrun finetuning.py --model_name m --enable_fsdp\n", "f")
                              .commands[0].tokens)
    assert hf.is_llama_recipes(flags, "finetuning.py")
    st, notes = hf.read_llama_recipes(flags, "f")
    assert st["per_device_train_batch_size"].value == 4 and st["per_device_train_batch_size"].kind == "assumed"
    assert st["cutoff_len"].value == 4096 and st["packing"].value is True
    assert st["load_dtype"].value == "bf16"
    assert any("--batch_size_training 4" in n for n in notes)
    # a TrainingArguments script is not taken for llama-recipes
    assert not hf.is_llama_recipes({"model_name_or_path": ("m", 1), "per_device_train_batch_size": ("2", 1)},
                                   "train.py")
