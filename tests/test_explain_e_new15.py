"""e-new15 (issue 26): three families of messages explain misread, each written from its tool's source.

- Ray's memory monitor (ray-project/ray python/ray/exceptions.py, src/ray/raylet/node_manager.cc, core_worker's exit
  detail, doc/source/ray-core/scheduling/ray-oom-prevention.rst): host RAM (host_ram_oom). `RayTaskError(X)` is only
  Ray's wrapper naming the cause's class (RayTaskError.as_instanceof_cause): torch's OutOfMemoryError and Ray's share
  the name, the cause's own line decides.
- torch's ProcessGroupNCCL watchdog line `WorkNCCL(SeqNum=, OpType=, NumelIn=, NumelOut=, Timeout(ms)=)` on several
  ranks: one collective (group, SeqNum) entered with unequal sizes or different ops is a shape mismatch across ranks
  (FAMILIES.md ddp_error), not the interconnect; the flight recorder analyzer's (fr_trace) verdicts likewise.
- An index error whose index no data makes, on a pre-Vega AMD card (FAMILIES.md "Symptom vs cause"): hip_error.
The logs are written as the tools print them (other ranks, noise); none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.collective_sizes import mismatched
from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.core.runs.diagnose.garbage_index import garbage_index, legacy_card


def _root(tmp_path, text, name="run.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    r = exp.diagnoses[exp.root] if exp.root is not None else None
    return exp, r


# ---------------------------------------------------------------- Ray's memory monitor
RAY_NOISE = ("2025-03-02 10:11:12,345\tINFO worker.py:1841 -- Started a local Ray instance.\n"
             "(TaskRunner pid=31337) Training from scratch\n"
             "(WorkerDict pid=40112) [Rollout] generating 512 sequences\n")
RAY_DETAIL = ("Memory on the node (IP: 10.1.2.3, ID: 3a4b60759256926fd0e84a9ff596dab3d7be854134107ef21b0e0260) where "
              "the task (task ID: 8ce7275b7a7953cc794f8c138a616d91cb907c1b01000000, name=PPORayActor.fit, pid=40112, "
              "memory used=61.02GB) was running was 487.10GB / 503.50GB (0.967428), which exceeds the memory usage "
              "threshold of 0.95. Ray killed this worker (ID: 5c9ac30f8a9eda340f651a204de5d94f1ff965c5d9f72175579bd8dd) "
              "because it was the most recently scheduled task; to see more information about memory usage on this "
              "node, use `ray logs raylet.out -ip 10.1.2.3`.\n")
RAY_REFER = ("Refer to the documentation on how to address the out of memory issue: "
             "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more "
             "memory on this node or reducing task parallelism by requesting more CPUs per task.\n")
RAY_FRAMES = ("Traceback (most recent call last):\n"
              "  File \"/opt/app/train_ppo_ray.py\", line 212, in <module>\n    ray.get(refs)\n"
              "  File \"/usr/local/lib/python3.11/site-packages/ray/_private/worker.py\", line 2667, in get\n"
              "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)\n"
              "  File \"/usr/local/lib/python3.11/site-packages/ray/_private/worker.py\", line 866, in get_objects\n"
              "    raise value.as_instanceof_cause()\n")

RAY_CASES = [
    # the driver's traceback: Ray's wrapper first, Ray's own OutOfMemoryError and its detail after it
    ("host_ram_oom", RAY_NOISE + RAY_FRAMES +
     "ray.exceptions.RayTaskError(OutOfMemoryError): ray::PPORayActor.fit() (pid=40001, ip=10.1.2.3, "
     "actor_id=e1f0c3d9a8e7b6a5f4e3d2c101000000, repr=<PPORayActor object at 0x7f00aa11bb20>)\n"
     "  File \"/opt/app/ppo_actor.py\", line 88, in fit\n    status = ray.get(self.rollout.remote())\n"
     "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n" + RAY_DETAIL +
     RAY_REFER),
    # the worker-died warning a driver prints (ray-oom-prevention.rst): the exit detail without the exception's name
    ("host_ram_oom", RAY_NOISE +
     "2025-03-02 10:40:01,002\tWARNING worker.py:1839 -- A worker died or was killed while executing a task by an "
     "unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: "
     "b60ff970726d7cf526e74acc71310ecce51edb4c01000000 Worker ID: 39416ad98016ee6a63173856a9b4e4100625be22e6ee419 "
     "Worker exit type: SYSTEM_ERROR Worker exit detail: Task was killed due to the node running low on memory.\n"
     "(WorkerDict pid=40113) [Rollout] generating 512 sequences\n"),
    # an actor's death as the GCS reports it: exit type NODE_OUT_OF_MEMORY
    ("host_ram_oom", RAY_NOISE + RAY_FRAMES +
     "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
     "\tclass_name: WorkerDict\n\tactor_id: 9e43ace6a1234e13df7b456b01000000\n\tpid: 40112\n\tip: 10.1.2.3\n"
     "The actor is dead because its worker process has died. Worker exit type: NODE_OUT_OF_MEMORY\n"),
    # torch's own OutOfMemoryError raised inside a Ray actor: the same wrapper, the GPU's message after it
    ("gpu_oom", RAY_NOISE + RAY_FRAMES +
     "ray.exceptions.RayTaskError(OutOfMemoryError): ray::WorkerDict.actor_rollout_update_actor() (pid=40112, "
     "ip=10.1.2.3, actor_id=9e43ace6a1234e13df7b456b01000000, repr=<verl.single_controller.ray.base.WorkerDict>)\n"
     "  File \"/opt/verl/verl/workers/actor/dp_actor.py\", line 301, in update_policy\n    loss.backward()\n"
     "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.91 GiB. GPU 0 has a total capacity of 191.98 GiB "
     "of which 1.20 GiB is free. Of the allocated memory 180.11 GiB is allocated by PyTorch, and 6.02 GiB is reserved "
     "by PyTorch but unallocated.\n"),
]


@pytest.mark.parametrize("family,text", RAY_CASES, ids=["wrapped-ray-oom", "worker-died-warning",
                                                        "actor-node-oom", "torch-oom-in-actor"])
def test_ray_memory_monitor_is_host_ram_and_its_wrapper_names_nothing(tmp_path, family, text):
    exp, r = _root(tmp_path, text)
    assert exp.answer == family, [(d.code, d.family) for d in exp.diagnoses]
    assert r is not None and r.code == ("ray-oom-killed" if family == "host_ram_oom" else "oom")
    if family == "host_ram_oom":
        assert "host RAM" in r.fix or "RAM" in r.cause


# ---------------------------------------------------------------- one collective, unequal across ranks
def _wd(rank, seq, op, numel, pg="", ms=1800000, stamp="E1105 03:12:44.101"):
    pre = f"[rank{rank}]:[{stamp}{rank}11 ProcessGroupNCCL.cpp:616] {pg}[Rank {rank}] " if not pg else \
        f"[rank{rank}]:[{stamp}{rank}11 ProcessGroupNCCL.cpp:632] [{pg} Rank {rank}] "
    return (pre + f"Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, "
            f"NumelIn={numel}, NumelOut={numel}, Timeout(ms)={ms}) ran for {ms + 37} milliseconds before timing out.\n")


def _detected(rank, seq, pg="PG ID 0 PG GUID 0(default_pg)"):
    return (f"[rank{rank}]:[E1105 03:12:44.20{rank}000 ProcessGroupNCCL.cpp:1664] [{pg} Rank {rank}]  failure "
            f"detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {seq}, last completed "
            f"work: {seq - 1}\n")


TRAIN = ("  4%|▍         | 412/10000 [1:02:11<24:07:52,  9.06s/it]\n"
         "{'loss': 0.8812, 'grad_norm': 0.43, 'learning_rate': 1.9e-05, 'epoch': 0.04}\n"
         "HIP_VISIBLE_DEVICES=0,1,2,3 rccl 2.20.5 on gfx942\n")
TEARDOWN = ("[rank0]:[E1105 03:12:45.000000000 ProcessGroupNCCL.cpp:630] [Rank 0] Some NCCL operations have failed or "
            "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
            "corrupted/incomplete data.\n"
            "terminate called after throwing an instance of 'c10::DistBackendError'\n"
            "E1105 03:12:50.000000 9911 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) "
            "local_rank: 0 (pid: 9912) of binary: /usr/bin/python3\n")

COLLECTIVES = {
    # torch 2.4's prefix names the group on the watchdog line; FSDP's all-gather of one rank's larger shard
    "pg-on-line-allgather-sizes": ("ddp_error", TRAIN +
                                   _wd(1, 88, "_ALLGATHER_BASE", 4194304, pg="PG 0 (default_pg)") +
                                   _wd(0, 88, "_ALLGATHER_BASE", 4198400, pg="PG 0 (default_pg)") +
                                   _wd(2, 88, "_ALLGATHER_BASE", 4194304, pg="PG 0 (default_pg)") + TEARDOWN),
    # ranks in different collectives at the same sequence number of one group (a rank took another code path)
    "different-ops-one-seq": ("ddp_error", TRAIN + _wd(0, 1201, "ALLREDUCE", 593920) + _detected(0, 1201) +
                              _wd(3, 1201, "BROADCAST", 593920) + _detected(3, 1201) + TEARDOWN),
    # the fr_trace analyzer's verdict on the dumped traces
    "flight-recorder-verdict": ("ddp_error", TRAIN +
                                "Collective 17 at entry 3 error\n"
                                "Expected input sizes: '[[1024, 4096]]' does not match found input sizes: "
                                "'[[1031, 4096]]'\n"),
    # every rank at the same collective with the same sizes, one rank behind: a rank stopped, not a mismatch
    "equal-sizes-one-rank-behind": ("nccl_rccl_timeout_hang", TRAIN + _wd(0, 733, "ALLREDUCE", 65536) +
                                    _wd(1, 733, "ALLREDUCE", 65536) + _wd(2, 731, "BROADCAST", 64) + TEARDOWN),
    # all_to_all's inputs differ per rank by design (MoE token routing)
    "alltoall-uneven-by-design": ("nccl_rccl_timeout_hang", TRAIN + _wd(0, 57, "ALLTOALL_BASE", 120832) +
                                  _wd(1, 57, "ALLTOALL_BASE", 98304) + TEARDOWN),
    # point-to-point ops count on their own sequence counter: SEND 9 and ALLREDUCE 9 are different operations
    "p2p-own-counter": ("nccl_rccl_timeout_hang", TRAIN + _wd(0, 9, "SEND", 8388608) + _wd(1, 9, "ALLREDUCE", 2048) +
                        TEARDOWN),
    # two groups in the log and lines that do not say theirs: SeqNum=50 of TP and of DP are not one collective
    "two-groups-unnamed": ("nccl_rccl_timeout_hang", TRAIN + _wd(0, 50, "ALLREDUCE", 4096) +
                           _detected(0, 50, "PG ID 2 PG GUID 5(TENSOR_MODEL_PARALLEL_GROUP)") +
                           _wd(1, 50, "ALLREDUCE", 8388608) + _detected(1, 50) + TEARDOWN),
}


@pytest.mark.parametrize("name", sorted(COLLECTIVES))
def test_one_collective_entered_unequally_is_a_mismatch_across_ranks(tmp_path, name):
    family, text = COLLECTIVES[name]
    exp, r = _root(tmp_path, text)
    assert exp.answer == family, (name, [(d.code, d.family) for d in exp.diagnoses])
    if family == "ddp_error":
        assert r is not None and r.code == "collective-shape-mismatch"
    if name == "pg-on-line-allgather-sizes":
        assert "SeqNum 88" in r.fix and "4198400" in r.fix


class _L:
    def __init__(self, text, rank=None):
        self.text, self.context, self.rank = text, text, rank


def test_mismatched_reads_ranks_and_groups():
    lines = [_L(_wd(3, 7219, "BROADCAST", 64)), _L(_wd(2, 7219, "BROADCAST", 24084544)),
             _L(_wd(0, 7221, "ALLREDUCE", 593920))]
    idx, nums = mismatched(lines)
    assert idx == [0, 1] and nums["seq"] == 7219 and nums["numel_by_rank"] == {3: 64, 2: 24084544}
    # the old line without NumelIn (torch 1.10: `WorkNCCL(SeqNum=5, OpType=ALLREDUCE, Timeout(ms)=1800000)`) is
    # nothing to compare
    assert mismatched([_L("[Rank 0] Caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, "
                          "Timeout(ms)=1800000) ran for 1800331 milliseconds before timing out")] * 2) is None


# ---------------------------------------------------------------- garbage index on a pre-Vega card
ROCMINFO_803 = ("*******\nAgent 2\n*******\n  Name:                    gfx803\n  Uuid:                    GPU-XX\n"
                "  Marketing Name:          Radeon RX 580 Series\n")
TF_DEVICE_NAME = ("2021-02-11 09:00:01.000001: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1720] Found device 0 "
                  "with properties:\npciBusID: 0000:03:00.0 name: Ellesmere [Radeon RX 470/480/570/570X/580/580X/590]\n")
TORCH_TB = ("Traceback (most recent call last):\n  File \"/home/u/lm/train.py\", line 41, in <module>\n"
            "    logits = model(x)\n  File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 2233, "
            "in embedding\n    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n")

GARBAGE = {
    "torch-index-gfx803": ("hip_error", ROCMINFO_803 + TORCH_TB +
                           "IndexError: index 1065353216 is out of bounds for dimension 0 with size 32000\n"),
    "tf-negative-garbage-by-name": ("hip_error", TF_DEVICE_NAME + "Epoch 1/5\n" +
                                    "Traceback (most recent call last):\n  File \"fit.py\", line 9, in <module>\n"
                                    "    model.fit(ds, epochs=5)\n"
                                    "tensorflow.python.framework.errors_impl.InvalidArgumentError:  indices[0,12] = "
                                    "-1082130432 is not in [0, 20000)\n"
                                    "\t [[node model/embedding/embedding_lookup (defined at fit.py:9) ]]\n"),
}
NOT_GARBAGE = {
    # a token id just past the vocabulary on the same card: the tokenizer's (resize the embeddings)
    "vocab-edge-gfx803": ROCMINFO_803 + TORCH_TB +
    "IndexError: index 32000 is out of bounds for dimension 0 with size 32000\n",
    # the same garbage on an NVIDIA card: nothing in the log puts it on a ROCm library
    "garbage-on-nvidia": "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1234)\n" + TORCH_TB +
    "IndexError: index 1065353216 is out of bounds for dimension 0 with size 32000\n",
    # a supported card (gfx90a): the arch is no reason
    "garbage-on-gfx90a": ROCMINFO_803.replace("gfx803", "gfx90a").replace("Radeon RX 580 Series",
                                                                           "AMD Instinct MI210") + TORCH_TB +
    "IndexError: index 1065353216 is out of bounds for dimension 0 with size 32000\n",
}


@pytest.mark.parametrize("name", sorted(GARBAGE))
def test_garbage_index_on_a_pre_vega_card_is_the_gpu(tmp_path, name):
    family, text = GARBAGE[name]
    exp, r = _root(tmp_path, text)
    assert exp.answer == family, (name, [(d.code, d.family) for d in exp.diagnoses])
    assert "garbage" in r.title and ("gfx803" in r.title or "Ellesmere" in r.title)


@pytest.mark.parametrize("name", sorted(NOT_GARBAGE))
def test_index_errors_that_stay_the_data_or_tokenizer(tmp_path, name):
    exp, _ = _root(tmp_path, NOT_GARBAGE[name])
    assert exp.answer != "hip_error", (name, [(d.code, d.family) for d in exp.diagnoses])


def test_garbage_index_reads_every_spelling():
    assert garbage_index(["index_select(): index 997212422 out of range for tensor of size [5001, 64] at dimension 0"]
                         ) == (997212422, 5001)
    assert garbage_index(["IndexError: index 20000000 is out of bounds for axis 0 with size 5000"]) == (20000000,
                                                                                                          5000)
    # a big but plausible id against a large table is no garbage (1000x the bound not reached)
    assert garbage_index(["indices[1,2] = 30000000 is not in [0, 256000)"]) is None
    assert legacy_card(["pciBusID: 0000:08:00.0 name: Device 67df     ROCm AMD GPU ISA: gfx803"]) == "gfx803"
    assert legacy_card(["  Name:                    gfx1100"]) is None
