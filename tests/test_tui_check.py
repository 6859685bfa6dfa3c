"""`rocm-tune check FILE...` in a terminal opens the app's Plan screen on the user's own files (issue 19 item 4).

Real calibration case hiyouga/LlamaFactory#3708 (../shared/calibration/real-configs/lf-3708-...: Qwen1.5-7B LoRA,
ZeRO-2, cutoff_len 8196 on 4 x RTX 3090 -> OOM). The screen shows the user's micro-batch and cutoff, the check's
verdict, and its minimal fix as a diff against their YAML; export writes the fixed YAML, which `check` then says fits.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import select
import shutil
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from rocm_tune.core.check.check import check
from rocm_tune.tui.app import RocmTuneApp
from rocm_tune.tui.check_model import CheckSession
from tests.helpers_tui import wait_for

REPO = Path(__file__).resolve().parents[1]
CASE = REPO.parent / "shared" / "calibration" / "real-configs" / "lf-3708-qwen15-7b-lora-z2-cutoff8k-4x3090"
FILES = ("PQ_sft.yaml", "launch.sh", "ds_z2_config.json.lf-reference")
# Qwen/Qwen1.5-7B-Chat config.json (the path in the YAML is on the poster's machine: --model gives it)
QWEN15_7B = {"model_type": "qwen2", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
             "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 151936,
             "tie_word_embeddings": False, "torch_dtype": "bfloat16", "max_position_embeddings": 32768}


@pytest.fixture
def case(tmp_path):
    """The case's files as posted (copied, so the test can prove they are never written), and the model."""
    user = tmp_path / "user"
    user.mkdir()
    if CASE.is_dir():
        for n in FILES:
            shutil.copy(CASE / n, user / n)
    else:   # another machine: the same case as tests/test_check.py embeds it
        from tests.test_check import DS_Z2, LF_3708_LAUNCH, LF_3708_YAML

        for n, text in zip(FILES, (LF_3708_YAML, LF_3708_LAUNCH, DS_Z2)):
            (user / n).write_text(text)
    model = tmp_path / "qwen15-7b"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(QWEN15_7B))
    return [str(user / n) for n in FILES], str(model)


def _text(app, sel: str) -> str:
    return str(app.screen.query_one(sel).render())


def _status(app) -> str:
    return "\n".join([_text(app, "#status"), *(n.message for n in app._notifications)])


def test_check_opens_the_plan_screen_with_the_users_values_and_exports_the_fix(case, tmp_path, monkeypatch):
    paths, model = case
    before = {p: Path(p).read_text() for p in paths}
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    opts = {"gpu_id": "rtx3090", "vram_gib": None, "gpus": None, "nodes": None, "model_ref": model}
    rep = check(paths, **opts)   # what `rocm-tune check` computes before it opens the app
    assert rep.verdict == "oom" and rep.fix is not None
    session = CheckSession(paths, rep, opts)

    async def go():
        app = RocmTuneApp(check=session)
        async with app.run_test(size=(140, 50)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "CheckPlanScreen"
                           and app.screen._fixed_report is not None, 60, "the check screen and its fix checked")
            scr = app.screen
            # its own header (the command and the files), not the wizard's steps (issue 25 item 13)
            header = _text(app, ".breadcrumb")
            assert header.startswith("rocm-tune check  PQ_sft.yaml") and "Hardware" not in header
            # the user's own values in the settings
            assert scr.query_one("#set-micro_batch").value == "1"
            assert scr.query_one("#set-cutoff_len").value == "8196"
            assert scr.query_one("#set-grad_accum").value == "1"
            assert scr.query_one("#set-zero_stage").value == "2"
            summary = _text(app, "#plan-summary")
            assert "OOM at step" in summary and "cutoff_len 8196" in summary and "4 GPU(s)" in summary
            assert "step" in _text(app, "#vram") and "load" in _text(app, "#vram")
            assert "warmup-steps-float" in _text(app, "#findings")
            # the fix as edits against their file, and its own verdict
            fix = _text(app, "#fix")
            assert "-cutoff_len: 8196" in fix and "+cutoff_len: 512" in fix and "changed: cutoff_len=512" in fix
            assert "checked again: fits" in fix
            # ctrl+o: the fix's values in the fields
            await pilot.press("ctrl+o")
            await wait_for(pilot, lambda: scr.query_one("#set-cutoff_len").value == "512", 10, "the fix loaded")
            assert "FITS" in _text(app, "#plan-summary")
            # an edit: the user's file with that value, checked again
            scr.query_one("#set-cutoff_len").value = "2048"
            await wait_for(pilot, lambda: (scr._planned_for or {}).get("cutoff_len") == 2048, 60, "re-check")
            assert "+cutoff_len: 2048" in _text(app, "#fix") and "Your edits" in _text(app, "#fix")
            # ctrl+r: back to the user's values; ctrl+n writes the minimal fix
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: scr.query_one("#set-cutoff_len").value == "8196", 10, "reset")
            await pilot.press("ctrl+o")
            await wait_for(pilot, lambda: scr.query_one("#set-cutoff_len").value == "512", 10, "the fix loaded")
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportFixModal", 10, "export dialog")
            target = app.screen.query_one("#fix-dir").value
            assert target == str(work / "PQ_sft-fixed")
            await pilot.press("enter")
            await wait_for(pilot, lambda: getattr(scr, "written", None), 10, "written")
            assert "your files are unchanged" in _status(app)
            # again into the same folder: refused, nothing overwritten
            (Path(target) / "PQ_sft.yaml").write_text("mine\n")
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportFixModal", 10, "export dialog")
            app.screen.query_one("#fix-dir").value = target
            await pilot.press("enter")
            await wait_for(pilot, lambda: "already exists" in _status(app), 10, "refusal")
            assert "choose another folder" in _status(app) and "--force" not in _status(app)   # the app's words
            assert (Path(target) / "PQ_sft.yaml").read_text() == "mine\n"
            await pilot.press("ctrl+q")
        return scr.written

    written = asyncio.run(go())
    fixed = work / "PQ_sft-fixed"
    # the launch script that starts the config is copied beside the fixed config and starts that one (issue 26 item 4)
    assert written == [str(fixed / "PQ_sft.yaml"), str(fixed / "launch.sh")]
    assert str(fixed / "PQ_sft.yaml") in (fixed / "launch.sh").read_text()
    assert before == {p: Path(p).read_text() for p in paths}    # the user's files untouched


