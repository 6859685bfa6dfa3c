"""e-g4 (issue 26): readings of a root cause that depend on where the failure happened and on the platform.

- Triton's `OutOfResources: out of resource: shared memory, Required: N, Hardware limit: M` (triton/runtime/
  errors.py, every release) is a kernel whose launch config does not fit the GPU. Raised in an attention kernel
  (flex_attention's inductor kernel, a Triton flash-attention, InfLLM's fattn, FlashT5) it is flash_attn_error: the
  fix is the attention kernel's settings or another attention implementation (FAMILIES.md). In another kernel
  (a matmul, a norm) it stays the compiler/kernel config's (config_error): the innermost frame that names a
  kernel decides.
- e-g6: outside attention, who picks the launch config decides. The kernel's caller (the innermost frame that is not
  Triton's or torch's own) in an installed package (unsloth, Liger, vLLM, bitsandbytes...: site-/dist-packages, or
  unsloth's generated unsloth_compiled_cache) is a library kernel that cannot run on this GPU, fixed in the library:
  hip_error on a ROCm stack, cuda_error otherwise (FAMILIES.md: hip_error = "a ROCm library fail[s] on this GPU ...
  architecture not supported", cuda_error the same on CUDA; Rule 1, refined: a failure inside a component stays in
  its family, with the upgrade as its fix). The user's own kernel (a frame in their project) or torch.compile's
  generated one (inductor's cache) stays config_error: their block sizes / compile settings.
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
_LIB_FRAME = re.compile(fx.LIBRARY_FRAME)
_PASSED_FRAME = re.compile(fx.PASSED_FRAME)
_FRAME_PATH = re.compile(r'File "([^"]+)", line \d+')
_OOR_NUMBERS = re.compile(fx.OOR_NUMBERS)
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


def is_out_of_resources(code: str, lines: Sequence[str]) -> bool:
    """A torch-compile-error whose lines show Triton's OutOfResources (or a launch with too many resources)."""
    return code == "torch-compile-error" and any(_OOR.search(t) for t in lines)


def attention_out_of_resources(code: str, lines: Sequence[str], pre: str) -> bool | None:
    """For a torch-compile-error whose lines show Triton's OutOfResources: True in an attention kernel, False in
    another kernel, None when it is not an OutOfResources (or nothing names the kernel)."""
    if not is_out_of_resources(code, lines):
        return None
    return _innermost_kernel_is_attention(pre[-8000:] + "\n" + "\n".join(lines))


def library_of_kernel(pre: str) -> str | None:
    """e-g6: the installed package whose code launched the kernel: the innermost traceback frame before the failure
    that is not Triton's or torch's own, when it lies in site-/dist-packages (or unsloth's compiled cache); None
    when that frame is the user's (or no frame is shown)."""
    for path in reversed(_FRAME_PATH.findall(pre[-8000:])):
        if _PASSED_FRAME.search(path):
            continue
        m = _LIB_FRAME.search(path)
        if m is None:
            return None
        name = (m.group(1) or m.group(2)).split(".")[0]
        return name.split("-")[0]
    return None


def library_out_of_resources(lines: Sequence[str], pre: str, texts: Sequence[str]) -> dict | None:
    """e-g6: for Triton's OutOfResources outside attention in a library's kernel: the library, the platform's family
    (hip_error on a ROCm stack, else cuda_error) and the message's numbers; None for the user's own kernel."""
    lib = library_of_kernel(pre)
    if lib is None:
        return None
    family = "hip_error" if any(cat.ROCM_MARKERS.search(t) for t in (*lines, pre, *texts)) else "cuda_error"
    m = next((m for t in lines for m in [_OOR_NUMBERS.search(t)] if m), None)
    out: dict = {"lib": lib, "family": family, "resource": m.group(1) if m else "resources"}
    if m:
        out["required"], out["limit"] = int(m.group(2)), int(m.group(3))
    return out


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
