"""Issue 26 items 2 and 3: formats users paste that `check` did not read - LitGPT's finetune CLI and YAML, the OLMo
trainer's YAML (AMD's Instella), MLPerf Training submission configs (`config_<SYSTEM>_*.sh`), Unsloth programs cut
before their trainer, and argparse programs that name the model with their own flag (--checkpoint_dir,
--input_model_filename). The file texts are the public ones (the URL above each), trimmed to what is read; every
default asserted is the tool's own (the source line is in the reader's module)."""

from __future__ import annotations

from pathlib import Path

from rocm_tune.core import formats
from rocm_tune.core.check.check import check
from rocm_tune.core.runners import hf
from tests.test_check_c_under import DBGPT_248

# https://github.com/mlcommons/training_results_v5.1 MangoBoost/benchmarks/llama2_70b_lora/implementations/
# MI300X-LLMBoost-GPUBoost-2node/config_MI300X_2x8x1.sh (excerpt, the variables as written)
MLPERF_LORA = """#!/bin/bash
export WARMUP=True
export DGXNGPU=8
export DGXSYSTEM=$(basename $(readlink -f ${BASH_SOURCE[0]}) | sed 's/^config_//' | sed 's/\\.sh$//' )

export DGXNNODES=2
export WALLTIME_MINUTES=50
export WALLTIME=$(( (${NEXP:-1} * WALLTIME_MINUTES) ))
export NCCL_MIN_P2P_NCHANNELS=32;
export NCCL_MIN_CTAS=32;
export LORA_A2A=1
export MAX_STEPS=1024
export TP=1
export PP=1
export CP=2
export SP=False
export MBS=1
export MINIBS=1
export FP8=True
export FP8_ACTIVATION=True

export ACG=full && export ACM=block && export ACL=21
export MLPERF_SUBMISSION_ORG="MangoBoost"
export MLPERF_SUBMISSION_PLATFORM="MI300X"
"""

# https://github.com/mlcommons/training_results_v5.1 AMD/benchmarks/llama31_8b/implementations/
# MI355X_EPYC_9575F_pytorch_llama3_8b/config_MI355X_1x8x1_8b.sh (excerpt)
MLPERF_8B = """#!/bin/bash
export SIZE="8b"
export GBS=32
export MBS=2
export TP=1
export PP=1
export CP=1
export TP_COMM_OVERLAP=False
export FP8_PARAMS=1
export MLPERF_SUBMISSION_ORG="AMD"
export MLPERF_SUBMISSION_PLATFORM="MI355X"
"""

# https://github.com/AMD-AIG-AIMA/Instella configs/instella-3b-long-pretrain-phase2.yaml (excerpt)
INSTELLA = """run_name: instella-3b-long-pretrain-phase2
model:
  d_model: 2560
  n_heads: 32
  n_layers: 36
  mlp_hidden_size: 13824
  weight_tying: false
  rope: true
  flash_attention: true
  attention_layer_norm: true
  activation_type: swiglu
  max_sequence_length: 262144
  vocab_size: 50280
  embedding_size: 50304
activation_checkpointing: true
global_train_batch_size: 128 # 128 *256K/4(seq_parallel_size)=8M tokens BS
device_train_microbatch_size: 1
precision: amp_bf16
fsdp:
  wrapping_strategy: null
  precision: mixed
  sharding_strategy: FULL_SHARD
seq_parallel_size: 4
"""

# https://github.com/Lightning-AI/litgpt/issues/459 (the user's command)
LITGPT_QLORA = ('python finetune/lora.py  --data_dir data/mydata/   --precision "bf16-true" --quantize "bnb.nf4-dq" '
                '--checkpoint_dir /AIDEV/llm/vicuna-7b-v1.5 --out_dir /AIDEV/llm/out/lora/vicuna\n')

# https://github.com/Lightning-AI/litgpt config_hub/finetune/llama-2-7b/lora.yaml (excerpt)
LITGPT_YAML = """checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf
out_dir: out/finetune/lora-llama2-7b
precision: bf16-true
quantize:
devices: 1
lora_r: 32
lora_alpha: 16
lora_query: true
lora_key: false
lora_value: true
lora_projection: false
lora_mlp: false
lora_head: false
train:
  save_interval: 200
  global_batch_size: 8
  micro_batch_size: 2
  max_seq_length: 512
"""

