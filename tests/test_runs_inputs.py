"""Issue 15: statuses from what the files say, log rewrites, and bounded reads of hostile input.

Each defect of the issue reproduced as it was reported (real files, real CLI subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rocm_tune.core.runs.watch.parsers import TEXT_LINE_MAX, TextParser
from rocm_tune.core.runs.watch.watch import Watcher
from tests.conftest import run_cli


def attach_json(target: str, **kw) -> dict:
    r = run_cli("attach", target, "--once", "--json", "--no-gpus", **kw)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def lf_log(path: Path, steps: int, total: int, loss: float = 0.0) -> None:
    path.write_text("".join(json.dumps({"current_steps": s, "total_steps": total, "loss": loss, "lr": 1e-4,
                                        "epoch": s / total, "percentage": round(100 * s / total, 2),
                                        "elapsed_time": "0:00:10", "remaining_time": "0:01:00"}) + "\n"
                            for s in range(1, steps + 1)))


# ---------------------------------------------------------------------------------------------- item 3


def test_loss_zero_from_step_one_without_grad_norm_fires_loss_collapse(tmp_path):
    out = tmp_path / "saves"
    out.mkdir()
    lf_log(out / "trainer_log.jsonl", 20, 100)
    snap = attach_json(str(out))
    assert snap["step"] == 20 and snap["loss"] == 0.0
    (a,) = [a for a in snap["alerts"] if a["code"] == "loss-collapse"]
    assert "fp16" in a["fix"]  # precision unknown: the fp16 overflow is the likely cause


def test_a_complete_trainer_log_alone_is_finished_and_alerts(tmp_path):
    lf_log(tmp_path / "trainer_log.jsonl", 20, 20)
    snap = attach_json(str(tmp_path / "trainer_log.jsonl"))
    assert snap["status"] == "finished"
    assert "loss-collapse" in [a["code"] for a in snap["alerts"]]


def test_a_fp32_run_is_not_told_to_leave_fp16(tmp_path):
    (tmp_path / "running_log.txt").write_text(
        "[INFO|parser.py:355] Process rank: 0, world size: 2, device: cpu, distributed training: True, "
        "compute dtype: None\n")
    lf_log(tmp_path / "trainer_log.jsonl", 10, 100)
    snap = attach_json(str(tmp_path))
    (a,) = [a for a in snap["alerts"] if a["code"] == "loss-collapse"]
    assert "not an fp16 overflow" in a["fix"] and a["data"]["precision"] == "fp32"
    assert snap["world_size"] == 2


@pytest.mark.parametrize("state", [
    {"global_step": 48, "max_steps": 48},
    {"global_step": 30, "max_steps": 48, "should_training_stop": True},
])
def test_trainer_state_says_finished(tmp_path, state):
    ck = tmp_path / "checkpoint-48"
    ck.mkdir()
    (ck / "trainer_state.json").write_text(json.dumps(
        {**state, "log_history": [{"step": s, "loss": 2.0 / s, "epoch": s / 48} for s in range(1, 31)]}))
    assert attach_json(str(ck))["status"] == "finished"
    assert attach_json(str(tmp_path))["status"] == "finished"


# ---------------------------------------------------------------------------------------------- item 13


def test_a_log_that_ends_in_a_traceback_is_failed_with_the_error_line(tmp_path):
    log = tmp_path / "nohup.out"
    log.write_text("[INFO] loading model\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
                   "    main()\nValueError: Your setup doesn't support bf16/gpu.\n")
    snap = attach_json(str(log))
    assert snap["status"] == "failed" and snap["reason"] == "ValueError: Your setup doesn't support bf16/gpu."
    # the failure catalogue names the cause (issue 20); the generic process-exited alert is not repeated
    (a,) = [a for a in snap["alerts"] if a["code"] in ("process-exited", "bf16-unsupported")]
    assert a["code"] == "bf16-unsupported" and "bf16/gpu" in a["evidence"]
    # an error followed by progress is not a failure
    log.write_text(log.read_text() + "{'loss': 1.5, 'grad_norm': 1.0, 'learning_rate': 0.0001, 'epoch': 0.1}\n")
    assert attach_json(str(log))["status"] != "failed"


# ---------------------------------------------------------------------------------------------- item 7


def test_a_log_rewritten_larger_between_two_polls_is_read_from_the_start(tmp_path):
    p = tmp_path / "metrics.jsonl"

    def write(n: int, loss: float, pad: str) -> None:
        rows = [{"type": "start", "time": 1.0, "total_steps": 20, "note": pad}]
        rows += [{"type": "step", "time": 1.0 + s, "step": s, "loss": loss} for s in range(1, n + 1)]
        with open(p, "w") as fh:  # same inode: truncate and rewrite in place
            fh.write("".join(json.dumps(r) + "\n" for r in rows))

    write(8, 5.0, "first run")
    w = Watcher(str(p))
    w.poll()
    assert w.history.step == 8 and w.history.steps_logged == 8
    ino = os.stat(p).st_ino
    write(11, 1.0, "second run, a longer header so the file is bigger")
    assert os.stat(p).st_ino == ino
    w.poll()
    assert w.history.step == 11 and w.history.steps_logged == 11  # steps 1-8 of the new run not lost
    assert w.history.smoothed_loss == 1.0  # not mixed with the old run's 5.0
    assert w.restarts == 1
    w.close()


# ---------------------------------------------------------------------------------------------- item 9 / 15


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "pipe.yaml"
    os.mkfifo(p)
    return p


@pytest.mark.parametrize("argv", [
    ("dataset", "{deep}"), ("dataset", "/dev/zero"), ("dataset", "{fifo}"),
    ("plan", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--dataset", "{deep}"),
    ("export", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--dataset", "{deep}", "-o", "{out}"),
    ("train", "{deepyaml}", "--check"), ("run", "--config", "{deepyaml}"), ("train", "{fifo}", "--check"),
    ("attach", "99999999999", "--once", "--json"), ("attach", "{fifo}", "--once", "--json"),
    ("attach", "/dev/zero", "--once"),
])
def test_hostile_inputs_are_one_line_exit_2(tmp_path, fifo, argv):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000)
    deepyaml = tmp_path / "deep.yaml"
    deepyaml.write_text("model_name_or_path: " + "[" * 200_000 + "\n")
    args = [a.format(deep=deep, deepyaml=deepyaml, fifo=fifo, out=tmp_path / "out") for a in argv]
    r = run_cli(*args, timeout=120)
    assert r.returncode == 2, (args, r.returncode, r.stderr[-500:])
    assert r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr and "error:" in r.stderr


def test_attach_does_not_open_a_fifo_named_in_another_process_argv(tmp_path, fifo):
    """Finding the writer of an output dir scans other processes' argv; a FIFO .yaml there must not block it."""
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", str(fifo)])
    try:
        out = tmp_path / "saves"
        out.mkdir()
        lf_log(out / "trainer_log.jsonl", 3, 10, loss=1.0)
        r = run_cli("attach", str(out), "--once", "--json", "--no-gpus", timeout=100)
        assert r.returncode == 0 and json.loads(r.stdout)["step"] == 3
    finally:
        other.kill()
        other.wait()


