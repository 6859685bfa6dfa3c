"""`check` counts a micro-batch at min(length cap, the named data's longest sample) when the collator pads to the
batch's longest sample (issue 26): the public data a config names (profiles/dataset_lengths.py, every figure with
its source) bounds the sequence for each runner's way of naming it, and the answer says which bound it used."""

from __future__ import annotations

import pytest

from rocm_tune.core.check.check import check
from rocm_tune.profiles import dataset_lengths

TRL = """accelerate launch trl/scripts/sft.py \\
    --model_name_or_path meta-llama/Llama-3.1-8B-Instruct \\
    --dataset_name {data} \\
    --max_seq_length 16384 \\
    --per_device_train_batch_size 8 \\
    --gradient_checkpointing \\
    --bf16 {extra}\\
    --use_peft --lora_r 16 \\
    --output_dir out
"""
AXOLOTL = """base_model: meta-llama/Llama-3.1-8B-Instruct
adapter: lora
lora_r: 16
lora_target_linear: true
datasets:
  - path: {data}
    type: alpaca
sequence_len: 16384
sample_packing: {packing}
micro_batch_size: 8
num_epochs: 1
bf16: true
gradient_checkpointing: true
output_dir: ./out
"""
TORCHTUNE = """output_dir: /tmp/out
model:
  _component_: torchtune.models.llama3_1.lora_llama3_1_8b
  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']
  apply_lora_to_mlp: True
  lora_rank: 8
  lora_alpha: 16
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /tmp/Meta-Llama-3.1-8B-Instruct/original/tokenizer.model
  max_seq_len: 16384
dataset:
  _component_: {data}
  packed: False
batch_size: 8
optimizer:
  _component_: torch.optim.AdamW
  lr: 3e-4
enable_activation_checkpointing: True
dtype: bf16
"""
SWIFT = """CUDA_VISIBLE_DEVICES=0 swift sft \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --train_type lora \\
    --dataset '{data}' \\
    --torch_dtype bfloat16 \\
    --per_device_train_batch_size 8 \\
    --max_length 16384 \\
    --output_dir output
"""
LF = """model_name_or_path: meta-llama/Llama-3.1-8B-Instruct
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
dataset: {data}
template: llama3
cutoff_len: 16384
per_device_train_batch_size: 8
bf16: true
output_dir: out
{extra}"""


