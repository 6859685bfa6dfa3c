"""`check` never reads a count the launcher would refuse as "unset" (issue 25: no input makes a command answer
something wrong without saying so). `NPROC_PER_NODE=x swift sft ...` or `torchrun --nproc_per_node zz` do not start;
`--sequence_parallel_size zz` stops ms-swift's argument parser. The answer names the value and its line, and the
verdict is "cannot tell" - not a plan for one process. Counts the shell computes (`$NGPU`) and torchrun's own words
(`auto`, `gpu`) are read as before."""

from __future__ import annotations

import json

import pytest

SWIFT = ("{env}CUDA_VISIBLE_DEVICES=0,1 swift sft --model Qwen/Qwen2.5-7B-Instruct --train_type lora --dataset alpaca "
         "--max_length 2048 --per_device_train_batch_size 1{extra}\n")
TORCHRUN = ("torchrun --nproc_per_node {n} train.py --model_name_or_path Qwen/Qwen2.5-7B-Instruct "
            "--per_device_train_batch_size 1 --bf16 True\n")


def _check(cli, tmp_path, text: str) -> dict:
    p = tmp_path / "train.sh"
    p.write_text(text)
    out = cli("check", str(p), "--gpu", "mi300x", "--json")
    assert out.returncode in (0, 1), out.stderr
    assert "Traceback" not in out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("text, named", [
    (SWIFT.format(env="NPROC_PER_NODE=x ", extra=""), "NPROC_PER_NODE 'x'"),
    (SWIFT.format(env="NPROC_PER_NODE=2 ", extra=" --sequence_parallel_size zz"), "sequence_parallel_size 'zz'"),
    (TORCHRUN.format(n="zz"), "nproc_per_node 'zz'"),
    (SWIFT.format(env="NNODES=two NPROC_PER_NODE=2 ", extra=""), "NNODES 'two'"),
])
def test_a_count_the_launcher_refuses_is_named_not_read_as_unset(cli, tmp_path, text, named):
    rep = _check(cli, tmp_path, text)
    assert rep["verdict"] == "unknown" and named in rep["reason"]
    bad = [f for f in rep["findings"] if f["code"] == "bad-value"]
    assert len(bad) == 1 and named in bad[0]["message"] and bad[0]["line"] == 1 and bad[0]["severity"] == "error"


@pytest.mark.parametrize("text, gpus", [
    (SWIFT.format(env="NPROC_PER_NODE=2 ", extra=" --sequence_parallel_size 2"), 2),
    (TORCHRUN.format(n="2"), 2),
    ("NGPU=4\n" + TORCHRUN.format(n="$NGPU"), None),   # computed by the shell: not a bad value
    (TORCHRUN.format(n="gpu"), None),                  # torchrun's own word for "one per GPU"
])
def test_counts_the_launcher_takes_are_still_read(cli, tmp_path, text, gpus):
    rep = _check(cli, tmp_path, text)
    assert rep["verdict"] in ("fits", "oom"), rep["reason"]
    assert not [f for f in rep["findings"] if f["code"] == "bad-value"]
    if gpus is not None:
        assert rep["world_size"] == gpus
