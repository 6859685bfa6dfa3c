"""e-g910 (issue 26): where a generic exception was raised, and what that says about its family (data; the logic is
rocm_tune/core/runs/diagnose/exception_sources.py). Each table is written from the source that raises the message.
"""

from __future__ import annotations

# transformers' modeling files (transformers/models/<m>/modeling_<m>.py) reshaping the attention output back to the
# model width with the width the release derives (`attn_output.view(bsz, q_len, self.hidden_size)` in 4.3x-4.42's
# Llama/Mistral/Qwen2 families, `.reshape(bsz, q_len, self.hidden_size)` in their flash/sdpa paths, `self.embed_dim`
# in the GPT/OPT/Whisper ones): a checkpoint whose attention width (num_heads x config.head_dim) is not hidden_size
# (Mistral-NeMo: 32 x 128 = 4096 vs 5120) needs a release whose attention reads config.head_dim.
MODELING_FRAME = r"transformers[/\\]models[/\\](\w+)[/\\]modeling_\1\.py$"
WIDTH_RESHAPE = (r"\.(?:view|reshape)\(\s*[^()]*\b(?:self|config|self\.config)\.(?:hidden_size|embed_dim|d_model)\s*\)"
                 r"|\.(?:view|reshape)\([^()]*,\s*(?:hidden_size|embed_dim)\s*\)")
SHAPE_INVALID = r"\bRuntimeError: shape '\[([\d, ]+)\]' is invalid for input of size (\d+)"
WIDTH_SKEW_FIX = ("the checkpoint's attention width ({width} = heads x config.head_dim) is not its hidden size "
                  "({hidden}): the installed transformers' {model} code derives head_dim from hidden_size / heads and "
                  "ignores the checkpoint's head_dim; upgrade transformers to the release the model card names "
                  "(Mistral-NeMo: 4.43 or later, or transformers from source before that release)")

# flash-linear-attention's TileLang backend (fla/ops/<op>/backends/tilelang/, dispatched by fla/ops/backends when
# tilelang is importable; FLA_TILELANG=0 turns it off): a TileLang/TVM kernel build that cannot target this GPU
# (tilelang src/op/gemm.cc getGemmInst: `Unsupported target for gemm: <target>` for a target that is neither CUDA
# nor CDNA - RDNA gfx11xx/gfx12xx, metal) or fails otherwise fails in the attention library's backend choice.
FLA_TILELANG_FRAME = r'File "[^"]*[/\\]fla[/\\]ops[/\\](?:[\w.]+[/\\])*backends[/\\]tilelang[/\\][^"]*"'
FLA_TILELANG_FIX = ("flash-linear-attention dispatched this op to its TileLang backend, whose kernel build cannot "
                    "target this GPU (TileLang's gemm has instructions for CUDA and CDNA, not RDNA/other HIP "
                    "targets): run with FLA_TILELANG=0 so FLA uses its Triton kernels (or uninstall tilelang)")
# an import failure inside that backend is the package rules' (not installed / another release)
IMPORT_FAILURE = r"\b(?:ModuleNotFoundError|ImportError)\b"

# Packages built only for NVIDIA GPUs that a training option pulls in, and the options that do (the source that
# imports them): a ROCm stack cannot install them, so the fix is the option. Megatron-LM (megatron/core/
# dist_checkpointing/strategies/torch.py get_async_strategy: `A compatible `nvidia-resiliency-ext` installation is
# required for `async_strategy="nvrx"`. Please install it or set `async_strategy` to `mcore`.`; megatron/training
# ft_integration.py, the straggler detector and local non-persistent checkpointing import nvidia_resiliency_ext).
CUDA_ONLY_PACKAGES: dict[str, str] = {
    r"nvidia[-_]resiliency[-_]ext": (
        "nvidia-resiliency-ext is built for NVIDIA GPUs only (no ROCm build): turn off the option that loads it - "
        "--async-save with Megatron's default async strategy nvrx -> --async-strategy mcore (or no --async-save), "
        "--enable-ft-package (fault tolerance), --log-straggler (straggler detection), "
        "--non-persistent-ckpt-type local (local checkpointing)"),
}
CUDA_ONLY_NVIDIA_FIX = ("install the package on this NVIDIA machine (pip install nvidia-resiliency-ext), or turn off the "
                        "option that loads it")

# PEFT's layer factories raise `Target module <repr> is not supported. Currently, only ...` (peft 0.3-0.4 lora.py
# _find_and_replace: `... only `torch.nn.Linear` and `Conv1D` are supported.`; since 0.7 tuners/<t>/model.py
# _create_new_module: `... only the following modules are supported: `torch.nn.Linear`, ...`). For the layer classes
# of the quantization libraries, later PEFT releases have a LoRA layer (auto-gptq QuantLinear: 0.5; AWQ WQLinear_*:
# 0.9; AQLM QuantizedLinear: 0.10; EETQ, HQQ: 0.11; optimum-quanto QLinear/QConv2d: 0.12; GPTQModel's *QuantLinear:
# 0.14; bitsandbytes Linear8bitLt/Linear4bit: 0.3/0.4): the installed PEFT predates them.
QUANT_LAYER_CLASSES = (r"\w*QuantLinear\w*|WQLinear\w*|QuantizedLinear|EetqLinear|HQQLinear\w*|QLinear|QConv2d|"
                       r"Linear8bitLt|Linear4bit|Linear8bit")
