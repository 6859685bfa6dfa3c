"""Models trained with a head that is not the vocabulary (issue 26, helper c-heads): classifiers
(transformers *ForSequenceClassification), reward models (TRL RewardTrainer / `trl reward`, LLaMA-Factory stage rm,
OpenRLHF train_rm), decoder rerankers (FlagEmbedding) and embedders. Programs and configs written from those projects'
docs and examples; the head's terms asserted against the vocabulary's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rocm_tune.core.check.check import check
from rocm_tune.core.errors import UserError
from rocm_tune.core.memory import heads
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model

GiB = 2**30

# transformers docs (tasks/sequence_classification.md) with a decoder checkpoint and a 4-bit QLoRA (peft SEQ_CLS)
SEQCLS = """import torch
from transformers import AutoModelForSequenceClassification, BitsAndBytesConfig, Trainer, TrainingArguments
from peft import LoraConfig, get_peft_model, TaskType

model = AutoModelForSequenceClassification.from_pretrained(
    "{model}", num_labels={labels}, torch_dtype=torch.bfloat16,
    quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16))
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, task_type=TaskType.SEQ_CLS,
                                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj"]))
args = TrainingArguments(output_dir="out", per_device_train_batch_size={bs}, per_device_eval_batch_size={ebs},
                         gradient_checkpointing=True, bf16=True, eval_strategy="epoch", num_train_epochs=1)
tokenized = dataset.map(lambda b: tokenizer(b["text"], truncation=True, max_length={length}), batched=True)
trainer = Trainer(model=model, args=args, train_dataset=tokenized["train"], eval_dataset=tokenized["test"])
trainer.train()
"""
# the same program on the causal LM (the vocabulary's head) - the control
CAUSAL = SEQCLS.replace("AutoModelForSequenceClassification", "AutoModelForCausalLM").replace(
    ", num_labels={labels}", "").replace("TaskType.SEQ_CLS", "TaskType.CAUSAL_LM")

# TRL docs (reward_trainer.md): `trl reward` on UltraFeedback pairs
TRL_REWARD = """trl reward \\
    --model_name_or_path Qwen/Qwen2.5-7B-Instruct \\
    --dataset_name trl-lib/ultrafeedback_binarized \\
    --output_dir Qwen2.5-7B-Reward \\
    --per_device_train_batch_size {bs} \\
    --max_length 2048 \\
    --gradient_checkpointing \\
    --bf16 \\
    --use_peft --lora_r 32 --lora_alpha 16
"""
TRL_SFT = TRL_REWARD.replace("trl reward", "trl sft").replace("ultrafeedback_binarized", "Capybara")

# LLaMA-Factory examples/train_lora/llama3_lora_reward.yaml
LF_RM = """model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct
stage: {stage}
do_train: true
finetuning_type: lora
lora_target: all
dataset: dpo_en_demo
template: llama3
cutoff_len: 2048
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
bf16: true
output_dir: saves/llama3-8b/lora/reward
"""

# OpenRLHF README (examples/scripts/train_rm_llama.sh)
OPENRLHF_RM = """deepspeed --module openrlhf.cli.train_rm \\
   --save_path ./checkpoint/llama3-8b-rm \\
   --train_batch_size 256 \\
   --micro_train_batch_size 1 \\
   --pretrain OpenRLHF/Llama-3-8b-sft-mixture \\
   --bf16 \\
   --max_epochs 1 \\
   --max_len 8192 \\
   --zero_stage 3 \\
   --learning_rate 9e-6 \\
   --dataset OpenRLHF/preference_dataset_mixture2_and_safe_pku \\
   --flash_attn \\
   --gradient_checkpointing
"""

# FlagEmbedding examples/finetune/reranker (decoder_only/base) and examples/finetune/embedder (decoder_only/base), on
# the base checkpoints (bge-reranker-v2-gemma is gemma-2b's fine-tune; a Mistral-7B embedder as e5-mistral)
FLAG_RERANKER = """torchrun --nproc_per_node 2 \\
    -m FlagEmbedding.finetune.reranker.decoder_only.base \\
    --model_name_or_path google/gemma-2b \\
    --use_lora True --lora_rank 32 --lora_alpha 64 \\
    --train_data ./example_data/normal/examples.jsonl \\
    --train_group_size {group} \\
    --query_max_len 256 \\
    --passage_max_len 256 \\
    --output_dir ./test_decoder_only_base_bge-reranker-v2-gemma \\
    --bf16 \\
    --per_device_train_batch_size {bs} \\
    --gradient_checkpointing \\
    --deepspeed ds_stage0.json
