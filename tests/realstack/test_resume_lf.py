"""Issue 21 item 1, the journey: a 2-process LLaMA-Factory run from an exported bundle (`rocm-tune run --script
bundle/run.sh`, the real llamafactory 0.9.5 venv, two local processes on gloo) is stopped with `rocm-tune stop`
after it saved checkpoints (save_steps=1), resumed on 1 process with `rocm-tune resume RUN --gpus 1`, and
finishes in the same run directory: the step count continues from the checkpoint (not from 0), one loss curve
with every step once up to the checkpoint and the restart recorded in run.json."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.realstack.test_realstack import _tiny_bundle

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

EPOCHS = 10
STEPS = EPOCHS * 48 // 8   # 48 samples, effective batch 8


def _wait(pred, timeout: float, what: str):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _status(run_dir: Path) -> str:
    from rocm_tune.core.runs.rundir import load_run

    return load_run(run_dir).status


def test_stopped_two_process_run_resumes_on_one_process_and_continues_its_steps(realstack, tiny, data_file, tmp_path):
    b = _tiny_bundle(tmp_path, tiny, data_file, "--gpus", "2", "--launcher", "torchrun")
    y = b / "llamafactory.yaml"
    text = y.read_text(encoding="utf-8").replace("save_steps: 500", "save_steps: 1")
    text = text.replace("num_train_epochs: 1.0", f"num_train_epochs: {EPOCHS}.0") + "save_total_limit: 3\n"
    y.write_text(text, encoding="utf-8")
    env = {"PYTHONPATH": "", "LLAMAFACTORY_PYTHON": realstack.python,
           "PATH": f"{realstack.root / 'bin'}:/usr/local/bin:/usr/bin:/bin", "DS_ACCELERATOR": "cpu",
           "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "CUDA_VISIBLE_DEVICES": "", "TOKENIZERS_PARALLELISM": "false"}
    flags = [x for k, v in env.items() for x in ("--env", f"{k}={v}")]
    r = run_cli("run", "--script", str(b / "run.sh"), "--name", "journey", "--json", *flags)
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)
    rid, run_dir = run["id"], Path(run["dir"])
    out = b / "output"
    _wait(lambda: (out / "checkpoint-2" / "trainer_state.json").exists() or _status(run_dir) != "running", 900,
          "checkpoint-2 of the first attempt")
    s = run_cli("stop", rid, "--grace", "5", "--json", timeout=120)
    assert s.returncode == 0, s.stdout + s.stderr
    assert json.loads(s.stdout)["status"] == "stopped", s.stdout
    assert not (out / "trainer_state.json").exists(), "the run finished before it was stopped"
    first_rows = [json.loads(x) for x in (out / "trainer_log.jsonl").read_text(encoding="utf-8").splitlines() if x]
    assert first_rows and first_rows[-1]["current_steps"] < STEPS

    r = run_cli("resume", rid, "--gpus", "1", "--json", timeout=300)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["id"] == rid and res["dir"] == str(run_dir)
    plan = res["resume"]
    ck_step = plan["checkpoint"]["global_step"]
    assert ck_step >= 2 and Path(plan["checkpoint"]["path"]).name == f"checkpoint-{ck_step}"
    assert (plan["world_before"], plan["world_after"], plan["micro_batch"], plan["grad_accum"],
            plan["effective_batch"]) == (2, 1, 4, 2, 8)
    for c in plan["skipped"]:  # a checkpoint newer than the one resumed is one the stop cut short
        assert c["step"] > ck_step and not c["complete"] and c["problem"], c
    _wait(lambda: _status(run_dir) != "running", 900, "the resumed run to end")
    log = (run_dir / "stdout.log").read_text(encoding="utf-8", errors="replace")
    assert _status(run_dir) == "finished", log[-4000:]

    state = json.loads((out / "trainer_state.json").read_text(encoding="utf-8"))
    assert state["global_step"] == STEPS
    assert f"global step {ck_step}" in log and "world size: 1" in log
    rows = [json.loads(x) for x in (out / "trainer_log.jsonl").read_text(encoding="utf-8").splitlines() if x]
    steps = [row["current_steps"] for row in rows if "loss" in row]
    # one loss curve: the first attempt's steps, then the resumed steps from checkpoint + 1 (never from step 1 again)
    resumed = steps[len([x for x in first_rows if "loss" in x]):]
    assert resumed[0] == ck_step + 1 and resumed == list(range(ck_step + 1, STEPS + 1)), steps
    assert steps.count(1) == 1
    meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    (restart,) = meta["restarts"]
    assert restart["checkpoint"] == plan["checkpoint"]["path"] and restart["step"] == ck_step
    assert restart["previous_exit"]["status"] == "stopped" and restart["world_after"] == 1
    assert "resume_from_checkpoint=" + plan["checkpoint"]["path"] in meta["command"]
    assert "--nproc_per_node" in meta["command"] and meta["command"][meta["command"].index("--nproc_per_node") + 1] == "1"


def _fake_slurm_tools(bindir: Path) -> Path:
    """`srun` runs its command here (after its own options); `scontrol` answers `show hostnames` and records
    `requeue` — the batch script's own logic (trap, save, wait, requeue, resume on restart) is what runs."""
    bindir.mkdir()
    log = bindir / "scontrol.log"
    (bindir / "srun").write_text('#!/usr/bin/env bash\nwhile [ "${1#--}" != "$1" ]; do shift; done\nexec "$@"\n')
    (bindir / "scontrol").write_text(f'#!/usr/bin/env bash\necho "$@" >> {log}\n'
                                     'if [ "$1" = show ]; then echo localhost; fi\n')
    for f in ("srun", "scontrol"):
        (bindir / f).chmod(0o755)
    return log


