"""Launch scripts as users run them (issue 26 item 2), each from a real source:
- torchrun's elastic `--nnodes MIN:MAX` (torch/distributed/run.py parse_min_max_nnodes) is a node count, read as MIN;
- `--block_size` (transformers' run_clm.py and the scripts built on it, e.g. simplescaling/s1 train/sft.py) is the
  sequence length;
- a data-preparation command before the training (`python3 examples/data_preprocess/gsm8k.py --local_dir ...` in
  verl's ROCm tutorial) is not the training when a later command is one;
- a `.py` program whose docstring shows a shell line with backslash continuations is still a Python program (its
  argparse defaults name the model);
- AMD's Megatron-LM launchers (`MBS=2 TP=1 MODEL_SIZE=8 bash examples/llama/train_llama3.sh`, ROCm/Megatron-LM) are
  read from the variables they take, with the script's defaults; Megatron-LM writes no checkpoint without --save."""

from __future__ import annotations

import json

from rocm_tune.cli import main
from rocm_tune.core.formats import read_texts

ELASTIC = """NUM_NODES=${NUM_NODES:-2}
torchrun --nnodes ${NUM_NODES}:${NUM_NODES} --node_rank=$RANK --nproc-per-node 8 \\
  train/sft.py --block_size=32768 --model_name=Qwen/Qwen2.5-32B-Instruct --per_device_train_batch_size=1 \\
  --fsdp="full_shard auto_wrap" --bf16=True --gradient_checkpointing=True --save_only_model=True
"""


def test_elastic_nnodes_is_a_node_count_and_block_size_the_length():
    job = read_texts({"sft.sh": ELASTIC})
    assert job.get("__bad_value__") is None
    assert job.nodes is not None and job.nodes.value == 2
    assert int(job.get("cutoff_len")) == 32768
    assert str(job.get("save_only_model")) == "True"
    lo_hi = read_texts({"x.sh": ELASTIC.replace("${NUM_NODES}:${NUM_NODES}", "1:4")})
    assert lo_hi.nodes.value == 1                       # the fewest nodes it may start with
    bad = read_texts({"x.sh": ELASTIC.replace("${NUM_NODES}:${NUM_NODES}", "4:1")})
    assert bad.get("__bad_value__") == "4:1"            # MIN above MAX: torchrun refuses it


VERL = """GPUS_PER_NODE=8
MODEL_PATH=Qwen/Qwen2.5-0.5B-Instruct
python3 examples/data_preprocess/gsm8k.py --local_dir data/gsm8k
python3 -m verl.trainer.main_ppo \\
 data.train_batch_size=256 data.max_prompt_length=512 data.max_response_length=256 \\
 actor_rollout_ref.model.path=$MODEL_PATH \\
 actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \\
 trainer.n_gpus_per_node=$GPUS_PER_NODE trainer.nnodes=1
"""


def test_a_preparation_step_before_the_training_is_not_the_training():
    job = read_texts({"run.sh": VERL})
    assert job.entry.startswith("verl ") and job.get("model_name_or_path") == "Qwen/Qwen2.5-0.5B-Instruct"
    assert any("gsm8k.py) is not read as the training" in n for n in job.notes)
    alone = read_texts({"prep.sh": "python3 examples/data_preprocess/gsm8k.py --local_dir data/gsm8k\n"})
    assert alone.entry == "examples/data_preprocess/gsm8k.py"   # no later training: the only program stays it


PROGRAM = '''#!/usr/bin/env python3
"""Invoked as:
    python3 train.py --output-dir /srv/ft/out --bf16-lora \\\\
        --lora-r 128 --epochs 2
"""
import argparse

from transformers import AutoModelForCausalLM
from trl import SFTConfig, SFTTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-model", default="Qwen/Qwen2.5-7B-Instruct")
    parser.add_argument("--max-seq-length", type=int, default=4096)
    args = parser.parse_args()
    model = AutoModelForCausalLM.from_pretrained(args.base_model, torch_dtype="bfloat16")
    config = SFTConfig(output_dir="out", per_device_train_batch_size=1, max_length=args.max_seq_length,
                       gradient_checkpointing=True, bf16=True)
    SFTTrainer(model=model, args=config).train()


main()
'''


def test_a_python_program_with_a_shell_line_in_its_docstring_is_python(tmp_path, monkeypatch, capsys):
    d = _check(tmp_path, monkeypatch, capsys, PROGRAM, "--gpu", "mi300x", name="train.py")
    assert d["model"]["name"] == "qwen2.5-7b" and d["verdict"] == "fits"


def _check(tmp_path, monkeypatch, capsys, text: str, *args: str, name: str = "launch.sh") -> dict:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    p = tmp_path / name
    p.write_text(text)
    main(["check", str(p), *args, "--json", "--no-app"])
    return json.loads(capsys.readouterr().out)


