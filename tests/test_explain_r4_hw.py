"""explain (issue 26, r4-hw): general rules from cases outside GitHub issues (HPC centre and project docs,
troubleshooting notes): a HIP API call its caller reports failed, a Slurm cancel that names no reason, a run that
finished past a warning-level line, Kaggle's RAM notice."""

from __future__ import annotations

from helpers_explain import explain_text as _explain

FINISHED = ("100%|##########| 300/300 [10:00<00:00,  2.0s/it]\n"
            "{'train_runtime': 600.1, 'train_samples_per_second': 4.1, 'train_loss': 0.52, 'epoch': 3.0}\n")
SRUN_TEARDOWN = ("srun: error: nid002892: task 39: Aborted (core dumped)\n"
                 "srun: launch/slurm: _step_signal: Terminating StepId=2789083.0\n"
                 "slurmstepd: error: *** STEP 2789083.0 ON nid002892 CANCELLED AT 2023-11-03T01:03:07 ***\n"
                 "srun: error: nid002892: tasks 0-38,40-63: Killed\n")




def test_a_sycl_runtime_reporting_a_failed_hip_call_is_a_hip_error_not_the_slurm_teardown(tmp_path):
    # gitlab.com/gromacs/gromacs work item 5078 (AdaptiveCpp on Dardel's MI250X)
    e, r = _explain(tmp_path, "step 8800: timed with pme grid 96 96 96\n"
                    "[hipSYCL Error] from /tmp/hipSYCL-0.9.4/src/runtime/hip/hip_queue.cpp:355 @ submit_memset() : "
                    "hip_queue: hipMemsetAsync() failed (error code = HIP:1)\n"
                    "terminate called without an active exception\n" + SRUN_TEARDOWN)
    assert r is not None and r.family == "hip_error" and r.code == "hip-runtime-error"
    e, r = _explain(tmp_path, "[AdaptiveCpp Error] from queue.cpp:12 @ submit(): hipStreamSynchronize() failed "
                    "(error code = HIP:700)\n", name="acpp.log")
    assert r is not None and r.family == "hip_error"


def test_a_program_checking_a_hip_call_itself_is_a_hip_error_but_a_fallback_or_a_missing_file_is_not(tmp_path):
    e, r = _explain(tmp_path, "hipLaunchKernel failed: invalid configuration argument\nAborted (core dumped)\n")
    assert r is not None and r.family == "hip_error"
    # out of memory stays the GPU's memory
    e, r = _explain(tmp_path, "hipMalloc failed: out of memory\n", name="oom.log")
    assert r is not None and r.family == "gpu_oom"
    # rocBLAS falling back from hipBLASLt to Tensile is harmless; a library name is not a HIP API call
    e, r = _explain(tmp_path, "rocBLAS warning: hipBlasLT failed, falling back to tensile.\n" + FINISHED, name="fb.log")
    assert r is None or r.family != "hip_error"


def test_a_slurm_cancel_without_a_reason_is_the_teardown_after_another_cause(tmp_path):
    e, r = _explain(tmp_path, "Memory access fault by GPU node-2 (Agent handle: 0x55) on address 0x7f. Reason: "
                    "Unknown.\n" + SRUN_TEARDOWN)
    assert r is not None and r.family == "hip_error"
    # alone, the same cancel is still what the log says (scancel, a preemption without a reason)
    e, r = _explain(tmp_path, "epoch 3 step 1200 loss 1.93\n"
                    "slurmstepd: error: *** JOB 884213 ON gpu17 CANCELLED AT 2024-03-02T21:04:41 ***\n", name="s.log")
    assert r is not None and r.family == "slurm_time_limit_preemption"
    # a time limit names itself and stays the cause whatever else the killed ranks printed
    e, r = _explain(tmp_path, "slurmstepd: error: *** JOB 884213 ON gpu17 CANCELLED AT 2024-03-02T21:04:41 DUE TO "
                    "TIME LIMIT ***\n[rank3]: RuntimeError: NCCL communicator was aborted on rank 3.\n", name="t.log")
    assert r is not None and r.family == "slurm_time_limit_preemption"


