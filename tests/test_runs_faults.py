"""Fault injection for runs (issue 15): processes that outlive their command, kill -9 of the launcher,
the supervisor or the command, a full disk under the run dir and under the state dir, corrupted
run.json fields, pid reuse and forged pgids, duplicate names, and 20 concurrent launches/stops.

Every test makes its condition happen by construction and polls for the outcome with generous
timeouts; nothing asserts on durations. "Left behind" is checked with the same /proc scan
`rocm-tune` uses (the ROCM_TUNE_RUN_ID marker) and with the pids the test's processes wrote.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rocm_tune.core.runs import procs
from rocm_tune.core.runs import rundir as rd
from rocm_tune.core.runs.launch.launcher import launch, stop_run
from rocm_tune.core.runs.registry import find_run, list_runs, runs_root
from tests.conftest import run_cli
from tests.helpers_train import wait_for


def alive(pid: int) -> bool:
    return rd.proc_stat(pid) is not None


def left_behind(run_id: str) -> dict[int, int]:
    return procs.marked_processes(run_id)


def read_pid(path: Path, timeout: float = 30.0) -> int:
    assert wait_for(lambda: path.exists() and path.read_text().strip().isdigit(), timeout=timeout), path
    return int(path.read_text().strip())


def cleanup(*pids: int) -> None:
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


LOOP = "import sys, time\nwhile True:\n    open(sys.argv[1], 'a').write('x'); time.sleep(0.05)\n"


# ---------------------------------------------------------------------------------------------- item 1


@pytest.mark.slow
def test_a_background_process_keeps_the_run_running_and_stop_ends_it(tmp_path):
    loop = tmp_path / "loop.py"
    loop.write_text(LOOP)
    hb = tmp_path / "hb"
    info = launch(["bash", "-c", f"{sys.executable} {loop} {hb} & echo $! > {tmp_path}/bg; sleep 0.2; exit 0"],
                  name="leftover")
    bg = read_pid(tmp_path / "bg")
    # the command exits 0 but its child still runs: the run is not over
    assert wait_for(lambda: "main process exited (0)" in (find_run(info.id).note or ""), timeout=60)
    r = find_run(info.id)
    assert r.status == "running" and r.processes >= 1 and alive(bg)
    out = run_cli("stop", "leftover", "--grace", "5")
    assert out.returncode == 0, out.stderr
    assert wait_for(lambda: not alive(bg), timeout=30)
    after = find_run(info.id)
    assert after.status == "stopped" and after.stopped_by_user and not left_behind(info.id)


@pytest.mark.slow
def test_workers_in_their_own_session_survive_a_kill_9_of_the_launcher_and_stop_reaches_them(tmp_path):
    """torchrun-like: workers with start_new_session=True; the OOM killer SIGKILLs the launcher."""
    prog = tmp_path / "torchrun_like.py"
    prog.write_text(
        "import subprocess, sys, os, time\n"
        "d = sys.argv[1]\n"
        "ws = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'], start_new_session=True)"
        " for _ in range(2)]\n"
        "open(os.path.join(d, 'workers'), 'w').write(' '.join(str(w.pid) for w in ws))\n"
        "open(os.path.join(d, 'launcher'), 'w').write(str(os.getpid()))\n"
        "time.sleep(600)\n")
    info = launch([sys.executable, str(prog), str(tmp_path)], name="torchrun")
    launcher = read_pid(tmp_path / "launcher")
    workers = [int(x) for x in (tmp_path / "workers").read_text().split()]
    try:
        os.kill(launcher, signal.SIGKILL)
        assert wait_for(lambda: (find_run(info.id).note or "").startswith("main process exited (-9)"), timeout=60)
        r = find_run(info.id)
        assert r.status == "running" and r.processes == 2  # not "failed(137)" while the workers run on
        after = stop_run(info.id, grace=5)
        assert wait_for(lambda: not any(alive(w) for w in workers), timeout=30)
        assert after.status == "stopped" and not left_behind(info.id)
    finally:
        cleanup(launcher, *workers)


@pytest.mark.slow
def test_a_double_forked_setsid_grandchild_is_stopped(tmp_path):
    info = launch(["bash", "-c", f"setsid bash -c 'sleep 600 & echo $! > {tmp_path}/gc; wait' < /dev/null "
                   f"> /dev/null 2>&1 & sleep 600"], name="daemon")
    gc = read_pid(tmp_path / "gc")
    try:
        assert os.getsid(gc) != os.getsid(info.pid)  # it left the run's session
        after = stop_run(info.id, grace=5)
        assert wait_for(lambda: not alive(gc), timeout=30)
        assert after.status == "stopped" and not left_behind(info.id)
    finally:
        cleanup(gc)


@pytest.mark.slow
def test_kill_9_of_the_supervisor_leaves_the_run_stoppable(tmp_path):
    info = launch(["sleep", "600"], name="nosup")
    sup = info.supervisor_pid
    os.kill(sup, signal.SIGKILL)
    assert wait_for(lambda: not alive(sup), timeout=30)
    r = find_run(info.id)
    assert r.status == "running" and "supervisor gone" in (r.note or "")
    after = stop_run(info.id, grace=5)
    assert after.status == "stopped" and not alive(info.pid) and not left_behind(info.id)


@pytest.mark.slow
def test_kill_9_of_the_command_is_failed_and_says_sigkill(tmp_path):
    info = launch(["sleep", "600"], name="oomed")
    os.kill(info.pid, signal.SIGKILL)
    assert wait_for(lambda: find_run(info.id).status != "running", timeout=60)
    r = find_run(info.id)
    assert (r.status, r.returncode, r.signal) == ("failed", 137, signal.SIGKILL)
    assert "SIGKILL" in r.reason or "out-of-memory" in r.reason
    human = run_cli("runs")
    assert "failed(137)" in human.stdout and ("SIGKILL" in human.stdout or "out-of-memory" in human.stdout)


@pytest.mark.slow
def test_a_failed_command_names_its_error_line(tmp_path):
    info = launch([sys.executable, "-c", "raise ValueError(\"Your setup doesn't support bf16/gpu.\")"], name="bf16")
    assert wait_for(lambda: find_run(info.id).status == "failed", timeout=60)
    r = find_run(info.id)
    assert r.reason == "ValueError: Your setup doesn't support bf16/gpu."
    snap = json.loads(run_cli("attach", info.id, "--once", "--json", "--no-gpus").stdout)
    assert snap["status"] == "failed" and "bf16/gpu" in snap["reason"]


# ---------------------------------------------------------------------------------------------- item 2 / 5


def _tmpfs(path: Path, size: str = "64k") -> bool:
    """Mount a small tmpfs (root only); False when the system does not allow it."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    return res.returncode == 0


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _fill(path: Path, leave: int = 0) -> None:
    """Fill the filesystem of `path` until at most `leave` bytes are free (by construction, via ENOSPC)."""
    with open(path / "filler", "wb") as fh:
        try:
            while True:
                st = os.statvfs(path)
                free = st.f_bavail * st.f_frsize
                if free <= leave:
                    break
                fh.write(b"\0" * min(4096, max(1, free - leave)))
                fh.flush()
        except OSError:
            pass


