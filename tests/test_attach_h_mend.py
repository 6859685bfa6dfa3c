"""`rocm-tune attach` on a UTF-16 log, as Windows PowerShell's `python train.py > train.log` writes it (UTF-16LE
with a byte-order mark, CRLF line ends), and as tools that write UTF-16 without a mark do: the same steps, alerts
and end as the UTF-8 log, in --plain and --once --json, also while the log is still being written and when a read
stops inside a character. The log is the repository's LLaMA-Factory 0.9.5 run (tests/fixtures/logs)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rocm_tune.core.files import log_encoding
from rocm_tune.core.runs.watch.sources import FileFollower, sniff_kind
from tests.conftest import run_cli

LOGS = Path(__file__).parent / "fixtures" / "logs"
LF_LOG = LOGS / "llamafactory-0.9.5-lora-cpu" / "stdout.log"
OOM_LOG = LOGS / "alert-oom-hip-dcu.log"

# (name, codec, byte-order mark, line end): PowerShell 5's `>` / Out-File, a tool without a mark, big-endian
FORMS = [("powershell", "utf-16-le", b"\xff\xfe", "\r\n"), ("no-mark-le", "utf-16-le", b"", "\n"),
         ("no-mark-be", "utf-16-be", b"", "\r\n"), ("mark-be", "utf-16-be", b"\xfe\xff", "\n")]


def _utf16(text: str, codec: str, mark: bytes, eol: str) -> bytes:
    return mark + text.replace("\n", eol).encode(codec)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _body(stdout: str) -> list[str]:
    """attach --plain's lines but its first (`# watching PATH ...`, which names the file)."""
    return stdout.splitlines()[1:]


@pytest.mark.parametrize("form", FORMS, ids=[f[0] for f in FORMS])
def test_plain_no_follow_reads_a_utf16_log_as_its_utf8_twin(tmp_path, form):
    _name, codec, mark, eol = form
    text = LF_LOG.read_text(encoding="utf-8")
    ref = run_cli("attach", str(_write(tmp_path, "utf8.log", text.encode())), "--plain", "--no-follow")
    got = run_cli("attach", str(_write(tmp_path, "train.log", _utf16(text, codec, mark, eol))), "--plain",
                  "--no-follow")
    assert got.returncode == ref.returncode == 0, got.stderr
    assert _body(got.stdout) == _body(ref.stdout)
    steps = [ln for ln in _body(got.stdout) if ln.startswith("step ")]
    assert len(steps) == 36 and steps[0].startswith("step 1/36 ep 0.08 loss 5.8860")
    assert "# run finished at step 36/36, train_loss 5.7640" in got.stdout


@pytest.mark.parametrize("form", FORMS[:2], ids=[f[0] for f in FORMS[:2]])
def test_once_json_of_a_utf16_log(tmp_path, form):
    _name, codec, mark, eol = form
    text = LF_LOG.read_text(encoding="utf-8")
    ref = json.loads(run_cli("attach", str(_write(tmp_path, "utf8.log", text.encode())), "--once", "--json",
                             "--no-gpus").stdout)
    r = run_cli("attach", str(_write(tmp_path, "train.log", _utf16(text, codec, mark, eol))), "--once", "--json",
                "--no-gpus")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["source_kind"] == "text" and d["step"] == 36 and d["total_steps"] == 36 and d["epoch"] == 3.0
    assert d["loss"] == 5.694 and d["grad_norm"] == pytest.approx(0.324, rel=1e-3) and d["status"] == "finished"
    keys = ("step", "total_steps", "epoch", "loss", "smoothed_loss", "learning_rate", "grad_norm", "step_time_s",
            "elapsed_s", "status", "alerts", "world_size", "reason", "samples_per_s", "eval_loss")
    assert {k: d[k] for k in keys} == {k: ref[k] for k in keys}


def test_an_oom_in_a_powershell_log_is_the_oom_alert(tmp_path):
    log = _write(tmp_path, "run.log", _utf16(OOM_LOG.read_text(encoding="utf-8"), "utf-16-le", b"\xff\xfe", "\r\n"))
    d = json.loads(run_cli("attach", str(log), "--once", "--json", "--no-gpus").stdout)
    assert [a["code"] for a in d["alerts"]] == ["oom"] and d["alerts"][0]["data"]["tried_bytes"] == int(1.45 * 2**30)
    plain = run_cli("attach", str(log), "--plain", "--no-follow")
    assert "! [oom] HIP out of memory: tried to allocate 1.45 GiB" in plain.stdout


# characters of every UTF-16 length: ASCII, tqdm's blocks and CJK (one unit), an emoji (a surrogate pair)
WIDE = "step 1 loss 2.5 ▎▌█ 训练 ok\r\n🚀 {'loss': '1.25', 'epoch': '0.5'}\nend 😀\n"


