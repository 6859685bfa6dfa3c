"""explain (issue 26 item 5, r5-run): logs by runner — ms-swift (torchrun under `swift sft/rlhf`, `megatron sft`) and
DeepSpeed's launcher (`[launch.py]` teardown) — read by the general shape of what failed, not by who printed last:
a rank's own error outranks the other ranks' reactions and the launcher's summary; Rust's allocator abort is host
RAM; a DTensor weight reaching a plain collective and cuDNN failing to plan a convolution are version matters; a
runner asking for a package is a missing package. The error lines are as the public threads show them
(ms-swift#4019, #5846, #7826, DeepSpeedExamples#321, #433, pytorch#155463)."""

from __future__ import annotations

import pytest

from helpers_explain import explain_text

SP = "/usr/local/lib/python3.11/site-packages"


def _explain(tmp_path, text):
    return explain_text(tmp_path, text, "run/train.log")


def _torchrun_teardown(first_rank: int) -> str:
    return ("W0114 10:18:02.886000 3311 site-packages/torch/distributed/elastic/multiprocessing/api.py:908] Sending "
            "process 3390 closing signal SIGTERM\n"
            "E0114 10:18:04.120000 3311 site-packages/torch/distributed/elastic/multiprocessing/api.py:882] failed "
            f"(exitcode: 1) local_rank: {first_rank} (pid: 3393) of binary: /usr/local/bin/python3.11\n"
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
            "Root Cause (first observed failure):\n"
            f"  rank      : {first_rank} (local_rank: {first_rank})\n"
            "  exitcode  : 1 (pid: 3393)\n")


def _ds_teardown(code: int) -> str:
    return ("[2023-04-16 21:54:13,235] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 62215\n"
            "[2023-04-16 21:54:16,017] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 62216\n"
            "[2023-04-16 21:54:21,057] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', "
            f"'--local_rank=1'] exits with return code = {code}\n")


DS_START = ("[2023-04-16 21:36:09,031] [INFO] [launch.py:247:main] dist_world_size=2\n"
            "[2023-04-16 21:36:09,031] [INFO] [launch.py:249:main] Setting CUDA_VISIBLE_DEVICES=0,1\n"
            "[2023-04-16 21:36:16,042] [INFO] [comm.py:586:init_distributed] Initializing TorchBackend in DeepSpeed "
            "with backend nccl\n")


def test_rust_allocator_abort_under_the_deepspeed_launcher_is_host_ram_not_the_teardown(tmp_path):
    # DeepSpeedExamples#321: two ranks' messages interleaved, then only the launcher's kill lines
    text = (DS_START + "memory allocation of memory allocation of 20971522097152 bytes failed\n bytes failed\n"
            "memory allocation of 2097152 bytes failed\n" + _ds_teardown(-6))
    _, r = _explain(tmp_path, text)
    assert r is not None and r.family == "host_ram_oom"
    assert "memory allocation of" in r.first.text


def test_the_launchers_sigkill_with_nothing_else_is_still_read_as_host_ram(tmp_path):
    _, r = _explain(tmp_path, DS_START + _ds_teardown(-9))
    assert r is not None and r.family == "host_ram_oom"


DTENSOR_FRAMES = (
    f'  File "{SP}/torch/nn/parallel/distributed.py", line 835, in __init__\n'
    "    _sync_module_states(\n"
    f'  File "{SP}/torch/distributed/tensor/_dispatch.py", line 400, in unwrap_to_op_info\n'
    '    assert mesh is not None, f"found no DeviceMesh from dtensor args for {op_call}!"\n')


@pytest.mark.parametrize("last", [
    "AssertionError: found no DeviceMesh from dtensor args for c10d.broadcast_.default!",
    "RuntimeError: aten.mm.default: got mixed torch.Tensor and DTensor, need to convert all torch.Tensor to DTensor "
    "before calling distributed operators!",
])
def test_a_tensor_parallel_weight_in_data_parallel_is_a_version_matter_on_every_rank(tmp_path, last):
    ranks = "".join(f"[rank{k}]: Traceback (most recent call last):\n"
                    + "".join(f"[rank{k}]: {line}\n" for line in DTENSOR_FRAMES.splitlines())
                    + f"[rank{k}]: {last}\n" for k in (0, 1))
    text = "[INFO:swift] Using MP(device_map) + DDP\n" + ranks + _torchrun_teardown(0)
    _, r = _explain(tmp_path, text)
    assert r is not None and r.family == "version_check"
    assert "transformers" in r.fix and "device_map" in r.fix
    assert "ChildFailedError" not in r.first.text