@pytest.fixture
def full_fs(tmp_path):
    mnt = tmp_path / "mnt"
    if not _tmpfs(mnt):
        pytest.skip("cannot mount a tmpfs here (needs root and mount); ENOSPC without a mount is tested below")
    yield mnt
    _umount(mnt)


def _no_process_with_arg(arg: str) -> bool:
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if arg.encode() in fh.read().split(b"\0"):
                    if alive(int(pid)):
                        return False
        except OSError:
            continue
    return True


@pytest.mark.slow
def test_run_dir_on_a_full_disk_starts_nothing_and_says_disk_full(full_fs):
    _fill(full_fs)
    out = run_cli("run", "--name", "orphan", "--dir", str(full_fs / "r"), "--", "sleep", "1234.5")
    assert out.returncode == 2 and "disk full" in out.stderr and out.stderr.strip().count("\n") == 0, out
    assert _no_process_with_arg("1234.5")
    assert not (full_fs / "r" / "run.json").exists()
    assert list_runs() == []


@pytest.mark.slow
def test_recording_fails_after_run_json_was_written_and_nothing_runs(full_fs):
    """run.json fits, the supervisor's own records do not: the gated command never runs."""
    (full_fs / "r").mkdir()
    _fill(full_fs, leave=8192)
    out = run_cli("run", "--name", "orphan", "--dir", str(full_fs / "r"), "--", "sleep", "1234.25")
    assert out.returncode == 2 and "disk full" in out.stderr, out
    assert _no_process_with_arg("1234.25")
    assert list_runs() == [] and not (full_fs / "r" / "run.json").exists()


