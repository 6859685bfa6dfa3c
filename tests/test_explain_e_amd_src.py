"""`explain` on AMD's own error messages, written from the ROCm sources (issue 26, helper e-amd, second pass).

The logs below are built from the format strings of the code that prints them (named next to each), with the noise
of a real run around them and other ranks' consequences after them - none is a corpus case. The tables they are
generated from are rocm_tune/profiles/amd_errors.py (ROCm/clr hip_error.cpp, ROCm/HIP hip_runtime_api.h, ROCm/rccl,
ROCm/MIOpen, amdsmi); every status of a table is tried, so a text the engine does not know fails here by name.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import explain_text
from rocm_tune.profiles import amd_errors as amd
from rocm_tune.profiles import blas_status

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "{'loss': 2.1187, 'grad_norm': 1.612, 'learning_rate': 1.98e-05, 'epoch': 0.02}\n"
         "  5%|5         | 12/240 [00:31<09:52,  2.60s/it]\n")
TB = "Traceback (most recent call last):\n  File \"/work/train.py\", line 12, in <module>\n    trainer.train()\n"
# what the other ranks print after one rank's RCCL failure (torch ProcessGroupNCCL, RCCL's INFO unwinding)
OTHER_RANKS = ("node1:4121:4188 [1] NCCL INFO init.cc:1500 -> 1\n"
               "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
               "ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version "
               "2.20.5\n[rank1]: ncclUnhandledCudaError: Call to CUDA function failed.\n"
               "E0110 10:00:05.000000 4000 torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: 1) "
               "local_rank: 1 (pid: 4121) of binary: /usr/bin/python3\n")


def _answer(text: str) -> tuple[str, str | None]:
    exp = explain_text(text)
    if exp.root is None:
        return "unknown", None
    d = exp.diagnoses[exp.root]
    return d.family, d.code


_FAILURES = [(n, num, t) for n, num, t in amd.HIP_ERRORS
             if n not in amd.HIP_ANSWERS and n not in amd.HIP_READ_ELSEWHERE]


def _family(name: str) -> str:
    return "gpu_oom" if name in amd.HIP_ALLOC else "hip_error"


# ggml/llama.cpp (ggml-cuda/common.cuh ggml_cuda_error with GGML_CUDA_NAME "ROCm"): three lines, then the abort
@pytest.mark.parametrize("name,num,text", _FAILURES, ids=[n for n, _, _ in _FAILURES])
def test_ggml_rocm_error_text_is_read_by_its_status(name, num, text):
    log = (NOISE + "ggml_cuda_compute_forward: MUL_MAT failed\n" + f"ROCm error: {text}\n"
           "  current device: 0, in function ggml_cuda_compute_forward at /app/ggml/src/ggml-cuda/ggml-cuda.cu:2313\n"
           "  err\n/app/ggml/src/ggml-cuda/ggml-cuda.cu:73: ROCm error\n")
    assert _answer(log)[0] == _family(name)


# the HIP samples' / hip-tests' HIPCHECK: printf("%serror: '%s'(%d) from %s at %s:%d%s\n", ...)
@pytest.mark.parametrize("name,num,text", _FAILURES, ids=[n for n, _, _ in _FAILURES])
def test_hipcheck_text_and_number_is_read_by_its_status(name, num, text):
    log = (f"info: running on device 0 AMD Radeon PRO W7900\nerror: '{text}'({num}) from hipLaunchKernelGGL at "
           f"/src/kernels/gemm.cpp:214\n")
    assert _answer(log)[0] == _family(name)


# RCCL src/include/checks.h CUDACHECK (WARN "Cuda failure '%s'"; NCCL >= 2.19 "Cuda failure %d '%s'"): a runtime /
# driver / GPU failure inside RCCL is the runtime's; the peer/IPC transport's refusals stay the collective's
@pytest.mark.parametrize("text,family", [
    ("invalid device function", "hip_error"),
    ("an illegal memory access was encountered", "hip_error"),
    ("unspecified launch failure", "hip_error"),
    ("initialization error", "hip_error"),
    ("no kernel image is available for execution on the device", "hip_error"),
    ("uncorrectable ECC error encountered", "hip_error"),
    ("peer access is not supported between these two devices", "nccl_rccl_timeout_hang"),
    ("invalid resource handle", "nccl_rccl_timeout_hang"),
    ("invalid argument", "nccl_rccl_timeout_hang"),
])
@pytest.mark.parametrize("numbered", [False, True])
def test_rccl_cudacheck_by_what_the_status_means(text, family, numbered):
    num = {t: n for _name, n, t in amd.HIP_ERRORS}[text]
    status = f"{num} '{text}'" if numbered else f"'{text}'"
    log = (NOISE + "node1:4120:4120 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
           "node1:4120:4187 [0] NCCL INFO Channel 00/0 : 0[3000] -> 1[83000] via P2P/IPC\n"
           f"node1:4120:4187 [0] /longer_pathname/rccl/src/transport/p2p.cc:193 NCCL WARN Cuda failure {status}\n"
           + OTHER_RANKS)
    assert _answer(log)[0] == family


@pytest.mark.parametrize("line,family", [
    # NCCL >= 2.19 numbered spelling of the allocation failure
    ("node1:4120:4187 [0] include/alloc.h:125 NCCL WARN Cuda failure 2 'out of memory'", "gpu_oom"),
    # RCCL src/include/alloc.h device allocations that returned nothing
    ("node1:4120:4187 [0] include/alloc.h:210 NCCL WARN Failed to CUDA calloc 2097152 bytes", "gpu_oom"),
    ("node1:4120:4187 [0] include/alloc.h:181 NCCL WARN Failed to CUDA malloc 67108864 bytes", "gpu_oom"),
    ("node1:4120:4187 [0] include/alloc.h:232 NCCL WARN Failed to CUDA calloc async 4096 bytes", "gpu_oom"),
    # RCCL src/misc/rocmwrap.cc: its loader of the ROCr runtime - the runtime, not a transport
    ("node1:4120:4120 [0] misc/rocmwrap.cc:56 NCCL WARN Failed to find ROCm runtime library in libhsa-runtime64.so "
     "(RCCL_ROCR_PATH=libhsa-runtime64.so)", "hip_error"),
    ("node1:4120:4120 [0] misc/rocmwrap.cc:66 NCCL WARN Failed to load ROCr missing symbol hsa_init", "hip_error"),
])
def test_rccl_warn_lines(line, family):
    assert _answer(NOISE + line + "\n" + OTHER_RANKS)[0] == family


def test_rccl_host_allocation_is_not_the_gpu():
    # alloc.h ncclCudaHostCalloc: pinned host memory, not the GPU's
    log = NOISE + "node1:4120:4187 [0] include/alloc.h:43 NCCL WARN Failed to CUDA host alloc 4194304 bytes\n"
    assert _answer(log)[0] != "gpu_oom"


# rccl-tests' HIPCHECK: printf("%s: Test HIP failure %s:%d '%s'\n", hostname, __FILE__, __LINE__, hipGetErrorString(e))
@pytest.mark.parametrize("status,family", [
    ("an illegal memory access was encountered", "hip_error"), ("hipErrorLaunchFailure", "hip_error"),
    ("invalid device function", "hip_error"), ("out of memory", "gpu_oom"), ("hipErrorOutOfMemory", "gpu_oom"),
])
def test_rccl_tests_hipcheck(status, family):
    log = ("# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20\n#\n"
           "# Using devices\n#  Rank  0 Pid    211 on   node1 device  0 [0000:0c:00.0] AMD Instinct MI250X\n"
           f"node1: Test HIP failure common.cu:1020 '{status}'\n .. node1 pid 211: Test failure common.cu:891\n")
    assert _answer(log)[0] == family


def test_hip_status_look_alikes_keep_their_family():
    # a GPU index is the process' choice (config_error) in ggml's and HIPCHECK's spelling too
    assert _answer(NOISE + "ROCm error: invalid device ordinal\n  current device: 3, in function "
                   "ggml_cuda_set_device at /app/ggml/src/ggml-cuda/ggml-cuda.cu:88\n") == \
        ("config_error", "invalid-device-ordinal")
    assert _answer("error: 'invalid device ordinal'(101) from hipSetDevice(4) at main.cpp:20\n")[0] == "config_error"
    # hipSuccess' text is not a failure; a query answering "not ready" in AMD_LOG_LEVEL=3's trace is not either
    assert _answer(NOISE + "error: 'no error'(0) at main.cpp:20\n")[0] != "hip_error"
    assert _answer(NOISE + ":3:hip_stream.cpp            :471 : 1234 us: [pid:10 tid:0x7f] hipStreamQuery: Returned "
                   "hipErrorNotReady : \n" + NOISE)[0] == "unknown"
    # a word of a status text inside a longer ggml message is not the status
    assert _answer(NOISE + "ROCm error: invalid argument-list in config\n")[1] != "hip-runtime-error"


# ROCm/clr's AMD_LOG_LEVEL error log of a device allocation (hip_memory.cpp, memory.cpp, rocdevice.cpp)
@pytest.mark.parametrize("line,family", [
    (":1:hip_memory.cpp           :333 : 2375474961 us: [pid:1234  tid:0x7f12] Allocation failed : Device memory : "
     "required :8589934592 | free :4294967296 | total :17163091968", "gpu_oom"),
    (":1:memory.cpp               :318 : 2375474961 us: [pid:1234  tid:0x7f12] Can't allocate memory size - "
     "0x40000000 bytes!", "gpu_oom"),
    (":1:rocdevice.cpp            :2169: 2375474961 us: [pid:1234  tid:0x7f12] Couldn't allocate memory on device!",
     "gpu_oom"),
])
def test_clr_allocation_log(line, family):
    assert _answer(NOISE + line + "\n" + TB + "RuntimeError: HIP error: out of memory\n")[0] == family
    assert _answer(NOISE + line + "\nAborted (core dumped)\n")[0] == family


def test_clr_pinned_and_host_allocation_logs_are_not_the_gpu():
    line = ":1:hip_memory.cpp           :336 : 2375474961 us: [pid:1234  tid:0x7f12] Allocation failed : Pinned Memory, "
    assert _answer(NOISE + line + "size :1073741824\n")[0] != "gpu_oom"
    line = ":1:rocdevice.cpp            :858 : 2375474961 us: [pid:1234  tid:0x7f12] Memory allocation has failed!\n"
    assert _answer(NOISE + line)[0] != "gpu_oom"


# AMD SMI AmdSmiLibraryException.__str__: "Error code:\n\t{code} | {info}" (ROCm 6.x) and the older
# "An error occured with code: {code}({info})"; the access statuses are the device node's permissions
@pytest.mark.parametrize("text,family", [
    ("amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n\t10 | AMDSMI_STATUS_NO_PERM - Permission Denied",
     "hf_cache_permission"),
    ("amdsmi.amdsmi_exception.AmdSmiLibraryException: An error occured with code: 4(AMDSMI_STATUS_FILE_ERROR - Error "
     "opening file)", "hf_cache_permission"),
    ("amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n\t34 | AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not "
     "loaded", "hip_error"),
    # rocm-smi's own spelling (rocm_smi.py: logging.error) with nothing else failing: no amdgpu driver
    ("$ rocm-smi --showmeminfo vram\nERROR:root:Driver not initialized (amdgpu not found in modules)", "hip_error"),
])
def test_amd_smi_statuses(text, family):
    log = NOISE + TB + "  File \"/usr/lib/python3/dist-packages/vllm/platforms/rocm.py\", line 40, in " \
        "get_device_name\n" + text + "\n"
    assert _answer(log)[0] == family


def test_rocm_smi_line_does_not_hide_a_real_cause():
    # W&B's system monitor prints rocm-smi's line in healthy runs (WSL: no amdgpu module): a weak cause only
    log = ("ERROR:root:Driver not initialized (amdgpu not found in modules)\n" + NOISE + TB +
           "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
           "23.98 GiB of which 1.02 GiB is free.\n")
    assert _answer(log)[0] == "gpu_oom"


# MIOpen sqlite_db.hpp: "Cannot open database file:" is thrown only for the user database (a system one only warns)
def test_miopen_user_database_that_cannot_open_is_the_cache_directory():
    log = (NOISE + "MIOpen(HIP): Warning [SQLiteBase] Unable to create a directory: \"/home/user/.cache/miopen/3.2.0\"\n"
           "MIOpen Error: /long_pathname_so_that_rpms_can_package_the_debug_info/src/MIOpen/src/include/miopen/"
           "sqlite_db.hpp:252: Cannot open database file:/home/user/.cache/miopen/3.2.0/gfx1100_48.ukdb\n"
           + TB + "RuntimeError: miopenStatusInternalError\n")
    assert _answer(log) == ("hf_cache_permission", "miopen-cache-unwritable")
    # the database busy (another process holds it) is MIOpen's failure, not a permission
    busy = (NOISE + "MIOpen Error: /MIOpen/src/sqlite_db.cpp:238: Timeout while waiting for Database: "
            "/home/user/.config/miopen/gfx90a68.ukdb\n" + TB + "RuntimeError: miopenStatusUnknownError\n")
    assert _answer(busy)[0] == "hip_error"


# amdgpu's SMU firmware not answering (drivers/gpu/drm/amd/pm/swsmu/smu_cmn.c __smu_cmn_reg_print_error)
@pytest.mark.parametrize("msg", [
    "SMU: I'm not done with your previous command: SMN_C2PMSG_66:0x0000001E SMN_C2PMSG_82:0x00000000",
    "SMU: I'm very busy for your command: index:39 param:0x00000000 message:GetPptLimit",
    "SMU: response:0xFFFFFFFF for index:6 param:0x00000000 message:GetDriverIfVersion?",
])
def test_smu_firmware_lines_are_the_gpu(msg):
    log = NOISE + f"[ 8123.456789] amdgpu 0000:03:00.0: amdgpu: {msg}\n" + "Killed\n"
    assert _answer(log) == ("hip_error", "gpu-hang")


def test_hsa_extension_status():
    # ROCR-Runtime hsa.cpp hsa_status_string: the finalizer extension's statuses
    log = NOISE + "hsa api call failure: HSA_EXT_STATUS_ERROR_FINALIZATION_FAILED: Finalization failed\n"
    assert _answer(log)[0] == "hip_error"


def test_tables_hold_the_sources_values():
    by_name = {n: (num, t) for n, num, t in amd.HIP_ERRORS}
    # hip_runtime_api.h numbers and hip_error.cpp texts of the statuses logs print most
    assert by_name["hipErrorOutOfMemory"] == (2, "out of memory")
    assert by_name["hipErrorInvalidDeviceFunction"] == (98, "invalid device function")
    assert by_name["hipErrorNoBinaryForGpu"] == (209, "no kernel image is available for execution on the device")
    assert by_name["hipErrorIllegalAddress"] == (700, "an illegal memory access was encountered")
    assert by_name["hipErrorNoDevice"] == (100, "no ROCm-capable device is detected")
    assert len({num for _n, num, _t in amd.HIP_ERRORS}) == len(amd.HIP_ERRORS)
    texts = amd.hip_texts()
    assert "out of memory" not in texts and "device not ready" not in texts and "no error" not in texts
    assert amd.hip_texts(alloc=True) == ("out of memory",)
    assert "peer access is not supported between these two devices" not in amd.hip_texts(transport=False)
    # rocBLAS library/include/internal/rocblas-types.h rocblas_status (ROCm 6.3 line), checked against the header
    assert blas_status.ROCBLAS_STATUS == {
        0: "success", 1: "invalid_handle", 2: "not_implemented", 3: "invalid_pointer", 4: "invalid_size",
        5: "memory_error", 6: "internal_error", 7: "perf_degraded", 8: "size_query_mismatch", 9: "size_increased",
        10: "size_unchanged", 11: "invalid_value", 12: "continue", 13: "check_numerics_fail",
        14: "excluded_from_build", 15: "arch_mismatch"}
    # MIOpen include/miopen/miopen.h miopenStatus_t
    assert amd.MIOPEN_STATUS[4] == "miopenStatusAllocFailed" and amd.MIOPEN_STATUS[10] == "miopenStatusVersionMismatch"


# ROCR-Runtime libhsakmt (HSAKMT_DEBUG_LEVEL>=3) and clr rocvirtual.cpp: the thunk's VRAM allocation, a GPU the thunk
# has no entry for, a hostcall kernel on a platform without PCIe atomics
@pytest.mark.parametrize("text,family", [
    ("[hsaKmtAllocMemory] failed to allocate 17179869184 bytes from device\n", "gpu_oom"),
    ("device ID 0x164e is not supported in libhsakmt\n" + TB + "RuntimeError: No HIP GPUs are available\n",
     "hip_error"),
    (":1:rocvirtual.cpp            :3237: 2375474961 us: [pid:1234  tid:0x7f12] Pcie atomics not enabled, hostcall "
     "not supported\n", "hip_error"),
])
def test_thunk_and_platform_lines(text, family):
    assert _answer(NOISE + text)[0] == family


def test_thunk_host_allocation_is_not_the_gpu():
    # e-unk2: no rule (nor the confident fallback) calls it gpu_oom; the weak tier may, shown as a guess
    family, code = _answer(NOISE + "[hsaKmtAllocMemory] failed to allocate 4096 bytes from host\n")
    assert family != "gpu_oom" or code == "by-resemblance-weak"


@pytest.mark.parametrize("line", [
    "terminate called after throwing an instance of 'rocr::AMD::hsa_exception'\n  what():  Queue create failed at "
    "hsaKmtCreateQueue",
    ":1:rocdevice.cpp            :3103: 2375474961 us: [pid:1234  tid:0x7f12] Device::acquireQueue: hsa_queue_create "
    "failed!",
    "hsa_exception: Internal queue creation failed.",
])
def test_queue_creation_failures_are_the_runtime(line):
    # ROCR-Runtime amd_aql_queue.cpp / amd_gpu_agent.cpp, clr rocdevice.cpp acquireQueue
    assert _answer(NOISE + line + "\nAborted (core dumped)\n")[0] == "hip_error"


def test_rocr_memory_critical_error_is_a_gpu_memory_fault():
    # ROCR-Runtime runtime.cpp FreeMemory (fprintf to stderr, then abort)
    log = (NOISE + "Memory critical error by agent node-1 (Agent handle: 0x55d2b1c0) on address 0x7f2a40000000. "
           "Reason: Memory in use. \nAborted (core dumped)\n")
    assert _answer(log) == ("hip_error", "gpu-memory-fault")