# https://github.com/unslothai/unsloth/issues/4188 (the user's script as posted, cut before the trainer)
UNSLOTH_CUT = r'''import os
os.environ['HF_HUB_OFFLINE'] = '1'

from unsloth import FastLanguageModel
import torch
from trl import SFTTrainer, SFTConfig

max_seq_length = 16384
base_model_path = r"E:\HuggingFace\hub\models--trohrbaugh--Qwen3.5-9B-heretic-v2\snapshots\c242553de7b8"

model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = base_model_path,
    max_seq_length = max_seq_length,
)
'''


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_mlperf_lora_config_is_read_as_the_benchmark_runs_it(tmp_path):
    p = _write(tmp_path, "config_MI300X_2x8x1.sh", MLPERF_LORA)
    assert formats.detect(MLPERF_LORA, p) == "mlperf-config"
    job = formats.read_job([p])
    assert job.runner == "megatron" and (job.gpus.value, job.nodes.value) == (8, 2)
    # the benchmark's own: LoRA rank 16 (LORA_DIM default), Llama-2-70B, 8192 tokens (MAX_SEQLEN default)
    assert job.get("finetuning_type") == "lora" and int(job.get("lora_rank")) == 16
    assert int(job.get("cutoff_len")) == 8192 and job.get("model_name_or_path") == "meta-llama/Llama-2-70b-hf"
    assert job.get("__cp__") == 2 and job.get("disable_gradient_checkpointing") is False   # CP=2, ACG=full
    rep = check([p], gpu_id="mi300x")
    assert rep.verdict == "fits" and rep.cfg.world_size == 16       # as the submission ran (MLPerf v5.1 result)


def test_mlperf_pretraining_config_uses_the_distributed_optimizer(tmp_path):
    p = _write(tmp_path, "config_MI355X_1x8x1_8b.sh", MLPERF_8B)
    job = formats.read_job([p])
    assert job.get("finetuning_type") != "lora" and int(job.get("per_device_train_batch_size")) == 2
    assert job.get("__distopt__") is True and job.get("model_name_or_path") == "meta-llama/Llama-3.1-8B"
    assert job.gpus.value == 8 and job.gpus.kind == "assumed"     # no DGXNGPU line: the file name's 1x8
    # a script that also runs a command is not an MLPerf config
    assert not formats.detect(MLPERF_8B + "python train.py\n", p) == "mlperf-config"


def test_olmo_trainer_yaml_builds_the_model_from_its_dimensions(tmp_path):
    p = _write(tmp_path, "instella-3b-long-pretrain-phase2.yaml", INSTELLA)
    assert formats.detect(INSTELLA, p) == "olmo-yaml"
    job = formats.read_job([p])
    m = job.get("model_name_or_path")
    # swiglu: OLMo's mlp_hidden_size is both halves, the HF intermediate size is half of it
    assert (m["hidden_size"], m["num_hidden_layers"], m["intermediate_size"], m["vocab_size"]) == (2560, 36, 6912,
                                                                                                     50304)
    assert int(job.get("cutoff_len")) == 262144 // 4          # seq_parallel_size 4: 64K tokens per GPU
    assert job.get("fsdp") == "full_shard auto_wrap" and job.get("disable_gradient_checkpointing") is False
    assert job.get("bf16") is True and job.get("load_dtype") == "fp32"     # amp_bf16 over fp32 parameters
    rep = check([p], gpu_id="mi300x", gpus=8, nodes=8)
    assert rep.verdict == "fits"          # AMD trained Instella-Long on 64 MI300X (model card)
    # without the recomputation and the sequence split the same job holds far more per GPU
    heavy = _write(tmp_path, "heavy.yaml", INSTELLA.replace("activation_checkpointing: true", "")
                   .replace("seq_parallel_size: 4", ""))
    assert check([heavy], gpu_id="mi300x", gpus=8, nodes=8).verdict == "oom"


def test_litgpt_command_reads_its_flags_with_litgpt_defaults(tmp_path):
    p = _write(tmp_path, "run.sh", LITGPT_QLORA)
    job = formats.read_job([p])
    assert job.entry == "litgpt finetune lora" and job.get("model_name_or_path") == "/AIDEV/llm/vicuna-7b-v1.5"
    assert job.get("quantization_bit") == 4                       # --quantize bnb.nf4-dq
    assert job.get("per_device_train_batch_size") == 4            # TrainArgs(micro_batch_size=4) in lora.py
    assert job.get("lora_target") == "q_proj,v_proj"              # lora_query / lora_value on by default
    rep = check([p], gpu_id="rtx3090")
    assert rep.cfg.method == "qlora" and rep.cfg.micro_batch == 4
    assert rep.verdict == "oom"          # the user's OOM; rasbt: lower micro_batch_size


