"""PaddlePaddle's own error spellings and Hygon DCU/DTK stack markers (e-new17, issue 26): data, no logic.

Sources (PaddlePaddle/Paddle):
- paddle/phi/core/enforce.h: a failed HIP call is reported as ` Hip error(<hipError_t>), <hipGetErrorString>.`
  (build_rocm_error_msg), a CUDA one as ` CUDA error(<n>), <text>. [Hint: '<cudaError name>'. ...]`; both raised as
  ExternalError: the C++ summary prints `ExternalError:  Hip error(1), invalid argument. (at file.cc:line)`, Python
  `OSError: (External) Hip error(...)`, other ranks prefix it, `[operator < name > error]` follows.
- paddle/phi/core/errors.h / error_codes.proto: the other types, printed `<Type>Error: ...` in the summary and
  `(<Type>) ...` in Python: (InvalidArgument), (NotFound), (OutOfRange), (AlreadyExists), (ResourceExhausted),
  (PreconditionNotMet), (PermissionDenied), (ExecutionTimeout), (Unimplemented), (Unavailable), (Fatal), (External).
- paddle/phi/core/memory/allocation (allocator_facade / retry / auto_growth): a device allocation that failed is
  `ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 1.2GB memory on GPU 0, ...` (Python:
  `MemoryError: (ResourceExhausted) Out of memory error on GPU ...`); `DCU`/`XPU`/`NPU`/`Place(gpu:0)` on other builds.
- paddle/fluid/platform/init.cc (InitDevices): `Compiled with WITH_GPU, but no GPU found in runtime.` (a GPU/HIP build
  whose device query threw: the runtime has no device); python/paddle/base/framework.py (fluid/framework.py before
  2.5): `You are using GPU version Paddle, but your CUDA device is not set properly. CPU device will be used by
  default.`; python/paddle/utils/install_check.py (run_check): `You are using GPU version PaddlePaddle, but there is
  no GPU detected on your machine. Maybe CUDA devices is not set properly.`
Hygon's DCU stack (DTK, the "DCU Toolkit"; its tools and names as their docs and users print them): `DTK: 22.04.2`,
`dtk-23.10`, /opt/dtk, hy-smi, `DCU: Hygon Z100`, K100/K100_AI/Z100L/BW1000 cards; its framework builds are their
own wheels (paddlepaddle-dcu, torch `+das`/`+dtk` local versions from the SourceFind/hygon site); PaddlePaddle's
`paddlepaddle-rocm` wheels (paddlepaddle.org.cn/whl/rocm) and PyTorch's `+rocmX.Y` wheels are built for AMD's ROCm.
"""
from __future__ import annotations

# enforce.h's HIP status line (the space, the comma and the closing dot as printed; DTK's hipGetErrorString spells
# some texts its own way, e.g. `invalid arguement`): the number decides the family
PADDLE_HIP_ERROR = r"\bHip error\((?P<n>\d+)\),"
# hipError_t numbers read elsewhere: out of memory (2, 1002 before ROCm 5), no device (100), device ordinal (101),
# invalid device function (98), no binary for the GPU (209)
HIP_ALLOC_NUMBERS = ("2", "1002")
HIP_NO_KERNEL_NUMBERS = ("98", "209")
HIP_DEVICE_NUMBERS = ("100", "101")

# a device allocation Paddle's allocator could not serve (ResourceExhausted), on any device type it names
PADDLE_DEVICE_OOM = (r"(?:\(ResourceExhausted\)|ResourceExhaustedError:)\s*Out of memory error on "
                     r"(?:GPU|DCU|XPU|NPU|MLU|IPU|Place\(\w+:\d+\)|\w+ device)")

# a GPU/HIP build of Paddle that found no device at start (init.cc, framework.py, install_check.py)
PADDLE_NO_DEVICE = (
    r"Compiled with WITH_(?:GPU|ROCM|HIP), but no (?:GPU|DCU) found in runtime",
    r"You are using GPU version Paddle, but your CUDA device is not set properly",
    r"You are using GPU version PaddlePaddle, but there is no GPU detected on your machine",
)

# paddle/phi/backends/dynload/*.cc: `Cannot load <name> shared library. Cannot invoke method <fn>.` by library
CUDA_DYNLOAD = r"(?:cudnn|cublas(?:Lt)?|cusolver|cusparse|cufft|curand|cupti|nvrtc|cuda|nccl|nvjpeg|cutlass|flashattn)"
ROCM_DYNLOAD = r"(?:miopen|rocblas|hipblas(?:Lt)?|hipsparse|hipfft|rocfft|hiprand|rocrand|hiprtc|rccl|roctx|rocsparse)"

# the log shows Hygon's DCU/DTK stack
DTK_STACK = (r"\bDTK\s*[:：=]?\s*v?\d{2}\.\d{2}|\bdtk[-_]?\d{2}\.\d{2}|/opt/dtk\b|\bhy-smi\b|"
             r"\bDCU\s*[:：]\s*\S|\bHygon (?:Z100L?|K100(?:_AI)?|BW1000|DCU)\b|\bHygon\b.{0,20}\bDCU\b")
# a framework wheel built for AMD's ROCm (not for DTK): its package name, index or local version
ROCM_BUILD = (r"\bpaddlepaddle[-_]rocm\b|paddlepaddle\.org\.cn/whl/rocm\b|\btorch(?:==|-|\s+)\d+\.\d+[\w.]*\+rocm\d+\.\d|"
              r"download\.pytorch\.org/whl/(?:nightly/)?rocm\d")
# a framework wheel built for DTK (Hygon's own builds)
DTK_BUILD = r"\bpaddlepaddle[-_]dcu\b|\+(?:das|dtk)[\w.]*\d"
# the DTK release (YY.MM) a DTK build was made for (`+dtk2310`, `+das1.0.git7d4c5b.abi0.dtk2404`, `-dtk24.04`) and the
# one the box has (`DTK: 23.10.1`, `DTK：22.04.2`, /opt/dtk-24.04.1, `dtk-23.10`)
DTK_BUILD_RELEASE = r"[+.]dtk(?P<maj>\d{2})\.?(?P<min>\d{2})\b"
DTK_SYSTEM_RELEASE = r"\bDTK\s*[:：=]?\s*v?(?P<maj>\d{2})\.(?P<min>\d{2})\b|/opt/dtk-(?P<maj2>\d{2})\.(?P<min2>\d{2})\b"
