"""AMD's own error messages, as the ROCm sources print them (issue 26, helper e-amd).

A ROCm failure reaches a log through several layers, each with its own spelling of the same status: the HIP
runtime's name and text (`hipGetErrorName` / `hipGetErrorString`), printed by torch (`HIP error: <text>`), by
ggml/llama.cpp (`ROCm error: <text>`, GGML_CUDA_NAME is "ROCm" on HIP builds), by the HIP samples' / hip-tests'
HIPCHECK macro (`error: '<text>'(<number>) at <file>:<line>`), by RCCL's CUDACHECK (`NCCL WARN Cuda failure
'<text>'`; NCCL >= 2.19 spelling `Cuda failure <number> '<text>'`), by rccl-tests' HIPCHECK (`Test HIP failure
<file>:<line> '<name or text>'`). explain answers by what the status means (benchmarks/corpus/FAMILIES.md): a failed
device allocation is gpu_oom; a status that only answers a query is no failure; every other runtime status is the
ROCm runtime / driver / GPU failing (hip_error) - inside RCCL too, except the statuses of a peer/IPC transport the
collective library chose (peer access unsupported, an IPC handle or argument refused), which stay the collective's
(nccl_rccl_timeout_hang: the fix is a transport/env setting, NCCL_P2P_DISABLE / iommu).

Sources (the release each table was read from):
- HIP: ROCm/clr hipamd/src/hip_error.cpp (ihipGetErrorName / ihipGetErrorString, clr f9f995c, ROCm 6.3 line) and
  the numbers of ROCm/HIP include/hip/hip_runtime_api.h (hipError_t, HIP c5e11fc, ROCm 6.3 line)
- ROCR: ROCm/ROCR-Runtime runtime/hsa-runtime/core/runtime/hsa.cpp hsa_status_string (c7785a6, ROCm 6.3 line)
- RCCL: ROCm/rccl src/init.cc ncclGetErrorString, src/include/checks.h CUDACHECK, src/include/alloc.h
  (0cbce2a, ROCm 6.3 line)
- MIOpen: ROCm/MIOpen include/miopen/miopen.h miopenStatus_t, src/handle_api.cpp miopenGetErrorString,
  src/include/miopen/sqlite_db.hpp (2d1fd99, ROCm 6.3 line)
- AMD SMI: ROCm/amdsmi py-interface amdsmi_exception.py (AmdSmiLibraryException.__str__ in its two spellings)
"""

from __future__ import annotations

