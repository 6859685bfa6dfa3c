"""`explain` on the distributed / configuration / data / cache families (issue 26, item 5: explain-dist).

Each log below is built around lines quoted from a public thread (named next to it) — none is a corpus case — and
the engine must name the family the thread confirmed, through the general shape of the message (the library's
message family, the exception and the frame it came from), not one phrase per case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose.diagnose import diagnose

TB = 'Traceback (most recent call last):\n  File "train.py", line 88, in <module>\n    main()\n'

# (expected family, expected code or None for "any", log text, where the lines come from)
CASES = [
    # collective failures that are not timeouts
    ("nccl_rccl_timeout_hang", "nccl-error",
     TB + "paddle.fluid.core_avx.EnforceNotMet: \n\n  Nccl error, unhandled system error\n",
     "PaddlePaddle/Paddle#27081 (Paddle spells the library `Nccl`/`Rccl`)"),
    # e-g6: two ranks on one GPU is the launch's placement (set_device / CUDA_VISIBLE_DEVICES), not the interconnect:
    # config_error by FAMILIES.md's "decide by the user's next step" (hf-trl-3706's label)
    ("config_error", "nccl-duplicate-gpu",
     "ubuntu1583:1585 [0] init.cc:738 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000\n"
     + TB + "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, "
     "invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.22.3\n",
     "NVIDIA/nccl src/init.cc (WARN Duplicate GPU detected ... ncclInvalidUsage)"),
    ("nccl_rccl_timeout_hang", "nccl-error",
     TB + "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:611] Connect timeout [172.17.27.13]:27023\n",
     "facebookarchive/caffe2#360 (gloo pair connect timeout)"),
    # test expectation follows FAMILIES.md amended rule 3 (host memory vs collectives): the shm segment is host memory
    ("host_ram_oom", "nccl-shm-exhausted",
     "Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)\n",
     "pytorch/torchtitan#853 (a 16 MB /dev/shm in the CI container)"),
    # permissions of caches
    ("hf_cache_permission", "miopen-cache-unwritable",
     "MIOpen(HIP): Warning [FindWinogradSolutions] /MIOpen/src/sqlite_db.cpp:220: Internal error while accessing "
     "SQLite database: attempt to write a readonly database\n",
     "MIOpen sqlite_db.cpp message family (SQLITE_READONLY), as ROCm/tensorflow-upstream#1419 (disk I/O error)"),
    ("hf_cache_permission", "hf-cache-permission",
     "mkdir: cannot create directory '/mnt/models/.cache/huggingface': Permission denied\n",
     "ROCm/ATOM#1729 (mkdir of the HF cache root on an MI350 runner)"),
    ("hf_cache_permission", "hf-cache-permission",
     "There was a problem when trying to write in your cache folder (/home/ray/.cache/huggingface/hub). You should "
     "set the environment variable TRANSFORMERS_CACHE to a writable directory.\n",
     "project-codeflare/codeflare-sdk#193"),
    ("hf_cache_permission", "permission-denied",
     TB + "torch._inductor.exc.InductorError: PermissionError: [Errno 13] Permission denied: 'nvcc'\n",
     "vllm-project/vllm#28741 (a root-only directory on PATH in a ROCm container)"),
    # device visibility and configuration
    ("config_error", "invalid-device-ordinal",
     "F agent.cpp:245] Conflicting visibility of agent-2 between HIP_VISIBLE_DEVICES and GPU_DEVICE_ORDINAL\n"
     "Aborted (core dumped)\n",
     "ROCm/TheRock#6398 (fix of #5979)"),
    # e-swift: expectation follows FAMILIES.md (config_error vs version_check): --ld_alpha is an argument ms-swift
    # declares since 3.10 (rocm_tune/profiles/swift_args.py), refused by an older install -> the release, not the config
    ("version_check", "config-rejected",
     TB + "ValueError: remaining_argv: ['--ld_alpha', '0.8']\n", "modelscope/ms-swift#5979"),
    ("config_error", "config-rejected",
     TB + "omegaconf.errors.ConfigAttributeError: Key 'lora_rnak' is not in struct\n",
     "OmegaConf struct mode (torchtune recipes, `tune run key=value` overrides)"),
    ("config_error", "deepspeed-batch-mismatch",
     TB + "AssertionError: Micro batch size per gpu: 0 has to be greater than 0\n",
     "deepspeed/runtime/config.py _batch_assertion"),
    ("config_error", None,
     TB + "ValueError: `use_rslora` is only valid for LoRA training.\n",
     "LLaMA-Factory hparams/finetuning_args.py (a setting valid only with another)"),
    ("config_error", None,
     TB + "deepspeed.runtime.zero.utils.ZeRORuntimeException: You are using ZeRO-Offload with a client provided "
     "optimizer (<class 'torch.optim.adamw.AdamW'>) which in most cases will yield poor performance. Please either use "
     "deepspeed.ops.adam.DeepSpeedCPUAdam or set an optimizer in your ds-config\n",
     "deepspeed/runtime/engine.py (ZeRO-Offload with a torch optimizer)"),
    ("unrecognized_model_type_adapter", "runner-model-type-unknown",
     TB + "ValueError: model_type: 'qwen2_5_vl' not in ['emu3_gen', 'emu3_chat', 'baichuan', 'qwen2_vl']\n",
     "modelscope/ms-swift#3004"),
    ("ddp_error", "collective-shape-mismatch",
     TB + "RuntimeError: DDP expects same model across all ranks, but Rank 0 has 291 params, while rank 1 has "
     "inconsistent 290 params.\n", "torch/distributed/utils.py _verify_param_shape_across_processes (c10d check)"),
    ("model_download", "hf-hub-unreachable",
     TB + "modelscope.hub.errors.NotExistError: The specified branch or tag : v1.1 not exist!\n",
     "modelscope/hub/snapshot_download.py (NotExistError for a revision the hub does not have)"),
    ("launcher_exit", "child-failed",
     "[2024-03-03 03:03:03,000] torch.distributed.elastic.agent.server.api: [WARNING] Received Signals.SIGTERM death "
     "signal, shutting down workers\n" + TB +
     "torch.distributed.elastic.multiprocessing.api.SignalException: Process 12345 got signal: 15\n",
     "torch elastic agent told to stop from outside (SIGTERM), no worker error in the log"),
    # data
    ("dataset_error", "dataset-error",
     TB + "TypeError: Couldn't cast array of type string to null\n", "huggingface/datasets table.py (cast_array_to_feature)"),
    ("dataset_error", "dataset-error",
     TB + "ValueError: num_samples should be a positive integer value, but got num_samples=0\n",
     "torch/utils/data/sampler.py RandomSampler on an empty dataset"),
]


@pytest.mark.parametrize("family,code,text,source", CASES, ids=[c[3][:40] for c in CASES])
def test_the_general_shape_names_the_family(tmp_path, family, code, text, source):
    log = tmp_path / "run.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.answer == family, (source, exp.answer)
    root = exp.diagnoses[exp.root]
    assert not root.benign
    if code:
        assert root.code == code, (source, root.code)


def _frames(*frames: tuple[str, str]) -> str:
    return "".join(f'[rank1]:   File "/opt/venv/lib/python3.12/site-packages/{p}", line 10, in {fn}\n[rank1]:     x\n'
                   for p, fn in frames)


def test_an_index_past_the_visible_gpus_is_the_visibility_unless_a_checkpoint_restores_rng(tmp_path):
    # torch's per-GPU generators indexed past device_count(): a proc mesh that set only CUDA_VISIBLE_DEVICES on ROCm
    # (meta-pytorch/torchforge#725) is the run's device settings ...
    seed = tmp_path / "seed.log"
    seed.write_text("[rank1]: Traceback (most recent call last):\n" + _frames(
        ("torch/random.py", "manual_seed"), ("torch/cuda/random.py", "manual_seed_all"), ("torch/cuda/random.py", "cb"))
        + "[rank1]: IndexError: tuple index out of range\n")
    assert diagnose([str(seed)]).answer == "config_error"
    # ... while restoring a checkpoint's RNG states saved with more GPUs (hiyouga/LlamaFactory#5209, NVlabs/Sana#92)
    # is the checkpoint
    resume = tmp_path / "resume.log"
    resume.write_text("[rank1]: Traceback (most recent call last):\n" + _frames(
        ("transformers/trainer.py", "_load_rng_state"), ("torch/cuda/random.py", "set_rng_state_all"),
        ("torch/cuda/random.py", "set_rng_state"), ("torch/cuda/__init__.py", "_lazy_call"),
        ("torch/cuda/random.py", "cb")) + "[rank1]: IndexError: tuple index out of range\n")
    assert diagnose([str(resume)]).answer == "checkpoint_resume_mismatch"


def test_a_real_compiler_failure_stays_the_compiler():
    # the PermissionError exclusion must not take the compiler's own failures away from torch-compile-error
    line = ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised: RuntimeError: Internal Triton PTX "
            "codegen error")
    assert cat.best_match(line)[0].code == "torch-compile-error"


def test_a_gloo_receive_timeout_is_not_made_a_root_cause(tmp_path):
    # another rank's failure makes gloo's recv time out: that stays a consequence-grade sign (weak), so a real
    # error on another rank wins
    log = tmp_path / "two.log"
    log.write_text("[rank0]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.45 GiB.\n"
                   "[rank1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
                   "waiting 1800000ms for recv operation to complete\n")
    assert diagnose([str(log)]).answer == "gpu_oom"


RETRY = "[W socket.cpp:601] [c10d] The client socket has failed to connect to [node0]:29500 (errno: 111 - Connection refused).\n"


def test_rendezvous_retries_are_a_hang_only_when_the_log_ends_in_them(tmp_path):
    # c10d prints the client's retries in runs that then start (a worker up before the master listens)
    ok = tmp_path / "ok.log"
    ok.write_text(RETRY * 2 + '{"loss": 1.52, "grad_norm": 3.1, "learning_rate": 1e-05, "epoch": 0.1}\n'
                  " 10%|\u2588         | 20/200 [01:01<09:10,  3.05s/it]\n")
    assert diagnose([str(ok)]).root is None
    stuck = tmp_path / "stuck.log"
    stuck.write_text("I0101 12:00:00 torchrun --nnodes 2 --node_rank 1 --master_addr node0 train.py\n" + RETRY * 3)
    exp = diagnose([str(stuck)])
    assert exp.answer == "nccl_rccl_timeout_hang"
    assert exp.diagnoses[exp.root].code == "rendezvous-retry-then-silence"
