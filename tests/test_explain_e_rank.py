"""explain (issue 26, helper e-rank): the first failure is the root, the other ranks' waits for it are not.

FAMILIES.md ("a consequence (other ranks' watchdog timeouts ...) is never the family when the cause is known", amended
rule "Host memory vs collectives"): a rank waiting for a peer - the NCCL/RCCL watchdog's timeout, a c10d store wait,
a socket the peer closed - is the consequence of a rank's own exception or of a rank killed, whatever the text order.
Each log is written from the printing source (torch ProcessGroupNCCL.cpp / TCPStore.cpp / distributed_c10d.py, gloo's
pair.cc, NCCL's socket.cc / proxy.cc, torch elastic's api.py, CPython's multiprocessing, Slurm's slurmstepd, the
kernel's oom_kill.c, docker inspect) with several ranks interleaved, with and without timestamps; none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import peer_waits
from rocm_tune.core.runs.diagnose.diagnose import Hit
from tests.helpers_explain import explain_text

STEPS = ("{'loss': 1.7342, 'grad_norm': 0.91, 'learning_rate': 1.2e-05, 'epoch': 0.31}\n"
         " 31%|###       | 310/1000 [12:40<28:13,  2.45s/it]\n")
RCCL_INIT = ("mi300-3:7712:7790 [0] NCCL INFO RCCL version 2.20.5+hip6.2\n"
             "mi300-3:7713:7795 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[2] via P2P/IPC\n")


def _wd(rank: int, seq: int = 311, op: str = "ALLREDUCE") -> str:
    """ProcessGroupNCCL's watchdog on a rank whose peer stopped (WorkNCCL::checkTimeout, torch 2.4 prefix)."""
    return (f"[rank{rank}]:[E1128 14:02:{10 + rank}.118842 ProcessGroupNCCL.cpp:632] [PG 0 Rank {rank}] Watchdog caught "
            f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=4194304, NumelOut=4194304, "
            f"Timeout(ms)=600000) ran for 600184 milliseconds before timing out.\n"
            f"[rank{rank}]:[E1128 14:02:{10 + rank}.119002 ProcessGroupNCCL.cpp:2280] [PG 0 Rank {rank}] Timeout at "
            f"NCCL work: {seq}, last enqueued NCCL work: {seq}, last completed NCCL work: {seq - 1}.\n")


def _store_get(rank: int) -> str:
    """broadcastUniqueNCCLID: a rank waits in the store for rank 0's NCCL id (torch 2.2+ wording)."""
    return (f"[rank{rank}]: torch.distributed.DistBackendError: [{rank}] is setting up NCCL communicator and retrieving "
            f"ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout\n")


def _sys_err(rank: int) -> str:
    """checkForNCCLErrors before NCCL 2.19: a peer's socket closed comes back as ncclSystemError, its Last error."""
    return (f"[rank{rank}]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
            f"ProcessGroupNCCL.cpp:1691, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
            f"2.18.6\n[rank{rank}]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed "
            f"or device error. \n[rank{rank}]: Last error:\n[rank{rank}]: socketProgress: Connection closed by remote "
            f"peer mi300-3<4{rank}117>\n")


def _tb(rank: int | None, exc: str) -> str:
    p = f"[rank{rank}]: " if rank is not None else ""
    return (f"{p}Traceback (most recent call last):\n{p}  File \"/srv/ft/sft.py\", line 141, in <module>\n"
            f"{p}    main()\n{p}  File \"/srv/ft/sft.py\", line 96, in main\n{p}    model = build(cfg)\n{p}{exc}\n")


def _answer(tmp_path, text: str, name: str = "run.log"):
    e, r = explain_text(tmp_path, text, name)
    assert r is not None
    return e, r


PEFT = "ValueError: Target modules {'query_key_value'} not found in the base model. Please check the target modules and try again."


# ---------------------------------------------------------------- the cause printed after the others' waits, no stamps
def test_a_config_error_printed_after_three_ranks_timeouts_is_the_root(tmp_path):
    log = RCCL_INIT + STEPS + _wd(1) + _wd(3) + _wd(2) + _tb(0, "[rank0]: " + PEFT)
    e, r = _answer(tmp_path, log)
    assert r.family == "config_error" and "query_key_value" in r.first.text
    timeout = next(d for d in e.diagnoses if d.code == "collective-timeout")
    assert timeout.consequence_of == e.root


