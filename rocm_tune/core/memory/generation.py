"""GPU memory of generating during evaluation (`predict_with_generate`), on top of the model states (pure).

Seq2SeqTrainer.prediction_step (huggingface/transformers src/transformers/trainer_seq2seq.py) calls
``model.generate(**inputs, **gen_kwargs)`` for every evaluation batch when ``predict_with_generate`` is on. What generate
holds at its peak, read in transformers' generation/utils.py:

* the KV cache of every sequence (eval batch x num_beams) over the prompt plus the new tokens: 2 (key, value) x
  layers x KV heads x head dim elements per token, in the model's compute dtype (DynamicCache grows to that length);
* the prefill: one forward over the whole prompt without autograd, whose largest transient is one layer's MLP
  intermediates (gate, up, their product) over every prompt token;
* the next-token logits of the last position only (``logits_to_keep=1`` since transformers 4.45), copied to fp32
  (``outputs.logits[:, -1, :].to(copy=True, dtype=torch.float32)``), and their softmax for sampling.

The number of new tokens: the files' max_new_tokens / generation_max_length, else LLaMA-Factory's
GeneratingArguments.max_new_tokens default (1024, hiyouga/LlamaFactory src/llamafactory/hparams/generating_args.py);
other runners without one are not counted (transformers' own default is a 20-token max_length)."""

from __future__ import annotations

from dataclasses import dataclass

LF_MAX_NEW_TOKENS = 1024


@dataclass(frozen=True)
class Generation:
    new_tokens: int
    sequences: int
    kv_cache: float
    prefill: float
    logits: float

    @property
    def total(self) -> float:
        return self.kv_cache + max(self.prefill, self.logits)

    def note(self) -> str:
        return (f"evaluation generates (predict_with_generate): {self.sequences} sequence(s) of the prompt + "
                f"{self.new_tokens} new tokens, KV cache {self.kv_cache / 2**30:.2f} GiB and the prefill's "
                f"{max(self.prefill, self.logits) / 2**30:.2f} GiB over the model states")


def generation(model, cutoff_len: int, eval_batch: int, compute_bytes: int, *, runner: str,
               max_new_tokens: int | None, num_beams: int | None) -> Generation | None:
    """What one evaluation batch's generate holds beyond the weights; None when the new-token count is unknown."""
    new = max_new_tokens
    if new is None:
        if runner != "llamafactory":
            return None
        new = LF_MAX_NEW_TOKENS
    seqs = max(1, eval_batch) * max(1, num_beams or 1)
    per_token = 2 * int(model.num_layers) * max(1, int(model.num_kv_heads)) * max(1, int(model.head_dim))
    kv = per_token * seqs * (cutoff_len + new) * compute_bytes
    inter = int(model.intermediate_size) * (3 if getattr(model, "gated_mlp", True) else 1)
    prefill = seqs * cutoff_len * inter * compute_bytes
    logits = seqs * int(model.vocab_size) * (compute_bytes + 4 + 4)
    return Generation(new_tokens=int(new), sequences=seqs, kv_cache=float(kv), prefill=float(prefill),
                      logits=float(logits))