@pytest.mark.parametrize("form", FORMS, ids=[f[0] for f in FORMS])
def test_every_cut_of_a_utf16_log_gives_the_lines_of_one_read(tmp_path, form):
    """The writer's bytes arrive cut anywhere: inside a code unit, between the halves of a surrogate pair, inside
    the mark; the lines are those of the whole text, none lost or doubled, no replacement character."""
    _name, codec, mark, eol = form
    data = _utf16(WIDE * 3, codec, mark, eol)
    want = [ln for ln in (WIDE * 3).replace("\r\n", "\n").split("\n") if ln]
    for step in (1, 3, 5, 7):
        p = tmp_path / f"cut{step}.log"
        p.write_bytes(b"")
        f = FileFollower(str(p), split_cr=True)
        got: list[str] = []
        for i in range(0, len(data), step):
            with open(p, "ab") as fh:
                fh.write(data[i:i + step])
            got += f.read_lines()
        got += f.flush_partial()
        f.close()
        assert [ln for ln in got if ln] == want, (form, step)


def test_a_short_or_starting_log_waits_for_its_encoding(tmp_path):
    """Fewer bytes than tell UTF-16 from UTF-8: nothing is read yet (no wrong guess that sticks); once the writer
    is gone, the bytes there decide."""
    assert log_encoding(b"s\x00t\x00") is None and log_encoding(b"\xff") is None
    assert log_encoding(b"s\x00t\x00", final=True) == ("utf-8", 0)
    assert log_encoding("step 12 loss".encode("utf-16-le")) == ("utf-16-le", 0)
    assert log_encoding(b"step 12 loss 1.5 lr") == ("utf-8", 0)
    assert log_encoding(b"\x00" * 64) == ("utf-8", 0)               # zeros (a preallocated file) are no text
    p = tmp_path / "new.log"
    p.write_bytes(b"")
    f = FileFollower(str(p))
    data = "step 1\nstep 2\n".encode("utf-16-le")
    with open(p, "ab") as fh:
        fh.write(data[:5])
    assert f.read_lines() == [] and f.offset == 0                    # undecided: nothing consumed
    with open(p, "ab") as fh:
        fh.write(data[5:])
    assert f.read_lines() == ["step 1", "step 2"]
    g = FileFollower(str(_write(tmp_path, "tiny.log", "ok\n".encode("utf-16-le"))))
    assert g.read_lines() == [] and g.flush_partial() == ["o\x00k\x00", "\x00"]   # 3 characters: read as UTF-8


def test_a_follower_opened_at_the_end_of_a_utf16_log_reads_whole_characters(tmp_path):
    p = _write(tmp_path, "live.log", _utf16("old line\n" * 4, "utf-16-le", b"\xff\xfe", "\r\n")[:-1])   # odd size
    f = FileFollower(str(p), split_cr=True, from_end=True)
    assert f.read_lines() == []
    with open(p, "ab") as fh:
        fh.write(b"\x00" + "new line 训练\r\n".encode("utf-16-le"))
    assert [ln for ln in f.read_lines() if ln] == ["new line 训练"]


def test_sniff_kind_reads_a_utf16_metrics_file(tmp_path):
    rec = '{"type": "step", "step": 1, "loss": 2.0}\n'
    assert sniff_kind(str(_write(tmp_path, "m.log", _utf16(rec, "utf-16-le", b"\xff\xfe", "\r\n")))) == "metrics"
    assert sniff_kind(str(_write(tmp_path, "n.log", _utf16(rec, "utf-16-le", b"", "\n")))) == "metrics"


# a PowerShell-like writer: the UTF-16LE log (mark, CRLF) in odd-sized writes that cut characters, a pause in the
# middle (a write stopped inside a character) until GO exists, then the rest
WRITER = textwrap.dedent("""
    import os, sys, time
    src, log, go, pause_at = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    data = b"\\xff\\xfe" + open(src, encoding="utf-8").read().replace("\\n", "\\r\\n").encode("utf-16-le")
    with open(log, "wb", buffering=0) as fh:
        for i in range(0, pause_at, 1001):
            fh.write(data[i:min(i + 1001, pause_at)])
            time.sleep(0.005)
        open(log + ".paused", "w").close()
        while not os.path.exists(go):
            time.sleep(0.02)
        for i in range(pause_at, len(data), 777):
            fh.write(data[i:i + 777])
            time.sleep(0.005)
""")