# hipError_t: (name, number, hipGetErrorString text). Aliases (hipErrorMemoryAllocation = 2,
# hipErrorInitializationError = 3, hipErrorMapBufferObjectFailed = 205, hipErrorInvalidResourceHandle = 400) print
# the text of the value they alias.
HIP_ERRORS: tuple[tuple[str, int, str], ...] = (
    ("hipSuccess", 0, "no error"),
    ("hipErrorInvalidValue", 1, "invalid argument"),
    ("hipErrorOutOfMemory", 2, "out of memory"),
    ("hipErrorNotInitialized", 3, "initialization error"),
    ("hipErrorDeinitialized", 4, "driver shutting down"),
    ("hipErrorProfilerDisabled", 5, "profiler disabled while using external profiling tool"),
    ("hipErrorProfilerNotInitialized", 6, "profiler is not initialized"),
    ("hipErrorProfilerAlreadyStarted", 7, "profiler already started"),
    ("hipErrorProfilerAlreadyStopped", 8, "profiler already stopped"),
    ("hipErrorInvalidConfiguration", 9, "invalid configuration argument"),
    ("hipErrorInvalidPitchValue", 12, "invalid pitch argument"),
    ("hipErrorInvalidSymbol", 13, "invalid device symbol"),
    ("hipErrorInvalidDevicePointer", 17, "invalid device pointer"),
    ("hipErrorInvalidMemcpyDirection", 21, "invalid copy direction for memcpy"),
    ("hipErrorInsufficientDriver", 35, "driver version is insufficient for runtime version"),
    ("hipErrorMissingConfiguration", 52, "__global__ function call is not configured"),
    ("hipErrorPriorLaunchFailure", 53, "unspecified launch failure in prior launch"),
    ("hipErrorInvalidDeviceFunction", 98, "invalid device function"),
    ("hipErrorNoDevice", 100, "no ROCm-capable device is detected"),
    ("hipErrorInvalidDevice", 101, "invalid device ordinal"),
    ("hipErrorInvalidImage", 200, "device kernel image is invalid"),
    ("hipErrorInvalidContext", 201, "invalid device context"),
    ("hipErrorContextAlreadyCurrent", 202, "context is already current context"),
    ("hipErrorMapFailed", 205, "mapping of buffer object failed"),
    ("hipErrorUnmapFailed", 206, "unmapping of buffer object failed"),
    ("hipErrorArrayIsMapped", 207, "array is mapped"),
    ("hipErrorAlreadyMapped", 208, "resource already mapped"),
    ("hipErrorNoBinaryForGpu", 209, "no kernel image is available for execution on the device"),
    ("hipErrorAlreadyAcquired", 210, "resource already acquired"),
    ("hipErrorNotMapped", 211, "resource not mapped"),
    ("hipErrorNotMappedAsArray", 212, "resource not mapped as array"),
    ("hipErrorNotMappedAsPointer", 213, "resource not mapped as pointer"),
    ("hipErrorECCNotCorrectable", 214, "uncorrectable ECC error encountered"),
    ("hipErrorUnsupportedLimit", 215, "limit is not supported on this architecture"),
    ("hipErrorContextAlreadyInUse", 216, "exclusive-thread device already in use by a different thread"),
    ("hipErrorPeerAccessUnsupported", 217, "peer access is not supported between these two devices"),
    ("hipErrorInvalidKernelFile", 218, "invalid kernel file"),
    ("hipErrorInvalidGraphicsContext", 219, "invalid OpenGL or DirectX context"),
    ("hipErrorInvalidSource", 300, "device kernel image is invalid"),
    ("hipErrorFileNotFound", 301, "file not found"),
    ("hipErrorSharedObjectSymbolNotFound", 302, "shared object symbol not found"),
    ("hipErrorSharedObjectInitFailed", 303, "shared object initialization failed"),
    ("hipErrorOperatingSystem", 304, "OS call failed or operation not supported on this OS"),
    ("hipErrorInvalidHandle", 400, "invalid resource handle"),
    ("hipErrorIllegalState", 401, "the operation cannot be performed in the present state"),
    ("hipErrorNotFound", 500, "named symbol not found"),
    ("hipErrorNotReady", 600, "device not ready"),
    ("hipErrorIllegalAddress", 700, "an illegal memory access was encountered"),
    ("hipErrorLaunchOutOfResources", 701, "too many resources requested for launch"),
    ("hipErrorLaunchTimeOut", 702, "the launch timed out and was terminated"),
    ("hipErrorPeerAccessAlreadyEnabled", 704, "peer access is already enabled"),
    ("hipErrorPeerAccessNotEnabled", 705, "peer access has not been enabled"),
    ("hipErrorSetOnActiveProcess", 708, "cannot set while device is active in this process"),
    ("hipErrorContextIsDestroyed", 709, "context is destroyed"),
    ("hipErrorAssert", 710, "device-side assert triggered"),
    ("hipErrorHostMemoryAlreadyRegistered", 712, "part or all of the requested memory range is already mapped"),
    ("hipErrorHostMemoryNotRegistered", 713, "pointer does not correspond to a registered memory region"),
    ("hipErrorLaunchFailure", 719, "unspecified launch failure"),
    ("hipErrorCooperativeLaunchTooLarge", 720, "too many blocks in cooperative launch"),
    ("hipErrorNotSupported", 801, "operation not supported"),
    ("hipErrorStreamCaptureUnsupported", 900, "operation not permitted when stream is capturing"),
    ("hipErrorStreamCaptureInvalidated", 901, "operation failed due to a previous error during capture"),
    ("hipErrorStreamCaptureMerge", 902, "operation would result in a merge of separate capture sequences"),
    ("hipErrorStreamCaptureUnmatched", 903, "capture was not ended in the same stream as it began"),
    ("hipErrorStreamCaptureUnjoined", 904, "capturing stream has unjoined work"),
    ("hipErrorStreamCaptureIsolation", 905, "dependency created on uncaptured work in another stream"),
    ("hipErrorStreamCaptureImplicit", 906,
     "operation would make the legacy stream depend on a capturing blocking stream"),
    ("hipErrorCapturedEvent", 907, "operation not permitted on an event last recorded in a capturing stream"),
    ("hipErrorStreamCaptureWrongThread", 908,
     "attempt to terminate a thread-local capture sequence from another thread"),
    ("hipErrorUnknown", 999, "unknown error"),
    ("hipErrorRuntimeMemory", 1052, "runtime memory call returned error"),
    ("hipErrorRuntimeOther", 1053, "runtime call other than memory returned error"),
)

