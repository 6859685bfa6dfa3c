"""`explain` on what a collective timeout or NCCL error hides (helper e-hidden, issue 26).

Each log is written as the tools print it - NCCL/RCCL's `host:pid:tid [dev] file.cc:line NCCL WARN ...`, torch's
`[rankN]:` prefixes and glog records from ProcessGroupNCCL.cpp, torchrun's elastic agent, Slurm's srun - with the
ranks' streams interleaved and the usual noise. The deciding lines are the tools' own sources' spellings (named next
to each log), none copied from the corpus:
- NVIDIA/nccl src/init.cc, src/bootstrap.cc, src/misc/argcheck.cc: a launch/usage mistake -> config_error; peers of
  another NCCL release -> version_check.
- huggingface/accelerate state.py: RTX 40xx without NCCL_P2P_DISABLE/NCCL_IB_DISABLE -> nccl_rccl_timeout_hang.
- procps free/top, /proc/meminfo: the host's memory exhausted -> host_ram_oom over the other ranks' timeouts.
- a multi-node job (srun -N, torchrun --nnodes, mpirun --hostfile) that joined its group and then printed nothing
  failing -> nccl_rccl_timeout_hang; one node, or a run that finished, is no such sign.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.core.runs.diagnose import memory_snapshot, silent_hang

NOISE = ("[INFO|trainer.py:2128] 2025-03-02 09:14:03,117 >> ***** Running training *****\n"
         "[INFO|trainer.py:2129] 2025-03-02 09:14:03,117 >>   Num examples = 51,760\n")
STEPS = ("{'loss': 1.8731, 'grad_norm': 0.917, 'learning_rate': 1.99e-05, 'epoch': 0.05}\n"
         " 5%|5         | 52/1000 [03:12<58:31,  3.70s/it]\n")


def _wd(rank: int, sec: int = 12, seq: int = 311) -> str:
    """ProcessGroupNCCL.cpp's watchdog record (torch 2.3+), as a rank's stream prints it."""
    return (f"[rank{rank}]:[E302 09:44:{sec:02d}.418220 {7100 + rank} torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
            f"632] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE,"
            f" NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800043 milliseconds before timing out.\n"
            f"[rank{rank}]:[E302 09:44:{sec:02d}.419001 {7100 + rank} torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
            f"2421] [PG 0 (default_pg) Rank {rank}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq}, last "
            f"completed NCCL work: {seq - 1}.\n")


def _backend_error(rank: int, what: str, status: str = "invalid usage") -> str:
    return (f"[rank{rank}]: torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/"
            f"NCCLUtils.hpp:317, {status} (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5\n"
            f"[rank{rank}]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
            f"[rank{rank}]: Last error:\n[rank{rank}]: {what}\n")


def _explain(tmp_path, text):
    log = tmp_path / "job.out"
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


# (family, root code, log, source of the deciding line)
CASES = {
    # node 2 launched with --node_rank 1 but WORLD_SIZE counted as 8: its rank 8 is past the world size; node 1's
    # ranks wait in their first all-reduce
    "invalid-rank-past-world": (
        "config_error", "nccl-launch-mismatch",
        NOISE + _wd(0) + "gpu-b02:51422:51422 [0] NCCL INFO Bootstrap : Using ib0:10.3.0.12<0>\n"
        "gpu-b02:51422:51422 [0] init.cc:2184 NCCL WARN Invalid rank requested : 8/8\n" + _wd(3, 13)
        + _backend_error(8, "Invalid rank requested : 8/8", "invalid argument"),
        "nccl src/init.cc ncclCommInitRankDev"),
    # the two nodes' launchers counted the ranks differently (--nproc_per_node 8 on one, 4 on the other): the root
    # gives up, every rank then times out in the store
    "bootstrap-rank-count": (
        "config_error", "nccl-launch-mismatch",
        NOISE + "gpu-a01:30112:30178 [0] bootstrap.cc:297 NCCL WARN Bootstrap Root : mismatch in rank count from procs "
        "12 : 16\n[rank5]: torch.distributed.DistStoreError: Socket Timeout\n" + _wd(1, 40),
        "nccl src/bootstrap.cc bootstrapRoot (older)"),
    "bootstrap-rank-twice": (
        "config_error", "nccl-launch-mismatch",
        "gpu-a01:30112:30178 [0] bootstrap.cc:358 NCCL WARN Bootstrap Root : rank 3 of 8 ranks has already checked in\n"
        + _wd(0, 20) + _wd(5, 21),
        "nccl src/bootstrap.cc bootstrapRoot: two processes given one rank"),
    # NCCL 2.30's spelling of two ranks on one GPU, interleaved with the other rank's torch error
    "multi-rank-one-gpu": (
        "config_error", "nccl-launch-mismatch",
        NOISE + "[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:3356, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.30.3\n"
        "ws-4:88001:88001 [0] init.cc:1057 NCCL WARN Multiple Ranks are using the same GPU/Partition. Set "
        "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this feature.\n" + _wd(0, 30),
        "nccl src/init.cc initTransportsRank (2.30)"),
    "tensor-on-other-gpu": (
        "config_error", "nccl-launch-mismatch",
        STEPS + "ws-4:88001:88105 [2] argcheck.cc:24 NCCL WARN AllReduce : sendbuff allocated on device 0 mismatchs "
        "with NCCL device 2\n" + _backend_error(2, "AllReduce : sendbuff allocated on device 0 mismatchs with NCCL "
                                                  "device 2") + _wd(1, 50),
        "nccl src/misc/argcheck.cc CudaPtrCheck"),
    # the second node's container has another torch (NCCL 2.18.5 vs 2.21.5)
    "nccl-version-skew": (
        "version_check", "nccl-version-skew",
        NOISE + _wd(0, 5) + "node-b:7740:7802 [0] init.cc:966 NCCL WARN Mismatched NCCL version detected : rank 8 "
        "version 21805 rank 0 version 22105\n" + _backend_error(8, "Mismatched NCCL version detected : rank 8 version "
                                                                   "21805 rank 0 version 22105") + _wd(2, 6),
        "nccl src/init.cc initTransportsRank"),
    "accelerate-rtx-3090-4000": (
        "nccl_rccl_timeout_hang", "p2p-ib-unsupported-card",
        "[rank1]: Traceback (most recent call last):\n[rank1]:   File \"/home/u/ft/train.py\", line 41, in <module>\n"
        "[rank1]:     accelerator = Accelerator()\n"
        "[rank1]:   File \"/home/u/.venv/lib/python3.10/site-packages/accelerate/state.py\", line 240, in __init__\n"
        "[rank1]:     raise NotImplementedError(\n"
        "[rank1]: NotImplementedError: Using RTX 3090 or 4000 series doesn't support faster communication broadband "
        "via P2P or IB. Please set `NCCL_P2P_DISABLE=\"1\"` and `NCCL_IB_DISABLE=\"1\" or use `accelerate launch` "
        "which will do this automatically.\n"
        "E0302 09:12:45.904000 139912 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) "
        "local_rank: 0 (pid: 48211) of binary: /home/u/.venv/bin/python\n",
        "accelerate src/accelerate/state.py (0.2x wording)"),
    # the user's `free -h` after the job stopped; the kill went to dmesg, not the log
    "free-h-exhausted": (
        "host_ram_oom", memory_snapshot.CODE,
        NOISE + STEPS + _wd(1, 10) + _wd(3, 11) + _wd(2, 11) + "$ free -h\n"
        "               total        used        free      shared  buff/cache   available\n"
        "Mem:           503Gi       497Gi       1.9Gi       2.1Gi       4.0Gi       3.2Gi\n"
        "Swap:             0B          0B          0B\n",
        "procps-ng free (3.3.10+ columns, -h units)"),
    "free-old-columns": (
        "host_ram_oom", memory_snapshot.CODE,
        STEPS + _wd(4, 30) + "$ free -m\n"
        "             total       used       free     shared    buffers     cached\n"
        "Mem:        257831     256990        841          0         52        310\n"
        "-/+ buffers/cache:     256628       1203\n"
        "Swap:            0          0          0\n",
        "procps free (before 3.3.10)"),
    "top-summary": (
        "host_ram_oom", memory_snapshot.CODE,
        STEPS + "[rank3]:[E302 10:01:40.000000 7103 ProcessGroupNCCL.cpp:1423] [PG ID 0 PG GUID 0(default_pg) Rank 3] "
        "Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1\n"
        "top - 10:02:11 up 12 days,  3:41,  1 user,  load average: 96.12, 90.40, 71.33\n"
        "Tasks: 812 total,   9 running, 803 sleeping,   0 stopped,   0 zombie\n"
        "MiB Mem : 515702.4 total,   2210.0 free, 511380.2 used,   2112.2 buff/cache\n"
        "MiB Swap:      0.0 total,      0.0 free,      0.0 used.   1903.5 avail Mem\n",
        "procps-ng top summary"),
    "meminfo": (
        "host_ram_oom", memory_snapshot.CODE,
        _wd(0, 1) + "$ head -3 /proc/meminfo\nMemTotal:       263859220 kB\nMemFree:          905112 kB\n"
        "MemAvailable:    1480332 kB\n",
        "Linux /proc/meminfo"),
    # srun -N 2: both ranks joined the group and printed a few sizes, then nothing at all
    "srun-two-nodes-silent": (
        "nccl_rccl_timeout_hang", silent_hang.CODE,
        "+ srun --nodes=2 --ntasks-per-node=4 --gpus-per-task=1 python bench_ddp.py --sizes 1,2,4,8,16\n"
        "[node 0] initialized the default process group (rank 0 of 8)\n"
        "[node 1] initialized the default process group (rank 4 of 8)\n"
        "size 1 ok\nsize 1 ok\nsize 2 ok\nsize 2 ok\nsize 4 ok\n",
        "Slurm srun --nodes"),
    "mpirun-hostfile-silent": (
        "nccl_rccl_timeout_hang", silent_hang.CODE,
        "$ mpirun -np 16 --hostfile hosts.txt -x MASTER_ADDR=10.1.0.4 -x MASTER_PORT=29500 python pretrain.py\n"
        "rank 0: torch.distributed ready, world 16\nrank 9: torch.distributed ready, world 16\n"
        "building model...\nbuilding model...\n",
        "Open MPI mpirun --hostfile"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_hidden_cause_is_the_root(tmp_path, name):
    family, code, text, source = CASES[name]
    exp, root = _explain(tmp_path, text)
    assert root is not None, source
    assert (exp.answer, root.code) == (family, code), (source, [(d.family, d.code) for d in exp.diagnoses])
    if family != "nccl_rccl_timeout_hang":
        # the other ranks' waits and torch's status text name the cause, they are not it
        assert all(d.consequence_of == exp.root for d in exp.diagnoses
                   if d.family == "nccl_rccl_timeout_hang" and not d.benign)


def test_usage_fix_names_the_launch(tmp_path):
    _, root = _explain(tmp_path, CASES["bootstrap-rank-count"][2])
    assert "--nproc_per_node" in root.fix and "set_device" in root.fix


def test_version_fix_names_the_same_nccl_everywhere(tmp_path):
    _, root = _explain(tmp_path, CASES["nccl-version-skew"][2])
    assert "same torch and NCCL" in root.fix


def test_plenty_of_free_memory_leaves_the_timeout(tmp_path):
    text = (STEPS + _wd(1, 10) + _wd(2, 10) + "$ free -g\n"
            "               total        used        free      shared  buff/cache   available\n"
            "Mem:             503         121         301           2          81         377\n")
    exp, root = _explain(tmp_path, text)
    assert exp.answer == "nccl_rccl_timeout_hang" and root.code == "collective-timeout"


def test_a_torch_invalid_usage_alone_stays_the_collective(tmp_path):
    # no NCCL WARN names the mistake: nothing says it is the launch
    exp, _ = _explain(tmp_path, NOISE + _backend_error(0, "") + _wd(1, 3))
    assert exp.answer == "nccl_rccl_timeout_hang"


@pytest.mark.parametrize("launch", [
    "+ srun -N1 --ntasks-per-node=4 python bench_ddp.py\n",                     # one node: loading, compiling, running
    "$ torchrun --nnodes=1 --nproc_per_node=8 train.py\n",
])
def test_one_node_that_stops_is_no_hang(tmp_path, launch):
    exp, _ = _explain(tmp_path, launch + "initialized the default process group (rank 0 of 4)\nsize 1 ok\n")
    assert exp.answer == "unknown"


def test_multi_node_that_finished_is_no_hang(tmp_path):
    text = ("$ torchrun --nnodes=2 --nproc_per_node=8 --node_rank=0 --rdzv_endpoint=10.1.0.4:29400 train.py\n"
            "Initialized process group on rank 0\n" + STEPS +
            "{'train_runtime': 4211.2, 'train_samples_per_second': 12.3, 'train_loss': 1.42, 'epoch': 3.0}\n")
    exp, root = _explain(tmp_path, text)
    assert exp.answer != "nccl_rccl_timeout_hang" and (root is None or root.code != silent_hang.CODE)


def test_multi_node_with_an_error_is_read_by_the_error(tmp_path):
    text = ("#SBATCH --nodes=4\n+ srun python train.py\nInitialized process group on rank 0\n"
            "[rank0]: Traceback (most recent call last):\n[rank0]:   File \"/w/train.py\", line 9, in <module>\n"
            "[rank0]:     raise ValueError('lora_alpha must be positive')\n"
            "[rank0]: ValueError: lora_alpha must be positive\n")
    exp, root = _explain(tmp_path, text)
    assert root is not None and root.code != silent_hang.CODE and exp.answer == "config_error"


@pytest.mark.parametrize("text,launch", [
    ("+ srun -N2 python a.py\n", True), ("srun --nodes 4-8 python a.py\n", True),
    ("torchrun --nnodes=2:4 --nproc_per_node=8 a.py\n", True), ("deepspeed --num_nodes 2 a.py\n", True),
    ("accelerate launch --num_machines 2 a.py\n", True), ("mpirun -np 8 -H n1:4,n2:4 python a.py\n", True),
    ("+ srun -N1 python a.py\n", False), ("torchrun --nnodes=1 a.py\n", False), ("python a.py --nodes 2\n", False),
])
def test_multi_node_launch_spellings(text, launch):
    assert (silent_hang.multi_node_launch(text) is not None) is launch


@pytest.mark.parametrize("text,full", [
    ("              total        used        free      shared  buff/cache   available\n"
     "Mem:           62Gi        61Gi       312Mi        10Mi       824Mi       598Mi\n", True),
    ("              total        used        free      shared  buff/cache   available\n"
     "Mem:           62Gi        20Gi        30Gi        10Mi        12Gi        41Gi\n", False),
    ("MemTotal:       263859220 kB\nMemFree:        200000000 kB\nMemAvailable:   210000000 kB\n", False),
    ("Mem: 1 2 3 4 5 6\n", False),                      # a Mem row without free's header is no snapshot
])
def test_memory_snapshot_reading(text, full):
    assert (memory_snapshot.exhausted(text) is not None) is full
