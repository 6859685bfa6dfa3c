"""The logits TRL's DPOTrainer holds when they stay 16-bit (data; the logic is core/runners/preference_logits.py).

Under DeepSpeed accelerate runs no autocast and does not convert the model's outputs to fp32 (huggingface/accelerate
src/accelerate/accelerator.py Accelerator.__init__: `native_amp` is set for fp16 / bf16 only when `distributed_type not
in (DistributedType.DEEPSPEED, DistributedType.MEGATRON_LM)`; prepare_model wraps the forward in autocast and
`convert_outputs_to_fp32` only `if self.native_amp`). The DeepSpeed engine runs the 16-bit module, and transformers
>= 4.46 (TRL's floor from v0.12, setup.cfg `transformers>=4.46.0`) upcasts the logits only when it computes a loss
from labels, which DPO does not pass: the [rows, seq, vocab] logits stay in the 16-bit compute dtype. TRL then takes
the log-softmax of those 16-bit logits itself:

* v0.12-v0.14 (dpo_trainer.py get_batch_logps): `torch.gather(logits[:, :-1, :].log_softmax(-1), 2, labels)` - the
  forward holds the logits, their 16-bit log-softmax (saved for backward) and the masked copies of
  `mean_chosen_logits = logits[:num_examples][loss_mask[:num_examples]].mean()` (at most half the logits); the
  backward the saved log-softmax, gather's zero-filled gradient and log_softmax's gradient (the logits themselves are
  not saved: log_softmax's backward needs only its output).
* v0.15-v0.28 (trainer/utils.py selective_log_softmax, 16-bit branch: `for row_logits, row_labels in zip(logits,
  index): row_logps = F.log_softmax(row_logits, dim=-1)`): the forward holds the logits, the rows' log-softmax and the
  masked mean copy; the reference pass comes after concatenated_forward returned (the policy's logits freed, its rows'
  log-softmax saved): the same size. The backward holds the rows' gradients and their stacked copy.
* v0.29-v1.5 (dpo_trainer.py _compute_loss): `shift_logits = outputs.logits[..., :-1, :].contiguous()` and the
  reference forward inside the same function, `outputs` still alive: the policy's logits, their shifted copy and rows'
  log-softmax, then the reference's logits and their shifted copy - five copies at the reference pass.
* v1.6 on: the same without `.contiguous()`: the policy's logits and rows' log-softmax, then the reference's logits.

TRL before v0.12 allowed transformers 4.40-4.45, whose LlamaForCausalLM-style forwards upcast the logits
(`logits = logits.float()`, "TODO: remove the float() operation in v4.46") themselves: counted with the fp32 loss as
before. Where the files pin no TRL release, the 16-bit count holds only for a model type transformers added after
v4.45 (its forward never upcasts without labels, whatever TRL runs it; TRL before v0.12 takes the 16-bit log-softmax
of them in get_batch_logps, within the bound below): the most any row holds.
"""

from __future__ import annotations

# (first release, first release after, copies of the 16-bit logits at the forward's peak, at the loss backward's
# peak, the source)
TRL_DPO_16BIT: tuple[tuple[tuple[int, int], tuple[int, int] | None, float, float, str], ...] = (
    ((0, 12), (0, 15), 2.5, 3.0, "TRL v0.12-v0.14 get_batch_logps: log_softmax of the 16-bit logits"),
    ((0, 15), (0, 29), 2.5, 2.0, "TRL v0.15-v0.28 selective_log_softmax: row by row on the 16-bit logits"),
    ((0, 29), (1, 6), 5.0, 2.0, "TRL v0.29-v1.5 _compute_loss: contiguous shifted copies, the reference pass beside "
                                "the policy's logits"),
    ((1, 6), None, 3.0, 2.0, "TRL v1.6+ _compute_loss: the reference pass beside the policy's logits"),
)

