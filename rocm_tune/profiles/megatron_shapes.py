"""Megatron-LM / Megatron-DeepSpeed model shape from the flags (no hub model): the defaults the sources apply.

- NVIDIA/Megatron-LM megatron/training/arguments.py validate_args: `--ffn-hidden-size` default 4 x hidden, with
  `--swiglu` int((4 x hidden x 2 / 3) / 64) x 64; kv_channels = hidden / heads; `--group-query-attention
  --num-query-groups N` gives N key/value heads; the output layer shares the word embedding unless
  `--untie-embeddings-and-output-weights`; `--normalization` LayerNorm, linear biases unless `--disable-bias-linear`.
- megatron/training/tokenizer/tokenizer.py _vocab_size_with_padding: the tokenizer's vocab rounded up to a multiple
  of `--make-vocab-size-divisible-by` (128) x tensor parallel. GPT2BPETokenizer (gpt2-vocab.json + gpt2-merges.txt)
  50257 tokens; BertWordPieceLowerCase (bert-*-uncased-vocab.txt) 30522, BertWordPieceCase 28996; NullTokenizer
  `--vocab-size N`.
- microsoft/Megatron-DeepSpeed (the same arguments.py lineage): `--checkpoint-activations` is the older spelling of
  full activation recomputation (megatron/arguments.py: "--checkpoint-activations ... deprecated, use
  --recompute-activations").
"""

from __future__ import annotations

MEGATRON_SHAPE_SOURCE = "NVIDIA/Megatron-LM megatron/training/arguments.py (validate_args)"
VOCAB_DIVISIBLE_BY = 128
# --tokenizer-type -> the tokenizer's own vocabulary size
TOKENIZER_VOCAB: dict[str, int] = {
    "gpt2bpetokenizer": 50257,
    "bertwordpiecelowercase": 30522,
    "bertwordpiececase": 28996,
}
# a vocab file's name (lower case, its stem) -> the tokenizer type Megatron's scripts pair it with
VOCAB_FILE_TOKENIZER: tuple[tuple[str, str], ...] = (
    ("gpt2-vocab", "gpt2bpetokenizer"),
    ("uncased-vocab", "bertwordpiecelowercase"),
    ("cased-vocab", "bertwordpiececase"),
)
