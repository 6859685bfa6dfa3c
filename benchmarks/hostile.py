"""Hostile cases against rocm-tune's runs, inputs and arguments (issue 15). Prints, per area, the cases
tried, tracebacks (must be 0), wrong statuses (must be 0) and processes left behind after `stop` or
after a run was reported ended (must be 0); for the areas "25 ..." (issue 25 items 16-19, each case a
subprocess under a 60 s timeout and a 3 GiB address-space limit) also hangs, memory blow-ups and
processes that are not a run's but were signalled (all must be 0).

    PYTHONPATH=. python benchmarks/hostile.py [--seed N] [--arg-cases N] [--quick] [--only-25]

Everything runs in a private XDG_STATE_HOME under a temp dir. Argument and file cases run `cli.main`
in-process (a traceback = an exception escaping it); run cases start real processes through the
real launcher and check them with the /proc scan `rocm-tune` uses (ROCM_TUNE_RUN_ID marker) and
with the pids the test processes wrote. A tmpfs is mounted for disk-full cases where allowed (root).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COLUMNS = ("cases", "tracebacks", "wrong_status", "left", "hangs", "memory", "signalled")
STATS: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COLUMNS, 0))
NOTES: list[str] = []


def note(area: str, kind: str, text: str) -> None:
    STATS[area][kind] += 1
    if len(NOTES) < 40:
        NOTES.append(f"[{area}] {kind}: {text[:300]}")


def cli_case(area: str, argv: list[str]) -> tuple[int, str, str]:
    from rocm_tune import cli

    STATS[area]["cases"] += 1
    out, err = io.StringIO(), io.StringIO()
    rc = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(argv)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 0
    except BaseException as exc:  # noqa: BLE001 - that is the finding
        note(area, "tracebacks", f"{argv}: {type(exc).__name__}: {exc} @ {traceback.format_tb(exc.__traceback__)[-1:]}")
        return -1, out.getvalue(), err.getvalue()
    if rc not in (0, 1, 2) or "Traceback" in err.getvalue():
        note(area, "tracebacks", f"{argv}: rc {rc}: {err.getvalue()[-300:]}")
    elif rc == 0 and "--json" in argv and out.getvalue().strip():
        try:
            json.loads(out.getvalue(), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError as exc:
            note(area, "tracebacks", f"{argv}: invalid JSON on stdout ({exc})")
    return rc, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------- inputs


def hostile_files(d: Path) -> dict[str, Path]:
    f = {}
    os.mkfifo(d / "fifo.yaml")
    f["fifo"] = d / "fifo.yaml"
    for name, data in {
        "deep.json": "[" * 200_000, "deep.yaml": "a: " + "[" * 200_000, "deep.jsonl": "{\"a\":" * 100_000,
        "empty.json": "", "nan-plan.json": '{"version": 2, "recommended": {"cutoff_len": Infinity}}',
        "long.log": "y" * 20_000_000, "bom.json": "\ufeff[]", "text.json": "hello",
        "zero-loss.jsonl": "".join(json.dumps({"current_steps": i, "total_steps": 20, "loss": 0.0, "lr": 1e-4,
                                               "epoch": i / 20, "percentage": 5 * i}) + "\n" for i in range(1, 21)),
        "crash.log": "loading...\nTraceback (most recent call last):\n  File \"x\", line 1\n"
                     "ValueError: Your setup doesn't support bf16/gpu.\n",
    }.items():
        (d / name).write_text(data)
        f[name] = d / name
    (d / "junk.bin").write_bytes(bytes(range(256)) * 1000)
    f["junk.bin"] = d / "junk.bin"
    (d / "dangling.json").symlink_to(d / "nowhere")
    f["dangling"] = d / "dangling.json"
    (d / "ckpt" / "checkpoint-48").mkdir(parents=True)
    (d / "ckpt" / "checkpoint-48" / "trainer_state.json").write_text(json.dumps(
        {"global_step": 48, "max_steps": 48, "log_history": [{"step": s, "loss": 1.0 / s} for s in range(1, 49)]}))
    f["ckpt"] = d / "ckpt" / "checkpoint-48"
    return f


VALUES = ["0", "1", "-1", "7", "1e309", "nan", "inf", "-inf", "99999999999999999999", "abc", " ", "",
          "qwen2.5-0.5b", "mi50-32gb", "lora", "fp16", "../x", "/dev/zero", "/", "-"]


def arg_cases(files: dict[str, Path], tmp: Path, n: int, rng: random.Random) -> None:
    from rocm_tune import cli

    skip = {"gpus": {"--watch", "--record", "--frames"}, "attach": {"--plain", "--interval"},
            "export": {"-o", "--out"}, "wizard": {"--plain", "-o", "--output"}, "run": {"--cwd"}}
    names = ["estimate", "plan", "models", "dataset", "export", "run", "runs", "attach", "stop", "gpus", "train",
             "wizard"]
    pool = VALUES + [str(p) for p in files.values()]
    for i in range(n):
        name = names[i % len(names)]
        parser, _ = cli.build_parser(name)
        opts = [a for a in parser._actions if a.option_strings and a.dest != "help"
                and not set(a.option_strings) & skip.get(name, set())]
        pos = [a for a in parser._actions if not a.option_strings and a.dest != "command"]
        argv = [name] + [rng.choice(pool) for a in pos if a.nargs not in ("*", "?") or rng.random() < 0.5]
        for o in rng.sample(opts, k=min(len(opts), rng.randint(0, 4))):
            argv.append(rng.choice(o.option_strings))
            if o.nargs != 0:
                argv.append(str(rng.choice(list(o.choices))) if o.choices and rng.random() < 0.5 else rng.choice(pool))
        argv += {"attach": ["--once", "--no-gpus"], "train": ["--check"], "export": ["-o", str(tmp / f"b{i}")],
                 "wizard": ["--answers", str(files["deep.yaml"])], "run": ["--", "/nonexistent/hostile"]}.get(name, [])
        cli_case("arguments", argv)


def file_cases(files: dict[str, Path], tmp: Path) -> None:
    for key, p in files.items():
        for argv in (["dataset", str(p), "--json"], ["attach", str(p), "--once", "--json", "--no-gpus"],
                     ["train", str(p), "--check"], ["export", "--plan", str(p), "-o", str(tmp / f"x-{key}")],
                     ["plan", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--dataset", str(p), "--json"],
                     ["run", "--config", str(p), "--dir", str(tmp / f"r-{key}")],
                     ["wizard", "--answers", str(p), "--json"]):
            rc, out, _ = cli_case("input files", argv)
            if argv[0] == "run" and rc == 0:
                note("input files", "wrong_status", f"{argv}: started a run from a hostile config")
    # what the files say: statuses and alerts that must be right
    checks = [(files["zero-loss.jsonl"], lambda d: "loss-collapse" in [a["code"] for a in d["alerts"]]
               and d["status"] == "finished"),
              (files["crash.log"], lambda d: d["status"] == "failed" and "bf16/gpu" in (d.get("reason") or "")),
              (files["ckpt"], lambda d: d["status"] == "finished")]
    for p, ok in checks:
        rc, out, _ = cli_case("statuses from files", ["attach", str(p), "--once", "--json", "--no-gpus"])
        try:
            good = rc == 0 and ok(json.loads(out))
        except ValueError:
            good = False
        if not good:
            note("statuses from files", "wrong_status", f"{p.name}: {out[:300]}")
    rc, _, err = cli_case("input files", ["attach", "99999999999", "--once", "--json"])
    if rc != 2:
        note("input files", "wrong_status", f"attach 99999999999 -> rc {rc}")


# ---------------------------------------------------------------------------------------------- runs


def _alive(pid: int) -> bool:
    from rocm_tune.core.runs import procs

    return procs.proc_stat(pid) is not None


def _wait(pred, timeout=60.0):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return bool(pred())


def _pid(path: Path) -> int:
    _wait(lambda: path.exists() and path.read_text().strip().split() != [])
    return int(path.read_text().split()[0])


def run_case(area: str, fn) -> None:
    STATS[area]["cases"] += 1
    try:
        fn()
    except AssertionError as exc:
        note(area, "wrong_status", str(exc))
    except Exception as exc:  # noqa: BLE001
        note(area, "tracebacks", f"{type(exc).__name__}: {exc} {traceback.format_exc()[-400:]}")


def expect(cond: bool, text: str) -> None:
    if not cond:
        raise AssertionError(text)


def process_cases(tmp: Path) -> None:
    from rocm_tune.core.runs import procs
    from rocm_tune.core.runs import rundir as rd
    from rocm_tune.core.runs.launch.launcher import launch, stop_run
    from rocm_tune.core.runs.registry import find_run

    def ended_clean(info, area):
        left = procs.marked_processes(info.id)
        if left:
            note(area, "left", f"{info.id}: {sorted(left)} still running after it was reported ended")
            procs.signal_run(info.id, signal.SIGKILL)

    def leftover():
        d = tmp / "lo"
        d.mkdir(exist_ok=True)
        info = launch(["bash", "-c", f"sleep 600 & echo $! > {d}/bg; exit 0"], name="leftover")
        bg = _pid(d / "bg")
        _wait(lambda: find_run(info.id).note is not None)
        expect(find_run(info.id).status == "running", "a run with a live child was not running")
        after = stop_run(info.id, grace=3)
        expect(after.status == "stopped", f"leftover: {after.status}")
        expect(_wait(lambda: not _alive(bg), 10), "stop left the background child")
        ended_clean(after, "processes")

    def torchrun_kill9():
        d = tmp / "tr"
        d.mkdir(exist_ok=True)
        prog = d / "t.py"
        prog.write_text("import subprocess,sys,os,time\nws=[subprocess.Popen(['sleep','600'],start_new_session=True)"
                        " for _ in range(2)]\nopen(sys.argv[1],'w').write(' '.join(str(w.pid) for w in ws)+' '+"
                        "str(os.getpid()))\ntime.sleep(600)\n")
        info = launch([sys.executable, str(prog), str(d / "pids")], name="torchrun")
        _pid(d / "pids")
        *workers, launcher = [int(x) for x in (d / "pids").read_text().split()]
        os.kill(launcher, signal.SIGKILL)
        _wait(lambda: "main process exited" in (find_run(info.id).note or ""))
        expect(find_run(info.id).status == "running", "workers alive but run not running")
        after = stop_run(info.id, grace=3)
        expect(after.status == "stopped", f"torchrun: {after.status}")
        expect(_wait(lambda: not any(_alive(w) for w in workers), 10), "workers survived stop")
        ended_clean(after, "processes")

    def setsid_grandchild():
        d = tmp / "gc"
        d.mkdir(exist_ok=True)
        info = launch(["bash", "-c", f"setsid bash -c 'sleep 600 & echo $! > {d}/gc; wait' </dev/null >/dev/null 2>&1 & "
                       "sleep 600"], name="daemon")
        gc = _pid(d / "gc")
        after = stop_run(info.id, grace=3)
        expect(after.status == "stopped" and _wait(lambda: not _alive(gc), 10), "setsid grandchild survived stop")
        ended_clean(after, "processes")

    def supervisor_kill9():
        info = launch(["sleep", "600"], name="nosup")
        os.kill(info.supervisor_pid, signal.SIGKILL)
        _wait(lambda: not _alive(info.supervisor_pid))
        expect(find_run(info.id).status == "running", "supervisor gone: not running")
        after = stop_run(info.id, grace=3)
        expect(after.status == "stopped" and not _alive(info.pid), f"supervisor kill: {after.status}")
        ended_clean(after, "processes")

    def command_kill9():
        info = launch(["sleep", "600"], name="oom")
        os.kill(info.pid, signal.SIGKILL)
        _wait(lambda: find_run(info.id).status != "running")
        r = find_run(info.id)
        expect(r.status == "failed" and r.returncode == 137 and r.reason and "SIGKILL" in r.reason + "out-of-memory",
               f"kill -9: {r.status} {r.returncode} {r.reason}")
        ended_clean(r, "processes")

    def forged_pgid():
        info = launch(["sleep", "300"], name="v")
        outsider = subprocess.Popen(["setsid", "sleep", "600"])
        try:
            _wait(lambda: _alive(outsider.pid))
            rd.update_run_json(info.dir, pgid=outsider.pid)
            stop_run(info.id, grace=2)
            expect(outsider.poll() is None, "stop killed a forged pgid's group")
            rd.update_run_json(info.dir, pid=outsider.pid, pid_start=rd.proc_start_time(outsider.pid))
            stop_run(info.id, grace=0.5, wait_exit=0.5)
            expect(outsider.poll() is None, "stop killed an unconfirmed pid")
        finally:
            outsider.kill()
            outsider.wait()

    def finished_cmd():
        info = launch(["true"], name="ok")
        _wait(lambda: find_run(info.id).status != "running")
        expect(find_run(info.id).status == "finished", f"true: {find_run(info.id).status}")
        ended_clean(find_run(info.id), "processes")

    def duplicates():
        a = launch(["sleep", "600"], name="dup")
        b = launch(["true"], name="dup")
        _wait(lambda: find_run(b.id).status == "finished")
        expect(find_run("dup").id == a.id, "duplicate name did not pick the running run")
        after = stop_run("dup", grace=2)
        expect(after.id == a.id and after.status == "stopped", "stop dup did not stop the running one")
        ended_clean(after, "processes")

    for fn in (leftover, torchrun_kill9, setsid_grandchild, supervisor_kill9, command_kill9, forged_pgid,
               finished_cmd, duplicates):
        run_case("processes", fn)


def corrupt_cases() -> None:
    from rocm_tune.core.runs import rundir as rd

    fields = [("pid", "123"), ("supervisor_pid", "x"), ("created_at", "y"), ("started_at", [1]), ("env", ["A"]),
              ("command", "s"), ("pgid", 2**40), ("pid", -5), ("total_steps", "n"), ("kind", "w"),
              ("id", "../e"), ("pid_start", "s"), ("created_at", float("nan")), ("created_at", float("inf")),
              ("cgroup", "/sys/fs/cgroup/unified"), ("main_exit", "x")]
    for field, value in fields:
        info = rd.create_run(["true"], name="c")
        p = Path(info.dir) / "run.json"
        meta = json.loads(p.read_text())
        meta[field] = value
        p.write_text(json.dumps(meta))
        for argv in (["runs", "--json"], ["runs"], ["attach", info.dir, "--once", "--json", "--no-gpus"],
                     ["stop", info.dir, "--grace", "0"]):
            cli_case("corrupt run.json", argv)
        shutil.rmtree(info.dir, ignore_errors=True)
    (Path(os.environ["XDG_STATE_HOME"]) / "rocm-tune" / "runs" / "garbage").mkdir(parents=True, exist_ok=True)
    (Path(os.environ["XDG_STATE_HOME"]) / "rocm-tune" / "runs" / "garbage" / "run.json").write_text("{nope")
    rc, out, _ = cli_case("corrupt run.json", ["runs", "--json"])
    if rc != 0 or '"corrupt"' not in out:
        note("corrupt run.json", "wrong_status", "a garbage run.json was not listed as corrupt")


def disk_full_cases(tmp: Path) -> None:
    from rocm_tune.core.runs.launch.launcher import launch
    from rocm_tune.core.runs.registry import find_run, list_runs

    mnt = tmp / "full"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)],
                                           capture_output=True).returncode != 0:
        NOTES.append("[disk full] skipped: cannot mount a tmpfs here (needs root)")
        return
    try:
        with open(mnt / "fill", "wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * 4096)
            except OSError:
                pass
        before = {r.id for r in list_runs()}
        rc, _, err = cli_case("disk full", ["run", "--name", "orphan", "--dir", str(mnt / "r"), "--", "sleep", "1234.5"])
        if rc != 2 or "disk full" not in err:
            note("disk full", "wrong_status", f"run on a full disk: rc {rc} {err[-200:]}")
        if {r.id for r in list_runs()} != before:
            note("disk full", "wrong_status", "a run on a full disk stayed registered")
        os.unlink(mnt / "fill")
        STATS["disk full"]["cases"] += 1
        info = launch(["bash", "-c", f"cat /dev/zero > {mnt}/big; exit 1"], name="filler", run_dir=mnt / "r2")
        _wait(lambda: find_run(info.id).status != "running")
        r = find_run(info.id)
        if r.status != "failed" or not (r.reason or "").startswith("disk full"):
            note("disk full", "wrong_status", f"a run that filled its disk: {r.status} {r.reason}")
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and b"1234.5" in open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0"):
                note("disk full", "left", f"sleep 1234.5 runs as {pid} after a failed launch")
        except OSError:
            pass


def concurrency_cases(n: int = 20) -> None:
    from rocm_tune.core.runs import procs
    from rocm_tune.core.runs.launch.launcher import launch, stop_run

    infos, errors = [], []
    lock = threading.Lock()

    def start(i):
        try:
            r = launch(["sleep", "600"], name=f"c{i}")
            with lock:
                infos.append(r)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    ts = [threading.Thread(target=start, args=(i,)) for i in range(n)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    STATS["concurrency"]["cases"] += 2 * n
    stopped = []
    ts = [threading.Thread(target=lambda r=r: stopped.append(stop_run(r.id, grace=3))) for r in infos]
    [t.start() for t in ts]
    [t.join() for t in ts]
    for e in errors:
        note("concurrency", "tracebacks", repr(e))
    for s in stopped:
        if s.status != "stopped":
            note("concurrency", "wrong_status", f"{s.id}: {s.status}")
        left = procs.marked_processes(s.id)
        if left:
            note("concurrency", "left", f"{s.id}: {sorted(left)}")
            procs.signal_run(s.id, signal.SIGKILL)


# ---------------------------------------------------------------------------------------------- issue 25, 16-19


def sub_case(area: str, argv: list[str], *, env: dict | None = None, fsize: int | None = None,
             want2: bool = True) -> subprocess.CompletedProcess | None:
    """One `python -m rocm_tune ARGV` in a subprocess (60 s, 3 GiB of address space): a hang, a memory blow-up
    (MemoryError or killed), a traceback or (want2) anything but exit 2 with one line is counted."""
    import resource

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    STATS[area]["cases"] += 1
    try:
        p = subprocess.run([sys.executable, "-m", "rocm_tune", *argv], capture_output=True, text=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, preexec_fn=limits,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        note(area, "hangs", f"{argv}")
        return None
    if "MemoryError" in p.stderr or p.returncode < 0:
        note(area, "memory", f"{argv}: rc {p.returncode} {p.stderr[-200:]}")
    elif "Traceback" in p.stderr or p.returncode not in (0, 1, 2):
        note(area, "tracebacks", f"{argv}: {p.stderr[-300:]}")
    elif want2 and (p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1):
        note(area, "wrong_status", f"{argv}: rc {p.returncode} {p.stderr[-200:]}")
    return p


def _stopped_run(tmp: Path) -> tuple[str, Path]:
    data = tmp / "r25-data.json"
    data.write_text(json.dumps([{"instruction": "hi", "input": "", "output": "hello"}] * 8))
    b = tmp / "r25-bundle"
    subprocess.run([sys.executable, "-m", "rocm_tune", "export", "--dataset", str(data), "--model", "qwen2.5-0.5b",
                    "--gpu", "mi250x", "--gpus", "2", "--micro-batch", "4", "--effective-batch", "8", "--allow-unfit",
                    "-o", str(b)], capture_output=True, check=True)
    r = subprocess.run([sys.executable, "-m", "rocm_tune", "run", "--script", str(b / "run.sh"), "--json", "--env",
                        "LLAMAFACTORY_PYTHON=/bin/false"], capture_output=True, text=True, check=True)
    rid = json.loads(r.stdout)["id"]
    from rocm_tune.core.runs.registry import find_run

    _wait(lambda: find_run(rid).status != "running")
    return rid, b


def reader_cases(tmp: Path) -> None:
    """Every hostile file kind to every reader of check, explain, resume, the notify config, --notify,
    --dataset-name and --retry-oom --plan (issue 25 items 17-18)."""
    from tests.helpers_hostile import KINDS, make

    d = tmp / "r25"
    d.mkdir()
    good = d / "good.yaml"
    good.write_text("model_name_or_path: qwen2.5-0.5b\nstage: sft\nfinetuning_type: lora\ncutoff_len: 1024\n")
    findings = {("yaml", "1e400"), ("json", "list-for-str"), ("py", "deep")}  # check's findings, not bad input
    for fmt in ("yaml", "json", "py", "sh"):
        for k in KINDS[fmt]:
            p = make(k, d / f"c-{k}.{fmt}", fmt)
            sub_case("25 check", ["check", *([str(good)] if fmt == "json" else []), str(p), "--gpu", "mi50-32gb",
                                  "--no-app"], want2=(fmt, k) not in findings)
            p.unlink()
    for k in KINDS["log"]:
        p = make(k, d / f"e-{k}.log", "log")
        sub_case("25 explain", ["explain", str(p)], want2=k in ("fifo", "dev-zero"))
        p.unlink()
    for k in KINDS["json"]:
        o = d / f"out-{k}" / "checkpoint-5"
        o.mkdir(parents=True)
        make(k, o / "trainer_state.json", "json")
        sub_case("25 explain", ["explain", str(o.parent)], want2=False)
        make(k, d / f"plan-{k}.json", "json")
        sub_case("25 --retry-oom", ["run", "--retry-oom", "1", "--plan", str(d / f"plan-{k}.json"), "--dir",
                                    str(d / f"rp-{k}")])
        (d / f"di-{k}").mkdir()
        make(k, d / f"di-{k}" / "dataset_info.json", "json")
        sub_case("25 --dataset-name", ["plan", "--model", "qwen2.5-0.5b", "--gpu", "mi50-32gb", "--dataset-name",
                                       "d", "--dataset-dir", str(d / f"di-{k}")], want2=k not in ("list-for-str",
                                                                                                "long-line"))
    rid, _b = _stopped_run(tmp)
    for k in KINDS["toml"]:
        c = make(k, d / f"n-{k}.toml", "toml")
        for argv in (["resume", rid, "--dry-run"], ["run", "--dir", str(d / f"rn-{k}"), "--", "true"]):
            sub_case("25 notify config", argv, env={"ROCM_TUNE_CONFIG": str(c)})
    for url in ("http://[::1", "http://host:port/", "https://exa mple.com/x", "slack:http://[x", "http://"):
        sub_case("25 --notify URL", ["resume", rid, "--dry-run", "--notify", url])
        sub_case("25 --notify URL", ["run", "--notify", url, "--dir", str(d / "rnu"), "--", "true"])
    n = 100
    for name, fmt in (("trainer_state.json", "json"), ("adapter_model.safetensors", "safetensors"),
                      ("model.safetensors.index.json", "json"), ("latest", "text")):
        for k in KINDS[fmt]:
            n += 1
            ck = d / "cks" / f"checkpoint-{n}"
            ck.mkdir(parents=True)
            make(k, ck / name, fmt)
            sub_case("25 resume", ["resume", rid, "--checkpoint", str(ck), "--dry-run"])


def other_cases(tmp: Path) -> None:
    """Item 19: --fix on a full disk (RLIMIT_FSIZE) and on a Python program; PIDs in other scripts' digits."""
    d = tmp / "r25-fix"
    d.mkdir()
    cfg = d / "train.yaml"
    cfg.write_text("model_name_or_path: qwen2.5-7b\nstage: sft\nfinetuning_type: full\ncutoff_len: 4096\n"
                   "per_device_train_batch_size: 16\nbf16: true\n# " + "x" * 8192 + "\n")
    (d / "fixed").mkdir()
    sub_case("25 --fix", ["check", str(cfg), "--gpu", "mi50-32gb", "--fix", str(d / "fixed")], fsize=4096)
    if os.listdir(d / "fixed"):
        note("25 --fix", "wrong_status", f"a full disk left {os.listdir(d / 'fixed')}")
    prog = d / "train.py"
    prog.write_text("from transformers import TrainingArguments\nargs = TrainingArguments(output_dir='o', "
                    "per_device_train_batch_size=64, bf16=True)\n")
    p = sub_case("25 --fix", ["check", str(prog), "--gpu", "mi50-32gb", "--model", "qwen2.5-7b", "--fix",
                              str(d / "pyfix")], want2=False)
    for f in (d / "pyfix").glob("*.py") if (d / "pyfix").is_dir() else ():
        if any(x.lstrip().startswith("--") for x in f.read_text().splitlines()):
            note("25 --fix", "wrong_status", f"{f.name}: shell lines written into a Python program")
    del p
    for pid in ("\u00b2", "\u0663", "\uff11\uff12"):
        sub_case("25 PIDs", ["explain", pid])


