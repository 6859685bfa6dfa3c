"""Terms counted by helper c-under5 (issue 26: OOMs read as fitting in preference / RL / Megatron runs). Every file
is written for the test from the runners' own sources and examples; none is a corpus case.

* LLaMA-Factory's DPO runs the reference forward (no grad) after the policy's, while the policy's fp32 logits and
  their log-softmax are alive (src/llamafactory/train/dpo/trainer.py get_batch_loss_metrics: concatenated_forward
  then compute_reference_log_probs): 8 + 8 B per logit at that moment, not the 10 B of the plain loss.
* Unsloth's GRPOConfig raises per_device_train_batch_size to num_generations where accumulation x processes x batch
  is no multiple of it (unsloth/models/rl.py, "Check GRPO num_generations mismatch").
* Megatron's --main-grads-dtype and --use-precision-aware-optimizer (--main-params-dtype, --exp-avg-dtype,
  --exp-avg-sq-dtype) set the bytes of the main gradients, master weights and Adam moments
  (megatron/training/arguments.py)."""

from __future__ import annotations

import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.errors import UserError
from rocm_tune.core.memory.estimate import TrainConfig
from rocm_tune.core.runners import megatron
from rocm_tune.core.runners.common import Setting
from rocm_tune.profiles.preference_logits import LF_DPO_REFERENCE_PASS

import pytest

# LLaMA-Factory examples/train_lora/llama3_lora_dpo.yaml (hiyouga/LLaMA-Factory), pref_loss and cutoff as the test says
LF_DPO = """### model
model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct
trust_remote_code: true

### method
stage: {stage}
do_train: true
finetuning_type: {ft}
lora_rank: 8
lora_target: all
pref_beta: 0.1
pref_loss: {loss}  # choices: [sigmoid (dpo), orpo, simpo]

### dataset
dataset: dpo_en_demo
template: llama3
cutoff_len: {cutoff}
max_samples: 1000
overwrite_cache: true
preprocessing_num_workers: 16

### output
output_dir: saves/llama3-8b/lora/dpo
logging_steps: 10
save_steps: 500
plot_loss: true
overwrite_output_dir: true

### train
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
learning_rate: 5.0e-6
num_train_epochs: 3.0
lr_scheduler_type: cosine
warmup_ratio: 0.1
bf16: true
ddp_timeout: 180000000
"""
LLAMA3_VOCAB = 128256

# Unsloth's GRPO notebooks (unslothai/notebooks, Qwen3_(4B)-GRPO.ipynb): FastLanguageModel with fast_inference, then
# GRPOConfig(per_device_train_batch_size = 1, gradient_accumulation_steps = 1, num_generations = 4, ...)
UNSLOTH_GRPO = """from unsloth import FastLanguageModel
from trl import GRPOConfig, GRPOTrainer

model, tokenizer = FastLanguageModel.from_pretrained(
    model_name = "unsloth/Qwen3-4B-Base",
    max_seq_length = 2048,
    load_in_4bit = False,
    fast_inference = True,
    max_lora_rank = 32,
    gpu_memory_utilization = 0.7,
)
model = FastLanguageModel.get_peft_model(
    model, r = 32,
    target_modules = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    lora_alpha = 64, use_gradient_checkpointing = "unsloth", random_state = 3407,
)
training_args = GRPOConfig(
    temperature = 1.0,
    learning_rate = 5e-6,
    optim = "adamw_8bit",
    per_device_train_batch_size = {bs},
    gradient_accumulation_steps = {ga},
    num_generations = {ng},
    max_prompt_length = 512,
    max_completion_length = 1024,
    max_steps = 100,
    output_dir = "outputs",
)
trainer = GRPOTrainer(model = model, processing_class = tokenizer, reward_funcs = [], args = training_args,
                      train_dataset = dataset)
trainer.train()
"""
# the same program with TRL alone (no Unsloth loader): TRL never changes the batch
TRL_GRPO = """from transformers import AutoModelForCausalLM
from trl import GRPOConfig, GRPOTrainer

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen3-4B-Base", torch_dtype="bfloat16")
training_args = GRPOConfig(per_device_train_batch_size = 1, gradient_accumulation_steps = 1, num_generations = 8,
                           max_prompt_length = 512, max_completion_length = 1024, bf16 = True, output_dir = "out")
trainer = GRPOTrainer(model = model, reward_funcs = [], args = training_args, train_dataset = dataset)
trainer.train()
"""