def test_litgpt_config_yaml_under_the_command_and_alone(tmp_path):
    y = _write(tmp_path, "lora.yaml", LITGPT_YAML)
    s = _write(tmp_path, "run.sh", "litgpt finetune lora --config lora.yaml --train.micro_batch_size 1\n")
    job = formats.read_job([s, y])
    assert job.get("model_name_or_path") == "checkpoints/meta-llama/Llama-2-7b-hf"
    assert int(job.get("lora_rank")) == 32 and int(job.get("cutoff_len")) == 512
    assert job.get("per_device_train_batch_size") == 1            # the command's flag wins over the YAML's 2
    assert job.get("load_dtype") == "bf16"                        # bf16-true: bf16 weights, no fp32 master
    alone = formats.read_job([y])
    assert alone.entry == "litgpt finetune lora" and alone.get("per_device_train_batch_size") == 2
    # without train.max_seq_length LitGPT trains on the longest sample: the model's context bounds it
    y2 = _write(tmp_path, "full.yaml", LITGPT_YAML.replace("  max_seq_length: 512\n", ""))
    rep = check([y2], gpu_id="a100-80gb")
    assert rep.cfg.method == "full" and rep.cfg.cutoff_len == 4096


def test_unsloth_program_cut_before_its_trainer_is_read_with_unsloth_defaults(tmp_path):
    p = _write(tmp_path, "train_unsloth.py", UNSLOTH_CUT)
    job = formats.read_job([p])
    assert job.runner == "hf" and "Qwen3.5-9B" in job.get("model_name_or_path")     # a Windows path is a path
    assert job.get("quantization_bit") == 4        # from_pretrained without load_in_4bit: Unsloth loads 4-bit
    assert job.get("finetuning_type") == "lora" and job.get("lora_rank") == 16 and job.get("use_unsloth_gc")
    assert int(job.get("cutoff_len")) == 16384
    explicit = _write(tmp_path, "b.py", UNSLOTH_CUT.replace("max_seq_length = max_seq_length,",
                                                            "max_seq_length = max_seq_length, load_in_4bit = False,"))
    assert formats.read_job([explicit]).get("quantization_bit") is None


def test_an_argument_that_names_the_model_is_the_model_when_its_value_reads_as_one():
    # LLM-QAT (facebookresearch/LLM-QAT run_train.sh) and lit-gpt name the model with their own flags
    flags = {"local_dir": ("/tmp/llama/", 1), "input_model_filename": ("decapoda-research/llama-7b-hf", 2),
             "output_model_filename": ("7B-finetuned", 3)}
    assert hf.model_flag(flags) == "input_model_filename"
    assert hf.model_flag({"checkpoint_dir": ("checkpoints/NousResearch/Llama-2-7b-hf", 1)}) == "checkpoint_dir"
    # an output, a teacher or a value that names no model is not the model to train
    assert hf.model_flag({"output_model_filename": ("7B-finetuned", 1)}) is None
    assert hf.model_flag({"teacher_model_path": ("meta-llama/Llama-2-13b-hf", 1)}) is None
    assert hf.model_flag({"checkpoint_dir": ("out/lora", 1)}) is None


# https://github.com/NVIDIA-NeMo/Automodel examples/llm_finetune/gemma/gemma_2_9b_it_squad.yaml (before PR 2585)
AUTOMODEL = """recipe:
  _target_: nemo_automodel.recipes.llm.train_ft.TrainFinetuneRecipeForNextTokenPrediction

step_scheduler:
  global_batch_size: 64
  local_batch_size: 4
  max_steps: 100

model:
  _target_: nemo_automodel.NeMoAutoModelForCausalLM.from_pretrained
  pretrained_model_name_or_path: google/gemma-2-9b-it
  torch_dtype: bf16
  attn_implementation: eager

checkpoint:
  enabled: false
  checkpoint_dir: checkpoints/

distributed:
  strategy: fsdp2
  dp_size: none
  tp_size: 1
  cp_size: 1
  sequence_parallel: false

dataset:
  _target_: nemo_automodel.components.datasets.llm.squad.make_squad_dataset
  dataset_name: rajpurkar/squad
  split: train
"""

