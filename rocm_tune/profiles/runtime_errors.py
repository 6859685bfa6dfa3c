"""The GPU runtimes' and libraries' own names for a failure (e-fall, issue 26): data for explain's last reading
(rocm_tune/core/runs/diagnose/last_reading.py), read where every rule and the lexicon fallback declined.

- HIP: every `hipError_t` name and the text `hipGetErrorString` returns for it, from ROCm/clr
  hipamd/src/hip_error.cpp (ihipGetErrorName / ihipGetErrorString), plus the deprecated aliases
  include/hip/hip_runtime_api.h keeps (hipErrorMemoryAllocation, hipErrorInitializationError,
  hipErrorMapBufferObjectFailed, hipErrorInvalidResourceHandle). Any spelling: TensorFlow's stream executor prints
  `HIP_ERROR_InvalidValue`, the runtime `hipErrorInvalidValue`, torch `HIP error: invalid argument`.
- The ROCm libraries' status enums: rocBLAS `rocblas_status_*` (rocblas-types.h), hipBLAS/hipBLASLt
  `HIPBLAS_STATUS_*` (hipblas.h / hipblaslt's hipblasStatus_t), MIOpen `miopenStatus*` (miopen.h), rocSPARSE,
  hipSPARSE, rocRAND, hipRAND, hipFFT, rocFFT; HSA's `HSA_STATUS_ERROR_*` (hsa.h); RCCL's `ncclUnhandledCudaError`
  ("unhandled cuda error", nccl.h's ncclGetErrorString: a HIP call failed under RCCL).
- The amdgpu kernel driver / KFD lines (dmesg) the kernel prints when the GPU faults, hangs or resets.
- CUDA: `cudaError*` (cudaError_t, driver_types.h), the driver API's `CUDA_ERROR_*` (CUresult, cuda.h), cuBLAS/cuDNN/
  cuFFT/cuRAND/cuSPARSE/cuSOLVER status names.
A failed device allocation is a GPU out-of-memory in every spelling (FAMILIES.md: gpu_oom vs hip_error).
"""

from __future__ import annotations