def test_amd_megatron_llama3_launcher_is_read_from_its_variables(tmp_path, monkeypatch, capsys):
    d = _check(tmp_path, monkeypatch, capsys,
               "cd /workspace/Megatron-LM\nTEE_OUTPUT=1 MBS=2 BS=128 TP=1 TE_FP8=0 SEQ_LENGTH=8192 MODEL_SIZE=8 "
               "TOTAL_ITERS=50 bash examples/llama/train_llama3.sh\n", "--gpu", "mi300x", "--gpus", "8")
    u = d["understood"]
    assert d["model"]["name"] == "llama-3.1-8b" and u["cutoff_len"] == 8192 and u["micro_batch"] == 2
    assert d["runner"] == "megatron" and d["verdict"] == "fits"
    assert "disk-will-fill" not in {f["code"] for f in d["findings"]}     # no --save: Megatron writes nothing
    # the script's own defaults: MODEL_SIZE 70, TP 8, MBS 2, SEQ_LENGTH 2048; KEY=VALUE arguments count too
    d70 = _check(tmp_path, monkeypatch, capsys, "bash examples/llama/train_llama3.sh SEQ_LENGTH=4096\n",
                 "--gpu", "mi300x", "--gpus", "8")
    assert d70["model"]["name"] == "llama-3.1-70b" and d70["understood"]["cutoff_len"] == 4096
    assert any("TP 8" in n for n in d70["notes"])


def test_amd_megatron_deepseek_launcher_fixes_its_gpus(tmp_path, monkeypatch, capsys):
    d = _check(tmp_path, monkeypatch, capsys, "GEMM_TUNING=1 PR=bf16 MBS=4 AC=none SEQ_LEN=4096 PAD_LEN=4096 "
               "bash examples/deepseek_v2/train_deepseekv2.sh\n", "--gpu", "mi300x")
    assert d["model"]["name"] == "deepseek-v2-lite" and d["understood"]["cutoff_len"] == 4096
    assert d["world_size"] == 8 and any("EP 8" in n for n in d["notes"])


FASTCHAT = """deepspeed --include localhost:3 fastchat/train/train_lora.py \\
    --model_name_or_path ./models/vicuna-7B --lora_r 8 --lora_alpha 16 --fp16 True \\
    --per_device_train_batch_size 1 --model_max_length 2048 --q_lora True
"""


def test_fastchat_lora_program_qlora_flag_and_vicuna_shape():
    job = read_texts({"train_lora.sh": FASTCHAT})
    assert job.get("finetuning_type") == "lora" and int(job.get("quantization_bit")) == 4
    plain = read_texts({"train_lora.sh": FASTCHAT.replace(" --q_lora True", "")})
    assert plain.get("finetuning_type") == "lora" and plain.get("quantization_bit") is None
    assert any("a LoRA training program by its name" in n for n in plain.notes)
    full = read_texts({"train.sh": FASTCHAT.replace("train_lora.py", "train_mem.py").replace(" --q_lora True", "")})
    assert full.get("finetuning_type") is None          # no LoRA flag, no LoRA program: the method is not read


def test_vicuna_is_its_llama_base_shape(tmp_path, monkeypatch, capsys):
    d = _check(tmp_path, monkeypatch, capsys, FASTCHAT, "--gpu", "v100-32gb", name="train_lora.sh")
    assert d["model"]["name"] == "llama-2-7b" and d["understood"]["method"] == "qlora"


DATACLASS_PROGRAM = '''from dataclasses import dataclass, field
from typing import Optional

from transformers import AutoModelForCausalLM, HfArgumentParser, TrainingArguments
from trl import SFTTrainer


@dataclass
class ScriptArguments:
    model_name: Optional[str] = field(default="meta-llama/Llama-2-7b-hf", metadata={"help": "the model name"})
    seq_length: Optional[int] = field(default=1024)


script_args, training_args = HfArgumentParser((ScriptArguments, TrainingArguments)).parse_args_into_dataclasses()
base_model = AutoModelForCausalLM.from_pretrained(script_args.model_name, device_map={"": 0})
trainer = SFTTrainer(model=base_model, args=TrainingArguments(output_dir="out", per_device_train_batch_size=4),
                     max_seq_length=script_args.seq_length)
'''

DS_PROGRAM = '''import deepspeed
import torch
from transformers import Qwen2VLForConditionalGeneration

MODEL_ID = "Qwen/Qwen2-VL-2B-Instruct"


def main():
    model = Qwen2VLForConditionalGeneration.from_pretrained(MODEL_ID, torch_dtype=torch.float16)
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config="ds.json")
'''
DS_JSON = '{"train_micro_batch_size_per_gpu": 3, "fp16": {"enabled": true}, "zero_optimization": {"stage": 2}}'


