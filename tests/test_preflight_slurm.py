"""`attach slurm:JOBID`: scontrol/sacct output parsed from captured-format text; fake tools on PATH."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from rocm_tune.train.callbacks import append_rank_record
from rocm_tune.core.runs.watch.slurm import job_from_sacct, job_from_scontrol, parse_scontrol
from tests.conftest import run_cli

# `scontrol show job 4242` of a running 2-node job, in the layout Slurm 22.05/23.02 prints (paths replaced)
SCONTROL = """JobId=4242 JobName=qwen-lora
   UserId=alice(1001) GroupId=alice(1001) MCS_label=N/A
   Priority=4294901754 Nice=0 Account=proj QOS=normal
   JobState=RUNNING Reason=None Dependency=(null)
   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0
   RunTime=00:12:31 TimeLimit=1-00:00:00 TimeMin=N/A
   SubmitTime=2026-11-23T21:02:11 EligibleTime=2026-11-23T21:02:11
   AccrueTime=2026-11-23T21:02:11
   StartTime=2026-11-23T21:02:12 EndTime=2026-11-24T21:02:12 Deadline=N/A
   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-23T21:02:12 Scheduler=Main
   Partition=gpu AllocNode:Sid=login01:812733
   ReqNodeList=(null) ExcNodeList=(null)
   NodeList=gpu[07-08]
   BatchHost=gpu07
   NumNodes=2 NumCPUs=64 NumTasks=2 CPUs/Task=32 ReqB:S:C:T=0:0:*:*
   TRES=cpu=64,mem=500G,node=2,billing=64,gres/gpu=16
   Socks/Node=* NtasksPerN:B:S:C=1:0:*:* CoreSpec=*
   MinCPUsNode=32 MinMemoryNode=250G MinTmpDiskNode=0
   Features=(null) DelayBoot=00:00:00
   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)
   Command={WORK}/slurm.sbatch
   WorkDir={WORK}
   StdErr={WORK}/logs/%x-%j.err
   StdIn=/dev/null
   StdOut={WORK}/logs/%x-%j.out
   Power=
   TresPerNode=gres:gpu:8
"""

SACCT_FIELDS = ["JobID", "JobName", "State", "User", "WorkDir", "NodeList", "StdOut", "StdErr"]
SACCT = """4242|qwen-lora|COMPLETED|alice|{WORK}|gpu[07-08]|{WORK}/logs/%x-%j.out|{WORK}/logs/%x-%j.err
4242.batch|batch|COMPLETED||{WORK}|gpu07||
4242.0|torchrun|COMPLETED||{WORK}|gpu[07-08]||
"""


def test_parse_scontrol_capture_and_expand_patterns():
    d = parse_scontrol(SCONTROL)
    assert d["JobState"] == "RUNNING" and d["NodeList"] == "gpu[07-08]" and d["CPUs/Task"] == "32"
    assert d["TRES"] == "cpu=64,mem=500G,node=2,billing=64,gres/gpu=16"
    job = job_from_scontrol(SCONTROL.replace("{WORK}", "/scratch/alice/run 1"), "4242")
    assert job.work_dir == "/scratch/alice/run 1"                      # a path with a space survives
    assert job.stdout == "/scratch/alice/run 1/logs/qwen-lora-4242.out" and job.user == "alice"
    assert job.num_nodes == 2 and job.state == "RUNNING"


def test_parse_sacct_takes_the_job_line_not_its_steps():
    job = job_from_sacct(SACCT.replace("{WORK}", "/w"), SACCT_FIELDS, "4242")
    assert job.state == "COMPLETED" and job.stdout == "/w/logs/qwen-lora-4242.out" and job.source == "sacct"
    assert job_from_sacct(SACCT, SACCT_FIELDS, "999") is None


def _fake_tool(bindir: Path, name: str, body: str) -> None:
    p = bindir / name
    p.write_text(f"#!{sys.executable}\n{body}")
    p.chmod(p.stat().st_mode | stat.S_IXUSR)


def _env(bindir: Path) -> dict:
    return {"PATH": str(bindir), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}


def test_attach_slurm_job_finds_output_and_both_nodes(tmp_path):
    work = tmp_path / "job"
    (work / "logs").mkdir(parents=True)
    (work / "logs" / "qwen-lora-4242.out").write_text(
        "{'loss': 1.25, 'grad_norm': 0.8, 'learning_rate': 1e-05, 'epoch': 0.1}\n"
        "{'loss': 1.2, 'grad_norm': 0.7, 'learning_rate': 1e-05, 'epoch': 0.2}\n")
    for node in (0, 1):  # the ranks of both nodes wrote into the job's directory on the shared filesystem
        append_rank_record(work, {"node": str(node), "rank": node, "peak_allocated_bytes": (20 + node) << 30})
    bindir = tmp_path / "bin"
    bindir.mkdir()
    text = SCONTROL.replace("{WORK}", str(work))
    _fake_tool(bindir, "scontrol", "import sys\n"
               f"if sys.argv[1:] == ['show', 'job', '4242']:\n    sys.stdout.write({text!r})\n"
               "else:\n    sys.stderr.write('slurm_load_jobs error: Invalid job id specified\\n'); sys.exit(1)\n")
    r = run_cli("attach", "slurm:4242", "--once", "--json", "--no-gpus", env=_env(bindir))
    assert r.returncode == 0, r.stderr
    snap = json.loads(r.stdout)
    assert snap["slurm"]["stdout"] == str(work / "logs" / "qwen-lora-4242.out")
    assert snap["loss"] == 1.2
    assert snap["measured"]["nodes"] == ["0", "1"] and snap["measured"]["peak_allocated_bytes"] == 21 << 30
    r = run_cli("attach", "slurm:777", "--once", "--json", env=_env(bindir))
    assert r.returncode == 2 and "Slurm job 777 not found" in r.stderr and "Invalid job id" in r.stderr


def test_attach_slurm_falls_back_to_sacct(tmp_path):
    work = tmp_path / "job"
    (work / "logs").mkdir(parents=True)
    (work / "logs" / "qwen-lora-4242.out").write_text("{'loss': 0.9, 'epoch': 1.0}\n")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    _fake_tool(bindir, "scontrol", "import sys\nsys.stderr.write('slurm_load_jobs error: Invalid job id specified\\n')\n"
                                   "sys.exit(1)\n")
    _fake_tool(bindir, "sacct", f"import sys\nsys.stdout.write({SACCT.replace('{WORK}', str(work))!r})\n")
    r = run_cli("attach", "slurm:4242", "--once", "--json", "--no-gpus", env=_env(bindir))
    assert r.returncode == 0, r.stderr
    snap = json.loads(r.stdout)
    assert snap["slurm"]["source"] == "sacct" and snap["loss"] == 0.9


def test_attach_slurm_without_slurm_is_one_line_exit_2(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    r = run_cli("attach", "slurm:4242", "--once", env=_env(empty))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "Slurm is not installed here" in r.stderr
    r = run_cli("attach", "slurm:abc", "--once", env=_env(empty))
    assert r.returncode == 2 and "a Slurm job id is a number" in r.stderr
