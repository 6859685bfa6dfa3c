"""explain (issue 26, helper e-peer2): a wait, a timeout or a teardown is never the root when a rank shows a cause.

FAMILIES.md ("a consequence (other ranks' watchdog timeouts, ChildFailedError, a launcher's exit code) is never the
family when the cause is known"; amended rule "Host memory vs collectives"): any Python exception a rank raised -
whatever its class, behind whatever prefix its launcher puts on the rank's lines - ranks above the other ranks' waits,
and where no rule reads it, its class and who raised it give the family. Each log is written from the printing
source (CPython's traceback.py; torch ProcessGroupNCCL.cpp's watchdog, torch elastic's ChildFailedError table and
api.py; torch.multiprocessing spawn.py; DeepSpeed's pdsh runner and launch.py; mpirun --tag-output; Ray's worker
prefix; srun --label and slurmstepd; the kernel's oom_kill.c) with several ranks interleaved, tqdm noise, with and
without timestamps; none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import rank_exceptions
from rocm_tune.core.runs.diagnose.traceback_anatomy import anatomy
from tests.helpers_explain import explain_text

STEPS = ("{'loss': 1.7342, 'grad_norm': 0.91, 'learning_rate': 1.2e-05, 'epoch': 0.31}\n"
         " 31%|###       | 310/1000 [12:40<28:13,  2.45s/it]\r 31%|###       | 311/1000 [12:42<28:10,  2.45s/it]\n")
SP = "/usr/local/lib/python3.10/site-packages/"


def _watchdog(r: int, p: str = "") -> str:
    """torch 2.4 ProcessGroupNCCL.cpp on a rank whose peer stopped: checkTimeout, the watchdog's verdict, its abort."""
    s = f"{p}[rank{r}]:[E1128 14:32:1{r}.11884{r} "
    wd = (f"[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=311, OpType=ALLREDUCE, NumelIn=1, "
          "NumelOut=1, Timeout(ms)=600000) ran for 600184 milliseconds before timing out.")
    return (f"{s}ProcessGroupNCCL.cpp:607] {wd}\n"
            f"{s}ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] Exception (either an error or timeout) "
            "detected by watchdog at work: 311, last enqueued NCCL work: 311, last completed NCCL work: 310.\n"
            f"{s}ProcessGroupNCCL.cpp:621] [Rank {r}] Some NCCL operations have failed or timed out. Due to the "
            "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
            f"{s}ProcessGroupNCCL.cpp:627] [Rank {r}] To avoid data inconsistency, we are taking the entire process "
            "down.\n"
            f"{p}terminate called after throwing an instance of 'c10::DistBackendError'\n"
            f"{p}  what():  [PG 0 (default_pg) Rank {r}] Process group watchdog thread terminated with exception: {wd}\n"
            f"{p}Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most "
            "recent call first):\n")


def _old_watchdog(r: int, p: str = "") -> str:
    """torch 1.13 / 2.0 (no rank prefix of torchrun's, `[Rank N]` in the line)."""
    return (f"{p}[E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum="
            f"5, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800349 milliseconds before timing out.\n"
            f"{p}[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous "
            "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n")


def _remote(r: int, p: str = "") -> str:
    """checkForNCCLErrors once the peer's process exited (NCCL 2.19+: ncclRemoteError)."""
    return (f"{p}torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
            "remote process exited or there was a network error, NCCL version 2.20.5\n"
            f"{p}ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
            "prematurely.\n")


def _store(r: int, p: str = "") -> str:
    return (f"{p}torch.distributed.DistBackendError: [{r}] is setting up NCCL communicator and retrieving ncclUniqueId "
            f"from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout\n")


def _tb(p: str, frames: list[tuple[str, int, str, str]], exc: str) -> str:
    """CPython's traceback (traceback.py) with the launcher's prefix `p` on every line."""
    out = f"{p}Traceback (most recent call last):\n"
    for path, line, fn, src in frames:
        out += f'{p}  File "{path}", line {line}, in {fn}\n{p}    {src}\n'
    return out + "".join(f"{p}{x}\n" for x in exc.split("\n"))


MAIN = ("/srv/ft/train.py", 220, "<module>", "main()")

