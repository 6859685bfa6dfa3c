"""e-new14 (issue 26): names a guarded import leaves undefined or None, and the package that defines them. Data only:
read by core/runs/diagnose/guarded_imports.py.

The code shape (read in the sources, not guessed): a library or a model's remote code imports an optional
dependency inside `try: ... except (ImportError|Exception): ...` and goes on without it, logging the failure or
not -
- ChatGLM-6B / ChatGLM2-6B quantization.py: `try: from cpm_kernels.kernels.base import LazyKernelCModule,
  KernelFunction, round_up ... except Exception as exception: kernels = None; logger.warning("Failed to load
  cpm_kernels:" + str(exception))`, then compress_int4_weight calls `round_up(m, 32)` -> `NameError: name
  'round_up' is not defined` when cpm_kernels is not installed;
- models written for flash-attn 2 (`from flash_attn import flash_attn_varlen_func` under `try`/`if
  is_flash_attn_2_available()`) run with flash-attn 1.x installed, which has `flash_attn_unpadded_func` instead
  (flash-attn 2.0 renamed the unpadded functions to varlen), and the reverse;
- remote modeling code (DeepSeek-V2/VL2/OCR modeling_deepseek*.py) importing transformers' LlamaFlashAttention2 /
  LlamaSdpaAttention (removed from transformers in 4.48) under `try`, setting the name to None, then calling
  `ATTENTION_CLASSES[attn_implementation](config=..., layer_idx=...)` -> `TypeError: 'NoneType' object is not
  callable`.
The use site fails with `NameError: name 'N' is not defined` (the import never bound N) or `TypeError: 'NoneType'
object is not callable` (the except branch bound N = None).
"""

from __future__ import annotations

# name -> (the package that defines it, the major release that has it: None when every release does)
OPTIONAL_NAMES: dict[str, tuple[str, int | None]] = {
    # cpm_kernels (ChatGLM's int4/int8 quantization kernels)
    "round_up": ("cpm_kernels", None), "LazyKernelCModule": ("cpm_kernels", None),
    "KernelFunction": ("cpm_kernels", None),
    # flash-attn: 2.0 renamed flash_attn_unpadded_* to flash_attn_varlen_* (flash_attn/flash_attn_interface.py)
    "flash_attn_varlen_func": ("flash_attn", 2), "flash_attn_varlen_qkvpacked_func": ("flash_attn", 2),
    "flash_attn_varlen_kvpacked_func": ("flash_attn", 2), "flash_attn_with_kvcache": ("flash_attn", 2),
    "flash_attn_unpadded_func": ("flash_attn", 1), "flash_attn_unpadded_qkvpacked_func": ("flash_attn", 1),
    "flash_attn_unpadded_kvpacked_func": ("flash_attn", 1),
    "flash_attn_func": ("flash_attn", None), "flash_attn_qkvpacked_func": ("flash_attn", None),
    "flash_attn_kvpacked_func": ("flash_attn", None),
    "index_first_axis": ("flash_attn", None), "pad_input": ("flash_attn", None), "unpad_input": ("flash_attn", None),
    "apply_rotary_emb_func": ("flash_attn", None), "dropout_add_layer_norm": ("flash_attn", None),
    # xformers (`import xformers.ops as xops`)
    "xops": ("xformers", None), "memory_efficient_attention": ("xformers", None),
    # apex
    "FusedLayerNorm": ("apex", None), "MixedFusedLayerNorm": ("apex", None), "FusedRMSNorm": ("apex", None),
    "FusedAdam": ("apex", None), "amp": ("apex", None),
    # bitsandbytes, deepspeed, einops, triton, mamba-ssm, causal-conv1d
    "bnb": ("bitsandbytes", None), "deepspeed": ("deepspeed", None), "rearrange": ("einops", None),
    "triton": ("triton", None), "tl": ("triton", None),
    "selective_scan_fn": ("mamba_ssm", None), "mamba_inner_fn": ("mamba_ssm", None),
    "selective_state_update": ("mamba_ssm", None),
    "causal_conv1d_fn": ("causal_conv1d", None), "causal_conv1d_update": ("causal_conv1d", None),
}

# transformers' per-model attention classes a remote modeling file imports (LlamaFlashAttention2, MistralSdpaAttention,
# ...; 4.48 folded them into one attention class per model) and the dispatch tables those files keep
# (`ATTENTION_CLASSES`, `LLAMA_ATTENTION_CLASSES`)
TRANSFORMERS_ATTENTION_CLASS = r"\b[A-Z]\w*(?:FlashAttention2|SdpaAttention)\s*\(|\b[A-Z_]*ATTENTION_CLASSES\[[^\]\n]+\]\s*\("

# a remote/model code file (transformers' modeling_<model>.py, kept in transformers_modules or a hub cache)
MODEL_CODE_FILE = r"modeling_\w+\.py"

# how a log shows a package is not installed: `No module named 'cpm_kernels'` (in a logged warning or an
# ImportError), `X is not installed`, transformers' `requires the X library but it was not found`
NOT_INSTALLED = (r"No module named '?{p}(?:[.'\s]|$)|\b{p}(?: package)? (?:is )?not (?:installed|available|found)\b|"
                 r"requires the {p} library but it was not found")

# how a log shows a package's installed release: pip's `Successfully installed ... flash-attn-1.0.9` / `Requirement
# already satisfied: flash-attn in ... (2.5.8)`, `flash_attn==2.5.8`, `pip show`'s `Name: X` + `Version: N`,
# collect_env-style `flash_attn: 2.5.8` / `flash-attn version 2.5.8`
INSTALLED_AT = (r"(?i)(?:\b{p}-|\b{p}==|\b{p}:\s*|\b{p} (?:version:?\s*)?v?|Name: {p}\s+Version: )(\d+)\.\d+|"
                r"Requirement already satisfied: {p}\b[^\n]*\((\d+)\.\d+")
