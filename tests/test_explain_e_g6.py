"""`explain` on the gaps an independent sample of public logs showed (helper e-g6, issue 26): vLLM's sleep-mode
allocator running out of memory when the rollout engine wakes (and its other driver errors), SGLang's KV pool with no
room, NCCL/RCCL's `Duplicate GPU detected` (two ranks on one GPU: the launch's placement), and Triton's
OutOfResources in a library's kernel (the library's launch config cannot run on this GPU: hip_error / cuda_error).

Every log is written from the message's source (named beside it), not copied from the corpus; each rule has
look-alikes that keep their own family.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose import kernel_platform
from rocm_tune.core.runs.diagnose.diagnose import diagnose


def _explain(tmp_path, text, name="train.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp.diagnoses[exp.root] if exp.root is not None else None


SP = "/usr/local/lib/python3.10/dist-packages"
ROCM_HEAD = ("INFO 05-02 09:12:01 [__init__.py:239] Automatically detected platform rocm.\n"
             "torch 2.6.0+rocm6.3, GPU: AMD Instinct MI300X (gfx942)\n")
CUDA_HEAD = "INFO 05-02 09:12:01 [__init__.py:239] Automatically detected platform cuda.\n"

# ---------------------------------------------------------------- vLLM sleep mode (csrc/cumem_allocator.cpp)
# CUDA_CHECK: snprintf("CUDA Error: %s at %s:%d", cuGetErrorString(...), __FILE__, __LINE__); printed to stderr and
# raised as RuntimeError by python_create_and_map (wake_up) / python_unmap_and_release (sleep)
WAKE_TB = ("(LLMRayActor pid=5521) Traceback (most recent call last):\n"
           f"(LLMRayActor pid=5521)   File \"{SP}/vllm/device_allocator/cumem.py\", line 231, in wake_up\n"
           "(LLMRayActor pid=5521)     create_and_map(handle)\n"
           f"(LLMRayActor pid=5521)   File \"{SP}/vllm/device_allocator/cumem.py\", line 78, in create_and_map\n"
           "(LLMRayActor pid=5521)     python_create_and_map(*allocation_handle)\n")
OPENRLHF_STEP = ("Episode [1/1]:  31%|###       | 98/312 [2:11:40<4:47:03, 80.39s/it, policy_loss=0.0213, "
                 "reward=0.512, response_length=1840]\n")


@pytest.mark.parametrize("head,line,code,family", [
    # OpenRLHF's vLLM engine waking after a training step (CUDA build, path of a source build)
    (CUDA_HEAD + OPENRLHF_STEP + WAKE_TB,
     "(LLMRayActor pid=5521) RuntimeError: CUDA Error: out of memory at /tmp/build/vllm/csrc/cumem_allocator.cpp:145\n",
     "vllm-sleep-wake-oom", "gpu_oom"),
    # vLLM's ROCm build: cumem_allocator_compat.h maps cuGetErrorString to hipGetErrorString, the prefix stays
    (ROCM_HEAD + OPENRLHF_STEP + WAKE_TB,
     "(LLMRayActor pid=5521) RuntimeError: CUDA Error: out of memory at /app/vllm/csrc/cumem_allocator.cpp:120\n",
     "vllm-sleep-wake-oom", "gpu_oom"),
    # only the C++ side's std::cerr line (TRL colocate mode, the engine in the trainer's process), then the trainer dies
    (CUDA_HEAD + "{'loss': 0.0132, 'grad_norm': 0.41, 'learning_rate': 9.8e-07, 'reward': 0.43, 'epoch': 0.12}\n",
     "CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62\n"
     "[rank0]: RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62\n",
     "vllm-sleep-wake-oom", "gpu_oom"),
    # look-alike: another status of the driver's VMM calls is the runtime's, not memory
    (CUDA_HEAD + WAKE_TB,
     "(LLMRayActor pid=5521) RuntimeError: CUDA Error: operation not supported at /workspace/csrc/cumem_allocator.cpp:93\n",
     "vllm-cumem-driver-error", "cuda_error"),
])
def test_vllm_sleep_mode_allocator(tmp_path, head, line, code, family):
    r = _explain(tmp_path, head + line)
    assert r is not None and (r.family, r.code) == (family, code)
    if family == "gpu_oom":
        assert "gpu_memory_utilization" in r.fix and "offload" in r.fix


def test_vllm_cumem_driver_error_on_rocm_is_the_hip_runtime(tmp_path):
    r = _explain(tmp_path, ROCM_HEAD + WAKE_TB + "(LLMRayActor pid=5521) RuntimeError: CUDA Error: invalid argument "
                 "at /app/vllm/csrc/cumem_allocator.cpp:210\n")
    assert r is not None and r.family == "hip_error"


@pytest.mark.parametrize("line,code", [
    # vLLM's own start-up refusals keep their readings (gpu_oom)
    ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
     "initializing the engine.", "oom"),
    # SGLang's memory pool (model_runner.py init_memory_pool; pool_configurator.py adds the current value)
    ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", "sglang-kv-pool-too-small"),
    ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: "
     "mem_fraction_static=0.45", "sglang-kv-pool-too-small"),
])
def test_rollout_engine_memory_refusals(tmp_path, line, code):
    r = _explain(tmp_path, "[2025-06-01 10:00:01 TP0] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, "
                 "avail mem=3.10 GB, mem usage=14.25 GB.\nTraceback (most recent call last):\n" + line + "\n")
    assert r is not None and (r.family, r.code) == ("gpu_oom", code)


# ---------------------------------------------------------------- NCCL/RCCL init.cc: Duplicate GPU detected
# WARN("Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx", ...); ncclInvalidUsage
TRL_CLIENT = ("[INFO|trainer.py:2414] ***** Running training *****\n"
              "Traceback (most recent call last):\n"
              f"  File \"{SP}/trl/extras/vllm_client.py\", line 239, in init_communicator\n"
              "    self.pynccl_comm = PyNcclCommunicator(pg, device=self.device)\n"
              f"  File \"{SP}/vllm/distributed/device_communicators/pynccl.py\", line 99, in __init__\n"
              "    self.comm: ncclComm_t = self.nccl.ncclCommInitRank(\n")
TORCH_DDP = ("[rank1]: Traceback (most recent call last):\n"
             "[rank1]:   File \"/home/u/proj/train_ddp.py\", line 41, in <module>\n[rank1]:     dist.barrier()\n"
             "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
             "NCCLUtils.hpp:317, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5\n"
             "[rank1]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
             "[rank1]: Last error:\n")


@pytest.mark.parametrize("text", [
    # the trainer's side of TRL's weight-sync communicator (trainer and server rank 0 on one GPU)
    TRL_CLIENT + "\ngpu-node-3:7781:7781 [0] init.cc:1011 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on "
    "CUDA device 3b000\nRuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)\n",
    # torch's ProcessGroupNCCL: the DistBackendError first, NCCL's reason after `Last error:`
    TORCH_DDP + "[rank1]: Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000\n",
    # RCCL (ROCm) prints NCCL's text
    "RCCL version 2.20.5+hip6.2 HEAD:8f4f4ad\nmi300-node:912:912 [0] NCCL WARN Duplicate GPU detected : rank 3 and "
    "rank 2 both on CUDA device c1000\n[rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/"
    "distributed/c10d/ProcessGroupNCCL.cpp:2027, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version "
    "2.20.5\n",
])
def test_duplicate_gpu_is_the_placement(tmp_path, text):
    r = _explain(tmp_path, text)
    assert r is not None and (r.family, r.code) == ("config_error", "nccl-duplicate-gpu")
    assert "set_device(local_rank)" in r.fix and "vllm-serve" in r.fix


@pytest.mark.parametrize("text,code", [
    # invalid usage with no reason shown stays the collective library's
    (TORCH_DDP.replace("[rank1]: Last error:\n", ""), "nccl-error"),
    # a real collective timeout stays a hang
    ("[rank0]:[E312 10:31:02.000000 811 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=1201, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600041 "
     "milliseconds before timing out.\n", "collective-timeout"),
])
def test_collective_look_alikes_stay_nccl(tmp_path, text, code):
    r = _explain(tmp_path, text)
    assert r is not None and (r.family, r.code) == ("nccl_rccl_timeout_hang", code)


# ---------------------------------------------------------------- Triton OutOfResources outside attention
# triton/compiler/compiler.py _init_handles: raise OutOfResources(num_warps * warp_size, n_max_threads, "threads") /
# (shared, max_shared, "shared memory"); errors.py: `out of resource: {name}, Required: {r}, Hardware limit: {l}`
TRITON = (f"  File \"{SP}/triton/runtime/jit.py\", line 345, in <lambda>\n"
          "    return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)\n"
          f"  File \"{SP}/triton/runtime/jit.py\", line 691, in run\n    kernel.run(grid_0, grid_1, grid_2, stream)\n"
          f"  File \"{SP}/triton/compiler/compiler.py\", line 381, in _init_handles\n")
THREADS = ("triton.runtime.errors.OutOfResources: out of resource: threads, Required: 2048, Hardware limit: 1024. "
           "Reducing block sizes or `num_stages` may help.\n")
SHARED = ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: "
          "65536. Reducing block sizes or `num_stages` may help.\n")
TB = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 88, in <module>\n    trainer.train()\n"


def _frame(path, fn, code):
    return f"  File \"{path}\", line 120, in {fn}\n    {code}\n"


ROCM_STACK = "Torch: 2.5.1+rocm6.2. AMD Instinct MI300X, gfx942:sramecc+:xnack-\n"
CUDA_STACK = "Torch: 2.5.1+cu124. NVIDIA RTX A6000, compute capability 8.6\n"


@pytest.mark.parametrize("text,family,lib", [
    # unsloth's cross-entropy kernel on a wave64 GPU (num_warps=32 -> 2048 threads)
    (ROCM_STACK + TB + _frame(f"{SP}/unsloth/kernels/cross_entropy_loss.py", "forward", "_cross_entropy_forward[(n_rows,)](")
     + TRITON + THREADS, "hip_error", "unsloth"),
    # unsloth's generated trainer code calling the kernel (unsloth_compiled_cache in the user's directory)
    (ROCM_STACK + TB + _frame("/workspace/unsloth_compiled_cache/unsloth_compiled_module_qwen2.py", "forward",
                              "_fast_kernel[grid](x, w)") + TRITON + THREADS, "hip_error", "unsloth"),
    # Liger's RMSNorm on MI300X's 64 KiB LDS
    (ROCM_STACK + TB + _frame(f"{SP}/liger_kernel/ops/rms_norm.py", "rms_norm_forward",
                              "_rms_norm_forward_kernel[(n_rows,)](") + TRITON + SHARED, "hip_error", "liger_kernel"),
    # vLLM's fused MoE kernel on an NVIDIA workstation GPU (99 KiB): the library's config for another GPU
    (CUDA_STACK + TB + _frame(f"{SP}/vllm/model_executor/layers/fused_moe/fused_moe.py", "invoke_fused_moe_kernel",
                              "fused_moe_kernel[grid](") + TRITON +
     SHARED.replace("65536", "101376").replace("131072", "147456"), "cuda_error", "vllm"),
])
def test_library_kernel_out_of_resources_is_the_platform(tmp_path, text, family, lib):
    r = _explain(tmp_path, text)
    assert r is not None and (r.family, r.code) == (family, "torch-compile-error")
    assert r.title.startswith(lib) and f"upgrade {lib}" in r.fix and "per block" in r.cause
    assert r.numbers.get("limit") in (1024, 65536, 101376)


@pytest.mark.parametrize("text,family", [
    # the user's own kernel: their block sizes (config_error)
    (ROCM_STACK + TB + _frame("/home/u/proj/kernels/tiled_matmul.py", "matmul", "matmul_kernel[grid](a, b, c)")
     + TRITON + SHARED, "config_error"),
    # torch.compile's generated kernel (inductor's cache): the compile settings (config_error)
    (CUDA_STACK + TB + _frame("/tmp/torchinductor_u/xk/cxkq3.py", "call", "triton_red_fused_0.run(buf0)")
     + TRITON + SHARED, "config_error"),
    # no frame names the caller: the kernel config's reading stays
    (ROCM_STACK + THREADS, "config_error"),
    # an attention kernel in a library stays the attention's (e-g4)
    (ROCM_STACK + TB + _frame(f"{SP}/flash_attn/flash_attn_triton_amd/fwd_prefill.py", "attention_prefill_forward",
                              "attn_fwd[grid](q, k, v)") + TRITON + SHARED, "flash_attn_error"),
])
def test_out_of_resources_look_alikes(tmp_path, text, family):
    r = _explain(tmp_path, text)
    assert r is not None and (r.family, r.code) == (family, "torch-compile-error")
    assert "num_stages" in r.fix


@pytest.mark.parametrize("pre,lib", [
    (TB + _frame(f"{SP}/bitsandbytes/triton/quantize_rowwise.py", "quantize_rowwise", "_quantize_rowwise[grid](")
     + TRITON, "bitsandbytes"),
    ("  File \"C:\\venv\\Lib\\site-packages\\liger_kernel\\ops\\swiglu.py\", line 60, in swiglu_forward\n" + TRITON,
     "liger_kernel"),
    (TB + TRITON, None),
    ("", None),
])
def test_library_of_kernel(pre, lib):
    assert kernel_platform.library_of_kernel(pre) == lib


@pytest.mark.parametrize("line,code", [
    ("RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62", "vllm-sleep-wake-oom"),
    ("CUDA Error: unknown error at /opt/vllm/csrc/cumem_allocator.cpp:301", "vllm-cumem-driver-error"),
    ("host:1:1 [0] NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000", "nccl-duplicate-gpu"),
    ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.", "sglang-kv-pool-too-small"),
    # another extension's CUDA_CHECK with the same spelling: a device allocation failure (gpu_oom's generic reading)
    ("CUDA Error: out of memory at /src/flashinfer/csrc/batch_prefill.cu:210", "oom"),
])
def test_catalogue_lines(line, code):
    hit = cat.best_match(line)
    assert hit is not None and hit[0].code == code
