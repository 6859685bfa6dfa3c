"""`explain` on what ROCm's runtime, the amdgpu kernel driver, RCCL and the attention stacks print when host or GPU
memory runs out or a kernel is missing (helper e-amd8, issue 26), with the family FAMILIES.md's border rules give.

Every log is written from the source's own format string (named beside each; the rows in profiles/amd_errors.py,
collective_causes.py and attention_owners.py cite file@commit), inside the usual noise; none is a corpus case.
"""

from __future__ import annotations

import json

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose
from tests.conftest import run_cli

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "[INFO|trainer.py:2128] 2025-01-10 10:00:00,000 >> ***** Running training *****\n"
         "{'loss': 2.1187, 'grad_norm': 1.612, 'learning_rate': 1.98e-05, 'epoch': 0.02}\n"
         " 3%|3         | 30/1000 [00:41<22:13,  1.37s/it]\n")
DIST = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL."
        "cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.10.3\n")
TB = "Traceback (most recent call last):\n  File \"/work/train.py\", line 12, in <module>\n    trainer.train()\n"


def _root(tmp_path, text, name="train.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is not None
    return exp.diagnoses[exp.root]


# ---- RCCL/NCCL checks.h SYSCHECKVAL: `Call to posix_fallocate failed : <strerror>` (ShmObject.h / include/shm.h)
@pytest.mark.parametrize("err", ["No space left on device", "Cannot allocate memory"])
def test_shm_fallocate_out_of_room_is_host_memory_not_the_collective(tmp_path, err):
    text = (NOISE + "node1:77:90 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct\n"
            f"node1:77:90 [1] include/shm.h:48 NCCL WARN Call to posix_fallocate failed : {err}\n"
            "node1:77:90 [1] NCCL INFO include/shm.h:60 -> 2\n" + DIST)
    r = _root(tmp_path, text)
    assert (r.family, r.code) == ("host_ram_oom", "nccl-shm-exhausted")
    assert "--shm-size" in r.fix


def test_shm_fallocate_with_another_errno_stays_the_collectives(tmp_path):
    text = (NOISE + "node1:77:90 [1] include/shm.h:48 NCCL WARN Call to posix_fallocate failed : Bad file descriptor\n"
            + DIST)
    r = _root(tmp_path, text)
    assert r.family == "nccl_rccl_timeout_hang"


# ---- the kernel's TTM (drivers/gpu/drm/ttm/ttm_bo.c ttm_bo_evict, ttm_pool.c ttm_pool_alloc_page)
def test_ttm_eviction_failure_in_dmesg_is_gpu_memory(tmp_path):
    text = (NOISE + "Killed\n$ sudo dmesg | tail\n"
            "[12345.600001] [TTM] Failed to find memory space for buffer 0x000000001234abcd eviction\n"
            "[12345.600002] [TTM]  No space for 000000001234abcd (16470 pages, 65880K, 64M)\n"
            "[12345.600003] [TTM]    placement[0]=0x00000000 (1)\n")
    r = _root(tmp_path, text)
    assert (r.family, r.code) == ("gpu_oom", "oom")


def test_page_allocation_failure_for_a_gpu_buffer_is_gpu_memory(tmp_path):
    text = (NOISE + " 40%|####      | 400/1000 [09:11<13:40,  1.37s/it]Killed\n$ sudo dmesg -T | tail -n 12\n"
            "[Mon Jan 10 10:20:01 2025] python3: page allocation failure: order:0, mode:0x140cca(GFP_HIGHUSER_MOVABLE|"
            "__GFP_COMP), nodemask=(null),cpuset=/,mems_allowed=0\n"
            "[Mon Jan 10 10:20:01 2025] Call Trace:\n[Mon Jan 10 10:20:01 2025]  <TASK>\n"
            "[Mon Jan 10 10:20:01 2025]  warn_alloc+0x13a/0x1c0\n"
            "[Mon Jan 10 10:20:01 2025]  __alloc_pages_slowpath.constprop.0+0xc41/0xd00\n"
            "[Mon Jan 10 10:20:01 2025]  ttm_pool_alloc_page+0x3c/0x150 [ttm]\n"
            "[Mon Jan 10 10:20:01 2025]  ttm_pool_alloc+0x1c9/0x5a0 [ttm]\n"
            "[Mon Jan 10 10:20:01 2025]  amdgpu_ttm_tt_populate+0x4e/0x110 [amdgpu]\n")
    r = _root(tmp_path, text)
    assert r.family == "gpu_oom"
    assert "GPU buffer" in r.title and "gttsize" in r.fix


def test_a_kill_with_no_gpu_buffer_in_the_trace_stays_host_memory(tmp_path):
    text = (NOISE + " 40%|####      | 400/1000 [09:11<13:40,  1.37s/it]Killed\n")
    assert _root(tmp_path, text).family == "host_ram_oom"


# ---- ROCm/clr's own allocation logs (AMD_LOG_LEVEL>=1): hip_memory.cpp, rocdevice.cpp
@pytest.mark.parametrize("line", [
    ":1:hip_memory.cpp           :336 : 5170392611 us: [pid:4242  tid:0x7f00] Allocation failed : Pinned Memory, "
    "size :68719476736",
    ":1:rocdevice.cpp            :2208: 5170392611 us: [pid:4242  tid:0x7f00] Fail allocation host memory with err 4104",
])
def test_clr_pinned_host_allocation_log_is_host_memory(tmp_path, line):
    text = (NOISE + line + "\n" + TB + "    buf = torch.empty(n, dtype=torch.uint8).pin_memory()\n"
            "RuntimeError: HIP error: out of memory\n")
    r = _root(tmp_path, text)
    assert (r.family, r.code) == ("host_ram_oom", "host-alloc-failed")


def test_clr_device_pool_allocation_log_is_gpu_memory(tmp_path):
    text = NOISE + ":1:rocdevice.cpp            :2368: 5170392611 us: [pid:4242  tid:0x7f00] Fail allocation local memory\n"
    assert _root(tmp_path, text).family == "gpu_oom"


# ---- composable_kernel's HIP_CHECK_ERROR naming the attention library's own CK copy (no Python traceback)
@pytest.mark.parametrize("path, family", [
    ("/tmp/xformers/third_party/composable_kernel_tiled/include/ck_tile/host/kernel_launch_hip.hpp", "flash_attn_error"),
    ("/tmp/pip-install-k2j/flash-attn_5b0e1c/csrc/composable_kernel/include/ck_tile/host/kernel_launch_hip.hpp",
     "flash_attn_error"),
    ("/build/flash_attn-2.7.4.post1/csrc/composable_kernel/include/ck_tile/host/kernel_launch_hip.hpp",
     "flash_attn_error"),
    # AITER bundles the same composable_kernel: its own failure stays the runtime's (attention_owners.py)
    ("/aiter/3rdparty/composable_kernel/include/ck_tile/host/kernel_launch_hip.hpp", "hip_error"),
])
def test_ck_hip_failure_is_owned_by_the_library_whose_ck_copy_it_names(tmp_path, path, family):
    text = NOISE + f"RuntimeError: HIP Function Failed ({path},77) invalid device function\n"
    assert _root(tmp_path, text).family == family


# ---- rocBLAS tensile_host.cpp: no code object of this gfx in the library dir
def test_rocblas_no_code_object_for_the_gfx_is_the_runtime_library(tmp_path):
    text = (NOISE + "\nrocBLAS warning: No paths matched /opt/rocm/lib/rocblas/library/*gfx1031*co. Make sure that "
            "ROCBLAS_TENSILE_LIBPATH is set correctly.\nAborted (core dumped)\n")
    r = _root(tmp_path, text)
    assert (r.family, r.code) == ("hip_error", "rocblas-no-tensile-arch")


def test_cli_json_names_the_shm_cause(tmp_path):
    log = tmp_path / "rank1.log"
    log.write_text(NOISE + "node1:77:90 [1] include/shm.h:48 NCCL WARN Call to posix_fallocate failed : No space left "
                   "on device\n" + DIST)
    p = run_cli("explain", str(log), "--json")
    assert p.returncode == 1, p.stderr   # a failure was found
    out = json.loads(p.stdout)
    assert out["status"] == "failed" and out["answer"] == "host_ram_oom"
    assert out["root"]["family"] == "host_ram_oom" and out["root"]["code"] == "nccl-shm-exhausted"


# ---- ROCR runtime.cpp Runtime::Acquire: hsa_init returns OUT_OF_RESOURCES whenever the runtime cannot load (no GPU)
def test_hsa_init_out_of_resources_is_no_usable_gpu_not_memory(tmp_path):
    text = ("$ python bench.py\nException: Failed to load HSA runtime: hsa_init failed: "
            "HSA_STATUS_ERROR_OUT_OF_RESOURCES\n")
    r = _root(tmp_path, text)
    assert (r.family, r.code) == ("hip_error", "no-gpu-visible")


def test_a_queue_aborting_with_out_of_resources_stays_gpu_memory(tmp_path):
    text = (NOISE + ":0:rocdevice.cpp            :2881: 2174401938 us: [pid:1234  tid:0x7f] Callback: Queue 0x7f00 "
            "aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
            "resources. code: 0x1008\nAborted (core dumped)\n")
    assert _root(tmp_path, text).family == "gpu_oom"


# ---- the KFD (amdkfd kfd_device.c, kfd_device_queue_manager.c) in dmesg
def test_kfd_skipping_a_gpu_without_pcie_atomics_is_the_runtime_platform(tmp_path):
    text = ("$ python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n$ sudo dmesg | grep kfd\n"
            "[    1.114805] kfd kfd: amdgpu: skipped device 1002:73bf, PCI rejects atomics 730<0\n")
    assert _root(tmp_path, text).family == "hip_error"


def test_kfd_queue_preemption_timeout_is_a_gpu_hang(tmp_path):
    text = (NOISE + "Aborted (core dumped)\n$ sudo dmesg | tail -3\n"
            "[ 4974.837675] amdgpu: qcm fence wait loop timeout expired\n"
            "[ 4974.837676] amdgpu: The cp might be in an unrecoverable state due to an unsuccessful queues preemption\n")
    r = _root(tmp_path, text)
    assert (r.family, r.code) == ("hip_error", "gpu-hang")


# ---- flash-attention's CK backend (csrc/flash_attn_ck/mha_*.cpp): the fmha dispatcher had no kernel for the call
@pytest.mark.parametrize("op", ["fmha_fwd", "fmha_bwd", "fmha_fwd_splitkv"])
def test_ck_fmha_dispatcher_refusal_is_the_attention_kernels(tmp_path, op):
    text = NOISE + TB + f"RuntimeError: invalid argument for {op}\n"
    r = _root(tmp_path, text)
    assert (r.family, r.code) == ("flash_attn_error", "amd-attention-refused")


# ---- ROCr's GPU core dump (amd_core_dump.cpp), written only from its VM-fault and queue-error handlers
def test_gpu_core_dump_line_alone_is_a_gpu_fault(tmp_path):
    text = NOISE + "GPU core dump created: gpucore.4242\nAborted (core dumped)\n"
    r = _root(tmp_path, text)
    assert r.family == "hip_error"


# ---- NCCL/RCCL's memory stack (src/misc/utils.cc): host malloc returned nothing, then abort()
def test_rccl_memory_stack_malloc_null_is_host_memory(tmp_path):
    text = (NOISE + "node1:77:90 [0] NCCL WARN misc/utils.cc:271 Unrecoverable error detected: malloc(size=1073741824) "
            "returned null.\nAborted (core dumped)\n")
    r = _root(tmp_path, text)
    assert (r.family, r.code) == ("host_ram_oom", "host-alloc-failed")
