"""Alerts: each recorded log raises its alert exactly once, clean logs none; stall, exit and OOM fixes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rocm_tune.core.runs.procs import proc_start_time
from rocm_tune.core.runs.watch.alerts import CODES, AlertEngine, RunContext, check_events, oom_fix
from rocm_tune.core.runs.watch.parsers import TextParser
from rocm_tune.core.runs.watch.watch import Watcher

LOGS = Path(__file__).parent / "fixtures" / "logs"

EXPECTED = {
    "alert-collective-timeout.log": "collective-timeout",
    "alert-cuda-words-on-rocm.log": "cuda-error",   # the watcher's own reading; attach shows explain's root (test_alert_fix)
    "alert-ddp-mark-ready-twice.log": "ddp-mark-ready-twice",
    "alert-fp16-overflow-streak.log": "fp16-overflow-streak",
    "alert-hipblaslt-unsupported.log": "hipblaslt-unsupported",
    "alert-loss-collapse-qwen-fp16.log": "loss-collapse",
    "alert-nan-loss-metrics.jsonl": "nan-loss",
    "alert-oom-cuda-torch1.log": "oom",
    "alert-oom-cuda.log": "oom",
    "alert-oom-hip-dcu.log": "oom",
    "alert-version-check-deepspeed.log": "version-check-failed",
}
CLEAN = ["clean-deepspeed-fp16-torchrun.log", "clean-metrics.jsonl", "llamafactory-0.9.5-lora-cpu",
         "llamafactory-0.9.5-lora-cpu/stdout.log", "llamafactory-0.9.5-lora-cpu/trainer_state.json"]


def _fired(target: str) -> list[str]:
    w = Watcher(target)
    w.poll()
    w.poll()  # nothing new: nothing fires twice
    codes = [a.code for a in w.alert_engine.all]
    w.close()
    return codes


def test_every_alert_fixture_is_covered():
    files = {p.name for p in LOGS.glob("alert-*")}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_log_fires_its_alert_exactly_once(name):
    assert _fired(str(LOGS / name)) == [EXPECTED[name]]


@pytest.mark.parametrize("name", CLEAN)
def test_clean_logs_raise_nothing(name):
    assert _fired(str(LOGS / name)) == []


def test_alert_content_oom_hip():
    w = Watcher(str(LOGS / "alert-oom-hip-dcu.log"))
    w.poll()
    (a,) = w.alerts
    assert a.severity == "error" and "1.45 GiB" in a.title and "GPU 3" in a.title
    assert "HIP out of memory. Tried to allocate 1.45 GiB" in a.evidence
    assert a.data["tried_bytes"] == int(1.45 * 2**30) and a.data["reserved_unallocated_bytes"] == int(11.07 * 2**30)
    assert "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True" in a.fix   # 11 GiB reserved but unallocated
    assert a.related == ("does-not-fit",)
    d = a.to_dict()
    json.dumps(d)
    assert d["code"] == "oom" and d["fix"] == a.fix


def test_loss_collapse_evidence_and_no_duplicate_nan_grad():
    w = Watcher(str(LOGS / "alert-loss-collapse-qwen-fp16.log"))
    w.poll()
    (a,) = w.alert_engine.all
    assert a.step == 2 and "grad_norm': nan" in a.evidence and "fp32" in a.fix
    assert a.related == ("fp16-overflow-risk",)


def test_version_check_names_the_requirement_and_the_env_fix():
    w = Watcher(str(LOGS / "alert-version-check-deepspeed.log"))
    w.poll()
    (a,) = w.alerts
    assert a.data["requirement"] == "deepspeed>=0.10.0,<=0.16.9" and a.data["found"] == "deepspeed==0.18.3"
    assert "DISABLE_VERSION_CHECK=1" in a.fix


def test_related_codes_are_planner_warning_codes():
    from rocm_tune.core.plan.warnings import WARNINGS

    related = set()
    for name in EXPECTED:
        w = Watcher(str(LOGS / name))
        w.poll()
        for a in w.alert_engine.all:
            related.update(a.related)
            assert a.code in CODES
    assert related and related <= set(WARNINGS)


def test_calibration_overflows_at_start_do_not_alert_but_a_long_one_does():
    p = TextParser()
    lines = [f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {2 ** (32 - i)}, reducing to "
             f"{2 ** (31 - i)}" for i in range(16)]
    assert check_events(p.feed_lines(lines)) == []          # 2^32 -> 2^16: the scaler calibrating
    p2 = TextParser()
    lines2 = lines + ["[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1"] * 5
    (a,) = check_events(p2.feed_lines(lines2))
    assert a.code == "fp16-overflow-streak"


def test_oom_fix_uses_plan_numbers():
    plan = {"version": 1, "hardware": {"gpus": 2, "nodes": 1},
            "recommended": {"cutoff_len": 2048, "micro_batch": 4, "grad_accum": 8, "zero_stage": 2,
                            "offload": "none", "gradient_checkpointing": False}}
    fix = oom_fix(RunContext(plan=plan), {"total_bytes": 32 * 2**30, "reserved_unallocated_bytes": 0})
    assert "per_device_train_batch_size 4 -> 2 with gradient_accumulation_steps 8 -> 16" in fix
    assert "cutoff_len 2048 -> 1024" in fix
    assert "gradient checkpointing on" in fix and "offload" in fix


def test_oom_in_llamafactory_outdir_uses_its_yaml(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(LOGS / "llamafactory-0.9.5-lora-cpu" / "train.yaml", out / "train.yaml")
    shutil.copy(LOGS / "alert-oom-cuda.log", out / "running_log.txt")
    w = Watcher(str(out))
    w.poll()
    (a,) = w.alerts
    # train.yaml: per_device_train_batch_size 4, gradient_accumulation_steps 2
    assert "per_device_train_batch_size 4 -> 2 with gradient_accumulation_steps 2 -> 4" in a.fix


# ------------------------------------------------------------------ time-dependent: stall, exit
def _replay(tmp_path, util, power):
    from rocm_tune.core.hardware.devices.synthetic import ReplayBackend
    from rocm_tune.core.hardware.devices.types import GpuSample

    frames = [{"t": 0.0, "gpus": [GpuSample(index=i, name="AMD Instinct MI50", util_percent=util, power_w=power,
                                            power_limit_w=300.0, timestamp=0.0).to_dict() for i in range(2)]}]
    p = tmp_path / f"replay-{util}-{power}.json"
    p.write_text(json.dumps({"format": "rocm-tune-replay", "version": 1, "frames": frames}))
    return ReplayBackend(str(p))


@pytest.fixture
def live_run(tmp_path):
    """A run directory (docs/internals.md layout) whose pid is a real live process."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    d = tmp_path / "run"
    d.mkdir()
    t0 = 1_800_000_000.0
    (d / "run.json").write_text(json.dumps({"id": "20270115-080000-stall-ab12", "name": "stall", "command": ["x"],
                                            "cwd": str(d), "env": {}, "created_at": t0, "started_at": t0,
                                            "pid": proc.pid, "pgid": None, "supervisor_pid": None, "plan": None,
                                            # the start time confirms the pid is this run's (issue 15 item 4)
                                            "pid_start": proc_start_time(proc.pid),
                                            "kind": "command", "total_steps": 100}))
    rows = [{"type": "start", "time": t0, "total_steps": 100}]
    rows += [{"type": "step", "time": t0 + 10.0 * s, "step": s, "loss": 2.0 - s / 100, "step_time_s": 10.0}
             for s in range(1, 11)]
    (d / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    yield d, t0 + 100.0
    proc.kill()
    proc.wait()


@pytest.mark.parametrize("util, power, code", [
    (100.0, 60.0, "stall-collective-hang"),   # busy at 20% power: spinning in a collective
    (0.0, 40.0, "stall-gpus-idle"),
    (None, None, "stall"),                     # no GPU data
])
def test_stall_is_classified_with_gpu_samples_and_fires_once(tmp_path, live_run, util, power, code):
    d, last = live_run
    now = [last + 30.0]
    gpus = _replay(tmp_path, util, power) if util is not None else False
    w = Watcher(str(d), clock=lambda: now[0], gpus=gpus, stall_factor=5.0, stall_min_s=60.0)
    assert w.poll().new_alerts == ()                       # 30 s after the last 10 s step: fine
    assert w.process.alive is True and w.process.status == "running"
    now[0] = last + 61.0                                   # > max(5 x 10 s, 60 s)
    (a,) = w.poll().new_alerts
    assert a.code == code and a.data["waited_s"] == pytest.approx(61.0)
    if code == "stall-collective-hang":
        assert "iommu-p2p-hang-risk" in a.related and "rocm-tune doctor" in a.fix
    now[0] += 600
    assert w.poll().new_alerts == ()                       # once per stall
    assert [x.code for x in w.alerts] == [code]
    # the run moves again: the stall clears, and a later stall fires again
    with open(d / "metrics.jsonl", "a") as fh:
        fh.write(json.dumps({"type": "step", "time": now[0], "step": 11, "loss": 1.5, "step_time_s": 10.0}) + "\n")
    assert w.poll().new_alerts == () and w.alerts == []
    now[0] += 100
    assert [x.code for x in w.poll().new_alerts] == [code]


def test_process_exit_with_code_fires_once_and_clean_exit_does_not(tmp_path, live_run):
    d, last = live_run
    w = Watcher(str(d), clock=lambda: last + 5)
    assert w.poll().new_alerts == ()
    # the process ends, then its supervisor writes exit.json (a run is ended only when its processes are)
    pid = json.loads((d / "run.json").read_text())["pid"]
    os.kill(pid, 9)
    assert wait_gone(pid)
    (d / "exit.json").write_text(json.dumps({"status": "failed", "returncode": 3, "signal": None,
                                             "ended_at": last + 6}))
    (a,) = w.poll().new_alerts
    assert a.code == "process-exited" and a.data["exit_code"] == 3 and "exit code 3" in a.title
    assert w.poll().new_alerts == ()
    (d / "exit.json").write_text(json.dumps({"status": "finished", "returncode": 0, "signal": None,
                                             "ended_at": last + 6}))
    w2 = Watcher(str(d), clock=lambda: last + 5)
    assert w2.poll().new_alerts == () and w2.process.status == "finished"


def wait_gone(pid: int, timeout: float = 30.0) -> bool:
    end = time.time() + timeout
    while time.time() < end:
        if proc_start_time(pid) is None:
            return True
        time.sleep(0.02)
    return False


def test_stall_needs_a_live_process():
    eng = AlertEngine(stall_min_s=1)
    from rocm_tune.core.runs.watch.history import History
    from rocm_tune.core.runs.watch.parsers import Event

    h = History()
    h.extend(Event("step", i, float(i), loss=1.0) for i in range(1, 5))
    assert eng.check(h, time.time(), None, ()) == []


def test_one_code_one_severity_and_one_readme_table():
    """A code means one thing wherever it is shown (issue 24): the live alerts and explain's catalogue give a code
    the same severity (fp16-overflow-streak was a warning in attach and an error in explain; the loss scale at
    its minimum is now its own code), and README's table of codes is the one made from the registry that holds the
    catalogue (core/codebook.py)."""
    from pathlib import Path

    from rocm_tune.core import codebook
    from rocm_tune.core.runs.watch import alerts
    from rocm_tune.core.runs import catalogue

    for s in catalogue.SIGNATURES:
        assert alerts.CODES[s.code][0] == s.severity, s.code
    codes = [s.code for s in catalogue.SIGNATURES]
    assert len(codes) == len(set(codes))
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert codebook.readme_table() in readme
    streak = catalogue.by_code("fp16-overflow-streak")
    minimum = catalogue.by_code("fp16-loss-scale-minimum")
    assert streak.severity == "warning" and minimum.severity == "error" and minimum.role == "root"
