"""check, integrator rules of session 13: alpaca-lora's finetune.py (tloen/alpaca-lora) loads the base model in
8-bit (`load_in_8bit=True, torch_dtype=torch.float16`), prepares it with PEFT's prepare_model_for_int8_training
(gradient checkpointing on) and trains LoRA r8 on q_proj,v_proj with fp16, evaluating while val_set_size > 0.
Commands written from the repo's README (`python finetune.py --base_model ... --micro_batch_size ...`)."""

from __future__ import annotations

import json

import pytest

from rocm_tune.cli import main

README_CMD = """python finetune.py \\
    --base_model '{model}' \\
    --data_path 'yahma/alpaca-cleaned' \\
    --output_dir './lora-alpaca' \\
    --batch_size 128 \\
    --micro_batch_size {mb} \\
    --num_epochs 3 \\
    --learning_rate 1e-4 \\
    --cutoff_len 512 \\
    --val_set_size {val} \\
    --lora_r 8 \\
    --lora_alpha 16 \\
    --lora_dropout 0.05 \\
    --lora_target_modules '[q_proj,v_proj]' \\
    --train_on_inputs \\
    --group_by_length
"""


@pytest.fixture
def offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _check(capsys, tmp_path, text, gpu="rtx4090", name="finetune.sh"):
    (tmp_path / name).write_text(text)
    rc = main(["check", str(tmp_path / name), "--gpu", gpu, "--json", "--no-app"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


def _said(d) -> str:
    return " ".join(d.get("notes", []) + d.get("assumptions", []))


@pytest.mark.parametrize("model,mb,gpu,verdict", [
    ("huggyllama/llama-7b", 4, "rtx4090", "fits"),
    ("huggyllama/llama-13b", 4, "rtx4090", "fits"),      # 8-bit 13B: ~13 GiB of weights; 16-bit would not load
    ("huggyllama/llama-30b", 4, "a100-80gb", "fits"),
])
def test_alpaca_lora_readme_command_is_an_8bit_lora(offline, tmp_path, capsys, model, mb, gpu, verdict):
    d = _check(capsys, tmp_path, README_CMD.format(model=model, mb=mb, val=2000), gpu=gpu)
    assert d["verdict"] == verdict
    assert "alpaca-lora's finetune.py" in _said(d) and "load_in_8bit=True" in _said(d)
    assert d["understood"]["method"] == "qlora" and d["understood"]["quant_bits"] == 8
    assert d["understood"]["gradient_checkpointing"] is True and d["understood"]["precision"] == "fp16"
    assert d["memory"]["eval"]["peak_allocated_bytes"] > 0


def test_no_validation_set_means_no_evaluation(offline, tmp_path, capsys):
    d = _check(capsys, tmp_path, README_CMD.format(model="huggyllama/llama-7b", mb=4, val=0))
    assert d["memory"]["eval"] is None


def test_another_programs_finetune_py_is_not_read_as_alpaca_lora(offline, tmp_path, capsys):
    # the same script name with TrainingArguments' own flags (a Qwen / FastChat-style finetune.py): no 8-bit
    text = ("torchrun --nproc_per_node 1 finetune.py --model_name_or_path huggyllama/llama-7b --bf16 True "
            "--per_device_train_batch_size 1 --model_max_length 512 --output_dir out\n")
    d = _check(capsys, tmp_path, text)
    assert "alpaca-lora" not in _said(d)
    assert d["understood"]["method"] != "qlora"


def test_a_forks_8bit_switch_off_loads_the_base_in_16_bit(offline, tmp_path, capsys):
    # h2oGPT's finetune.py (an alpaca-lora fork): --train_8bit=False trains LoRA over the 16-bit base, without
    # prepare_model_for_int8_training's checkpointing
    text = ("torchrun --nproc_per_node=8 finetune.py --base_model=huggyllama/llama-30b --micro_batch_size=1 "
            "--batch_size=8 --cutoff_len=2048 --val_set_size=0 --train_8bit=False --lora_r=64 "
            "--lora_target_modules=\"['q_proj', 'k_proj', 'v_proj', 'o_proj']\"\n")
    d = _check(capsys, tmp_path, text, gpu="a100-80gb")
    assert d["understood"]["method"] == "lora" and d["understood"]["gradient_checkpointing"] is False
    assert d["understood"]["lora_targets"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    eight = _check(capsys, tmp_path, text.replace("--train_8bit=False", "--train_8bit=True"), gpu="a100-80gb")
    assert eight["understood"]["quant_bits"] == 8
    assert eight["memory"]["step"]["peak_allocated_bytes"] < d["memory"]["step"]["peak_allocated_bytes"] / 2


# accelerate launch's own flags (accelerate/commands/launch.py): the same settings as its config file, and they win
ACC = ("accelerate launch --num_processes 8 {flags} train.py --model_name_or_path meta-llama/Llama-3.1-8B "
       "--block_size 4096 --per_device_train_batch_size 2 --output_dir out\n")
LOOP = '''import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM

accelerator = Accelerator()
model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, attn_implementation="flash_attention_2",
                                             torch_dtype=torch.bfloat16)
model.gradient_checkpointing_enable()
model, optimizer = accelerator.prepare(model, torch.optim.AdamW(model.parameters()))
'''


def _check_files(capsys, tmp_path, files: dict[str, str], gpu="mi300x", gpus="8"):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    rc = main(["check", *[str(tmp_path / n) for n in files], "--gpu", gpu, "--gpus", gpus, "--json", "--no-app"])
    out = capsys.readouterr().out
    assert rc in (0, 1), out
    return json.loads(out)


@pytest.mark.parametrize("flags,sharding,precision", [
    ("--mixed_precision bf16 --use_fsdp --fsdp_sharding_strategy 1", "fsdp", "bf16"),
    ("--mixed_precision fp16 --use_deepspeed --zero_stage 3", "zero3", "fp16"),
    ("--use_deepspeed --mixed_precision bf16", "zero2", "bf16"),        # launch.py: --zero_stage defaults to 2
    ("--multi_gpu --mixed_precision bf16", "ddp", "bf16"),
])
def test_accelerate_launch_flags_are_its_config(offline, tmp_path, capsys, flags, sharding, precision):
    d = _check_files(capsys, tmp_path, {"launch.sh": ACC.format(flags=flags)})
    u = d["understood"]
    assert u["precision"] == precision
    got = "fsdp" if d["execution"].get("fsdp") or "FSDP" in json.dumps(d["execution"]) else \
        f"zero{u['zero_stage']}" if u["zero_stage"] else "ddp"
    assert got == sharding, d["execution"]


def test_a_config_file_is_overridden_by_the_command_line(offline, tmp_path, capsys):
    cfg = ("compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmixed_precision: fp16\n"
           "num_machines: 1\nnum_processes: 8\n")
    d = _check_files(capsys, tmp_path, {
        "acc.yaml": cfg, "launch.sh": ACC.format(flags="--config_file acc.yaml --mixed_precision bf16 --use_fsdp")})
    assert d["understood"]["precision"] == "bf16"
    assert "FSDP" in json.dumps(d["execution"])


def test_a_started_programs_own_calls_are_read_under_the_scripts_flags(offline, tmp_path, capsys):
    plain = _check_files(capsys, tmp_path, {"launch.sh": ACC.format(flags="--multi_gpu --mixed_precision bf16")})
    assert plain["understood"]["gradient_checkpointing"] is False
    d = _check_files(capsys, tmp_path, {"launch.sh": ACC.format(flags="--multi_gpu --mixed_precision bf16"),
                                        "train.py": LOOP})
    assert d["understood"]["gradient_checkpointing"] is True and d["understood"]["attn"] == "fa2"
    assert d["memory"]["step"]["peak_allocated_bytes"] < plain["memory"]["step"]["peak_allocated_bytes"]


PROG = '''import argparse
from transformers import AutoModelForCausalLM, TrainingArguments, Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--model-name", type=str, default="my-model",
                    help="A name for the trained model. A subdirectory with this name is created under --output-path.")
parser.add_argument("--output-path", type=str)
args, _ = parser.parse_known_args()
pretrained = "Qwen/Qwen2.5-1.5B"
model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-1.5B")
training_args = TrainingArguments(output_dir=args.output_path, bf16=True, per_device_train_batch_size=4)
Trainer(model=model, args=training_args).train()
'''


def test_a_flag_the_programs_help_calls_its_output_is_not_the_model(offline, tmp_path, capsys):
    d = _check_files(capsys, tmp_path, {
        "run.sh": "python finetune_prog.py --model-name imdb-run --output-path /scratch/out\n",
        "finetune_prog.py": PROG}, gpus="1")
    assert d["verdict"] in ("fits", "oom")
    assert d["model"]["name"] == "qwen2.5-1.5b"
    # the same flag with a help that names the input stays the model
    d2 = _check_files(capsys, tmp_path, {
        "run.sh": "python finetune_prog.py --model-name Qwen/Qwen2.5-7B --output-path /scratch/out\n",
        "finetune_prog.py": PROG.replace("A name for the trained model. A subdirectory with this name is created "
                                         "under --output-path.", "The base model to fine-tune.")}, gpus="1")
    assert d2["model"]["name"] == "qwen2.5-7b"


@pytest.mark.parametrize("name,preset", [("google/medgemma-1.5-4b-it", "gemma-3-4b"),
                                         ("/models/medgemma-4b-it", "gemma-3-4b"),
                                         ("google/medgemma-27b-text-it", "gemma-3-27b")])
def test_medgemma_takes_gemma3s_shape(name, preset):
    from rocm_tune.core.model.architecture import load_model

    assert load_model(name).name == preset


def test_a_deepspeed_programs_micro_batch_is_its_json_s_number(offline, tmp_path, capsys):
    # a raw DeepSpeed program (deepspeed.initialize(config=...)): no TrainingArguments; the JSON's number is the batch
    ds = ('{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4, "bf16": {"enabled": true}, '
          '"zero_optimization": {"stage": 1}}')
    sh = ("deepspeed --num_gpus=2 pp_train.py --model_name_or_path Qwen/Qwen3-0.6B-Base --seq_len 2048 --bf16 "
          "--deepspeed_config ds.json\n")
    d = _check_files(capsys, tmp_path, {"launch.sh": sh, "ds.json": ds}, gpus="2")
    assert d["understood"]["micro_batch"] == 2 and d["understood"]["cutoff_len"] == 2048
    assert any("train_micro_batch_size_per_gpu" in n for n in d["notes"])
    # "auto" leaves it to the program's flags / the runner's default
    d2 = _check_files(capsys, tmp_path, {"launch.sh": sh, "ds.json": ds.replace('"train_micro_batch_size_per_gpu": 2',
                                                                                 '"train_micro_batch_size_per_gpu": "auto"')},
                      gpus="2")
    assert d2["understood"]["micro_batch"] != 2


LLAMA7B_CONFIG = ('{"architectures": ["LLaMAForCausalLM"], "bos_token_id": 0, "eos_token_id": 1, "hidden_act": '
                  '"silu", "hidden_size": 4096, "intermediate_size": 11008, "initializer_range": 0.02, '
                  '"max_sequence_length": 2048, "model_type": "llama", "num_attention_heads": 32, '
                  '"num_hidden_layers": 32, "pad_token_id": -1, "rms_norm_eps": 1e-06, "transformers_version": '
                  '"4.28.0", "use_cache": true, "vocab_size": 32000}')


@pytest.mark.parametrize("optimizer,gc,verdict", [("galore_adamw8bit_per_layer", "", "fits"),
                                                  ("adam", "", "oom"),
                                                  ("galore_adamw8bit_per_layer", "--activation_checkpointing", "fits")])
def test_the_relora_galore_pretraining_program_is_read_from_its_flags(offline, tmp_path, capsys, optimizer, gc,
                                                                     verdict):
    # jiaweizzhao/GaLore scripts/single_gpu/llama_7b.sh (its README: 7B on one 24 GB card with 8-bit per-layer GaLore)
    (tmp_path / "configs").mkdir()
    sh = ("torchrun --standalone --nproc_per_node 1 torchrun_main.py --model_config configs/llama_7b.json "
          f"--lr 0.005 --galore_scale 0.25 --rank 1024 --update_proj_gap 500 --batch_size 1 --total_batch_size 512 "
          f"--num_training_steps 150000 --warmup_steps 15000 --weight_decay 0 --grad_clipping 1.0 "
          f"--dtype bfloat16 --eval_every 1000 --single_gpu --optimizer {optimizer} {gc}\n")
    d = _check_files(capsys, tmp_path, {"llama_7b.sh": sh, "configs/llama_7b.json": LLAMA7B_CONFIG},
                     gpu="rtx4090", gpus="1")
    u = d["understood"]
    assert u["method"] == "full" and u["cutoff_len"] == 256 and u["precision"] == "bf16"
    assert u["gradient_checkpointing"] is bool(gc)
    assert d["verdict"] == verdict


def test_ms_swift_1x_example_entry_points_are_ms_swift(offline, tmp_path, capsys):
    # modelscope/ms-swift 1.x examples/pytorch/llm/scripts/qwen_7b_chat/full/sft.sh: `python llm_sft.py` with two
    # visible GPUs is one process spreading the model over both (device_map), ms-swift's flags of that release
    sh = ("PYTHONPATH=../../.. \\\nCUDA_VISIBLE_DEVICES=0,1 \\\npython llm_sft.py \\\n    --model_id_or_path "
          "qwen/Qwen-7B-Chat \\\n    --sft_type full \\\n    --dtype bf16 \\\n    --max_length 8192 \\\n"
          "    --gradient_checkpointing false \\\n    --batch_size 1 \\\n    --use_flash_attn true \\\n")
    d = _check_files(capsys, tmp_path, {"sft.sh": sh}, gpu="a100-80gb", gpus="2")
    assert d["runner"] == "ms-swift"
    u = d["understood"]
    assert u["method"] == "full" and u["precision"] == "bf16" and u["attn"] == "fa2" and u["cutoff_len"] == 8192
    assert "device_map" in json.dumps(d["execution"]) or any("device_map" in n for n in d["notes"])


@pytest.mark.parametrize("data,cutoff", [("Alpaca", 1304), ("litgpt.data.Alpaca", 1304), ("JSON", 4096)])
def test_litgpt_data_alpaca_is_counted_at_its_longest_example(offline, tmp_path, capsys, data, cutoff):
    # Lightning-AI/litgpt tutorials/resource-tables.md: Alpaca's longest training example is 1304 Llama 2 tokens, and
    # finetune/lora.py sets model.max_seq_length = min(longest sample, train.max_seq_length)
    sh = (f"litgpt finetune_lora checkpoints/meta-llama/Llama-2-13b-hf --data {data} --precision bf16-true "
          "--quantize bnb.nf4 --train.global_batch_size 128 --train.micro_batch_size 1\n")
    d = _check_files(capsys, tmp_path, {"finetune_lora.sh": sh}, gpu="a100-40gb", gpus="1")
    assert d["understood"]["cutoff_len"] == cutoff
    assert d["understood"]["method"] == "qlora" and d["understood"]["quant_bits"] == 4


def test_a_notebook_whose_install_cell_is_an_if_block_is_read(offline, tmp_path, capsys):
    # unslothai/notebooks: the first cell installs only outside Colab; its `!pip` lines are the `if`'s whole body
    cells = [
        '%%capture\nimport os\nif "COLAB_" not in "".join(os.environ.keys()):\n    !pip install unsloth\nelse:\n'
        '    !pip install --no-deps bitsandbytes accelerate xformers peft trl \\\n        triton cut_cross_entropy\n',
        'from unsloth import FastLanguageModel\nimport torch\nmax_seq_length = 2048\n'
        'model, tokenizer = FastLanguageModel.from_pretrained(model_name = "unsloth/Phi-4", '
        'max_seq_length = max_seq_length, load_in_4bit = True)\n',
        'model = FastLanguageModel.get_peft_model(model, r = 16, target_modules = ["q_proj", "k_proj", "v_proj", '
        '"o_proj", "gate_proj", "up_proj", "down_proj"], lora_alpha = 16, use_gradient_checkpointing = "unsloth")\n',
        'from trl import SFTTrainer, SFTConfig\ntrainer = SFTTrainer(model = model, tokenizer = tokenizer, '
        'train_dataset = dataset, args = SFTConfig(per_device_train_batch_size = 2, gradient_accumulation_steps = 4, '
        'max_steps = 30, output_dir = "outputs"))\n',
    ]
    nb = {"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 0}
    d = _check_files(capsys, tmp_path, {"Phi_4.ipynb": json.dumps(nb)}, gpu="t4", gpus="1")
    assert d["verdict"] in ("fits", "oom")
    assert d["understood"]["method"] == "qlora" and d["understood"]["micro_batch"] == 2


@pytest.mark.parametrize("dtype_line,kw", [("dtype = None\n", "dtype = dtype, "), ("", "")])
def test_unsloth_dtype_none_is_its_auto_bfloat16(offline, tmp_path, capsys, dtype_line, kw):
    # unsloth/models/loader.py: dtype=None is auto detection (bfloat16 where the GPU has it), also passed as a variable
    prog = ("from unsloth import FastLanguageModel\nfrom trl import SFTTrainer, SFTConfig\n" + dtype_line
            + "model, tokenizer = FastLanguageModel.from_pretrained(model_name = \"unsloth/Qwen3-14B\", "
            + kw + "max_seq_length = 2048, load_in_4bit = True)\n"
            "model = FastLanguageModel.get_peft_model(model, r = 32, lora_alpha = 32)\n"
            "trainer = SFTTrainer(model = model, tokenizer = tokenizer, train_dataset = ds, "
            "args = SFTConfig(per_device_train_batch_size = 2, gradient_accumulation_steps = 4, output_dir = 'o'))\n")
    d = _check_files(capsys, tmp_path, {"train.py": prog}, gpu="a100-40gb", gpus="1")
    assert "frozen weights bf16" in json.dumps(d["execution"]) or any(
        "loads the weights in bfloat16" in n for n in d["notes"])
