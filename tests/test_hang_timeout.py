"""A hung collective ends the job (issue 25 item 6): the bundle's two timeouts, and the mechanism proven on 2 gloo
processes where one rank never joins.

The bundle sets `ddp_timeout` (the process group's timeout while LLaMA-Factory preprocesses the dataset on the
local main process and the other ranks wait in a barrier) and `ROCM_TUNE_HANG_TIMEOUT` (what the launcher lowers it
to once the Trainer is built: `rocm_tune.train.callbacks.make_hang_timeout_callback`). The chosen figures are
asserted on the exported files; the mechanism runs for real with the bundle's ddp_timeout and a 5 s hang timeout
(a test cannot wait the bundle's 1800 s): if the lowering did not happen, the stuck all_reduce would wait the
7200 s setup timeout and the test's own time limit would fail it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest
import yaml

from rocm_tune.core.memory.checkpoint_size import MIN_HANG_TIMEOUT_S, SETUP_TIMEOUT_S, hang_timeout
from rocm_tune.core.export import bundle as B
from rocm_tune.core.export.common import HANG_ENV
from tests.test_export_bundle import OPTS, P, opts_for, plan_case


def _files(name: str) -> dict:
    return B.build_bundle(P(plan_case(name)), ("all",), opts_for(name, OPTS)).files


@pytest.mark.parametrize("case", ["mi50-ddp-fp32", "zero3-offload-2nodes", "builtin-ddp"])
def test_multi_gpu_bundle_has_a_finite_setup_timeout_and_a_hang_timeout(case):
    files = _files(case)
    cfg = yaml.safe_load(files["llamafactory.yaml"])
    assert cfg["ddp_timeout"] == SETUP_TIMEOUT_S == 7200  # was 180000000 (5.7 years): a hang never ended
    seconds, _ = hang_timeout(plan_case(case))
    for script in ("run.sh", "slurm.sbatch"):
        got = re.findall(rf"^export {HANG_ENV}=(\d+)$", files[script], re.M)
        assert got == [str(seconds)], script
    assert MIN_HANG_TIMEOUT_S <= seconds < SETUP_TIMEOUT_S


def test_one_gpu_bundle_sets_no_hang_timeout():
    files = _files("single-bf16")
    assert HANG_ENV not in files["run.sh"] and HANG_ENV not in files["slurm.sbatch"]


def test_hang_timeout_grows_with_the_checkpoint_save():
    small = plan_case("mi50-ddp-fp32")  # a LoRA adapter: the 1800 s floor
    assert hang_timeout(small)[0] == MIN_HANG_TIMEOUT_S
    big = plan_case("zero3-offload-2nodes")
    big["model"]["params_total"] = 405 * 10**9  # a 405B full fine-tune: weights + optimizer shards to write
    seconds, why = hang_timeout(big)
    assert seconds > MIN_HANG_TIMEOUT_S and "checkpoint save" in why


_WORKER = textwrap.dedent("""
    import datetime, os, sys, time
    import torch, torch.distributed as dist
    from rocm_tune.train import callbacks
    setup = int(sys.argv[1])
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=setup))
    rank = dist.get_rank()
    dist.barrier()                       # both ranks are up: the setup phase, under ddp_timeout
    hang = callbacks.hang_timeout_from_env()
    cb = callbacks.make_hang_timeout_callback(hang)
    cb.on_init_end(None, None, None)     # what the Trainer calls when it is built
    if rank == 1:
        time.sleep(3 * 3600)             # never joins the next collective
    t0 = time.monotonic()
    try:
        dist.all_reduce(torch.ones(1))
    except Exception as exc:
        print(f"rank0 collective ended after {time.monotonic() - t0:.1f}s: {type(exc).__name__}", flush=True)
        os._exit(3)
    print("rank0 collective completed", flush=True)
    os._exit(0)
""")


def test_stuck_collective_ends_within_the_hang_timeout(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(_WORKER)
    env = dict(os.environ, **{HANG_ENV: "5"}, PYTHONPATH=os.pathsep.join(
        [str(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nnodes", "1", "--nproc_per_node", "2",
           str(script), str(SETUP_TIMEOUT_S)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240, cwd=tmp_path)
    out = p.stdout + p.stderr
    assert "rank0 collective completed" not in out
    m = re.search(r"rank0 collective ended after ([0-9.]+)s", out)
    assert m, out[-3000:]
    assert float(m.group(1)) < SETUP_TIMEOUT_S  # ended by the lowered timeout, not the setup one
    assert p.returncode != 0  # torchrun reports the failed rank: the job ends
