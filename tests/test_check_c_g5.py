"""Launch scripts read the way bash runs them (issue 26, c-g5), scripts written here from bash's rules:
- an unquoted ``$args`` / ``${args}`` holding the training's flags is split on whitespace (bash word splitting), so
  ``args="--model_name_or_path ... --stage dpo"`` then ``deepspeed src/train_bash.py $args`` passes those flags;
  a quoted ``"$args"`` stays one word;
- a line of the training command without its trailing backslash ends the command: the lines after it
  (``--deepspeed ds_z3.json``) are a separate command that fails, so their flags never reach the program and a
  DeepSpeed JSON they name, given beside the script, is not the training's."""

from __future__ import annotations

import json

from rocm_tune.cli import main
from rocm_tune.core.formats import read_texts
from rocm_tune.core.runners.launchers import parse_script

ARGS_VAR = """#!/bin/bash
MODEL=Qwen/Qwen2.5-7B-Instruct
args="--model_name_or_path ${MODEL} \\
    --stage dpo --finetuning_type lora \\
    --template qwen \\
    --cutoff_len 3072 \\
    --per_device_train_batch_size 2 \\
    --lr_scheduler_type "cosine" \\
    --bf16"
CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 src/train.py ${args} --output_dir out
"""


def test_unquoted_variable_of_flags_is_split_into_the_programs_arguments():
    cmd = parse_script(ARGS_VAR, "run.sh").commands[-1]
    assert cmd.argv[:6] == ["torchrun", "--nproc_per_node", "2", "src/train.py", "--model_name_or_path",
                            "Qwen/Qwen2.5-7B-Instruct"]
    assert cmd.argv[-2:] == ["--output_dir", "out"]
    assert "cosine" in cmd.argv and "--bf16" in cmd.argv
    job = read_texts({"run.sh": ARGS_VAR})
    assert job.runner == "llamafactory"
    assert str(job.get("stage")) == "dpo"
    assert int(job.get("cutoff_len")) == 3072
    assert int(job.get("per_device_train_batch_size")) == 2


def test_quoted_variable_stays_one_word_and_each_occurrence_is_judged_alone():
    text = 'A="--x 1  --y 2"\nrun "$A" ${A} $A "${A}" $UNSET\n'
    assert parse_script(text, "a.sh").commands[-1].argv == [
        "run", "--x 1  --y 2", "--x", "1", "--y", "2", "--x", "1", "--y", "2", "--x 1  --y 2", "$UNSET"]


DETACHED = """deepspeed --num_gpus 4 src/train.py \\
    --stage sft --do_train \\
    --model_name_or_path Qwen/Qwen2.5-7B-Instruct \\
    --finetuning_type full --template qwen \\
    --per_device_train_batch_size 1 \\
    --bf16
    --deepspeed ds_z3.json \\
    --gradient_checkpointing
"""

DS_Z3 = json.dumps({"train_micro_batch_size_per_gpu": "auto", "bf16": {"enabled": "auto"},
                    "zero_optimization": {"stage": 3}})


def test_flags_after_a_missing_backslash_never_reach_the_program():
    job = read_texts({"train.sh": DETACHED, "ds_z3.json": DS_Z3})
    found = [f for f in job.findings if f.code == "shell-missing-backslash"]
    assert len(found) == 1 and found[0].line == 6
    assert "lines 7-8" in found[0].message and "--deepspeed, --gradient_checkpointing" in found[0].message
    assert job.ds is None                                  # the JSON named only by the detached line
    assert job.get("deepspeed") is None
    # the same script with its backslash: the JSON is the training's, and nothing is reported
    joined = read_texts({"train.sh": DETACHED.replace("--bf16\n", "--bf16 \\\n"), "ds_z3.json": DS_Z3})
    assert joined.ds is not None and joined.ds.stage == 3
    assert not [f for f in joined.findings if f.code == "shell-missing-backslash"]


def test_a_json_the_training_names_itself_is_kept_and_a_later_command_is_not_detached():
    named = DETACHED.replace("--stage sft", "--stage sft --deepspeed ds_z3.json")
    job = read_texts({"train.sh": named, "ds_z3.json": DS_Z3})
    assert job.ds is not None and job.ds.stage == 3
    apart = DETACHED.replace("--bf16\n", "--bf16\n\n")     # a blank line: not a continuation that lost its backslash
    assert not [f for f in read_texts({"train.sh": apart}).findings if f.code == "shell-missing-backslash"]


def test_check_answers_without_deepspeed_for_the_detached_line(capsys):
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for name, text in (("train.sh", DETACHED), ("ds_z3.json", DS_Z3)):
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(text)
        rc = main(["check", os.path.join(d, "train.sh"), os.path.join(d, "ds_z3.json"),
                   "--gpu", "a100-80gb", "--gpus", "4", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1, 3)
    assert out["understood"]["zero_stage"] == 0
    assert any(f["code"] == "shell-missing-backslash" for f in out["findings"])
    assert out["verdict"] == "oom"          # full fine-tuning of 7.6B with AdamW, unsharded, on 80 GB


LF_YAML = """model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
dataset: alpaca_en_demo
template: llama3
cutoff_len: 2048
output_dir: saves/x
per_device_train_batch_size: 1
bf16: true
"""


def _lf_note(files: dict[str, str], gpus: int) -> str | None:
    from rocm_tune.core.runners.llamafactory import cli_release_note

    return cli_release_note(read_texts(files), gpus)


def test_which_llamafactory_release_decides_the_cli_launch_on_several_gpus():
    bare = {"sft.yaml": LF_YAML, "run.sh": "CUDA_VISIBLE_DEVICES=0,1,2,3 llamafactory-cli train sft.yaml\n"}
    assert _lf_note(bare, 4) is None              # no pin: every release since 0.8.0 starts torchrun (no noise)
    assert _lf_note(bare, 1) is None                                   # one GPU: one process either way
    forced = {**bare, "run.sh": "FORCE_TORCHRUN=1 llamafactory-cli train sft.yaml\n"}
    assert _lf_note(forced, 4) is None
    new = {**bare, "requirements.txt": "torch>=2.1\nllamafactory==0.9.1\n"}
    assert _lf_note(new, 4) is None                                    # pinned at a release that starts torchrun
    old = {**bare, "requirements.txt": "llamafactory[torch,metrics]==0.7.1\n"}
    pinned = _lf_note(old, 4)
    assert pinned is not None and "0.7 pinned" in pinned and "DataParallel" in pinned
    torchrun = {**bare, "run.sh": "torchrun --nproc_per_node 4 src/train.py sft.yaml\n"}
    assert _lf_note(torchrun, 4) is None                               # its own launcher: torchrun either way