@pytest.mark.parametrize("last", [
    "RuntimeError: ptrDesc->finalize()",
    "RuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans support the graph.",
    "RuntimeError: GET was unable to find an engine to execute this computation",
])
def test_cudnn_unable_to_plan_a_convolution_is_the_torch_release(tmp_path, last):
    text = ("[rank0]: Traceback (most recent call last):\n"
            f'[rank0]:   File "{SP}/torch/nn/modules/conv.py", line 720, in _conv_forward\n'
            "[rank0]:     return F.conv3d(\n"
            f"[rank0]: {last}\n" + _torchrun_teardown(0))
    _, r = _explain(tmp_path, text)
    assert r is not None and r.family == "version_check" and "torch" in r.fix


def test_a_cudnn_status_error_stays_a_cuda_error(tmp_path):
    # the existing reading of cuDNN's status codes (a kernel/driver failure) is not a release matter
    _, r = _explain(tmp_path, "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n")
    assert r is not None and r.family == "cuda_error"


SWIFT_RAISE = ("Traceback (most recent call last):\n"
               f'  File "{SP}/swift/cli/sft.py", line 7, in <module>\n'
               "    sft_main()\n"
               f'  File "{SP}/swift/llm/model/model/qwen.py", line 640, in get_model_tokenizer_qwen2_vl\n'
               "    raise ValueError(msg)\n")


@pytest.mark.parametrize("last,family", [
    ("ValueError: Please install `qwen_vl_utils`: `pip install qwen_vl_utils`", "missing_package"),
    ("ImportError: Please install flash_attn first: `pip install flash-attn --no-build-isolation`", "missing_package"),
    ("ValueError: Please upgrade transformers to the latest version: `pip install -U transformers`", "version_check"),
])
def test_a_runner_asking_for_a_package_is_a_missing_package_an_upgrade_is_the_version(tmp_path, last, family):
    _, r = _explain(tmp_path, SWIFT_RAISE + last + "\n")
    assert r is not None and r.family == family, (last, r and r.code)


OOM6 = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 6 has a total capacity of "
        "79.10 GiB of which 6.00 MiB is free. Process 566683 has 79.00 GiB memory in use.")
NCCL3 = ("torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
         ":3699, remote process exited or there was a network error, NCCL version 2.27.3")


@pytest.mark.parametrize("order", ["oom-first", "nccl-first"])
def test_the_rank_that_failed_is_the_root_not_the_peer_that_lost_it_nor_the_launcher(tmp_path, order):
    # ms-swift#7826: rank 6 ran out of memory; rank 3 then lost its peer, and torchrun names rank 3 first
    oom = f"[rank6]: Traceback (most recent call last):\n[rank6]: {OOM6}\n"
    nccl = f"[rank3]: Traceback (most recent call last):\n[rank3]: {NCCL3}\n"
    body = oom + nccl if order == "oom-first" else nccl + oom
    _, r = _explain(tmp_path, body + _torchrun_teardown(3))
    assert r is not None and r.family == "gpu_oom" and "rank6" in r.first.text


EXT_ROOT = "Using /root/.cache/torch_extensions/py39_cu117 as PyTorch extensions root...\n"


def test_a_log_that_stops_at_the_jit_extension_step_is_a_stale_build_lock(tmp_path):
    # DeepSpeedExamples#842 / DALLE-pytorch#172: every rank prints the line, then nothing (pytorch#189245's lock)
    text = DS_START + ("[2024-01-02 07:30:41,488] [INFO] [partition_parameters.py:348:__exit__] finished initializing "
                       "model - num_params = 517, num_elems = 2.78B\n") + EXT_ROOT * 4
    exp, r = _explain(tmp_path, text)
    assert r is not None and r.code == "torch-extension-lock-wait" and exp.status == "hang"
    assert r.family == "deepspeed_build_jit" and "TORCH_EXTENSIONS_DIR" in r.fix


@pytest.mark.parametrize("after", [
    "Loading extension module utils...\nTime to load utils op: 0.3 seconds\n",
    "Emitting ninja build file /root/.cache/torch_extensions/py39_cu117/fused_adam/build.ninja...\n"
    "Building extension module fused_adam...\n",
])
def test_the_jit_extension_step_that_went_on_is_no_lock_wait(tmp_path, after):
    _, r = _explain(tmp_path, DS_START + EXT_ROOT + after)
    assert r is None or r.code != "torch-extension-lock-wait"


def test_a_real_error_after_the_jit_extension_step_is_the_root(tmp_path):
    text = DS_START + EXT_ROOT + OOM6 + "\n"
    _, r = _explain(tmp_path, text)
    assert r is not None and r.family == "gpu_oom"