def test_a_warning_level_line_in_a_run_that_finished_is_not_its_failure(tmp_path):
    # aws-ofi-nccl on a node without EFA: NCCL logs WARN and falls back to sockets; the run trains to the end
    text = ("node1:152:386 [0] NCCL WARN NET/OFI Unable to find a protocol that worked.  Failing initialization.\n"
            "node1:152:386 [0] NCCL WARN NET/OFI aws-ofi-nccl initialization failed\n"
            "node1:152:386 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.5<0>\n"
            "{'loss': 0.41, 'learning_rate': 1e-05, 'epoch': 2.9}\n" + FINISHED)
    e, r = _explain(tmp_path, text)
    assert r is None and e.status == "finished"
    # the same WARN lines in a run that died are still read (test expectation follows FAMILIES.md amended rule 3:
    # NCCL's /dev/shm segment that cannot grow is host memory, the other ranks' NCCL error its consequence)
    e, r = _explain(tmp_path, "node1:214:380 [1] NCCL WARN Error: failed to extend /dev/shm/nccl-03v824 to 4194660 "
                    "bytes\n[rank1]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:2027, "
                    "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n", name="d.log")
    assert r is not None and r.family == "host_ram_oom"


def test_kaggles_ram_notice_is_host_ram(tmp_path):
    e, r = _explain(tmp_path, "Epoch 1:  41%|####      | 820/2000 [08:11<11:47,  1.67it/s]\n"
                    "Your notebook tried to allocate more memory than is available. It has restarted.\n")
    assert r is not None and r.family == "host_ram_oom"


def test_a_container_runtime_that_cannot_pass_in_dev_kfd_is_no_gpu_visible(tmp_path):
    for i, line in enumerate((
            'docker: Error response from daemon: error gathering device information while adding custom device '
            '"/dev/kfd": no such file or directory.',
            "Error: crun: error stat'ing file `/dev/kfd`: No such file or directory: OCI runtime attempted to invoke "
            "a command that was not found",
            "ROCk module is NOT loaded, possibly no GPU devices")):
        e, r = _explain(tmp_path, line + "\n", name=f"c{i}.log")
        assert r is not None and r.family == "hip_error" and r.code == "no-gpu-visible", line


def test_rocminfos_out_of_resources_is_no_usable_gpu_not_gpu_memory(tmp_path):
    e, r = _explain(tmp_path, "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the "
                    "necessary resources. This error may also occur when the core runtime library needs to spawn "
                    "threads or create internal OS-specific events.\n")
    assert r is not None and r.family == "hip_error"
    # the runtime's own queue abort with the same status in a training run stays GPU memory
    e, r = _explain(tmp_path, ":0:rocdevice.cpp :2881: 33032 us: [pid:12 tid:0x7f] Callback: Queue 0x7f aborting "
                    "with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary "
                    "resources. code: 0x1008\n", name="q.log")
    assert r is not None and r.family == "gpu_oom"


def test_an_infiniband_completion_with_a_non_zero_status_is_an_nccl_transport_failure(tmp_path):
    e, r = _explain(tmp_path, "NET/IB : Got completion from peer 10.0.0.2<40000> with status=12 opcode=0 len=0 "
                    "vendor err 129 (Send) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_0\n")
    assert r is not None and r.family == "nccl_rccl_timeout_hang"


def test_disk_full_and_enomem_in_the_locales_users_post_logs_in(tmp_path):
    for i, (line, fam) in enumerate((
            ("cp: 写入 'output/checkpoint-500/model.safetensors' 出错: 设备上没有空间", "disk_full_save"),
            ("tar: out/global_step500/mp_rank_00_model_states.pt: Wrote only 4096 of 10240 bytes: "
             "Kein Platz mehr auf dem Gerät", "disk_full_save"),
            ("safetensors_rust.SafetensorError: Error while serializing: I/O error: 디스크 (os error 28)",
             "disk_full_save"),
            ("OSError: [Errno 12] 无法分配内存", "host_ram_oom"),
            ("OSError: [WinError 8] Not enough memory resources are available to process this command",
             "host_ram_oom"))):
        e, r = _explain(tmp_path, line + "\n", name=f"l{i}.log")
        assert r is not None and r.family == fam, line
