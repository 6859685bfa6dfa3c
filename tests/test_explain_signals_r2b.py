"""explain (issue 26 item 5, explain-r2b): deaths by signal and GPU faults read by their general shape — a GPU hang
on ROCm, SIGBUS as launchers name it, DeepSpeed's empty resume — each weak sign yielding to a specific cause."""

from __future__ import annotations

from rocm_tune.core.runs.diagnose.diagnose import diagnose

TEARDOWN_7 = """[2024-05-02 10:11:12,001] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 41211
[2024-05-02 10:11:12,002] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 41212
[2024-05-02 10:11:12,318] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'src/train.py', \
'--local_rank=1', 'train.yaml'] exits with return code = -7
"""


def _root(exp):
    assert exp.root is not None
    return exp.diagnoses[exp.root]


def test_a_sigbus_teardown_with_dataloader_workers_beside_is_shared_memory(tmp_path):
    # only the launcher's teardown remains; the YAML beside the log runs DataLoader worker processes
    (tmp_path / "train.yaml").write_text("model_name_or_path: Qwen/Qwen2.5-7B\ndataloader_num_workers: 8\n"
                                         "per_device_train_batch_size: 2\n")
    log = tmp_path / "train.log"
    log.write_text(TEARDOWN_7)
    r = _root(diagnose([str(log)]))
    assert r.family == "host_ram_oom" and "--shm-size" in r.fix
    # without worker processes a bare -7 stays the launcher's exit code (e-host2: of a one-rank run — DeepSpeed's line
    # names the last rank it spawned, and `--local_rank=1` means two ranks exchanging through NCCL's /dev/shm)
    (tmp_path / "train.yaml").write_text("model_name_or_path: Qwen/Qwen2.5-7B\ndataloader_num_workers: 0\n")
    log.write_text(TEARDOWN_7.replace("'--local_rank=1'", "'--local_rank=0'"))
    assert _root(diagnose([str(log)])).family == "launcher_exit"


def test_sigbus_named_by_the_launcher_is_weak(tmp_path):
    summary = ("  rank      : 0 (local_rank: 0)\n  exitcode  : -7 (pid: 3321)\n  error_file: <N/A>\n"
               "  traceback : Signal 7 (SIGBUS) received by PID 3321\n")
    log = tmp_path / "a.log"
    log.write_text(summary)
    r = _root(diagnose([str(log)]))
    assert (r.code, r.family) == ("bus-error-signal", "host_ram_oom")
    # a specific cause earlier in the log wins over the signal's name
    log.write_text("torch.AcceleratorError: HIP error: unspecified launch failure\n" + summary)
    assert _root(diagnose([str(log)])).family == "hip_error"


def test_a_rocm_gpu_hang_is_a_hang_and_a_harmless_library_note_is_not_the_root(tmp_path):
    log = tmp_path / "ci.log"
    log.write_text("'bitsandbytes library load error: Configured ROCm binary not found at /opt/conda/lib/python3.9/"
                   "site-packages/bitsandbytes/libbitsandbytes_rocm63.so'\n"
                   "test/test_x.py::test_quant[cuda-128] HW Exception by GPU node-3 (Agent handle: 0x19a5a420) "
                   "reason :GPU Hang\nFatal Python error: Aborted\n")
    r = _root(diagnose([str(log)]))
    assert (r.code, r.family) == ("gpu-hang", "hip_error")
    assert "dmesg" in r.fix and "HSA_ENABLE_SDMA=0" in r.fix


