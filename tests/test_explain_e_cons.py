"""`explain`: the root vs its consequences across ranks, and logs of runs that ended well (helper e-cons, issue 26).

1. When one rank ends (it raised its own error, or it was killed), the other ranks print what they saw of it: c10d's
   store waits (TCPStore.cpp/socket.cpp `Socket Timeout`, `DistStoreError`), a connection reset, NCCL's remote
   error. Those lines are the consequence of a rank's own error raised before them (also when they carry no rank
   prefix of their own), or of the rank the launcher names as its first failure. With no other failure in the log,
   the collective lines stay the root.
2. A log whose run ended well (the runner's or benchmark's own ending line, or a loop's 100 % bar followed by the
   trainer's save) with only warnings in it is benign_warning; a failure after the ending still is the root.

The lines are written as the sources print them (torch c10d/elastic, ProcessGroupNCCL, NCCL, axolotl, ms-swift,
Lightning, Megatron-LM, nccl-tests/rccl-tests, ComfyUI, transformers' Trainer), with other ranks' noise around.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose


def _explain(tmp_path, text: str):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


HEAD = ("W0502 10:00:01.120000 140 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for "
        "each process to be 1 in default\n"
        "[rank0]: Loading checkpoint shards: 100%|##########| 4/4 [00:12<00:00,  3.01s/it]\n"
        "[rank1]: Loading checkpoint shards: 100%|##########| 4/4 [00:12<00:00,  3.02s/it]\n")

# c10d's store on the rank that waited for a key its peer never set (TCPStore.cpp / socket.cpp, torch 2.x)
STORE_WAIT = ("[rank1]:[W502 10:30:03.112233 socket.cpp:462] [c10d] recvValue failed on SocketImpl(fd=52, "
              "addr=[node01]:41288, remote=[node01]:29500): Connection reset by peer\n"
              "[rank1]: Traceback (most recent call last):\n"
              "[rank1]:   File \"/usr/lib/python3/site-packages/torch/distributed/distributed_c10d.py\", line 4166, "
              "in barrier\n"
              "[rank1]:     work = default_pg.barrier(opts=opts)\n"
              "[rank1]: torch.distributed.DistStoreError: Socket Timeout\n")
STORE_TIMEOUT_ONLY = ("[rank1]: Traceback (most recent call last):\n"
                      "[rank1]:   File \"/usr/lib/python3/site-packages/torch/distributed/distributed_c10d.py\", "
                      "line 4166, in barrier\n"
                      "[rank1]:     work = default_pg.barrier(opts=opts)\n"
                      "[rank1]: torch.distributed.DistStoreError: Socket Timeout\n")
PEER_GONE = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
             "ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.20.5\n"
             "[rank1]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
             "prematurely.\n")
ELASTIC_END = ("E0502 10:30:05.520000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
               "local_rank: 0 (pid: 4104) of binary: /opt/conda/bin/python\n")


def _raised(exc: str, frame: str = "/workspace/train.py") -> str:
    return ("[rank0]: Traceback (most recent call last):\n"
            f"[rank0]:   File \"{frame}\", line 52, in main\n"
            "[rank0]:     cfg = load(args)\n"
            f"[rank0]: {exc}\n")


KEY_ERROR = _raised("KeyError: 'optimizer'")
# transformers' HfArgumentParser refusing what the user passed (a config error on every version)
CONFIG = _raised("ValueError: Some specified arguments are not used by the HfArgumentParser: ['--lora_rank', '8']",
                 "/usr/lib/python3/site-packages/transformers/hf_argparser.py")
# a ValueError a script raises on its own arguments (read as a config error by the rules)
SCRIPT_CONFIG = _raised("ValueError: --per_device_train_batch_size must be divisible by "
                        "--gradient_accumulation_steps")


@pytest.mark.parametrize("own, family", [(KEY_ERROR, None), (CONFIG, "config_error"),
                                         (SCRIPT_CONFIG, "config_error")], ids=["key-error", "hf-args", "script-args"])
@pytest.mark.parametrize("survivors", [STORE_WAIT, STORE_TIMEOUT_ONLY, PEER_GONE],
                         ids=["reset-then-store-timeout", "store-timeout", "nccl-remote-error"])
@pytest.mark.parametrize("order, end", [("own-first", ""), ("own-first", ELASTIC_END),
                                        ("survivors-first", ELASTIC_END)],
                         ids=["own-first", "own-first-teardown", "survivors-first-teardown"])
def test_a_rank_own_error_over_the_others_store_waits(tmp_path, own, family, survivors, order, end):
    # with no launcher line and no timestamps, the text's order is the time there is (the e-host2/e-src rule: a lost
    # peer printed first may be the network); the launcher naming rank 0 first decides whatever the order
    body = own + survivors if order == "own-first" else survivors + own
    exp, r = _explain(tmp_path, HEAD + body + end)
    assert exp.answer != "nccl_rccl_timeout_hang"
    assert r is not None and r.code != "rendezvous-timeout" and r.code != "nccl-peer-gone"
    if family is not None:
        assert exp.answer == family
    for d in exp.diagnoses:
        if d.family == "nccl_rccl_timeout_hang":
            assert d.consequence_of == exp.root


@pytest.mark.parametrize("own_prefix", [True, False], ids=["rank-said", "no-rank"])
def test_unprefixed_store_timeout_after_a_config_error_is_its_consequence(tmp_path, own_prefix):
    # torch < 2.2 prints the ranks' lines without `[rankN]:`; a rank's error may carry the runner's own prefix
    own = SCRIPT_CONFIG if own_prefix else SCRIPT_CONFIG.replace("[rank0]: ", "")
    exp, r = _explain(tmp_path, HEAD + own + STORE_TIMEOUT_ONLY.replace("[rank1]: ", ""))
    assert exp.answer == "config_error"


@pytest.mark.parametrize("text", [
    # the master (rank 0) was slow preparing the data: the others' store wait ran out, nothing else failed
    HEAD + "[rank0]: Running tokenizer on dataset:  41%|####      | 41000/100000 [29:58<43:07, 22.8 examples/s]\n"
    + STORE_TIMEOUT_ONLY,
    # NCCL's remote error with no rank having failed of its own (the network between the nodes)
    HEAD + "node02:4105:4300 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE\n" + PEER_GONE + ELASTIC_END,
])
def test_collective_lines_stay_the_root_when_nothing_else_failed(tmp_path, text):
    exp, r = _explain(tmp_path, text)
    assert exp.answer == "nccl_rccl_timeout_hang"


WARN_STEPS = ("/usr/lib/python3/site-packages/torch/utils/checkpoint.py:460: UserWarning: torch.utils.checkpoint: "
              "please pass in use_reentrant=True or use_reentrant=False explicitly.\n  warnings.warn(\n"
              "{'loss': 1.234, 'grad_norm': 0.5, 'learning_rate': 2e-05, 'epoch': 0.5}\n")
IOMMU = ('node01:123:140 [0] /long_pathname_so_that_rpms_can_package_the_debug_info/src/extlibs/rccl/build/hipify/'
         'src/init.cc:123 NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instability '
         'or hang!\n')
RCCL_TESTS = ("# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20\n" + IOMMU +
              "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
              "   134217728      33554432     float     sum      -1   1420.1   94.51  165.40      0\n")

ENDED_WELL = {
    "axolotl": WARN_STEPS + "[2024-05-02 10:05:00,000] [INFO] [axolotl.train.train:173] [PID:123] [RANK:0] Training "
               "Completed!!! Saving pre-trained model to ./out\n",
    "ms-swift": "[WARNING:swift] The current version of transformers may have compatibility issues\n" + WARN_STEPS +
                "[INFO:swift] last_model_checkpoint: /output/v0-20240601/checkpoint-873\n"
                "[INFO:swift] best_model_checkpoint: /output/v0-20240601/checkpoint-800\n",
    "lightning": "/usr/lib/python3/site-packages/lightning/pytorch/trainer/connectors/data_connector.py:441: The "
                 "'train_dataloader' does not have many workers which may be a bottleneck.\n"
                 "Epoch 9: 100%|##########| 1561/1561 [12:28<00:00,  2.09it/s, v_num=9854, train_loss_step=0.120]\n"
                 "`Trainer.fit` stopped: `max_epochs=10` reached.\n",
    "megatron": WARN_STEPS + "[after training is done] datetime: 2024-05-02 10:40:00\n",
    "rccl-tests": RCCL_TESTS + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 120.35\n#\n",
    "bar-then-save": WARN_STEPS + "100%|##########| 500/500 [10:02<00:00,  1.20s/it]\n"
                     "Saving model checkpoint to ./out\n",
    "comfyui": "got prompt\nWarning: Ran out of memory when regular VAE decoding, retrying with tiled VAE decoding.\n"
               "Prompt executed in 12.34 seconds\n",
}


@pytest.mark.parametrize("name", sorted(ENDED_WELL))
def test_a_run_that_ended_well_is_benign(tmp_path, name):
    exp, r = _explain(tmp_path, ENDED_WELL[name])
    assert r is None and exp.status == "finished"
    assert exp.answer == "benign_warning"
    # the lines that alarmed the user are shown as harmless (the RCCL iommu advisory included)
    assert all(d.benign for d in exp.diagnoses), [(d.code, d.benign) for d in exp.diagnoses]


@pytest.mark.parametrize("text, family", [
    # nccl-tests/rccl-tests counted wrong values: not an ending well (the iommu warning is then the lead)
    (RCCL_TESTS + "# Out of bounds values : 3 FAILED\n# Avg bus bandwidth    : 120.35\n", "nccl_rccl_timeout_hang"),
    # the loop's 100 % bar and the save, then a failure of its own
    (WARN_STEPS + "100%|##########| 500/500 [10:02<00:00,  1.20s/it]\nSaving model checkpoint to ./out\n"
     "OSError: [Errno 28] No space left on device\n", "disk_full_save"),
    # a workflow ran through, the next one failed
    ("Prompt executed in 12.34 seconds\ngot prompt\n"
     "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.98 GiB "
     "of which 1.02 GiB is free.\n", "gpu_oom"),
])
def test_a_failure_after_the_ending_is_still_the_root(tmp_path, text, family):
    exp, r = _explain(tmp_path, text)
    assert exp.answer == family


def test_a_full_bar_then_another_loop_that_did_not_end_is_not_an_ending(tmp_path):
    text = (WARN_STEPS + "100%|##########| 500/500 [10:02<00:00,  1.20s/it]\nSaving model checkpoint to ./out\n"
            " 10%|#         | 50/500 [01:00<09:00,  1.20s/it]\n")
    exp, _ = _explain(tmp_path, text)
    assert exp.status != "finished"


def test_an_evaluation_bar_and_a_save_inside_a_training_loop_that_did_not_end_is_not_an_ending(tmp_path):
    # the Trainer's evaluation loop ran to 100 % and a checkpoint was saved at step 200 of 500: the log stops there
    text = (WARN_STEPS + " 40%|####      | 200/500 [04:00<06:00,  1.20s/it]\n"
            "100%|##########| 50/50 [00:10<00:00,  4.90it/s]\n"
            "Saving model checkpoint to ./out/checkpoint-200\n")
    exp, _ = _explain(tmp_path, text)
    assert exp.status != "finished"
