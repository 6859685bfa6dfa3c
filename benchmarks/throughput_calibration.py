"""Predicted vs measured training speed for the runs in field report 000 (shared/knowledge/field-notes.md).

Qwen2.5-7B-Instruct, LoRA rank 64 on every linear, cutoff_len 1024, AMD MI50 32GB (gfx906):
  fp32, 2 GPUs DDP, micro-batch 1, accumulation 32, gradient checkpointing      340 s/it
  fp16, 2 GPUs DeepSpeed ZeRO-2, same batch                                       253 s/it
  bf16 (emulated), 2 GPUs DeepSpeed ZeRO-2, same batch                            700+ s/it
  fp16, 1 GPU, micro-batch 8, no checkpointing, no accumulation                   24 s/it
Assumption: samples fill the 1024-token cutoff (the report does not give its dataset's lengths).

Usage: python benchmarks/throughput_calibration.py [--json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rocm_tune.core.plan import throughput as tp
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model
from rocm_tune.profiles.gpu_profiles import get_gpu_profile

# (label, precision, gpus, micro_batch, grad_accum, gradient_checkpointing, zero, attn, measured s/it)
CASES = [
    ("fp32 DDP 2xGPU mb1 acc32 GC", "fp32", 2, 1, 32, True, 0, "eager", 340.0),
    ("fp16 ZeRO-2 2xGPU mb1 acc32 GC", "fp16", 2, 1, 32, True, 2, "sdpa", 253.0),
    ("bf16(emulated) ZeRO-2 2xGPU mb1 acc32 GC", "bf16", 2, 1, 32, True, 2, "sdpa", 700.0),
    ("fp16 1xGPU mb8 acc1 no-GC", "fp16", 1, 8, 1, False, 0, "sdpa", 24.0),
]


def predictions():
    model = load_model("qwen2.5-7b")
    gpu = get_gpu_profile("mi50-32gb")
    rows = []
    for label, prec, gpus, mb, accum, gc, zero, attn, measured in CASES:
        cfg = TrainConfig(method="lora", lora_rank=64, lora_alpha=128, lora_targets=("all",), precision=prec,
                          cutoff_len=1024, micro_batch=mb, gradient_checkpointing=gc, attn=attn, gpus=gpus,
                          zero_stage=zero)
        est = estimate(model, cfg)
        t = tp.predict(model, cfg, gpu, trainable_params=est.params_trainable, grad_accum=accum)
        rows.append({
            "case": label, "measured_s": measured, "predicted_s": round(t.seconds_per_step, 1),
            "low_s": t.high["seconds_per_step"], "high_s": t.low["seconds_per_step"],
            "error": round(t.seconds_per_step / measured - 1.0, 4),
            "in_band": t.high["seconds_per_step"] <= measured <= t.low["seconds_per_step"],
            "mfu": round(t.efficiency, 3), "gflop_per_token": round(t.flops_per_token / 1e9, 1),
        })
    return rows


def main() -> int:
    rows = predictions()
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'case':<42}{'measured':>10}{'predicted':>11}{'error':>8}{'band (s)':>18}{'MFU':>6}")
    for r in rows:
        band = f"{r['low_s']:.0f}-{r['high_s']:.0f}"
        print(f"{r['case']:<42}{r['measured_s']:>9.0f}s{r['predicted_s']:>10.1f}s{r['error']:>+8.1%}{band:>18}"
              f"{r['mfu']:>6.2f}")
    worst = max(abs(r["error"]) for r in rows)
    print(f"\nworst error {worst:.1%}; all measured values inside the predicted band: "
          f"{all(r['in_band'] for r in rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
