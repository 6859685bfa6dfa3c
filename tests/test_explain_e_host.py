"""explain (issue 26, helper e-host): host RAM and /dev/shm as the cause behind killed ranks and collective failures.

FAMILIES.md "host_ram_oom vs launcher_exit" and the amended "Host memory vs collectives": a rank that died of SIGBUS
in a run that keeps data in /dev/shm, NCCL/RCCL failing to allocate its shared-memory segment or host memory, the
kernel's / systemd's / Slurm's OOM reports -> host_ram_oom, also when the other ranks show a collective error; a
segment removed under NCCL (systemd RemoveIPC), a transport error with no dead rank, a bare `-7` -> not host RAM.
Each log is written from the printing source (NCCL's shmutils.cc / transport/shm.cc / alloc.h, DeepSpeed's launcher,
torch elastic, zsh, faulthandler, mm/oom_kill.c, systemd's unit.c, Slurm's seff/sacct), with the noise of a real run.
"""

from __future__ import annotations

import pytest

from tests.helpers_explain import explain_text

STEPS = ("{'loss': 2.1187, 'grad_norm': 1.612, 'learning_rate': 1.98e-05, 'epoch': 0.02}\n"
         " 3%|3         | 30/1000 [00:41<22:13,  1.37s/it]\n")
DS_7 = ("[2025-02-11 08:14:02,101] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 20311\n"
        "[2025-02-11 08:14:02,102] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 20312\n"
        "[2025-02-11 08:14:02,705] [ERROR] [launch.py:325:sigkill_handler] ['/opt/conda/bin/python', '-u', "
        "'finetune.py', '--local_rank=1', '--deepspeed', 'ds_z2.json'] exits with return code = -7\n")
NCCL_INIT = ("gpu01:20311:20390 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
             "gpu01:20311:20390 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n")
WATCHDOG = ("[rank0]:[E211 08:13:58.412 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=881, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
            "600089 milliseconds before timing out.\n")
NCCL_FAILED = ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
               "1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
               "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n")


def _answer(tmp_path, text, name="run.log"):
    _e, r = explain_text(tmp_path, text, name)
    assert r is not None
    return r


# ---------------------------------------------------------------- NCCL/RCCL's shared-memory segments
@pytest.mark.parametrize("lines", [
    # NCCL/RCCL 2.7-2.11 (transport/shm.cc): shm_open names without /dev/shm
    "node2:881:930 [1] NCCL WARN Error while creating shared memory segment nccl-shm-recv-3a5f0c9e1d2b7a41-1-0-1 "
    "(size 4460544)\nnode2:881:930 [1] NCCL INFO transport/shm.cc:101 -> 2\n",
    # 2.12+ (misc/shmutils.cc) with errno: named by the NCCL rule, not the DataLoader's
    "node2:881:930 [1] NCCL WARN Error: failed to extend /dev/shm/nccl-Qm3xZ1 to 9637892 bytes, error: No space left "
    "on device (28)\n",
    # a peer that could not map the creator's segment for want of memory
    "node2:882:931 [2] NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-Qm3xZ1 (size 9637888), "
    "error: Cannot allocate memory (12)\n",
])
def test_nccl_shared_memory_segment_that_cannot_be_allocated_is_host_memory(tmp_path, lines):
    r = _answer(tmp_path, STEPS + lines + NCCL_FAILED)
    assert (r.family, r.code) == ("host_ram_oom", "nccl-shm-exhausted")
    assert "--shm-size" in r.fix and "NCCL" in r.title


@pytest.mark.parametrize("line", [
    "gpu-node4:7101:7220 [3] NCCL WARN unlink shared memory /dev/shm/nccl-Tr8wE2 failed, error: No such file or "
    "directory\n",
    "gpu-node4:7102:7221 [1] NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-Tr8wE2 (size "
    "4194660), error: No such file or directory (2)\n",
])
def test_a_segment_removed_under_nccl_is_systemd_removeipc_not_memory(tmp_path, line):
    r = _answer(tmp_path, "#SBATCH -N 2 --gpus-per-node=8\n" + NCCL_INIT + line + NCCL_FAILED +
                "srun: error: gpu-node4: task 3: Exited with exit code 1\n"
                "slurmstepd: error: *** STEP 99120.0 ON gpu-node4 CANCELLED AT 2025-03-01T10:02:11 ***\n"
                "srun: error: gpu-node5: tasks 8-15: Terminated\n")
    assert (r.family, r.code) == ("nccl_rccl_timeout_hang", "nccl-shm-removed")
    assert "RemoveIPC=no" in r.fix