@pytest.mark.parametrize("wait", [_store_get(1) + _store_get(2),
                                  "[rank1]: torch.distributed.DistStoreError: wait timeout after 1800000ms, keys: "
                                  "/default_pg/0//cuda//0\n",
                                  "[rank2]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81]"
                                  " Timed out waiting 1800000ms for recv operation to complete\n",
                                  _sys_err(1) + _sys_err(3),
                                  "[rank1]: torch.distributed.DistNetworkError: The client socket has timed out after "
                                  "600000ms while trying to connect to (10.4.0.11, 29500).\n",
                                  "mi300-3:7713:7801 [1] misc/socket.cc:544 NCCL WARN socketPollConnect: connect "
                                  "returned Connection refused, exceeded error retry count (35)\n"])
def test_a_store_or_socket_wait_yields_to_a_later_exception_of_another_rank(tmp_path, wait):
    log = RCCL_INIT + wait + _tb(0, "[rank0]: KeyError: 'conversations'")
    _e, r = _answer(tmp_path, log)
    assert r.family != "nccl_rccl_timeout_hang" and "conversations" in r.first.text


def test_a_gpu_oom_after_the_peers_lost_their_socket_is_the_gpu(tmp_path):
    # NCCL's proxy service and the survivors' DistBackendError come first in the text, rank 0's OOM last
    proxy = ("mi300-3:7713:7801 [1] NCCL WARN [Proxy Service 1] Failed to execute operation Connect from rank 1, "
             "retcode 3\n")
    log = RCCL_INIT + STEPS + proxy + _sys_err(1) + _sys_err(2) + \
        _tb(0, "[rank0]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total "
               "capacity of 191.98 GiB of which 1.02 GiB is free.")
    _e, r = _answer(tmp_path, log)
    assert r.family == "gpu_oom"


def test_local_rank_prefixes_of_another_node_are_not_the_raising_rank(tmp_path):
    # torchrun --tee: `[default0]:` is the LOCAL rank; the watchdog's `[PG 0 Rank 8]` the global one on node 2
    wd = ("[default0]:[rank8]:[E1128 14:02:11.1 ProcessGroupNCCL.cpp:632] [PG 0 Rank 8] Watchdog caught collective "
          "operation timeout: WorkNCCL(SeqNum=12, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
          "for 600021 milliseconds before timing out.\n")
    log = wd + "[default0]:Traceback (most recent call last):\n[default0]:  File \"/srv/ft/sft.py\", line 12, in " \
        "<module>\n[default0]:ValueError: --max_seq_length 0 must be a positive integer\n"
    _e, r = _answer(tmp_path, log)
    assert r.family != "nccl_rccl_timeout_hang" and "max_seq_length" in r.first.text


# ---------------------------------------------------------------- with timestamps: the time decides, not the text
def test_with_timestamps_an_exception_stamped_before_the_wait_is_the_cause(tmp_path):
    log = ("[2026-11-28 14:00:01,004] [INFO] [rank0] loading /data/sft.jsonl\n"
           "[2026-11-28 14:30:05,120] [ERROR] [rank1] torch.distributed.DistStoreError: wait timeout after 1800000ms, "
           "keys: /default_pg/0//cuda//0\n"
           "[2026-11-28 14:00:04,881] [ERROR] [rank0] FileNotFoundError: [Errno 2] No such file or directory: "
           "'/data/sft.jsonl'\n")
    _e, r = _answer(tmp_path, log)
    assert r.family != "nccl_rccl_timeout_hang" and "sft.jsonl" in r.first.text


def test_with_timestamps_an_exception_long_after_the_wait_did_not_make_the_peers_wait(tmp_path):
    log = ("[2026-11-28 14:30:05,120] [ERROR] [rank1] torch.distributed.DistStoreError: wait timeout after 1800000ms, "
           "keys: /default_pg/0//cuda//0\n"
           "[2026-11-28 15:31:40,002] [ERROR] [rank0] KeyError: 'conversations'\n")
    _e, r = _answer(tmp_path, log)
    assert r.family == "nccl_rccl_timeout_hang"