def test_deepspeed_without_a_checkpoint_to_resume_yields_to_a_later_failure(tmp_path):
    warn = ("[2025-03-16 18:48:13,525] [WARNING] [engine.py:2914:load_checkpoint] Unable to find latest file at "
            "/runs/lora/latest, if trying to load latest checkpoint please ensure this file exists or pass an explicit "
            "checkpoint tag when loading a checkpoint.\n")
    log = tmp_path / "resume.log"
    log.write_text(warn)
    r = _root(diagnose([str(log)]))
    assert (r.code, r.family) == ("deepspeed-no-checkpoint", "checkpoint_resume_mismatch")
    # the run went on from scratch and then ran out of GPU memory: that is the cause
    log.write_text(warn + "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                   "capacity of 63.98 GiB of which 1.02 GiB is free.\n")
    assert _root(diagnose([str(log)])).family == "gpu_oom"


def test_distributed_checkpoint_strict_load_errors_are_a_checkpoint_mismatch(tmp_path):
    # torch.distributed.checkpoint's own planner messages (FSDP2 / torchtitan resumes)
    log = tmp_path / "dcp.log"
    for line in ("[rank0]: RuntimeError: Missing key in checkpoint state_dict: dataloader.dp_rank_0.",
                 "[rank0]: ValueError: Size mismatch between saved torch.Size([8, 2048, 1024]) and current: "
                 "torch.Size([32, 2048, 1024]) for optimizer.state.model.layers.0.mlp.experts.gate_up_proj.exp_avg"):
        log.write_text("[rank0]: Traceback (most recent call last):\n" + line + "\n")
        r = _root(diagnose([str(log)]))
        assert (r.code, r.family) == ("state-dict-mismatch", "checkpoint_resume_mismatch"), line


def test_a_file_missing_inside_a_checkpoint_directory_is_the_checkpoint(tmp_path):
    log = tmp_path / "resume.log"
    log.write_text("Traceback (most recent call last):\n  File \"/opt/conda/lib/python3.10/site-packages/transformers/"
                   "trainer.py\", line 3102, in _load_optimizer_and_scheduler\nFileNotFoundError: [Errno 2] No such file "
                   "or directory: 'saves/qwen/lora/checkpoint-1000/optimizer.pt'\n")
    r = _root(diagnose([str(log)]))
    assert (r.code, r.family) == ("checkpoint-files-missing", "checkpoint_resume_mismatch")


def test_slurm_reports_a_task_killed_by_a_bus_error(tmp_path):
    log = tmp_path / "slurm-4411.out"
    log.write_text("epoch 3 step 1200 loss 1.93\nsrun: error: gpu017: task 2: Bus error\n"
                   "srun: Terminating StepId=4411.0\n")
    r = _root(diagnose([str(log)]))
    assert (r.code, r.family) == ("bus-error-signal", "host_ram_oom")


def test_the_hip_init_warning_is_a_weak_cause_and_rocminfo_out_of_resources_is_no_gpu(tmp_path):
    warn = ("/opt/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:654: UserWarning: HIP initialization: "
            "Unexpected error from hipGetDeviceCount(). Did you run some cuda functions before calling "
            "NumHipDevices() that might have already set an error? Error 101: hipErrorInvalidDevice (Triggered "
            "internally at ../c10/hip/HIPFunctions.cpp:110.)\n  return torch._C._cuda_getDeviceCount() > 0\n")
    log = tmp_path / "a.log"
    log.write_text(warn + "False\n")
    assert (_root(diagnose([str(log)])).code) == "hip-init-failed"
    # a specific error after the warning is the cause
    log.write_text(warn + "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
                   "Aborted (core dumped)\n")
    assert _root(diagnose([str(log)])).code == "hip-invalid-device-function"
    # an ordinary UserWarning stays harmless
    log.write_text("/x/y.py:3: UserWarning: TypedStorage is deprecated.\n")
    exp = diagnose([str(log)])
    assert exp.root is None or exp.diagnoses[exp.root].benign
    # rocminfo's OUT_OF_RESOURCES is the runtime finding no usable GPU, not memory
    log.write_text("ROCk module is loaded\nhsa api call failure at: /long_pathname_so_that_rpms_can_package_the_debug_"
                   "info/src/rocminfo/rocminfo.cc:1140\nCall returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime "
                   "failed to allocate the necessary resources. This error may also occur when the core runtime "
                   "library needs to spawn threads or create internal OS-specific events.\n")
    r = _root(diagnose([str(log)]))
    assert (r.code, r.family) == ("no-gpu-visible", "hip_error")


def test_monitored_barrier_names_the_ranks_that_never_arrived(tmp_path):
    log = tmp_path / "g.log"
    log.write_text("[E ProcessGroupGloo.cpp:138] Rank 1 successfully reached monitoredBarrier, but received errors "
                   "while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n")
    r = _root(diagnose([str(log)]))
    assert r.family == "nccl_rccl_timeout_hang"
    log.write_text("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer\n"
                   "[E ProcessGroupGloo.cpp:138] Ranks 1 failed to pass monitoredBarrier in 1800000 ms\n")
    assert _root(diagnose([str(log)])).family == "nccl_rccl_timeout_hang"
