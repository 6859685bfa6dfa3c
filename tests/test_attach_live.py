"""`attach` on a live log: the run's process is the one that WRITES the log, never a reader (issue 25, item 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli

# a training-like writer: logs 3 steps of 10 (HF dict lines), waits until GO exists, then fails with a traceback
WRITER = textwrap.dedent("""
    import os, sys, time
    go = sys.argv[1]
    print("***** Running training *****", flush=True)
    print("  Total optimization steps = 10", flush=True)
    for i in range(1, 4):
        print(f"{{'loss': '{2.0 - i / 10:.4g}', 'learning_rate': '0.0001', 'epoch': '{i / 10:.3g}'}}", flush=True)
        time.sleep(0.05)
    print("step 3 logged", flush=True)
    while not os.path.exists(go):
        time.sleep(0.05)
    raise RuntimeError("CUDA error: an illegal memory access was encountered")
""")


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return ""


def _wait_for(pred, what: str, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while not pred():
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux /proc")
def test_a_reader_holding_the_log_is_never_the_run(tmp_path):
    script, log, go = tmp_path / "w.py", tmp_path / "train.log", tmp_path / "go"
    script.write_text(WRITER)
    log.write_text("")
    # the reader opens the log FIRST (so a scan that takes the first holder would find it)
    reader = subprocess.Popen(["tail", "-f", str(log)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    writer = None
    try:
        _wait_for(lambda: any(os.path.exists(f"/proc/{reader.pid}/fd/{fd}") and
                              os.readlink(f"/proc/{reader.pid}/fd/{fd}") == str(log)
                              for fd in os.listdir(f"/proc/{reader.pid}/fd")), "tail to open the log")
        with open(log, "ab") as fh:
            writer = subprocess.Popen([sys.executable, str(script), str(go)], stdout=fh, stderr=subprocess.STDOUT)
        _wait_for(lambda: "step 3 logged" in log.read_text(), "the writer's third step")
        d = json.loads(run_cli("attach", str(log), "--once", "--json", "--no-gpus").stdout)
        assert d["process"]["pid"] == writer.pid != reader.pid
        assert d["status"] == "running" and d["alive"] is True and d["step"] == 3 and d["total_steps"] == 10

        go.write_text("")               # the writer fails now; the reader keeps the log open
        assert writer.wait(timeout=60) == 1
        assert reader.poll() is None
        r = run_cli("attach", str(log), "--once", "--json", "--no-gpus")
        d = json.loads(r.stdout)
        assert d["process"]["pid"] != reader.pid
        assert d["status"] == "failed" and d["alive"] is not True, d["process"]
        assert "illegal memory access" in (d["reason"] or "")
        assert d["eta_s"] is None       # a failed run has no ETA
        human = run_cli("attach", str(log), "--once", "--no-gpus").stdout
        assert "status   failed" in human and "eta -" in human and f"pid {reader.pid}" not in human
    finally:
        reader.kill()
        reader.wait()
        if writer is not None and writer.poll() is None:
            writer.kill()
            writer.wait()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux /proc")
def test_a_pager_naming_the_training_yaml_is_not_the_run(tmp_path):
    """An output dir's run is found through the YAML on a launcher's command line; a pager or editor that names the
    same YAML (here `tail` copied as `less`, following the YAML) is not it."""
    import shutil

    from rocm_tune.core.runs.watch.watch import resolve_target

    out = tmp_path / "out"
    out.mkdir()
    (out / "trainer_log.jsonl").write_text('{"current_steps": 1, "total_steps": 10, "loss": 2.0}\n')
    cfg = tmp_path / "train.yaml"
    cfg.write_text(f"output_dir: {out}\n")
    less = tmp_path / "less"
    shutil.copy(shutil.which("tail"), less)
    pager = subprocess.Popen([str(less), "-f", str(cfg)], cwd=tmp_path, stdout=subprocess.DEVNULL)
    trainer = None
    try:
        _wait_for(lambda: str(cfg) in _cmdline(pager.pid), "the pager to start")
        assert resolve_target(str(out)).pid is None
        trainer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", str(cfg)], cwd=tmp_path)
        _wait_for(lambda: str(cfg) in _cmdline(trainer.pid), "the trainer to start")
        assert resolve_target(str(out)).pid == trainer.pid
    finally:
        for p in (pager, trainer):
            if p is not None:
                p.kill()
                p.wait()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux /proc")
def test_attach_pid_takes_the_logs_it_writes_not_the_ones_it_reads(tmp_path):
    own, other, ready = tmp_path / "own.log", tmp_path / "other.log", tmp_path / "ready"
    other.write_text("{'loss': '9.0', 'learning_rate': '0.1', 'epoch': '0.5'}\n")
    code = textwrap.dedent(f"""
        import time
        r = open({str(other)!r})                 # read only
        w = open({str(own)!r}, "a")              # its own log
        w.write("{{'loss': '1.5', 'learning_rate': '0.0001', 'epoch': '0.1'}}\\n"); w.flush()
        open({str(ready)!r}, "w").close()
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(ready.exists, "the process to open both logs")
        d = json.loads(run_cli("attach", str(proc.pid), "--once", "--json", "--no-gpus").stdout)
        paths = [s["path"] for s in d["sources"]]
        assert str(own) in paths and str(other) not in paths, paths
        assert d["loss"] == 1.5
    finally:
        proc.kill()
        proc.wait()
