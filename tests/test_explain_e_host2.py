"""explain (issue 26, helper e-host2): when only the teardown remains, the one line that decides.

FAMILIES.md ("a consequence ... is never the family when the cause is known", "host_ram_oom vs launcher_exit",
amended rule 3 "Host memory vs collectives"): the rank that failed FIRST decides over the launcher's teardown and the
other ranks' collective noise. Each log is written from the printing source — torch elastic's ChildFailedError table
and api.py's agent lines (errors/__init__.py, multiprocessing/api.py), DeepSpeed's launch.py, pdsh, NCCL's WARN lines
and torch's DistBackendError, Slurm's slurmstepd, the kernel's OOM killer, HF datasets' and TRL's progress bars — with
several ranks interleaved, and none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import teardown
from tests.helpers_explain import explain_text

STEPS = ("{'loss': 2.0431, 'grad_norm': 1.377, 'learning_rate': 1.96e-05, 'epoch': 0.04}\n"
         " 4%|4         | 40/1000 [01:02<24:51,  1.55s/it]\n")
NCCL_INIT = ("gpu-07:4120:4188 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
             "gpu-07:4121:4190 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/CUMEM/read\n")


def _row(idx: int, rank: int, code: int, msg: str, pid: int | None = None) -> str:
    """One row of torch elastic's table (errors/__init__.py _FAILURE_FORMAT_TEMPLATE)."""
    pid = pid if pid is not None else 4120 + rank
    return (f"[{idx}]:\n  time      : 2025-03-02_11:40:31\n  host      : gpu-07\n  rank      : {rank} (local_rank: "
            f"{rank})\n  exitcode  : {code} (pid: {pid})\n  error_file: <N/A>\n  traceback : {msg}")


def _signal(n: int, name: str, rank: int) -> str:
    return f"Signal {n} ({name}) received by PID {4120 + rank}"


NO_TB = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def _table(root: str, others: list[str]) -> str:
    """ChildFailedError's message (_MSG_FORMAT_TEMPLATE): `Failures:` the other ranks, then the first observed."""
    return ("Traceback (most recent call last):\n  File \"/opt/conda/bin/torchrun\", line 8, in <module>\n"
            "    sys.exit(main())\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n" + "=" * 60 +
            "\ntrain.py FAILED\n" + "-" * 60 + "\nFailures:\n" + ("\n".join(others) or "  <NO_OTHER_FAILURES>") +
            "\n" + "-" * 60 + "\nRoot Cause (first observed failure):\n" + root + "\n" + "=" * 60 + "\n")


def _agent(first_code: int, first_rank: int, forced: tuple[int, ...] = ()) -> str:
    """The agent's teardown (api.py _close, then SubprocessContext._poll's first failure)."""
    out = "".join(f"W0302 11:40:01.224000 139 torch/distributed/elastic/multiprocessing/api.py:897] Sending process "
                  f"{4120 + r} closing signal SIGTERM\n" for r in range(4) if r != first_rank)
    out += "".join(f"W0302 11:40:31.301000 139 torch/distributed/elastic/multiprocessing/api.py:915] Unable to shutdown "
                   f"process {4120 + r} via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL\n" for r in forced)
    return out + (f"E0302 11:40:31.950000 139 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: "
                  f"{first_code}) local_rank: {first_rank} (pid: {4120 + first_rank}) of binary: /opt/conda/bin/python\n")


def _ds(code: int, last_local_rank: int = 3) -> str:
    """DeepSpeed's launch.py: `cmd` is the last rank it spawned on the node, the code the first failed rank's."""
    return ("[2025-03-02 11:40:08,512] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 5120\n"
            "[2025-03-02 11:40:08,513] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 5121\n"
            "[2025-03-02 11:40:09,118] [ERROR] [launch.py:325:sigkill_handler] ['/opt/conda/bin/python', '-u', "
            f"'train.py', '--local_rank={last_local_rank}', '--deepspeed', 'ds_z2.json'] exits with return code = "
            f"{code}\n")


WATCHDOG = "".join(f"[rank{r}]:[E302 11:39:58.41{r} ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective "
                   "operation timeout: WorkNCCL(SeqNum=5120, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                   "Timeout(ms)=600000) ran for 600043 milliseconds before timing out.\n" for r in (0, 1, 3))
# what the surviving ranks print when a peer vanished (NCCL's proxy and socket WARN lines, torch's DistBackendError)
PEERS = ("gpu-07:4121:4190 [1] NCCL WARN [Proxy Service 1] Failed to execute operation Connect from rank 1, retcode 3\n"
         "gpu-07:4123:4195 [3] NCCL WARN NET/Socket : socket progress error\n"
         "[rank3]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
         "internal error - please report this issue to the NCCL developers, NCCL version 2.21.5\n"
         "[rank3]: ncclInternalError: Internal check failed.\n")
