"""NVIDIA's BERT pre-training program (NVIDIA/DeepLearningExamples PyTorch/LanguageModeling/BERT/run_pretraining.py,
and the MLPerf Training BERT implementations built on it, mlcommons/training_results_v5.0 */benchmarks/bert):
`--bert_model` names the model (bert-base-uncased, bert-large-uncased, ...; MLPerf's scripts write BERT-L-uncased),
`--bert_config_path` its config.json, `--train_batch_size` the batch of one process before it is divided by
`--gradient_accumulation_steps` (args.train_batch_size //= gradient_accumulation_steps), `--max_seq_length` the
sequence.
"""

from __future__ import annotations

BERT_SOURCE = "NVIDIA/DeepLearningExamples PyTorch/LanguageModeling/BERT/run_pretraining.py"
# how --bert_model spells the size -> the size word of the google-bert presets
BERT_SIZE_WORDS: dict[str, str] = {"l": "large", "large": "large", "b": "base", "base": "base"}
