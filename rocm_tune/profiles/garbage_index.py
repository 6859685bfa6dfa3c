"""e-new15 (issue 26): an index error whose index is garbage, on an AMD card the ROCm libraries do not support -
FAMILIES.md "Symptom vs cause": an index out of range is the data's or the tokenizer's when the ids come from them
(a token id at or just past the vocabulary, a -1 pad, a label out of range); hip_error when the GPU's kernels are the
cause. A value no tokenizer or dataset emits (hundreds of millions against a table of thousands) was computed on the
GPU, and a card outside ROCm's supported list (pre-Vega GCN: ROCm dropped gfx8 and older from its libraries - rocBLAS'
Tensile kernels for gfx803 returned wrong results from ROCm 3.7 on, the gfx803 reports ROCm/ROCm#1265 and
ROCm/rocBLAS#1172) is where such garbage comes from. Data only: read by core/runs/diagnose/garbage_index.py.

The index errors that print the index and the bound, as the frameworks word them:
- TensorFlow's gather / embedding_lookup / ResourceGather kernels (tensorflow/core/kernels/gather_functor.h,
  resource_variable_ops.cc): `indices[5,284] = 997212422 is not in [0, 5001)`;
- PyTorch on the CPU (aten/src/ATen/native/TensorAdvancedIndexing.cpp, IndexingUtils): `index 997212422 is out of
  bounds for dimension 0 with size 5001`; older index_select: `index_select(): index 997212422 out of range for
  tensor of size [5001, 64] at dimension 0`;
- NumPy: `index 997212422 is out of bounds for axis 0 with size 5001`.
"""

from __future__ import annotations

# group `idx`: the index; group `size`: the bound
INDEX_ERRORS = (
    r"\bindices\[[\d, ]*\] = (?P<idx>-?\d+) is not in \[0, (?P<size>\d+)\)",
    r"\bindex (?P<idx>-?\d+) is out of bounds for (?:dimension|axis) \d+ with size (?P<size>\d+)",
    r"\bindex_select\(\): index (?P<idx>-?\d+) out of range for tensor of size \[(?P<size>\d+)",
)

# garbage: beyond any vocabulary (the largest tokenizers hold a few hundred thousand ids) and a thousand times the
# table's size
GARBAGE_MIN = 1 << 24
GARBAGE_RATIO = 1000

# the card's gfx as the frameworks print it, beyond gpu_archs.CARD_GFX: TensorFlow's ROCm device line
# (gpu_device.cc: `pciBusID: ... name: ...     ROCm AMD GPU ISA: gfx803`)
CARD_GFX_MORE = (r"\bROCm AMD GPU ISA: (?P<gfx>gfx[0-9]{2,4}[a-f]?)",)
# pre-Vega GCN (gfx6 Southern Islands, gfx7 Sea Islands, gfx8 Volcanic Islands / Polaris): outside ROCm's libraries
LEGACY_GFX = r"^gfx[678]\d\d$"
# the same cards by the names the drivers and frameworks print (Polaris, Fiji, Tonga, Hawaii chips; RX 400/500
# Polaris boards, R9 Fury/Nano)
LEGACY_NAMES = (r"\b(?:Ellesmere|Baffin|Lexa|Polaris ?1[012]|Fiji|Tonga|Hawaii)\b",
                r"\bRadeon (?:RX )?(?:4[678]0|5[4-9]0)X?\b", r"\bR9 (?:Fury|Nano|390X?|290X?)\b")