# torch/distributed/elastic/multiprocessing/errors (ChildFailedError's table) and api.py (_poll, _close)
TABLE = ("W1128 14:32:20.551000 7700 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7712 closing "
         "signal SIGTERM\n"
         "E1128 14:32:21.551000 7700 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) "
         "local_rank: 1 (pid: 7713) of binary: /usr/bin/python3\n"
         "Traceback (most recent call last):\n  File \"/usr/local/bin/torchrun\", line 8, in <module>\n"
         "    sys.exit(main())\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
         "============================================================\ntrain.py FAILED\n"
         "------------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>\n"
         "------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n"
         "  time      : 2026-11-28_14:32:21\n  host      : mi300-3\n  rank      : 1 (local_rank: 1)\n"
         "  exitcode  : -6 (pid: 7713)\n  error_file: <N/A>\n  traceback : Signal 6 (SIGABRT) received by PID 7713\n"
         "============================================================\n")


def _answer(tmp_path, text: str, name: str = "run.log"):
    e, r = explain_text(tmp_path, text, name)
    assert r is not None
    return e, r


def _waits_follow(e) -> None:
    """Every collective diagnosis is the root's consequence."""
    waits = [d for d in e.diagnoses if d.family == "nccl_rccl_timeout_hang"]
    assert waits and all(d.consequence_of == e.root for d in waits)


# ---------------------------------------------------------------- any class, behind any prefix
def test_torchrun_a_plain_exception_raised_by_the_users_check_is_the_root_not_the_sigabrt_of_the_watchdog(tmp_path):
    cause = _tb("[rank3]: ", [MAIN, ("/srv/ft/train.py", 201, "main", 'raise Exception("eval_steps (0) must be '
                                     'positive")')], "Exception: eval_steps (0) must be positive")
    e, r = _answer(tmp_path, STEPS + _watchdog(1) + _watchdog(2) + cause + TABLE)
    assert (r.family, r.code) == ("config_error", "python-exception") and "eval_steps" in r.first.text
    assert r.cause.startswith("rank 3 raised Exception first; the timeouts")
    assert r.numbers["raised_first"] == {"rank": 3, "exception": "Exception"}
    _waits_follow(e)


def test_deepspeed_pdsh_a_bare_assertion_of_the_users_script_on_another_node(tmp_path):
    # DeepSpeed's multi-node runner (pdsh) puts the node on each line; launch.py reports the first failed child
    assert_tb = _tb("worker-1: ", [MAIN, ("/srv/ft/train.py", 88, "build", "assert cfg.world_size % cfg.tp == 0")],
                    "AssertionError")
    launcher = ("worker-1: [2026-11-28 14:02:41,551] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', "
                "'-u', 'train.py', '--local_rank=7'] exits with return code = 1\n")
    e, r = _answer(tmp_path, STEPS + _old_watchdog(2, "worker-0: ") + _old_watchdog(3, "worker-0: ") + assert_tb +
                   launcher)
    assert r.family == "config_error" and r.first.text.endswith("AssertionError")
    assert "raised AssertionError first" in r.cause
    _waits_follow(e)


def test_mpirun_tagged_output_torch_compile_class_is_the_compile_not_the_remote_error(tmp_path):
    tag = "[1,3]<stderr>:"
    frames = [MAIN, ("/srv/ft/train.py", 140, "step", "loss = model(**batch).loss"),
              (SP + "torch/_dynamo/symbolic_convert.py", 600, "call_function", "unimplemented(msg)")]
    cause = _tb(tag, frames, "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(setattr) "
                "[TensorVariable(), ConstantVariable(str)] {}")
    e, r = _answer(tmp_path, STEPS + _remote(1, "[1,1]<stderr>:") + cause + _remote(2, "[1,2]<stderr>:"))
    assert r.family == "config_error" and "Unsupported" in r.first.text
    assert "without compilation" in r.fix and "raised Unsupported first" in r.cause
    _waits_follow(e)


def test_ray_worker_prefix_the_users_refusal_of_a_sample_is_the_data(tmp_path):
    ray = "(WorkerDict pid=7712, ip=10.0.0.2) "
    cause = _tb(ray, [MAIN, ("/srv/ft/data.py", 41, "encode", 'raise ValueError(f"sample {i} has no '
                             '\'conversations\' field")')], "ValueError: sample 1823 has no 'conversations' field")
    _e, r = _answer(tmp_path, STEPS + _store(1, "(WorkerDict pid=7713, ip=10.0.0.3) ") + cause)
    assert r.family == "dataset_error" and "conversations" in r.first.text