TB0 = ("[rank0]: Traceback (most recent call last):\n[rank0]:   File \"/workspace/train.py\", line 88, in <module>\n"
       "[rank0]:     trainer.train()\n")
CONFIG = ("[rank0]: ValueError: --load_best_model_at_end requires the saving steps to be a round multiple of the "
          "evaluation steps, but found 500, which is not a round multiple of 300.\n")


def _answer(tmp_path, text: str, name: str = "run.log"):
    _e, r = explain_text(tmp_path, text, name)
    assert r is not None
    return r


# ---------------------------------------------------------------- the table: first failure and the launcher's own kills
def test_the_launchers_own_sigkills_after_its_sigterm_timeout_are_not_the_oom_killer(tmp_path):
    # rank 0 refused its setting; ranks 1 and 3 outlived the SIGTERM and were SIGKILLed by the agent (torch >= 2.9
    # writes them into the table "for bookkeeping")
    others = [_row(1, 1, -9, _signal(9, "SIGKILL", 1)), _row(2, 2, -15, _signal(15, "SIGTERM", 2)),
              _row(3, 3, -9, _signal(9, "SIGKILL", 3))]
    log = STEPS + TB0 + CONFIG + _agent(1, 0, forced=(1, 3)) + _table(_row(0, 0, 1, NO_TB), others)
    assert _answer(tmp_path, log).family == "config_error"
    # the watchdog's own abort (-6) first, the others force-killed: the collective timeout
    log = STEPS + WATCHDOG + _agent(-6, 2, forced=(1, 3)) + \
        _table(_row(0, 2, -6, _signal(6, "SIGABRT", 2)), others[:1] + others[2:])
    assert _answer(tmp_path, log, "b.log").family == "nccl_rccl_timeout_hang"


def test_a_first_failure_by_sigkill_the_launcher_did_not_send_stays_host_ram(tmp_path):
    log = STEPS + WATCHDOG + _agent(-9, 2) + _table(_row(0, 2, -9, _signal(9, "SIGKILL", 2)),
                                                     [_row(1, 0, -15, _signal(15, "SIGTERM", 0))])
    r = _answer(tmp_path, log)
    assert (r.family, r.code) == ("host_ram_oom", "host-oom-killed") and "dmesg" in r.confirm


def test_teardown_records_read_from_the_table_and_the_agent():
    old = ("*" * 40 + "\n   train.py FAILED\n" + "=" * 40 + "\nRoot Cause:\n[0]:\n  time: 2021-06-07_18:24:51\n"
           "  rank: 3 (local_rank: 3)\n  exitcode: -9 (pid: 126)\n  error_file: <N/A>\n"
           "  msg: \"Signal 9 (SIGKILL) received by PID 126\"\n" + "=" * 40 + "\nOther Failures:\n[1]:\n"
           "  time: 2021-06-07_18:24:51\n  rank: 0 (local_rank: 0)\n  exitcode: -15 (pid: 123)\n")
    t = teardown.parse(old)   # torch 1.9: `Root Cause:` first, `Other Failures:` after it
    first = t.first()
    assert first is not None and (first.rank, first.code) == (3, -9) and t.killed_from_outside()
    assert [e.root for e in t.exits] == [True, False]
    new = _agent(-9, 1, forced=(3,)) + _table(_row(0, 1, -9, _signal(9, "SIGKILL", 1)),
                                                 [_row(1, 3, -9, _signal(9, "SIGKILL", 3))])
    t = teardown.parse(new)
    first = t.first()
    assert first is not None and (first.kind, first.rank, first.code) == ("elastic", 1, -9)
    assert t.forced == frozenset({4123}) and t.killed_from_outside()
    assert teardown.launcher_kill("  exitcode  : -9 (pid: 4123)", t.forced)
    assert not teardown.launcher_kill("  exitcode  : -9 (pid: 4121)", t.forced)
    assert teardown.other_row(new[:new.index("[1]:\n  time") + 5]) is True
    assert teardown.parse(STEPS).first() is None


