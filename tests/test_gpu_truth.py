"""benchmarks/gpu_truth.py in its CPU dry run: the configurations, the estimates and the table it writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_gpu_truth_dry_run_writes_the_table(tmp_path):
    out = tmp_path / "truth.md"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_truth.py"), "--dry-run", "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    for key in ("- torch:", "- transformers:", "- gpu: none (dry run)"):
        assert key in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| model")]
    assert len(rows) >= 30
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import gpu_truth
    finally:
        sys.path.pop(0)
    from rocm_tune.core.memory import estimate
    from rocm_tune.core.model import load_model

    # every row carries the real analytic estimate, measured columns empty, status "dry run"
    for (preset, cfg), row in zip(gpu_truth.CONFIGS, rows):
        cells = [c.strip() for c in row.strip("|").split("|")]
        est = estimate(load_model(preset), cfg).per_gpu
        assert cells[0] == preset and cells[1] == gpu_truth.describe(cfg)
        assert cells[2] == f"{est.peak_allocated_bytes / 2**30:.2f}"
        assert cells[6] == f"{est.reserved_bytes / 2**30:.2f}"
        assert cells[4] == "-" and cells[-1] == "dry run"
    covered = {(cfg.method, cfg.precision, cfg.attn, cfg.gradient_checkpointing, cfg.zero_stage)
               for _, cfg in gpu_truth.CONFIGS}
    assert {m for m, *_ in covered} == {"lora", "full", "freeze"}
    assert {p for _, p, *_ in covered} == {"fp32", "bf16", "fp16", "pure_bf16"}
    assert {a for _, _, a, *_ in covered} == {"sdpa", "eager"} and {z for *_, z in covered} >= {0, 2, 3}
    assert "36 configurations, none measured" in proc.stdout


def test_gpu_truth_refuses_without_a_gpu():
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed here")
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is visible: the script would run for real")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_truth.py"), "--limit", "1"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 2 and "use --dry-run" in proc.stderr
