"""`check` reads LLaMA-Factory v1 configs (issue 26 item 2): `model`, the plugin blocks `peft_config`, `quant_config`,
`dist_config` and `micro_batch_size`, as in hiyouga/LLaMA-Factory@ff6d4d12 examples/v1/ (texts below verbatim but for
the model where a test needs a larger one)."""

from __future__ import annotations

import contextlib
import io
import json

from rocm_tune.cli import main

LORA = """model: {model}
model_class: llm

# PEFT Configuration
peft_config:
  name: lora
  r: 16
  lora_alpha: 32
  lora_dropout: 0.05
  target_modules: all
{quant}
# Kernel Config
kernel_config:
  name: auto

# FSDP Config
dist_config:
  name: fsdp2
  dcp_path: null

### data
train_dataset: data/v1_sft_demo.yaml

### training
output_dir: ./outputs/test_lora
micro_batch_size: {mbs}
cutoff_len: 2048
learning_rate: 1.0e-4
max_steps: 10
"""
QUANT = """quant_config:
  name: bnb # choice: auto/bnb
  quantization_bit: 4 # choice: 8/4(bnb)
"""
DS = """model: Qwen/Qwen3-8B
model_class: llm

kernel_config:
    name: auto

dist_config:
    name: deepspeed
    config_file: ds_z3_config.json

### data
train_dataset: data/v1_sft_demo.yaml

### training
output_dir: outputs/Qwen3-0.6B-deepspeed
micro_batch_size: 1
cutoff_len: 2048
learning_rate: 1.0e-4
max_steps: 10
"""
Z3 = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
      "bf16": {"enabled": "auto"}, "zero_optimization": {"stage": 3, "overlap_comm": False,
                                                         "stage3_gather_16bit_weights_on_model_save": True}}


def _check(path, *args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(["check", str(path), *args, "--json"])
    assert rc in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


def test_v1_lora_and_qlora_are_read(tmp_path):
    p = tmp_path / "train_lora_sft.yaml"
    p.write_text(LORA.format(model="Qwen/Qwen3-8B", quant="", mbs=1))
    lora = _check(p, "--vram-gib", "16")
    p.write_text(LORA.format(model="Qwen/Qwen3-8B", quant=QUANT, mbs=1))
    qlora = _check(p, "--vram-gib", "16")
    assert lora["verdict"] == "oom"             # 16 GiB of bf16 weights of an 8B model on one 16 GiB card
    assert qlora["verdict"] == "fits"           # 4-bit weights: ~5 GiB
    text = json.dumps(qlora).lower()
    assert "qwen3-8b" in text and "qlora" in text


def test_v1_deepspeed_config_file_shards(tmp_path):
    (tmp_path / "ds_z3_config.json").write_text(json.dumps(Z3))
    p = tmp_path / "train_full_deepspeed.yaml"
    p.write_text(DS)
    one = _check(p, "--vram-gib", "80")
    eight = _check(p, "--vram-gib", "80", "--gpus", "8")
    assert one["verdict"] == "oom"              # full fine-tune of 8B with AdamW: ~130 GiB on one GPU
    assert eight["verdict"] == "fits"           # ZeRO-3 over 8 GPUs: ~16 GiB each plus activations