# ---------------------------------------------------------------- a rank killed, whatever the order
@pytest.mark.parametrize("kill, code", [
    ("slurmstepd: error: Detected 1 oom_kill event in StepId=88123.0. Some of your processes may have been killed by "
     "the cgroup out-of-memory handler.\n", "slurm-oom-kill"),
    ("[Sat Nov 28 14:01:55 2026] Memory cgroup out of memory: Killed process 7712 (pt_main_thread) total-vm:"
     "412334412kB, anon-rss:250112340kB, file-rss:0kB, shmem-rss:0kB\n", "kernel-oom-killer"),
    ("subprocess.CalledProcessError: Command '['/usr/bin/python3', 'sft.py', '--cfg', 'a.yaml']' died with "
     "<Signals.SIGKILL: 9>.\n", "host-oom-killed"),
    ("AssertionError: <Process name='SpawnProcess-1' pid=7712 parent=7700 stopped exitcode=-SIGKILL>\n",
     "host-oom-killed"),
    ("E1128 14:02:40.551000 7700 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
     "local_rank: 0 (pid: 7712) of binary: /usr/bin/python3\n", "host-oom-killed"),
    ("[rank0]: RuntimeError: DataLoader worker (pid(s) 7790) exited unexpectedly\n", "host-oom-killed"),
    # Ray's memory monitor's detail line on its own (the exception's first line cut off or wrapped)
    ("Memory on the node (IP: 10.4.0.11, ID: 3a4b60) where the task (actor ID: 9f1c02, name=WorkerDict.actor_rollout_"
     "generate_sequences, pid=7712, memory used=61.20GB) was running was 243.10GB / 251.50GB (0.966600), which exceeds "
     "the memory usage threshold of 0.95. Ray killed this worker (ID: 5c9ac3) because it was the most recently "
     "scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip "
     "10.4.0.11`.\n", "ray-oom-killed"),
])
def test_a_rank_killed_for_memory_is_the_cause_of_the_store_waits(tmp_path, kill, code):
    # the waits are NCCL errors of priority `root` (store->get Socket Timeout): a kill is still their cause
    _e, r = _answer(tmp_path, RCCL_INIT + STEPS + _store_get(1) + _store_get(3) + kill)
    assert (r.family, r.code) == ("host_ram_oom", code)


def test_a_shells_killed_after_ranks_that_only_lost_their_peer_is_host_memory(tmp_path):
    killed = "sft.sh: line 9:  7700 Killed                  torchrun --nproc_per_node 8 sft.py\n"
    _e, r = _answer(tmp_path, RCCL_INIT + STEPS + _sys_err(1) + _sys_err(5) + killed)
    assert r.family == "host_ram_oom"


def test_rccls_iommu_advisory_yields_to_a_rank_the_host_killed_but_not_to_a_users_kill(tmp_path):
    advisory = 'mi300-3:7712:7712 [0] NCCL WARN Missing "iommu=pt" from kernel command line which can lead to ' \
               'system instability or hang!\n'
    elastic = ("E1128 14:02:40.551000 7700 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: "
               "-9) local_rank: 0 (pid: 7712) of binary: /usr/bin/python3\n")
    _e, r = _answer(tmp_path, RCCL_INIT + advisory + _wd(1) + elastic)
    assert r.family == "host_ram_oom"
    # stamped: the advisory at the communicator's start, the rank's own error later (its time does not count)
    stamped = ("[2026-11-28 14:00:02,551] " + advisory + _tb(0, "[2026-11-28 14:09:40,007] [rank0] " + PEFT))
    _e, r = _answer(tmp_path, stamped, "s.log")
    assert r.family == "config_error"
    # the shell's Killed of the whole launcher after the advisory and no progress: a user's kill -9 of a hang
    _e, r = _answer(tmp_path, RCCL_INIT + advisory + "Killed\n", "b.log")
    assert r.family == "nccl_rccl_timeout_hang"
    # ... unless every rank was loading weights / tokenizing into host RAM right before it (no progress bar)
    loading = "[INFO|modeling_utils.py:3934] 2026-11-28 14:01:02,118 >> loading weights file /m/model.safetensors\n"
    _e, r = _answer(tmp_path, RCCL_INIT + advisory + loading + "Killed\n", "c.log")
    assert r.family == "host_ram_oom"


# ---------------------------------------------------------------- the collective stays the root
def test_without_anything_else_the_waits_are_the_collective(tmp_path):
    _e, r = _answer(tmp_path, RCCL_INIT + STEPS + _wd(0) + _wd(1) + _sys_err(2))
    assert r.family == "nccl_rccl_timeout_hang"


@pytest.mark.parametrize("line", ["[rank1]: torch.distributed.DistNetworkError: The client socket has timed out "
                                  "after 600000ms while trying to connect to (10.4.0.11, 29500).\n",
                                  "mi300-3:7713:7801 [1] misc/socket.cc:544 NCCL WARN socketPollConnect: connect "
                                  "returned Connection refused, exceeded error retry count (35)\n"])
def test_a_connect_timeout_or_refusal_alone_stays_the_network(tmp_path, line):
    _e, r = _answer(tmp_path, RCCL_INIT + line)
    assert r.family == "nccl_rccl_timeout_hang"


def test_an_exception_that_is_itself_a_collective_failure_is_no_cause(tmp_path):
    abort = _tb(0, "[rank0]: RuntimeError: NCCL communicator was aborted on rank 0. Original reason for failure was: "
                   "NCCL error: remote process exited or there was a network error")
    _e, r = _answer(tmp_path, RCCL_INIT + _store_get(1) + abort)
    assert r.family == "nccl_rccl_timeout_hang"


