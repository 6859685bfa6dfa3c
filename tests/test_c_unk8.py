"""ljm565/universal-llm-trainer's own config YAML read as a runner (helper c-unk8, issue 26): the model from `model` +
`model_size` (choose_proper_model), `bit` (4/8: bitsandbytes over fp32 weights; 16: bf16; 32: fp32), `amp_training`
(fp16 autocast), the LoRA / quantization YAMLs it names, every sample padded to `max_length`, one process per `device`
entry, FSDP with CPU offload. The configs are written here after the repository's config/*.yaml (keys as its source
reads them); none is a corpus case."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main

BASE = """seed: 0
model: {model}
{size}
data_train_type: ['qa']
data_path: ['./data_examples/allenai_ai2_arc']
device: {device}
bit: {bit}
quant_config: {quant}
attn_implementation: null
half_inference: False
fsdp_train: {fsdp}
fsdp_hyperparameters:
    cpu_offload: True
    amp_training: False
    wrap_policy: size_based
max_length: {length}
batch_size: {batch}
steps: 1000
total_cpu_use: 32
amp_training: {amp}
gradient_checkpointing:
    activate: {gc}
    checkpoint_type: 'hf_checkpoint'
gradient_accumuate_step: 1
del_logits_after_forward: True
peft_config_path: {peft}
"""
LORA = """type: lora
r: 16
lora_alpha: 32
lora_dropout: 0.05
bias: none
task_type: CAUSAL_LM
target_modules: ['q_proj', 'v_proj']
"""
QUANT = """load_in_4bit: True
bnb_4bit_compute_dtype: bfloat16
bnb_4bit_quant_type: nf4
bnb_4bit_use_double_quant: True
"""


def _config(**kw) -> str:
    v = {"model": "llama3.1", "size": "model_size: 8b", "device": "[0]", "bit": "bfloat16", "quant": "null",
         "fsdp": "False", "length": 2048, "batch": 1, "amp": "False", "gc": "True", "peft": "False", **kw}
    return BASE.format(**v)


def _check(tmp_path: Path, capsys, files: dict[str, str], *args: str) -> tuple[int, dict | str]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    rc = main(["check", *(str(tmp_path / n) for n in files), *args, "--json"])
    cap = capsys.readouterr()
    return rc, (json.loads(cap.out) if rc in (0, 1) else cap.err)


def test_family_and_size_choose_the_nearest_checkpoint(tmp_path, capsys):
    rc, out = _check(tmp_path, capsys, {"config/full.yaml": _config()}, "--gpu", "mi300x")
    assert isinstance(out, dict) and out["runner"] == "hf"
    assert out["model"]["identified"].startswith("meta-llama/Llama-3.1-8B-Instruct")
    assert out["understood"]["method"] == "full" and out["understood"]["cutoff_len"] == 2048
    rc70, out70 = _check(tmp_path / "b", capsys, {"config/full.yaml": _config(size="model_size: 70")}, "--gpu", "mi300x")
    assert isinstance(out70, dict) and out70["model"]["identified"].startswith("meta-llama/Llama-3.1-70B-Instruct")
    # the 70B checkpoint: weights alone several times the 8B's
    assert out70["memory"]["load"]["peak_allocated_bytes"] > 5 * out["memory"]["load"]["peak_allocated_bytes"]


def test_bit16_full_trains_bf16_weights_and_moments(tmp_path, capsys):
    _rc, out = _check(tmp_path, capsys, {"config/full.yaml": _config(bit=16)}, "--gpu", "mi300x")
    assert isinstance(out, dict)
    ex = out["execution"]
    assert ex["trainable_weights"] == "bf16" and ex["optimizer_state"] == "bf16" and ex["compute"] == "bf16"
    assert out["understood"]["gradient_checkpointing"] is True


def test_qlora_reads_the_named_lora_and_quant_yamls(tmp_path, capsys):
    files = {"config/q.yaml": _config(bit=4, quant="config_quant/bnb_4bit.yaml", length=8192, batch=4,
                                      peft="config_lora/llm_lora_config.yaml"),
             "config_lora/llm_lora_config.yaml": LORA, "config_quant/bnb_4bit.yaml": QUANT}
    _rc, out = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    assert isinstance(out, dict)
    u = out["understood"]
    assert (u["method"], u["quant_bits"], u["lora_rank"], u["lora_alpha"]) == ("qlora", 4, 16, 32)
    assert sorted(u["lora_targets"]) == ["q_proj", "v_proj"]
    # bit 4 loads with dtype=torch.float32 and no autocast: the hidden states are fp32
    assert u["precision"] == "fp32" and out["execution"]["compute"] == "fp32"
    assert not any(f.get("code") == "format-unknown" for f in out["findings"])
    # amp_training turns on torch.autocast's cuda default, float16, over the fp32 weights
    _rc, amp = _check(tmp_path / "amp", capsys, {**files, "config/q.yaml": files["config/q.yaml"].replace(
        "amp_training: False\ngrad", "amp_training: True\ngrad")}, "--gpu", "mi300x")
    assert isinstance(amp, dict) and amp["understood"]["precision"] == "fp16"
    assert amp["execution"]["autocast"] == "fp16" and out["execution"]["autocast"] is None


def test_devices_and_fsdp_offload(tmp_path, capsys):
    _rc, out = _check(tmp_path, capsys, {"config/f.yaml": _config(device="[0, 1, 2, 3]", fsdp="True", bit=32)},
                      "--gpu", "mi300x")
    assert isinstance(out, dict)
    assert out["world_size"] == 4 and out["understood"]["gpus"] == 4
    assert any("FULL_SHARD + CPU offload of parameters over 4" in n for n in out["notes"] + out["assumptions"])
    _rc, ddp = _check(tmp_path / "ddp", capsys, {"config/f.yaml": _config(device="[0, 1, 2, 3]", bit=32)},
                      "--gpu", "mi300x")
    assert isinstance(ddp, dict) and ddp["world_size"] == 4
    assert not any("FULL_SHARD" in n for n in ddp["notes"] + ddp["assumptions"])
    # DDP keeps a whole fp32 model, its gradients and Adam's moments on each GPU; FSDP + offload keeps them on the host
    assert ddp["memory"]["step"]["peak_allocated_bytes"] > 4 * out["memory"]["step"]["peak_allocated_bytes"]


def test_a_family_the_trainer_lacks_is_a_one_line_error(tmp_path, capsys):
    rc, err = _check(tmp_path, capsys, {"config/x.yaml": _config(model="mistral")}, "--gpu", "mi300x")
    assert rc == 2 and isinstance(err, str) and "mistral" in err and len(err.strip().splitlines()) == 1


# a program's own YAML that no reader maps (a custom GRPO script's config), its model loaded from a LoRA checkpoint
# path; only the nested wandb run_name names the model
OWN_CONFIG = """model:
  sft_model_local: "./outputs/sft_lora"
  max_seq_length: 2048
