"""check, integrator rules of session 14: bash quoted strings that run over newlines (Megatron-LM's own example
scripts keep their flags in `GPT_ARGS="<newline> --num-layers 24 \\<newline> ... "` and pass `$GPT_ARGS` unquoted),
and Megatron's attention kernel: `--use-flash-attn`, `--transformer-impl local`, and the cards below compute
capability 8.0 where Transformer Engine runs its unfused attention. Scripts written from Megatron-LM's
examples/gpt3/train_gpt3_175b_distributed.sh and examples/pretrain_gpt.sh (2023), not from the corpus."""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main
from rocm_tune.core import formats
from rocm_tune.core.runners import launchers

MEGATRON_SCRIPT = """#!/bin/bash
# Runs the "345M" parameter model
export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE={gpus}
NNODES=1
CHECKPOINT_PATH=/scratch/ckpt/gpt
VOCAB_FILE=/scratch/gpt2-vocab.json
MERGE_FILE=/scratch/gpt2-merges.txt
DATA_PATH=/scratch/my-gpt2_text_document

DISTRIBUTED_ARGS="
    --nproc_per_node $GPUS_PER_NODE \\
    --nnodes $NNODES
"

GPT_ARGS="
    --num-layers {layers} \\
    --hidden-size {hidden} \\
    --num-attention-heads {heads} \\
    --seq-length {seq} \\
    --max-position-embeddings {seq} \\
    --micro-batch-size {mbs} \\
    --global-batch-size 64 \\
    --lr 0.00015 \\
    --train-iters 500000 \\
    --fp16{extra}
"

DATA_ARGS='
    --data-path $DATA_PATH
    --vocab-file $VOCAB_FILE
    --merge-file $MERGE_FILE
    --split 949,50,1
'

torchrun $DISTRIBUTED_ARGS pretrain_gpt.py \\
    $GPT_ARGS \\
    --vocab-file $VOCAB_FILE \\
    --merge-file $MERGE_FILE \\
    --data-path $DATA_PATH \\
    --save $CHECKPOINT_PATH \\
    --load $CHECKPOINT_PATH
"""


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _script(tmp_path, gpus=1, layers=24, hidden=1024, heads=16, seq=1024, mbs=8, extra=""):
    p = tmp_path / "pretrain_gpt.sh"
    p.write_text(MEGATRON_SCRIPT.format(gpus=gpus, layers=layers, hidden=hidden, heads=heads, seq=seq, mbs=mbs,
                                        extra=extra))
    return p