def test_a_dataclass_field_default_names_the_model():
    job = read_texts({"sft_llama2.py": DATACLASS_PROGRAM})
    assert job.get("model_name_or_path") == "meta-llama/Llama-2-7b-hf"


def test_a_native_deepspeed_program_runs_its_json():
    job = read_texts({"train_ds.py": DS_PROGRAM, "ds.json": DS_JSON,
                      "run.sh": "deepspeed --num_gpus=2 train_ds.py --max-steps 20\n"})
    assert job.get("model_name_or_path") == "Qwen/Qwen2-VL-2B-Instruct"      # the constant from_pretrained loads
    assert int(job.get("per_device_train_batch_size")) == 3 and str(job.get("fp16")) == "True"
    assert any("calls deepspeed.initialize itself" in n for n in job.notes)
    with_trainer = DS_PROGRAM + "\nfrom transformers import Trainer\nTrainer(model=None)\n"
    hf = read_texts({"train_ds.py": with_trainer, "ds.json": DS_JSON,
                     "run.sh": "deepspeed --num_gpus=2 train_ds.py --max-steps 20\n"})
    assert not any("calls deepspeed.initialize itself" in n for n in hf.notes)


def test_amd_launcher_given_with_the_command_that_runs_it():
    launcher = ("#!/bin/bash\nMODEL_SIZE=\"${MODEL_SIZE:-70}\"\nrun_cmd=\"torchrun $DISTRIBUTED_ARGS pretrain_gpt.py "
                "--tensor-model-parallel-size ${TP} --micro-batch-size $MBS\"\neval $run_cmd\n")
    job = read_texts({"examples/llama/train_llama3.sh": launcher,
                      "run.sh": "MBS=2 TP=1 SEQ_LENGTH=8192 MODEL_SIZE=8 bash examples/llama/train_llama3.sh\n"})
    assert job.entry == "ROCm Megatron-LM train_llama3.sh"
    assert job.get("model_name_or_path") == "meta-llama/Llama-3.1-8B" and int(job.get("cutoff_len")) == 8192


OWN_MODEL = '''import torch
import torch.distributed as dist
from dataclasses import dataclass
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP, MixedPrecision, ShardingStrategy


@dataclass
class LLaMAConfig:
    n_layers: int = 32
    n_heads: int = 32
    n_kv_heads: int = 8
    d_embd: int = 4096
    d_hid: int = 14336
    vocab_size: int = 128256
    max_seq_len: int = 4096


def train(rank, world_size, bsz):
    model = build(LLaMAConfig())     # a SwiGLU decoder of these dimensions
    model = FSDP(model, sharding_strategy=ShardingStrategy.FULL_SHARD,
                 mixed_precision=MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.float32))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
'''

GPT = '''import fire


def train(bsz: int = 14):
    cfg_json = {"n_layers": 48, "n_heads": 25, "d_embd": 1600, "max_seq_len": 1024, "vocab_size": 50304}
    model = GPT(cfg_json)
    torch.save(model.state_dict(), "gpt.pt")
'''


def test_a_model_built_from_the_programs_own_dimensions(tmp_path, monkeypatch, capsys):
    (tmp_path / "run.sh").write_text("python ./train_fsdp.py --bsz=2\n")
    d = _check(tmp_path, monkeypatch, capsys, OWN_MODEL, str(tmp_path / "run.sh"), "--gpu", "mi300x", "--gpus", "8",
               name="train_fsdp.py")
    assert d["model"]["name"] == "custom" and d["verdict"] == "fits" and d["understood"]["micro_batch"] == 2
    u = d["understood"]
    assert u["cutoff_len"] == 4096 and u["precision"] == "bf16" and "FSDP" in json.dumps(d)
    assert "disk-will-fill" not in {f["code"] for f in d["findings"]}          # the program saves nothing
    job = read_texts({"train_fsdp.py": OWN_MODEL})
    shape = job.get("model_name_or_path")
    assert shape["model_type"] == "llama" and shape["num_hidden_layers"] == 32 and shape["num_key_value_heads"] == 8
    assert job.get("fsdp") == "full_shard" and job.get("save_strategy") == "no"
    gpt = read_texts({"reprod.py": GPT, "run.sh": "python ./reprod.py --bsz=14\n"})
    g = gpt.get("model_name_or_path")
    assert g["model_type"] == "gpt_neox" and g["intermediate_size"] == 4 * 1600 and g["num_hidden_layers"] == 48
    assert int(gpt.get("per_device_train_batch_size")) == 14 and gpt.get("save_strategy") is None   # it saves
