"""The AMD attention stacks' own refusals (e-hip4, issue 26): the checks PyTorch's ROCm SDPA (AOTriton and its CK
backend), ROCm/flash-attention's CK build and its Triton AMD backend raise before a kernel runs, when this GPU, dtype,
head dimension or option is outside what the attention kernels were built for. FAMILIES.md "hip_error vs
flash_attn_error": the fix is another attention implementation (math/eager SDPA, another backend, no flash-attn) or an
attention build for the card -> flash_attn_error. Data only: the rule is the signature `amd-attention-refused` in
rocm_tune/core/runs/catalogue.py.

Sources (each text as the source spells it; the regexes allow the variants the releases print):
- pytorch/pytorch aten/src/ATen/native/transformers/hip/attention.hip, attention_backward.hip and
  hip/flash_attn/aot/mha_all_aot.hip (check_gpu_arch): `[AOTriton] Accelerated SDPA only supports MI200/MI300X/
  7900XTX/9070XT GPUs (gfx90a/gfx942/gfx1100/gfx1201)` (2.4-2.5: `... MI200/MI300X/Navi31 GPUs (gfx90a:sramecc+:
  xnack-/gfx942:sramecc+:xnack-/gfx1100)`), `ROCM does not support num_split_keys in _efficient_attention_forward`,
  `ROCM does not support window_size in _efficient_attention_forward`, `Attempting to use CK mem_eff_forward backend
  in a build that has not built CK` (and mem_eff_backward, and the flash `CK` spellings)
- ROCm/flash-attention csrc/flash_attn_ck/mha_fwd.cpp, mha_varlen_fwd.cpp, mha_bwd.cpp (and the older csrc/
  flash_attn_rocm): `FlashAttention only supports AMD MI200 GPUs or newer.`, `FlashAttention only supports AMD MI300
  GPUs.`, `CK only supports head dimension at most 256`, `FlashAttention only support fp16 and bf16 data type`,
  `bfloat16 is only supported on AMD MI200 GPUs or newer`; jax-triton/ck FFI ports print the same texts
"""

from __future__ import annotations

# PyTorch's ROCm SDPA (AOTriton / its CK backend) refusing the GPU or an option it was not built with
TORCH_ROCM_SDPA_REFUSALS: tuple[str, ...] = (
    r"\[AOTriton\] Accelerated SDPA only supports",
    r"ROCM does not support (?:num_split_keys|window_size) in _efficient_attention_\w+",
    r"Attempting to use CK \w+ backend in a build that has not built CK",
)
# ROCm/flash-attention's CK build refusing the GPU, the dtype or the head dimension
CK_FLASH_REFUSALS: tuple[str, ...] = (
    r"FlashAttention only supports AMD MI\d+ GPUs",
    r"\bCK only supports head dimension at most \d+",
    r"FlashAttention only supports? fp16 and bf16 data type",
    r"bfloat16 is only supported on AMD MI\d+ GPUs",
    # e-amd8 (issue 26): CK's fmha dispatcher found no kernel instance for this arch / dtype / head dim / mask and
    # returned -1 (Dao-AILab/flash-attention@9eb63cbf835eef83b5bd08a59c02556ee2be270b csrc/flash_attn_ck/mha_fwd.cpp:
    # `TORCH_CHECK(t >= 0, "invalid argument for fmha_fwd")`; mha_varlen_fwd.cpp, mha_bwd.cpp, mha_varlen_bwd.cpp the
    # same for fmha_fwd_splitkv / fmha_bwd; AITER's mha_fwd/mha_bwd wrappers raise the same text)
    r"\binvalid argument for fmha_(?:fwd|bwd)\w*",
)
# the literal keywords that let a line holding one of the texts above reach the regexes (the catalogue's prefilter)
KEYWORDS: tuple[str, ...] = ("AOTriton", "ROCM does not support", "has not built CK", "FlashAttention only",
                             "CK only supports", "only supported on AMD MI", "invalid argument for fmha_")
