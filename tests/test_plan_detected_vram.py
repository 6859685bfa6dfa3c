"""A detected card matched to a profile by its architecture alone is planned with the memory it reports, not the
profile's: a Quadro P4000 (sm_61, 8 GB) shares the Tesla P40's architecture (24 GB) - planning it for 24 GB would put a
wrong number on every screen. Driven as a user would: `rocm-tune plan --json` on a machine whose GPUs come from a
replay file (ROCM_TUNE_REPLAY, the project's recorded-sample backend), and the name matcher on real device names."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from rocm_tune.core.hardware.devices.matching import match_profile
from rocm_tune.core.units import GIB
from rocm_tune.profiles.gpu_profiles import get_gpu_profile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _replay(tmp_path, name: str, pid: str, arch: str, total: int) -> str:
    gpu = {"index": 0, "name": name, "profile_id": pid, "arch": arch, "vram_total_bytes": total,
           "vram_used_bytes": 0, "util_percent": 0.0, "timestamp": 0.0, "processes": []}
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"format": "rocm-tune-replay", "version": 1, "synthetic": True, "interval_s": 1.0,
                                "frames": [{"t": 0, "gpus": [gpu]}]}))
    return str(path)


def _plan(tmp_path, replay: str) -> dict:
    env = {**os.environ, "ROCM_TUNE_REPLAY": replay, "PYTHONPATH": ROOT, "HF_HUB_OFFLINE": "1"}
    env.pop("ROCM_TUNE_FAKE_GPUS", None)
    p = subprocess.run([sys.executable, "-m", "rocm_tune", "plan", "--model", "qwen2.5-0.5b", "--json"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["hardware"]


def test_a_card_matched_by_architecture_is_planned_with_its_own_memory(tmp_path):
    hw = _plan(tmp_path, _replay(tmp_path, "Quadro P4000", "p40", "sm_61", 8 * GIB))
    assert hw["gpu"] == "p40"
    assert hw["vram_bytes"] == 8 * GIB            # not the P40's 24 GB
    assert get_gpu_profile("p40").vram_bytes > 20 * GIB


def test_a_card_reporting_its_profiles_memory_keeps_the_profiles_figure(tmp_path):
    # drivers report a little less than the nominal size: the profile's figure (what torch sees) stays
    prof = get_gpu_profile("mi50-32gb")
    hw = _plan(tmp_path, _replay(tmp_path, "AMD Instinct MI50 32GB", "mi50-32gb", "gfx906", 32 * GIB))
    assert hw["vram_bytes"] == prof.vram_bytes


def test_a_longer_model_number_is_no_name_hit():
    # "P40" is not a name of the Quadro P4000, "A10" not of the A100: the profile comes from the architecture
    # (and the memory above), or from the longer name
    assert match_profile("NVIDIA A100-SXM4-80GB", "sm_80", 80 * GIB) == "a100-80gb"
    assert match_profile("NVIDIA A10G", "sm_86", 22 * GIB) == "a10g"
    assert match_profile("Tesla P40", "sm_61", 24 * GIB) == "p40"
    from rocm_tune.core.hardware.devices.matching import _name_hit
    assert not _name_hit("p40", "quadrop4000")
    assert _name_hit("p40", "teslap40")
    assert _name_hit("a100", "nvidiaa100sxm480gb")
    assert not _name_hit("a10", "nvidiaa100sxm4")
