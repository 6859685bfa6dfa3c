"""Megatron's unfused core attention, as its kernels keep it (pure): which softmax runs, and the bytes per attention
score it keeps for the backward and adds during it (TrainConfig.scores_bytes).

Megatron-core's local DotProductAttention (megatron/core/transformer/dot_product_attention.py) and Transformer
Engine's UnfusedDotProductAttention (--attention-backend unfused; transformer_engine/pytorch/attention/
dot_product_attention/backends.py) both run baddbmm -> FusedScaleMaskSoftmax -> dropout -> bmm:
* FusedScaleMaskSoftmax runs the fused kernels (scaled_upper_triang_masked_softmax / scaled_masked_softmax) when
  the shape allows (is_kernel_available, below): their autograd Function saves only the 16-bit softmax output
  (`ctx.save_for_backward(softmax_results)`), and the backward kernel writes the input gradient over the incoming
  one (in place); the bmm with V saves that same output. Otherwise forward_torch_softmax: the scores cast to fp32
  (attention_softmax_in_fp32), torch softmax saves its fp32 output, cast back to 16 bits for the bmm - what eager
  attention in transformers keeps.
* attention_dropout > 0: torch.nn.Dropout saves its bool mask (1 byte) and the bmm saves the dropped 16-bit copy;
  its backward makes one more 16-bit gradient. Megatron-LM's default is 0.1 (TransformerConfig.attention_dropout),
  ms-swift's `megatron sft` 0 (swift/megatron/arguments/megatron_args.py attention_dropout: float = 0.)."""

from __future__ import annotations

# the local implementation's kernels take 16 < sk <= 4096 (megatron/core/fusions/fused_softmax.py), Transformer
# Engine's 16 < sk < 16384 with sk % 8 == 0 (dot_product_attention/softmax.py)
LOCAL_MAX_SK = 4096
TE_MAX_SK = 16384
MEGATRON_LM_DROPOUT = 0.1
SWIFT_DROPOUT = 0.0
SRC = ("NVIDIA/Megatron-LM:megatron/core/fusions/fused_softmax.py (is_kernel_available, ScaledUpperTriangMaskedSoftmax"
       " saves only its softmax_results); NVIDIA/TransformerEngine:transformer_engine/pytorch/attention/"
       "dot_product_attention/softmax.py")


def batch_per_block(sk: int) -> int:
    """The fused softmax kernels' batches per thread block for a key length (get_batch_per_block: 128 threads per
    block, a warp of min(next power of two, 32) threads, two rows per warp up to 128 keys)."""
    pow2 = 1 << (max(1, sk) - 1).bit_length()
    warp = min(pow2, 32)
    return (128 // warp) * (2 if pow2 <= 128 else 1)


def fused_available(te: bool, micro_batch: int, heads: int, seq: int) -> bool:
    """Whether FusedScaleMaskSoftmax takes the fused kernel for causal self-attention of `seq` tokens, `heads` heads
    per GPU (is_kernel_available of Megatron's local implementation, or of Transformer Engine's when `te`)."""
    batches = micro_batch * heads
    if not (seq % 4 == 0 and batches % 4 == 0):
        return False
    if te:
        return 16 < seq < TE_MAX_SK and seq % 8 == 0 and seq % batch_per_block(seq) == 0
    return 16 < seq <= LOCAL_MAX_SK and batches % batch_per_block(seq) == 0


def scores_bytes(fused: bool, dropout: float) -> tuple[float, float] | None:
    """(bytes per score kept, bytes per score the softmax backward adds) for 16-bit attention; None where it is what
    transformers' eager attention keeps (the fp32 softmax, no dropout)."""
    if not fused and dropout <= 0:
        return None
    kept, backward = (2.0, 2.0) if fused else (6.0, 6.0)
    if dropout > 0:
        kept, backward = kept + 3, backward + 2
    return kept, backward


def describe(te: bool, fused: bool, dropout: float, why_not: str = "") -> str:
    """The line said with the estimate."""
    impl = "Transformer Engine's unfused attention" if te else "Megatron's local core attention"
    soft = ("the fused softmax kernel keeps only its 16-bit output (2 bytes per score; its backward runs in place)"
            if fused else f"the fused softmax does not take this shape{why_not}: torch's fp32 softmax (6 bytes per "
                          f"score, as eager)")
    drop = (f"; attention_dropout {dropout:g}: the dropout mask and the dropped 16-bit copy (+3 bytes per score)"
            if dropout > 0 else "")
    return f"{impl}: {soft}{drop} ({SRC})"