def test_attach_follows_a_utf16_log_while_it_is_written(tmp_path):
    text = LF_LOG.read_text(encoding="utf-8")
    cut = text.index("{'loss': '5.853'")                  # the 3rd step line ...
    pause_at = 2 + 2 * cut + 2 * text[:cut].count("\n") + 7   # ... stopped 3.5 characters into it: an odd byte
    script, log, go = tmp_path / "w.py", tmp_path / "train.log", tmp_path / "go"
    script.write_text(WRITER)
    writer = subprocess.Popen([sys.executable, str(script), str(LF_LOG), str(log), str(go), str(pause_at)])
    follower = None
    try:
        deadline = time.time() + 60
        while not Path(str(log) + ".paused").exists():
            assert time.time() < deadline and writer.poll() is None, "the writer did not reach its pause"
            time.sleep(0.02)
        mid = json.loads(run_cli("attach", str(log), "--once", "--json", "--no-gpus").stdout)
        half = _write(tmp_path, "half.log", text[:cut + 3].encode())    # its UTF-8 twin, cut at the same character
        twin = json.loads(run_cli("attach", str(half), "--once", "--json", "--no-gpus").stdout)
        assert (mid["step"], mid["loss"], mid["total_steps"]) == (twin["step"], twin["loss"], twin["total_steps"])
        assert mid["step"] is not None and mid["status"] == "running" and mid["process"]["pid"] == writer.pid
        follower = subprocess.Popen([sys.executable, "-m", "rocm_tune", "attach", str(log), "--plain",
                                     "--interval", "0.05"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)                                   # the follower has read up to the cut character
        go.write_text("")
        out, err = follower.communicate(timeout=120)
        assert writer.wait(timeout=60) == 0
    finally:
        for p in (writer, follower):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    ref = run_cli("attach", str(LF_LOG), "--plain", "--no-follow")
    steps = [ln for ln in out.splitlines() if ln.startswith("step ")]
    assert follower.returncode == 0, err
    def values(lines):               # the step's own figures (the s/it and eta are timed by the follower)
        return [re.sub(r" [\d.]+ s/it.*", "", ln) for ln in lines if ln.startswith("step ")]

    assert len(steps) == 36 and values(steps) == values(ref.stdout.splitlines())
    assert "# run finished" in out and "�" not in out


# ------------------------------------------------------------------------------------------------ a huge log
def _long_log(steps: int) -> str:
    """A long HF Trainer run's stdout: the start-up lines, a tqdm redraw and a step dict per step, the end."""
    out = ["***** Running training *****\n", f"  Total optimization steps = {steps}\n"]
    out += [f"{100 * s // steps:3d}%|#  | {s}/{steps} [01:02<10:00,  1.23s/it]\r"
            f"{{'loss': {2.0 - s / steps:.4f}, 'grad_norm': 0.8125, 'learning_rate': 1.9e-05, 'epoch': "
            f"{s / steps:.4f}}}\n" for s in range(1, steps + 1)]
    out.append("{'train_runtime': 1234.5, 'train_samples_per_second': 9.9, 'train_loss': 1.5, 'epoch': 1.0}\n")
    return "".join(out)


@pytest.mark.parametrize("form", [None, FORMS[0]], ids=["utf-8", "powershell"])
def test_no_follow_on_a_huge_log_reads_its_start_and_end_only(tmp_path, form):
    """`--no-follow` shows the newest steps and the end: it reads the log's first MiB and last 2 MiB (the middle,
    skipped, is said), and shows what reading it all shows (`--plain` following a finished log reads it all)."""
    text = _long_log(60000)                                      # about 8 MiB as UTF-8
    data = text.encode() if form is None else _utf16(text, *form[1:])
    log = _write(tmp_path, "train.log", data)
    look = run_cli("attach", str(log), "--plain", "--no-follow")
    full = run_cli("attach", str(log), "--plain", "--interval", "0.05")
    assert look.returncode == full.returncode == 0, look.stderr + full.stderr
    said = [ln for ln in look.stdout.splitlines() if "in the middle of train.log not read" in ln]
    assert len(said) == 1 and "not read" not in full.stdout

    def shown(out):                  # the step lines and the end, without the counts of what is not shown
        return [ln for ln in out.splitlines() if not ln.startswith("# ...") and not ln.startswith("# watching")]

    assert shown(look.stdout) == shown(full.stdout)
    assert shown(look.stdout)[-1] == "# run finished at step 60000/60000, train_loss 1.5000, elapsed 20:34"
    assert shown(look.stdout)[-2].startswith("step 60000/60000 ep 1.00 loss 1.0000")


def test_a_skip_drops_the_line_it_lands_in(tmp_path):
    for codec, mark in (("utf-8", b""), ("utf-16-le", b"\xff\xfe")):
        data = mark + "".join(f"line {i} ▌\n" for i in range(100)).encode(codec)
        f = FileFollower(str(_write(tmp_path, f"s-{codec}.log", data)))
        first = [ln for batch in f.read_batches(max_bytes=40) for ln in batch]
        f.skip_to(len(data) - 61)                  # inside a line (and, in UTF-16, inside a code unit)
        rest = f.read_lines()
        assert first and first == [f"line {i} ▌" for i in range(len(first))], codec
        assert rest == [f"line {i} ▌" for i in range(100 - len(rest), 100)], codec
        assert 1 <= len(rest) <= 6
