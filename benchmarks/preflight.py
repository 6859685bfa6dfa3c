"""Preflight timings and the collective hang detector's reliability (prints; asserts nothing).

    PYTHONPATH=. python3 benchmarks/preflight.py [--reps 20] [--hang-reps 5] [--timeout 60] [--hang-timeout 5]

1. device + collective check time (CPU: matmul per dtype; 2 processes on gloo);
2. a full preflight of a tiny LoRA plan on CPU (device, collectives, real steps, probe, eval, save, re-plan);
3. hang detection: a peer that never joins, `--hang-reps` times: detected within the timeout every time?
4. false hangs: a healthy 2-process gloo check `--reps` times: how many were reported as hangs?
Targets (issue 13): device + collectives <= 30 s; hang detected within the timeout every time; zero false
hangs over 20 healthy repetitions. No GPU on the machine this was written on: GPU figures are not measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--hang-reps", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--hang-timeout", type=float, default=5.0)
    ap.add_argument("--skip-full", action="store_true")
    args = ap.parse_args()

    import torch

    from rocm_tune.train.preflight.collectives import check_collectives
    from rocm_tune.train.preflight.device import check_devices

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPU cores, load {os.getloadavg()[0]:.1f}; torch "
          f"{torch.__version__}; GPU: {'yes' if torch.cuda.is_available() else 'none'}")
    t0 = time.perf_counter()
    dev = check_devices(None)
    t_dev = time.perf_counter() - t0
    rates = dev["gpus"][0]["matmul_tflops"]
    t0 = time.perf_counter()
    col = check_collectives(2, args.timeout)
    t_col = time.perf_counter() - t0
    print(f"device check: {t_dev:.1f} s ({', '.join(f'{k} {v * 1000:.2f} GFLOPS' for k, v in rates.items())})")
    print(f"collective check (2 procs, {col['backend']}): {t_col:.1f} s ({col['status']}; process start "
          f"{col.get('startup_s')} s, collectives {col.get('waited_s')} s); device + collectives {t_dev + t_col:.1f} s "
          "(target <= 30 s)")

    if not args.skip_full:
        with tempfile.TemporaryDirectory() as d:
            from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model

            model = make_tiny_model(Path(d) / "model", make_tiny_dataset(Path(d) / "data.json", n=24))
            env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
            plan = subprocess.run([sys.executable, "-m", "rocm_tune", "plan", "--model", str(model), "--gpu",
                                   "mi50-32gb", "--gpus", "2", "--method", "lora", "--cutoff-len", "128",
                                   "--micro-batch", "4", "--effective-batch", "32", "--json"],
                                  capture_output=True, text=True, env=env)
            (Path(d) / "plan.json").write_text(plan.stdout)
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "rocm_tune", "preflight", str(Path(d) / "plan.json"),
                                "--foreground", "--json", "--steps", "2", "--timeout", str(args.timeout)],
                               capture_output=True, text=True, env=env)
            t_full = time.perf_counter() - t0
            res = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
            tries = [(a["micro_batch"], a["outcome"]) for a in (res.get("steps") or {}).get("attempts", [])]
            print(f"full preflight of a tiny LoRA plan on CPU: {t_full:.1f} s wall (exit {r.returncode}, "
                  f"{res.get('status')}; inside: {res.get('seconds')} s; tries {tries})")
            if r.returncode not in (0, 1):
                print(r.stderr[-1500:])

    detected = 0
    waits = []
    for _ in range(args.hang_reps):
        h = check_collectives(2, args.hang_timeout, absent_rank=1)
        if h["status"] == "hang" and h["waited_s"] < args.hang_timeout + 5:
            detected += 1
        waits.append(h["waited_s"])
    print(f"hang detection (peer never joins, timeout {args.hang_timeout:g} s): detected {detected}/{args.hang_reps}, "
          f"reported after {min(waits):.2f}-{max(waits):.2f} s")

    false_hangs = 0
    other = 0
    times = []
    for i in range(args.reps):
        c = check_collectives(2, args.timeout)
        times.append(c["seconds"])
        if c["status"] == "hang":
            false_hangs += 1
            print(f"  rep {i}: FALSE HANG; stacks: {json.dumps(c.get('log_tails'))[:3000]}")
        elif c["status"] != "ok":
            other += 1
            print(f"  rep {i}: {c['status']}: {c.get('message')}")
    print(f"healthy 2-process gloo, {args.reps} repetitions (timeout {args.timeout:g} s): false hangs {false_hangs}, "
          f"other failures {other}, ok {args.reps - false_hangs - other}; each {min(times):.1f}-{max(times):.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
