"""Notifications while a run runs (issue 21 item 4): a real run through the real CLI and supervisor whose loss goes
NaN by construction is notified with the alert and its fix, once per alert code (alerts-sent.json records it), to a
real HTTP server on 127.0.0.1; the config file's `notify` list is used when `--notify` is not given, `--notify none`
disables it, and a malformed config is one line on stderr, exit 2."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from tests.conftest import run_cli
from tests.helpers_train import wait_for
from tests.test_notify import _Server  # the same real recording server

# HF Trainer log lines: a good step, then NaN twice (one alert code, so one notification), then it goes on a while
NAN_RUN = ("import time\n"
           "print(\"{'loss': 1.5, 'grad_norm': 0.9, 'learning_rate': 0.0001, 'epoch': 0.1}\", flush=True)\n"
           "time.sleep(0.5)\n"
           "print(\"{'loss': nan, 'grad_norm': nan, 'learning_rate': 0.0001, 'epoch': 0.2}\", flush=True)\n"
           "time.sleep(1.5)\n"
           "print(\"{'loss': nan, 'grad_norm': nan, 'learning_rate': 0.0001, 'epoch': 0.3}\", flush=True)\n"
           "time.sleep(3)\n")
ENV = {"ROCM_TUNE_NOTIFY_BACKOFF": "0.05", "ROCM_TUNE_ALERT_POLL_S": "0.3"}


def _start(tmp_path: Path, *args: str, env=None) -> Path:
    script = tmp_path / "nan_run.py"
    script.write_text(NAN_RUN)
    r = run_cli("run", "--name", "nan", "--json", *args, "--", sys.executable, str(script), env={**ENV, **(env or {})})
    assert r.returncode == 0, r.stderr
    return Path(json.loads(r.stdout)["dir"])


def _ended(d: Path) -> bool:
    return (d / "exit.json").exists()


def test_a_nan_loss_while_running_is_notified_once_with_its_fix(tmp_path):
    s = _Server()
    try:
        d = _start(tmp_path, "--notify", s.url("/hook"))
        assert wait_for(lambda: _ended(d), timeout=60)
        assert wait_for(lambda: [b for b in s.at("/hook") if b["event"] == "finished"], timeout=30)
        alerts = [b for b in s.at("/hook") if b["event"] == "alert"]
        assert len(alerts) == 1, s.got  # two NaN steps, one code: one notification
        (a,) = alerts
        assert a["alert"]["code"] == "nan-loss" and "learning rate" in a["alert"]["fix"]
        assert a["status"] == "running" and a["name"] == "nan"
        # it came while the run ran: before the finish notification
        assert [b["event"] for b in s.at("/hook")] == ["alert", "finished"]
        sent = json.loads((d / "alerts-sent.json").read_text())["sent"]
        assert [x["code"] for x in sent] == ["nan-loss"]
        assert "alert nan-loss notified" in (d / "stdout.log").read_text()
    finally:
        s.close()


def test_the_config_file_notifies_and_an_explicit_notify_wins(tmp_path):
    s = _Server()
    try:
        cfg = tmp_path / "config.toml"
        sink_out = tmp_path / "cmd.json"
        sink = tmp_path / "sink.py"
        sink.write_text(f"import sys; open({str(sink_out)!r}, 'a').write(sys.stdin.read() + '\\n')\n")
        cfg.write_text(f'notify = ["{s.url("/cfg")}", "{sys.executable} {sink}"]\n')
        d = _start(tmp_path, env={"ROCM_TUNE_CONFIG": str(cfg)})
        assert wait_for(lambda: [b for b in s.at("/cfg") if b["event"] == "finished"], timeout=60)
        assert [b["event"] for b in s.at("/cfg")] == ["alert", "finished"]
        def got():
            return [json.loads(x) for x in sink_out.read_text().splitlines() if x.strip()] if sink_out.exists() else []

        assert wait_for(lambda: len(got()) == 2, timeout=30), got()
        got = got()
        assert [g["event"] for g in got] == ["alert", "finished"] and got[0]["alert"]["code"] == "nan-loss"
        assert json.loads((d / "run.json").read_text())["notify"] == [s.url("/cfg"), f"{sys.executable} {sink}"]
        # an explicit --notify wins over the file; --notify none sends nothing at all
        d2 = _start(tmp_path, "--notify", s.url("/flag"), env={"ROCM_TUNE_CONFIG": str(cfg)})
        d3 = _start(tmp_path, "--notify", "none", env={"ROCM_TUNE_CONFIG": str(cfg)})
        assert wait_for(lambda: _ended(d2) and _ended(d3), timeout=60)
        assert wait_for(lambda: [b for b in s.at("/flag") if b["event"] == "finished"], timeout=30)
        time.sleep(0.5)
        assert len([b for b in s.at("/cfg") if b["event"] == "finished"]) == 1
        assert not (d3 / "notify.log").exists() and not (d3 / "alerts-sent.json").exists()
        assert "notify" not in json.loads((d3 / "run.json").read_text())
    finally:
        s.close()


def test_a_bad_config_file_is_one_line_exit_2(tmp_path):
    cfg = tmp_path / "config.toml"
    for text, needle in (('notify = "no-such-program-xyz"\n', "no-such-program-xyz"),
                         ("notify = [1, 2]\n", "notify = [1, 2]"),
                         ("notify = [\n", "not valid TOML")):
        cfg.write_text(text)
        r = run_cli("run", "--", "true", env={"ROCM_TUNE_CONFIG": str(cfg)})
        assert r.returncode == 2 and needle in r.stderr and str(cfg) in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    r = run_cli("run", "--", "true", env={"ROCM_TUNE_CONFIG": str(tmp_path / "missing.toml")})
    assert r.returncode == 2 and "missing.toml" in r.stderr
    assert json.loads(run_cli("runs", "--json").stdout)["runs"] == []  # nothing was started
