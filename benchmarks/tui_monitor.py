"""Monitor redraw time of a big run: 8 GPUs (fake MI300X), 100,000 logged steps, eval every 500.

A run directory with a 100k-step metrics.jsonl is written, the app is opened headless on it (the
first read of the whole file is reported apart), then for each frame 10 new steps are appended and:
  - poll:   the watcher reads the new lines and builds the RunView (a worker thread in the app)
  - redraw: the screen applies the view and the whole screen is rendered (every widget's lines,
            the four charts over the run's bounded history, the GPU table and pane)
Both at 120x36 and 80x24, wall time and the process's CPU time (on a loaded machine the wall time
counts the waits for a core; the CPU time is what a frame costs). Target: redraw < 50 ms per frame.
Usage: python benchmarks/tui_monitor.py [--steps N] [--frames N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

START = 1_700_000_000.0


def write_run(d: Path, steps: int) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "run.json").write_text(json.dumps({
        "id": "20231114-221320-big-a1b2", "name": "big", "command": ["rocm-tune", "train", "x.yaml"],
        "cwd": str(d), "env": {}, "created_at": START - 5, "started_at": START, "pid": None, "pgid": None,
        "supervisor_pid": None, "plan": None, "kind": "train", "total_steps": steps * 2}))
    with open(d / "metrics.jsonl", "w") as fh:
        fh.write(json.dumps({"type": "start", "time": START, "total_steps": steps * 2}) + "\n")
        fh.writelines(step_line(s) for s in range(1, steps + 1))
    return d


def step_line(s: int) -> str:
    loss = 2.2 * math.exp(-s / 20000) + 0.9 + 0.05 * math.sin(s * 1.7)
    out = json.dumps({"type": "step", "time": START + s * 0.5, "step": s, "epoch": s / 50000, "loss": round(loss, 4),
                      "grad_norm": 1.2 + 0.3 * math.cos(s), "learning_rate": 2e-5, "tokens_per_s": 55000 + s % 97,
                      "step_time_s": 0.5}) + "\n"
    if s % 500 == 0:
        out += json.dumps({"type": "eval", "time": START + s * 0.5, "step": s, "eval_loss": round(loss + 0.04, 4)}) + "\n"
    return out


def append_steps(run: Path, step: int, n: int) -> int:
    with open(run / "metrics.jsonl", "a") as fh:
        fh.writelines(step_line(s) for s in range(step + 1, step + n + 1))
    return step + n


async def measure(run: Path, size: tuple[int, int], frames: int, start_step: int) -> dict:
    from rocm_tune.core.hardware.devices.synthetic import FakeBackend
    from rocm_tune.tui.app import RocmTuneApp
    from rocm_tune.tui.scenes import FixedHost

    clock = [START + start_step * 0.5]
    app = RocmTuneApp(attach=str(run), clock=lambda: clock[0], poll_interval=3600.0, host_probe=FixedHost(),
                      backend=FakeBackend("mi300x", 8, seed=1, clock=lambda: clock[0]))
    async with app.run_test(size=size) as pilot:
        t0 = time.perf_counter()
        while getattr(app.screen, "view", None) is None or app.screen.view.step is None:
            await pilot.pause(0.01)
        first = time.perf_counter() - t0
        screen = app.screen
        polls, redraws, cpus = [], [], []
        step = start_step
        for _ in range(frames):
            step = append_steps(run, step, 10)
            clock[0] += 5
            t1 = time.perf_counter()
            view = screen.source.poll()
            t2, c2 = time.perf_counter(), time.process_time()
            screen.apply(view)
            screen._compositor.render_update(full=True)   # every visible widget renders its lines
            t3, c3 = time.perf_counter(), time.process_time()
            cpus.append((c3 - c2) * 1000)
            polls.append((t2 - t1) * 1000)
            redraws.append((t3 - t2) * 1000)
            await pilot.pause(0)
        return {"size": f"{size[0]}x{size[1]}", "first_read_s": round(first, 2), "step": step,
                "points_in_loss_chart": len(screen.view.loss_series),
                "poll_ms_median": round(statistics.median(polls), 1),
                "redraw_ms_median": round(statistics.median(redraws), 1),
                "redraw_ms_max": round(max(redraws), 1),
                "redraw_cpu_ms_median": round(statistics.median(cpus), 1)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--frames", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = write_run(Path(tmp) / "big", args.steps)
        results = []
        step = args.steps
        for size in ((120, 36), (80, 24)):
            r = asyncio.run(measure(run, size, args.frames, step))
            step = r["step"]
            results.append(r)
            print(json.dumps(r))
    worst = max(r["redraw_ms_median"] for r in results)
    cpu = max(r["redraw_cpu_ms_median"] for r in results)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"monitor redraw, 8 GPUs, {args.steps:,} steps: median {worst:.1f} ms per frame wall, "
          f"{cpu:.1f} ms CPU (target < 50 ms; load average {load:.1f} on {os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
