"""`explain` on what the ROCm stack itself prints for a failure (helper e-hip4, issue 26): the HSA runtime's status
strings and memory-fault reasons, the AMD attention stacks' own refusals, RCCL's shared-memory and pinned-host
allocations, a program's own `Failed to <call>: <hipGetErrorString>`, with the family FAMILIES.md's border rules give.

Every log is written from the source's own format strings (named beside each), inside the usual noise (other ranks,
progress bars, the launcher's teardown); none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "[INFO|trainer.py:2128] 2025-01-10 10:00:00,000 >> ***** Running training *****\n"
         "{'loss': 2.1187, 'grad_norm': 1.612, 'learning_rate': 1.98e-05, 'epoch': 0.02}\n"
         " 3%|3         | 30/1000 [00:41<22:13,  1.37s/it]\n")
TB = "Traceback (most recent call last):\n  File \"/work/train.py\", line 12, in <module>\n    trainer.train()\n"
TEARDOWN = ("W1010 10:00:00.000 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 78 closing signal "
            "SIGTERM\nE1010 10:00:01.000 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) "
            "local_rank: 3 (pid: 77) of binary: /usr/bin/python3\ntorch.distributed.elastic.multiprocessing.errors."
            "ChildFailedError:\n")
WATCHDOG = ("[rank0]:[E1010 10:10:00.000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600432 "
            "milliseconds before timing out.\n")
DIST = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL."
        "cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.3\n[rank1]: "
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
        "[rank1]: Last error:\n")
FA_FRAME = ("  File \"/opt/conda/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py\", line 96, in "
            "_flash_attn_forward\n    out, softmax_lse, S_dmask, rng_state = flash_attn_gpu.fwd(\n")
SDPA_FRAME = ("  File \"/usr/lib/python3/dist-packages/transformers/integrations/sdpa_attention.py\", line 66, in "
              "sdpa_attention_forward\n    attn_output = torch.nn.functional.scaled_dot_product_attention(\n")


def _explain(tmp_path, text, name="train.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


def _check(tmp_path, family, text, name="train.log", code=None):
    exp, r = _explain(tmp_path, text, name)
    got = (r.family, r.code) if r else (None, None)
    assert got[0] == family, (got, [d.code for d in exp.diagnoses])
    if code is not None:
        assert got[1] == code, got
    return r


# ROCR-Runtime runtime/hsa-runtime/core/runtime/hsa.cpp hsa_status_string (ROCm 6.3 line): the text after each name.
# clr rocdevice.cpp's queue callback prints `Callback: Queue %p aborting with error : <hsa_status_string> code: 0x%x`.
# HSA_STATUS_ERROR_OUT_OF_RESOURCES is left out: the queue's scratch allocation failing is read as gpu_oom (e-amd)
HSA_STATUS = (
    ("HSA_STATUS_ERROR", "A generic error has occurred."),
    ("HSA_STATUS_ERROR_INVALID_ARGUMENT", "One of the actual arguments does not meet a precondition stated in the "
     "documentation of the corresponding formal argument."),
    ("HSA_STATUS_ERROR_INVALID_QUEUE_CREATION", "The requested queue creation is not valid."),
    ("HSA_STATUS_ERROR_INVALID_ALLOCATION", "The requested allocation is not valid."),
    ("HSA_STATUS_ERROR_INVALID_AGENT", "The agent is invalid."),
    ("HSA_STATUS_ERROR_INVALID_SIGNAL", "The signal is invalid."),
    ("HSA_STATUS_ERROR_INVALID_QUEUE", "The queue is invalid."),
    ("HSA_STATUS_ERROR_INVALID_PACKET_FORMAT", "The AQL packet is malformed."),
    ("HSA_STATUS_ERROR_RESOURCE_FREE", "An error has been detected while releasing a resource."),
    ("HSA_STATUS_ERROR_NOT_INITIALIZED", "An API other than hsa_init has been invoked while the reference count of "
     "the HSA runtime is zero."),
    ("HSA_STATUS_ERROR_INVALID_ISA", "The instruction set architecture is invalid."),
    ("HSA_STATUS_ERROR_INVALID_CODE_OBJECT", "The code object is invalid."),
    ("HSA_STATUS_ERROR_INVALID_EXECUTABLE", "The executable is invalid."),
    ("HSA_STATUS_ERROR_INVALID_SYMBOL_NAME", "There is no symbol with the given name."),
    ("HSA_STATUS_ERROR_EXCEPTION", "An HSAIL operation resulted in a hardware exception."),
    ("HSA_STATUS_ERROR_INVALID_CODE_SYMBOL", "The code object symbol is invalid."),
    ("HSA_STATUS_ERROR_FATAL", "The queue received an error that may require process termination."),
    ("HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "The agent attempted to access memory beyond the largest legal "
     "address."),
    ("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", "The agent attempted to execute an illegal shader instruction."),
    ("HSA_STATUS_ERROR_MEMORY_FAULT", "Agent attempted to access an inaccessible address."),
    ("HSA_STATUS_ERROR_INVALID_MEMORY_POOL", "The memory pool is invalid."),
    ("HSA_STATUS_ERROR_OUT_OF_REGISTERS", "Kernel has requested more VGPRs than are available on this agent"),
)


@pytest.mark.parametrize("name,text", HSA_STATUS)
def test_every_hsa_queue_error_on_one_rank_is_the_rocm_runtime(tmp_path, name, text):
    log = (NOISE + "[rank3]:[W reducer.cpp:1389] Warning: find_unused_parameters=True was specified\n"
           f":0:rocdevice.cpp            :3006: 6545699276902 us: [pid:77 tid:0x7f2301dff640] Callback: Queue "
           f"0x7f2301400000 aborting with error : {name}: {text} code: 0x1016\n" + WATCHDOG + TEARDOWN)
    _check(tmp_path, "hip_error", log)


# ROCR-Runtime runtime.cpp VMFaultHandler: every reason it prints (`Memory access fault by GPU node-%u (Agent handle:
# %p) on address %p%s. Reason: %s.`); the HW exception handler's `reason :%s` (GPU Hang / ECC); the memory-in-use error
FAULT_REASONS = ("Page not present or supervisor privilege", "Write access to a read-only page",
                 "Execute access to a page marked NX", "Host access only", "DRAM ECC failure", "SRAM ECC failure",
                 "Generic hang recovery", "Unknown")


@pytest.mark.parametrize("reason", FAULT_REASONS)
def test_every_rocr_memory_fault_reason_is_the_rocm_runtime(tmp_path, reason):
    log = (NOISE + f"Memory access fault by GPU node-2 (Agent handle: 0x5581f3c4e0a0) on address 0x7f2c1a000000(may "
           f"not be exact address). Reason: {reason}.\nGPU core dump created: gpucore.1234\n" + TEARDOWN)
    _check(tmp_path, "hip_error", log)


def test_the_rocr_memory_critical_error_and_an_ecc_exception_are_the_runtime(tmp_path):
    _check(tmp_path, "hip_error", NOISE + "Memory critical error by agent node-1 (Agent handle: 0x55d0a1b2c3d0) on "
           "address 0x7f0012340000. Reason: Memory in use. \nAborted (core dumped)\n", "a.log")
    _check(tmp_path, "hip_error", NOISE + "HW Exception by GPU node-1 (Agent handle: 0x55dc6e221990) reason :ECC\n"
           "Aborted (core dumped)\n", "b.log")


# pytorch aten/src/ATen/native/transformers/hip/attention.hip (AOTriton's check_gpu; the CK backend's build guard;
# the options AOTriton lacks) and ROCm/flash-attention csrc/flash_attn_ck/mha_fwd.cpp's TORCH_CHECKs
AMD_ATTENTION_REFUSALS = (
    "[AOTriton] Accelerated SDPA only supports MI200/MI300X/7900XTX/9070XT GPUs (gfx90a/gfx942/gfx1100/gfx1201)",
    "[AOTriton] Accelerated SDPA only supports MI200/MI300X/Navi31 GPUs (gfx90a:sramecc+:xnack-/gfx942:sramecc+:"
    "xnack-/gfx1100)",
    "ROCM does not support window_size in _efficient_attention_forward",
    "Attempting to use CK mem_eff_backward backend in a build that has not built CK",
    "FlashAttention only supports AMD MI200 GPUs or newer.",
    "FlashAttention only supports AMD MI300 GPUs.",
    "CK only supports head dimension at most 256",
    "FlashAttention only support fp16 and bf16 data type",
)


@pytest.mark.parametrize("message", AMD_ATTENTION_REFUSALS)
def test_the_amd_attention_stacks_own_refusals_are_flash_attn_error(tmp_path, message):
    # with the caller's frames, and as a rank prints it alone (vLLM's workers, a logger without the traceback)
    _check(tmp_path, "flash_attn_error", NOISE + TB + SDPA_FRAME + f"RuntimeError: {message}\n", "a.log")
    _check(tmp_path, "flash_attn_error", NOISE + f"[rank1]: RuntimeError: {message}\n" + WATCHDOG + TEARDOWN,
           "b.log")


# c10's backtrace after a HIP error (c10/util/Exception: `Exception raised from c10_hip_check_implementation at ...
# (most recent call first):` then `frame #N: <symbol> + 0x.. (0x.. in <library>)`)
BT_HEAD = ("terminate called after throwing an instance of 'c10::Error'\n  what():  HIP error: invalid device function\n"
           "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
           "be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\nCompile with `TORCH_USE_HIP_DSA` "
           "to enable device-side assertions.\n\nException raised from c10_hip_check_implementation at /pytorch/c10/"
           "hip/HIPException.cpp:44 (most recent call first):\nframe #0: c10::Error::Error(c10::SourceLocation, "
           "std::string) + 0x98 (0x7f01 in /opt/venv/lib/python3.10/site-packages/torch/lib/libc10.so)\nframe #1: "
           "c10::hip::c10_hip_check_implementation(int, char const*, char const*, int, bool) + 0x3c6 (0x7f02 in "
           "/opt/venv/lib/python3.10/site-packages/torch/lib/libc10_hip.so)\n")
LIB = "/opt/venv/lib/python3.10/site-packages/torch/lib/libtorch_hip.so"


def test_a_hip_error_inside_torchs_fused_sdpa_kernels_is_the_attention(tmp_path):
    for i, frame in enumerate([
            f"frame #2: pytorch_flash::mha_fwd(at::Tensor const&, at::Tensor const&) + 0x7d1 (0x7f03 in {LIB})\n",
            f"frame #2: at::native::_efficient_attention_forward(at::Tensor const&) + 0x2a1 (0x7f04 in {LIB})\n",
            "frame #2: aotriton::v2::flash::attn_fwd(aotriton::TensorView<4u> const&) + 0x51 (0x7f05 in /opt/venv/lib/"
            "python3.10/site-packages/torch/lib/libaotriton_v2.so)\n"]):
        r = _check(tmp_path, "flash_attn_error", NOISE + BT_HEAD + frame + "Aborted (core dumped)\n", f"{i}.log")
        assert r.numbers.get("raised_in") == "PyTorch's fused SDPA"


def test_a_hip_error_in_sdpas_math_path_stays_the_runtime(tmp_path):
    # the math path is ordinary matmul/softmax kernels: the runtime's failure, not the attention kernels'
    frame = (f"frame #2: at::native::_scaled_dot_product_attention_math(at::Tensor const&) + 0x3f1 (0x7f03 in "
             f"{LIB.replace('libtorch_hip', 'libtorch_cpu')})\n")
    _check(tmp_path, "hip_error", NOISE + BT_HEAD + frame + "Aborted (core dumped)\n")


def test_a_traceback_without_source_lines_still_names_flash_attn(tmp_path):
    # Python prints no statement under a frame whose source it cannot read: the next frame is never taken for it
    log = (NOISE + "Traceback (most recent call last):\n  File \"/work/train.py\", line 12, in <module>\n  File "
           "\"/opt/conda/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py\", line 96, in "
           "_flash_attn_forward\nRuntimeError: HIP error: invalid device function\n")
    _check(tmp_path, "flash_attn_error", log)


def test_flash_attentions_own_ck_build_failing_is_the_attention_not_a_deepspeed_op(tmp_path):
    build = ("  Building wheel for flash-attn (setup.py) ... error\n      building 'flash_attn_2_cuda' extension\n"
             "      [1/48] /opt/rocm/bin/hipcc -c csrc/flash_attn_ck/mha_fwd.cpp -o build/temp.linux-x86_64-cpython-310/"
             "csrc/flash_attn_ck/mha_fwd.o --offload-arch=gfx1100\n")
    err = ("<inline asm>:1:2: error: instruction not supported on this GPU\n        v_mfma_f32_32x32x8f16 a[0:15], "
           "v[2:3], v[4:5], a[0:15]\n2 errors generated when compiling for gfx1100.\nninja: build stopped: subcommand "
           "failed.\nRuntimeError: Error compiling objects for extension\n")
    _check(tmp_path, "flash_attn_error", build + err, "a.log")
    # DeepSpeed's op builder compiling in the same words stays the op build, whatever else the log mentions
    ds = ("Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...\nBuilding extension module "
          "fused_adam...\n  File \"/usr/lib/python3/dist-packages/deepspeed/ops/op_builder/builder.py\", line 480, in "
          "load\n[1/3] /opt/rocm/bin/hipcc -c multi_tensor_adam.hip -o multi_tensor_adam.cuda.o (flash_attn 2.6.3 "
          "installed)\n")
    _check(tmp_path, "deepspeed_build_jit", ds + err, "b.log")


# NVIDIA/nccl and ROCm/rccl src/misc/shmutils.cc ncclShmOpen's WARNs
@pytest.mark.parametrize("warn", [
    "misc/shmutils.cc:87 NCCL WARN Error: failed to create shared memory file /dev/shm/nccl-Ab12Cd, error No space "
    "left on device (28)",
    "misc/shmutils.cc:110 NCCL WARN Error: Could not map /dev/shm/nccl-Ab12Cd size 9637888, error: Cannot allocate "
    "memory (12)",
])
def test_rccl_shared_memory_it_could_not_get_is_host_memory_seen_as_a_collective_error(tmp_path, warn):
    log = (NOISE + "node1:1234:1290 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct\n"
           f"node1:1234:1290 [1] {warn}\nnode1:1234:1290 [1] NCCL INFO transport/shm.cc:114 -> 2\n" + DIST + WATCHDOG)
    _check(tmp_path, "host_ram_oom", log, code="nccl-shm-exhausted")


def test_the_collectives_own_transport_failure_stays_the_collective(tmp_path):
    log = (NOISE + "node1:1234:1290 [0] transport/net_ib.cc:1294 NCCL WARN NET/IB : Got completion from peer "
           "10.0.0.2<44123> with error 12, opcode 32678, len 0, vendor err 129\n" +
           DIST.replace("unhandled system error", "remote process exited or there was a network error"))
    _check(tmp_path, "nccl_rccl_timeout_hang", log)


def test_rccl_out_of_memory_followed_by_its_host_alloc_warn_is_pinned_host_memory(tmp_path):
    # alloc.h ncclCudaHostCalloc: CUDACHECKGOTO(hipHostMalloc) prints the HIP text, then `Failed to CUDA host alloc`;
    # ncclCudaCalloc's device allocation prints `Failed to CUDA malloc` after the same text
    tail = ("node1:1234:1301 [1] NCCL INFO transport/net.cc:560 -> 1\n[rank1]: torch.distributed.DistBackendError: "
            "NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), "
            "NCCL version 2.18.3\n")
    _check(tmp_path, "host_ram_oom", NOISE + "node1:1234:1301 [1] include/alloc.h:48 NCCL WARN Cuda failure 'out of "
           "memory'\nnode1:1234:1301 [1] include/alloc.h:53 NCCL WARN Failed to CUDA host alloc 4194304 bytes\n" + tail,
           "a.log")
    _check(tmp_path, "gpu_oom", NOISE + "node1:1234:1301 [1] include/alloc.h:120 NCCL WARN Cuda failure 'out of "
           "memory'\nnode1:1234:1301 [1] include/alloc.h:125 NCCL WARN Failed to CUDA malloc 67108864 bytes\n" + tail,
           "b.log")


def test_a_programs_own_hipmalloc_check_with_its_arguments_is_the_gpus_memory(tmp_path):
    _check(tmp_path, "gpu_oom", NOISE + "hipMalloc(&d_a, n * sizeof(float)) failed: out of memory\n")


def test_a_programs_failed_call_with_the_hip_text_is_the_runtime(tmp_path):
    # MIGraphX src/targets/gpu/kernel.cpp: MIGRAPHX_THROW("Failed to launch kernel: " + hip_error(status))
    _check(tmp_path, "hip_error", NOISE + "terminate called after throwing an instance of 'migraphx::version_1::"
           "exception'\n  what():  /src/AMDMIGraphX/src/targets/gpu/kernel.cpp:116: launch: Failed to launch kernel: "
           "invalid device function\nAborted (core dumped)\n", "a.log")
    # strerror's and a library's generic words after `Failed to` are no HIP status
    exp, r = _explain(tmp_path, NOISE + "Failed to load the dataset cache: file not found\n", "b.log")
    assert r is None or r.family != "hip_error", r.family


def test_a_python_exception_refusing_the_card_by_its_gfx(tmp_path):
    _check(tmp_path, "hip_error", NOISE + TB + "NotImplementedError: FP8 is not supported on gfx1030\n", "a.log")
    _check(tmp_path, "flash_attn_error", NOISE + TB + "ValueError: flash attention varlen is not supported on "
           "gfx1030\n", "b.log")
