"""check's fix on a one-line launch and on a program with its own argparse options (issue 25 item 19: "--fix on a
Python program writes shell lines into it"; the same family): the flag joins the command's words before its
redirections (a continuation line after `... > log 2>&1 &` is a separate command the shell would run), and a
flag the program would refuse ("unrecognized arguments") or ignore is said as a TrainingArguments keyword instead."""

from __future__ import annotations

import subprocess

from rocm_tune.core.check.check import check

PROGRAM = '''import argparse
from transformers import AutoModelForCausalLM, TrainingArguments, Trainer
ap = argparse.ArgumentParser()
ap.add_argument("--batch-size", type=int, default=4)
a = ap.parse_args()
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-14B-Instruct", torch_dtype="bfloat16")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=a.batch_size, bf16=True)
Trainer(model=model, args=args).train()
'''
LAUNCH = '''#!/bin/bash
cd "$(dirname "$0")"
nohup python3 train.py --batch-size 2 > train.log 2>&1 &
echo "started pid $!"
'''
HF_LAUNCH = '''#!/bin/bash
nohup python3 run_clm.py --model_name_or_path Qwen/Qwen2.5-14B --per_device_train_batch_size 2 --bf16 True \
--output_dir out > train.log 2>&1 &
echo "started pid $!"
'''.replace("\\\n", "")


def _write(d, name, text):
    p = d / name
    p.write_text(text)
    return str(p)


def test_a_program_with_its_own_argparse_gets_only_what_it_takes(tmp_path):
    rep = check([_write(tmp_path, "train.py", PROGRAM), _write(tmp_path, "run.sh", LAUNCH)], gpu_id="rx7900xtx")
    assert rep.verdict == "oom"                         # a 14B full fine-tune on 24 GiB
    fix = rep.fix
    assert fix["changes"]["per_device_train_batch_size"] == 1
    # its own --batch-size (argparse dest batch_size) is changed in place
    assert "nohup python3 train.py --batch-size 1 > train.log 2>&1 &" in fix["files"]["run.sh"]
    # --gradient_accumulation_steps / --deepspeed: train.py defines neither, argparse would stop the run
    assert "--gradient_accumulation_steps" not in fix["files"]["run.sh"]
    assert "--deepspeed" not in fix["files"]["run.sh"]
    assert any(m.startswith("gradient_accumulation_steps=") for m in fix["manual"])
    assert any(m.startswith("deepspeed=") for m in fix["manual"])


def test_a_one_line_command_takes_the_flags_before_its_redirections(tmp_path):
    rep = check([_write(tmp_path, "run2.sh", HF_LAUNCH)], gpu_id="rx7900xtx")
    text = rep.fix["files"]["run2.sh"]
    line = next(ln for ln in text.splitlines() if ln.startswith("nohup"))
    assert "--per_device_train_batch_size 1 " in line
    assert line.index("--gradient_accumulation_steps 2") < line.index("> train.log")
    assert line.index("--deepspeed ") < line.index("> train.log") and line.endswith("2>&1 &")
    assert len(text.splitlines()) == len(HF_LAUNCH.splitlines())       # no line added after the command
    fixed = tmp_path / "fixed.sh"
    fixed.write_text(text)
    assert subprocess.run(["bash", "-n", str(fixed)], capture_output=True).returncode == 0
