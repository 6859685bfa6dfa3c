"""e-hipfa (issue 26): the attention libraries whose own code can raise a GPU runtime error, as their frames and
source paths appear in a log. Data only: the rule is core/runs/diagnose/attention_owner.py.

Sources (the spellings these libraries print):
- Dao-AILab/flash-attention and ROCm/flash-attention: the Python package `flash_attn` (flash_attn_interface.py calls
  `flash_attn_gpu.fwd/varlen_fwd` = the extension `flash_attn_2_cuda`, built from csrc/flash_attn on CUDA and from
  csrc/flash_attn_ck with composable_kernel's fmha kernels on ROCm), its Triton backend for AMD
  (flash_attn/flash_attn_triton_amd/*.py, FLASH_ATTENTION_TRITON_AMD_ENABLE) and the older flash_attn_triton.py;
  the hopper build `flash_attn_3` / `hopper/flash_attn_interface.py`.
- composable_kernel's ck_tile/host/hip_check_error.hpp: `HIP Function Failed (<file>,<line>) <hipGetErrorString>`
  thrown from the kernel launch (ck_tile/host/kernel_launch_hip.hpp) - inside flash-attention when the file is under
  its csrc (the bundled composable_kernel submodule) or an fmha kernel.
- facebookresearch/xformers: xformers/ops/fmha/*.py (ck.py: the ROCm CK backend, cutlass.py, flash.py, triton_splitk.py)
  calling torch.ops.xformers.efficient_attention_forward_ck / the `xformers/_C` extension.
"""

from __future__ import annotations

# (owner, a frame path of the library's own code)
OWNER_FRAMES = (
    ("flash-attn", r"[/\\]flash_attn(?:_3)?[/\\]|[/\\]hopper[/\\]flash_attn_interface\.py|"
                   r"[/\\]flash_attn_(?:interface|triton\w*)\.py|flash_attn_\w*cuda"),
    ("xformers", r"[/\\]xformers[/\\](?:ops[/\\]fmha|_C\b|csrc)"),
    # vLLM's own flash-attention kernels and backends (vllm/attention/ops/triton_flash_attention.py, prefix_prefill,
    # attention/backends/rocm_flash_attn.py, flash_attn.py; v1/attention/backends/...)
    ("vLLM's flash-attention backend", r"[/\\]vllm[/\\](?:v1[/\\])?attention[/\\](?:ops|backends)[/\\]"
                                       r"\w*flash_?attn\w*\.py|[/\\]vllm[/\\]\S*triton_flash_attention\.py"),
)
# c10::Error's native backtrace after the message (torch c10/util/Exception: `Exception raised from
# c10_hip_check_implementation at ...HIPException.cpp:NN (most recent call first):` then `frame #3: mha_fwd(...) + 0x1c4
# (0x7f.. in /.../flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so)`): the shared object of each frame, innermost
# first; torch's, the HIP/HSA runtime's and libc/python's own are passed over
NATIVE_FRAME = r"^(?:\[rank\d+\]:\s*)?frame #\d+: [^\n]*\(0x[0-9a-f]+ in ([^)\n]+)\)\s*$"
NATIVE_OWNERS = (
    ("flash-attn", r"[/\\]flash_attn(?:_2|_3)?(?:_cuda|_hip|_gpu)?[\w.-]*\.so|[/\\]flash_attn[/\\]\S*\.so"),
    ("xformers", r"[/\\]xformers[/\\]_C\.so|[/\\]xformers[/\\]\S*\.so"),
)
NATIVE_PASSED = (r"[/\\](?:libc10\w*|libtorch\w*|libamdhip64|libhsa-runtime64|libc|libpthread|libstdc\+\+|"
                 r"libpython[\d.]*|ld-linux[\w-]*)\.so|[/\\]python[\d.]*$|^<unknown>$")
# e-hip4: a c10 backtrace frame inside PyTorch's fused SDPA kernels (not its math path: `_scaled_dot_product_attention_math`
# is an ordinary matmul/softmax): ATen's entry points (aten/src/ATen/native/transformers/hip/attention.hip,
# attention_backward.hip: _scaled_dot_product_{flash,efficient}_attention_cuda, _flash_attention_forward/backward,
# _efficient_attention_forward/backward), the ROCm flash wrappers (hip/flash_attn/aot/mha_all_aot.hip and ck/
# namespace pytorch_flash: mha_fwd, mha_varlen_fwd, mha_bwd) and AOTriton's own library (libaotriton_v2.so, namespace
# aotriton::)
NATIVE_SDPA = (r"\b_scaled_dot_product_(?:flash|efficient|fused)_attention\w*|\b_(?:flash|efficient)_attention_"
               r"(?:forward|backward)\b|\bpytorch_flash::|\baotriton::|[/\\]libaotriton\w*\.so")