def test_srun_label_a_config_parsers_own_class_names_the_key(tmp_path):
    # srun --label puts the task number on every line; hydra's own class for a `_target_` it cannot locate
    frames = [MAIN, (SP + "hydra/_internal/instantiate/_instantiate2.py", 333, "instantiate_node", "raise "
                     "InstantiationException(msg) from e")]
    cause = _tb("3: ", frames, "hydra.errors.InstantiationException: Error locating target 'peft.LoraConfg', set env "
                "var HYDRA_FULL_ERROR=1 to see chained exception.")
    srun = "srun: error: gpu-12: task 3: Exited with exit code 1\nsrun: Terminating StepId=88123.0\n"
    e, r = _answer(tmp_path, STEPS + _old_watchdog(1, "1: ") + _old_watchdog(2, "2: ") + cause + srun)
    assert r.family == "config_error" and "InstantiationException" in r.first.text
    assert r.numbers["raised_first"]["exception"] == "InstantiationException"


def test_spawn_the_childs_exception_under_processraisedexception(tmp_path):
    spawn = _tb("", [MAIN, (SP + "torch/multiprocessing/spawn.py", 160, "join", "raise ProcessRaisedException(msg, "
                            "error_index, failed_process.pid)")], "torch.multiprocessing.spawn.ProcessRaisedException: "
                "\n\n-- Process 3 terminated with the following error:") + \
        _tb("", [(SP + "torch/multiprocessing/spawn.py", 69, "_wrap", "fn(i, *args)"),
                 ("/srv/ft/train.py", 55, "worker", 'raise Exception("--grad_accum must divide the global batch")')],
            "Exception: --grad_accum must divide the global batch (got 3)")
    e, r = _answer(tmp_path, STEPS + _watchdog(1) + _watchdog(2) + spawn)
    assert r.family == "config_error" and "grad_accum" in (r.first.text + " ".join(h.text for h in r.evidence))
    assert r.cause.startswith("rank 3 raised Exception first")
    _waits_follow(e)


# ---------------------------------------------------------------- host memory, whatever the order
@pytest.mark.parametrize("kill", [
    # the kernel (mm/oom_kill.c) in the job's log via `dmesg -T` appended by the user
    "[Sat Nov 28 14:21:55 2026] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), "
    "order=0, oom_score_adj=0\n[Sat Nov 28 14:21:55 2026] Out of memory: Killed process 7714 (python3) total-vm:"
    "512334412kB, anon-rss:250112340kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:490000kB oom_score_adj:0\n",
    # Slurm's cgroup plugin (slurmstepd) and srun's task report
    "slurmstepd: error: Detected 1 oom_kill event in StepId=88123.0. Some of the step tasks have been OOM Killed.\n"
    "srun: error: gpu-12: task 2: Out Of Memory\n",
    # torch's DataLoader worker dying of SIGBUS in a too small /dev/shm (torch/utils/data/_utils/signal_handling.py,
    # dataloader.py _MultiProcessingDataLoaderIter._try_get_data)
    "[rank0]: ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory "
    "(shm).\n[rank0]: RuntimeError: DataLoader worker (pid 7790) is killed by signal: Bus error. It is possible that "
    "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.\n",
    # Kubernetes' container status (kubectl describe pod) and docker compose's exit
    "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n",
    # torch elastic's table with a SIGKILL in the root-cause row
    TABLE.replace("exitcode  : -6", "exitcode  : -9").replace("Signal 6 (SIGABRT)", "Signal 9 (SIGKILL)")
         .replace("failed (exitcode: -6)", "failed (exitcode: -9)"),
])
def test_a_rank_killed_for_host_memory_over_the_watchdogs_before_or_after(tmp_path, kill):
    for i, log in enumerate((STEPS + _watchdog(1) + _watchdog(3) + kill, STEPS + kill + _watchdog(1) + _watchdog(3))):
        e, r = _answer(tmp_path, log, f"k{i}.log")
        assert r.family == "host_ram_oom"
        _waits_follow(e)


# ---------------------------------------------------------------- timestamps decide, not the text order
def test_with_timestamps_an_exception_before_the_waits_is_the_cause_an_hour_later_is_not(tmp_path):
    wait = ("[2026-11-28 14:42:05,120] [ERROR] [rank1] torch.distributed.DistStoreError: wait timeout after "
            "600000ms, keys: /default_pg/0//cuda//0\n")
    raised = ("[2026-11-28 {t},004] [ERROR] [rank0] Traceback (most recent call last):\n"
              '  File "/srv/ft/train.py", line 12, in <module>\n    raise Exception("resume_from must be a directory")\n'
              "Exception: resume_from must be a directory\n")
    _e, r = _answer(tmp_path, wait + raised.format(t="14:32:01"), "a.log")
    assert r.family == "config_error" and "resume_from" in r.first.text
    _e, r = _answer(tmp_path, wait + raised.format(t="15:45:01"), "b.log")
    assert r.family == "nccl_rccl_timeout_hang"