@pytest.mark.slow
def test_state_dir_on_a_full_disk_is_one_line(full_fs):
    _fill(full_fs)
    out = run_cli("run", "--name", "x", "--", "sleep", "1234.75", env={"XDG_STATE_HOME": str(full_fs)})
    assert out.returncode == 2 and "disk full" in out.stderr and "Traceback" not in out.stderr, out
    assert _no_process_with_arg("1234.75")


@pytest.mark.slow
def test_a_run_that_fills_its_disk_is_failed_with_disk_full(full_fs):
    d = full_fs / "r"
    info = launch(["bash", "-c", f"cat /dev/zero > {d}/big; exit 1"], name="filler", run_dir=d)
    assert wait_for(lambda: find_run(info.id).status != "running", timeout=60)
    r = find_run(info.id)
    assert r.status == "failed" and r.reason and r.reason.startswith("disk full"), r


def test_enospc_without_a_mount_is_one_line_and_leaves_nothing(monkeypatch):
    """Where no tmpfs can be mounted: ENOSPC injected at the write of run.json (the OSError the kernel gives)."""
    import errno

    def full(path, obj, **kw):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    with monkeypatch.context() as m:  # (a plain undo() would also undo the private XDG_STATE_HOME)
        m.setattr(rd, "write_json_atomic", full)
        with pytest.raises(rd.UserError, match="^disk full: cannot write .*run.json"):
            rd.create_run_dir(["true"], name="nospace")
    assert list_runs() == [] and (not runs_root().exists() or not any(runs_root().iterdir()))


# ---------------------------------------------------------------------------------------------- item 4 / 15


BAD_FIELDS = [
    ("pid", "123"), ("supervisor_pid", "x"), ("created_at", "yesterday"), ("started_at", [1]),
    ("env", ["A=1"]), ("command", "sleep 5"), ("pgid", 2**40), ("pid", -5), ("total_steps", "many"),
    ("kind", "weird"), ("id", "../../etc"), ("pid_start", "soon"), ("created_at", float("nan")),
    ("created_at", float("inf")), ("cgroup", 5),
]


