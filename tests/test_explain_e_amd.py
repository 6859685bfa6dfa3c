"""`explain` at the ROCm/device border (issue 26, item 5: helper e-amd).

Each log is built around lines quoted verbatim from a public thread or from the source that prints them (named next
to it) - none is a corpus case. The engine must name the family by what the message means in the code that prints
it: an out-of-memory status is gpu_oom wherever it appears, a device fault or reset is hip_error, the KFD device
refusing to open is "no usable GPU" (not host RAM), and NCCL/RCCL's INFO line about an optional plugin is never a
cause.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "  5%|5         | 12/240 [00:31<09:52,  2.60s/it]\n")

# (expected family, expected code, log text, where the lines come from)
CASES = [
    # kernels 6.12+: amdgpu_job_timedout tries a per-queue reset first (amdgpu_job.c "Starting %s ring reset",
    # "Ring %s reset succeeded"), then drm_dev_wedged_event; the queue still hung
    ("hip_error", "gpu-hang",
     "maj 08 19:35:55 RX-78-FPC kernel: amdgpu 0000:c2:00.0: Starting gfx_0.0.0 ring reset\n"
     "maj 08 19:35:55 RX-78-FPC kernel: amdgpu 0000:c2:00.0: Ring gfx_0.0.0 reset succeeded\n"
     "maj 08 19:35:55 RX-78-FPC kernel: amdgpu 0000:c2:00.0: [drm] device wedged, but recovered through reset\n",
     "ggml-org/llama.cpp#21724 (gfx90c APU, journalctl -k)"),
    ("hip_error", "gpu-hang",
     "[ 6765.045954] amdgpu 0000:03:00.0: ring gfx_0.0.0 timeout, signaled seq=10045651, emitted seq=10045655\n"
     "[ 6765.045958] amdgpu 0000:03:00.0: Starting gfx_0.0.0 ring reset\n"
     "[ 6767.046085] amdgpu 0000:03:00.0: MES failed to respond to msg=RESET\n"
     "[ 6767.046090] amdgpu 0000:03:00.0: failed to reset legacy queue\n",
     "ValveSoftware/SteamOS#2802 (7800 XT, kernel 7.2: the newer 'respond to msg=RESET' spelling)"),
    # the KFD device refusing to open: rocminfo / ROCT print the errno text; ENOMEM here is the driver, not RAM
    ("hip_error", "no-gpu-visible",
     "[root@host log]# /opt/rocm/bin/rocminfo\nROCk module is loaded\n"
     "Unable to open /dev/kfd read-write: Cannot allocate memory\nroot is member of render group\n",
     "ROCm/rocminfo#41 (a CentOS 8.3 node with four MI100)"),
    ("hip_error", "no-gpu-visible",
     'openat(AT_FDCWD, "/dev/kfd", O_RDWR|O_CLOEXEC) = -1 ENOMEM (Cannot allocate memory)\n'
     "hsa api call failure at: /data/jenkins-workspace/compute-rocm-rel-3.3/rocminfo/rocminfo.cc:1102\n"
     "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. "
     "This error may also occur when the core runtime library needs to spawn threads or create internal OS-specific "
     "events.\n",
     "ROCm/legacy-rocm-build#1088 (strace of rocminfo)"),
    # amdgpu_cs.c: amdgpu_cs_parser_bos -ENOMEM -> "Not enough memory for command submission!" (VRAM/GTT full)
    ("gpu_oom", "oom",
     "load_tensors:      Vulkan0 model buffer size = 48150.36 MiB\n"
     "radv/amdgpu: Not enough memory for command submission.\n"
     "ggml_vulkan: device lost on Vulkan0\n"
     "llama_model_load: error loading model: vk::Queue::submit: ErrorDeviceLost\n",
     "Mesa radv repeating amdgpu_cs.c's ENOMEM on a 128 GB UMA APU (ollama/ollama#17748 class)"),
    ("gpu_oom", "oom",
     "[drm:amdgpu_cs_ioctl [amdgpu]] *ERROR* Not enough memory for command submission!\n",
     "linux drivers/gpu/drm/amd/amdgpu/amdgpu_cs.c (DRM_ERROR on -ENOMEM)"),
    # an OOM first, the GPU's hang after it: the OOM is the cause
    ("gpu_oom", "oom",
     "[ 812.100] amdgpu 0000:c4:00.0: [drm] *ERROR* Not enough memory for command submission!\n"
     "[ 822.512] amdgpu 0000:c4:00.0: amdgpu: ring gfx_0.0.0 timeout, signaled seq=100, emitted seq=102\n"
     "[ 822.513] amdgpu 0000:c4:00.0: amdgpu: GPU reset begin!\n",
     "amdgpu_cs.c ENOMEM followed by amdgpu_job.c's timeout (the order the driver logs them)"),
    # NCCL's optional net plugin: an INFO line, the real failure is the collective's
    ("nccl_rccl_timeout_hang", None,
     "nf5688m7-1:422771:422771 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: "
     "cannot open shared object file: No such file or directory\n"
     "nf5688m7-1:422771:422771 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation\n"
     "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
     "remote process exited or there was a network error, NCCL version 2.18.3\n"
     "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n",
     "NVIDIA/nccl src/plugin/net.cc INFO lines as nccl-tests users post them, then ncclRemoteError's text"),
    # AMD SMI failing to read the device (vLLM/torch ask it for the GPU's arch): the device nodes are unreachable
    # (test expectation follows FAMILIES.md amended rule 2: device permission is hf_cache_permission)
    ("hf_cache_permission", "gpu-device-permission",
     "WARNING 04-20 10:02:11 [rocm.py:41] amdsmi query for GPU ASIC info failed, falling back\n"
     "amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code: 10 | AMDSMI_STATUS_NO_PERM - Permission Denied\n"
     "During handling of the above exception, another exception occurred:\n"
     "ImportError: cannot import name 'current_platform' from 'vllm.platforms'\n",
     "amdsmi py-interface amdsmi_exception.py status strings (NO_PERM - Permission Denied), vllm-project/vllm#40081 "
     "class (amdsmi broken inside containers)"),
    # host RAM stays host RAM: the /dev/kfd exception is narrow
    ("host_ram_oom", "host-alloc-failed",
     "  File \"/usr/lib/python3.10/multiprocessing/popen_fork.py\", line 66, in _launch\n"
     "    self.pid = os.fork()\nOSError: [Errno 12] Cannot allocate memory\n",
     "CPython os.fork ENOMEM (DataLoader workers on a full host)"),
]


@pytest.mark.parametrize("family,code,text,source", CASES, ids=[c[3][:60] for c in CASES])
def test_family_by_meaning(tmp_path, family, code, text, source):
    log = tmp_path / "run.log"
    log.write_text(NOISE + text)
    exp = diagnose([str(log)])
    root = exp.diagnoses[exp.root] if exp.root is not None else None
    assert exp.answer == family, (source, exp.answer, root.code if root else None)
    assert root is not None and not root.benign
    if code:
        assert root.code == code, (source, root.code)


def test_nccl_plugin_info_alone_is_no_cause(tmp_path):
    """A run whose only NCCL lines are the plugin fallback and a completed init has no failure to explain."""
    log = tmp_path / "run.log"
    log.write_text(
        NOISE
        + "node2:2601564:2601564 [0] NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: "
        "cannot open shared object file: No such file or directory\n"
        "node2:2601564:2601564 [0] NCCL INFO NET/Plugin : No plugin found, using internal implementation\n"
        "node2:2601564:2601564 [0] NCCL INFO comm 0x55d1 rank 0 nranks 2 cudaDev 0 busId 2000 - Init COMPLETE\n")
    exp = diagnose([str(log)])
    root = exp.diagnoses[exp.root] if exp.root is not None else None
    assert root is None or (root.family != "missing_package" and not root.benign), exp.answer
    assert exp.answer != "missing_package"
