"""The longest sample of the datasets fine-tunes name most, from the data's own source (issue 26, helper c-data):
ms-swift 2.x's whole-set token statistics (counted with Qwen's 151k-token tokenizer: they hold for models with a
vocabulary of 100k tokens or more, never for a 32k one) and GSM8K's files (openai/grade-school-math), under the
names LLaMA-Factory, ms-swift (2.x names and ModelScope ids), TRL/transformers (hub ids) and axolotl give them."""

from __future__ import annotations

import pytest

from rocm_tune.core.check.check import check
from rocm_tune.profiles import dataset_lengths as dl

# ms-swift's examples (examples/train/lora_sft.sh style): Qwen2.5-7B-Instruct, a 152k vocabulary
SWIFT = """CUDA_VISIBLE_DEVICES=0 swift sft \\
    --model Qwen/Qwen2.5-7B-Instruct \\
    --train_type lora \\
    --dataset {data} \\
    --torch_dtype bfloat16 \\
    --per_device_train_batch_size 16 \\
    --max_length 16384 \\
    --output_dir output
"""
# LLaMA-Factory examples/train_lora/llama3_lora_sft.yaml with a dataset_info.json hub name
LF = """model_name_or_path: {model}
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
dataset: {data}
template: llama3
cutoff_len: 16384
per_device_train_batch_size: 16
bf16: true
output_dir: out
"""
# TRL's sft.py with a hub id (and transformers' --dataset_config_name for the subset)
TRL = """accelerate launch trl/scripts/sft.py \\
    --model_name_or_path meta-llama/Llama-3.1-8B-Instruct \\
    --dataset_name {data} {extra}\\
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
    type: alpaca
sequence_len: 16384
sample_packing: false
micro_batch_size: 16
num_epochs: 1
bf16: true
gradient_checkpointing: true
output_dir: ./out
"""


def _run(tmp_path, name: str, text: str, gpu: str = "mi300x"):
    p = tmp_path / name
    p.write_text(text)
    return check([str(p)], gpu_id=gpu).to_dict()


def test_every_swift_figure_is_its_whole_set_max_plus_the_allowance_with_its_source():
    for ms, (m, rows, commit) in dl.SWIFT_STATS.items():
        tokens, tokenizer, source = dl.LARGE_VOCAB_DATASETS[ms.lower()]
        assert tokens == m + dl.SWIFT_TEMPLATE_ALLOWANCE and rows > 0 and len(commit) == 9
        assert f"all {rows} rows" in source and commit in source and "Qwen" in tokenizer
    for alias, target in dl.LARGE_VOCAB_ALIASES.items():
        assert target in dl.LARGE_VOCAB_DATASETS, alias
    # the figures ms-swift's docs give (docs/source/LLM/支持的模型和数据集.md): alpaca-gpt4 zh 856, en 740
    assert dl.longest("AI-ModelScope/alpaca-gpt4-data-zh#5000", vocab=151936)[0] == 856 + 256
    assert dl.longest("alpaca-en", vocab=128256)[0] == 740 + 256
    assert dl.longest("vicgalle/alpaca-gpt4", vocab=128256)[0] == 740 + 256
    assert dl.longest("yahma/alpaca-cleaned", vocab=128256)[0] == 1044 + 256
    assert dl.longest("databricks/databricks-dolly-15k", vocab=128256)[0] == 8615 + 256
    assert dl.longest("HuggingFaceH4/ultrachat_200k", vocab=128256)[0] == 4470 + 256


@pytest.mark.parametrize("vocab", [0, 32000, 64000, 99999])
def test_qwen_counted_figures_give_no_bound_to_small_or_unknown_vocabularies(vocab):
    # Llama 2 / Mistral 7B (32k), Baichuan / ChatGLM / Yi (64k): Chinese text takes 2-3 times the tokens
    assert dl.longest("AI-ModelScope/alpaca-gpt4-data-zh", vocab=vocab) is None
    assert dl.longest("alpaca_gpt4_en", vocab=vocab) is None
    assert dl.longest_of(["alpaca_gpt4_en", "identity"], llamafactory=True, vocab=vocab) is None