# model types transformers added after v4.45, so no release that runs them upcasts the logits in the forward without
# labels (modeling_qwen3_moe.py Qwen3MoeForCausalLM.forward: "do not upcast them to float if we are not computing the
# loss"); the source that dates them
AFTER_4_45: dict[str, str] = {
    "qwen3": "Qwen/Qwen3-* model cards: with transformers<4.51.0, KeyError: 'qwen3'",
    "qwen3_moe": "Qwen/Qwen3-30B-A3B model card: with transformers<4.51.0, KeyError: 'qwen3_moe'",
}

# LLaMA-Factory's DPO (src/llamafactory/train/dpo/trainer.py; the same order since its DPO stage came in 2023-08:
# CustomDPOTrainer's fp32 concatenated_forward under TRL 0.7's get_batch_metrics, src/llmtuner/train/dpo/trainer.py
# @ 09a4474e, then its own get_batch_loss_metrics): get_batch_loss_metrics runs
# concatenated_forward(model, batch) - `all_logits = model(...).logits.to(torch.float32)`, get_batch_logps's
# `torch.gather(logits.log_softmax(-1), ...)` - and keeps its output (chosen_logits / rejected_logits, views of the
# fp32 logits, read for the metrics at the end) while compute_reference_log_probs runs the same forward without grad on
# the reference copy or the adapter-disabled policy: (bytes per logit the policy holds then: fp32 logits + the fp32
# log-softmax saved for backward; bytes per logit of the reference pass at its peak: its fp32 logits + their
# log-softmax, the 16-bit logits already freed; the source)
LF_DPO_REFERENCE_PASS: tuple[int, int, str] = (
    8, 8, "LLaMA-Factory train/dpo/trainer.py get_batch_loss_metrics: concatenated_forward(model) then "
          "compute_reference_log_probs (no grad), the policy's fp32 logits and log-softmax alive")

# LLaMA-Factory's KTO (src/llamafactory/train/kto/trainer.py): concatenated_forward(model) runs forward() on the target
# rows (`.logits.to(torch.float32)`, get_batch_logps' log-softmax saved for backward), then a no-grad forward() on the
# KL rows, and returns chosen_logits / rejected_logits (boolean-index copies of the fp32 logits: 4 B per logit with the
# 4 B log-softmax); compute_reference_log_probs then runs the same concatenated_forward without grad: the reference's
# target fp32 logits (4 B) stay alive through its KL forward (fp32 logits + log-softmax, 8 B)
LF_KTO_REFERENCE_PASS: tuple[int, int, str] = (
    8, 12, "LLaMA-Factory train/kto/trainer.py get_batch_loss_metrics: concatenated_forward(model) (target rows, then "
           "the no-grad KL rows) then compute_reference_log_probs, the policy's fp32 logits copies and log-softmax "
           "alive")

# TRL's DPO length when the DPOConfig / DPOTrainer call sets no max_length, by the TRL release the files pin
# (huggingface/trl trl/trainer/dpo_config.py and dpo_trainer.py at each tag):
# * v0.9-v0.11: DPOConfig.max_length = None and DPOTrainer.__init__ falls back: "`max_length` is not set in the
#   DPOConfig's init it will default to `512` by default" (args.max_length = 512; max_prompt_length 128);
# * v0.12-v0.13: DPOConfig.max_length = None with no fallback (the trainer keeps self.max_length = args.max_length;
#   concatenated_forward truncates only `if self.args.max_length is not None`): no sample is truncated, each batch
#   is as long as its longest chosen / rejected pair;
# * v0.14 on: DPOConfig max_length = 1024 (max_prompt_length 512).
# (first release, first release after, the length (None: not truncated), the source)
TRL_DPO_MAX_LENGTH: tuple[tuple[tuple[int, int], tuple[int, int] | None, int | None, str], ...] = (
    ((0, 9), (0, 12), 512, "TRL v0.9-v0.11 DPOTrainer.__init__: max_length not set -> 512"),
    ((0, 12), (0, 14), None, "TRL v0.12-v0.13 DPOConfig.max_length = None, no fallback: nothing truncates"),
    ((0, 14), None, 1024, "TRL v0.14+ DPOConfig.max_length = 1024"),
)
