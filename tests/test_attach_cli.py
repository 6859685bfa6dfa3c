"""`rocm-tune attach` end to end: real subprocesses, real files, real processes."""

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

LOGS = Path(__file__).parent / "fixtures" / "logs"
LF = LOGS / "llamafactory-0.9.5-lora-cpu"


def test_once_json_on_llamafactory_output_dir():
    r = run_cli("attach", str(LF), "--once", "--json", env={"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2"})
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["kind"] == "outdir" and d["source_kind"] == "llamafactory"
    assert d["step"] == 36 and d["total_steps"] == 36 and d["progress"] == 1.0 and d["epoch"] == 3.0
    assert d["loss"] == pytest.approx(5.693815231323242)
    assert 5.69 < d["smoothed_loss"] < 5.76
    assert d["learning_rate"] == pytest.approx(2.4076366639015913e-06)
    assert d["grad_norm"] == pytest.approx(0.324, rel=1e-3)     # from stdout.log: trainer_log.jsonl has none
    assert d["step_time_s"] == pytest.approx(1 / 6.97, rel=1e-3)
    assert d["elapsed_s"] == pytest.approx(5.165) and d["eta_s"] is None   # finished: no ETA (issue 25 item 3)
    assert d["status"] == "finished" and d["alerts"] == []
    assert len(d["gpus"]) == 2 and d["gpus"][0]["index"] == 0 and d["gpu_backend"]


def test_once_json_without_gpus_is_an_empty_list_and_human_once():
    r = run_cli("attach", str(LOGS / "alert-oom-hip-dcu.log"), "--once", "--json", "--no-gpus")
    d = json.loads(r.stdout)
    assert d["gpus"] == [] and [a["code"] for a in d["alerts"]] == ["oom"]
    assert d["alerts"][0]["data"]["tried_bytes"] == int(1.45 * 2**30)
    h = run_cli("attach", str(LOGS / "alert-oom-hip-dcu.log"), "--once", "--no-gpus")
    assert h.returncode == 0 and "oom: HIP out of memory: tried to allocate 1.45 GiB" in h.stdout


@pytest.mark.parametrize("args", [("no-such-run",), ("/nonexistent/dir/log.txt",), ("999999999",),
                                  (str(LF), "--json"), (str(LF), "--plain", "--once")])
def test_bad_target_or_flags_one_line_exit_2(args):
    r = run_cli("attach", *args, "--once" if "--plain" not in args and "--json" not in args else "--no-gpus")
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "Traceback" not in r.stderr


def test_plain_streams_one_line_per_step_and_exits_with_the_run():
    r = run_cli("attach", str(LF / "stdout.log"), "--plain")
    assert r.returncode == 0, r.stderr
    steps = [ln for ln in r.stdout.splitlines() if ln.startswith("step ")]
    assert len(steps) == 36 and steps[0].startswith("step 1/36 ep 0.08 loss 5.8860")
    assert "# run finished at step 36/36, train_loss 5.7640" in r.stdout


def test_without_flags_and_not_a_tty_falls_back_to_plain():
    r = run_cli("attach", str(LOGS / "clean-metrics.jsonl"))
    assert r.returncode == 0
    assert sum(ln.startswith("step ") for ln in r.stdout.splitlines()) == 20
    assert "eval step 20: eval_loss 1.5000" in r.stdout


def _registered_run(state_home: Path, rid: str, exit_rec: dict | None) -> Path:
    d = state_home / "rocm-tune" / "runs" / rid
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"id": rid, "name": "tiny", "command": ["python", "train.py"],
                                            "cwd": str(d), "env": {}, "created_at": 1.7e9, "started_at": 1.7e9,
                                            "pid": None, "pgid": None, "supervisor_pid": None, "plan": None,
                                            "kind": "command", "total_steps": 20}))
    (d / "metrics.jsonl").write_text((LOGS / "clean-metrics.jsonl").read_text())
    (d / "stdout.log").write_text("{'loss': 1.0}\nall done\n")
    if exit_rec:
        (d / "exit.json").write_text(json.dumps(exit_rec))
    return d


