"""Speed of the analytic estimator: one `estimate()` call (target < 1 ms) and the whole
`rocm-tune estimate --model qwen2.5-7b --json` process (target < 0.3 s).

    python benchmarks/estimate_speed.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model


def main() -> int:
    model = load_model("qwen2.5-7b")
    cases = [TrainConfig(), TrainConfig(method="full", zero_stage=3, gpus=8, offload="optimizer"),
             TrainConfig(method="qlora", cutoff_len=8192, micro_batch=4, attn="eager")]
    for cfg in cases:
        n = 2000
        t = time.perf_counter()
        for _ in range(n):
            estimate(model, cfg)
        per = (time.perf_counter() - t) / n
        print(f"estimate() {cfg.method:<6} zero{cfg.zero_stage}: {per * 1e3:.3f} ms per call (target < 1 ms)")
    cmd = [sys.executable, "-m", "rocm_tune", "estimate", "--model", "qwen2.5-7b", "--json"]
    times = []
    for _ in range(7):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    print(f"rocm-tune estimate --model qwen2.5-7b --json: median {statistics.median(times):.3f} s, "
          f"best {min(times):.3f} s over {len(times)} runs (target < 0.3 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