# statuses that answer a query (a stream/event still busy, peer access asked twice): never a failure
HIP_ANSWERS: frozenset[str] = frozenset({"hipSuccess", "hipErrorNotReady", "hipErrorPeerAccessAlreadyEnabled",
                                         "hipErrorPeerAccessNotEnabled"})
# a device allocation that failed: gpu_oom
HIP_ALLOC: frozenset[str] = frozenset({"hipErrorOutOfMemory"})
# decided elsewhere: a GPU index the process asked for (invalid-device-ordinal's reading of the index), a device-side
# assert (its reading of the data/tokens: FAMILIES.md "symptom vs cause")
HIP_READ_ELSEWHERE: frozenset[str] = frozenset({"hipErrorInvalidDevice", "hipErrorAssert"})
# raised by RCCL's peer/IPC transport setup (p2p.cc: hipDeviceCanAccessPeer / hipIpcGetMemHandle /
# hipIpcOpenMemHandle): the collective's transport choice, fixed by a transport setting (NCCL_P2P_DISABLE, iommu=pt)
HIP_TRANSPORT: frozenset[str] = frozenset({"hipErrorPeerAccessUnsupported", "hipErrorInvalidValue",
                                           "hipErrorInvalidHandle", "hipErrorMapFailed", "hipErrorNotSupported"})


def hip_texts(*, alloc: bool = False, transport: bool = True) -> tuple[str, ...]:
    """hipGetErrorString texts of the failures (`alloc`: only the allocation failures; `transport`: with the
    statuses RCCL's peer/IPC transport raises), longest first, each once."""
    out = []
    for name, _num, text in HIP_ERRORS:
        if name in HIP_ANSWERS or name in HIP_READ_ELSEWHERE or (name in HIP_ALLOC) != alloc:
            continue
        if not transport and name in HIP_TRANSPORT:
            continue
        out.append(text)
    return tuple(sorted(set(out), key=len, reverse=True))


def hip_names(*, alloc: bool = False, transport: bool = True) -> tuple[str, ...]:
    """hipGetErrorName names, chosen as `hip_texts` chooses texts."""
    return tuple(n for n, _num, _t in HIP_ERRORS
                 if n not in HIP_ANSWERS and n not in HIP_READ_ELSEWHERE and (n in HIP_ALLOC) == alloc
                 and (transport or n not in HIP_TRANSPORT))


# RCCL src/include/alloc.h: its device allocations that returned nothing (gpu_oom); `Failed to CUDA host alloc` and
# `Failed to malloc` are host memory and stay with the host-memory signatures
RCCL_DEVICE_ALLOC_WARNS: tuple[str, ...] = ("Failed to CUDA malloc", "Failed to CUDA calloc async",
                                            "Failed to CUDA calloc")

# e-hip4: RCCL alloc.h's ncclCudaHostCalloc: CUDACHECKGOTO(hipHostMalloc(...)) prints `NCCL WARN Cuda failure 'out of
# memory'` (NCCL >= 2.19: `Cuda failure 2 'out of memory'`, RCCL builds may say Hip/HIP), then `Failed to CUDA host
# alloc N bytes` on the next lines: pinned HOST memory (host_ram_oom), not the GPU's
RCCL_FAILURE_OOM = r"NCCL WARN .{0,80}(?:Cuda|Hip|HIP) failure (?:\d+ )?'?out of memory"
RCCL_HOST_ALLOC_WARN = r"NCCL WARN Failed to (?:CUDA|HIP|Cuda|Hip) host alloc \d+ bytes"

# RCCL src/init.cc ncclGetErrorString (ncclResult_t -> text): the ones a torch DistBackendError / rccl-tests print
RCCL_RESULT_TEXTS: dict[str, str] = {
    "ncclUnhandledCudaError": "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
    "ncclSystemError": "unhandled system error (run with NCCL_DEBUG=INFO for details)",
    "ncclInternalError": "internal error - please report this issue to the NCCL developers",
    "ncclInvalidArgument": "invalid argument (run with NCCL_DEBUG=WARN for details)",
    "ncclInvalidUsage": "invalid usage (run with NCCL_DEBUG=WARN for details)",
    "ncclRemoteError": "remote process exited or there was a network error",
    "ncclInProgress": "NCCL operation in progress",
}

