"""Notifications (issue 21): `rocm-tune run --notify URL|COMMAND` through the real CLI and the real supervisor,
delivered to a real HTTP server on 127.0.0.1 started by the test: the generic JSON object and the payload shapes
of Slack, Feishu/Lark, DingTalk, WeCom and ntfy; a command gets the same JSON on stdin; a failing webhook is retried
with backoff and logged in the run dir, and never changes how the run ends."""

from __future__ import annotations

import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rocm_tune.core.errors import UserError
from rocm_tune.core.runs.notify import parse_target
from tests.conftest import run_cli
from tests.helpers_train import wait_for


class _Server:
    """Records every POST (path, JSON body); /flaky answers 500 to its first request; at most 64 requests."""

    def __init__(self):
        self.got: list[tuple[str, dict]] = []
        self.flaky = 0
        outer = self

        class H(BaseHTTPRequestHandler):
            timeout = 5

            def do_POST(self):  # noqa: N802
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(min(n, 1 << 20))
                if self.path == "/flaky" and outer.flaky == 0:
                    outer.flaky += 1
                    self.send_response(500)
                    self.end_headers()
                    return
                outer.got.append((self.path, json.loads(body)))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *a):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        self.httpd.serve_forever(poll_interval=0.05)

    def close(self):
        """Stop serving, then close the socket (closing first leaves the serving thread on a dead socket)."""
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def at(self, path: str) -> list[dict]:
        return [b for p, b in self.got if p == path]


@pytest.fixture()
def server():
    s = _Server()
    yield s
    s.close()


def _run(*notify: str, code: str = "print('{\"step\": 1}')", extra_env=None) -> tuple[str, Path]:
    args = []
    for n in notify:
        args += ["--notify", n]
    r = run_cli("run", "--name", "nt", "--json", *args[-2:], "--", sys.executable, "-c", code,
                env={"ROCM_TUNE_NOTIFY_BACKOFF": "0.05", **(extra_env or {})})
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    return info["id"], Path(info["dir"])


def _log(d: Path) -> list[dict]:
    p = d / "notify.log"
    return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines()] if p.exists() else []


def test_the_five_webhook_shapes_and_generic_json_reach_a_real_server(server):
    cases = {"/generic": server.url("/generic"), "/slack": "slack:" + server.url("/slack"),
             "/feishu": "feishu:" + server.url("/feishu"), "/dingtalk": "dingtalk:" + server.url("/dingtalk"),
             "/wecom": "wecom:" + server.url("/wecom"), "/": "ntfy:" + server.url("/mytopic")}
    runs = {path: _run(spec) for path, spec in cases.items()}
    for path, (_rid, d) in runs.items():
        assert wait_for(lambda path=path: server.at(path), timeout=30), (path, _log(d), server.got)
    (generic,) = server.at("/generic")
    rid = runs["/generic"][0]
    assert generic["event"] == "finished" and generic["status"] == "finished" and generic["run_id"] == rid
    assert generic["name"] == "nt" and generic["host"] == socket.gethostname() and generic["alert"] is None
    assert {"step", "loss", "total_steps", "dir", "restarts"} <= set(generic)
    (slack,) = server.at("/slack")
    assert set(slack) == {"text"} and runs["/slack"][0] in slack["text"] and "finished" in slack["text"]
    (feishu,) = server.at("/feishu")
    assert feishu["msg_type"] == "text" and runs["/feishu"][0] in feishu["content"]["text"]
    (ding,) = server.at("/dingtalk")
    assert ding["msgtype"] == "text" and runs["/dingtalk"][0] in ding["text"]["content"]
    (wecom,) = server.at("/wecom")
    assert wecom["msgtype"] == "markdown" and runs["/wecom"][0] in wecom["markdown"]["content"]
    (ntfy,) = server.at("/")  # ntfy JSON publishing: POST to the server root, the topic in the body
    assert ntfy["topic"] == "mytopic" and runs["/"][0] in ntfy["message"] and ntfy["tags"] == ["white_check_mark"]
    for _, d in runs.values():
        # the delivery is logged after the server answered: wait for the line, do not race it
        assert wait_for(lambda d=d: len(_log(d)) == 1, timeout=30), _log(d)
        (entry,) = _log(d)
        assert entry["ok"] is True and entry["attempt"] == 1 and "127.0.0.1" in entry["to"]
        assert "/slack" not in entry["to"]  # the URL's path (a webhook's secret) is never logged


def test_a_failed_run_sends_its_alert_and_fix_and_a_flaky_webhook_is_retried(server):
    oom = ("import sys; print('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
           "total capacity of 63.98 GiB of which 1.20 GiB is free.'); sys.exit(1)")
    rid, d = _run(server.url("/flaky"), code=oom)
    assert wait_for(lambda: server.at("/flaky"), timeout=30), _log(d)
    (p,) = server.at("/flaky")
    assert p["event"] == "failed" and p["status"] == "failed" and p["run_id"] == rid
    assert p["alert"]["code"] == "oom" and p["alert"]["fix"] and "OutOfMemoryError" in p["reason"]
    assert wait_for(lambda: len(_log(d)) == 2, timeout=30), _log(d)  # the success is logged after the answer
    log = _log(d)
    assert [e["ok"] for e in log] == [False, True] and log[0]["error"] == "HTTP 500"


def test_a_command_gets_the_json_on_stdin_and_an_unreachable_webhook_never_breaks_the_run(tmp_path):
    out = tmp_path / "got.json"
    sink = tmp_path / "sink.py"
    sink.write_text(f"import sys; open({str(out)!r}, 'w').write(sys.stdin.read())\n")
    rid, d = _run(f"{sys.executable} {sink}")
    assert wait_for(lambda: out.exists() and out.stat().st_size, timeout=30), _log(d)
    got = json.loads(out.read_text())
    assert got["run_id"] == rid and got["event"] == "finished"
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    rid, d = _run(f"http://127.0.0.1:{dead}/hook")
    assert wait_for(lambda: len(_log(d)) == 4, timeout=30), _log(d)
    assert not any(e["ok"] for e in _log(d))
    r = run_cli("runs", "--json")
    (mine,) = [x for x in json.loads(r.stdout)["runs"] if x["id"] == rid]
    assert mine["status"] == "finished"


def test_notify_targets_by_host_prefix_and_bad_values():
    assert parse_target("https://hooks.slack.com/services/T/B/X").shape == "slack"
    assert parse_target("https://open.feishu.cn/open-apis/bot/v2/hook/x").shape == "feishu"
    assert parse_target("https://open.larksuite.com/open-apis/bot/v2/hook/x").shape == "feishu"
    assert parse_target("https://oapi.dingtalk.com/robot/send?access_token=x").shape == "dingtalk"
    assert parse_target("https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=x").shape == "wecom"
    assert parse_target("https://ntfy.sh/topic").shape == "ntfy"
    assert parse_target("https://example.org/hook").shape == "json"
    assert parse_target("lark:https://example.org/x").shape == "feishu"
    with pytest.raises(UserError):
        parse_target("slack:not-a-url")
    r = run_cli("run", "--notify", "no-such-program-xyz --flag", "--", "true")
    assert r.returncode == 2 and "no-such-program-xyz" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert json.loads(run_cli("runs", "--json").stdout)["runs"] == []  # nothing was started