def signal_cases(tmp: Path) -> None:
    """Item 16: explain PID / LOG / --stacks against processes that are not runs; none may be signalled."""
    for kind in ("sleep", "bash", "python"):
        hit, log = tmp / f"sig-{kind}.hit", tmp / f"sig-{kind}.log"
        argv = {"sleep": ["sleep", "300"],
                "bash": ["bash", "-c", f"trap 'echo x >> {hit}' USR2; echo \"{{'loss': 1.0}}\"; "
                                       "while true; do sleep 0.2; done"],
                "python": [sys.executable, "-c", f"import faulthandler, signal, time\nfh = open({str(hit)!r}, 'w')\n"
                           "faulthandler.register(signal.SIGUSR2, file=fh)\nprint(\"{'loss': 1.0}\", flush=True)\n"
                           "time.sleep(300)\n"]}[kind]
        with open(log, "w") as out:
            proc = subprocess.Popen(argv, stdout=out, stderr=out, start_new_session=True,
                                    env={k: v for k, v in os.environ.items() if k != "ROCM_TUNE_RUN_ID"})
        time.sleep(1.0)
        for a in (["explain", str(proc.pid), "--stacks"], ["explain", str(log), "--stacks"],
                  ["explain", str(proc.pid), "--stall-s", "0"]):
            sub_case("25 signals", a, want2=False)
            time.sleep(0.3)
            if proc.poll() is not None or (hit.exists() and hit.read_text()):
                note("25 signals", "signalled", f"{kind} by {a}")
                break
        proc.kill()
        proc.wait()