# hipError_t name -> hipGetErrorString text (ROCm/clr hipamd/src/hip_error.cpp)
HIP_ERRORS: dict[str, str] = {
    "hipErrorInvalidValue": "invalid argument",
    "hipErrorOutOfMemory": "out of memory",
    "hipErrorNotInitialized": "initialization error",
    "hipErrorDeinitialized": "driver shutting down",
    "hipErrorProfilerDisabled": "profiler disabled while using external profiling tool",
    "hipErrorProfilerNotInitialized": "profiler is not initialized",
    "hipErrorProfilerAlreadyStarted": "profiler already started",
    "hipErrorProfilerAlreadyStopped": "profiler already stopped",
    "hipErrorInvalidConfiguration": "invalid configuration argument",
    "hipErrorInvalidPitchValue": "invalid pitch argument",
    "hipErrorInvalidSymbol": "invalid device symbol",
    "hipErrorInvalidDevicePointer": "invalid device pointer",
    "hipErrorInvalidMemcpyDirection": "invalid copy direction for memcpy",
    "hipErrorInsufficientDriver": "driver version is insufficient for runtime version",
    "hipErrorMissingConfiguration": "__global__ function call is not configured",
    "hipErrorPriorLaunchFailure": "unspecified launch failure in prior launch",
    "hipErrorInvalidDeviceFunction": "invalid device function",
    "hipErrorNoDevice": "no ROCm-capable device is detected",
    "hipErrorInvalidDevice": "invalid device ordinal",
    "hipErrorInvalidImage": "device kernel image is invalid",
    "hipErrorInvalidContext": "invalid device context",
    "hipErrorContextAlreadyCurrent": "context is already current context",
    "hipErrorMapFailed": "mapping of buffer object failed",
    "hipErrorUnmapFailed": "unmapping of buffer object failed",
    "hipErrorArrayIsMapped": "array is mapped",
    "hipErrorAlreadyMapped": "resource already mapped",
    "hipErrorNoBinaryForGpu": "no kernel image is available for execution on the device",
    "hipErrorAlreadyAcquired": "resource already acquired",
    "hipErrorNotMapped": "resource not mapped",
    "hipErrorNotMappedAsArray": "resource not mapped as array",
    "hipErrorNotMappedAsPointer": "resource not mapped as pointer",
    "hipErrorECCNotCorrectable": "uncorrectable ECC error encountered",
    "hipErrorUnsupportedLimit": "limit is not supported on this architecture",
    "hipErrorContextAlreadyInUse": "exclusive-thread device already in use by a different thread",
    "hipErrorPeerAccessUnsupported": "peer access is not supported between these two devices",
    "hipErrorInvalidKernelFile": "invalid kernel file",
    "hipErrorInvalidGraphicsContext": "invalid OpenGL or DirectX context",
    "hipErrorInvalidSource": "device kernel image is invalid",
    "hipErrorFileNotFound": "file not found",
    "hipErrorSharedObjectSymbolNotFound": "shared object symbol not found",
    "hipErrorSharedObjectInitFailed": "shared object initialization failed",
    "hipErrorOperatingSystem": "OS call failed or operation not supported on this OS",
    "hipErrorInvalidHandle": "invalid resource handle",
    "hipErrorIllegalState": "the operation cannot be performed in the present state",
    "hipErrorNotFound": "named symbol not found",
    "hipErrorNotReady": "device not ready",
    "hipErrorIllegalAddress": "an illegal memory access was encountered",
    "hipErrorLaunchOutOfResources": "too many resources requested for launch",
    "hipErrorLaunchTimeOut": "the launch timed out and was terminated",
    "hipErrorPeerAccessAlreadyEnabled": "peer access is already enabled",
    "hipErrorPeerAccessNotEnabled": "peer access has not been enabled",
    "hipErrorSetOnActiveProcess": "cannot set while device is active in this process",
    "hipErrorContextIsDestroyed": "context is destroyed",
    "hipErrorAssert": "device-side assert triggered",
    "hipErrorHostMemoryAlreadyRegistered": "part or all of the requested memory range is already mapped",
    "hipErrorHostMemoryNotRegistered": "pointer does not correspond to a registered memory region",
    "hipErrorLaunchFailure": "unspecified launch failure",
    "hipErrorCooperativeLaunchTooLarge": "too many blocks in cooperative launch",
    "hipErrorNotSupported": "operation not supported",
    "hipErrorStreamCaptureUnsupported": "operation not permitted when stream is capturing",
    "hipErrorStreamCaptureInvalidated": "operation failed due to a previous error during capture",
    "hipErrorStreamCaptureMerge": "operation would result in a merge of separate capture sequences",
    "hipErrorStreamCaptureUnmatched": "capture was not ended in the same stream as it began",
    "hipErrorStreamCaptureUnjoined": "capturing stream has unjoined work",
    "hipErrorStreamCaptureIsolation": "dependency created on uncaptured work in another stream",
    "hipErrorStreamCaptureImplicit": "operation would make the legacy stream depend on a capturing blocking stream",
    "hipErrorCapturedEvent": "operation not permitted on an event last recorded in a capturing stream",
    "hipErrorStreamCaptureWrongThread": "attempt to terminate a thread-local capture sequence from another thread",
    "hipErrorGraphExecUpdateFailure": "the graph update was not performed because it included changes which "
                                      "violated constraints specific to instantiated graph update",
    "hipErrorRuntimeMemory": "runtime memory call returned error",
    "hipErrorRuntimeOther": "runtime call other than memory returned error",
    "hipErrorUnknown": "unknown error",
    "hipErrorTbd": "unknown error",
    # deprecated aliases hip_runtime_api.h keeps (same values as the names above)
    "hipErrorMemoryAllocation": "out of memory",
    "hipErrorInitializationError": "initialization error",
    "hipErrorMapBufferObjectFailed": "mapping of buffer object failed",
    "hipErrorInvalidResourceHandle": "invalid resource handle",
}

# the hipError_t names of a failed device allocation (gpu_oom)
HIP_OOM = frozenset({"hipErrorOutOfMemory", "hipErrorMemoryAllocation"})

