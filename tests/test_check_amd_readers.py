"""`check` on configurations AMD users wrote (issue 26 item 2, the corpus' AMD cases): a program's own config in
sections beside a DeepSpeed launch, from_pretrained's `dtype=` (transformers >= 4.56), Python launchers that write
a Megatron command line in strings (slime/Miles), Primus Megatron-Bridge experiments without a precision. The files
are shortened from the public ones each test cites."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.runners import hf


def _run(args, capsys):
    rc = main(["check", *args, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


# deepspeedai/DeepSpeed#6725 (TensorWave, 8x MI300X): the program's own dp.yaml in sections, ZeRO-3 JSON, launch
DP_YAML = """run:
  project_name: "text2sql-train"
model:
  model_name: "deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct"
  lora_r: 8
  lora_alpha: 16
  target_modules: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
training:
  batch_size: 1
  grad_accumulation_steps: 4
  learning_rate: 1e-4
  bf16: true
  max_seq_length: 8192
quantization:
  load_in_4bit: true
  quant_type: "nf4"
"""
DS_JSON = ('{"bf16": {"enabled": true}, "zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto",'
           ' "gradient_accumulation_steps": "auto"}')
RUN = "deepspeed --num_gpus 8 finetune_deepseek_ds.py --config dp.yaml --deepspeed ds_z3.json\n"


def test_a_programs_own_config_in_sections_is_read_as_its_arguments(tmp_path, capsys):
    files = [_write(tmp_path, "dp.yaml", DP_YAML), _write(tmp_path, "ds_z3.json", DS_JSON),
             _write(tmp_path, "run.sh", RUN)]
    rc, j = _run([*files, "--gpu", "mi300x"], capsys)
    u = j["understood"]
    assert j["model"]["name"] == "deepseek-v2-lite"            # Coder-V2-Lite: the V2-Lite shape
    assert (u["method"], u["micro_batch"], u["cutoff_len"], u["zero_stage"], u["gpus"]) == ("qlora", 1, 8192, 3, 8)
    assert j["verdict"] == "fits" and rc == 0


def test_sections_without_model_and_training_keys_are_not_a_recipe():
    assert hf.flatten_sections({"logging": {"level": "info"}, "paths": {"out": "x"}}) is None
    assert hf.flatten_sections({"model_name": "x", "learning_rate": 1}) is None      # flat: no section
    flat = hf.flatten_sections({"model": {"model_id": "m", "lora_rank": 0}, "train": {"batch_size": 2, "lr": 1e-4,
                                                                                      "output_dir": "o"}})
    assert flat is not None and flat["per_device_train_batch_size"] == 2 and "use_peft" not in flat   # rank 0: off


# amd/playbooks supplemental/pytorch-finetuning/assets/train_qlora.py (Strix Halo): dtype= (transformers >= 4.56)
PROGRAM = """import torch
from transformers import AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
from trl import SFTConfig, SFTTrainer
MODEL = "openai/gpt-oss-20b"
TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj"]
model = AutoModelForCausalLM.from_pretrained(MODEL, device_map="auto", {dtype})
model = get_peft_model(model, LoraConfig(r=64, lora_alpha=128, target_modules=TARGETS, task_type="CAUSAL_LM"))
args = SFTConfig(output_dir="out", per_device_train_batch_size=4, gradient_accumulation_steps=4, max_length=512)
SFTTrainer(model=model, args=args, train_dataset=None).train()
"""


def test_from_pretrained_dtype_is_the_load_dtype_and_a_list_name_the_targets(tmp_path, capsys):
    p = _write(tmp_path, "train_qlora.py", PROGRAM.format(dtype="dtype=torch.bfloat16"))
    _, j = _run([p, "--vram-gib", "96"], capsys)
    assert j["execution"]["frozen_weights"] == "bf16"
    assert j["understood"]["lora_targets"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    p = _write(tmp_path, "train_fp32.py", PROGRAM.format(dtype="trust_remote_code=True"))
    _, j2 = _run([p, "--vram-gib", "96"], capsys)
    assert j2["execution"]["frozen_weights"] == "fp32"                   # no dtype: transformers < 5 loads fp32
    assert j2["memory"]["load"]["peak_allocated_bytes"] > 1.5 * j["memory"]["load"]["peak_allocated_bytes"]


# radixark/miles tests/e2e/megatron/model_scripts/test_gpt_oss_20b_moe_lora_ci.py (run on 4x MI355X, PR #2541)
LAUNCHER = '''from miles.utils.external_utils import command_utils
MODEL_NAME = "gpt-oss-20b-bf16"
NUM_GPUS = 4

def execute():
    U = command_utils.default_config().create_backend()
    ckpt_args = f"--hf-checkpoint /root/models/{MODEL_NAME}/ " "--megatron-to-hf-mode bridge "
    lora_args = "--lora-rank 32 --lora-alpha 32 --lora-dropout 0.0 "
    perf_args = (
        f"--tensor-model-parallel-size {NUM_GPUS} "
        "--sequence-parallel "
        "--pipeline-model-parallel-size 1 "
        "--recompute-granularity full "
        "--max-tokens-per-gpu 4096 "
    )
    misc_args = f"--actor-num-nodes 1 --actor-num-gpus-per-node {NUM_GPUS} --colocate "
    U.execute_train(train_args=f"{ckpt_args} {lora_args} {perf_args} {misc_args}", num_gpus_per_node=NUM_GPUS)
'''


def test_a_python_launcher_writing_megatron_flags_is_read_as_its_command(tmp_path, capsys):
    p = _write(tmp_path, "test_gpt_oss_lora.py", LAUNCHER)
    _, j = _run([p, "--gpu", "mi355x"], capsys)
    u = j["understood"]
    assert j["runner"] == "megatron" and j["world_size"] == 4
    assert j["model"]["name"] == "gpt-oss-20b"
    assert (u["method"], u["lora_rank"], u["cutoff_len"], u["gradient_checkpointing"]) == ("lora", 32, 4096, True)
    assert any("TP 4" in n for n in j["notes"])


def test_a_program_with_no_megatron_flags_is_not_a_launcher(tmp_path, capsys):
    p = _write(tmp_path, "tool.py", 'import sys\nprint("--help --verbose --quiet")\nx = f"--out {sys.argv}"\n')
    rc, j = _run([p, "--gpu", "mi300x"], capsys)
    assert j["runner"] != "megatron" and j["verdict"] == "unknown"


# AMD-AGI/Primus examples/mlperf/llama2_70b (PR #877): Megatron-Bridge experiment + the system config's exports
PRIMUS = """modules:
  post_trainer:
    framework: megatron_bridge
    config: sft_trainer.yaml
    model: llama3_8b_lora.yaml
    overrides:
      tensor_model_parallel_size: 1
      peft: lora
      seq_length: 2048
      micro_batch_size: 1
      global_batch_size: 8