# MIOpen include/miopen/miopen.h miopenStatus_t (value -> name, as miopenGetErrorString prints it)
MIOPEN_STATUS: dict[int, str] = {
    0: "miopenStatusSuccess", 1: "miopenStatusNotInitialized", 2: "miopenStatusInvalidValue",
    3: "miopenStatusBadParm", 4: "miopenStatusAllocFailed", 5: "miopenStatusInternalError",
    6: "miopenStatusNotImplemented", 7: "miopenStatusUnknownError", 8: "miopenStatusUnsupportedOp",
    9: "miopenStatusGpuOperationsSkipped", 10: "miopenStatusVersionMismatch",
}

# AMD SMI amdsmi_status_t names whose failure is the device node this process may not open (hf_cache_permission,
# FAMILIES.md amended rule 2): NO_PERM "Permission Denied", FILE_ERROR "Problem accessing a file" / "Error opening file"
AMDSMI_ACCESS_STATUSES: tuple[str, ...] = ("NO_PERM", "FILE_ERROR")

# ROCm/clr's AMD_LOG_LEVEL>=1 error log for a device allocation that failed (gpu_oom): hipamd/src/hip_memory.cpp /
# hip_mempool_impl.cpp / hip_vm.cpp ("Allocation failed : Device memory : required :%zu | free :%zu | total :%zu"),
# rocclr/platform/memory.cpp and command.cpp ("Can't allocate memory size - 0x%08X bytes!"), rocclr/device/rocm/
# rocdevice.cpp createMemory ("Couldn't allocate memory on device!"). Not "Allocation failed : Pinned Memory" (host
# pinned memory) nor "Memory allocation has failed!" (a host `new` of a program object)
CLR_DEVICE_ALLOC_LOGS: tuple[str, ...] = ("Allocation failed : Device memory", "Can't allocate memory size - 0x",
                                          "Couldn't allocate memory on device!",
                                          # e-amd8: rocdevice.cpp deviceLocalAlloc, hsa_amd_memory_pool_allocate of
                                          # the GPU's own pool failed (clr@f9f995c6d0aecec28debd3db0f41df0c15ec003d)
                                          "Fail allocation local memory")
# e-amd8 (issue 26): the same logs for HOST memory the runtime could not get (host_ram_oom), clr@f9f995c6d0aecec2:
# hipamd/src/hip_memory.cpp ihipMalloc with a host-device flag (hipHostMalloc / hipMallocManaged on the host)
# `Allocation failed : Pinned Memory, size :%zu`; rocclr/device/rocm/rocdevice.cpp hostAlloc / hostAgentAlloc
# (hsa_amd_memory_pool_allocate of the system pool) `Fail allocation host memory with err %d`; rocclr/platform/
# memory.cpp `Cannot allocate Host Memory` (with or without ` Buffer`). Page-locked RAM: the host's RAM or its
# locked-memory limit (ulimit -l) ran out, not the GPU's
CLR_HOST_ALLOC_LOGS: tuple[str, ...] = ("Allocation failed : Pinned Memory", "Fail allocation host memory with err",
                                        "Cannot allocate Host Memory")

# ROCR-Runtime libhsakmt (the KFD thunk; printed with HSAKMT_DEBUG_LEVEL>=3): memory.c hsaKmtAllocMemory's VRAM
# allocation that failed ("[%s] failed to allocate %lu bytes from device": gpu_oom); topology.c refusing a GPU it has
# no table entry for ("device ID 0x%x is not supported in libhsakmt": hip_error, an unsupported GPU)
HSAKMT_DEVICE_ALLOC = r"\[\w+\] failed to allocate \d+ bytes from device"
HSAKMT_UNSUPPORTED_GPU = r"device ID 0x[0-9a-fA-F]+ is not supported in libhsakmt"
# ROCm/clr rocclr/device/rocm/rocvirtual.cpp: a kernel that needs hostcall (device printf/malloc/assert) on a
# platform without PCIe atomics (a GPU behind a switch/riser, an old CPU): the launch fails (hip_error)
CLR_PLATFORM_LAUNCH_FAILURES: tuple[str, ...] = ("Pcie atomics not enabled, hostcall not supported",
                                                 "Kernel expects a hostcall buffer, but none found")

# a GPU queue the runtime could not create (hip_error: the KFD's queue/doorbell limit, a driver that does not match):
# ROCR-Runtime amd_aql_queue.cpp ("Queue create failed at hsaKmtCreateQueue"), amd_gpu_agent.cpp ("Internal queue
# creation failed."), clr rocdevice.cpp acquireQueue ("Device::acquireQueue: hsa_queue_create failed!")
QUEUE_CREATE_FAILURES: tuple[str, ...] = ("Queue create failed at hsaKmtCreateQueue", "Internal queue creation failed",
                                          "hsa_queue_create failed")

