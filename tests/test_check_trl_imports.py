"""`check` on a TRL program whose trainer is built in another file (issue 26, tenth session): the program imports
the one TRL trainer class it uses (`from trl import DPOTrainer`) and hands the work to a helper
(`trainer = get_local_dpo_trainer(...)`), so no `DPOTrainer(...)` call is in the files. The imported class names
the stage when it is the only trainer class imported. And TRL's early example scripts' `--seq_length`
(examples/research_projects/stack_llama/scripts/supervised_finetuning.py) is the sequence length.

Programs written here in the form of TRL's stack_llama scripts and of federated-learning wrappers around them."""

from __future__ import annotations

import contextlib
import io
import json

from rocm_tune.cli import main

CONFIG = """from dataclasses import dataclass, field
from typing import Optional
from transformers import TrainingArguments


@dataclass
class ScriptArguments:
    model_name_or_path: Optional[str] = field(default="meta-llama/Llama-2-7b-hf")
    batch_size: Optional[int] = field(default=8)
    seq_length: Optional[int] = field(default=512)
    gradient_accumulation_steps: Optional[int] = field(default=1)


def get_training_args(script_args, lr):
    return TrainingArguments(output_dir="out", per_device_train_batch_size=script_args.batch_size,
                             gradient_accumulation_steps=script_args.gradient_accumulation_steps,
                             learning_rate=lr, bf16=True, gradient_checkpointing=True)
"""

MAIN = """import torch
from transformers import AutoModelForCausalLM
from trl import {imports}
from config import ScriptArguments, get_training_args
from local_training import get_local_trainer

model = AutoModelForCausalLM.from_pretrained(script_args.model_name_or_path, torch_dtype=torch.bfloat16)
for rnd in range(10):
    trainer = get_local_trainer(model=model, args=get_training_args(script_args, 5e-5))
    trainer.train()
"""


RUN = """CUDA_VISIBLE_DEVICES=0 python main.py \\
 --model_name_or_path meta-llama/Llama-2-7b-hf \\
 --batch_size 8 \\
 --seq_length 512 \\
 --gradient_accumulation_steps 2
"""


def _check(tmp_path, imports: str, *extra: str) -> dict:
    (tmp_path / "config.py").write_text(CONFIG)
    (tmp_path / "main.py").write_text(MAIN.format(imports=imports))
    (tmp_path / "run.sh").write_text(RUN)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(tmp_path / "run.sh"), str(tmp_path / "main.py"), str(tmp_path / "config.py"),
                   "--gpu", "a100-80gb", *extra, "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def test_the_only_imported_trl_trainer_names_the_stage(tmp_path):
    assert _check(tmp_path, "DPOTrainer")["understood"]["stage"] == "dpo"
    assert _check(tmp_path, "DataCollatorForCompletionOnlyLM, DPOTrainer")["understood"]["stage"] == "dpo"
    assert _check(tmp_path, "ORPOTrainer")["understood"]["reference_model"] is False


def test_two_trainer_classes_name_no_stage(tmp_path):
    # a program importing SFTTrainer and DPOTrainer may run either: the stage stays the default
    assert _check(tmp_path, "SFTTrainer, DPOTrainer")["understood"]["stage"] == "sft"
    assert _check(tmp_path, "SFTTrainer")["understood"]["stage"] == "sft"


def test_seq_length_is_the_sequence_length(tmp_path):
    d = _check(tmp_path, "SFTTrainer")
    assert d["understood"]["cutoff_len"] == 512
    dpo = _check(tmp_path, "DPOTrainer")
    # chosen and rejected of every row in one batch: the DPO step is larger than the SFT step at the same settings
    assert dpo["memory"]["step"]["peak_allocated_bytes"] > d["memory"]["step"]["peak_allocated_bytes"]
