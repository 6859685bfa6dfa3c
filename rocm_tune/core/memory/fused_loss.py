"""Unsloth's chunked fused cross-entropy: how many chunks it cuts the tokens into and what one chunk keeps (pure;
the sources are profiles/unsloth_kernels.py: unsloth_zoo fused_losses/cross_entropy_loss.py get_chunk_size)."""

from __future__ import annotations

import math

from rocm_tune.profiles import unsloth_kernels as P


def ce_chunks(tokens: int, vocab: int, fixed: int, target: int = P.CE_TARGET_BYTES) -> int:
    """unsloth_zoo get_chunk_size: the chunks the fused loss cuts `tokens` into so one chunk's eager chain
    (16 bytes per logit) fits `target` less the `fixed` grad_inputs (when that is smaller); a multiple of 4,
    rounded up, at most one per token."""
    if 0 < fixed < target:
        target -= fixed
    exact = tokens * vocab * P.CE_BUDGET_BYTES_PER_LOGIT / max(1, target)
    if exact <= 1.0 + 1e-9:
        return 1
    return max(1, min(math.ceil(exact / 4 - 1e-9) * 4, tokens))


def chunk_bytes(tokens: int, vocab: int, fixed: int, target: int = P.CE_TARGET_BYTES) -> int:
    """What one chunk keeps: its tokens' logits and their gradient in 16 bits (the compiled chunk)."""
    return P.CE_KEPT_BYTES_PER_LOGIT * vocab * -(-tokens // ce_chunks(tokens, vocab, fixed, target))
