"""The live OOM alert gives explain's fix, word for word (issue 25 item 8): the same log through `explain`, through
`attach --once` (JSON and text), `attach --plain` and the app's monitor model gives the same fix text — for a bare
log (the catalogue's fix) and for a rocm-tune run with a plan (the plan's smallest change that fits, with numbers)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli

LOGS = Path(__file__).parent / "fixtures" / "logs"


def _explain_fix(target: str) -> str:
    r = run_cli("explain", target, "--json")
    assert r.returncode == 1, r.stderr
    d = json.loads(r.stdout)
    (oom,) = [x for x in d["diagnoses"] if x["code"] == "oom"][:1]
    return oom["fix"]


def _attach_fixes(target: str) -> list[str]:
    a = run_cli("attach", target, "--once", "--json", "--no-gpus")
    assert a.returncode == 0, a.stderr
    return [x["fix"] for x in json.loads(a.stdout)["alerts"] if x["code"] == "oom"]


def _monitor_fixes(target: str) -> list[str]:
    from rocm_tune.tui.monitor_model import MonitorSource
    from rocm_tune.tui.scenes import FixedHost

    src = MonitorSource(target, time.time, gpus=False, host=FixedHost())
    try:
        v = src.poll()
    finally:
        src.close()
    assert v.error is None, v.error
    return [fix for code, _, fix, _ in v.alerts if code == "oom"]


@pytest.mark.parametrize("name", ["alert-oom-cuda.log", "alert-oom-hip-dcu.log"])
def test_a_bare_log_oom_alert_says_what_explain_says(name):
    log = str(LOGS / name)
    fix = _explain_fix(log)
    assert len(fix) > 200          # the whole fix, not a cut
    assert _attach_fixes(log) == [fix]
    assert _monitor_fixes(log) == [fix]
    plain = run_cli("attach", log, "--plain", "--no-follow").stdout
    assert f"!   fix: {fix}" in plain.splitlines()
    human = run_cli("attach", log, "--once", "--no-gpus").stdout
    assert f"        fix: {fix}" in human.splitlines()


def test_a_planned_run_oom_alert_gives_the_plans_smallest_change_as_explain_does(tmp_path):
    from tests.test_explain import _plan_003

    d = _plan_003(tmp_path)
    mb = json.loads((d / "plan.json").read_text())["recommended"]["micro_batch"]
    fix = _explain_fix(str(d))
    assert fix.startswith("smallest change from the plan that fits: ") and f"micro_batch {mb} -> " in fix
    assert _attach_fixes(str(d)) == [fix]
    assert _monitor_fixes(str(d)) == [fix]
