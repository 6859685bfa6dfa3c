"""`explain` at the amended borders of benchmarks/corpus/FAMILIES.md ("Amended border rules", session 8; helper
e-relabel, issue 26 item 5): the family is decided by the user's next step, the confirmed fix.

Rule 1 version skew shown by a component, rule 2 device permission vs runtime, rule 3 host memory vs collectives,
rule 4 the hipBLASLt warning, rule 5 symptom vs cause. Each border has a pair of logs from the same component whose
lines show different fixes and so different families. The lines are quoted verbatim from the public thread or
source named next to them; the logs around them are noise of the usual kind.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "[INFO|trainer.py:2128] 2025-01-10 10:00:00,000 >> ***** Running training *****\n")
STEPS = ("{'loss': 2.1187, 'grad_norm': 1.612, 'learning_rate': 1.98e-05, 'epoch': 0.02}\n"
         "{'loss': 1.9874, 'grad_norm': 1.455, 'learning_rate': 1.96e-05, 'epoch': 0.03}\n"
         " 3%|3         | 30/1000 [00:41<22:13,  1.37s/it]\n")
TB = "Traceback (most recent call last):\n  File \"/work/train.py\", line 12, in <module>\n"


def _explain(tmp_path, text, name="train.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


# (expected family, expected root code or None, log text, where the deciding lines come from)
PAIRS = {
    # rule 1: an extension built for another torch (the loader's undefined C++ symbol of torch) is the versions;
    # flash-attn refusing the GPU itself stays flash_attn_error (the fix is another attention implementation)
    "rule1-flash-attn": [
        ("version_check", "extension-abi-mismatch", NOISE + TB +
         "ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
         "undefined symbol: _ZN3c104impl3cow11cow_deleterEPv\n", "Dao-AILab/flash-attention#950"),
        ("flash_attn_error", "flash-attn-error", NOISE + TB +
         "[rank0]: RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n",
         "Dao-AILab/flash-attention (flash_api.cpp's check), huggingface/open-r1 V100 reports"),
    ],
    # rule 1: flash-attn's code calling a torch API the installed torch lacks is the versions; flash-attn's own
    # argument check from the same frames stays flash_attn_error
    "rule1-torch-api": [
        ("version_check", "python-exception", NOISE + TB +
         "  File \"/root/miniconda3/envs/janusvln/lib/python3.10/site-packages/flash_attn/ops/triton/rotary.py\", "
         "line 165, in <module>\n    @torch.library.wrap_triton\n"
         "AttributeError: module 'torch.library' has no attribute 'wrap_triton'\n", "LaVi-Lab/JanusVLN#18"),
        ("flash_attn_error", "python-exception", NOISE + TB +
         "  File \"/usr/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py\", line 85, in "
         "_flash_attn_varlen_forward\nRuntimeError: cu_seqlens_q must have dtype int32\n",
         "flash_attn/flash_api.cpp (TORCH_CHECK on cu_seqlens_q)"),
    ],
    # rule 2: /dev/kfd refused by its mode (EACCES) is the permissions; refused by the driver (EPERM) is the runtime
    "rule2-kfd": [
        ("hf_cache_permission", "gpu-device-permission",
         "Unable to open /dev/kfd read-write: Permission denied\nuser is not member of \"render\" group\n",
         "ROCm/ROCm-docker#116"),
        ("hip_error", "no-gpu-visible",
         "Unable to open /dev/kfd read-write: Operation not permitted\nFailed to get user name to check for video "
         "group membership\n", "ROCm/ROCm#1211 (the KFD driver did not install: a clean reinstall fixed it)"),
    ],
    # rule 2: the runtime's "no devices" is the permission's consequence when the log shows the permission refused;
    # alone it stays the runtime's
    "rule2-no-devices": [
        ("hf_cache_permission", "gpu-device-permission",
         "rocBLAS error: Could not initialize Tensile host: No devices found\n"
         "Unable to open /dev/kfd read-write: Permission denied\n", "ollama/ollama#6685, #6736"),
        ("hip_error", "rocblas-no-tensile-arch",
         "rocBLAS error: Could not initialize Tensile host: No devices found\n", "ollama/ollama#6685 (the line alone)"),
    ],
    # rule 3: NCCL's shared-memory segment that cannot grow is host memory (more /dev/shm); the same NCCL error after
    # NCCL found no socket interface is the collective's own setup (NCCL_SOCKET_IFNAME). e-g6: the former example, a
    # duplicate GPU, is the launch's placement (config_error, tests/test_explain_e_g6.py; hf-trl-3706's label)
    "rule3-nccl": [
        ("host_ram_oom", "nccl-shm-exhausted",
         "W0611 09:12:40.118000 139912 torch/distributed/run.py:793] *****************************************\n"
         "a1b2c3d4e5f6:214:380 [1] NCCL WARN Error: failed to extend /dev/shm/nccl-03v824 to 4194660 bytes\n"
         "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
         "ProcessGroupNCCL.cpp:2027, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
         "2.21.5\n", "NVIDIA NCCL troubleshooting guide ('Shared memory', Docker)"),
        ("nccl_rccl_timeout_hang", "nccl-error",
         "node1:1123:1150 [1] NCCL WARN Bootstrap : no socket interface found\n"
         "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:"
         "317, internal error - please report this issue to the NCCL developers, NCCL version 2.22.3\n",
         "NVIDIA/nccl src/bootstrap.cc (WARN Bootstrap : no socket interface found)"),
    ],
    # rule 4: the hipBLASLt fallback warning with the run going on is harmless; hipBLASLt raising stops the run
    "rule4-hipblaslt": [
        ("benign_warning", None, NOISE +
         "/opt/conda/lib/python3.12/site-packages/torch/nn/modules/linear.py:125: UserWarning: Attempting to use "
         "hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas (Triggered internally at "
         "/pytorch/aten/src/ATen/Context.cpp:310.)\n  return F.linear(input, self.weight, self.bias)\n" + STEPS,
         "ROCm/rocm-libraries#780 (MI100)"),
        ("hipblaslt_warning", "hipblaslt-unsupported-raised", NOISE + TB +
         "RuntimeError: Attempting to use hipBLASLt on an unsupported architecture!\n", "ROCm/hipBLASLt#1243"),
    ],
    # rule 5: the embedding lookup's assert on a token id is the tokenizer; an illegal access without it the runtime
    "rule5-device-assert": [
        ("tokenizer_template", "token-id-past-embedding",
         "/pytorch/aten/src/THC/THCTensorIndex.cu:361: void indexSelectLargeIndex(...): block: [12,0,0], thread: "
         "[96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\nCUDA runtime error (59) : device-side assert "
         "triggered\n", "huggingface/transformers#1848"),
        ("cuda_error", "cuda-error", NOISE + TB +
         "RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be "
         "asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n",
         "pytorch/pytorch illegal-memory-access reports"),
    ],
}


@pytest.mark.parametrize("border", sorted(PAIRS))
def test_each_border_pair_goes_to_two_families_by_the_fix_the_log_shows(tmp_path, border):
    pair = PAIRS[border]
    assert len({fam for fam, *_ in pair}) == 2, border
    for i, (family, code, text, src) in enumerate(pair):
        exp, r = _explain(tmp_path, text, name=f"{i}.log")
        assert exp.answer == family, (src, exp.answer, r.code if r else None, [d.code for d in exp.diagnoses])
        assert (r.code if r else None) == code, (src, r.code if r else None)
        if r is not None:
            assert not r.benign, src


def test_a_hipblaslt_warning_beside_a_real_failure_is_never_the_root(tmp_path):
    # rule 4: with another cause the warning is no cause (rocBLAS' fallback line, then the GPU running out of memory)
    exp, r = _explain(tmp_path, NOISE + "rocBLAS warning: hipBlasLT failed, falling back to tensile.\n" + TB +
                      "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                      "capacity of 23.98 GiB of which 1.04 GiB is free.\n")
    assert r is not None and r.family == "gpu_oom"


def test_the_device_permission_is_read_in_amd_smi_and_ollama_words(tmp_path):
    # rule 2: amd-smi's own (ROCm/amdsmi#184) and ollama's (ollama/ollama#7723) spellings of the same refusal
    for i, text in enumerate([
            "Permission needed to access required GPU device node(s):\n"
            "  - /dev/dri/card0: Permission denied; owner=root(0):video(39);\n",
            "RuntimeError: WARNING: User is missing the following required groups: render, video. Please add user to "
            "these groups.\n",
            "time=2024-10-25T08:03:11.271+02:00 level=ERROR source=amd_linux.go:404 msg=\"amdgpu devices detected but "
            "permission problems block access: permissions not set up properly.  Either run ollama as root, or add "
            "you user account to the render group. open /dev/kfd: permission denied\"\n"]):
        exp, r = _explain(tmp_path, text, name=f"{i}.log")
        assert r is not None and r.code == "gpu-device-permission" and r.family == "hf_cache_permission", text


def test_an_xformers_build_for_another_torch_release_is_the_versions(tmp_path):
    # rule 1: xformers' own note (xformers/_cpp_lib.py) names the torch it was built for; the attention op that then
    # has no implementation is the symptom (hiyouga/Firefly#258)
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.1.0+cu121)\n"
            "    Python  3.10.14 (you have 3.10.0)\n" + TB +
            "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n")
    exp, r = _explain(tmp_path, text)
    assert r is not None and r.family == "version_check" and "another torch release" in r.title


def test_bitsandbytes_newer_setup_words_are_the_wrong_build_its_cpu_note_alone_is_harmless(tmp_path):
    # rule 1: bitsandbytes 0.43+ (cextension.py) says its GPU library could not be set up: a build for another
    # ROCm/CUDA than torch's, fixed by the matching wheel (ROCm/bitsandbytes#35, MI250 in a ROCm 6.1 container)
    exp, r = _explain(tmp_path,
                      "Could not find the bitsandbytes CUDA binary at PosixPath('/opt/conda/envs/py_3.10/lib/python3.10/"
                      "site-packages/bitsandbytes/libbitsandbytes_hip_nohipblaslt.so')\n"
                      "CUDA Setup failed despite CUDA being available. Please run the following command to get more "
                      "information:\n")
    assert r is not None and r.code == "bnb-no-gpu-library" and r.family == "version_check"
    # the note alone, with the run training (LoRA in bf16 needs no bitsandbytes kernel), stays harmless
    exp, r = _explain(tmp_path, "Could not find the bitsandbytes CUDA binary at PosixPath('/opt/conda/lib/python3.10/"
                      "site-packages/bitsandbytes/libbitsandbytes_hip_nohipblaslt.so')\n" + STEPS, name="ok.log")
    assert r is None and exp.answer == "benign_warning"


WATCHDOG = ("[rank1]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600068 "
            "milliseconds before timing out.\n")


def test_host_ram_exhausted_on_one_rank_beats_the_collective_timeout_on_the_others(tmp_path):
    # rule 3: torch's CPU allocator (c10/core/impl/alloc_cpu.cpp: `DefaultCPUAllocator: not enough memory: you tried
    # to allocate N bytes.`, the spelling of recent releases) failing on rank 0; rank 1 then times out in the
    # all-reduce. Without the allocator line the timeout is the collective's own
    exp, r = _explain(tmp_path, WATCHDOG + "[rank0]: RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. "
                      "DefaultCPUAllocator: not enough memory: you tried to allocate 6383992832 bytes.\n")
    assert r is not None and r.family == "host_ram_oom" and r.code == "host-alloc-failed"
    exp, r = _explain(tmp_path, WATCHDOG, name="alone.log")
    assert r is not None and r.family == "nccl_rccl_timeout_hang"
    # the kernel's OOM killer line pasted after the training log (dmesg) counts the same
    exp, r = _explain(tmp_path, WATCHDOG + "[ 8123.456789] Out of memory: Killed process 4321 (python) "
                      "total-vm:98765432kB, anon-rss:61234567kB, file-rss:0kB, shmem-rss:0kB\n", name="dmesg.log")
    assert r is not None and r.family == "host_ram_oom"


def test_device_permission_on_the_nvidia_and_hip_side_in_their_own_words(tmp_path):
    # rule 2: NVML refused the device nodes (NVIDIA/nvidia-container-toolkit#33: fixed by SELinux
    # container_use_devices / --privileged); rule 5: HIP's own device-assert spelling of the embedding lookup's assert
    # (the line as mosaicml/composer#2758 shows it on ROCm)
    exp, r = _explain(tmp_path, "$ nvidia-smi\nFailed to initialize NVML: Insufficient Permissions\n")
    assert r is not None and r.code == "gpu-device-permission"
    exp, r = _explain(tmp_path, "stderr: nvidia-container-cli: initialization error: nvml error: insufficient "
                      "permissions: unknown.\n", name="cli.log")
    assert r is not None and r.code == "gpu-device-permission"
    exp, r = _explain(tmp_path, "/pytorch/aten/src/ATen/native/hip/Indexing.hip:1292: indexSelectLargeIndex: "
                      "Device-side assertion `srcIndex < srcSelectDimSize' failed.\nRuntimeError: HIP error: "
                      "device-side assert triggered\n", name="hip.log")
    assert r is not None and r.code == "token-id-past-embedding" and r.family == "tokenizer_template"