"""
FLAG_EMBEDDER = """torchrun --nproc_per_node 2 \\
    -m FlagEmbedding.finetune.embedder.decoder_only.base \\
    --model_name_or_path mistralai/Mistral-7B-v0.1 \\
    --train_data ./example_data/retrieval \\
    --train_group_size 8 \\
    --query_max_len 512 \\
    --passage_max_len 512 \\
    --output_dir ./test_decoder_only_base_mistral \\
    --bf16 \\
    --per_device_train_batch_size 2 \\
    --gradient_checkpointing
"""


def _run(tmp_path, name: str, text: str, gpu: str = "rtx4090", gpus: int | None = None, model: str | None = None):
    p = tmp_path / name
    p.write_text(text)
    return check([str(p)], gpu_id=gpu, gpus=gpus, model_ref=model).to_dict()


def _phase(rep, name: str) -> float:
    return rep["memory"][name]["peak_allocated_bytes"] / GiB


def _said(rep, *words: str) -> bool:
    lines = rep.get("assumptions", []) + rep.get("notes", [])
    return any(all(w in line for w in words) for line in lines)


# ---------------------------------------------------------------------------------------------- the estimator's terms


def test_score_head_counts_labels_not_the_vocabulary_and_drops_an_untied_lm_head():
    m = load_model("llama-3-8b")          # untied: lm_head 128256 x 4096
    cfg = TrainConfig(method="lora", precision="bf16", cutoff_len=2048, micro_batch=4, quant_bits=4)
    lm, cls = estimate(m, cfg), estimate(m, replace(cfg, head="score", head_labels=3))
    assert lm.params_total - cls.params_total == m.params.lm_head - 3 * m.hidden_size
    # bf16 compute: 2 + 8 bytes per logit at the forward's end, 12 in the loss's backward: > 10 GiB of logits
    assert lm.per_gpu.peak_allocated_bytes - cls.per_gpu.peak_allocated_bytes > 10 * GiB
    assert any("score Linear(hidden, 3)" in n for n in cls.notes)
    assert "head" not in lm.config.to_dict() and cls.config.to_dict()["head_labels"] == 3


def test_value_head_keeps_the_lm_and_its_upcast_logits_but_no_loss_over_them():
    m = load_model("llama-3-8b")
    cfg = TrainConfig(method="lora", precision="bf16", cutoff_len=2048, micro_batch=1, stage="dpo",
                      reference_model=False)
    value = heads.step_terms(m, "value", 1, 2)
    assert value is not None and value.width == m.vocab_size and value.fwd == 6 and value.grad == 0
    lm, v = estimate(m, cfg), estimate(m, replace(cfg, head="value", head_labels=1))
    assert lm.params_total == v.params_total            # the causal LM loads whole
    tokens = 2 * 2048
    logits = tokens * m.vocab_size
    # the LM's peak holds 12 B per logit in the loss's backward; the value head's 6 at the forward's end
    assert lm.per_gpu.peak_allocated_bytes - v.per_gpu.peak_allocated_bytes == pytest.approx(
        (12 - 6) * logits - tokens * m.hidden_size * 7, rel=0.05)


def test_token_and_pooled_heads():
    m = load_model("gemma-2b")
    token = heads.step_terms(m, "token", 0, 2)
    assert token is not None and (token.width, token.fwd, token.loss_bwd, token.grad) == (m.vocab_size, 2, 4, 2)
    pooled = heads.step_terms(m, "pooled", 0, 2)
    assert pooled is not None and pooled.width == 0 and heads.eval_bytes_per_token(m, "pooled", 0, 2) == 0
    assert heads.step_terms(m, "lm", 0, 2) is None and heads.without_lm_head(m, "token", 0) is m


def test_bad_head_is_a_one_line_error():
    with pytest.raises(UserError, match="head 'classifier' is not known"):
        TrainConfig(head="classifier").validate()
    with pytest.raises(UserError, match="head_labels"):
        TrainConfig(head="score", head_labels=-1).validate()


# ---------------------------------------------------------------------------------------------- programs and configs


def test_sequence_classification_program_has_no_vocabulary_logits_in_train_or_eval(tmp_path):
    args = dict(model="Qwen/Qwen2.5-7B", labels=5, bs=4, ebs=16, length=2048)
    cls = _run(tmp_path, "train.py", SEQCLS.format(**args))
    lm = _run(tmp_path, "train.py", CAUSAL.format(**args))
    assert cls["understood"]["head"] == "score" and cls["understood"]["head_labels"] == 5
    assert "head" not in lm["understood"]
    # TRL's PPO example: the policy a causal LM, the reward and value models classifiers beside it
    ppo = CAUSAL.format(model="meta-llama/Llama-3.1-8B", labels=2, bs=1, ebs=1, length=512).replace(
        "args = TrainingArguments", 'reward = AutoModelForSequenceClassification.from_pretrained("x/rm", num_labels=1)\n'
        'args = TrainingArguments')
    assert "head" not in _run(tmp_path, "train.py", ppo)["understood"]
    assert _said(cls, "AutoModelForSequenceClassification.from_pretrained", "Linear(hidden, 5)")
    # 4 x 2048 x 152064 logits at 10-12 B each in the step, 16 x 2048 x 152064 at 10 B in the evaluation
    assert _phase(lm, "step") - _phase(cls, "step") > 10
    assert _phase(lm, "eval") - _phase(cls, "eval") > 40
    assert cls["verdict"] == "fits" and lm["verdict"] == "oom"


def test_num_labels_default_and_peft_seq_cls_task_alone(tmp_path):
    text = SEQCLS.format(model="meta-llama/Llama-3.1-8B", labels=2, bs=1, ebs=1, length=512)
    rep = _run(tmp_path, "train.py", text.replace(", num_labels=2", ""))
    assert rep["understood"]["head"] == "score" and rep["understood"]["head_labels"] == 2
    # a model loaded through a helper, only the adapter's task type says it is a classifier
    helper = text.replace('AutoModelForSequenceClassification.from_pretrained(\n    "meta-llama/Llama-3.1-8B", '
                          'num_labels=2,', 'load_classifier("meta-llama/Llama-3.1-8B",')
    rep2 = _run(tmp_path, "train.py", helper, model="meta-llama/Llama-3.1-8B")
    assert rep2["understood"]["head"] == "score" and rep2["understood"]["head_labels"] == 2
    assert _said(rep2, "LoraConfig(task_type=SEQ_CLS)")


def test_trl_reward_runs_chosen_and_rejected_through_a_one_label_score_head(tmp_path):
    rm = _run(tmp_path, "train.sh", TRL_REWARD.format(bs=8), gpu="mi300x")
    sft = _run(tmp_path, "train.sh", TRL_SFT.format(bs=8), gpu="mi300x")
    assert rm["understood"]["head"] == "score" and rm["understood"]["head_labels"] == 1
    assert rm["understood"]["stage"] == "dpo" and rm["understood"].get("reference_model") is False
    assert _said(rm, "TRL RewardTrainer", "num_labels=1")
    # twice the rows, but no 8 x 2048 x 152064 logits: below the SFT step on the same batch
    assert _phase(rm, "step") < _phase(sft, "step")


def test_llamafactory_rm_counts_the_value_heads_upcast_logits_not_a_dpo_loss(tmp_path):
    rm = _run(tmp_path, "rm.yaml", LF_RM.format(stage="rm"), gpu="mi300x")
    dpo = _run(tmp_path, "rm.yaml", LF_RM.format(stage="dpo").replace("finetuning_type: lora",
                                                                        "finetuning_type: lora\npref_loss: simpo"),
               gpu="mi300x")
    assert rm["understood"]["head"] == "value" and rm["understood"]["stage"] == "dpo"
    assert _said(rm, "AutoModelForCausalLMWithValueHead")
    # the same two rows of 2048 tokens; the rm step holds 6 B per logit where the reference-free DPO holds 12
    logits = 2 * 2048 * 128256
    assert _phase(dpo, "step") - _phase(rm, "step") == pytest.approx(6 * logits / GiB, rel=0.1)


def test_openrlhf_train_rm_is_a_score_head(tmp_path):
    rep = _run(tmp_path, "train_rm.sh", OPENRLHF_RM, gpu="mi300x", gpus=8)
    assert rep["understood"]["head"] == "score" and rep["understood"]["stage"] == "dpo"


@pytest.mark.parametrize("group,bs,rows", [(8, 2, 16), (16, 1, 16), (4, 1, 4)])
def test_flagembedding_decoder_reranker_rows_are_the_groups_pairs(tmp_path, group, bs, rows):
    (tmp_path / "ds_stage0.json").write_text('{"zero_optimization": {"stage": 0}, "bf16": {"enabled": "auto"}}')
    rep = _run(tmp_path, "finetune.sh", FLAG_RERANKER.format(group=group, bs=bs), gpu="a10g")
    u = rep["understood"]
    assert u["head"] == "token" and u["micro_batch"] == rows and u["cutoff_len"] == 512
    assert _said(rep, f"--train_group_size {group}", "--query_max_len 256", f"{bs} x {group} = {rows} rows")
    assert not _said(rep, "cutoff_len: not set")


def test_flagembedding_reranker_group_drives_the_verdict(tmp_path):
    (tmp_path / "ds_stage0.json").write_text('{"zero_optimization": {"stage": 0}, "bf16": {"enabled": "auto"}}')
    small = _run(tmp_path, "finetune.sh", FLAG_RERANKER.format(group=2, bs=1), gpu="a10g")
    big = _run(tmp_path, "finetune.sh", FLAG_RERANKER.format(group=32, bs=1), gpu="a10g")
    # 32 pairs x 512 tokens x 256000 vocabulary in bf16, and two such gradients in the backward
    assert small["verdict"] == "fits" and big["verdict"] == "oom"


def test_flagembedding_embedder_is_pooled_with_query_and_passage_rows(tmp_path):
    rep = _run(tmp_path, "finetune.sh", FLAG_EMBEDDER, gpu="a10g")
    u = rep["understood"]
    assert u["head"] == "pooled" and u["micro_batch"] == 2 * (1 + 8) and u["cutoff_len"] == 512


# ms-swift docs (Instruction/Command-line-parameters, examples/train/seq_cls and examples/train/rlhf/rm.sh)
SWIFT = """CUDA_VISIBLE_DEVICES=0 swift {cmd} \\
    --model Qwen/Qwen2.5-7B \\
    --train_type lora \\
    --dataset {data} \\
    --torch_dtype bfloat16 \\
    --per_device_train_batch_size 8 \\
    --max_length 2048 \\
    {extra} \\
    --output_dir output
