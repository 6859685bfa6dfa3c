"""`rocm-tune gpus` as a real subprocess: no-GPU message, fake/replay GPUs, watch, profiles, record."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import run_cli

REPLAY = Path(__file__).resolve().parents[1] / "rocm_tune/profiles/replay/mi50-32gb-x2-lora-fp32.json"
CLEAN = {"ROCM_TUNE_FAKE_GPUS": "", "ROCM_TUNE_REPLAY": "", "PATH": os.path.dirname(os.sys.executable)}


def test_no_gpu_says_so_and_lists_backends():
    p = run_cli("gpus", env=CLEAN)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("No GPU found on this machine.")
    for name in ("amdsmi", "amd-smi", "rocm-smi", "hy-smi", "sysfs", "nvml", "nvidia-smi", "torch"):
        assert f"  {name} " in p.stdout
    j = json.loads(run_cli("gpus", "--json", env=CLEAN).stdout)
    assert j["backend"] == "none" and j["count"] == 0 and len(j["tried"]) == 8


def test_fake_gpus_json_and_table():
    p = run_cli("gpus", "--json", env={"ROCM_TUNE_FAKE_GPUS": "mi250x:4"})
    d = json.loads(p.stdout)
    assert d["backend"] == "fake" and d["count"] == 4
    g = d["gpus"][0]
    assert g["profile_id"] == "mi250x" and g["vram_total_bytes"] == 64 * 2**30 and g["profile"]["bf16"] == "native"
    t = run_cli("gpus", env={"ROCM_TUNE_FAKE_GPUS": "mi250x:4"})
    assert "4 GPU(s) via backend fake" in t.stdout and "gfx90a" in t.stdout


def test_replay_watch_counts_and_stops():
    p = run_cli("gpus", "--watch", "--count", "2", "--interval", "0.1", env={"ROCM_TUNE_REPLAY": str(REPLAY)})
    assert p.returncode == 0
    assert p.stdout.count("2 GPU(s) via backend replay") == 2 and "mi50-32gb" in p.stdout
    j = run_cli("gpus", "--watch", "--json", "--count", "3", "--interval", "0.1", env={"ROCM_TUNE_REPLAY": str(REPLAY)})
    lines = j.stdout.strip().splitlines()
    assert len(lines) == 3 and all(json.loads(x)["backend"] == "replay" for x in lines)


def test_profiles_table_json_and_show():
    p = run_cli("gpus", "--profiles")
    assert "mi50-32gb" in p.stdout and "rtx5090" in p.stdout and "profiles." in p.stdout
    d = json.loads(run_cli("gpus", "--profiles", "--json").stdout)
    ids = [x["id"] for x in d["profiles"]]
    assert "k100-ai" in ids and all(x["sources"] for x in d["profiles"])
    s = run_cli("gpus", "--show", "Instinct MI50 (16GB)")
    assert "mi50-16gb" in s.stdout and "sources:" in s.stdout
    bad = run_cli("gpus", "--show", "mi5O")
    assert bad.returncode == 2 and "did you mean" in bad.stderr and "Traceback" not in bad.stderr


def test_bad_inputs_exit_2():
    for args, env in ((("--backend", "cuda"), None), (("--interval", "-1"), None),
                      ((), {"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:many"}), ((), {"ROCM_TUNE_REPLAY": "/no/such.json"})):
        p = run_cli("gpus", *args, env=env)
        assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.count("\n") == 1, (args, p.stderr)


def test_record_then_replay(tmp_path):
    out = tmp_path / "rec.json"
    env = {"ROCM_TUNE_FAKE_GPUS": "h100-sxm:2"}
    p = run_cli("gpus", "--record", str(out), "--frames", "3", "--interval", "0.1", env=env)
    assert p.returncode == 0 and out.exists()
    doc = json.loads(out.read_text())
    assert len(doc["frames"]) == 3 and len(doc["frames"][0]["gpus"]) == 2
    again = run_cli("gpus", "--record", str(out), env=env)
    assert again.returncode == 2 and "--force" in again.stderr
    r = json.loads(run_cli("gpus", "--json", env={"ROCM_TUNE_REPLAY": str(out)}).stdout)
    assert r["count"] == 2 and r["gpus"][0]["profile_id"] == "h100-sxm"