@pytest.mark.parametrize("field,value", BAD_FIELDS, ids=[f"{f}={v!r}" for f, v in BAD_FIELDS])
def test_a_corrupt_run_json_field_is_shown_corrupt_and_the_others_keep_working(field, value):
    good = rd.create_run(["true"], name="good")
    bad = rd.create_run(["true"], name="bad")
    path = Path(bad.dir) / "run.json"
    meta = json.loads(path.read_text())
    meta[field] = value
    path.write_text(json.dumps(meta))  # NaN/Infinity written as JSON's non-standard literals
    out = run_cli("runs", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout, parse_constant=lambda c: pytest.fail(f"invalid JSON constant {c}"))
    by_id = {r["id"]: r for r in data["runs"]}
    assert by_id[good.id]["status"] != "corrupt"
    corrupt = [r for r in data["runs"] if r["status"] == "corrupt"]
    assert len(corrupt) == 1 and field in corrupt[0]["problem"]
    human = run_cli("runs")
    assert human.returncode == 0 and "corrupt" in human.stdout and "Traceback" not in human.stderr
    for argv in (("attach", corrupt[0]["id"], "--once", "--json", "--no-gpus"), ("stop", corrupt[0]["id"])):
        r = run_cli(*argv)
        assert r.returncode in (0, 1, 2) and "Traceback" not in r.stderr, (argv, r.stderr)
        if r.returncode == 2:
            assert r.stderr.strip().count("\n") == 0
    assert run_cli("stop", good.id).returncode in (0, 1)


def test_created_at_nan_keeps_runs_json_valid():
    info = rd.create_run(["true"], name="nan")
    p = Path(info.dir) / "run.json"
    p.write_text(p.read_text().replace('"created_at": ', '"created_at": NaN, "x": ', 1))
    out = run_cli("runs", "--json")
    assert out.returncode == 0
    json.loads(out.stdout, parse_constant=lambda c: pytest.fail(f"invalid JSON constant {c}"))


@pytest.mark.slow
def test_stop_does_not_trust_a_forged_pgid_or_a_recycled_pid(tmp_path):
    info = launch(["sleep", "300"], name="v")
    outsider = subprocess.Popen(["setsid", "sleep", "600"])
    try:
        assert wait_for(lambda: alive(outsider.pid) and os.getpgid(outsider.pid) == outsider.pid, timeout=10)
        rd.update_run_json(info.dir, pgid=outsider.pid)  # someone edited run.json
        out = run_cli("stop", "v", "--grace", "2")
        assert out.returncode == 0, out.stderr
        assert not alive(info.pid) and outsider.poll() is None, "stop killed an unrelated process group"
        # now the recorded pid names the unrelated process (pid reuse / edit), without a start time
        rd.update_run_json(info.dir, pid=outsider.pid, pid_start=None, pgid=outsider.pid)
        os.unlink(Path(info.dir) / "exit.json")
        r = find_run(info.id)
        assert r.status == "lost" and r.processes == 0
        again = run_cli("stop", "v", "--grace", "1")
        assert again.returncode == 1 and outsider.poll() is None
        # with the unrelated process's real start time the run looks alive, yet stop signals nothing unconfirmed
        rd.update_run_json(info.dir, pid_start=rd.proc_start_time(outsider.pid))
        assert find_run(info.id).status == "running"
        stop_run(info.id, grace=0.5, wait_exit=0.5)
        assert outsider.poll() is None
    finally:
        outsider.kill()
        outsider.wait()


# ---------------------------------------------------------------------------------------------- item 10


@pytest.mark.slow
def test_duplicate_names_act_on_the_running_one_or_ask_for_the_id(tmp_path):
    older = launch(["sleep", "600"], name="dup")
    newer = launch(["true"], name="dup")
    assert wait_for(lambda: find_run(newer.id).status == "finished", timeout=60)
    out = run_cli("stop", "dup", "--grace", "2")
    assert out.returncode == 0 and older.id in out.stdout, out
    assert find_run(older.id).status == "stopped"
    a = launch(["sleep", "600"], name="twin")
    b = launch(["sleep", "600"], name="twin")
    try:
        r = run_cli("stop", "twin")
        assert r.returncode == 2 and "give the id" in r.stderr and a.id in r.stderr and b.id in r.stderr
        assert find_run(a.id).status == "running" and find_run(b.id).status == "running"
    finally:
        stop_run(a.id, grace=1)
        stop_run(b.id, grace=1)


