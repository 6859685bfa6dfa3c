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
    from rocm_tune.core.memory.estimate import estimate
    from rocm_tune.core.model.architecture import load_model

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
    assert f"{len(gpu_truth.CONFIGS)} configurations, none measured" in proc.stdout


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


def test_the_estimate_against_the_committed_h200_measurements():
    """The H200 table (benchmarks/results/gpu_truth-nvidia-h200.md, 2026-11-27) holds real max_memory_allocated of
    40 configurations; the estimate is scored again on them now, so an estimator change that moves away from the
    measured truth fails here without a GPU. Bounds: the issue's median target (3 %), and the worst row as measured
    when the table was committed (llama-3.2-1b eager S4096: -18.4 %; ZeRO-3 + optimizer offload: +17.6 %)."""
    import statistics

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import gpu_truth
    finally:
        sys.path.pop(0)
    _header, rows = gpu_truth.read_table(ROOT / "benchmarks" / "results" / "gpu_truth-nvidia-h200.md")
    measured = [r for r in rows if r.measured_peak]
    assert len(measured) >= 40
    errors = {f"{r.model} {gpu_truth.describe(r.config)}": r.error(r.analytic_peak, r.measured_peak)
              for r in measured}
    assert statistics.median(abs(e) for e in errors.values()) <= 0.03, errors
    assert max(abs(e) for e in errors.values()) <= 0.20, errors
    # DeepSpeed ZeRO without offload: within 10 % (was -39 % to -77 % before each row ran in its own process)
    zero = {k: e for k, e in errors.items() if " zero" in k and "offload" not in k}
    assert len(zero) == 4 and all(abs(e) <= 0.10 for e in zero.values()), zero
