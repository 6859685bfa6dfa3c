"""`explain` with a failing rank's own error among the other ranks' collective noise, and the runners' refusals of
their arguments read from their source (helper e-src, issue 26).

Rule 1: a rank that raised a Python exception before the others report a collective timeout / watchdog abort / a
lost peer / elastic's ChildFailedError is the root; the collectives are its consequences. The watchdog lines are
torch's ProcessGroupNCCL.cpp spellings (`Watchdog caught collective operation timeout`, `Process group watchdog thread
terminated with exception: ` + e.what(), c++'s `terminate called after throwing an instance of
'c10::DistBackendError'`), elastic's summary is torch/distributed/elastic/multiprocessing/errors' `Root Cause (first
observed failure)` block, gloo's is third_party/gloo's pair.cc.
Rule 2: the messages ms-swift, LLaMA-Factory, transformers, TRL, accelerate and DeepSpeed raise while checking
arguments (rocm_tune/profiles/runner_refusals.py, made from their source by tools/build_runner_refusals.py) are the
run's settings in whatever spelling their f-strings produce, with the traceback's frames or without.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import re

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.core.runs.diagnose.refusals import refusal_of
from rocm_tune.profiles.runner_refusals import REFUSALS

_SPEC = importlib.util.spec_from_file_location(
    "build_runner_refusals", pathlib.Path(__file__).resolve().parents[1] / "tools" / "build_runner_refusals.py")
assert _SPEC is not None and _SPEC.loader is not None
_BUILD = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_BUILD)
HOLE, _messages, _template = _BUILD.HOLE, _BUILD._messages, _BUILD._template

NOISE = ("[2025-03-01 10:00:00,000] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda\n"
         "Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n")


def _explain(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp.diagnoses[exp.root] if exp.root is not None else None


def _tb(rank, frames, exc_line):
    p = f"[rank{rank}]: " if rank is not None else ""
    out = [p + "Traceback (most recent call last):"]
    for path, fn, src in frames:
        out += [f'{p}  File "{path}", line 117, in {fn}', f"{p}    {src}"]
    return "\n".join(out + [p + exc_line]) + "\n"


def _watchdog(rank, seq=5, op="BROADCAST", ms=1800000):
    pre = f"[rank{rank}]:[E1129 10:31:02.123456 140 ProcessGroupNCCL.cpp:616] "
    wd = (f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1, "
          f"NumelOut=1, Timeout(ms)={ms}) ran for {ms + 85} milliseconds before timing out.")
    return (f"{pre}{wd}\n"
            f"{pre}[Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA "
            "kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
            f"{pre}[Rank {rank}] To avoid data inconsistency, we are taking the entire process down.\n"
            "terminate called after throwing an instance of 'c10::DistBackendError'\n"
            f"  what():  [PG ID 0 PG GUID 0(default_pg) Rank {rank}] Process group watchdog thread terminated with "
            f"exception: {wd}\n"
            "Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 "
            "(most recent call first):\n")


ELASTIC_HEAD = (
    "E1129 10:31:05.000000 139 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 "
    "(pid: 140) of binary: /opt/conda/bin/python\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    "============================================================\ntrain.py FAILED\n"
    "------------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n"
    "  time      : 2025-03-01_10:01:05\n  host      : node1\n  rank      : 0 (local_rank: 0)\n"
    "  exitcode  : 1 (pid: 140)\n  error_file: /tmp/torchelastic_x/none_y/attempt_0/0/error.json\n"
    "  traceback : Traceback (most recent call last):\n")
PEER_GONE = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
             "ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.20.5\n"
             "[rank1]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
             "prematurely.\n[rank1]: Last error:\n"
             "[rank1]: socketProgressOpt: Call to recv from 10.0.0.1<43917> failed : Connection reset by peer\n")
GLOO_GONE = "[rank1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.1]:5678\n"
HF_TRAINER = "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py"
QUANT = ("ValueError: You cannot perform fine-tuning on purely quantized models. Please attach trainable adapters on "
         "top of the quantized model to correctly perform fine-tuning. Please see: "
         "https://huggingface.co/docs/transformers/peft for more details")
TRL_GRPO = "/usr/local/lib/python3.11/site-packages/trl/trainer/grpo_trainer.py"
VERL = _tb(0, [("/root/verl/verl/workers/fsdp_workers.py", "__init__",
                "assert self.config.actor.ppo_mini_batch_size % self.config.actor.ppo_micro_batch_size == 0")],
           "TypeError: unsupported operand type(s) for %: 'int' and 'NoneType'")


RULE1 = {
    # rank 0's refusal at 10:00, rank 1's watchdog 30 minutes later, then torchrun's summary
    "refusal-then-watchdog": ("config_error", NOISE + _tb(0, [("/work/train.py", "main", "trainer = Trainer(...)"),
                                                              (HF_TRAINER, "__init__", "raise ValueError(")], QUANT)
                              + _watchdog(1) + ELASTIC_HEAD),
    # the error only in elastic's Root Cause block (its traceback from the worker's error_file)
    "elastic-block-only": ("config_error", NOISE + _watchdog(1) + ELASTIC_HEAD +
                           f'    File "{HF_TRAINER}", line 571, in __init__\n      raise ValueError(\n  {QUANT}\n'
                           "============================================================\n"),
    # interleaved `[rankN]:` output, TRL's GRPO batch check on rank 0, rank 1's timeout on ALLREDUCE
    "interleaved-trl": ("config_error", NOISE + "[rank1]: Traceback (most recent call last):\n" + _tb(0, [
        (TRL_GRPO, "__init__", "raise ValueError(")],
        "ValueError: The global train batch size (3 x 2) must be evenly divisible by the number of generations per "
        "prompt (4). Given the current train batch size, the valid values for the number of generations are: [2, 3, 6].")
        + _watchdog(1, seq=12, op="ALLREDUCE", ms=600000)),
    # verl's assert over an unset setting, the peer on gloo lost it
    "verl-then-gloo": ("config_error", NOISE + VERL + GLOO_GONE),
    # a data error on rank 0 and NCCL's remote error on rank 1
    "data-then-peer-gone": ("dataset_error", NOISE + _tb(0, [
        ("/usr/local/lib/python3.10/site-packages/swift/llm/dataset/preprocessor/core.py", "__call__",
         "raise ValueError(")], "KeyError: 'conversations'") + PEER_GONE),
}


@pytest.mark.parametrize("name", sorted(RULE1))
def test_a_ranks_own_error_is_the_root_over_the_collective_teardown(tmp_path, name):
    family, text = RULE1[name]
    r = _explain(tmp_path, text)
    assert r is not None and r.family == family, (name, r and (r.family, r.code, r.first.text))
    assert r.code not in ("collective-timeout", "nccl-error", "nccl-peer-gone", "child-failed")


def test_an_unread_exception_before_a_lost_peer_is_the_lead_not_the_network(tmp_path):
    text = NOISE + _tb(0, [("/work/train.py", "main", "head = build_head(cfg)")],
                       "RuntimeError: expected the reward head to have 1 output, got 3") + PEER_GONE
    r = _explain(tmp_path, text)
    assert r is not None and r.family != "nccl_rccl_timeout_hang" and "reward head" in r.first.text


def test_without_an_own_error_the_watchdog_stays_the_collective(tmp_path):
    r = _explain(tmp_path, NOISE + "INFO torch.distributed.distributed_c10d: Added key: store_based_barrier_key:1\n"
                 + _watchdog(3, seq=1, op="ALLREDUCE", ms=1))
    assert r is not None and r.family == "nccl_rccl_timeout_hang"


def test_the_watchdogs_rethrow_of_a_gpu_error_is_that_error(tmp_path):
    text = NOISE + ("[rank0]:[E122 07:39:51.324142902 ProcessGroupNCCL.cpp:1515] [PG 3 Rank 0] Process group watchdog "
                    "thread terminated with exception: CUDA error: an illegal memory access was encountered\n"
                    "terminate called after throwing an instance of 'c10::DistBackendError'\n"
                    "  what():  [PG 3 Rank 0] Process group watchdog thread terminated with exception: CUDA error: an "
                    "illegal memory access was encountered\n")
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "cuda_error", (r and (r.family, r.code))


def test_a_lost_peer_reported_first_is_still_the_consequence_of_a_ranks_own_error(tmp_path):
    # e-rank (issue 26 brief): text order does not decide between a rank's wait for a peer and another rank's own
    # exception (streams are interleaved and buffered): the exception printed after the lost peer is the lead
    text = NOISE + PEER_GONE + _tb(0, [("/work/train.py", "main", "x = f()")], "RuntimeError: something of its own")
    r = _explain(tmp_path, text)
    assert r is not None and r.family != "nccl_rccl_timeout_hang" and "something of its own" in r.first.text
    # the later exception is itself a collective failure: the network stays the root
    text = NOISE + PEER_GONE + _tb(0, [("/work/train.py", "main", "x = f()")],
                                   "RuntimeError: NCCL communicator was aborted on rank 0.")
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "nccl_rccl_timeout_hang"


# ---------------------------------------------------------------- rule 2: the runners' refusals, from their source
SITE = "/usr/local/lib/python3.10/site-packages/"
_NOT_SETTINGS = re.compile(r"install|version|>=|upgrade|update|pad_token|eos_token|template|is not registered|tokenizer|"
                           r"safetensors|\bMPS\b|bf16|device does not support|does not support `pure_bf16`|requires? (?:torch|PyTorch)|"
                           # e-gen8: a key the runner retired is the versions (FAMILIES: keys renamed between releases)
                           r"no longer (?:valid|supported)|(?:is|are|has been|have been|was) (?:deprecated|removed)\b",
                           re.I)


def _installed(runner, path):
    if runner in ("llamafactory", "verl", "megatron"):
        return f"/work/{runner}/" + path
    return SITE + re.sub(r"^src/", "", path)


def _filled(template, values=("4", "'sdpa'", "['q_proj', 'v_proj']")):
    parts = template.split("\n", 1)[0].split(HOLE)
    return parts[0] + "".join(values[i % len(values)] + p for i, p in enumerate(parts[1:]))


OTHER_VALUES = ("16", "None", '"flash_attn"')
SAMPLE = [row for row in REFUSALS if not _NOT_SETTINGS.search(row[4])][::6]


@pytest.mark.parametrize("row", SAMPLE, ids=lambda r: f"{r[0]}:{r[2]}:{r[4][:30]}")
def test_a_runner_refusal_with_its_frames_is_config_error(tmp_path, row):
    runner, path, fn, exc, template = row
    src = "raise ValueError(" if exc != "AssertionError" else "assert cond, msg"
    text = NOISE + _tb(None, [("/work/run.py", "<module>", "main()"), (_installed(runner, path), fn, src)],
                       f"{exc}: {_filled(template)}")
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "config_error", (row, r and (r.family, r.code))


@pytest.mark.parametrize("row", SAMPLE[::3], ids=lambda r: f"{r[0]}:{r[2]}:{r[4][:30]}")
def test_a_runner_refusal_printed_alone_on_a_rank_is_config_error(tmp_path, row):
    # only the exception line (a log cut to its last line, or a runner's logger copy), other values spelled in
    text = NOISE + f"[rank1]: {row[3]}: {_filled(row[4], OTHER_VALUES)}\n" + PEER_GONE
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "config_error", (row, r and (r.family, r.code))


def test_every_runner_has_refusals_sampled():
    assert {r[0] for r in SAMPLE} >= {"ms-swift", "llamafactory", "hf-trainer", "trl", "accelerate", "deepspeed",
                                      "axolotl", "verl", "megatron", "peft"}
    assert any(r[1].startswith("swift/llm/utils/") for r in REFUSALS)       # 2.x
    assert any(r[1].startswith("swift/llm/argument/") for r in REFUSALS)    # 3.x
    assert any(r[1].startswith("swift/arguments/") for r in REFUSALS)       # 4.x


@pytest.mark.parametrize("line,runner", [
    # LLaMA-Factory finetuning_args (the f-string's value spelled as the user's list)
    ("ValueError: `use_dora` is only valid for LoRA training.", "llamafactory"),
    # DeepSpeed's batch assertion with other numbers than any log of it
    ("AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
     "gradient_acc_step * world_size 96 != 3 * 4 * 7", "deepspeed"),
    ("[rank3]: ValueError: Please set --model <model_id_or_path>`, model: None", "ms-swift"),
])
def test_refusal_of_reads_the_spellings_the_source_produces(line, runner):
    got = refusal_of(line)
    assert got is not None and got[0] == runner


@pytest.mark.parametrize("line", [
    "ValueError: too many values to unpack (expected 2)",
    "TypeError: forward() got an unexpected keyword argument 'num_items_in_batch'",
    "RuntimeError: chunk expects at least a 1-dimensional tensor",
    "ValueError: something entirely unrelated that no runner ever raised while checking arguments",
])
def test_refusal_of_leaves_other_messages(line):
    assert refusal_of(line) is None


def test_a_version_requirement_among_the_refusals_stays_the_versions(tmp_path):
    text = NOISE + _tb(None, [(SITE + "swift/arguments/rlhf_args.py", "_process_loss_type", "raise ValueError(")],
                       "ValueError: Multiple loss types requires trl >= 0.20, please install trl `pip install -U trl`")
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "version_check"


# ---------------------------------------------------------------- the builder's reading of the source
def test_templates_from_fstrings_format_and_percent():
    def t(expr):
        return _template(ast.parse(expr, mode="eval").body)
    assert t('f"a {x} b {y!r}"') == f"a {HOLE} b {HOLE}"
    assert t('"x={} y={}".format(a, b)') == f"x={HOLE} y={HOLE}"
    assert t('"bad %s value %d" % (a, b)') == f"bad {HOLE} value {HOLE}"
    assert t('"head " + str(n) + " tail"') == f"head {HOLE} tail"
    assert t("some_var") is None


def test_messages_reads_raise_and_assert_in_named_functions():
    src = ("class A:\n    def __post_init__(self):\n        if self.x:\n"
           "            raise ValueError(f'x={self.x} is not allowed with y')\n"
           "        assert self.y > 0, 'y must be positive in every run of it'\n"
           "    def other(self):\n        raise KeyError('not looked at')\n")
    got = _messages(src, ("__post_init__",))
    assert ("__post_init__", "ValueError", f"x={HOLE} is not allowed with y") in got
    assert ("__post_init__", "AssertionError", "y must be positive in every run of it") in got
    assert all(fn == "__post_init__" for fn, _, _ in got)


# ---------------------------------------------------------------- the fit misses' families, other spellings
def test_an_assert_over_unset_settings_is_config_error(tmp_path):
    text = NOISE + _tb(None, [("/opt/OpenRLHF/openrlhf/trainer/ppo_trainer.py", "fit",
                               "assert args.rollout_batch_size > cfg.micro_rollout_batch_size")],
                       "TypeError: '>' not supported between instances of 'int' and 'NoneType'")
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "config_error", (r and (r.family, r.code))


@pytest.mark.parametrize("frames,line", [
    ([("torch/nn/parallel/data_parallel.py", "forward", "inputs, kwargs = self.scatter(inputs, kwargs, self.device_ids)"),
      ("torch/nn/parallel/scatter_gather.py", "scatter_kwargs", "kwargs = scatter(kwargs, target_gpus, dim)"),
      ("torch/nn/parallel/scatter_gather.py", "scatter_map", "return Scatter.apply(target_gpus, None, dim, obj)")],
     "RuntimeError: chunk expects at least a 1-dimensional tensor"),
    ([("torch/nn/parallel/data_parallel.py", "forward", "raise RuntimeError(")],
     "RuntimeError: module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of "
     "them on device: cpu"),
])
def test_dataparallel_refusing_the_batch_is_ddp_error(tmp_path, frames, line):
    text = NOISE + _tb(None, [(SITE + p, fn, src) for p, fn, src in frames], line)
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "ddp_error", (r and (r.family, r.code))


def test_pdsh_prefixed_ranks_a_refusal_on_one_node_and_gloo_on_the_other(tmp_path):
    # DeepSpeed's multi-node launcher (pdsh) prefixes each line with the host
    ex = ('Traceback (most recent call last):\n  File "' + SITE + 'swift/llm/argument/train_args.py", line 170, in '
          "__post_init__\n    raise ValueError(\nValueError: DeepSpeed is not compatible with `device_map`. n_gpu: 8, "
          "local_world_size: 1.\n")
    peer = ("[E ProcessGroupGloo.cpp:138] Rank 1 successfully reached monitoredBarrier, but received errors while "
            "waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.\n"
            "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection reset by peer\n")
    text = "".join(f"worker-0: {line}\n" for line in ex.splitlines()) + \
        "".join(f"worker-1: {line}\n" for line in peer.splitlines())
    r = _explain(tmp_path, NOISE + text)
    assert r is not None and r.family == "config_error" and "device_map" in r.first.text


def test_a_refusal_that_says_frozen_is_no_hang(tmp_path):
    # axolotl's validation.py check_use_reentrant_mismatch; its words end on `frozen model.` (log-says-hang's shape)
    text = NOISE + _tb(None, [(SITE + "axolotl/utils/schemas/validation.py", "check_use_reentrant_mismatch",
                               "raise ValueError(")],
                       "ValueError: `use_reentrant` must be false when used with partially frozen model.")
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "config_error", (r and (r.family, r.code))


def test_the_refusals_fix_names_the_runner_and_its_file(tmp_path):
    text = NOISE + "[rank0]: ValueError: `use_dora` is only valid for LoRA training.\n"
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "config_error"
    assert "llamafactory" in r.fix and "hparams/" in r.fix


def test_the_heartbeat_monitors_abort_after_a_ranks_own_error_is_not_the_lead(tmp_path):
    # torch 2.4+: rank 0 raised, rank 1's heartbeat monitor (ProcessGroupNCCL.cpp) kills the process 8 minutes later
    stuck = ("[rank1]:[E1129 10:08:07.000 ProcessGroupNCCL.cpp:1395] [PG 0 (default_pg) Rank 1] ProcessGroupNCCL's "
             "watchdog got stuck for 480 seconds without making progress in monitoring enqueued collectives. This "
             "typically indicates a NCCL/CUDA API hang blocking the watchdog, and could be triggered by another thread "
             "holding the GIL inside a CUDA api, or other deadlock-prone behaviors.If you suspect the watchdog is not "
             "actually stuck and a longer timeout would help, you can either increase the timeout "
             "(TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC) to a larger value or disable the heartbeat monitor "
             "(TORCH_NCCL_ENABLE_MONITORING=0).\n"
             "[rank1]:[F1129 10:08:07.000 ProcessGroupNCCL.cpp:1224] [PG 0 (default_pg) Rank 1] Terminating the "
             "process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang.\n")
    text = NOISE + _tb(0, [("/work/train.py", "main", "head = build_head(cfg)")],
                       "RuntimeError: expected the reward head to have 1 output, got 3") + stuck
    r = _explain(tmp_path, text)
    assert r is not None and r.family != "nccl_rccl_timeout_hang" and "reward head" in r.first.text
    r = _explain(tmp_path, NOISE + VERL + stuck)
    assert r is not None and r.family == "config_error"
