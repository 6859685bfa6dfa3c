"""Every launcher of the exported run.sh (torchrun, deepspeed, accelerate; 1 node x 2 processes and 2 nodes x 1
process) starts LLaMA-Factory with arguments it accepts: the real launchers from the realstack venv, two
local processes on gloo, one optimizer step of a tiny local model (issue 14 item 4)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.realstack.test_realstack import _free_port, _run_sh, _tiny_bundle

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3000)]


LAUNCH_CASES = {
    "torchrun-1node": (["--gpus", "2", "--launcher", "torchrun"], 1),
    "deepspeed-1node": (["--gpus", "2", "--launcher", "deepspeed"], 1),
    "accelerate-1node": (["--gpus", "2", "--launcher", "accelerate"], 1),
    "torchrun-2nodes": (["--gpus", "1", "--nodes", "2", "--launcher", "torchrun"], 2),
    "deepspeed-2nodes": (["--gpus", "1", "--nodes", "2", "--launcher", "deepspeed"], 2),
    "accelerate-2nodes": (["--gpus", "1", "--nodes", "2", "--launcher", "accelerate"], 2),
}


@pytest.mark.parametrize("case", list(LAUNCH_CASES))
def test_every_launcher_starts_llamafactory_with_arguments_it_accepts(realstack, tiny, data_file, tmp_path, case):
    """run.sh with the real launcher, two local processes on gloo (one per "GPU"; 2 nodes = two run.sh on
    this machine with NODE_RANK 0 and 1), LLaMA-Factory as the entry point, one optimizer step."""
    flags, nodes = LAUNCH_CASES[case]
    b = _tiny_bundle(tmp_path, tiny, data_file, *flags)
    port = str(_free_port())
    env = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port, "LOCAL_SIZE": "2" if nodes == 1 else "1",
           "CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""}
    for f in ("run.sh", "accelerate.yaml"):  # the exported port (29500) may be taken on a shared machine
        text = (b / f).read_text(encoding="utf-8")
        (b / f).write_text(text.replace("29500", port), encoding="utf-8")
    if case.startswith("torchrun"):
        # a training machine without rocm-tune: `import rocm_tune` fails there; the bundle's own lf_launch.py and
        # rocm_tune_callbacks.py must still start LLaMA-Factory and record measured memory
        shadow = tmp_path / "no-rocm-tune" / "rocm_tune"
        shadow.mkdir(parents=True)
        (shadow / "__init__.py").write_text('raise ImportError("rocm-tune is not installed on this machine")\n')
        env["PYTHONPATH"] = str(shadow.parent)
    procs = [_run_sh(realstack, b, "max_steps=1", env={**env, "NODE_RANK": str(i)})
             for i in range(nodes)]
    outs = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=900)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
        outs.append(out)
    for p, out in zip(procs, outs):
        assert p.returncode == 0, f"{case}: exit {p.returncode}\n{out[-6000:]}"
    text = "\n".join(outs)
    assert "world size: 2" in text and "distributed training: True" in text, text[-4000:]
    log = b / "output" / "trainer_log.jsonl"
    rows = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if x.strip()]
    assert rows and rows[-1]["current_steps"] == 1
    # every rank measured itself through the bundle's launcher: ranks/ in the output dir (no ROCM_TUNE_RUN_DIR here),
    # with the dtypes of the parameters it really trained (fp32 plan: frozen and trainable fp32)
    from rocm_tune.core.runs.watch.measured import read_measured

    m = read_measured(b / "output")
    assert m is not None and sorted(r.rank for r in m.ranks) == [0, 1], case
    for r in m.ranks:
        assert r.param_dtypes and set(r.param_dtypes["frozen"]) == {"float32"}, r
        assert set(r.param_dtypes["trainable"]) == {"float32"} and r.rss_bytes > 0, r