"""


@pytest.mark.parametrize("extra,head,labels", [
    ("--task_type seq_cls --num_labels 2", "score", 2),
    ("--task_type seq_cls --num_labels 7", "score", 7),
    ("--task_type reranker", "score", 1),
    ("--task_type embedding", "pooled", 0)])
def test_swift_task_type_sets_the_head(tmp_path, extra, head, labels):
    rep = _run(tmp_path, "train.sh", SWIFT.format(cmd="sft", data="'DAMO_NLP/jd:cls#2000'", extra=extra))
    plain = _run(tmp_path, "train.sh", SWIFT.format(cmd="sft", data="'DAMO_NLP/jd:cls#2000'", extra="--seed 1"))
    assert rep["understood"]["head"] == head and rep["understood"]["head_labels"] == labels
    assert "head" not in plain["understood"]
    # 8 x 2048 x 152064 logits (10-12 B each) are gone from the step
    assert _phase(plain, "step") - _phase(rep, "step") > 15


def test_swift_rlhf_rm_is_a_one_label_score_head_over_chosen_and_rejected(tmp_path):
    rep = _run(tmp_path, "rm.sh", SWIFT.format(cmd="rlhf", data="hjh0119/shareAI-Llama3-DPO-zh-en-emoji",
                                               extra="--rlhf_type rm"), gpu="mi300x")
    u = rep["understood"]
    assert (u["head"], u["head_labels"], u["stage"]) == ("score", 1, "dpo")
    assert _said(rep, "reward model", "Linear(hidden, 1)")


def test_peft_task_type_as_a_string(tmp_path):
    text = SEQCLS.format(model="meta-llama/Llama-3.1-8B", labels=2, bs=1, ebs=1, length=512)
    helper = text.replace('AutoModelForSequenceClassification.from_pretrained(\n    "meta-llama/Llama-3.1-8B", '
                          'num_labels=2,', 'load_classifier("meta-llama/Llama-3.1-8B",')
    rep = _run(tmp_path, "train.py", helper.replace("TaskType.SEQ_CLS", '"SEQ_CLS"'), model="meta-llama/Llama-3.1-8B")
    assert rep["understood"]["head"] == "score"
    causal = _run(tmp_path, "train.py", helper.replace("TaskType.SEQ_CLS", '"CAUSAL_LM"'),
                  model="meta-llama/Llama-3.1-8B")
    assert "head" not in causal["understood"]
    # a causal LM loaded by the program keeps its vocabulary head whatever the adapter's task type says
    lm = _run(tmp_path, "train.py", CAUSAL.format(model="meta-llama/Llama-3.1-8B", labels=2, bs=1, ebs=1, length=512)
              .replace("TaskType.CAUSAL_LM", "TaskType.SEQ_CLS"))
    assert "head" not in lm["understood"]


def test_openrlhf_ppo_critic_and_reward_have_a_value_head_not_the_lm_head(tmp_path):
    # OpenRLHF train_ppo (no Ray): critic (2 + 2 + 12 B per parameter under ZeRO-3 over 8) and reward model (2 B)
    # are the base model without its lm_head plus Linear(hidden, 1) (openrlhf/models/model.py _get_critic_model)
    flags = ("--pretrain meta-llama/Llama-3.1-8B --reward_pretrain meta-llama/Llama-3.1-8B --micro_train_batch_size 1 "
             "--micro_rollout_batch_size 2 --prompt_max_len 512 --generate_max_len 512 --zero_stage 3 --bf16 "
             "--gradient_checkpointing --flash_attn")
    local = _run(tmp_path, "ppo.sh", f"deepspeed --module openrlhf.cli.train_ppo {flags}\n", gpu="h100", gpus=8)
    ray = _run(tmp_path, "ppo_ray.sh", f"python3 -m openrlhf.cli.train_ppo_ray --actor_num_gpus_per_node 8 {flags}\n",
               gpu="h100", gpus=8)
    m = load_model("llama-3.1-8b")
    n = m.params.total - m.params.lm_head + m.hidden_size
    added = local["memory"]["step"]["peak_allocated_bytes"] - ray["memory"]["step"]["peak_allocated_bytes"]
    assert added == pytest.approx(n * 18 / 8, rel=0.02)
    assert _said(local, "without its lm_head")


def test_reward_evaluation_runs_chosen_and_rejected(tmp_path):
    # LLaMA-Factory's rm evaluation (PairwiseTrainer.prediction_step via compute_loss): both rows through the value
    # head's causal LM, 6 B per logit
    text = LF_RM.format(stage="rm") + "val_size: 0.1\nper_device_eval_batch_size: 4\neval_strategy: steps\n"
    rep = _run(tmp_path, "rm.yaml", text, gpu="mi300x")
    ev = rep["memory"]["eval"]["peak_allocated_bytes"] - rep["memory"]["load"]["peak_allocated_bytes"]
    assert ev / GiB == pytest.approx(2 * 4 * 2048 * (128256 * 6 + 4096 * (2 + 1 + 4) + 4096 * 8) / GiB, rel=0.1)


def test_soft_capping_counts_only_where_the_causal_lm_forward_runs():
    m = load_model("gemma-2-9b")
    assert m.final_logit_softcapping
    plain = replace(m, final_logit_softcapping=None)
    cfg = TrainConfig(method="lora", precision="bf16", cutoff_len=1024, micro_batch=2)
    tanh = 2 * 2 * 1024 * m.vocab_size           # the tanh output saved, in bf16, per logit
    for head, expect in (("token", tanh), ("value", tanh), ("score", 0)):
        c = replace(cfg, head=head, head_labels=1)
        d = estimate(m, c).per_gpu.peak_allocated_bytes - estimate(plain, c).per_gpu.peak_allocated_bytes
        assert d == pytest.approx(expect, abs=2**20), head
