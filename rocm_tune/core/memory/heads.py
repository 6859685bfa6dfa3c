"""What a head that is not the vocabulary's cross-entropy holds at the end of the forward and in its backward
(profiles/model_heads.py says which programs build which head). Pure."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class HeadTerms:
    """Per token: `width` elements of the head's output, `fwd` / `loss_bwd` / `grad` bytes per element at the
    forward's end, in the loss's backward and in the head's own backward (the LM head's are compute + 8, 12 and
    compute bytes per logit), and `kept` bytes per token the head saves beside them through the step."""

    width: int
    fwd: float
    loss_bwd: float
    grad: float
    kept: float
    note: str


def step_terms(model, head: str, labels: int, compute: int) -> HeadTerms | None:
    """The head's terms in one training step, None for the language-model head (the estimator's own)."""
    hidden, vocab = int(model.hidden_size), int(model.vocab_size)
    if head == "score":
        n = max(1, labels)
        return HeadTerms(n, compute + 8.0, 12.0, float(compute), 0.0,
                         f"head: a score Linear(hidden, {n}) over every position ([tokens, {n}] logits, pooled at "
                         f"the last token), no [tokens, vocab] logits and no lm_head")
    if head == "value":
        # ValueHead: dropout's output (compute) and mask (1 B), the fp32 copy the summary Linear saves
        return HeadTerms(vocab, compute + 4.0, 0.0, 0.0, hidden * (compute + 1.0 + 4.0),
                         "head: a value head beside the causal LM - its [tokens, vocab] logits are made and upcast to "
                         "fp32 (no loss takes them, no gradient), the value head's fp32 input kept")
    if head == "token":
        # FlagEmbedding's encode takes `outputs.logits[i, predict_indices[i], :]` row by row: each row's select
        # backward hands a full-size zero-filled gradient to the logits' gradient buffer, which adds it in place -
        # the buffer and one more at the loss's backward, the buffer alone in lm_head's
        return HeadTerms(vocab, float(compute), 2.0 * compute, float(compute), 0.0,
                         "head: one token's logit scores each row - the [tokens, vocab] logits are made in the compute "
                         "dtype, no log-softmax over the vocabulary; their gradient is summed from each row's "
                         "full-size select gradient (two copies at its peak)")
    if head == "pooled":
        return HeadTerms(0, 0.0, 0.0, 0.0, 0.0,
                         "head: none - the pooled hidden state is the embedding (similarities [queries, passages] "
                         "only), no logits per position")
    return None


def eval_bytes_per_token(model, head: str, labels: int, compute: int) -> float | None:
    """Bytes per token of the head's output in a no-grad evaluation forward; None for the LM head."""
    terms = step_terms(model, head, labels, compute)
    if terms is None:
        return None
    return terms.width * terms.fwd + terms.kept


def without_lm_head(model, head: str, labels: int):
    """The model as a head that has no lm_head loads it (score: Linear(hidden, labels); pooled: nothing): an untied
    lm_head's parameters are not there. The value and token heads keep the causal LM whole."""
    if head not in ("score", "pooled"):
        return model
    params = model.params
    score = int(model.hidden_size) * max(1, labels) if head == "score" else 0
    dropped = int(params.lm_head) - score if params.lm_head else -score
    new = replace(params, lm_head=score, total=int(params.total) - dropped)
    return replace(model, params=new)