def test_gsm8k_main_is_bounded_for_any_tokenizer_by_its_bytes_and_a_subset_not_measured_is_not():
    # openai/grade-school-math train.jsonl + test.jsonl: longest question + answer 1691 UTF-8 bytes
    assert dl.longest("openai/gsm8k")[0] == 1691 + 512
    assert dl.longest("gsm8k:main")[0] == 1691 + 512
    # a large vocabulary: ms-swift's count over all 7473 train rows (241 tokens), the smaller figure
    assert dl.longest("modelscope/gsm8k", vocab=151936)[0] == 241 + 256
    # socratic's train file was not measured (its answers carry sub-questions: longer)
    assert dl.longest("openai/gsm8k:socratic") is None
    assert dl.longest("openai/gsm8k:socratic#100", vocab=151936) is None


def test_swift_example_on_alpaca_gpt4_zh_counts_the_data_not_the_16k_cap(tmp_path):
    rep = _run(tmp_path, "train.sh", SWIFT.format(
        data="'AI-ModelScope/alpaca-gpt4-data-zh#500' 'AI-ModelScope/alpaca-gpt4-data-en#500'"))
    bound = rep["sequence_bound"]
    assert bound["data_longest_tokens"] == 856 + 256 and bound["counted_tokens"] == 1112
    assert bound["cutoff_len"] == 16384 and bound["named_by"] == "dataset"
    assert "ms-swift" in bound["source"] and "48818 rows" in bound["source"]
    # 16 x 16384 tokens of a 7B model overflow a 192 GB MI300X; 16 x 1112 do not
    assert bound["at_cutoff_len"]["verdict"] == "oom" and rep["verdict"] == "fits"


def test_swift_2x_dataset_names_and_a_set_without_a_figure(tmp_path):
    rep = _run(tmp_path, "train.sh", SWIFT.format(data="alpaca-zh alpaca-en self-cognition"))
    assert rep["sequence_bound"]["data_longest_tokens"] == 856 + 256   # alpaca-zh (over self-cognition 549 + 512)
    mixed = _run(tmp_path, "train.sh", SWIFT.format(data="alpaca-zh my-org/long-chats"))
    assert "sequence_bound" not in mixed and mixed["verdict"] == "oom"


@pytest.mark.parametrize("data,longest", [
    ("alpaca_gpt4_en", 740), ("alpaca_gpt4_zh", 856), ("alpaca_gpt4_en,alpaca_gpt4_zh", 856),
    ("ultrachat_200k", 4470), ("codealpaca", 1776), ("belle_math", 3450)])
def test_llamafactory_hub_names_bound_a_llama3_run(tmp_path, data, longest):
    rep = _run(tmp_path, "lf.yaml", LF.format(model="meta-llama/Llama-3.1-8B-Instruct", data=data))
    assert rep["sequence_bound"]["data_longest_tokens"] == longest + 256
    assert rep["sequence_bound"]["at_cutoff_len"]["verdict"] == "oom" and rep["verdict"] == "fits"


def test_llamafactory_llama2_on_the_same_data_keeps_the_cap(tmp_path):
    # Llama 2's 32k vocabulary: Qwen's count does not bound it
    rep = _run(tmp_path, "lf.yaml", LF.format(model="meta-llama/Llama-2-7b-hf", data="alpaca_gpt4_zh").replace(
        "template: llama3", "template: llama2"), gpu="rtx4090")
    assert "sequence_bound" not in rep and rep["verdict"] == "oom"
    assert rep["understood"]["cutoff_len"] == 16384


