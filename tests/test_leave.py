"""callbacks.leave: a finished rank of a multi-process job exits with its code after the exit handlers ran and its
output was flushed, without the interpreter's teardown (where gloo can abort a finished rank: "terminate called
without an active exception", seen in this suite's 2-process runs); one process returns to its caller."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = (
    "import atexit, sys\n"
    "from rocm_tune.train.callbacks import leave\n"
    "atexit.register(lambda: print('exit handler ran', flush=True))\n"
    "class Teardown:\n"
    "    def __del__(self):\n"
    "        print('interpreter teardown ran', flush=True)\n"
    "keep = Teardown()\n"
    "sys.stdout.write('unflushed line\\n')\n"
    "leave(3)\n"
    "print('returned to the caller', flush=True)\n"
    "sys.exit(5)\n"
)


def _run(world: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "WORLD_SIZE"}
    if world is not None:
        env["WORLD_SIZE"] = world
    return subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, timeout=120)


def test_a_rank_of_a_multi_process_job_leaves_with_its_code_after_the_exit_handlers():
    r = _run("2")
    assert r.returncode == 3, r.stderr
    lines = r.stdout.splitlines()
    assert lines == ["unflushed line", "exit handler ran"], lines  # flushed; no teardown, nothing after leave


def test_one_process_returns_and_exits_as_usual():
    for world in (None, "1", "junk"):
        r = _run(world)
        assert r.returncode == 5, r.stderr
        assert r.stdout.splitlines()[:2] == ["unflushed line", "returned to the caller"], r.stdout
        assert r.stdout.splitlines()[2:] == ["exit handler ran", "interpreter teardown ran"], r.stdout
