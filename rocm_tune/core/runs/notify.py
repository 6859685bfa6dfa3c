"""Notifications: `--notify URL|COMMAND` on `run` and `resume` (issue 21 item 4).

The supervisor delivers one JSON object when the run finishes, fails, is stopped and at each OOM retry:
`{"event", "run_id", "name", "status", "step", "total_steps", "loss", "alert": {code, title, fix} | null,
"reason", "returncode", "restarts", "host", "dir", "at"}`.

Where it goes (`parse_target`):
* `http(s)://...`: POSTed as JSON. The payload shape follows the webhook's host: Slack (hooks.slack.com:
  `{"text"}`), Feishu/Lark (open.feishu.cn, open.larksuite.com: `{"msg_type": "text", "content": {"text"}}`),
  DingTalk (oapi.dingtalk.com: `{"msgtype": "text", "text": {"content"}}`), WeCom (qyapi.weixin.qq.com:
  `{"msgtype": "markdown", "markdown": {"content"}}`), ntfy (ntfy.sh or a host named ntfy.*: JSON publishing,
  `{"topic", "title", "message", "tags", "priority"}` POSTed to the server root); any other host gets the object
  itself. A prefix picks the shape for any host: `slack:`, `feishu:`, `lark:`, `dingtalk:`, `wecom:`, `ntfy:`,
  `json:` (e.g. `ntfy:http://10.0.0.5/alerts` for a self-hosted ntfy).
* anything else is a command (shell words, no shell): it runs with the JSON object on stdin.

Delivery never blocks or breaks the run: it happens after the run's end is recorded (retries: in a thread), each
attempt has a timeout, failures are retried with backoff (`ROCM_TUNE_NOTIFY_BACKOFF` seconds, doubling; default
2) and every attempt is logged in RUN_DIR/notify.log (the webhook's host only: its URL path is often the secret).
Standard library only (urllib).

While the run runs, the supervisor also sends each alert (`nan-loss`, a stall, `disk-will-fill`, ...) with its fix,
once per alert code per run (`event: "alert"`); what was sent is recorded in RUN_DIR/alerts-sent.json.

Without `--notify`, `run` and `resume` read `notify = ["URL", "command", ...]` (or one string) from the config file
`$ROCM_TUNE_CONFIG`, else `$XDG_CONFIG_HOME/rocm-tune/config.toml` (default `~/.config/rocm-tune/config.toml`);
an explicit `--notify` wins and `--notify none` sends nothing.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from rocm_tune.core.errors import UserError

NOTIFY_LOG = "notify.log"
ALERTS_SENT = "alerts-sent.json"
CONFIG_ENV = "ROCM_TUNE_CONFIG"
SHAPES = ("json", "slack", "feishu", "lark", "dingtalk", "wecom", "ntfy")
_HOSTS = (("hooks.slack.com", "slack"), ("open.feishu.cn", "feishu"), ("open.larksuite.com", "feishu"),
          ("oapi.dingtalk.com", "dingtalk"), ("qyapi.weixin.qq.com", "wecom"), ("ntfy.sh", "ntfy"))
ATTEMPTS = 4
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Target:
    spec: str                      # as the user gave it (stored in run.json)
    kind: str                      # url | command
    shape: str = "json"            # for url
    url: str | None = None
    argv: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """What the log names: the scheme and host of a webhook, the program of a command."""
        if self.kind == "url":
            p = urllib.parse.urlsplit(self.url or "")
            return f"{self.shape} {p.scheme}://{p.netloc}"
        return f"command {self.argv[0]}"


def _shape_for_host(host: str) -> str:
    host = host.lower()
    for suffix, shape in _HOSTS:
        if host == suffix or host.endswith("." + suffix):
            return shape
    return "ntfy" if host.startswith("ntfy.") else "json"


def parse_target(text: str) -> Target:
    """`--notify` value -> Target; UserError (one line naming it) when it is neither a URL nor a command."""
    spec = (text or "").strip()
    if not spec:
        raise UserError("--notify is empty; give a webhook URL or a command")
    shape = None
    rest = spec
    head, sep, tail = spec.partition(":")
    if sep and head.lower() in SHAPES and not tail.startswith("//"):
        shape, rest = head.lower(), tail.strip()
        if shape == "lark":
            shape = "feishu"
    if rest.lower().startswith(("http://", "https://")):
        try:
            p = urllib.parse.urlsplit(rest)
            host, _port = p.hostname, p.port  # a bad IPv6 literal or port raises here, not at delivery
        except ValueError as exc:
            raise UserError(f"--notify {spec!r}: not a valid URL ({exc})") from None
        if not host or any(c.isspace() or ord(c) < 32 for c in rest):
            raise UserError(f"--notify {spec!r}: " + ("the URL names no host" if not host else
                                                       "a URL has no spaces or control characters"))
        return Target(spec, "url", shape or _shape_for_host(host), url=rest)
    if shape is not None:
        raise UserError(f"--notify {spec!r}: {shape}: needs an http(s):// URL after it")
    try:
        argv = tuple(shlex.split(spec))
    except ValueError as exc:
        raise UserError(f"--notify {spec!r}: not a URL, and not a command line ({exc})") from None
    exe = argv[0]
    found = (os.path.isfile(exe) and os.access(exe, os.X_OK)) if os.sep in exe else shutil.which(exe) is not None
    if not found:
        raise UserError(f"--notify {spec!r}: not an http(s) URL, and command {exe!r} is not found or not executable")
    return Target(spec, "command", argv=argv)


# ---------------------------------------------------------------------------------------------- payload


def payload(run_dir: str | os.PathLike, event: str, *, alert: dict | None = None, detail: str | None = None) -> dict:
    """The one JSON object every target gets (from the run directory as it is now)."""
    from rocm_tune.core.runs import rundir as rd

    d = Path(run_dir)
    try:
        info = rd.load_run(d)
        base = {"run_id": info.id, "name": info.name, "status": info.status, "step": info.step,
                "total_steps": info.total_steps, "loss": info.loss, "reason": info.reason,
                "returncode": info.returncode}
    except UserError:
        base = {"run_id": d.name, "name": d.name, "status": None, "step": None, "total_steps": None, "loss": None,
                "reason": None, "returncode": None}
    meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    got = meta.get("restarts") if isinstance(meta, dict) else None
    restarts: list = got if isinstance(got, list) else []
    if isinstance(base["loss"], float) and base["loss"] != base["loss"]:
        base["loss"] = None
    return {"event": event, **base, "alert": alert, "detail": detail, "restarts": len(restarts),
            "host": socket.gethostname(), "dir": str(d.resolve()), "at": time.time()}


def summary(p: dict) -> str:
    """One human line (+ the alert's fix) for chat webhooks."""
    step = f"step {p.get('step')}" + (f"/{p['total_steps']}" if p.get("total_steps") else "")
    loss = f", loss {p['loss']:.4g}" if isinstance(p.get("loss"), (int, float)) else ""
    text = f"rocm-tune: run {p.get('name')} ({p.get('run_id')}) {p.get('event')}: {p.get('status')} at {step}{loss} " \
           f"on {p.get('host')}"
    if p.get("detail"):
        text += f"\n{p['detail']}"
    if p.get("reason") and p.get("event") != "retry":
        text += f"\nreason: {p['reason']}"
    a = p.get("alert")
    if isinstance(a, dict):
        text += f"\nalert [{a.get('code')}]: {a.get('title')}\nfix: {a.get('fix')}"
    return text


def shaped(target: Target, p: dict) -> tuple[str, dict]:
    """(URL to POST to, JSON body) in the shape the webhook expects."""
    text = summary(p)
    shape = target.shape
    url = target.url or ""
    if shape == "slack":
        return url, {"text": text}
    if shape == "feishu":
        return url, {"msg_type": "text", "content": {"text": text}}
    if shape == "dingtalk":
        return url, {"msgtype": "text", "text": {"content": text}}
    if shape == "wecom":
        return url, {"msgtype": "markdown", "markdown": {"content": text}}
    if shape == "ntfy":  # JSON publishing: POST to the server root with the topic in the body
        parts = urllib.parse.urlsplit(url)
        topic = parts.path.strip("/").split("/")[0] if parts.path.strip("/") else "rocm-tune"
        root = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/", "", ""))
        bad = p.get("event") in ("failed", "retry")
        return root, {"topic": topic, "title": f"rocm-tune {p.get('name')}: {p.get('event')}", "message": text,
                      "tags": ["warning"] if bad else ["white_check_mark"], "priority": 4 if bad else 3}
    return url, p


# ---------------------------------------------------------------------------------------------- delivery


def _log(run_dir: Path, rec: dict) -> None:
    try:
        with open(run_dir / NOTIFY_LOG, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec) + "\n")
    except OSError:
        pass


