"""Models trained with a head that is not the vocabulary: which programs, trainers and stages build one, and what
the head makes per position (data; the terms are counted in core/memory/heads.py).

Head kinds (vocabulary.HEADS):
  lm     the language-model head: [tokens, vocab] logits and a cross-entropy over them (the default)
  score  transformers' <Arch>ForSequenceClassification (modeling_<arch>.py / GenericForSequenceClassification:
         `logits = self.score(hidden_states)` over every position -> [batch, seq, num_labels], then pooled at the last
         non-pad token; no lm_head at all), num_labels from the call (PretrainedConfig's default 2). TRL's
         RewardTrainer and ms-swift's rm load it with num_labels=1; OpenRLHF's reward / critic models put their own
         value_head = nn.Linear(hidden, 1) on the base model's last hidden state (openrlhf/models/model.py
         _get_reward_model / _get_critic_model): the same shape
  value  TRL's AutoModelForCausalLMWithValueHead (trl/models/modeling_value_head.py), LLaMA-Factory's rm / ppo stages:
         the causal LM runs whole - its [tokens, vocab] logits are made and upcast (`lm_logits = lm_logits.float()`)
         but no loss takes them; ValueHead (dropout summary_dropout_prob 0.1, the hidden state cast to the fp32
         summary Linear) gives one value per position
  token  a decoder reranker that scores a pair by one token's logit (FlagEmbedding llm_reranker / reranker
         decoder_only: `outputs.logits[i, predict_indices[i], :]`, then `[:, yes_loc]`): the [tokens, vocab] logits are
         made in the compute dtype and the gradient reaches all of them, no log-softmax over the vocabulary
  pooled an embedding model (transformers AutoModel: no head; FlagEmbedding embedder, Tevatron, sentence-transformers):
         the pooled hidden state, similarities [queries, passages] (in-batch negatives): no per-position head
"""

from __future__ import annotations

from typing import Final

HEADS: Final = ("lm", "score", "value", "token", "pooled")

# transformers' default num_labels (configuration_utils.py PretrainedConfig: `num_labels` 2 unless id2label says)
DEFAULT_LABELS: Final = 2

# model classes a program loads -> the head (class-name suffixes; Auto* and <Arch>* alike)
CLASS_HEADS: Final = (
    ("ForSequenceClassification", "score"),
    ("ForTokenClassification", "score"),
    ("WithValueHead", "value"),
)

# classes that load a language model with its vocabulary head: where a program loads one, it is the model that trains
LM_CLASSES: Final = ("ForCausalLM", "ForConditionalGeneration", "ForVision2Seq", "ForImageTextToText", "LMHeadModel")

# peft TaskType / task_type strings that say the model is a classifier (peft/utils/peft_types.py TaskType.SEQ_CLS)
SEQ_CLS_TASKS: Final = ("SEQ_CLS", "TaskType.SEQ_CLS")

# trainer stages -> (the head, its width, the source). Each runs chosen and rejected as two rows of one step.
STAGE_HEADS: Final = {
    # trl/trainer/reward_trainer.py: AutoModelForSequenceClassification(num_labels=1); compute_loss runs the chosen
    # and the rejected rows (two forwards before v0.20, one concatenated batch after) and keeps both graphs
    "reward": ("score", 1, "TRL RewardTrainer: AutoModelForSequenceClassification num_labels=1, chosen and rejected"),
    # openrlhf/cli/train_rm.py get_llm_for_sequence_regression("reward"): value_head Linear(hidden, 1);
    # trainer/rm_trainer.py concatenated_forward (chosen and rejected in one batch); ms-swift rlhf_type rm:
    # AutoModelForSequenceClassification num_labels=1 (swift/llm/model/register.py, task_type seq_cls)
    "rm": ("score", 1, "reward model: a Linear(hidden, 1) score head over the last hidden state, chosen and rejected "
                       "in one batch (OpenRLHF train_rm / ms-swift rlhf_type rm)"),
}

# LLaMA-Factory stage rm: train/rm/workflow.py load_model(..., add_valuehead=True) -> AutoModelForCausalLMWithValueHead;
# train/rm/trainer.py PairwiseTrainer.compute_loss: `_, _, values = model(**inputs, output_hidden_states=True)`
LF_RM_SOURCE: Final = ("LLaMA-Factory stage rm: trl's AutoModelForCausalLMWithValueHead (load_model add_valuehead=True): "
                       "the causal LM's [tokens, vocab] logits are made and upcast to fp32 but no loss takes them; "
                       "the value head gives one value per position (train/rm/trainer.py PairwiseTrainer)")

# ms-swift --task_type (swift/llm/argument/base_args/model_args.py task_type Literal['causal_lm', 'seq_cls',
# 'embedding', 'reranker', 'generative_reranker']): seq_cls loads AutoModelForSequenceClassification with --num_labels,
# reranker the same with one label, embedding the model without its head (the last token's hidden state pooled);
# -> (head, labels; None: --num_labels says). generative_reranker (the yes/no tokens' logits) is left to the LM head.
SWIFT_TASK_HEADS: Final = {"seq_cls": ("score", None), "reranker": ("score", 1), "embedding": ("pooled", 0)}

# `python -m <module>` entries of retrieval trainers -> (head, the flag that multiplies the rows, source)
#   FlagEmbedding llm_reranker/finetune_for_instruction (v1.2) and finetune/reranker/decoder_only (v1.3): one row per
#   query+passage pair, train_group_size pairs per query (1 positive + group-1 negatives), each pair truncated at
#   query_max_len + passage_max_len (data.py: `max_length=self.args.query_max_len + self.args.passage_max_len`)
#   FlagEmbedding finetune/reranker/encoder_only: AutoModelForSequenceClassification num_labels=1, the same groups
#   FlagEmbedding baai_general_embedding / finetune/embedder and Tevatron: the query's row plus train_group_size
#   passage rows per query (modeling.py encode(query), encode(passage))
MODULE_HEADS: Final = (
    ("FlagEmbedding.llm_reranker", "token", "pairs"),
    ("FlagEmbedding.finetune.reranker.decoder_only", "token", "pairs"),
    ("FlagEmbedding.finetune.reranker.encoder_only", "score", "pairs"),
    ("FlagEmbedding.reranker", "score", "pairs"),
    ("FlagEmbedding.baai_general_embedding", "pooled", "query+passages"),
    ("FlagEmbedding.finetune.embedder", "pooled", "query+passages"),
    ("tevatron", "pooled", "query+passages"),
)
GROUP_KEY: Final = "train_group_size"
# the length keys of those trainers (FlagEmbedding: query_max_len / passage_max_len; Tevatron: q_max_len / p_max_len)
QUERY_LEN_KEYS: Final = ("query_max_len", "q_max_len")
PASSAGE_LEN_KEYS: Final = ("passage_max_len", "p_max_len")
# FlagEmbedding's argument defaults (arguments.py: query_max_len 32, passage_max_len 128, train_group_size 8)
RETRIEVAL_DEFAULTS: Final = {"query_max_len": 32, "passage_max_len": 128, "train_group_size": 8}