def test_a_reasonless_slurm_cancel_does_not_hide_the_nccl_error(tmp_path):
    tail = ("srun: error: gpu-node4: task 3: Exited with exit code 1\n"
            "slurmstepd: error: *** STEP 99120.0 ON gpu-node4 CANCELLED AT 2025-03-01T10:02:11 ***\n"
            "srun: error: gpu-node5: tasks 8-15: Terminated\n")
    r = _answer(tmp_path, NCCL_INIT + STEPS + NCCL_FAILED + tail)
    assert r.family == "nccl_rccl_timeout_hang"
    # Slurm's cancel with its reason is the cause; the peers' NCCL errors are what it left behind
    r = _answer(tmp_path, NCCL_INIT + STEPS + NCCL_FAILED + tail.replace(" ***\n", " DUE TO TIME LIMIT ***\n"), "b.log")
    assert r.family == "slurm_time_limit_preemption"


# ---------------------------------------------------------------- SIGBUS that only the launcher names
@pytest.mark.parametrize("before, user", [
    (NCCL_INIT + STEPS, "NCCL/RCCL"),
    ("root@7e1c2a9b0f3d:/workspace# deepspeed --num_gpus 2 finetune.py --deepspeed ds_z2.json\n" + STEPS, "container"),
    ("$ docker run --gpus all -v $PWD:/w trainer:latest deepspeed finetune.py\n" + STEPS, "container"),
    # rule 3: the other rank's collective timeout is what the dead rank left behind
    (NCCL_INIT + STEPS + WATCHDOG, "NCCL/RCCL"),
])
def test_a_launchers_sigbus_in_a_run_that_uses_shared_memory_is_shm(tmp_path, before, user):
    r = _answer(tmp_path, before + DS_7)
    assert (r.family, r.code) == ("host_ram_oom", "bus-error-signal")
    assert user in r.title and "--shm-size" in r.fix


@pytest.mark.parametrize("before", [
    STEPS,   # nothing says what the rank was doing in /dev/shm: the launcher's exit code is all there is
    "$ docker run --gpus all --ipc=host -v $PWD:/w trainer:latest deepspeed finetune.py\n" + STEPS,
])
def test_a_bare_sigbus_from_the_launcher_stays_the_launchers_exit(tmp_path, before):
    # e-host2: DeepSpeed's exit line names the LAST rank it spawned on the node (launch.py's `cmd`), so
    # `--local_rank=1` says two ranks talk through NCCL's /dev/shm segments: the bare case is a one-rank run
    r = _answer(tmp_path, before + DS_7.replace("'--local_rank=1'", "'--local_rank=0'"))
    assert r.family == "launcher_exit"


def test_a_sigbus_yields_to_a_transport_error_and_a_watchdog_alone_stays_a_timeout(tmp_path):
    # no dead rank: the watchdog's timeout with the launcher's SIGABRT (the watchdog's own abort) is the collective
    abort = DS_7.replace("= -7", "= -6")
    assert _answer(tmp_path, NCCL_INIT + STEPS + WATCHDOG + abort).family == "nccl_rccl_timeout_hang"
    ib = ("gpu01:20311:20400 [0] NCCL WARN NET/IB : Got completion from peer 10.1.0.12<52311> with error 12, opcode 0,"
          " len 0, vendor err 129 (Recv)\n")
    assert _answer(tmp_path, NCCL_INIT + STEPS + ib + NCCL_FAILED, "ib.log").family == "nccl_rccl_timeout_hang"


@pytest.mark.parametrize("line", [
    "zsh: bus error  python train.py --config cfg.yaml\n",
    "[1]    48213 bus error (core dumped)  python train.py\n",
    "Fatal Python error: Bus error\n\nThread 0x00007f3a2c9ff640 (most recent call first):\n"
    "  File \"/usr/lib/python3.10/multiprocessing/connection.py\", line 379 in _recv\n",
    "trainer-1 exited with code 135\n",
    "Process finished with exit code 135 (interrupted by signal 7: SIGBUS)\n",
])
def test_a_bus_error_named_by_the_shell_or_faulthandler_is_shared_memory(tmp_path, line):
    r = _answer(tmp_path, STEPS + line)
    assert r.family == "host_ram_oom" and "/dev/shm" in r.fix


@pytest.mark.parametrize("line", ["zsh: segmentation fault  python train.py\n", "trainer-1 exited with code 1\n"])
def test_other_crashes_of_the_shell_or_container_are_not_shared_memory(tmp_path, line):
    _e, r = explain_text(tmp_path, STEPS + line)
    assert r is None or r.family != "host_ram_oom"