# ---------------------------------------------------------------- the timeout stays the root when no rank shows a cause
def test_only_waits_and_tqdm_noise_stay_the_collective(tmp_path):
    _e, r = _answer(tmp_path, STEPS + _watchdog(0) + STEPS + _watchdog(1) + _remote(2, "[rank2]: ") + TABLE)
    assert r.family == "nccl_rccl_timeout_hang"


@pytest.mark.parametrize("exc", ["KeyboardInterrupt",
                                 "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError",
                                 "TimeoutError: [Errno 110] Connection timed out",
                                 "ConnectionResetError: [Errno 104] Connection reset by peer"])
def test_a_ctrl_c_or_a_waits_own_exception_is_no_cause(tmp_path, exc):
    tb = _tb("[rank0]: ", [MAIN, (SP + "torch/distributed/distributed_c10d.py", 2050, "all_reduce",
                                  "work.wait()")], exc)
    _e, r = _answer(tmp_path, STEPS + _watchdog(1) + _watchdog(2) + tb)
    assert r.family == "nccl_rccl_timeout_hang"


def test_a_traceback_the_run_went_past_is_no_cause_of_later_waits(tmp_path):
    handled = _tb("[rank0]: ", [MAIN, ("/srv/ft/train.py", 30, "log", 'raise Exception("wandb offline")')],
                  "Exception: wandb offline")
    _e, r = _answer(tmp_path, handled + STEPS + _watchdog(1) + _watchdog(2))
    assert r.family == "nccl_rccl_timeout_hang"


# ---------------------------------------------------------------- the reading itself
def test_traceback_ends_skips_other_ranks_lines_and_reads_chained_and_311_markers():
    log = ("[rank3]: Traceback (most recent call last):\n"
           '[rank3]:   File "/srv/ft/train.py", line 9, in <module>\n'
           "[rank1]: 31%|###       | 310/1000\n"
           "[rank3]:     x = cfg['lr'] / 0\n"
           "[rank3]:         ~~~~~~~~~~^~~\n"
           "[rank3]: ZeroDivisionError: float division by zero\n"
           "\nDuring handling of the above exception, another exception occurred:\n\n"
           "Traceback (most recent call last):\n"
           '  File "/srv/ft/train.py", line 11, in <module>\n'
           "    raise\n"
           "mylib.errors.BadShard\n"
           "Traceback (most recent call last):\n"
           "Note: this is not an exception line\n")
    ends = [t for _, t, _head in rank_exceptions.traceback_ends(log.encode())]
    assert ends == ["[rank3]: ZeroDivisionError: float division by zero", "mylib.errors.BadShard"]


@pytest.mark.parametrize("line, cls, is_exc", [
    ("[rank0]: Exception: cfg.output_dir must be set", "Exception", True),
    ("worker-1: AssertionError", "AssertionError", True),
    ("10.0.0.2: torch._dynamo.exc.Unsupported: setattr", "Unsupported", True),
    ("Error: the command failed", None, False),
    ("Note: rerun with NCCL_DEBUG=INFO", "Note", False),
    ("ERROR: something went wrong", None, False),
])
def test_what_is_an_exception_line(line, cls, is_exc):
    assert rank_exceptions.exception_class(line) == cls
    assert rank_exceptions.is_exception_line(line) is is_exc


def test_class_families_from_the_raising_code():
    lib = anatomy([("/srv/ft/train.py", "<module>"), (SP + "pydantic/main.py", "__init__")])
    user = anatomy([("/srv/ft/train.py", "<module>"), ("/srv/ft/launch.py", "run")])
    pre_raise = 'File "/srv/ft/launch.py", line 34, in run\n    raise RuntimeError(message)\n'
    assert rank_exceptions.class_family(lib, "pydantic_core._pydantic_core.ValidationError: 1 validation error", "")[0] \
        == "config_error"
    assert rank_exceptions.class_family(lib, "datasets.exceptions.DatasetGenerationError: An error occurred", "")[0] \
        == "dataset_error"
    # a wrapper script re-raising a command's failure says nothing of its own
    assert rank_exceptions.class_family(user, "RuntimeError: Error running command.", pre_raise) is None
    # the user's own check, and a library's plain ValueError (no family from the class alone)
    assert rank_exceptions.class_family(user, "ValueError: lr must be > 0", pre_raise.replace(
        "RuntimeError(message)", 'ValueError("lr must be > 0")'))[0] == "config_error"
    assert rank_exceptions.class_family(lib, "ValueError: lr must be > 0", pre_raise) is None