# Megatron-LM pretrain_gpt.py (examples/gpt3, Llama-3-8B shape), one process: no data parallel to shard over
MEGATRON = """torchrun --nproc_per_node 1 pretrain_gpt.py \\
  --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \\
  --group-query-attention --num-query-groups 8 --swiglu --normalization RMSNorm \\
  --seq-length 2048 --max-position-embeddings 8192 --micro-batch-size 1 --global-batch-size 16 \\
  --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 --bf16 --use-distributed-optimizer \\
  --untie-embeddings-and-output-weights --vocab-size 128256 --recompute-granularity full \\
  --recompute-method uniform --recompute-num-layers 1 \\
  --train-iters 100 --lr 3e-4 --data-path /data/text_document{extra}
"""


def _check(tmp_path: Path, capsys, files: dict[str, str], *args: str) -> dict:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    rc = main(["check", *paths, *args, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _step(out: dict) -> int:
    return int(out["memory"]["step"]["peak_allocated_bytes"])


def _lf(tmp_path: Path, capsys, stage="dpo", loss="sigmoid", ft="lora", cutoff=2048,
        args: tuple[str, ...] = ("--gpu", "mi300x")) -> dict:
    text = LF_DPO.format(stage=stage, loss=loss, ft=ft, cutoff=cutoff)
    return _check(tmp_path, capsys, {"llama3_lora_dpo.yaml": text}, *args)


# ---------------------------------------------------------------------------------------------- LLaMA-Factory DPO


def test_lf_dpo_reference_pass_counted_beside_the_policys_logits(tmp_path, capsys):
    dpo = _lf(tmp_path, capsys)
    orpo = _lf(tmp_path, capsys, loss="orpo")
    assert dpo["understood"]["reference_pass"] == [8, 8]
    assert "reference_pass" not in orpo["understood"]       # orpo / simpo: use_ref_model False, no reference forward
    assert any("DPO reference pass" in a for a in dpo["notes"])
    # LoRA: no reference copy either way (the adapter is disabled), so the pass is the whole difference: the policy's
    # 8 B and the reference's 8 B per logit over chosen + rejected rows, against the plain loss's peak in its backward
    # (12 B: the fp32 log-softmax kept, the incoming gradient and the gradient of its input)
    logits = 2 * 2048 * LLAMA3_VOCAB
    policy, reference, _ = LF_DPO_REFERENCE_PASS
    assert _step(dpo) - _step(orpo) == pytest.approx((policy + reference - 12) * logits, rel=0.02)


def test_lf_dpo_reference_pass_grows_with_the_sequence(tmp_path, capsys):
    short = _step(_lf(tmp_path, capsys, cutoff=1024)) - _step(_lf(tmp_path, capsys, loss="simpo", cutoff=1024))
    long = _step(_lf(tmp_path, capsys, cutoff=4096)) - _step(_lf(tmp_path, capsys, loss="simpo", cutoff=4096))
    assert short > 0 and long == pytest.approx(4 * short, rel=0.02)


def test_lf_dpo_reference_pass_decides_the_verdict(tmp_path, capsys):
    # full DPO of an 8B at 4096 tokens: the reference pass is 6 B x 2 x 4096 x 128256 logits = 5.9 GiB over the plain
    # loss; on a card between the two needs it decides
    big = ("--vram-gib", "400")
    need_base = 400 * 2**30 - int(_lf(tmp_path, capsys, loss="orpo", ft="full", cutoff=4096, args=big)["margin_bytes"])
    need_pass = 400 * 2**30 - int(_lf(tmp_path, capsys, ft="full", cutoff=4096, args=big)["margin_bytes"])
    assert need_pass - need_base > 4 * 2**30
    between = ("--vram-gib", f"{(need_base + need_pass) / 2 / 2**30:.2f}")
    assert _lf(tmp_path, capsys, loss="orpo", ft="full", cutoff=4096, args=between)["verdict"] == "fits"
    assert _lf(tmp_path, capsys, ft="full", cutoff=4096, args=between)["verdict"] == "oom"


def test_lf_stages_without_a_reference_forward(tmp_path, capsys):
    for stage in ("rm", "sft", "pt"):
        out = _lf(tmp_path, capsys, stage=stage)
        assert "reference_pass" not in out["understood"], stage


def test_lf_kto_reference_pass(tmp_path, capsys):
    # LLaMA-Factory examples/train_lora/llama3_lora_kto.yaml: stage kto, LoRA (the adapter disabled for the reference)
    kto = _lf(tmp_path, capsys, stage="kto")
    assert kto["understood"]["reference_pass"] == [8, 12]
    assert any(a.startswith("KTO reference pass") for a in kto["notes"])
    sft = _lf(tmp_path, capsys, stage="sft")
    # one row per sample (no chosen + rejected concatenation): 20 B per logit against the plain loss's 12 B
    assert _step(kto) - _step(sft) == pytest.approx(8 * 2048 * LLAMA3_VOCAB, rel=0.02)


def test_reference_pass_must_be_two_byte_counts():
    with pytest.raises(UserError, match="reference_pass"):
        TrainConfig(reference_pass="yes").validate()       # type: ignore[arg-type]
    with pytest.raises(UserError, match="reference_pass"):
        TrainConfig(reference_pass=(8, -1)).validate()
    TrainConfig(reference_pass=(8, 8)).validate()


# ---------------------------------------------------------------------------------------------- Unsloth GRPO


def _grpo(tmp_path: Path, capsys, text: str) -> dict:
    return _check(tmp_path, capsys, {"grpo.py": text}, "--gpu", "h100-sxm")


def test_unsloth_grpo_batch_raised_to_num_generations(tmp_path, capsys):
    out = _grpo(tmp_path, capsys, UNSLOTH_GRPO.format(bs=1, ga=1, ng=4))
    assert out["understood"]["micro_batch"] == 4
    assert any("Unsloth's GRPOConfig sets per_device_train_batch_size = 4" in n for n in out["notes"])
    six = _grpo(tmp_path, capsys, UNSLOTH_GRPO.format(bs=3, ga=1, ng=6))
    assert six["understood"]["micro_batch"] == 6


def test_unsloth_grpo_batch_kept_where_it_divides(tmp_path, capsys):
    # a multiple already, or accumulation x batch a multiple (Unsloth's test since TRL has steps_per_generation)
    assert _grpo(tmp_path, capsys, UNSLOTH_GRPO.format(bs=8, ga=1, ng=4))["understood"]["micro_batch"] == 8
    kept = _grpo(tmp_path, capsys, UNSLOTH_GRPO.format(bs=1, ga=4, ng=4))
    assert kept["understood"]["micro_batch"] == 1
    assert not any("Unsloth's GRPOConfig sets" in n for n in kept["notes"])


def test_trl_grpo_without_unsloth_keeps_its_batch(tmp_path, capsys):
    out = _grpo(tmp_path, capsys, TRL_GRPO)
    assert out["understood"]["micro_batch"] == 1
    assert not any("Unsloth's GRPOConfig sets" in n for n in out["notes"])


# ---------------------------------------------------------------------------------------------- Megatron states


def test_megatron_precision_aware_optimizer_state_bytes(tmp_path, capsys):
    plain = _check(tmp_path, capsys, {"run.sh": MEGATRON.format(extra="")}, "--gpu", "mi300x")
    low = _check(tmp_path, capsys, {"run.sh": MEGATRON.format(
        extra=" \\\n  --use-precision-aware-optimizer --main-grads-dtype bf16 --exp-avg-dtype bf16 "
              "--exp-avg-sq-dtype bf16")}, "--gpu", "mi300x")
    assert any("Megatron main gradients 2 B, master weights 4 B, exp_avg 2 B, exp_avg_sq 2 B" in n
               for n in low["notes"])
    saved = int(plain["memory"]["save"]["peak_allocated_bytes"]) - int(low["memory"]["save"]["peak_allocated_bytes"])
    # every weight trains: 2 B of gradient and 2 + 2 B of moments less per parameter (~8.0B parameters)
    assert saved == pytest.approx(6 * 8.03e9, rel=0.03)


def test_megatron_moment_dtypes_need_the_precision_aware_optimizer():
    s = {"__exp_avg_dtype__": Setting("__exp_avg_dtype__", "bf16", "run.sh", 1, "exp_avg_dtype", "flag"),
         "__main_grads_dtype__": Setting("__main_grads_dtype__", "bf16", "run.sh", 1, "main_grads_dtype", "flag")}
    assert megatron.state_bytes(s) == (2, 4, 4, 4)       # main_grads_dtype bf16 turns fp32 accumulation off alone
    s["__pao__"] = Setting("__pao__", True, "run.sh", 1, "use_precision_aware_optimizer", "flag")
    assert megatron.state_bytes(s) == (2, 4, 2, 4)
    assert megatron.state_bytes({}) == (4, 4, 4, 4)