# ---------------------------------------------------------------- host RAM named by NCCL, the kernel, systemd, Slurm
def test_ncc_host_allocation_failure_is_host_ram_not_the_collective(tmp_path):
    r = _answer(tmp_path, NCCL_INIT + "gpu01:20311:20390 [0] NCCL WARN Failed to malloc 2097152 bytes\n"
                "gpu01:20311:20390 [0] NCCL INFO init.cc:400 -> 2\n" + NCCL_FAILED)
    assert (r.family, r.code) == ("host_ram_oom", "host-alloc-failed")


@pytest.mark.parametrize("line, code", [
    ("[ 9911.130211] Killed process 2210 (python) total-vm:98765432kB, anon-rss:65432100kB, file-rss:0kB, "
     "shmem-rss:0kB\n", "kernel-oom-killer"),
    ("Mar 02 10:00:00 ws systemd[1]: session-3.scope: A process of this unit has been killed by the OOM killer.\n",
     "kernel-oom-killer"),
    ("Mar 02 10:00:00 ws systemd[1]: finetune.service: Failed with result 'oom-kill'.\n", "kernel-oom-killer"),
    ("Job ID: 4412087\nCluster: hpc\nState: OUT_OF_MEMORY (exit code 0)\nMemory Utilized: 63.98 GB\n", "slurm-oom-kill"),
    ("       JobID    JobName      State ExitCode\n------------ ---------- ---------- --------\n"
     "4412087           train OUT_OF_ME+    0:125\n", "slurm-oom-kill"),
])
def test_oom_reports_of_the_kernel_systemd_and_slurm_are_host_ram(tmp_path, line, code):
    r = _answer(tmp_path, STEPS + WATCHDOG + line)
    assert (r.family, r.code) == ("host_ram_oom", code)


def test_a_gpu_library_out_of_memory_status_is_not_slurms(tmp_path):
    _e, r = explain_text(tmp_path, STEPS + "rocblas error: rocblas_status_memory_error CUDA_ERROR_OUT_OF_MEMORY\n")
    assert r is None or r.code != "slurm-oom-kill"


@pytest.mark.parametrize("line", [
    "[1]+  Killed                  nohup python train.py > train.log 2>&1\n",   # bash's job control
    "Command exited with non-zero status 137\n",                                # GNU time
    "make: *** [Makefile:12: train] Error 137\n",                              # make
])
def test_sigkill_as_bash_time_and_make_report_it_is_host_ram(tmp_path, line):
    r = _answer(tmp_path, STEPS + line)
    assert (r.family, r.code) == ("host_ram_oom", "host-oom-killed")


@pytest.mark.parametrize("line", ["[1]+  Done                    python train.py\n",
                                  "make: *** [Makefile:12: train] Error 1\n"])
def test_a_job_that_ended_otherwise_is_not_a_sigkill(tmp_path, line):
    _e, r = explain_text(tmp_path, STEPS + line)
    assert r is None or r.code != "host-oom-killed"


ZERO_CONFIG = ("[2025-02-11 08:01:12,410] [INFO] [config.py:1001:print]   zero_config .................. stage=3 "
               "contiguous_gradients=True reduce_scatter=True overlap_comm=True load_from_fp32_weights=True "
               "elastic_checkpoint=False offload_param=DeepSpeedZeroOffloadParamConfig(device='{p}', nvme_path=None, "
               "buffer_count=5, buffer_size=100,000,000, max_in_cpu=1,000,000,000, pin_memory=True) "
               "offload_optimizer=DeepSpeedZeroOffloadOptimizerConfig(device='{o}', nvme_path=None, buffer_count=4, "
               "pin_memory=True, pipeline=False, pipeline_read=False, pipeline_write=False, fast_init=False, "
               "ratio=1.0) sub_group_size=1,000,000,000\n")


def test_deepspeeds_config_dump_with_cpu_offload_is_evidence_for_a_killed_rank(tmp_path):
    kill = DS_7.replace("= -7", "= -9")
    r = _answer(tmp_path, ZERO_CONFIG.format(p="cpu", o="cpu") + STEPS + kill)
    assert r.family == "host_ram_oom" and "offloads the parameters" in r.fix
    r = _answer(tmp_path, ZERO_CONFIG.format(p="none", o="cpu") + STEPS + kill, "opt.log")
    assert "offloads the optimizer" in r.fix and "offloads the parameters" not in r.fix
    r = _answer(tmp_path, ZERO_CONFIG.format(p="none", o="none") + STEPS + kill, "none.log")
    assert "offloads" not in r.fix
