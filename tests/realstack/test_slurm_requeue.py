"""Issue 21 item 2 on a real single-node Slurm (Debian's slurmctld, slurmd and munge, started here as
/work/shared/knowledge/runners.md describes; skipped with the reason where they cannot start): the exported
slurm.sbatch of a LLaMA-Factory run with a time limit of 2 minutes and `--signal=B:USR1@60` is warned by Slurm
before the limit, every rank saves at the end of its step and stops, the script requeues the job, and the
restarted job (its limit raised, as an operator would; Slurm starts it by itself once its old credential has
expired) resumes from that checkpoint and finishes with one loss curve."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.realstack.conftest import note
from tests.realstack.test_realstack import _tiny_bundle, _venv_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]
STEPS = 3000  # minutes of CPU training: the first attempt is still training when the warning comes


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _skip(why: str):
    note(f"skipped: real Slurm: {why}")
    pytest.skip(f"real Slurm not available: {why}")


@pytest.fixture()
def slurm(tmp_path):
    for tool in ("slurmctld", "slurmd", "munged", "sbatch", "scontrol", "sinfo"):
        if not shutil.which(tool):
            _skip(f"{tool} not installed (apt-get install slurmctld slurmd munge slurm-client)")
    if os.geteuid() != 0:
        _skip("slurmd runs as root here (SlurmdUser=root)")
    d = tmp_path / "slurm"
    for sub in ("state", "spool"):
        (d / sub).mkdir(parents=True)
    host = socket.gethostname().split(".")[0]
    conf = d / "slurm.conf"
    conf.write_text(
        f"ClusterName=rocmtune\nSlurmctldHost={host}\nSlurmctldPort={_port()}\nSlurmdPort={_port()}\n"
        "SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nProctrackType=proctrack/linuxproc\n"
        "TaskPlugin=task/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\nReturnToService=2\n"
        "JobAcctGatherType=jobacct_gather/none\nMpiDefault=none\nGresTypes=rtgpu\n"
        # a requeued job starts again once its old credential has expired (slurm.conf(5), AuthInfo cred_expire:
        # "also controls how long a requeued job must wait before starting again"): 20 s instead of the default
        # 120 s. Forcing StartTime=now instead launches it under a revoked credential, and the job FAILs.
        "AuthInfo=cred_expire=20\n"
        f"StateSaveLocation={d / 'state'}\nSlurmdSpoolDir={d / 'spool'}\nSlurmctldPidFile={d / 'slurmctld.pid'}\n"
        f"SlurmdPidFile={d / 'slurmd.pid'}\nSlurmctldLogFile={d / 'slurmctld.log'}\nSlurmdLogFile={d / 'slurmd.log'}\n"
        f"NodeName={host} CPUs={os.cpu_count() or 2} RealMemory=2000 Gres=rtgpu:1\n"
        f"PartitionName=main Nodes={host} Default=YES MaxTime=INFINITE State=UP\n", encoding="utf-8")
    (d / "gres.conf").write_text(f"NodeName={host} Name=rtgpu Count=1\n", encoding="utf-8")
    env = dict(os.environ, SLURM_CONF=str(conf))
    started: list[Path] = []
    if subprocess.run(["pgrep", "-x", "munged"], capture_output=True).returncode != 0:
        Path("/run/munge").mkdir(parents=True, exist_ok=True)
        shutil.chown("/run/munge", "munge", "munge")
        r = subprocess.run(["munged", "--force"], capture_output=True, text=True)
        if r.returncode != 0:
            _skip(f"munged does not start: {r.stderr.strip()[:200]}")
        started.append(Path("/run/munge/munged.pid"))
    for daemon in ("slurmctld", "slurmd"):
        r = subprocess.run([daemon, "-f", str(conf)], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            _skip(f"{daemon} does not start: {(r.stderr or r.stdout).strip()[:200]}")
        started.append(d / f"{daemon}.pid")
    try:
        end = time.monotonic() + 60
        state = ""
        while time.monotonic() < end:
            state = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=env).stdout.strip()
            if state == "idle":
                break
            time.sleep(1)
        if state != "idle":
            logs = "".join((d / f).read_text()[-300:] for f in ("slurmctld.log", "slurmd.log") if (d / f).exists())
            _skip(f"the node did not become idle (sinfo: {state!r}); {logs}")
        yield env
    finally:
        if shutil.which("scancel"):  # this test's own controller: only its jobs (their steps end with them)
            subprocess.run(["scancel", "--full", "--user", "root"], env=env, capture_output=True, timeout=30)
            time.sleep(3)
        for pidfile in reversed(started):  # only what this fixture started, by its pid
            try:
                os.kill(int(pidfile.read_text().split()[0]), 15)
            except (OSError, ValueError):
                pass


def _job(env, jid: str) -> dict:
    out = subprocess.run(["scontrol", "show", "job", jid, "-o"], capture_output=True, text=True, env=env).stdout
    return dict(kv.split("=", 1) for kv in out.split() if "=" in kv)


def _fail(what: str, env: dict, job: dict, log: Path):
    """pytest.fail with everything needed to see why: the job record, the job's log and Slurm's own logs."""
    d = Path(env["SLURM_CONF"]).parent
    parts = [what, "job: " + " ".join(f"{k}={v}" for k, v in job.items())]
    for f in (log, d / "slurmctld.log", d / "slurmd.log"):
        if f.exists():
            parts.append(f"--- {f.name} (tail) ---\n" + f.read_text(errors="replace")[-3000:])
    pytest.fail("\n".join(parts), pytrace=False)


def test_time_limit_warning_saves_requeues_and_the_job_resumes(slurm, realstack, tiny, data_file, tmp_path):
    from rocm_tune.core.runs.resume.resume import inspect_checkpoint

    b = _tiny_bundle(tmp_path, tiny, data_file, "--gpus", "1", "--launcher", "torchrun", "--cpus-per-task", "1",
                     "--gres", "rtgpu")  # a generic resource: a "gpu" gres needs device files
    y = b / "llamafactory.yaml"
    y.write_text(y.read_text(encoding="utf-8").replace("save_steps: 500", "save_steps: 100000")
                 .replace("num_train_epochs: 1.0", "num_train_epochs: 1000.0") + f"max_steps: {STEPS}\n",
                 encoding="utf-8")
    env = _venv_env({**slurm, "PATH": f"{realstack.root / 'bin'}:{os.environ['PATH']}",
                     "LLAMAFACTORY_PYTHON": realstack.python, "CUDA_VISIBLE_DEVICES": "",
                     "MASTER_PORT": str(_port())})
    r = subprocess.run(["sbatch", "--parsable", "--time=2", "--signal=B:USR1@60", str(b / "slurm.sbatch")],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    jid = r.stdout.strip().split(";")[0]
    log = tmp_path / f"slurm-rocm-tune-{jid}.out"
    end = time.monotonic() + 600
    job = {}
    while time.monotonic() < end:  # the first attempt: warned, saves, requeued
        job = _job(slurm, jid)
        if job.get("Restarts", "0") != "0":
            break
        if job.get("JobState") in ("COMPLETED", "FAILED", "TIMEOUT", "CANCELLED"):
            _fail("the first attempt ended instead of being requeued", slurm, job, log)
        time.sleep(1)
    if job.get("Restarts") != "1":
        _fail("no requeue", slurm, job, log)
    # the operator gives the restarted job more time (it starts by itself CredExpire + 1 s after the requeue)
    u = subprocess.run(["scontrol", "update", f"JobId={jid}", "TimeLimit=20"], env=slurm, capture_output=True,
                       text=True)
    assert u.returncode == 0, (u.stderr, _job(slurm, jid))
    text = log.read_text(errors="replace")
    assert "time limit or preemption: saving a checkpoint" in text and f"requeueing job {jid}" in text
    out = b / "output"
    rows = [json.loads(x) for x in (out / "trainer_log.jsonl").read_text().splitlines() if x.strip()]
    first = [row["current_steps"] for row in rows if "loss" in row]
    stop = first[-1]
    assert 1 <= stop < STEPS
    ck = inspect_checkpoint(out / f"checkpoint-{stop}")  # saved on the warning: save_steps is 100000
    assert ck.complete and ck.global_step == stop, ck
    end = time.monotonic() + 900
    while time.monotonic() < end and _job(slurm, jid).get("JobState") not in ("COMPLETED", "FAILED", "TIMEOUT",
                                                                              "CANCELLED"):
        time.sleep(2)
    job = _job(slurm, jid)
    if job.get("JobState") != "COMPLETED":
        _fail("the restarted job did not complete", slurm, job, log)
    text = log.read_text(errors="replace")
    assert "restart 1: resuming from the newest checkpoint" in text and f"global step {stop}" in text
    rows = [json.loads(x) for x in (out / "trainer_log.jsonl").read_text().splitlines() if x.strip()]
    assert [row["current_steps"] for row in rows if "loss" in row] == list(range(1, STEPS + 1))
    assert json.loads((out / "trainer_state.json").read_text())["global_step"] == STEPS