def _end_group(p) -> None:
    """The script's whole process group (torchrun and its workers too), when a timeout left it running."""
    import os
    import signal

    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()


def test_slurm_script_saves_on_the_time_limit_warning_requeues_and_resumes(realstack, tiny, data_file, tmp_path):
    """The exported slurm.sbatch under bash, a LLaMA-Factory run under torchrun: USR1 (what `--signal=B:USR1@LEAD` sends
    before the time limit) makes every rank save at the end of its step and stop, the script requeues the job; the
    restarted script (SLURM_RESTART_COUNT=1) resumes from that checkpoint and finishes with one loss curve."""
    import os
    import signal
    import subprocess

    from rocm_tune.core.runs.resume.resume import inspect_checkpoint
    from tests.realstack.test_realstack import _free_port, _venv_env

    # one process: on CPU the HF Trainer of a 2-process run loads its optimizer with map_location "cpu:0", which
    # torch cannot restore ("don't know how to restore data location ... cpu:0"); GPUs name cuda:N (the 2->1 journey
    # above resumes on one process)
    b = _tiny_bundle(tmp_path, tiny, data_file, "--gpus", "1", "--launcher", "torchrun")
    y = b / "llamafactory.yaml"
    y.write_text(y.read_text(encoding="utf-8").replace("save_steps: 500", "save_steps: 1000")
                 .replace("num_train_epochs: 1.0", f"num_train_epochs: {EPOCHS}.0"), encoding="utf-8")
    sbatch = (b / "slurm.sbatch").read_text(encoding="utf-8")
    assert "#SBATCH --signal=B:USR1@" in sbatch and "#SBATCH --requeue" in sbatch
    log = _fake_slurm_tools(tmp_path / "bin")
    env = _venv_env({"PATH": f"{tmp_path / 'bin'}:{realstack.root / 'bin'}:{os.environ['PATH']}",
                     "LLAMAFACTORY_PYTHON": realstack.python, "SLURM_JOB_ID": "77", "SLURM_JOB_NUM_NODES": "1",
                     "SLURM_JOB_NODELIST": "localhost", "MASTER_PORT": str(_free_port()), "CUDA_VISIBLE_DEVICES": ""})
    out = b / "output"
    p = subprocess.Popen(["bash", str(b / "slurm.sbatch")], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, cwd=tmp_path, start_new_session=True)

    def steps() -> list[int]:
        f = out / "trainer_log.jsonl"
        rows = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()] if f.exists() else []
        return [row["current_steps"] for row in rows if "loss" in row]  # the end summary row has no loss

    try:
        _wait(lambda: len(steps()) >= 2 or p.poll() is not None, 900, "two steps")
        p.send_signal(signal.SIGUSR1)  # what Slurm sends LEAD seconds before the time limit
        text, _ = p.communicate(timeout=600)
    finally:
        _end_group(p)
    assert p.returncode == 0, text[-5000:]
    assert "saving a checkpoint at the next step, then requeue" in text and "requeueing job 77" in text
    assert "requeue 77" in log.read_text(), log.read_text()
    first = steps()
    stop_step = first[-1]
    assert 2 <= stop_step < STEPS
    ck = inspect_checkpoint(out / f"checkpoint-{stop_step}")  # saved on the warning (save_steps is 1000)
    assert ck.complete and ck.global_step == stop_step, ck
    assert not (out / ".rocm-tune-save-now").exists()

    p = subprocess.Popen(["bash", str(b / "slurm.sbatch")], env={**env, "SLURM_RESTART_COUNT": "1",
                                                                 "MASTER_PORT": str(_free_port())},
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                         start_new_session=True)
    try:
        text, _ = p.communicate(timeout=900)
    finally:
        _end_group(p)
    assert p.returncode == 0, text[-5000:]
    assert "restart 1: resuming from the newest checkpoint" in text and f"global step {stop_step}" in text
    assert steps() == list(range(1, STEPS + 1))  # one loss curve: every step once, continued after the restart
    assert json.loads((out / "trainer_state.json").read_text(encoding="utf-8"))["global_step"] == STEPS