def _run(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return check([str(p)], gpu_id="mi300x").to_dict()


def test_the_table_has_a_source_for_every_figure_and_reads_hub_and_runner_names():
    for name, (tokens, tokenizer, source) in dataset_lengths.DATASETS.items():
        assert tokens > 0 and tokenizer and len(source) > 20, name
    for alias, target in dataset_lengths.ALIASES.items():
        assert target in dataset_lengths.DATASETS, alias
    # a sample (#N) or subset (:name) of a set is bounded by the set; quotes and case do not matter
    assert dataset_lengths.longest("'Tatsu-Lab/alpaca#500'")[0] == 1305
    assert dataset_lengths.longest("alpaca_en")[0] == 1305
    assert dataset_lengths.longest("torchtune.datasets.alpaca_dataset")[0] == 1305
    assert dataset_lengths.longest("swift/self-cognition#1000")[0] == 549 + 512
    # a set without a sourced figure is unknown, and so is a mix with one
    assert dataset_lengths.longest("my/own-data") is None
    assert dataset_lengths.longest_of(["tatsu-lab/alpaca", "my/own-data"]) is None
    assert dataset_lengths.longest_of(["tatsu-lab/alpaca", "swift/self-cognition"])[0] == 1305


@pytest.mark.parametrize("name,text,named_by", [
    ("train.sh", TRL.format(data="tatsu-lab/alpaca", extra=""), "dataset_name"),
    ("axolotl.yml", AXOLOTL.format(data="tatsu-lab/alpaca", packing="false"), "datasets"),
    ("torchtune.yaml", TORCHTUNE.format(data="torchtune.datasets.alpaca_dataset"), "dataset"),
    ("swift.sh", SWIFT.format(data="tatsu-lab/alpaca#2000"), "dataset"),
    ("lf.yaml", LF.format(data="alpaca_en", extra=""), "dataset"),
])
def test_each_runner_counts_the_named_datas_longest_sample_not_the_cap(tmp_path, name, text, named_by):
    rep = _run(tmp_path, name, text)
    bound = rep["sequence_bound"]
    # Alpaca's longest sample (1305 tokens) padded to a multiple of 8, not the 16384 cap
    assert bound["data_longest_tokens"] == 1305 and bound["counted_tokens"] == 1312
    assert bound["cutoff_len"] == 16384 and bound["named_by"] == named_by
    assert "alpaca-lora" in bound["source"]
    # 8 x 16384 tokens of an 8B model's activations overflow a 192 GB MI300X; 8 x 1312 do not
    assert bound["at_cutoff_len"]["verdict"] == "oom" and bound["at_cutoff_len"]["peak_bytes"] > 192 * 10**9
    assert rep["verdict"] == "fits"
    said = [a for a in rep["assumptions"] if "longest sample ~1305 tokens < cutoff_len 16384" in a]
    assert len(said) == 1 and "counted at 1312" in said[0] and "a longer dataset would need" in said[0]


@pytest.mark.parametrize("name,text", [
    # packing fills every row to the cap: the cap stays
    ("axolotl.yml", AXOLOTL.format(data="tatsu-lab/alpaca", packing="true")),
    ("train.sh", TRL.format(data="tatsu-lab/alpaca", extra="--packing ")),
    ("lf.yaml", LF.format(data="alpaca_en", extra="packing: true\n")),
    # data without a sourced figure: the cap stays the worst case
    ("train.sh", TRL.format(data="my-org/long-chats", extra="")),
    ("axolotl.yml", AXOLOTL.format(data="my-org/long-chats", packing="false")),
    ("torchtune.yaml", TORCHTUNE.format(data="torchtune.datasets.instruct_dataset\n  source: json")),
    ("lf.yaml", LF.format(data="alpaca_en,my_long_chats", extra="")),
])
def test_packing_or_unknown_data_keeps_the_cap(tmp_path, name, text):
    rep = _run(tmp_path, name, text)
    assert "sequence_bound" not in rep
    assert rep["verdict"] == "oom"
    assert not any("counted at 1312" in a for a in rep["assumptions"])


def test_llamafactorys_demo_files_bound_by_their_measured_bytes(tmp_path):
    """LLaMA-Factory's examples train on `identity,alpaca_en_demo` (its own data/ files): their longest sample's
    UTF-8 bytes bound its tokens (2921 for alpaca_en_demo.json), plus the chat template's allowance."""
    got = dataset_lengths.longest_of(["identity", "alpaca_en_demo"], llamafactory=True)
    assert got[0] == 2921 + dataset_lengths.LF_TEMPLATE_ALLOWANCE and "alpaca_en_demo.json" in got[1]
    # the demo names are LLaMA-Factory's files: another runner naming them names something else
    assert dataset_lengths.longest("alpaca_en_demo") is None
    rep = _run(tmp_path, "lf.yaml", LF.format(data="identity,alpaca_en_demo", extra=""))
    assert rep["sequence_bound"]["counted_tokens"] == 2921 + 512 + 7 and rep["verdict"] == "fits"
    assert rep["sequence_bound"]["at_cutoff_len"]["verdict"] == "oom"
    # a cap below the data's bound: the cap is what is counted, nothing is said about the data
    short = _run(tmp_path, "lf.yaml", LF.format(data="identity,alpaca_en_demo", extra="").replace(
        "cutoff_len: 16384", "cutoff_len: 2048"))
    assert "sequence_bound" not in short and short["understood"]["cutoff_len"] == 2048