"""


def test_megatron_bridge_defaults_to_bf16_and_reads_exported_gpus(tmp_path, capsys):
    y = _write(tmp_path, "exp.yaml", PRIMUS)
    s = _write(tmp_path, "config_MI355X_1x8x1.sh", "export GPUS_PER_NODE=8\nexport NNODES=1\n")
    _, j = _run([y, s, "--gpu", "mi355x"], capsys)
    assert j["understood"]["precision"] == "bf16" and j["world_size"] == 8
    _, j1 = _run([y, "--gpu", "mi355x"], capsys)          # no launch and no export: the GPU count is not read
    assert j1["understood"]["precision"] == "bf16" and j1["world_size"] == 1


# oracle-quickstart/oci-hpc-oke (MI300X onboarding) lora.py, shortened: TRL < 0.12 takes packing=True in SFTTrainer
# itself, so every sequence is max_seq_length tokens of concatenated samples and the cap is what runs
OCI_LORA = """from peft import LoraConfig
from trl import SFTTrainer
from transformers import AutoModelForCausalLM, TrainingArguments
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype="bfloat16")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=64, bf16=True)
peft_config = LoraConfig(lora_alpha=32, lora_dropout=0.05, r=8, bias="none", target_modules="all-linear")
trainer = SFTTrainer(model=model, args=args, train_dataset=None, peft_config=peft_config,
                     max_seq_length=4096, {packing})
trainer.train()
"""


def test_sfttrainer_packing_means_the_cap_is_what_runs(tmp_path, capsys):
    _, padded = _run([_write(tmp_path, "lora.py", OCI_LORA.format(packing="packing=False")), "--gpu", "mi300x"], capsys)
    assert padded["verdict"] == "oom"                # 64 x 4096 tokens without checkpointing on 192 GB
    assert any("longest sample stays within" in a for a in padded["assumptions"])
    _, packed = _run([_write(tmp_path, "lora.py", OCI_LORA.format(packing="packing=True")), "--gpu", "mi300x"], capsys)
    assert packed["verdict"] == "oom"
    assert not any(a.startswith("every batch counted at cutoff_len") for a in packed["assumptions"])