# the hipError_t statuses that are answers, not failures: AMD_LOG_LEVEL=3's per-call trace (clr HIP_ERROR_PRINT,
# `hipStreamQuery: Returned hipErrorNotReady :`) shows them all through a healthy run - a stream/event queried while
# work is in flight, peer access asked twice
HIP_ANSWERS = frozenset({"hipErrorNotReady", "hipErrorPeerAccessAlreadyEnabled", "hipErrorPeerAccessNotEnabled"})

# the hipError_t names of a device index the process cannot see (`invalid device ordinal`): the run's settings
# (HIP/CUDA_VISIBLE_DEVICES, the rank's device), FAMILIES.md config_error
HIP_SETTINGS = frozenset({"hipErrorInvalidDevice"})
CUDA_SETTINGS = r"^(?:cudaErrorInvalidDevice|CUDA_ERROR_INVALID_DEVICE)$"
# RCCL/NCCL's status for a HIP/CUDA call that failed inside the collective library (nccl.h ncclResult_t,
# ncclGetErrorString "unhandled cuda error"): FAMILIES.md nccl_rccl_timeout_hang vs hip_error
RCCL_STATUS = r"^(?:ncclUnhandledCudaError|unhandled cuda error)$"
# the attention kernels' own arch refusal (flash-attn's setup.py / ck_tile, xformers): FAMILIES.md flash_attn_error
ATTENTION_KERNELS = r"(?i)flash[_ -]?att|FA[23]?|ck_tile|xformers|aiter"

# the words a runtime/library prefixes to a hipGetErrorString text: torch's `HIP error: ` (c10/hip), its older
# ROCm builds' `CUDA error: ` (hipified c10 kept CUDA's words), hipcub/rocprim `hip error`, the runtime's
# `HIP runtime error`, TensorFlow's `HIP failure ...: `, `hipMalloc(...) failed: `; the text follows within a few words
RUNTIME_PREFIX = r"\b(?:HIP|hip|CUDA|cuda|Hip)(?:[ _]runtime)? (?:error|failure|Error)\b[^\n:]{0,40}?: ?"

# e-hip4: a program's own check that appends hipGetErrorString to its words (MIGraphX's MIGRAPHX_THROW("Failed to
# launch kernel: " + hip_error(status)), "Failed to get device properties: ", "Failed to sync event: "; samples'
# `hipMemcpy failed: <text>`; ONNX Runtime's `HIP failure 98: <text>`): the failing call's words, then the text to the
# end of the message. Only texts no other layer (strerror, a Python library) prints: not the generic ones below
FAILED_PREFIX = (r"(?:\b[Ff]ailed to \w[\w ]{0,40}?|\b\w+ failed(?: with(?: error)?)?|\bHIP failure \d+|\bfailed)"
                 r" ?: ?")
GENERIC_TEXTS = frozenset({"invalid argument", "out of memory", "initialization error", "unknown error",
                           "file not found", "operation not supported", "driver shutting down", "device not ready",
                           "array is mapped", "resource already mapped", "resource not mapped", "invalid kernel file",
                           "context is destroyed", "resource already acquired", "named symbol not found",
                           "runtime memory call returned error", "runtime call other than memory returned error"})

# the ROCm libraries' status names (enum spellings) and those that mean the device allocation failed
LIBRARY_STATUS = (r"\brocblas_status_[a-z_]+\b|\bHIPBLAS(?:LT)?_STATUS_[A-Z_]+\b|\bmiopenStatus[A-Z]\w+\b|"
                  r"\brocsparse_status_[a-z_]+\b|\bHIPSPARSE_STATUS_[A-Z_]+\b|\bROCRAND_STATUS_[A-Z_]+\b|"
                  r"\bHIPRAND_STATUS_[A-Z_]+\b|\bHIPFFT_[A-Z_]*(?:FAILED|ERROR|INVALID)[A-Z_]*\b|"
                  r"\brocfft_status_[a-z_]+\b|\bHSA_STATUS_ERROR(?:_[A-Z_]+)?\b|\bncclUnhandledCudaError\b|"
                  r"\bunhandled cuda error\b")