def test_a_single_endless_line_is_looked_at_only_in_part():
    """The 200 MB single-line log: the text parser sees at most TEXT_LINE_MAX characters of one line."""
    seen = []
    p = TextParser()
    orig = p._segment
    p._segment = lambda seg: (seen.append(len(seg)), orig(seg))[1]
    p.feed("{'loss': 1.25, 'grad_norm': 0.5}" + "x" * (10 * TEXT_LINE_MAX))
    assert seen and max(seen) <= TEXT_LINE_MAX + 1


def test_gpus_record_never_writes_through_a_planted_link(tmp_path):
    victim = tmp_path / "victim"
    (tmp_path / "out.json.tmp").symlink_to(victim)          # the old fixed temp name
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "missing")                    # a dangling link the user made
    env = {"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:1"}
    ok = run_cli("gpus", "--record", str(tmp_path / "out.json"), "--frames", "1", "--interval", "0.1", env=env)
    assert ok.returncode == 0, ok.stderr
    assert not victim.exists() and json.loads((tmp_path / "out.json").read_text())["frames"]
    refused = run_cli("gpus", "--record", str(link), "--frames", "1", "--interval", "0.1", env=env)
    assert refused.returncode == 2 and "symbolic link" in refused.stderr and link.is_symlink()
    forced = run_cli("gpus", "--record", str(link), "--frames", "1", "--interval", "0.1", "--force", env=env)
    assert forced.returncode == 0 and not link.is_symlink() and not (tmp_path / "missing").exists()
