"""What transformers' evaluation loop holds on the GPU besides the model, by head and by Trainer argument (issue 26).
Pure data: the names a program's source spells and where each rule comes from.

* A task head's logits: `<Arch>For<Task>.from_pretrained(..., num_labels=N)` loads a model whose score layer maps the
  hidden size to N outputs (transformers modeling_*.py `self.score = nn.Linear(hidden_size, num_labels)`;
  GenericForSequenceClassification / ForTokenClassification / ForQuestionAnswering), not to the vocabulary: the
  evaluation forward's logits are tokens x N (question answering: x 2, its start / end), not tokens x vocab.
  `num_labels` unset: PretrainedConfig's default, 2 labels.
* The predictions the loop keeps: Trainer.evaluate passes prediction_loss_only=True only when compute_metrics is None;
  with compute_metrics, evaluation_loop pads each batch's logits across processes, gathers them from every rank
  (accelerator.gather_for_metrics) and appends them to all_preds ON THE GPU (EvalLoopContainer, nested_concat) until
  the eval set ends, unless preprocess_logits_for_metrics reduces them first (an argmax), eval_accumulation_steps moves
  them to the CPU every that many steps, or batch_eval_metrics computes the metrics batch by batch. Seq2SeqTrainer's
  predict_with_generate keeps generated token ids instead (tiny)."""

from __future__ import annotations

import re

# <Arch>For<Task> classes whose score layer is not the vocabulary; the heads with a fixed output count (question
# answering: nn.Linear(hidden_size, 2), start + end; multiple choice: one score per choice), else num_labels
TASK_HEAD_CLASS = re.compile(r"^\w*For(SequenceClassification|TokenClassification|QuestionAnswering|MultipleChoice)$")
FIXED_HEAD_OUTPUTS = {"QuestionAnswering": 2, "MultipleChoice": 1}
# heads whose returned logits are pooled to one row (the last non-pad token / one score per choice), not per token
POOLED_HEADS = ("SequenceClassification", "MultipleChoice")
# PretrainedConfig.__init__: num_labels defaults to 2 (id2label of two entries); question answering has 2 outputs
DEFAULT_NUM_LABELS = 2
HEAD_SRC = ("huggingface/transformers:src/transformers/modeling_layers.py (GenericForSequenceClassification / "
            "GenericForTokenClassification / GenericForQuestionAnswering: nn.Linear(hidden_size, num_labels)) and "
            "configuration_utils.py (PretrainedConfig num_labels=2)")

# keyword arguments of a Trainer(...) call that decide what evaluation_loop keeps (their presence, not a value)
METRICS_KEYWORDS = ("compute_metrics", "preprocess_logits_for_metrics")
# TrainingArguments that stop the predictions piling up on the GPU (any value that is set and not off)
PREDS_RELEASED_BY = ("eval_accumulation_steps", "batch_eval_metrics", "prediction_loss_only", "predict_with_generate")
PREDS_SRC = ("huggingface/transformers:src/transformers/trainer.py (Trainer.evaluate: prediction_loss_only=True if "
             "self.compute_metrics is None; evaluation_loop: pad_across_processes, preprocess_logits_for_metrics, "
             "gather_for_metrics, all_preds.add, eval_accumulation_steps -> to_cpu_and_numpy)")