LIBRARY_OOM = (r"\brocblas_status_memory_error\b|\bHIPBLAS(?:LT)?_STATUS_ALLOC_FAILED\b|\bmiopenStatusAllocFailed\b|"
               r"\brocsparse_status_memory_error\b|\bHIPSPARSE_STATUS_ALLOC_FAILED\b|\bROCRAND_STATUS_ALLOCATION_FAILED\b|"
               r"\bHIPRAND_STATUS_ALLOCATION_FAILED\b|\bHIPFFT_ALLOC_FAILED\b")
# a status that is no failure (rocblas_status_success, HIPBLAS_STATUS_SUCCESS, miopenStatusSuccess, ...)
STATUS_SUCCESS = r"(?i)_?success$|status_continue$|perf_degraded$|size_(?:unchanged|increased)$"

# the amdgpu kernel driver and KFD (dmesg / journalctl -k): a GPU fault, hang, reset or a queue the driver evicted
AMDGPU_KERNEL = (r"\bamdgpu(?: [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d)?: (?:amdgpu: )?(?:\[\w+\] )?(?:\w+ )?"
                 r"(?:page fault|\w*[Pp]rotection fault|ring \w+ timeout|GPU reset|GPU recovery|"
                 r"failed to|Failed to|MES failed|\w+ hang|IB test failed)|\[drm:amdgpu_\w+[^\]]*\] \*ERROR\*|"
                 r"\bamdgpu_job_timedout\b|\bVM_L2_PROTECTION_FAULT_STATUS\b|\bkfd kfd: amdgpu: \S.*(?:fail|error|evict)|"
                 r"\bamdgpu: (?:HW exception|GPU reset)")

# CUDA's names (cudaError_t, CUresult, the CUDA libraries' statuses) and those that mean the allocation failed
CUDA_NAMES = (r"\bcudaError(?!_t\b)[A-Z]\w+\b|\bCUDA_ERROR_[A-Z_]+\b|\bCUBLAS_STATUS_[A-Z_]+\b|"
              r"\bCUDNN_STATUS_[A-Z_]+\b|\bCUFFT_[A-Z_]*(?:FAILED|ERROR|INVALID)[A-Z_]*\b|\bCURAND_STATUS_[A-Z_]+\b|"
              r"\bCUSPARSE_STATUS_[A-Z_]+\b|\bCUSOLVER_STATUS_[A-Z_]+\b")
CUDA_OOM = (r"\bcudaErrorMemoryAllocation\b|\bCUDA_ERROR_OUT_OF_MEMORY\b|\bCUBLAS_STATUS_ALLOC_FAILED\b|"
            r"\bCUDNN_STATUS_ALLOC_FAILED\b|\bCUFFT_ALLOC_FAILED\b|\bCURAND_STATUS_ALLOCATION_FAILED\b|"
            r"\bCUSPARSE_STATUS_ALLOC_FAILED\b|\bCUSOLVER_STATUS_ALLOC_FAILED\b")
# a card refused by its architecture in a message (`... is not supported on gfx942`, `unsupported arch gfx1103`):
# FAMILIES.md hip_error's "architecture not supported" (version_check only with the build's list, arch clause)
ARCH_REFUSED = (r"(?i)(?:not supported|unsupported|not (?:yet )?implemented|no kernels?|not available)\b[^\n]{0,40}?"
                r"\bgfx\d{3,4}[a-f]?\b|\bgfx\d{3,4}[a-f]?\b[^\n]{0,30}?\b(?:is )?(?:not supported|unsupported)\b")

# e-fall: the builtin types whose missing attribute (`'list' object has no attribute 'to'`) is a value of the wrong
# kind, not another release's API
PLAIN_VALUES = frozenset({"NoneType", "list", "dict", "str", "tuple", "int", "float", "bool", "set", "frozenset",
                          "bytes", "bytearray", "function", "method", "builtin_function_or_method", "generator",
                          "coroutine", "type", "object", "range", "slice", "complex", "NotImplementedType", "ellipsis"})