# how far after the error line the backtrace may start (the message's HIP_LAUNCH_BLOCKING lines come between)
NATIVE_WINDOW = 6000

# the statement Python printed under the innermost own frame: a call of PyTorch's fused attention (its flash /
# memory-efficient kernels: AOTriton on ROCm, built for fewer gfx targets than the rest of torch)
SDPA_CALL = r"\bscaled_dot_product_attention\s*\("
SDPA_OWNER = "PyTorch's fused SDPA"
# the library's native sources named in the error line itself (CK's HIP_CHECK_ERROR prints __FILE__)
OWNER_SOURCES = (
    # not CK's fmha sources alone: AITER and MIOpen bundle the same composable_kernel (aiter's asm_fmha_*_v3 kernels
    # failing are AITER's, hip_error)
    # e-amd8: also a flash-attn source tree named after the package, as pip/sdist unpack it (`flash_attn-2.7.4.post1/
    # csrc/composable_kernel/...`, pip's `/tmp/pip-install-*/flash-attn_<hash>/csrc/...`)
    ("flash-attn", r"flash[-_]attention[/\\](?:csrc|third_party)[/\\]|csrc[/\\]flash_attn(?:_ck)?[/\\]|"
                   r"flash_attn_ck\b|[/\\]flash[-_]attn[-_][\w.]+[/\\]csrc[/\\]"),
    # e-amd8: xformers' ROCm build compiles its fmha kernels against its own composable_kernel submodule
    # (facebookresearch/xformers@038444aa .gitmodules: third_party/composable_kernel_tiled), so CK's HIP_CHECK_ERROR
    # names a header under it (`.../xformers/third_party/composable_kernel_tiled/include/ck_tile/host/...`)
    ("xformers", r"xformers[/\\]csrc[/\\]|[/\\]third_party[/\\]composable_kernel_tiled[/\\]"),
)
# frames passed over on the way from the error to the code that launched the kernel: torch's dispatch (autograd
# Function.apply, _ops.py, nn.Module's call), Triton's launcher and JIT, Python's own machinery
PASSED_FRAMES = (r"[/\\](?:site|dist)-packages[/\\](?:torch|triton|pytorch_triton\w*|functorch)[/\\]|"
                 r"[/\\](?:torch|triton)[/\\](?:_ops|autograd|nn|utils|_library|_compile|runtime|backends|"
                 r"_dynamo|_inductor)\b|^<[\w ]+>$|[/\\](?:contextlib|functools)\.py$")

TITLE = "a GPU runtime error raised inside the attention kernels of {owner} ({error})"
CAUSE = ("the attention kernel of {owner} (not PyTorch or the ROCm libraries it calls) failed on this GPU: its "
         "kernels were not built for, or do not run on, this card/input; every other op ran")
FIX = {
    "flash-attn": ("run the model with another attention implementation (attn_implementation='sdpa' or 'eager'; "
                   "LLaMA-Factory flash_attn: sdpa; vLLM: another attention backend), or install a flash-attn "
                   "built for this GPU's gfx (ROCm/flash-attention: CK backend for MI200/MI300, "
                   "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE for the Triton backend on RDNA) and the installed torch"),
    "vLLM's flash-attention backend": (
        "use another vLLM attention backend (ROCm: VLLM_USE_TRITON_FLASH_ATTN=0 for the CK/naive path, or "
        "VLLM_ATTENTION_BACKEND=ROCM_FLASH / TRITON_ATTN_VLLM_V1 / TORCH_SDPA as your release offers), or the vLLM "
        "build whose attention kernels support this GPU"),
    "PyTorch's fused SDPA": (
        "run the attention without PyTorch's fused flash / memory-efficient SDPA kernels "
        "(torch.backends.cuda.enable_flash_sdp(False) and enable_mem_efficient_sdp(False), or "
        "attn_implementation='eager'), or install a torch build whose SDPA kernels (AOTriton on ROCm) cover this "
        "GPU's gfx"),
    "xformers": ("run without xformers' memory-efficient attention (drop --xformers, use PyTorch SDPA), or install "
                 "the xformers build made for this GPU and the installed torch (ROCm: the rocm wheel index "
                 "matching torch)"),
}
