"""More sourced longest-sample figures (issue 26, helper c-data2): rows of ms-swift 2.x's whole-set token statistics
(scripts/utils/run_dataset_info.py, every row encoded with the qwen-7b-chat template, Qwen's 151k-token tokenizer)
that c-data left out: MathInstruct, MATH-plus, Magpie-Qwen2-Pro (en / zh / 300K filtered), LongWriter-6k,
and multi-alpaca, under their ms-swift 2.x names, ModelScope ids and hub ids. The configs below are
written from the runners' own docs (ms-swift README `swift sft`, TRL's sft.py, axolotl's example YAML), not taken
from the corpus."""

from __future__ import annotations

import pytest

from rocm_tune.core.check.check import check
from rocm_tune.profiles import dataset_lengths as dl

# the ms-swift 2.x doc table (4b72dc834 docs/source_en/Instruction/Supported-models-datasets.md): name -> (hub id,
# ModelScope id, rows, longest)
ROWS = {
    "math-instruct": ("TIGER-Lab/MathInstruct", "AI-ModelScope/MathInstruct", 262283, 4383),
    "math-plus": ("TIGER-Lab/MATH-plus", "TIGER-Lab/MATH-plus", 893929, 2919),
    "qwen2-pro-en": ("Magpie-Align/Magpie-Qwen2-Pro-200K-English", "AI-ModelScope/Magpie-Qwen2-Pro-200K-English",
                     200000, 4267),
    "qwen2-pro-filtered": ("Magpie-Align/Magpie-Qwen2-Pro-300K-Filtered",
                           "AI-ModelScope/Magpie-Qwen2-Pro-300K-Filtered", 300000, 4267),
    "qwen2-pro-zh": ("Magpie-Align/Magpie-Qwen2-Pro-200K-Chinese", "AI-ModelScope/Magpie-Qwen2-Pro-200K-Chinese",
                     200000, 4101),
    "longwriter-6k": ("THUDM/LongWriter-6k", "ZhipuAI/LongWriter-6k", 6000, 30354),
}

SWIFT = """CUDA_VISIBLE_DEVICES=0 swift sft \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --train_type lora \\
    --dataset {data} \\
    --torch_dtype bfloat16 \\
    --per_device_train_batch_size 16 \\
    --max_length {cap} \\
    --output_dir output
"""
TRL = """accelerate launch trl/scripts/sft.py \\
    --model_name_or_path {model} \\
    --dataset_name {data} \\
    --max_seq_length 16384 \\
    --per_device_train_batch_size 16 \\
    --gradient_checkpointing \\
    --bf16 \\
    --use_peft --lora_r 16 \\
    --output_dir out
"""
AXOLOTL = """base_model: meta-llama/Llama-3.1-8B-Instruct
adapter: lora
lora_r: 16
lora_target_linear: true
datasets:
  - path: {data}
    type: chat_template
sequence_len: {cap}
sample_packing: false
micro_batch_size: {mbs}
num_epochs: 1
bf16: true
gradient_checkpointing: true
flash_attention: true
output_dir: ./out
"""


def _run(tmp_path, name: str, text: str, gpu: str = "mi300x"):
    p = tmp_path / name
    p.write_text(text)
    return check([str(p)], gpu_id=gpu).to_dict()


@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_row_is_the_tables_whole_set_max_with_its_source_under_every_name(name):
    hub, ms, rows, top = ROWS[name]
    tokens, tokenizer, source = dl.longest(ms, vocab=151936)
    assert tokens == top + dl.SWIFT_TEMPLATE_ALLOWANCE
    assert f"all {rows} rows of {ms}" in source and "ms-swift" in source and "Qwen" in tokenizer
    for alias in (name, hub, hub.lower(), f"{hub}#2000", f"'{ms}#500'"):
        assert dl.longest(alias, vocab=128256) == (tokens, tokenizer, source), alias
    # a 32k / 64k vocabulary (Llama 2, Mistral 7B, Yi): Qwen's count bounds nothing
    assert dl.longest(hub, vocab=32000) is None and dl.longest(ms, vocab=64000) is None and dl.longest(hub) is None


