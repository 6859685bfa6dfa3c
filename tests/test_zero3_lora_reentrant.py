"""LoRA + DeepSpeed ZeRO-3 + gradient checkpointing must recompute reentrantly (deepspeedai/DeepSpeed#8148).

Non-reentrant recomputation finds the layer's parameters partitioned again (shape [0]) and torch raises
CheckpointError; TRL's trainers force reentrant for PEFT + ZeRO-3 (trl#2514). The plan used to set
use_reentrant=False for every multi-GPU plan with checkpointing, so its own LoRA + ZeRO-3 bundle wrote
`use_reentrant_gc: false`. These tests drive the CLI as a user does: the bundle's YAML, check's warning on the
user's own files, and the config `rocm-tune train` runs with.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rocm_tune.train.config import config_from_dict, reentrant_needed, zero_stage_of
from tests.conftest import run_cli

DS = {"train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto", "bf16": {"enabled": "auto"},
      "zero_optimization": {"stage": 3, "overlap_comm": True, "stage3_gather_16bit_weights_on_model_save": True}}

LF_YAML = """\
### model
model_name_or_path: Qwen/Qwen2.5-7B-Instruct
use_reentrant_gc: {reentrant}
### method
stage: sft
do_train: true
finetuning_type: {method}
lora_target: all
deepspeed: ds.json
### dataset
dataset: alpaca_en_demo
template: qwen
cutoff_len: 2048
### train
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
learning_rate: 1.0e-4
num_train_epochs: 3.0
bf16: true
"""

HF_SCRIPT = """\
import torch
from datasets import load_dataset
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype=torch.bfloat16)
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, target_modules="all-linear"))
args = TrainingArguments(
    output_dir="out",
    per_device_train_batch_size=1,
    gradient_accumulation_steps=8,
    bf16=True,
    gradient_checkpointing=True,
    gradient_checkpointing_kwargs={{"use_reentrant": {reentrant}}},
    deepspeed="ds.json",
)
trainer = Trainer(model=model, args=args, train_dataset=load_dataset("tatsu-lab/alpaca")["train"])
trainer.train()
"""


def _check(tmp_path: Path, name: str, text: str, stage: int = 3) -> dict:
    (tmp_path / "ds.json").write_text(json.dumps({**DS, "zero_optimization": {**DS["zero_optimization"],
                                                                              "stage": stage}}))
    (tmp_path / name).write_text(text)
    r = run_cli("check", name, "--gpu", "mi300x", "--gpus", "4", "--json", cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def _codes(d: dict) -> dict[str, dict]:
    return {f["code"]: f for f in d["findings"]}


def test_check_warns_on_a_llamafactory_lora_zero3_yaml_that_asks_non_reentrant(tmp_path):
    d = _check(tmp_path, "sft.yaml", LF_YAML.format(reentrant="false", method="lora"))
    f = _codes(d)["zero3-lora-gc-nonreentrant"]
    assert f["severity"] == "warning" and f["line"] == 3 and f["fix"] == "use_reentrant_gc: true"
    assert "CheckpointError" in f["message"] and "8148" in f["message"]


@pytest.mark.parametrize("reentrant,method,stage", [("true", "lora", 3), ("false", "lora", 2), ("false", "full", 3)])
def test_check_is_quiet_where_the_recomputation_is_safe(tmp_path, reentrant, method, stage):
    d = _check(tmp_path, "sft.yaml", LF_YAML.format(reentrant=reentrant, method=method), stage=stage)
    assert "zero3-lora-gc-nonreentrant" not in _codes(d)


def test_check_reads_gradient_checkpointing_kwargs_in_a_trainer_script(tmp_path):
    bad = _codes(_check(tmp_path, "train.py", HF_SCRIPT.format(reentrant="False")))
    assert "zero3-lora-gc-nonreentrant" in bad
    assert "use_reentrant\": true" in bad["zero3-lora-gc-nonreentrant"]["fix"]
    good = _codes(_check(tmp_path, "train.py", HF_SCRIPT.format(reentrant="True")))
    assert "zero3-lora-gc-nonreentrant" not in good


def _export(tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / "bundle"
    r = run_cli("export", "--model", "llama-3.1-70b", "--method", "lora", "--gpu", "a100-80gb",
                "--cutoff-len", "8192", "--dataset-name", "alpaca_en_demo", *extra, "-o", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return yaml.safe_load((out / "llamafactory.yaml").read_text())


def test_a_lora_zero3_bundle_recomputes_reentrantly(tmp_path):
    y = _export(tmp_path, "--gpus", "8", "--zero", "3")
    assert y["use_reentrant_gc"] is True
    assert "disable_gradient_checkpointing" not in y or y["disable_gradient_checkpointing"] is False
    ds = json.loads((tmp_path / "bundle" / Path(y["deepspeed"]).name).read_text())
    assert ds["zero_optimization"]["stage"] == 3


def test_a_ddp_lora_bundle_still_recomputes_non_reentrantly(tmp_path):
    # field report 004: DDP + LoRA + reentrant checkpointing -> "Expected to mark a variable ready only once"
    r = run_cli("export", "--model", "qwen2.5-7b", "--method", "lora", "--gpu", "mi300x", "--gpus", "2",
                "--zero", "0", "--cutoff-len", "4096", "--gradient-checkpointing", "--dataset-name",
                "alpaca_en_demo", "-o", str(tmp_path / "b"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    y = yaml.safe_load((tmp_path / "b" / "llamafactory.yaml").read_text())
    assert y.get("use_reentrant_gc") is False


def test_rocm_tune_train_recomputes_reentrantly_under_lora_zero3(tmp_path):
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps(DS))
    (tmp_path / "d.jsonl").write_text('{"instruction": "hi", "input": "", "output": "hello"}\n')
    model = tmp_path / "tiny"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
                                                   "num_attention_heads": 4, "intermediate_size": 128,
                                                   "vocab_size": 256}))
    base = {"model_name_or_path": str(model), "finetuning_type": "lora", "deepspeed": str(ds),
            "train_file": str(tmp_path / "d.jsonl"), "output_dir": str(tmp_path / "o")}
    assert zero_stage_of(str(ds)) == 3
    assert reentrant_needed(config_from_dict(base)) is True          # its default is non-reentrant (DDP + LoRA)
    assert reentrant_needed(config_from_dict({**base, "use_reentrant_gc": True})) is False
    assert reentrant_needed(config_from_dict({**base, "finetuning_type": "full"})) is False
    ds.write_text(json.dumps({**DS, "zero_optimization": {"stage": 2}}))
    assert reentrant_needed(config_from_dict(base)) is False