def _ours(pid: int, tmp: Path) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return str(tmp).encode() in fh.read()
    except OSError:
        return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--arg-cases", type=int, default=1000)
    ap.add_argument("--quick", action="store_true", help="120 argument cases, 5 concurrent runs")
    ap.add_argument("--only-25", action="store_true", help="only the issue-25 areas (readers, --fix, PIDs, signals)")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rocm-tune-hostile-"))
    os.environ["XDG_STATE_HOME"] = str(tmp / "state")
    os.environ["ROCM_TUNE_FAKE_GPUS"] = "mi50-32gb:2"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    cwd = tmp / "cwd"
    cwd.mkdir()
    os.chdir(cwd)
    t0 = time.time()
    files = hostile_files(tmp)
    rng = random.Random(a.seed)
    if not a.only_25:
        arg_cases(files, tmp, 120 if a.quick else a.arg_cases, rng)
        file_cases(files, tmp)
        corrupt_cases()
        process_cases(tmp)
        disk_full_cases(tmp)
        concurrency_cases(5 if a.quick else 20)
    reader_cases(tmp)
    other_cases(tmp)
    signal_cases(tmp)
    # nothing any case started may still run
    from rocm_tune.core.runs import procs

    for rid, pids in procs.scan_marked().items():
        if any(_ours(p, tmp) for p in pids):
            note("all", "left", f"run {rid}: {sorted(pids)}")
            procs.signal_run(rid, signal.SIGKILL)
    print(f"hostile cases (seed {a.seed}), {time.time() - t0:.0f} s on {os.cpu_count()} CPUs, no GPU")
    heads = ("cases", "tracebacks", "wrong status", "left behind", "hangs", "memory", "signalled")
    print(f"{'area':<22}" + "".join(f"{h:>{len(h) + 2}}" for h in heads))
    tot = {k: sum(s[k] for s in STATS.values()) for k in COLUMNS}
    for area, s in list(STATS.items()) + [("total", tot)]:
        print(f"{area:<22}" + "".join(f"{s[k]:>{len(h) + 2}}" for k, h in zip(COLUMNS, heads)))
    for n in NOTES:
        print("  " + n)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0 if not any(tot[k] for k in COLUMNS[1:]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