# https://github.com/eosphoros-ai/DB-GPT-Hub/issues/248 (the user's train_sft.py, the dict as posted): DBGPT_248


def test_nemo_automodel_recipe_is_read_with_its_defaults(tmp_path):
    p = _write(tmp_path, "gemma_2_9b_it_squad.yaml", AUTOMODEL)
    assert formats.detect(AUTOMODEL, p) == "automodel-yaml"
    job = formats.read_job([p])
    assert job.get("model_name_or_path") == "google/gemma-2-9b-it" and job.get("per_device_train_batch_size") == 4
    assert job.get("finetuning_type") == "full" and job.get("fsdp_config")["version"] == 2
    assert job.get("disable_gradient_checkpointing") is True         # activation_checkpointing not set: off
    assert job.get("save_strategy") == "no"                          # checkpoint.enabled: false
    rep = check([p], gpu_id="h100-sxm", gpus=8)
    assert rep.verdict == "oom"        # the PR's CI OOM; the fix turned activation checkpointing on
    fixed = _write(tmp_path, "fixed.yaml", AUTOMODEL.replace("  sequence_parallel: false",
                                                              "  sequence_parallel: false\n  activation_checkpointing: true"))
    job2 = formats.read_job([fixed])
    assert job2.get("disable_gradient_checkpointing") is False


def test_training_arguments_in_one_literal_dict_are_read(tmp_path):
    p = _write(tmp_path, "train_sft.py", DBGPT_248)
    job = formats.read_job([p])
    assert job.runner == "llamafactory" and job.get("model_name_or_path") == "/usr/local/src/models/chatglm3-6b"
    assert (int(job.get("max_source_length")), int(job.get("max_target_length"))) == (2048, 512)
    assert check([p], gpu_id="rtx4090").cfg.cutoff_len == 2048 + 512  # source + target, both kept
    assert job.get("finetuning_type") == "lora" and str(job.get("lora_rank")) == "64"
    # a dict that names no model is not a training's arguments
    other = _write(tmp_path, "x.py", "import json\ncfg = {'learning_rate': 1e-4, 'num_train_epochs': 3}\nrun(cfg)\n")
    assert formats.read_job([other]).runner == "unknown"


# https://github.com/oobabooga/text-generation-webui/issues/3759 (RX 6900 XT): the Training tab's saved parameters
# (loras/<name>/training_parameters.json, modules/training.py PARAMETERS) and the server's command line
TEXTGEN_PARAMS = """{
    "lora_name": "llama-2-7b-chat-hf-lora",
    "always_override": false,
    "q_proj_en": true,
    "v_proj_en": true,
    "k_proj_en": false,
    "save_steps": 0,
    "micro_batch_size": 4,
    "batch_size": 128,
    "epochs": 3,
    "learning_rate": "3e-4",
    "lora_rank": 32,
    "lora_alpha": 64,
    "cutoff_len": 256,
    "dataset": "my_alpaca_set",
    "eval_dataset": "None",
    "optimizer": "adamw_torch"
}
"""
TEXTGEN_SERVER = ("export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
                  "python server.py --model llama-2-7b-chat-hf --loader transformers --load-in-4bit --listen\n")


def test_text_generation_webui_training_tab_with_the_server_command(tmp_path):
    d = tmp_path / "loras" / "llama-2-7b-chat-hf-lora"
    d.mkdir(parents=True)
    params = _write(d, "training_parameters.json", TEXTGEN_PARAMS)
    server = _write(tmp_path, "start.sh", TEXTGEN_SERVER)
    assert formats.detect(TEXTGEN_PARAMS, params) == "textgen-lora"
    job = formats.read_job([params, server])
    assert job.get("model_name_or_path") == "llama-2-7b-chat-hf"
    assert job.get("quantization_bit") == 4                    # --load-in-4bit (argparse: dashes = underscores)
    assert (job.get("per_device_train_batch_size"), job.get("cutoff_len"), job.get("lora_rank")) == (4, 256, 32)
    assert job.get("gradient_accumulation_steps") == 32 and job.get("lora_target") == "q_proj,v_proj"
    assert job.get("disable_gradient_checkpointing") is False  # prepare_model_for_int8_training
    rep = check([params, server], gpu_id="rx6900xt")
    assert rep.cfg.method == "qlora" and rep.verdict == "fits"   # the user trained it on a 16 GB RX 6900 XT