def _check(capsys, path, gpu):
    rc = main(["check", str(path), "--gpu", gpu, "--json", "--no-app"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def _step(d) -> int:
    return d["memory"]["step"]["peak_allocated_bytes"]


def test_flags_in_a_quoted_string_over_several_lines_are_the_commands_flags(tmp_path):
    job = formats.read_job([str(_script(tmp_path, layers=36, hidden=1280, heads=20, mbs=4))])
    assert job.runner == "megatron"
    model = job.settings["model_name_or_path"]
    assert model.native == "num_layers"              # built from the flags, not the --load checkpoint directory
    assert model.value["num_hidden_layers"] == 36 and model.value["hidden_size"] == 1280
    assert model.value["vocab_size"] == 50304         # GPT-2 BPE 50257 padded to a multiple of 128
    assert str(job.settings["per_device_train_batch_size"].value) == "4"
    assert str(job.settings["cutoff_len"].value) == "1024"


def test_single_quoted_string_over_lines_and_a_stray_quote_that_never_closes(tmp_path):
    text = "ARGS='\n  --lr 1e-4\n  --epochs 3\n'\npython train.py $ARGS --bs 2\n"
    script = launchers.parse_script(text, "run.sh")
    words = [t.text for t in script.commands[-1].tokens]
    assert words[:2] == ["python", "train.py"] and "--epochs" in words and words[-2:] == ["--bs", "2"]
    # an apostrophe with no closing quote anywhere after it (an excerpt) is not a string over the rest of the file
    text = "echo don't stop\npython train.py --bs 4\n"
    script = launchers.parse_script(text, "run.sh")
    assert [t.text for t in script.commands[-1].tokens] == ["python", "train.py", "--bs", "4"]


def test_megatron_below_sm80_runs_the_unfused_attention(offline, tmp_path, capsys):
    p = _script(tmp_path, layers=36, hidden=1280, heads=20, mbs=4)
    v100 = _check(capsys, p, "v100-32gb")
    a100 = _check(capsys, p, "a100-40gb")
    said = " ".join(v100["assumptions"])
    assert "unfused attention keeps the scores" in said
    assert "unfused attention" not in " ".join(a100["assumptions"])
    # 36 layers x 4 x 20 heads x 1024^2 scores: several GiB more than the flash path holds
    assert _step(v100) - _step(a100) > 8 * 2**30
    assert v100["verdict"] == "oom"


def test_megatron_flash_and_local_flags(offline, tmp_path, capsys):
    flash = _check(capsys, _script(tmp_path, extra=" \\\n    --use-flash-attn"), "a100-80gb")
    local = _check(capsys, _script(tmp_path, extra=" \\\n    --transformer-impl local"), "a100-80gb")
    assert "unfused core attention" in " ".join(local["notes"])
    assert _step(local) > _step(flash) + 2**30


UNSLOTH_PROGRAM = """from unsloth import FastLanguageModel
from trl import SFTTrainer
from transformers import TrainingArguments
max_seq_length = 2048
dtype = None
load_in_4bit = True
model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = "unsloth/Meta-Llama-3.1-8B",
    max_seq_length = max_seq_length,
    dtype = dtype,
    load_in_4bit = load_in_4bit,
)
model = FastLanguageModel.get_peft_model(model, r = 16, lora_alpha = 16, use_gradient_checkpointing = "unsloth")
trainer = SFTTrainer(model = model, tokenizer = tokenizer, train_dataset = dataset, dataset_text_field = "text",
    max_seq_length = max_seq_length,
    args = TrainingArguments(per_device_train_batch_size = 2, gradient_accumulation_steps = 4, max_steps = 60,
                             learning_rate = 2e-4, fp16 = not is_bfloat16_supported(), bf16 = is_bfloat16_supported(),
                             optim = "adamw_8bit", output_dir = "outputs"))
trainer.train()
"""


def test_unsloth_dtype_none_on_a_card_without_bf16_runs_fp16_attention(offline, tmp_path, capsys):
    p = tmp_path / "train.py"
    p.write_text(UNSLOTH_PROGRAM)
    t4 = _check(capsys, p, "t4")
    assert "math kernel" not in " ".join(t4["notes"])        # float16 on a T4: SDPA's mem-efficient kernel
    plain = UNSLOTH_PROGRAM.replace("from unsloth import FastLanguageModel\n", "import torch\n").replace(
        "FastLanguageModel.from_pretrained(", "AutoModelForCausalLM.from_pretrained(").replace(
        "dtype = dtype,", "torch_dtype = torch.bfloat16,")
    p.write_text("from transformers import AutoModelForCausalLM\n" + plain)
    bf16 = _check(capsys, p, "t4")
    assert "math kernel" in " ".join(bf16["notes"])          # bf16 asked for on a T4: no bf16 mem-efficient kernel


def test_a_training_arguments_json_given_to_a_program_is_read(offline, tmp_path, capsys):
    """HfArgumentParser.parse_json_file: a program's `--train_args_json FILE` holds TrainingArguments' fields."""
    (tmp_path / "train_args.json").write_text(json.dumps({
        "output_dir": "out", "per_device_train_batch_size": 4, "gradient_accumulation_steps": 8,
        "learning_rate": 1e-4, "num_train_epochs": 1, "gradient_checkpointing": True, "bf16": True,
        "evaluation_strategy": "no", "optim": "adamw_torch"}, indent=2))
    (tmp_path / "run.sh").write_text("python train.py --train_args_json train_args.json "
                                     "--model_name_or_path Qwen/Qwen2.5-7B-Instruct --max_len 1024\n")
    rc = main(["check", str(tmp_path / "train_args.json"), str(tmp_path / "run.sh"), "--gpu", "a100-80gb",
               "--json", "--no-app"])
    d = json.loads(capsys.readouterr().out)
    assert rc in (0, 1)
    assert "format-unknown" not in [f["code"] for f in d["findings"]]
    u = d["understood"]
    assert u["micro_batch"] == 4 and u["gradient_checkpointing"] is True and u["precision"] == "bf16"
    assert "TrainingArguments as a file" in " ".join(d["notes"])
    # a JSON that is not TrainingArguments stays unknown
    (tmp_path / "other.json").write_text(json.dumps({"name": "x", "learning_rate": 1e-4, "seed": 1}))
    main(["check", str(tmp_path / "other.json"), str(tmp_path / "run.sh"), "--gpu", "a100-80gb", "--json",
          "--no-app"])
    assert "format-unknown" in [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]


def test_an_apostrophe_in_a_here_document_opens_no_string(tmp_path):
    text = ("cat > notes.txt <<EOF\nDon't forget the data\nEOF\n"
            "torchrun --nproc_per_node 8 train.py --run_name 'qwen-sft' --bf16 True\n")
    script = launchers.parse_script(text, "run.sh")
    words = [t.text for t in script.commands[-1].tokens]
    assert words[:3] == ["torchrun", "--nproc_per_node", "8"] and "--run_name" in words and words[-2:] == ["--bf16", "True"]
