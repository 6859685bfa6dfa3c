"""e-g4 (issue 26): readings of a root cause that depend on where the failure happened and on the platform.

- Triton's `OutOfResources: out of resource: shared memory, Required: N, Hardware limit: M` (triton/runtime/
  errors.py, every release) is a kernel whose launch config does not fit the GPU. Raised in an attention kernel
  (flex_attention's inductor kernel, a Triton flash-attention, InfLLM's fattn, FlashT5) it is flash_attn_error: the
  fix is the attention kernel's settings or another attention implementation (FAMILIES.md). In another kernel
  (Liger, unsloth, a matmul) it stays the compiler/kernel config's (config_error): the innermost frame that names a
  kernel decides.
- ZLUDA (CUDA on AMD) running a CUDA kernel of xformers / flash-attention that it cannot translate: the attention
  implementation chosen in the trainer is what fails (flash_attn_error), not the HIP runtime.
- `No CUDA GPUs are available` from PyTorch's CUDA build (c10/cuda device_count_ensure_non_zero: the driver loaded
  but cudaGetDeviceCount found no device) on a log without a ROCm sign: the visibility mask (CUDA_VISIBLE_DEVICES,
  a --gpus list) hides every GPU (config_error). A ROCm stack keeps no-gpu-visible's reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.profiles import kernel_platform_fixes as fx

_ATTN = re.compile(fx.ATTENTION_WORDS, re.I)
_OTHER = re.compile(fx.OTHER_KERNEL_WORDS, re.I)
_OOR = re.compile(fx.OOR_LINE)
_ZLUDA = re.compile(r"\bZLUDA\b|zluda[\w.]*[/\\]|\[ZLUDA\]|\bzluda\b", re.I)
# the attention implementation chosen: xformers / flash-attention named as a setting, a flag or in the frames
_FA_CHOSEN = re.compile(r"\"?attention(?:_mechanism|_type|_backend)?\"?\s*[:=]\s*\"?(?:XFORMERS|FLASH\w*)\b|"
                        r"--(?:xformers|flash[-_]attn)\b|[/\\]xformers[/\\]|[/\\]flash_attn[/\\]|"
                        r"memory_efficient_attention|\bxformers\.ops\b|flash_attn_(?:func|varlen)|"
                        # torch's own flash / memory-efficient SDPA kernels (SD.Next turns flash SDP off on ZLUDA)
                        r"_scaled_dot_product_(?:flash|efficient|cudnn)_attention", re.I)
# a CUDA kernel that the translation layer cannot load or run
_KERNEL_NOT_RUN = re.compile(r"named symbol not found|invalid device function|no kernel image|operation not "
                             r"supported|device kernel image is invalid|invalid ptx|PTX JIT compil", re.I)
_NO_CUDA_GPU = re.compile(r"No CUDA GPUs are available")
_NO_CUDA_DEVICE = re.compile(r"no CUDA-capable device is detected")
# the NVIDIA driver itself not answering (nvidia-smi's and torch's words): the driver is the cause, not the mask
_DRIVER_BROKEN = re.compile(r"NVIDIA-SMI has failed|couldn't communicate with the NVIDIA driver|CUDA unknown error|"
                            r"Driver/library version mismatch|Found no NVIDIA driver|NVIDIA driver on your system is "
                            r"too old|nvidia-smi: command not found|Failed to initialize NVML")
_MASK_SHOWN = re.compile(r"\bCUDA_VISIBLE_DEVICES\b['\"\]]*\s*[:=]\s*['\"]?([\w,-]*)")


def _innermost_kernel_is_attention(frames_text: str) -> bool | None:
    """True/False when the last attention / other-kernel word of the traceback is an attention / other kernel's;
    None when the frames name neither."""
    a = [m.start() for m in _ATTN.finditer(frames_text)]
    o = [m.start() for m in _OTHER.finditer(frames_text)]
    if not a and not o:
        return None
    return (a[-1] if a else -1) > (o[-1] if o else -1)


def attention_out_of_resources(code: str, lines: Sequence[str], pre: str) -> bool | None:
    """For a torch-compile-error whose lines show Triton's OutOfResources: True in an attention kernel, False in
    another kernel, None when it is not an OutOfResources (or nothing names the kernel)."""
    if code != "torch-compile-error" or not any(_OOR.search(t) for t in lines):
        return None
    return _innermost_kernel_is_attention(pre[-8000:] + "\n" + "\n".join(lines))


def zluda_attention_kernel(family: str, line: str, texts: Sequence[str]) -> bool:
    """A CUDA/HIP kernel that could not run, on ZLUDA, with xformers or flash-attention as the attention."""
    if family not in ("cuda_error", "hip_error") or not _KERNEL_NOT_RUN.search(line):
        return False
    return any(_ZLUDA.search(t) for t in texts) and any(_FA_CHOSEN.search(t) for t in texts)


def cuda_build_sees_no_gpu(code: str, line: str, texts: Sequence[str]) -> str | None:
    """'' or the CUDA_VISIBLE_DEVICES value the log shows, when PyTorch's CUDA build found no device on a log with
    no ROCm sign and no sign of a broken NVIDIA driver; None otherwise. The CUDA runtime's own text for the same
    status (`no CUDA-capable device is detected`, cudaErrorNoDevice) only where the log shows the mask set."""
    torch_words = code == "no-gpu-visible" and _NO_CUDA_GPU.search(line)
    runtime_words = code == "cuda-error" and _NO_CUDA_DEVICE.search(line)
    if not (torch_words or runtime_words):
        return None
    if any(cat.ROCM_MARKERS.search(t) or _DRIVER_BROKEN.search(t) for t in texts):
        return None
    shown = next((m for t in texts for m in [_MASK_SHOWN.search(t)] if m), None)
    if shown is None:
        return "" if torch_words else None
    return shown.group(1)