def test_run_id_and_prefix_resolve_through_the_registry():
    state = Path(os.environ["XDG_STATE_HOME"])
    rid = "20270101-120000-tiny-ab12"
    _registered_run(state, rid, {"status": "failed", "returncode": 3, "signal": None, "ended_at": 1.7e9 + 50})
    for ref in (rid, "20270101-1200", "tiny"):
        r = run_cli("attach", ref, "--once", "--json", "--no-gpus")
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert d["kind"] == "run" and d["run_id"] == rid and d["source_kind"] == "metrics"
        assert d["step"] == 20 and d["status"] == "failed" and d["exit_code"] == 3
        assert [a["code"] for a in d["alerts"]] == ["process-exited"]
    # --plain on a finished run returns the run's exit code
    r = run_cli("attach", rid, "--plain")
    assert r.returncode == 3 and "# run failed (exit code 3) at step 20/20" in r.stdout


WRITER = textwrap.dedent("""
    import sys, time
    n = int(sys.argv[1])
    print("***** Running training *****", flush=True)
    print(f"  Total optimization steps = {n}", flush=True)
    for i in range(1, n + 1):
        time.sleep(float(sys.argv[2]))
        sys.stderr.write(f"\\r {i * 100 // n:3d}%|##| {i}/{n} [00:0{i}<00:10,  2.00it/s]")
        sys.stderr.flush()
        print(f"{{'loss': '{2.0 - i / 10:.4g}', 'grad_norm': '0.5', 'learning_rate': '0.0001', 'epoch': '{i / n:.3g}'}}",
              flush=True)
    if len(sys.argv) > 3:
        time.sleep(float(sys.argv[3]))
    print("{'train_runtime': '1.5', 'train_samples_per_second': '4', 'train_steps_per_second': '2', "
          "'train_loss': '1.7', 'epoch': '1'}", flush=True)
""")


def test_attach_by_pid_finds_the_log_through_proc_fd(tmp_path):
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs Linux /proc")
    script = tmp_path / "w.py"
    script.write_text(WRITER)
    log = tmp_path / "train.out"
    with open(log, "wb") as fh:
        proc = subprocess.Popen([sys.executable, str(script), "3", "0.05", "60"], stdout=fh, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 30
        while log.read_text().count("'loss'") < 3 and time.time() < deadline:
            time.sleep(0.1)
        r = run_cli("attach", str(proc.pid), "--once", "--json", "--no-gpus")
        assert r.returncode == 0, r.stderr
        d = json.loads(r.stdout)
        assert d["kind"] == "pid" and d["alive"] is True and d["status"] == "running"
        assert d["sources"][0]["path"] == str(log) and d["source_kind"] == "text"
        assert d["step"] == 3 and d["total_steps"] == 3 and d["loss"] == pytest.approx(1.7)
    finally:
        proc.kill()
        proc.wait()
    r = run_cli("attach", str(proc.pid), "--once")
    assert r.returncode == 2   # gone now


def test_plain_follows_a_growing_log_until_the_writer_finishes(tmp_path):
    script = tmp_path / "w.py"
    script.write_text(WRITER)
    log = tmp_path / "train.log"
    log.write_text("")
    with open(log, "ab") as fh:
        proc = subprocess.Popen([sys.executable, str(script), "6", "0.3"], stdout=fh, stderr=subprocess.STDOUT)
    try:
        r = run_cli("attach", str(log), "--plain", "--interval", "0.1", timeout=60)
    finally:
        proc.wait(timeout=30)
    assert r.returncode == 0, r.stderr
    steps = [ln for ln in r.stdout.splitlines() if ln.startswith("step ")]
    assert [s.split()[1] for s in steps] == [f"{i}/6" for i in range(1, 7)]
    assert "# run finished" in r.stdout and "at step 6/6, train_loss 1.7000" in r.stdout


def test_attach_a_command_started_with_rocm_tune_run(tmp_path):
    """A plain command's run dir has no metrics.jsonl: its stdout.log gives the steps; exit code comes back."""
    script = tmp_path / "w.py"
    script.write_text(WRITER + "\nraise SystemExit(4)\n")
    r = run_cli("run", "--name", "plaincmd", "--json", "--", sys.executable, str(script), "4", "0.2")
    assert r.returncode == 0, r.stderr
    rid = json.loads(r.stdout)["id"]
    p = run_cli("attach", rid, "--plain", "--interval", "0.1", timeout=60)
    assert p.returncode == 4, p.stdout + p.stderr
    steps = [ln.split()[1] for ln in p.stdout.splitlines() if ln.startswith("step ")]
    assert steps == ["1/4", "2/4", "3/4", "4/4"]
    assert "[process-exited] training process failed (exit code 4)" in p.stdout
    d = json.loads(run_cli("attach", "plaincmd", "--once", "--json", "--no-gpus").stdout)
    assert d["source_kind"] == "text" and d["step"] == 4 and d["exit_code"] == 4 and d["status"] == "failed"
