"""Real sequence lengths: what the collators of LLaMA-Factory and transformers really feed the model.

LLaMA-Factory's SFT/DPO/RM collators (``DataCollatorForSeq2Seq`` subclasses, ``pad_to_multiple_of=8``;
``train/sft/workflow.py``) and transformers' ``DataCollatorWithPadding`` pad each micro-batch to its
longest sample (after truncation at ``cutoff_len``), rounded up to a multiple of 8 - not to
``cutoff_len``. So with a dataset:

* the memory peak is reached by the longest micro-batch the data can form: ``micro_batch`` rows of the
  longest (truncated) sample's padded length;
* a typical micro-batch is padded to the expected longest of ``micro_batch`` random samples;
* the tokens that train are the real ones: the mean truncated sample length, not the padded length.

Pure standard library; `lengths` are sorted token counts per sample (``DatasetStats.lengths``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocm_tune.core.memory.estimate import MemoryEstimate

PAD_MULTIPLE = 8


def padded(length: float, multiple: int = PAD_MULTIPLE) -> int:
    """A batch's padded length: its longest sample rounded up to a multiple of 8."""
    n = max(1, int(-(-float(length) // 1)))
    return -(-n // multiple) * multiple


def longest_batch_tokens(lengths, cutoff_len: int) -> int:
    """Padded length of the longest micro-batch the data can form (every row padded to it)."""
    if not lengths:
        return padded(cutoff_len)
    return padded(min(max(lengths), cutoff_len))


def typical_batch_tokens(lengths, micro_batch: int, cutoff_len: int) -> float:
    """Expected padded length of a micro-batch of ``micro_batch`` random samples (with replacement):
    E[round8(max of micro_batch truncated lengths)], from the order statistics of the sorted lengths."""
    if not lengths:
        return float(padded(cutoff_len))
    n = len(lengths)
    total = 0.0
    below = 0.0
    for i, length in enumerate(lengths, 1):
        at_most = (i / n) ** micro_batch        # P(max <= this sample's rank)
        total += padded(min(length, cutoff_len)) * (at_most - below)
        below = at_most
    return total


def real_tokens_per_sample(lengths, cutoff_len: int) -> float:
    """Mean tokens of a sample after truncation: what trains, without the padding."""
    if not lengths:
        return float(cutoff_len)
    return sum(min(x, cutoff_len) for x in lengths) / len(lengths)


@dataclass(frozen=True)
class LengthAwareMemory:
    """The memory estimate at the longest and at a typical micro-batch of the data."""

    longest_tokens: int      # padded length of the longest micro-batch (the peak)
    typical_tokens: float    # expected padded length of a micro-batch
    real_tokens: float       # mean real tokens per sample after truncation
    peak: MemoryEstimate     # the estimate at longest_tokens
    typical: MemoryEstimate  # the estimate at the typical length (rounded up to a multiple of 8)

    def to_dict(self) -> dict:
        return {"longest_batch_tokens": self.longest_tokens, "typical_batch_tokens": round(self.typical_tokens, 1),
                "real_tokens_per_sample": round(self.real_tokens, 1),
                "peak_allocated_bytes": self.peak.per_gpu.peak_allocated_bytes,
                "peak_reserved_bytes": self.peak.per_gpu.reserved_bytes,
                "typical_allocated_bytes": self.typical.per_gpu.peak_allocated_bytes,
                "typical_reserved_bytes": self.typical.per_gpu.reserved_bytes}


def memory_at_data_lengths(model, cfg, lengths) -> LengthAwareMemory:
    """Estimate ``cfg`` at the batch lengths the data really forms (cutoff_len stays the truncation)."""
    from rocm_tune.core.memory.estimate import estimate

    longest = longest_batch_tokens(lengths, cfg.cutoff_len)
    typical = typical_batch_tokens(lengths, cfg.micro_batch, cfg.cutoff_len)
    return LengthAwareMemory(
        longest_tokens=longest, typical_tokens=typical, real_tokens=real_tokens_per_sample(lengths, cfg.cutoff_len),
        peak=estimate(model, replace(cfg, cutoff_len=longest)),
        typical=estimate(model, replace(cfg, cutoff_len=padded(typical))))