def test_a_bare_name_prefers_the_registry_over_a_directory_of_that_name(tmp_path):
    info = rd.create_run(["true"], name="hd")
    (tmp_path / "hd").mkdir()
    (tmp_path / "hd" / "notes.txt").write_text("not a run")
    r = run_cli("attach", "hd", "--once", "--json", "--no-gpus", cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["run_id"] == info.id


# ---------------------------------------------------------------------------------------------- concurrency


@pytest.mark.slow
def test_twenty_concurrent_launches_and_stops():
    infos: list = []
    errors: list = []
    lock = threading.Lock()

    def start(i):
        try:
            r = launch(["sleep", "600"], name=f"c{i}")
            with lock:
                infos.append(r)
        except Exception as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start, args=(i,)) for i in range(20)]
    [t.start() for t in threads]
    [t.join(120) for t in threads]
    assert not errors and len(infos) == 20
    assert len({r.id for r in infos}) == 20
    assert sum(r.status == "running" for r in list_runs()) == 20
    stopped: list = []

    def stop(r):
        try:
            stopped.append(stop_run(r.id, grace=5))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=stop, args=(r,)) for r in infos]
    [t.start() for t in threads]
    [t.join(120) for t in threads]
    assert not errors and sorted(s.status for s in stopped) == ["stopped"] * 20
    assert all(not left_behind(r.id) for r in infos)
    assert all(r.status == "stopped" for r in list_runs())


def test_finite_fields_only_in_to_dict():
    info = rd.RunInfo(id="x", name="x", dir="/", status="lost", created_at=math.nan, loss=math.inf)
    d = info.to_dict()
    assert d["created_at"] is None and d["loss"] is None


def test_runs_shows_progress_and_loss_of_a_text_log_run():
    """Issue 12 item 10: a run without metrics.jsonl shows what its text log says (HF dicts, tqdm)."""
    info = rd.create_run(["python", "train.py"], name="textlog")
    lines = ["***** Running training *****", "  Total optimization steps = 40"]
    for s in range(1, 13):
        lines.append(f" {s * 100 // 40}%|##| {s}/40 [00:{s:02d}<00:30, 1.50s/it]")
        lines.append(f"{{'loss': {2.0 - s / 10:.4f}, 'grad_norm': 1.0, 'learning_rate': 0.0001, 'epoch': {s / 40}}}")
    (Path(info.dir) / "stdout.log").write_text("\n".join(lines) + "\n")
    r = [x for x in json.loads(run_cli("runs", "--json").stdout)["runs"] if x["id"] == info.id][0]
    assert r["step"] == 12 and r["total_steps"] == 40 and abs(r["loss"] - 0.8) < 1e-9
    human = run_cli("runs").stdout
    assert "12/40 30%" in human and "0.8" in human


def test_core_runs_has_no_import_cycle():
    """Issue 11: launcher <-> rundir <-> registry went through a facade at the end of rundir.py."""
    import ast

    base = Path(rd.__file__).parent
    prefix = "rocm_tune.core.runs."
    files = {".".join(f.relative_to(base).with_suffix("").parts).removesuffix(".__init__"): f
             for f in base.rglob("*.py")}   # runs/ and its packages (launch/, watch/, ...), by dotted name
    graph: dict[str, set[str]] = {}
    for mod, f in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(prefix[:-1]):
                base_mod = node.module[len(prefix):] if node.module != prefix[:-1] else ""
                for a in node.names:
                    sub = f"{base_mod}.{a.name}" if base_mod else a.name
                    deps.add(sub if sub in files else base_mod)
            elif isinstance(node, ast.Import):
                deps.update(a.name[len(prefix):] for a in node.names if a.name.startswith(prefix))
        graph[mod] = deps - {mod}

    def cycle_from(start):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    return path + [nxt]
                if nxt not in path:
                    stack.append((nxt, path + [nxt]))
        return None

    cycles = [c for c in (cycle_from(m) for m in graph) if c]
    assert cycles == [], cycles
