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


def _explain_root(target: str) -> dict:
    r = run_cli("explain", target, "--json")
    assert r.returncode == 1, r.stderr
    return json.loads(r.stdout)["root"]


def test_a_cuda_worded_error_on_rocm_alerts_with_explains_root_and_fix():
    """The live alert matched the line as a generic `cuda-error`; explain reads the same line on a ROCm stack as
    HIP's missing-kernel error: the alert now says what explain says (code, title, fix), and keeps the live code."""
    log = str(LOGS / "alert-cuda-words-on-rocm.log")
    root = _explain_root(log)
    assert root["family"] == "hip_error" and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in root["fix"]
    a = run_cli("attach", log, "--once", "--json", "--no-gpus")
    assert a.returncode == 0, a.stderr
    alerts = json.loads(a.stdout)["alerts"]
    same = [x for x in alerts if "invalid device function" in x["evidence"]]
    assert same, alerts
    for x in same:
        assert (x["code"], x["title"], x["fix"]) == (root["code"], root["title"], root["fix"])
        assert x["data"]["live_code"] != root["code"]       # the watcher's own reading differed
    assert [fix for code, _, fix, _ in _monitor_alerts(log) if code == root["code"]] == [root["fix"]]


def _monitor_alerts(target: str):
    from rocm_tune.tui.monitor_model import MonitorSource
    from rocm_tune.tui.scenes import FixedHost

    src = MonitorSource(target, time.time, gpus=False, host=FixedHost())
    try:
        v = src.poll()
    finally:
        src.close()
    assert v.error is None, v.error
    return v.alerts


def test_a_watcher_sign_gives_explains_fix_for_the_same_line():
    log = str(LOGS / "alert-collective-timeout.log")
    r = json.loads(run_cli("explain", log, "--json").stdout)
    fixes = {}
    for d in r["diagnoses"]:
        fixes.setdefault(d["code"], d["fix"])
    a = json.loads(run_cli("attach", log, "--once", "--json", "--no-gpus").stdout)["alerts"]
    (x,) = [x for x in a if x["code"] == "collective-timeout"]     # the watcher's own sign (its own fix text before)
    assert x["fix"] == fixes["collective-timeout"]
    assert "NCCL_P2P_DISABLE=1" in x["fix"]                         # explain's words, not the watcher's


def test_the_series_alerts_kept_as_the_watcher_says_are_the_ones_explain_reads_through_the_watchers_engine():
    from rocm_tune.core.runs.diagnose import alert_fix, diagnose

    assert alert_fix.SERIES == frozenset(diagnose._SERIES_CODES)