# ---------------------------------------------------------------- a host kill over the other ranks' collective noise
@pytest.mark.parametrize("kill, code", [
    ("srun: error: gpu-07: task 2: Killed\nslurmstepd: error: Detected 1 oom-kill event(s) in StepId=4412087.0. Some of "
     "your processes may have been killed by the cgroup out-of-memory handler.\n", "slurm-oom-kill"),
    ("[Sun Mar  2 11:40:00 2025] Out of memory: Killed process 4122 (python) total-vm:98765432kB, "
     "anon-rss:65432100kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:140000kB oom_score_adj:0\n",
     "kernel-oom-killer"),
    ("[rank2]: RuntimeError: DataLoader worker (pid 5123) is killed by signal: Killed. \n", "host-oom-killed"),
    (_ds(-9), "host-oom-killed"),
    ("pdsh@gpu-07: gpu-08: ssh exited with exit code 247\n", "host-oom-killed"),   # launch.py's sys.exit(-9)
])
def test_a_rank_killed_for_host_memory_is_the_cause_of_the_peers_nccl_errors(tmp_path, kill, code):
    r = _answer(tmp_path, NCCL_INIT + STEPS + PEERS + kill)
    assert (r.family, r.code) == ("host_ram_oom", code)


def test_without_a_kill_the_peers_nccl_errors_stay_the_collective(tmp_path):
    assert _answer(tmp_path, NCCL_INIT + STEPS + PEERS + _ds(-6)).family == "nccl_rccl_timeout_hang"
    ib = ("gpu-07:4121:4199 [1] NCCL WARN NET/IB : Got completion from peer 10.1.0.12<52311> with error 12, opcode 0, "
          "len 0, vendor err 129 (Recv)\n")
    assert _answer(tmp_path, NCCL_INIT + STEPS + ib + _ds(1), "ib.log").family == "nccl_rccl_timeout_hang"
    # ssh's own failure (255) is the runner not reaching the node, not a killed rank
    r = _answer(tmp_path, NCCL_INIT + "pdsh@gpu-07: gpu-08: ssh exited with exit code 255\n", "ssh.log")
    assert r.family == "nccl_rccl_timeout_hang"


def test_a_shells_killed_of_the_whole_launcher_does_not_explain_away_an_nccl_failure(tmp_path):
    # bash's report that the launcher itself got SIGKILL (a user's kill -9 of a hung job as often as not): the OOM
    # killer takes the biggest process, a rank, whose death the launcher reports — not the launcher
    killed = "train.sh: line 12:  4108 Killed                  torchrun --nproc_per_node 4 train.py\n"
    assert _answer(tmp_path, NCCL_INIT + STEPS + PEERS + killed).family == "nccl_rccl_timeout_hang"


def test_a_lone_sigkill_after_the_time_limit_is_slurms(tmp_path):
    log = (STEPS + "slurmstepd: error: *** STEP 4412087.0 ON gpu-07 CANCELLED AT 2025-03-02T11:40:00 DUE TO TIME "
           "LIMIT ***\n" + _ds(-9))
    assert _answer(tmp_path, log).family == "slurm_time_limit_preemption"


# ---------------------------------------------------------------- the rank's own error over the others' collective lines
@pytest.mark.parametrize("order", ["error first", "peers first"])
def test_the_rank_the_launcher_names_first_decides_over_the_peers_nccl_errors(tmp_path, order):
    body = TB0 + CONFIG + PEERS if order == "error first" else PEERS + TB0 + CONFIG
    r = _answer(tmp_path, NCCL_INIT + body + _agent(1, 0) + _table(_row(0, 0, 1, NO_TB), []))
    assert r.family == "config_error"


def test_an_unnamed_exception_of_the_first_rank_is_not_read_as_the_collective(tmp_path):
    log = NCCL_INIT + PEERS + TB0 + "[rank0]: KeyError: 'lora_target'\n" + _agent(1, 0) + _table(_row(0, 0, 1, NO_TB), [])
    assert _answer(tmp_path, log).family != "nccl_rccl_timeout_hang"


def test_without_the_launcher_a_rank_error_decides_only_when_it_came_first(tmp_path):
    ds_batch = ("[rank0]: AssertionError: Check batch related parameters. train_batch_size is not equal to "
                "micro_batch_per_gpu * gradient_acc_step * world_size 32 != 4 * 2 * 2\n")
    assert _answer(tmp_path, NCCL_INIT + TB0 + ds_batch + PEERS).family == "config_error"
    # the NCCL failure printed before the error: the collective may well be the cause
    assert _answer(tmp_path, NCCL_INIT + PEERS + TB0 + ds_batch, "b.log").family == "nccl_rccl_timeout_hang"


def test_a_rank_error_the_run_went_past_does_not_hide_a_later_nccl_failure(tmp_path):
    handled = TB0 + "[rank0]: ValueError: invalid literal for int() with base 10: 'n/a'\n"
    assert _answer(tmp_path, NCCL_INIT + handled + STEPS + PEERS).family == "nccl_rccl_timeout_hang"


