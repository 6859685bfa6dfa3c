"""The detached launcher, supervisor, registry and stop, with real processes."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rocm_tune.core.errors import UserError
from rocm_tune.core.runs import rundir as rd
from rocm_tune.core.runs.launch.launcher import launch, stop_run
from rocm_tune.core.runs.registry import find_run, list_runs, runs_root
from tests.conftest import run_cli
from tests.helpers_train import wait_for


def alive(pid: int) -> bool:
    return rd.proc_stat(pid) is not None


HEARTBEAT = "import time,sys\nwhile True:\n    open(sys.argv[1],'a').write('x'); time.sleep(0.05)\n"


def test_run_survives_hangup_and_kill_of_its_terminal(tmp_path):
    """A run started from a terminal keeps going when the terminal hangs up and its shell is SIGKILLed."""
    hb = tmp_path / "hb.txt"
    script = tmp_path / "hb.py"
    script.write_text(HEARTBEAT)
    inner = f"{sys.executable} -m rocm_tune run --name hb -- {sys.executable} {script} {hb}; sleep 60"
    pid, fd = pty.fork()
    if pid == 0:  # child: a login-like shell on a pseudo-terminal (its controlling terminal)
        os.execvpe("bash", ["bash", "-c", inner], dict(os.environ))
    out = b""
    end = time.time() + 30
    while b"dir:" not in out and time.time() < end:
        try:
            out += os.read(fd, 4096)
        except OSError:
            break
    run_id = out.decode().split()[0]
    info = find_run(run_id)
    assert info.status == "running"
    # the SSH session drops: SIGHUP to the shell's process group, close the terminal, then SIGKILL
    os.killpg(os.getpgid(pid), signal.SIGHUP)
    os.close(fd)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    size1 = wait_for(lambda: hb.exists() and hb.stat().st_size)
    time.sleep(0.6)
    size2 = hb.stat().st_size
    assert size2 > size1, "the run stopped writing after its terminal went away"
    info = find_run(run_id)
    assert info.status == "running" and alive(info.pid)
    assert info.pgid == info.pid and os.getpgid(info.pid) == info.pid  # its own process group
    assert os.getsid(info.pid) == info.pid  # and its own session
    after = stop_run(run_id, grace=2)
    assert after.status == "stopped"
    assert not alive(info.pid)


def test_stop_ends_the_whole_tree_and_nothing_else(tmp_path):
    pids = tmp_path / "pids"
    pids.mkdir()
    worker = tmp_path / "tree.py"
    worker.write_text(
        "import multiprocessing as mp, os, subprocess, sys, time\n"
        "d = sys.argv[1]\n"
        "def work(i):\n"
        "    open(os.path.join(d, f'w{i}'), 'w').write(str(os.getpid())); time.sleep(600)\n"
        "if __name__ == '__main__':\n"
        "    ps = [mp.Process(target=work, args=(i,)) for i in range(2)]\n"
        "    [p.start() for p in ps]\n"
        "    b = subprocess.Popen(['bash', '-c', 'sleep 600 & echo $! > ' + d + '/bg; wait'])\n"
        "    s = subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
        "    open(os.path.join(d, 'own_session'), 'w').write(str(s.pid))\n"
        "    open(os.path.join(d, 'main'), 'w').write(str(os.getpid()))\n"
        "    [p.join() for p in ps]\n"
    )
    outsider = subprocess.Popen(["sleep", "600"])  # not part of the run: must survive
    try:
        info = launch([sys.executable, str(worker), str(pids)], name="tree")
        assert wait_for(lambda: all((pids / f).exists() and (pids / f).read_text().strip()
                                    for f in ("w0", "w1", "bg", "main", "own_session")), timeout=30)
        tree = [int((pids / f).read_text()) for f in ("w0", "w1", "bg", "main", "own_session")]
        assert all(alive(p) for p in tree)
        t0 = time.time()
        after = stop_run(info.id, grace=3)
        assert time.time() - t0 < 12
        assert after.status == "stopped"
        assert wait_for(lambda: not any(alive(p) for p in tree), timeout=5)
        assert outsider.poll() is None, "stop touched a process outside the run's group"
        ex = json.loads((Path(after.dir) / "exit.json").read_text())
        assert ex["status"] == "stopped" and ex["signal"] == signal.SIGTERM
    finally:
        outsider.kill()
        outsider.wait()


def test_grace_then_sigkill_for_a_command_that_ignores_sigterm(tmp_path):
    info = launch(["bash", "-c", "trap '' TERM; echo ready; while true; do sleep 0.1; done"], name="stubborn")
    assert wait_for(lambda: "ready" in info.stdout_log.read_text())
    t0 = time.time()
    after = stop_run(info.id, grace=1)
    took = time.time() - t0
    assert 0.9 <= took < 8
    assert after.status == "stopped" and after.signal == signal.SIGKILL
    assert not alive(info.pid)


@pytest.mark.parametrize("code", [3, 1])
def test_crash_is_failed_with_its_exit_code(code):
    info = launch([sys.executable, "-c", f"import sys; print('boom', flush=True); sys.exit({code})"], name="crash")
    done = wait_for(lambda: find_run(info.id).status != "running")
    assert done
    r = find_run(info.id)
    assert (r.status, r.returncode, r.signal) == ("failed", code, None)
    assert "boom" in r.stdout_log.read_text()


def test_segfault_is_failed_with_signal():
    info = launch([sys.executable, "-c", "import os,signal; os.kill(os.getpid(), signal.SIGSEGV)"], name="segv")
    wait_for(lambda: find_run(info.id).status != "running")
    r = find_run(info.id)
    assert r.status == "failed" and r.signal == signal.SIGSEGV and r.returncode == 128 + signal.SIGSEGV


def test_two_runs_at_once_do_not_mix():
    prog = "import sys,time\nfor i in range(30):\n    print(sys.argv[1], i); time.sleep(0.01)\n"
    a = launch([sys.executable, "-c", prog, "AAA"], name="a")
    b = launch([sys.executable, "-c", prog, "BBB"], name="b")
    assert a.id != b.id and a.dir != b.dir
    wait_for(lambda: all(find_run(x.id).status == "finished" for x in (a, b)))
    la, lb = a.stdout_log.read_text().split("\n"), b.stdout_log.read_text().split("\n")
    assert [line for line in la if line] == [f"AAA {i}" for i in range(30)]
    assert [line for line in lb if line] == [f"BBB {i}" for i in range(30)]
    assert find_run("a").id == a.id and find_run("b").id == b.id


def test_env_cwd_and_unbuffered(tmp_path):
    info = launch([sys.executable, "-c", "import os; print(os.environ['FOO'], os.environ['PYTHONUNBUFFERED'], "
                   "os.getcwd(), os.environ['ROCM_TUNE_RUN_ID'])"], name="env", cwd=str(tmp_path), env={"FOO": "bar"})
    wait_for(lambda: find_run(info.id).status == "finished")
    out = info.stdout_log.read_text().split()
    assert out == ["bar", "1", str(tmp_path.resolve()), info.id]
    meta = json.loads((Path(info.dir) / "run.json").read_text())
    assert meta["env"] == {"FOO": "bar"}
    for key in ("id", "name", "command", "cwd", "env", "created_at", "started_at", "pid", "pgid",
                "supervisor_pid", "plan", "kind", "total_steps"):
        assert key in meta


def test_lost_when_pid_gone_or_recycled(tmp_path):
    run = rd.create_run(["sleep", "1"], name="ghost")
    p = subprocess.Popen(["true"])
    p.wait()
    rd.update_run_json(run.dir, pid=p.pid, pgid=p.pid, supervisor_pid=p.pid, started_at=time.time())
    assert find_run(run.id).status == "lost"
    # a live pid with another start time is a recycled pid, not our run
    me = os.getpid()
    rd.update_run_json(run.dir, pid=me, pid_start=rd.proc_start_time(me) + 1, supervisor_pid=None)
    assert find_run(run.id).status == "lost"
    rd.update_run_json(run.dir, pid_start=rd.proc_start_time(me))
    assert find_run(run.id).status == "running"


def test_find_run_by_prefix_name_dir_and_errors(tmp_path):
    own = tmp_path / "placed"
    r1 = launch(["true"], name="same")
    time.sleep(1.1)  # ids carry seconds; keep created_at distinct
    r2 = launch(["true"], name="same", run_dir=own)
    assert Path(r2.dir) == own.resolve()
    assert (runs_root() / f"{r2.id}.json").exists()  # pointer registered
    assert find_run("same").id == r2.id  # latest of that name
    assert find_run(str(own)).id == r2.id
    assert find_run(r1.id[:-2]).id == r1.id
    assert {r.id for r in list_runs()} == {r1.id, r2.id}
    with pytest.raises(UserError, match="no run 'nope'"):
        find_run("nope")
    with pytest.raises(UserError, match="ambiguous"):
        find_run(r1.id[:4])
    with pytest.raises(UserError, match="already holds a run"):
        launch(["true"], run_dir=own)


def test_cli_run_runs_stop(tmp_path):
    out = run_cli("run", "--name", "cli", "--env", "X=1", "--", "bash", "-c", "echo $X; sleep 30")
    assert out.returncode == 0, out.stderr
    run_id = out.stdout.split()[0]
    listing = run_cli("runs", "--json")
    data = json.loads(listing.stdout)
    assert [r["id"] for r in data["runs"]] == [run_id] and data["runs"][0]["status"] == "running"
    human = run_cli("runs")
    assert run_id in human.stdout and "running" in human.stdout
    st = run_cli("stop", "cli", "--grace", "2")
    assert st.returncode == 0, st.stderr
    assert "stopped" in st.stdout
    again = run_cli("stop", run_id)
    assert again.returncode == 1 and "not running" in again.stdout


def test_a_deliberate_stop_is_no_crash_alert(tmp_path):
    """`stop` ends the run as stopped by the user: attach reports that and raises no process-exited alert,
    while a crash of the same command does raise it."""
    out = run_cli("run", "--name", "calm", "--", "sleep", "300")
    assert out.returncode == 0, out.stderr
    assert run_cli("stop", "calm", "--grace", "2").returncode == 0
    snap = json.loads(run_cli("attach", "calm", "--once", "--json").stdout)
    assert snap["process"]["status"] == "stopped" and snap["process"]["stopped_by_user"] is True
    assert "process-exited" not in [a["code"] for a in snap["alerts"]]
    crash = run_cli("run", "--name", "crash", "--", "bash", "-c", "exit 3")
    assert crash.returncode == 0, crash.stderr
    wait_for(lambda: [r["status"] for r in json.loads(run_cli("runs", "--json").stdout)["runs"]
                      if r["name"] == "crash"] == ["failed"], timeout=60)
    snap = json.loads(run_cli("attach", "crash", "--once", "--json").stdout)
    assert snap["process"]["stopped_by_user"] is False
    assert "process-exited" in [a["code"] for a in snap["alerts"]]


@pytest.mark.parametrize("argv,needle", [
    (["run", "--", "no-such-command-xyz"], "'no-such-command-xyz' is not found"),
    (["run"], "give exactly one of"),
    (["run", "--env", "BAD", "--", "true"], "--env 'BAD'"),
    (["run", "--script", "/nonexistent/run.sh"], "does not exist"),
    (["stop", "unknown-run"], "no run 'unknown-run'"),
    (["stop", "x", "--grace", "-1"], "--grace"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, needle):
    out = run_cli(*argv)
    assert out.returncode == 2, out
    assert needle in out.stderr and out.stderr.strip().count("\n") == 0


def test_cli_run_script_and_dir(tmp_path):
    script = tmp_path / "job.sh"
    script.write_text("echo from-script $1 \"$GREETING\"\nexit 0\n")
    out = run_cli("run", "--script", str(script), "--env", "GREETING=hi", "--dir", str(tmp_path / "rd"), "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["kind"] == "script" and info["name"] == "job" and info["dir"] == str((tmp_path / "rd").resolve())
    wait_for(lambda: find_run(info["id"]).status == "finished")
    assert (tmp_path / "rd" / "stdout.log").read_text() == "from-script hi\n"
    ex = json.loads((tmp_path / "rd" / "exit.json").read_text())
    assert ex["status"] == "finished" and ex["returncode"] == 0 and ex["signal"] is None and ex["ended_at"] > 0
    # the placed run is listed through its pointer and found by its directory
    assert find_run(str(tmp_path / "rd")).id == info["id"]
    assert [r["id"] for r in json.loads(run_cli("runs", "--json", "--all").stdout)["runs"]] == [info["id"]]


def test_registry_ignores_garbage(tmp_path):
    root = runs_root()
    root.mkdir(parents=True, exist_ok=True)
    (root / "broken").mkdir()
    (root / "broken" / "run.json").write_text("{not json")
    (root / "pointer.json").write_text('{"dir": 5}')
    (root / "dangling.json").write_text(json.dumps({"id": "x", "dir": str(tmp_path / "gone")}))
    (root / "notes.txt").write_text("hello")
    good = launch(["true"], name="good")
    # a broken run.json is shown as `corrupt` with the reason (issue 15 item 4), never hidden;
    # pointers to nothing and other files are ignored
    listed = {r.id: r for r in list_runs()}
    assert set(listed) == {good.id, "broken"}
    assert listed["broken"].status == "corrupt" and "not valid JSON" in listed["broken"].problem
    assert rd.load_run(root / "broken").status == "corrupt"
    with pytest.raises(UserError, match="not a rocm-tune run directory"):
        rd.load_run(tmp_path)
    out = run_cli("runs")
    assert out.returncode == 0 and good.id in out.stdout and "corrupt" in out.stdout