def test_the_transports_own_error_is_not_a_wait(tmp_path):
    ib = ("mi300-3:7713:7810 [1] NCCL WARN NET/IB : Got completion from peer 10.4.0.12<52311> with status=12 opcode=0 "
          "len=0 vendor err 129 (Recv) localGid ::ffff:10.4.0.11 remoteGids::ffff:10.4.0.12\n")
    _e, r = _answer(tmp_path, RCCL_INIT + STEPS + ib + _tb(0, "[rank0]: KeyError: 'conversations'"))
    assert r.family == "nccl_rccl_timeout_hang"


def test_an_exception_the_run_went_past_is_no_cause_of_a_later_wait(tmp_path):
    handled = _tb(0, "[rank0]: ValueError: could not convert string to float: 'n/a'")
    _e, r = _answer(tmp_path, RCCL_INIT + handled + STEPS + _wd(1) + _wd(2) + _store_get(3))
    assert r.family == "nccl_rccl_timeout_hang"


# ---------------------------------------------------------------- the spellings, from the sources
def _hit(text: str, context: str = "") -> Hit:
    return Hit("nccl-error", "x.log", 0, 0, None, None, None, text, context or text)


@pytest.mark.parametrize("line", [
    "[Rank 3] Caught collective operation timeout: WorkNCCL(OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800353 "
    "milliseconds before timing out.",
    "[rank2]:[E ProcessGroupNCCL.cpp:1182] [Rank 2] NCCL watchdog thread terminated with exception: [Rank 2] Watchdog "
    "caught collective operation timeout",
    "[rank1]:[E1128 ProcessGroupNCCL.cpp:1538] [PG 0 Rank 1] Exception (either an error or timeout) detected by "
    "watchdog at work: 311, last enqueued NCCL work: 311, last completed NCCL work: 310.",
    "[rank1]:[E1128 ProcessGroupNCCL.cpp:1400] [PG 0 Rank 1] Heartbeat monitor timed out! Process will be terminated "
    "after dumping debug info. workMetaList_.size()=1",
    "[rank3]:[F1128 ProcessGroupNCCL.cpp:1306] [PG ID 0 PG GUID 0(default_pg) Rank 3] Terminating the process after "
    "attempting to dump debug info, due to collective timeout or exception.",
    "[rank1]: torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the "
    "remote server shutdown or crash?",
    "INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process group for rank: 1, "
    "key: store_based_barrier_key:1 (world_size=4, num_workers_joined=3, timeout=0:30:00)",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.4.0.11]:29871",
    "mi300-3:7713:7801 [1] misc/socket.cc:538 NCCL WARN socketProgressOpt: Call to recv from 10.4.0.11<45021> failed : "
    "Connection reset by peer",
    "mi300-3:7713:7801 [1] NCCL WARN [Service thread] Error encountered progressing operation=Connect, res=3, closing "
    "connection",
    "RuntimeError: doWait timeout after 1800000ms, keys: /default_pg/0//cuda//0",
    "mi300-3:7713:7801 [1] misc/socket.cc:544 NCCL WARN socketPollConnect: connect returned Connection refused, "
    "exceeded error retry count (35)",
    "mi300-3:7713:7801 [1] os/linux.cc:200 NCCL WARN ncclOsSocketPollConnect: connect to 10.4.0.11<37857> returned "
    "Connection refused, exceeded error retry count after 35 attempts",
])
def test_each_source_spelling_of_a_wait_is_read_as_one(line):
    assert peer_waits.is_wait(_hit(line))


def test_ncclsystemerror_is_a_wait_only_when_its_last_error_is_one():
    status = "[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "
    assert peer_waits.is_wait(_hit(status, status + "\n[rank1]: Last error:\n[rank1]: socketProgress: Connection "
                                           "closed by remote peer mi300-3<41117>"))
    assert not peer_waits.is_wait(_hit(status, status + "\n[rank1]: Last error:\n[rank1]: NET/IB : Got completion "
                                           "from peer 10.4.0.12<52311> with status=12"))
    assert not peer_waits.is_wait(_hit("[rank1]: ncclInternalError: Internal check failed."))
    assert peer_waits.is_own_exception("[rank0]: KeyError: 'conversations'")
    assert not peer_waits.is_own_exception("[rank0]: RuntimeError: Timed out waiting for the other ranks")
    assert not peer_waits.is_own_exception("[rank0]: torch.distributed.DistBackendError: NCCL error in: x.cpp:1")


def test_docker_inspects_oomkilled_false_is_not_a_kill(tmp_path):
    _e, r = _answer(tmp_path, '            "OOMKilled": true,\n            "ExitCode": 137,\n')
    assert r.family == "host_ram_oom"
    e, _r = explain_text(tmp_path, STEPS + '            "OOMKilled": false,\n            "Dead": false,\n', "b.log")
    assert not any(d.code == "kernel-oom-killer" for d in e.diagnoses)