# ---------------------------------------------------------------- SIGBUS, hang signs, the first failure in the title
@pytest.mark.parametrize("last_rank, before, family", [
    (3, STEPS, "host_ram_oom"),        # four ranks on the node: NCCL/RCCL's buffers are /dev/shm segments
    (0, STEPS, "launcher_exit"),       # one rank, nothing else in /dev/shm: the exit code is all there is
    (3, "$ docker run --gpus all --shm-size=64g -v $PWD:/w trainer:latest deepspeed train.py\n" + STEPS,
     "launcher_exit"),                 # /dev/shm sized by hand
])
def test_a_sigbus_of_several_ranks_on_one_node_is_shared_memory(tmp_path, last_rank, before, family):
    r = _answer(tmp_path, before + _ds(-7, last_rank))
    assert r.family == family
    if family == "host_ram_oom":
        assert "several ranks" in r.title and "--shm-size" in r.fix
    else:
        assert "SIGBUS" in r.title


BARRIER = "".join(f"[rank{r}]:[W302 11:02:0{r}.412 ProcessGroupNCCL.cpp:4115] [PG 0 Rank {r}]  using GPU {r} to perform "
                  "barrier as devices used by this process are currently unknown. This can potentially cause a hang if "
                  "this rank to GPU mapping is incorrect.\n" for r in (1, 2, 3))


def test_a_barrier_the_launchers_teardown_follows_is_no_hang(tmp_path):
    assert _answer(tmp_path, BARRIER).code == "barrier-no-progress"
    r = _answer(tmp_path, BARRIER + _ds(1), "b.log")
    assert r.family == "launcher_exit" and "exit 1" in r.title
    assert _answer(tmp_path, BARRIER + _ds(-7), "c.log").family == "host_ram_oom"


@pytest.mark.parametrize("code, word", [(-11, "SIGSEGV"), (-4, "SIGILL"), (2, "usage error")])
def test_launcher_exit_names_the_first_failed_rank_and_what_its_end_means(tmp_path, code, word):
    name = {-11: "SIGSEGV", -4: "SIGILL"}.get(code)
    row = _row(0, 2, code, _signal(-code, name, 2) if name else NO_TB)
    r = _answer(tmp_path, STEPS + _agent(code, 2) + _table(row, [_row(1, 0, -15, _signal(15, "SIGTERM", 0))]))
    assert (r.family, r.code) == ("launcher_exit", "child-failed")   # the table's signal row is not an exception
    assert word in r.title and "rank 2 failed first" in r.title


def test_a_teardown_with_no_exit_code_after_a_datasets_filter_is_host_ram(tmp_path):
    tear = _agent(1, 0).split("E0302")[0]   # only the SIGTERM lines: the user's paste ends there
    r = _answer(tmp_path, "Filter (num_proc=32):  63%|██████▎   | 630000/1000000 [00:41<00:24, 15216.40 examples/s]\n"
                + tear)
    assert r.family == "host_ram_oom"
    assert _answer(tmp_path, STEPS + tear, "b.log").family == "launcher_exit"


RAY_DIED = ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
            "\tclass_name: ActorModelRayActor\n\tactor_id: 9a1b7c\n\tpid: 88940\n\tip: 10.0.0.11\n"
            "The actor is dead because its worker process has died. Worker exit type: UNEXPECTED_SYSTEM_EXIT Worker exit "
            "detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential "
            "root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop "
            "--force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.\n")


def test_a_ray_worker_that_vanished_is_rays_own_first_guess_the_oom_killer(tmp_path):
    r = _answer(tmp_path, "(ActorModelRayActor pid=88940) Loading checkpoint shards:  19%|█▉        | 7/37\n" + RAY_DIED)
    assert (r.family, r.code) == ("host_ram_oom", "ray-worker-died") and "dmesg" in r.confirm
    # weak: the worker's own failure in the log comes first
    crash = ("(ActorModelRayActor pid=88940) RuntimeError: CUDA error: an illegal memory access was encountered\n"
             "(ActorModelRayActor pid=88940) CUDA kernel errors might be asynchronously reported at some other API "
             "call, so the stacktrace below might be incorrect.\n")
    assert _answer(tmp_path, crash + RAY_DIED, "b.log").family == "cuda_error"
    # and it does not make the other workers' NCCL errors consequences: they may be what killed it
    assert _answer(tmp_path, NCCL_INIT + PEERS + RAY_DIED, "c.log").family == "nccl_rccl_timeout_hang"