# e-amd8 (issue 26): the kernel's TTM memory manager (drivers/gpu/drm/ttm/ttm_bo.c ttm_bo_evict, pr_fmt "[TTM] ";
# ROCm/ROCK-Kernel-Driver@a2a237689490080f765533ad0dba3491b231b96d): a buffer object could not be moved out of VRAM
# because no memory domain it may go to (GTT / system) had room: `Failed to find memory space for buffer 0x%p
# eviction` (then ttm_bo_mem_space_debug's `No space for ...` / `placement[%d]=...`), or the move itself failed
# (`Buffer eviction failed`). The GPU's memory domains are exhausted (gpu_oom); on APUs both the VRAM carve-out and
# the GTT share of system RAM are full
TTM_EVICTION_FAILURES = (r"(?:\[TTM\] )?Failed to find memory space for buffer (?:0x)?[0-9a-fA-F]+ eviction",
                         r"\[TTM\] Buffer eviction failed")
# the kernel's page allocator refusing the pages of a GPU buffer: mm/page_alloc.c warn_alloc prints `<comm>: page
# allocation failure: order:%u, mode:...` and the allocating call trace, whose frame under __alloc_pages is TTM's
# ttm_pool_alloc_page (drivers/gpu/drm/ttm/ttm_pool.c, ROCm/ROCK-Kernel-Driver@7e154696356cd6db21b4bd7b338a194b9b0c7eb2:
# ttm_pool_alloc -> ttm_pool_alloc_page -> alloc_pages; order 0 is the only order it lets warn, so the trace means
# not even single pages were left for the buffer). The GPU buffer's backing (GTT; all of an APU's GPU memory) could
# not be allocated: a failed device allocation (gpu_oom). The frame as `dump_stack` prints it: `name+0xoff/0xlen [ttm]`
TTM_POOL_ALLOC_FRAME = r"\bttm_pool_alloc_page\+0x[0-9a-f]+/0x[0-9a-f]+ \[ttm\]"

# e-amd8 (issue 26): the KFD (the kernel driver's compute side) refusing a GPU whose PCIe path lacks atomics, so ROCm
# has no device to run on: drivers/gpu/drm/amd/amdkfd/kfd_device.c (ROCm/ROCK-Kernel-Driver@a77e7ba6b89742d92fd440fc
# 1e159f21dce0ea07, kgd2kfd_device_init: `skipped device %x:%x, PCI rejects atomics %d<%d`; older kernels without
# the numbers). hip_error: the platform (slot, riser, CPU), not the program
KFD_PCIE_ATOMICS_REFUSED = r"skipped device [0-9a-fA-F]{4}:[0-9a-fA-F]{4}, PCI rejects atomics"
# the KFD's hardware scheduler not answering a queue preemption (a hung GPU queue; a GPU reset follows):
# drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c (ROCm/ROCK-Kernel-Driver@babafe7b2a5c3c134745c1b8bb9899ebd5
# 6b9e8d: amdkfd_fence_wait_timeout `qcm fence wait loop timeout expired`, unmap_queues_cpsch / execute_queues_cpsch
# `The cp might be in an unrecoverable state due to an unsuccessful queues preemption`)
KFD_PREEMPTION_HANGS: tuple[str, ...] = ("qcm fence wait loop timeout expired",
                                         "might be in an unrecoverable state due to an unsuccessful queues preemption")

# e-amd8 (issue 26): the HSA runtime writing a GPU core dump, which it does only from its VM-fault handler
# (runtime.cpp, after `Memory access fault by GPU node-...`) and its queue-error handler (amd_aql_queue.cpp: invalid
# packet / ISA / dispatch, aperture violation, preemption, RAS, fatal halt): ROCm/ROCR-Runtime@c7785a6da1c10c25bc8d52
# 7c00b1fe79bfbd84c9 runtime/hsa-runtime/libamdhsacode/amd_core_dump.cpp (`GPU core dump created: %s`, file prefix
# `gpucore`; `Core limit file reached. GPU core dump created: %s`) and the handlers' `GPU core dump failed` / `GPU core
# dump skipped because PC Sampling active`. A kernel faulted on the GPU (hip_error), also where a log kept only this line
GPU_CORE_DUMP = r"\bGPU core dump (?:created: \S*gpucore|failed\b|skipped because PC Sampling active)"
