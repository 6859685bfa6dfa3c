"""Models named the way programs name them (issue 26 item 1): Python-safe spellings of a version and a size, and a
path the program builds from constants (`BASE_DIR / "data" / "qwen35_9b_base"`, `os.path.join(...)`), read as the
model's name. Case: ASEbrahim/stratos (RX 7900 XTX), benchmarks/corpus/configs/rocm-stratos-v22-* (fit)."""

from __future__ import annotations


import pytest

from rocm_tune.core.check.check import check
from rocm_tune.core.model.names import parse_name


@pytest.mark.parametrize("name, series, size, active", [
    ("llama3_8b", "llama3", 8.0, None),             # a version and a size, not "3.8B"
    ("qwen35_9b_base", "qwen3.5", 9.0, None),      # Qwen3.5 written without the dot
    ("qwen3_5_9b", "qwen3.5", 9.0, None),           # version 3.5, size 9B
    ("qwen2_5_7b", "qwen2.5", 7.0, None),
    ("internlm2_5_7b_chat", "internlm2.5", 7.0, None),
    ("llama3_1_8b_instruct", "llama3.1", 8.0, None),
    ("qwen1_5_moe_a2_7b", "qwen1.5moe", None, 2.7),  # an active size keeps its decimal
    ("Qwen2___5-7B-Instruct", "qwen2.5", 7.0, None),  # ModelScope's ___ for "."
])
def test_python_safe_spellings(name, series, size, active):
    p = parse_name(name)
    assert (p.series, p.size_b, p.active_b) == (series, size, active)


PROGRAM = '''import os
from pathlib import Path
from transformers import AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
from trl import SFTConfig, SFTTrainer

BASE_DIR = Path(__file__).resolve().parent.parent  # backend/
MODEL_DIR = BASE_DIR / "data" / "v2_pipeline" / "{leaf}"

model = AutoModelForCausalLM.from_pretrained(str(MODEL_DIR), torch_dtype="bfloat16")
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear"))
args = SFTConfig(output_dir="out", per_device_train_batch_size=2, max_length=512, bf16=True,
                 gradient_checkpointing=True)
SFTTrainer(model=model, args=args).train()
'''


def test_model_path_built_from_constants_names_the_model(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(PROGRAM.format(leaf="qwen35_9b_base"))
    rep = check([str(p)], gpu_id="rx7900xtx")
    assert rep.model.name == "qwen3.5-9b"           # qwen35: Qwen3.5 written without the dot (a preset since c-unk3)
    assert 8e9 < rep.model.params.total < 10e9            # a ~9B model, not 35.9B
    assert rep.verdict == "fits"                    # LoRA at 2 x 512 on 24 GiB: the stratos run trained
    # the base of the path is not a literal (Path(__file__)...): the folders after it are what is read
    assert rep.job.get("model_name_or_path") == "data/v2_pipeline/qwen35_9b_base"


def test_os_path_join_and_a_path_with_no_model_name(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(PROGRAM.replace('BASE_DIR / "data" / "v2_pipeline" / "{leaf}"',
                                 'os.path.join("/models", "Qwen2.5-7B-Instruct")'))
    assert check([str(p)], gpu_id="rx7900xtx").model.name == "qwen2.5-7b"
    q = tmp_path / "merged.py"
    q.write_text(PROGRAM.format(leaf="v1_merged_base"))     # the folder does not name the model: one question
    rep = check([str(q)], gpu_id="rx7900xtx")
    assert rep.verdict == "unknown" and "--model" in rep.reason