def test_multi_alpaca_and_coig_cqia_are_modelscope_only():
    assert dl.longest("multi-alpaca", vocab=151936)[0] == 1226 + 256
    assert dl.longest("damo/nlp_polylm_multialpaca_sft:ja", vocab=151936)[0] == 1226 + 256
    assert dl.longest("coig-cqia", vocab=151936)[0] == 19288 + 256
    assert dl.longest("AI-ModelScope/COIG-CQIA:ruozhiba#1000", vocab=151936)[0] == 19288 + 256
    # tagengo-gpt4: ms-swift 2.x and 3.x load different row counts (78057 / 76437): no figure
    assert dl.longest("lightblue/tagengo-gpt4", vocab=151936) is None


def test_swift_readme_run_on_magpie_counts_the_data_not_the_cap(tmp_path):
    rep = _run(tmp_path, "train.sh", SWIFT.format(
        data="'AI-ModelScope/Magpie-Qwen2-Pro-200K-English#20000' 'AI-ModelScope/Magpie-Qwen2-Pro-200K-Chinese#20000'",
        cap=32768))
    bound = rep["sequence_bound"]
    assert bound["data_longest_tokens"] == 4267 + 256 and bound["cutoff_len"] == 32768
    assert "dd923eb26" in bound["source"] and bound["at_cutoff_len"]["verdict"] == "oom"
    assert rep["verdict"] == "fits"


def test_a_mix_with_a_set_without_a_figure_keeps_the_cap(tmp_path):
    rep = _run(tmp_path, "train.sh", SWIFT.format(data="math-instruct my-org/long-proofs", cap=32768))
    assert "sequence_bound" not in rep and rep["verdict"] == "oom"


def test_trl_sft_on_mathinstruct_llama3_is_bounded_llama2_is_not(tmp_path):
    l3 = _run(tmp_path, "train.sh", TRL.format(model="meta-llama/Llama-3.1-8B-Instruct", data="TIGER-Lab/MathInstruct"))
    assert l3["sequence_bound"]["data_longest_tokens"] == 4383 + 256
    assert l3["sequence_bound"]["named_by"] == "dataset_name" and l3["verdict"] == "fits"
    # Llama 2 (32k vocabulary) on a 24 GiB card: no bound from Qwen's count, 16 x 16384 tokens are counted
    l2 = _run(tmp_path, "train.sh", TRL.format(model="meta-llama/Llama-2-7b-hf", data="TIGER-Lab/MathInstruct"),
              gpu="rtx4090")
    assert "sequence_bound" not in l2 and l2["verdict"] == "oom"
    assert l2["understood"]["cutoff_len"] == 16384


def test_axolotl_longwriter_is_long_so_the_bound_barely_moves_the_verdict(tmp_path):
    # LongWriter-6k's longest answer is 30354 tokens: under a 32k cap the bound holds, and 4 x 30k tokens still
    # need what 4 x 32k need on a 24 GiB card
    rep = _run(tmp_path, "axolotl.yml", AXOLOTL.format(data="THUDM/LongWriter-6k", cap=32768, mbs=4), gpu="rtx4090")
    assert rep["sequence_bound"]["data_longest_tokens"] == 30354 + 256
    assert rep["verdict"] == "oom"
    # a cap under the data's longest sample: the cap decides, no data bound
    short = _run(tmp_path, "axolotl.yml", AXOLOTL.format(data="THUDM/LongWriter-6k", cap=8192, mbs=1))
    assert "sequence_bound" not in short


def test_grpo_on_math_plus_bounds_nothing(tmp_path):
    text = TRL.format(model="meta-llama/Llama-3.1-8B-Instruct", data="TIGER-Lab/MATH-plus").replace(
        "trl/scripts/sft.py", "trl/scripts/grpo.py").replace(
        "--max_seq_length 16384", "--max_prompt_length 512 --max_completion_length 16384 --num_generations 16")
    rep = _run(tmp_path, "train.sh", text)
    assert "sequence_bound" not in rep