def _once(target: Target, p: dict, timeout: float) -> str | None:
    """None when delivered, else what went wrong (one line)."""
    body = json.dumps(p).encode()
    if target.kind == "command":
        try:
            r = subprocess.run(list(target.argv), input=body, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            return f"timed out after {timeout:g} s"
        except OSError as exc:
            return f"cannot run it: {exc.strerror or exc}"
        if r.returncode != 0:
            err = r.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"exit code {r.returncode}" + (f": {err[-1][:200]}" if err else "")
        return None
    url, obj = shaped(target, p)
    req = urllib.request.Request(url, data=json.dumps(obj).encode(), method="POST",
                                 headers={"Content-Type": "application/json; charset=utf-8",
                                          "User-Agent": "rocm-tune-notify"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read(65536)
            return None if 200 <= resp.status < 300 else f"HTTP {resp.status}"
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return f"{getattr(exc, 'reason', None) or exc}"[:200]


def deliver(spec: str | Target, run_dir: str | os.PathLike, p: dict, *, attempts: int = ATTEMPTS,
            backoff: float | None = None, timeout: float = TIMEOUT_S) -> bool:
    """Deliver `p` to the target; True when it arrived. Never raises; every attempt is logged in notify.log."""
    d = Path(run_dir)
    try:
        target = spec if isinstance(spec, Target) else parse_target(spec)
    except UserError as exc:
        _log(d, {"at": time.time(), "event": p.get("event"), "ok": False, "error": str(exc), "attempt": 0})
        return False
    if backoff is None:
        try:
            backoff = max(0.0, float(os.environ.get("ROCM_TUNE_NOTIFY_BACKOFF", "2")))
        except ValueError:
            backoff = 2.0
    delay = backoff
    for attempt in range(1, attempts + 1):
        try:
            err = _once(target, p, timeout)
        except Exception as exc:  # noqa: BLE001 - a notification never breaks the run
            err = f"{type(exc).__name__}: {exc}"[:200]
        _log(d, {"at": time.time(), "event": p.get("event"), "to": target.where, "attempt": attempt,
                 "ok": err is None, **({"error": err} if err else {})})
        if err is None:
            return True
        if attempt < attempts:
            time.sleep(delay)
            delay *= 2
    return False


def notify_async(spec: str | None, run_dir: str | os.PathLike, event: str, **kw):
    """Deliver in a background thread (a retry goes on meanwhile); returns the thread (join it before exiting)."""
    import threading

    if not spec:
        return None
    p = payload(run_dir, event, **kw)
    t = threading.Thread(target=deliver, args=(spec, run_dir, p), daemon=True, name="rocm-tune-notify")
    t.start()
    return t


# ---------------------------------------------------------------------------------------------- config file


def config_path() -> Path:
    """$ROCM_TUNE_CONFIG, else $XDG_CONFIG_HOME/rocm-tune/config.toml (default ~/.config/...)."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "rocm-tune" / "config.toml"


def _load_toml(path: Path) -> dict:
    """The config file's table (files.read_toml: a regular file, size, nesting, dotted-key and number limits)."""
    from rocm_tune.core.files import read_toml

    return read_toml(path, "config file")


def config_targets() -> list[str]:
    """The `notify` list of the config file ([] when there is no file or no `notify`); UserError (one line naming
    the file and the value) when it is malformed."""
    path = config_path()
    if not path.exists() and not path.is_symlink():
        if os.environ.get(CONFIG_ENV):
            raise UserError(f"{CONFIG_ENV}={os.environ[CONFIG_ENV]!r}: no such file")
        return []
    if path.is_dir():
        raise UserError(f"{path}: is a directory; the config is a TOML file")
    data = _load_toml(path)
    got = data.get("notify")
    if got is None:
        return []
    items = [got] if isinstance(got, str) else got
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        raise UserError(f"{path}: notify = {got!r}: give a list of webhook URLs or commands, e.g. "
                        'notify = ["https://ntfy.sh/mytopic"]')
    out = []
    for x in items:
        try:
            out.append(parse_target(x).spec)
        except UserError as exc:
            raise UserError(f"{path}: {str(exc).replace('--notify ', 'notify ', 1)}") from None
    return out


def resolve(flag: str | None) -> list[str]:
    """What a run notifies: an explicit `--notify` (one target; `none`: nothing), else the config file's list."""
    if flag is not None:
        if flag.strip().lower() == "none":
            return []
        return [parse_target(flag).spec]
    return config_targets()


def specs(value) -> list[str]:
    """run.json's `notify` (one string, or a list of them) as a list."""
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list):
        return [x for x in value if isinstance(x, str) and x]
    return []


def encode(targets: list[str]) -> str:
    """The supervisor's environment value for `targets` (one spec as it is, several as a JSON list)."""
    return targets[0] if len(targets) == 1 else json.dumps(targets)


def decode(value: str | None) -> list[str]:
    if not value:
        return []
    if value.startswith("["):
        try:
            return specs(json.loads(value))
        except ValueError:
            return []
    return [value]


# ---------------------------------------------------------------------------------------------- alerts while running


def alerts_sent(run_dir: str | os.PathLike) -> list[dict]:
    """The record of alert notifications of this run (one entry per alert code)."""
    try:
        with open(Path(run_dir) / ALERTS_SENT, encoding="utf-8") as fh:
            got = json.load(fh)
    except (OSError, ValueError):
        return []
    return [x for x in got.get("sent") or [] if isinstance(x, dict)] if isinstance(got, dict) else []


def send_alert(targets: list[str], run_dir: str | os.PathLike, alert: dict) -> bool:
    """Notify `alert` (code, title, fix, ...) once per code per run: False when this code was sent already. The
    record (RUN_DIR/alerts-sent.json) is written before the delivery, so a crash never sends it twice."""
    d = Path(run_dir)
    sent = alerts_sent(d)
    code = alert.get("code")
    if not targets or any(x.get("code") == code for x in sent):
        return False
    sent.append({"code": code, "title": alert.get("title"), "step": alert.get("step"), "at": time.time(),
                 "to": len(targets)})
    try:
        from rocm_tune.core.runs.rundir import write_json_atomic

        write_json_atomic(d / ALERTS_SENT, {"sent": sent})
    except OSError:
        pass
    p = payload(d, "alert", alert=alert)
    for t in targets:
        deliver(t, d, p)
    return True
