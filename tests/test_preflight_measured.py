"""Measured memory per rank in the run directory: the reader, the built-in trainer's callback, two nodes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest
import yaml

from rocm_tune.core.runs.watch.measured import read_measured, read_rank_file
from rocm_tune.train.callbacks import append_rank_record
from tests.conftest import run_cli
from tests.helpers_train import read_jsonl, tiny_assets, train_dict, wait_for


def test_reader_takes_latest_sample_and_max_peak_and_skips_torn_line(tmp_path):
    for step, peak in ((1, 100), (2, 300), (3, 250)):
        append_rank_record(tmp_path, {"node": "1", "rank": 3, "step": step, "peak_allocated_bytes": peak,
                                      "peak_reserved_bytes": peak * 2, "allocated_bytes": peak - 10,
                                      "tokens_per_s": 10.0 * step})
    append_rank_record(tmp_path, {"node": "0", "rank": 0, "step": 3, "peak_allocated_bytes": 50,
                                  "tokens_per_s": 5.0})
    path = tmp_path / "ranks" / "1-3.jsonl"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"type": "mem", "node": "1", "rank": 3, "step": 4, "peak_alloc')   # a writer died mid-line
    r = read_rank_file(path)
    assert (r.node, r.rank, r.step, r.allocated_bytes) == ("1", 3, 3, 240)
    assert r.peak_allocated_bytes == 300 and r.peak_reserved_bytes == 600 and r.samples == 3
    m = read_measured(tmp_path)
    assert m.nodes == ("0", "1") and [x.rank for x in m.ranks] == [0, 3]
    assert m.peak_allocated_bytes == 300 and m.tokens_per_s == 35.0
    d = m.to_dict()
    assert json.loads(json.dumps(d)) == d and d["ranks"][1]["peak_reserved_bytes"] == 600


def test_no_ranks_dir_is_none(tmp_path):
    assert read_measured(tmp_path) is None
    (tmp_path / "ranks").mkdir()
    (tmp_path / "ranks" / "notes.txt").write_text("x")
    assert read_measured(tmp_path) is None


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    return tiny_assets(tmp_path_factory, n=48)


@pytest.mark.slow
def test_builtin_trainer_writes_rank_file_into_run_dir(assets, tmp_path):
    cfg = tmp_path / "train.yaml"
    cfg.write_text(yaml.safe_dump(train_dict(assets, tmp_path / "out", finetuning_type="lora", max_steps=4,
                                             logging_steps=1, save_steps=100)))
    out = run_cli("run", "--config", str(cfg), "--dir", str(tmp_path / "run"), "--json")
    assert out.returncode == 0, out.stderr
    run_dir = tmp_path / "run"
    assert wait_for(lambda: (run_dir / "exit.json").exists(), timeout=120), (run_dir / "stdout.log").read_text()[-2000:]
    assert json.loads((run_dir / "exit.json").read_text())["status"] == "finished"
    recs = read_jsonl(run_dir / "ranks" / "0-0.jsonl")
    steps = [r for r in recs if r["step"] in (1, 2, 3, 4) and r.get("tokens_per_s") is not None]
    assert len(steps) >= 3, recs
    assert all(r["tokens_per_s"] > 0 and r["rss_bytes"] > 10 * 2**20 for r in steps)
    # on CPU there is no GPU memory: null, never a made-up number
    assert all(r["device"] == "cpu" and r["peak_allocated_bytes"] is None and r["source"] == "host" for r in recs)
    assert recs[0]["host"] == socket.gethostname() and recs[0]["world_size"] == 1
    # attach --once --json carries it
    snap = json.loads(run_cli("attach", str(run_dir), "--once", "--json", "--no-gpus").stdout)
    assert snap["measured"]["nodes"] == ["0"] and snap["measured"]["ranks"][0]["step"] == 4
    assert snap["predicted"] is None   # started from a config, no plan.json


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_two_nodes_write_into_one_run_dir_and_attach_shows_both(assets, tmp_path):
    """A real 2-node torchrun job (one process per node, gloo) on this machine, one shared run dir."""
    cfg = tmp_path / "train.yaml"
    cfg.write_text(yaml.safe_dump(train_dict(assets, tmp_path / "out", finetuning_type="lora", max_steps=3,
                                             logging_steps=1, save_steps=100)))
    port = _free_port()
    node = ("{py} -m torch.distributed.run --nnodes 2 --node_rank {n} --nproc_per_node 1 --master_addr 127.0.0.1 "
            "--master_port {port} -m rocm_tune train {cfg}")
    script = tmp_path / "job.sh"
    script.write_text("\n".join([
        "set -e",
        node.format(py=sys.executable, n=0, port=port, cfg=cfg) + " &",
        node.format(py=sys.executable, n=1, port=port, cfg=cfg) + " &",
        "wait %1 && wait %2",
    ]) + "\n")
    out = run_cli("run", "--script", str(script), "--dir", str(tmp_path / "run"),
                  env={"OMP_NUM_THREADS": "1", "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    assert out.returncode == 0, out.stderr
    run_dir = tmp_path / "run"
    # an upper bound for a loaded 2-core machine (two training processes); idle, it ends in seconds
    assert wait_for(lambda: (run_dir / "exit.json").exists(), timeout=600), (run_dir / "stdout.log").read_text()[-3000:]
    log = (run_dir / "stdout.log").read_text()
    assert json.loads((run_dir / "exit.json").read_text())["status"] == "finished", log[-3000:]
    assert sorted(os.listdir(run_dir / "ranks")) == ["0-0.jsonl", "1-1.jsonl"]
    snap = json.loads(run_cli("attach", str(run_dir), "--once", "--json", "--no-gpus").stdout)
    m = snap["measured"]
    assert m["nodes"] == ["0", "1"]
    assert [(r["node"], r["rank"], r["world_size"]) for r in m["ranks"]] == [("0", 0, 2), ("1", 1, 2)]
    assert all(r["step"] == 3 and r["tokens_per_s"] > 0 for r in m["ranks"])
    human = run_cli("attach", str(run_dir), "--once", "--no-gpus").stdout
    assert "2 rank(s) on 2 node(s)" in human and "node 1" in human
    listed = subprocess.run([sys.executable, "-m", "rocm_tune", "runs"], capture_output=True, text=True)
    assert "PEAK" in listed.stdout.splitlines()[0]


def test_recorded_param_dtypes_are_read_and_compared_with_the_plan(tmp_path):
    """A rank that trains bf16 frozen weights under a plan that says fp32 (report 000 through stock LLaMA-Factory)
    is named; a rank that trains what the plan says is not."""
    from rocm_tune.core.runs.watch.measured import dtype_mismatches, human_lines

    append_rank_record(tmp_path, {"node": "0", "rank": 0, "step": 1,
                                  "param_dtypes": {"frozen": {"bfloat16": 900, "float32": 10},
                                                   "trainable": {"float32": 40}}})
    append_rank_record(tmp_path, {"node": "0", "rank": 1, "step": 1,
                                  "param_dtypes": {"frozen": {"float32": 910}, "trainable": {"float32": 40}}})
    m = read_measured(tmp_path).to_dict()
    assert m["ranks"][0]["param_dtypes"] == {"frozen": {"bfloat16": 900, "float32": 10}, "trainable": {"float32": 40}}
    predicted = {"frozen_weights": "fp32", "trainable_weights": "fp32", "peak_allocated_bytes": None}
    assert dtype_mismatches(m, predicted) == ["rank 0: frozen parameters are bf16+fp32, the plan says fp32"]
    text = "\n".join(human_lines(m, predicted))
    assert "params: frozen fp32, trainable fp32" in text and "! rank 0: frozen parameters are bf16+fp32" in text
    # a record with a malformed param_dtypes is read without it, never an error
    append_rank_record(tmp_path, {"node": "0", "rank": 2, "param_dtypes": {"frozen": "bf16"}})
    assert read_measured(tmp_path).to_dict()["ranks"][2]["param_dtypes"] is None
