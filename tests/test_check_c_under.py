"""`rocm-tune check` must not say "fits" for runs that OOM because a reader missed a setting or the estimator left a
real allocation out (issue 26, the under-count side). Each test drives the CLI on a real user's files (source cited)
and names the tool code the rule models."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main


def _check(capsys, *args) -> dict:
    rc = main(["check", *map(str, args), "--json"])
    out = capsys.readouterr()
    assert not out.err, out.err
    d = json.loads(out.out)
    assert rc in (0, 1), rc
    return d


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------------------- torchtune <= 0.2
# pytorch/torchtune#856: the v0.1 single-device LoRA config (datasets took max_seq_len then:
# torchtune/datasets/_alpaca.py `alpaca_dataset(..., max_seq_len: int = 512)` handed to InstructDataset, which
# truncates), run with `dataset.max_seq_len=8192` on one RTX 4090: OOM; the same at 2k trained.
TT_V01 = """model:
  _component_: torchtune.models.llama3.lora_llama3_8b
  lora_attn_modules: ['q_proj', 'v_proj']
  apply_lora_to_mlp: False
  apply_lora_to_output: False
  lora_rank: 8
  lora_alpha: 16
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /tmp/Meta-Llama-3-8B/original/tokenizer.model
checkpointer:
  _component_: torchtune.utils.FullModelMetaCheckpointer
  checkpoint_dir: /tmp/Meta-Llama-3-8B/original/
  checkpoint_files: [consolidated.00.pth]
  output_dir: /tmp/Meta-Llama-3-8B/
  model_type: LLAMA3
dataset:
  _component_: torchtune.datasets.alpaca_cleaned_dataset
  train_on_input: True
seed: null
shuffle: True
batch_size: 2
optimizer:
  _component_: torch.optim.AdamW
  weight_decay: 0.01
  lr: 3e-4
loss:
  _component_: torch.nn.CrossEntropyLoss
epochs: 1
gradient_accumulation_steps: 64
compile: False
device: cuda
dtype: bf16
enable_activation_checkpointing: True
"""


def test_torchtune_dataset_max_seq_len_is_the_sequence_length(tmp_path, capsys):
    cfg = _write(tmp_path, "8B_lora_single_device.yaml", TT_V01)
    long = _write(tmp_path, "launch.sh", "tune run lora_finetune_single_device --config ./8B_lora_single_device.yaml "
                                         "batch_size=1 dataset.max_seq_len=8192\n")
    d = _check(capsys, cfg, long, "--gpu", "rtx4090")
    assert d["understood"]["cutoff_len"] == 8192
    assert d["verdict"] == "oom"
    short = _write(tmp_path, "launch2.sh", "tune run lora_finetune_single_device --config ./8B_lora_single_device.yaml "
                                           "batch_size=1 dataset.max_seq_len=2048\n")
    d = _check(capsys, cfg, short, "--gpu", "rtx4090")
    assert d["understood"]["cutoff_len"] == 2048
    assert d["verdict"] == "fits"