def test_trl_and_axolotl_hub_ids(tmp_path):
    trl = _run(tmp_path, "train.sh", TRL.format(data="databricks/databricks-dolly-15k", extra=""))
    assert trl["sequence_bound"]["data_longest_tokens"] == 8615 + 256
    assert trl["sequence_bound"]["named_by"] == "dataset_name"
    ax = _run(tmp_path, "axolotl.yml", AXOLOTL.format(data="yahma/alpaca-cleaned"))
    assert ax["sequence_bound"]["data_longest_tokens"] == 1044 + 256 and ax["verdict"] == "fits"


def test_trl_dataset_config_name_is_the_subset(tmp_path):
    main = _run(tmp_path, "train.sh", TRL.format(data="openai/gsm8k", extra="--dataset_config_name main "))
    assert main["sequence_bound"]["data_longest_tokens"] == 241 + 256      # Llama 3.1: 128k vocabulary
    soc = _run(tmp_path, "train.sh", TRL.format(data="openai/gsm8k", extra="--dataset_config_name socratic "))
    assert "sequence_bound" not in soc and soc["verdict"] == "oom"


def test_grpo_generates_its_completions_so_the_prompts_set_bounds_nothing(tmp_path):
    text = TRL.format(data="openai/gsm8k", extra="--dataset_config_name main ").replace(
        "trl/scripts/sft.py", "trl/scripts/grpo.py").replace("--max_seq_length 16384", (
            "--max_prompt_length 512 --max_completion_length 16384 --num_generations 16"))
    rep = _run(tmp_path, "train.sh", text)
    assert "sequence_bound" not in rep
    assert not any("named data's longest sample" in a for a in rep["assumptions"])


# torchtune recipes/configs/llama3/8B_lora_single_device.yaml with its 8192-token tokenizer cap and the cleaned
# Alpaca builder (torchtune/datasets/_alpaca.py alpaca_cleaned_dataset: source yahma/alpaca-cleaned)
TORCHTUNE = """# torchtune recipes/configs/llama3/8B_lora_single_device.yaml with the cleaned Alpaca builder
model:
  _component_: torchtune.models.llama3.lora_llama3_8b
  lora_attn_modules: ['q_proj', 'v_proj']
  apply_lora_to_mlp: False
  apply_lora_to_output: False
  lora_rank: 8
  lora_alpha: 16
tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /tmp/Meta-Llama-3-8B-Instruct/original/tokenizer.model
  max_seq_len: 8192
checkpointer:
  _component_: torchtune.training.FullModelMetaCheckpointer
  checkpoint_dir: /tmp/Meta-Llama-3-8B-Instruct/original/
  checkpoint_files: [consolidated.00.pth]
  output_dir: /tmp/out
  model_type: LLAMA3
dataset:
  _component_: torchtune.datasets.alpaca_cleaned_dataset
seed: null
shuffle: True
batch_size: 4
optimizer:
  _component_: torch.optim.AdamW
  lr: 3e-4
loss:
  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss
epochs: 1
gradient_accumulation_steps: 16
device: cuda
dtype: bf16
enable_activation_checkpointing: True
"""


def test_torchtune_alpaca_cleaned_builder_is_bounded_by_the_cleaned_set(tmp_path):
    out = _run(tmp_path, "8B_lora_single_device.yaml", TORCHTUNE, gpu="rtx4090")
    # at the 8192 cap batch 4 would need ~34 GiB on the 24 GiB card; the set's longest sample (1044 + 256) fits
    assert out["verdict"] == "fits", out["reason"]
    assert any("alpaca-cleaned" in n.lower() and "counted at 1304" in n for n in out["assumptions"])
    capped = _run(tmp_path, "8B_lora_own_data.yaml",
                  TORCHTUNE.replace("torchtune.datasets.alpaca_cleaned_dataset",
                                    "torchtune.datasets.instruct_dataset\n  source: json"), gpu="rtx4090")
    assert capped["verdict"] == "oom"