training:
  per_device_train_batch_size: 1
wandb:
  project: "ops"
  run_name: "{run}"
"""
PROGRAM = """import yaml
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
cfg = yaml.safe_load(open("configs/train.yaml"))
model = AutoModelForCausalLM.from_pretrained(cfg["model"]["sft_model_local"])
args = TrainingArguments(output_dir="out", per_device_train_batch_size=1, bf16=True)
Trainer(model=model, args=args).train()
"""


def test_a_nested_run_name_in_a_config_names_the_model(tmp_path, capsys):
    files = {"configs/train.yaml": OWN_CONFIG.format(run="sft-qwen2.5-7b-mi300x"), "train.py": PROGRAM}
    _rc, out = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    assert isinstance(out, dict)
    said = [a for a in out["assumptions"] if "run_name: sft-qwen2.5-7b-mi300x (train.yaml:8)" in a]
    assert said and out["model"]["name"] == "qwen2.5-7b"
    # a run name that names no size leaves the model unknown: --model is asked
    _rc, none = _check(tmp_path / "n", capsys, {**files, "configs/train.yaml": OWN_CONFIG.format(run="sft-run-1")},
                       "--gpu", "mi300x")
    assert isinstance(none, dict) and none["verdict"] == "unknown" and none["model"] is None


def test_the_launch_command_beside_the_config_keeps_its_reading(tmp_path, capsys):
    cfg = _config(bit=16, device="[0, 1]", length=4096, batch=2)
    files = {"config/full.yaml": cfg,
             "run.sh": "#!/bin/bash\npython3 src/run/train.py --config config/full.yaml --mode train\n"}
    _rc, out = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    _rc, alone = _check(tmp_path / "alone", capsys, {"config/full.yaml": cfg}, "--gpu", "mi300x")
    assert isinstance(out, dict) and isinstance(alone, dict)
    assert out["world_size"] == alone["world_size"] == 2
    assert (out["understood"]["cutoff_len"], out["understood"]["micro_batch"]) == (4096, 2)
    assert out["memory"]["step"]["peak_allocated_bytes"] == alone["memory"]["step"]["peak_allocated_bytes"]