def test_exported_fix_is_what_check_says_fits(case, tmp_path, monkeypatch):
    """The file export writes (core.check.check.write_fix through the app's export) is in the user's format and fits."""
    from rocm_tune.tui import check_model as cm

    paths, model = case
    monkeypatch.chdir(tmp_path)
    opts = {"gpu_id": "rtx3090", "model_ref": model}
    session = CheckSession(paths, check(paths, **opts), opts)
    out = cm.export(session, session.report.fix, cm.default_export_dir(session))
    fixed = Path(out[0]).read_text()
    assert fixed.splitlines()[:5] == Path(paths[0]).read_text().splitlines()[:5]   # their YAML, comments kept
    again = check([out[0], *paths[1:]], **opts)
    assert again.verdict == "fits" and again.cfg.cutoff_len == 512 and again.cfg.micro_batch == 1
    with pytest.raises(Exception, match="one of your own files"):
        cm.export(session, session.report.fix, os.path.dirname(paths[0]))


def _pty_run(argv: list[str], cwd: str, until: bytes, timeout: float = 60) -> bytes:
    """Run argv on a pseudo-terminal (stdin and stdout are a TTY, as in a user's terminal) until `until` shows."""
    pid, fd = pty.fork()
    if pid == 0:   # child
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))   # a 120x40 terminal
        os.chdir(cwd)
        os.environ.update({"TERM": "xterm-256color"})
        os.execv(sys.executable, [sys.executable, *argv])
    out = b""
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end and until not in out:
            r, _w, _x = select.select([fd], [], [], 0.5)
            if r:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    break
        if until in out:
            os.write(fd, b"\x11")   # ctrl+q
            end = time.monotonic() + 30
            while time.monotonic() < end:
                r, _w, _x = select.select([fd], [], [], 0.5)
                if r:
                    try:
                        chunk = os.read(fd, 65536)
                    except OSError:
                        break
                    if not chunk:
                        break
                    out += chunk
                if os.waitpid(pid, os.WNOHANG)[0]:
                    pid = 0
                    break
    finally:
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(fd)
    return out


def test_check_in_a_terminal_opens_the_app_and_piped_prints_text(case, tmp_path):
    paths, model = case
    argv = ["-m", "rocm_tune", "check", *paths, "--gpu", "rtx3090", "--model", model]
    out = _pty_run(argv, str(tmp_path), b"Minimal fix (same effective batch) as edits")
    assert b"Minimal fix (same effective batch) as edits" in out and b"Write fix" in out
    # piped (no terminal): the text answer as before; --no-app forces it in a terminal
    from tests.conftest import run_cli

    r = run_cli("check", *paths, "--gpu", "rtx3090", "--model", model)
    assert r.returncode == 1 and r.stdout.startswith("Read ") and "Verdict    OOM likely at step" in r.stdout
    out = _pty_run([*argv, "--no-app"], str(tmp_path), b"Minimal fix (same effective batch;")
    assert b"Verdict    OOM likely at step" in out and b"Write fix" not in out
