"""explain's hardware families on the spellings the tools themselves print (issue 26, item 5).

Each line below is written the way its source prints it: the HIP runtime (ROCm/clr hip_error.cpp strings), the
amdgpu kernel driver (gmc interrupt handlers in dmesg/journalctl), TensorFlow's ROCm stream executor, XLA,
PyTorch's c10 (Half conversion check, DataLoader's SIGBUS handler), Megatron's NaN checks, `datasets`' free-space
check, Rust's io error kinds (safetensors), Windows, cuDNN and the NVIDIA kernel driver. The family boundaries are
tested on whole logs: a NaN grad_norm with loss 0.0 is fp16 overflow only in an fp16 run, and a host OOM kill
followed by the launcher's exit is the host OOM.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose.diagnose import explain_text, run_precision

SPELLINGS = [
    ("gpu-memory-fault", "[ 5071.443221] amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:8 "
     "pasid:32772)"),
    ("gpu-memory-fault", "amdgpu 0000:88:00.0: amdgpu: [mmhub0] no-retry page fault (src_id:0 ring:24 vmid:8 "
     "pasid:32768, for process python3 pid 827117 thread python3 pid 827117)"),
    ("gpu-memory-fault", "amdgpu 0000:03:00.0: amdgpu: [gfxhub0] retry page fault (src_id:0 ring:0 vmid:8 pasid:32770)"),
    ("gpu-memory-fault", "amdgpu 0000:c5:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00801031"),
    # explain-r2b: a ring timeout is the driver's hang report (gpu-hang), not a page fault
    ("gpu-hang", "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, emitted "
     "seq=3"),
    ("hip-runtime-error", "torch.AcceleratorError: HIP error: unspecified launch failure"),
    ("hip-runtime-error", "RuntimeError: HIP error: the launch timed out and was terminated"),
    # h7-ver: the runtime hides the GPU because the kernel driver and ROCm user space are of releases that do not fit:
    # version_check (kernel-userspace-mismatch, ahead of no-gpu-visible), as the corpus case rocm-1423 labels it
    ("kernel-userspace-mismatch", "HSA Error: Incompatible kernel and userspace, AMD Radeon RX 6800 disabled. "
     "Upgrade amdgpu."),
    ("oom", "2020-03-11 17:17:25.172727: E tensorflow/stream_executor/rocm/rocm_driver.cc:600] failed to allocate "
     "3.08G (3304535552 bytes) from device: HIP_ERROR_OutOfMemory"),
    ("oom", "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
     "shape[32,4096,4096] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"),
    ("oom", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
     "17179869184 bytes."),
    ("oom", "ROCm error: out of memory"),
    ("fp16-value-overflow", "RuntimeError: value cannot be converted to type Half without overflow: -inf"),
    ("fp16-overflow-skip", "[deepspeed] fp16 dynamic loss scale overflow! Skipping step. Attempted loss scale: "
     "4294967296, reducing to 2147483648"),
    ("nan-loss", "AssertionError: Rank 0: found NaN in local grad norm in backward pass before data-parallel "
     "communication collective. Device: 0, node: node01"),
    ("nan-loss", "RuntimeError: Function 'MmBackward0' returned nan values in its 0th output."),
    ("nan-loss", "FloatingPointError: Loss became infinite or NaN at iteration=1234!"),
    ("disk-full", "OSError: Not enough disk space. Needed: 1.27 GiB (download: 423.11 MiB, generated: 866.93 MiB, "
     "post-processed: Unknown size)"),
    ("disk-full", "safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 122, kind: "
     "FilesystemQuotaExceeded, message: \"Disk quota exceeded\" })"),
    ("disk-full", "npm ERR! code ENOSPC"),
    ("shm-exhausted", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared "
     "memory (shm)."),
    ("shm-exhausted", "OSError: [Errno 28] No space left on device: '/dev/shm/torch_1234_5678'"),
    ("host-alloc-failed", "OSError: [WinError 1455] The paging file is too small for this operation to complete. "
     "Error loading \"C:\\\\venv\\\\lib\\\\site-packages\\\\torch\\\\lib\\\\cudnn_cnn_infer64_8.dll\" or one of its "
     "dependencies."),
    ("cuda-error", "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED"),
    ("cuda-error", "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."),
    ("harmless-warning", "A matching Triton is not available, some optimizations will not be enabled"),
    ("harmless-warning", "Error caught was: No module named 'triton'"),
    ("rl-loss-zero", "{'loss': 0.0, 'grad_norm': 0.0, 'learning_rate': 9e-08, 'reward': 1.0, 'reward_std': 0.0, "
     "'kl': 0.0, 'epoch': 0.0}"),
    ("oom", "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`"),
    ("host-oom-killed", "Process finished with Exit code: 137"),
    ("kernel-oom-killer", "Your session crashed after using all available RAM."),
    ("nan-loss", "train_loss = nan"),
    ("nan-loss", " iteration       10/  500 | lm loss: 2.301E+00 | loss scale: 1.0 | grad norm: nan |"),
    ("disk-full", "sqlite3.OperationalError: database or disk is full"),
    ("harmless-warning", "[rank0]:[W1127 10:00:00.000 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group "
     "has NOT been destroyed before we destruct ProcessGroupNCCL."),
    ("harmless-warning", "[WARNING]  async_io requires the dev libaio .so object and headers but these were not "
     "found."),
    # TensorFlow's loader note is harmless; the same library missing on import is a cause
    ("harmless-warning", "2021-05-01 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
     "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object "
     "file: No such file or directory"),
    ("missing-shared-library", "ImportError: libcudart.so.12: cannot open shared object file: No such file or "
     "directory"),
]


@pytest.mark.parametrize("code,line", SPELLINGS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(SPELLINGS)])
def test_each_tool_spelling_names_its_signature(code, line):
    hit = cat.best_match(line)
    assert hit is not None and hit[0].code == code, [s.code for s, _ in cat.match_line(line)]


@pytest.mark.parametrize("line", [
    "amdgpu 0000:c5:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00000000",   # no fault bit set
    "[    4.042962] amdgpu 0000:63:00.0: amdgpu: [drm] Optional firmware \"amdgpu/isp_4_1_0.bin\" was not found",
    "NCCL INFO NET/IB : Found infiniband device mlx5_0",
    "{'loss': 1.2345, 'grad_norm': 0.87, 'learning_rate': 2e-05, 'epoch': 0.3}",
])
def test_lines_that_look_alike_are_no_cause(line):
    assert all(s.benign or s.priority < 2 for s, _ in cat.match_line(line)), [s.code for s, _ in cat.match_line(line)]


def _collapse_log(head: str) -> str:
    steps = "\n".join(f"{{'loss': {x}, 'grad_norm': {g}, 'learning_rate': 1e-05, 'epoch': {i / 100}}}"
                      for i, (x, g) in enumerate([(1.52, 0.9), (1.48, 0.8), (0.0, "nan"), (0.0, "nan"), (0.0, "nan")]))
    return head + "\n" + steps + "\n"


@pytest.mark.parametrize("head,family", [
    ("06/01/2025 10:00:00 - INFO - llamafactory.hparams.parser - Process rank: 0, device: cuda:0, n_gpu: 1, "
     "distributed training: False, compute dtype: torch.float16", "fp16_overflow"),
    ("06/01/2025 10:00:00 - INFO - llamafactory.hparams.parser - Process rank: 0, device: cuda:0, n_gpu: 1, "
     "distributed training: False, compute dtype: torch.bfloat16", "nan_loss"),
    ("llamafactory-cli train --stage sft --bf16 True --output_dir saves/x", "nan_loss"),
    ("python train.py --fp16 --output_dir out", "fp16_overflow"),
    # ex-num: precision not stated and no sign of fp16 (no flag, no loss scaler, no GPU without bf16): a NaN
    # grad_norm with loss 0.0 is a NaN loss — the corpus's reports of it with no stated precision (LLaMA-Factory
    # lf-8088) are bf16 runs, LLaMA-Factory's examples default to bf16
    ("python train.py --output_dir out", "nan_loss"),
    # ... and on a GPU without bf16 (a V100 here) fp16 is what such a run uses: the overflow again
    ("python train.py --output_dir out\nGPU 0: Tesla V100-SXM2-32GB", "fp16_overflow"),
])
def test_nan_grads_then_loss_zero_is_fp16_overflow_only_in_an_fp16_run(head, family):
    exp = explain_text(_collapse_log(head))
    assert exp.answer == family, [(d.code, d.family) for d in exp.diagnoses]


def test_run_precision_reads_switches_and_the_compute_dtype_line():
    assert run_precision(["compute dtype: torch.bfloat16", "--fp16"]) == "bf16"   # the dtype line decides
    assert run_precision(['"fp16": {"enabled": true, "loss_scale": 0}']) == "fp16"
    assert run_precision(["bf16: true\nfp16: false"]) == "bf16"
    assert run_precision(["fp16: true\nbf16: true"]) is None
    assert run_precision(["mixed_precision: bf16"]) == "bf16"
    assert run_precision(["bf16: false"]) is None


def test_host_oom_kill_then_the_launchers_exit_roots_at_the_kill():
    log = ("{'loss': 1.21, 'grad_norm': 0.5, 'learning_rate': 2e-05, 'epoch': 0.1}\n"
           "[2024-05-01 10:00:01,000] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 4242\n"
           "[2024-05-01 10:00:02,000] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
           "'--local_rank=0'] exits with return code = -9\n"
           "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")
    exp = explain_text(log)
    assert exp.answer == "host_ram_oom"
    root = exp.diagnoses[exp.root]
    assert root.code == "host-oom-killed"
    assert all(d.consequence_of == exp.root for i, d in enumerate(exp.diagnoses) if i != exp.root and not d.benign)


def test_a_dmesg_page_fault_alone_is_a_hip_error_with_a_serialized_rerun_fix():
    log = ("$ sudo dmesg | tail\n"
           "[ 5071.443221] amdgpu 0000:c2:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32772)\n"
           "[ 5071.443234] amdgpu 0000:c2:00.0: amdgpu:  Process python pid 15426 thread python pid 15426\n"
           "[ 5071.443239] amdgpu 0000:c2:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932\n")
    exp = explain_text(log)
    assert exp.status == "failed" and exp.answer == "hip_error"
    assert "AMD_SERIALIZE_KERNEL" in exp.diagnoses[exp.root].fix


def test_shared_memory_full_is_host_memory_not_the_disk():
    exp = explain_text("Traceback (most recent call last):\n"
                       "OSError: [Errno 28] No space left on device: '/dev/shm/torch_1234_5678'\n")
    assert exp.answer == "host_ram_oom" and exp.diagnoses[exp.root].code == "shm-exhausted"


@pytest.mark.parametrize("log", [
    # xFormers' import-time note, then training steps
    "A matching Triton is not available, some optimizations will not be enabled\n"
    "Error caught was: No module named 'triton'\n"
    "{'loss': 1.93, 'grad_norm': 0.61, 'learning_rate': 2e-05, 'epoch': 0.01}\n",
    # GRPO's first steps: loss 0.0 by construction, for more steps than a loss collapse needs
    "{'loss': 0.0, 'grad_norm': 0.0, 'learning_rate': 9e-08, 'reward': 1.0, 'reward_std': 0.0, 'kl': 0.0, "
    "'epoch': 0.0}\n" * 6,
])
def test_harmless_lines_alone_answer_that_nothing_failed(log):
    exp = explain_text(log)
    assert exp.root is None and exp.answer == "benign_warning", [(d.code, d.benign) for d in exp.diagnoses]


def test_an_rl_run_whose_gradients_turn_nan_is_still_a_failure():
    log = ("{'loss': 0.0, 'grad_norm': 0.0, 'learning_rate': 9e-08, 'reward': 1.0, 'kl': 0.0, 'epoch': 0.0}\n" * 3
           + "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 2e-07, 'reward': 0.0, 'kl': nan, 'epoch': 0.0}\n")
    exp = explain_text(log)
    assert exp.root is not None and exp.answer in ("fp16_overflow", "nan_loss")
