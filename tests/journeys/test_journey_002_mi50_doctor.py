"""Journey 002 (field report 002: a Docker recipe for MI50 + DeepSpeed ZeRO-2 + LLaMA-Factory).

The reader of report 002 is told to check `torch.cuda.is_bf16_supported()` — which answers True on every ROCm
GPU, MI50 included, where bf16 is emulated — and to build DeepSpeed's ops (`DS_BUILD_OPS=1`), which fails on ROCm
unless the CUDA-only ops are left out. `rocm-tune doctor` on that box must state both truths.

Run on CPU: the MI50 box is simulated through rocm-tune's own hook (`ROCM_TUNE_FAKE_GPUS=mi50-32gb:2`, the
device backend the doctor reads); the DeepSpeed that is installed is the real one of the real-stack venv, and the
box without DeepSpeed is this Python, which has none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO, run_cli
from tests.journeys.helpers import note

pytestmark = [pytest.mark.slow]

MI50_BOX = {"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2"}
# what `pip install deepspeed` needs on ROCm (report 000: `No module named 'dskernels'` otherwise)
MUST_FLAGS = ("DS_BUILD_CPU_ADAM=1", "DS_BUILD_FUSED_ADAM=1", "DS_BUILD_CUTLASS_OPS=0")


def _checks(stdout: str) -> dict:
    return {c["id"]: c for c in json.loads(stdout)["checks"]}


def _human_block(stdout: str, check_id: str) -> str:
    """The lines a user reads for one check: its status line and the indented lines under it."""
    out, inside = [], False
    for line in stdout.splitlines():
        if line.startswith("["):
            inside = line.split("]", 1)[1].split()[0] == check_id
        if inside:
            out.append(line)
    return "\n".join(out)


def test_doctor_on_a_simulated_mi50_box_without_deepspeed_states_the_build_flags_and_the_bf16_truth(
        record_property):
    """A fresh MI50 box, DeepSpeed not yet installed (the moment report 002's reader needs the flags)."""
    note(record_property, "002: MI50 box simulated with ROCM_TUNE_FAKE_GPUS=mi50-32gb:2 (no GPU here)")
    if subprocess.run([sys.executable, "-c", "import deepspeed"], capture_output=True, check=False).returncode == 0:
        pytest.skip("this Python has DeepSpeed; the box without it is not this one")
    human = run_cli("doctor", env=MI50_BOX)
    js = run_cli("doctor", "--json", env=MI50_BOX)
    assert human.returncode in (0, 1) and js.returncode in (0, 1), human.stderr + js.stderr
    assert "Traceback" not in human.stderr + js.stderr
    checks = _checks(js.stdout)
    assert checks["gpu-detected"]["status"] == "pass"
    # bf16: emulated on gfx906, said as a warning with the way out that really keeps fp32 under LLaMA-Factory
    bf16 = _human_block(human.stdout, "bf16")
    assert checks["bf16"]["status"] == "warn" and checks["bf16"]["code"] == "bf16-emulated"
    assert "emulated" in bf16 and "gfx906" in bf16, bf16
    assert "--compute-dtype fp32" in bf16 and "lf_launch" in bf16, bf16
    # DeepSpeed: the build flags are what the user needs before `pip install deepspeed`, so they are printed
    ds = _human_block(human.stdout, "deepspeed")
    assert ds, human.stdout
    for flag in MUST_FLAGS:
        assert flag in ds, f"`rocm-tune doctor` on an MI50 box without DeepSpeed does not show {flag}:\n{ds}"


def test_doctor_on_a_simulated_mi50_box_with_the_real_deepspeed(realstack, record_property):
    """The same box with DeepSpeed 0.19.8 (the real-stack venv's, built with DS_BUILD_OPS=0): the doctor reads the
    installed ops and says which build flags avoid the ROCm failures, and that LLaMA-Factory refuses this version
    unless told otherwise."""
    note(record_property, "002: MI50 box simulated with ROCM_TUNE_FAKE_GPUS; DeepSpeed from the real-stack venv")
    env = dict(os.environ, **MI50_BOX, PYTHONPATH=str(REPO))
    human = subprocess.run([realstack.python, "-m", "rocm_tune", "doctor"], capture_output=True, text=True, check=False,
                           env=env, timeout=300)
    js = subprocess.run([realstack.python, "-m", "rocm_tune", "doctor", "--json"], capture_output=True, text=True, check=False,
                        env=env, timeout=300)
    assert human.returncode in (0, 1) and js.returncode in (0, 1), human.stderr[-3000:]
    ds = _checks(js.stdout)["deepspeed"]
    assert ds["status"] == "warn" and ds["code"] == "deepspeed-rocm-build", ds
    assert any(e.startswith("deepspeed 0.19") for e in ds["evidence"]), ds
    assert any("pre-built ops: none" in e for e in ds["evidence"]), ds  # DS_BUILD_OPS=0: nothing pre-built
    block = _human_block(human.stdout, "deepspeed")
    for flag in MUST_FLAGS:
        assert flag in block, block
    assert "DISABLE_VERSION_CHECK=1" in block and "0.16.9" in block, block
    bf16 = _human_block(human.stdout, "bf16")
    assert "emulated" in bf16 and "--compute-dtype fp32" in bf16, bf16
