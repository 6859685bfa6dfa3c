"""Time to first paint of the rocm-tune app, and proof that no heavy library is imported first.

Each run starts a fresh interpreter (as `rocm-tune` would), runs the app headless at 80x24 on fake
GPUs, and records:
  - import:       `import rocm_tune.tui.app` (textual included)
  - first paint:  the first screen composed, laid out and rendered (the app's `first_paint_at`,
                  set right after that screen's first refresh), counted from the moment the parent
                  launched the process, so interpreter start-up is included
  - first data:   the GPU table filled (hardware screen) / the run's first poll shown (monitor)
  - heavy:        torch / transformers / peft / accelerate / amdsmi / pynvml in sys.modules at paint
Usage: python benchmarks/tui_startup.py [--runs N] [--screen hardware|model|monitor] [--busy K] [--pyc]
`--busy K` keeps K CPU-bound processes running meanwhile (a loaded machine).
`--pyc`: the children write and reuse bytecode in a private cache (one warm-up run first), as an
installed package does; without it they run as the environment says (PYTHONDONTWRITEBYTECODE=1
makes every launch compile rocm_tune's sources again). The output says which.
Targets (issue 12): median first paint <= 300 ms on an idle machine, <= 600 ms with one core busy
(`--busy 1`), no heavy module. Also printed: the CPU time the app spent to its first paint, which
on a loaded machine tells the paint's own cost apart from the waits for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import time, sys, json, asyncio
t0 = time.perf_counter()
from rocm_tune.tui.app import RocmTuneApp
t_import = time.perf_counter() - t0
async def main():
    app = RocmTuneApp(start=%(screen)r, attach=%(attach)r)
    async with app.run_test(size=(80, 24)) as pilot:
        while app.first_paint_at is None:
            await pilot.pause(0.002)
        t_paint = app.first_paint_at - t0
        cpu_paint = time.process_time()   # CPU of this process from its start (interpreter included)
        heavy = [m for m in ("torch", "transformers", "peft", "accelerate", "amdsmi", "pynvml") if m in sys.modules]
        def has_data():
            s = app.screen
            if type(s).__name__ == "HardwareScreen":
                return s.query_one("#gpus").row_count > 0
            if type(s).__name__ == "MonitorScreen":
                return s.view is not None
            if type(s).__name__ == "ModelScreen":
                return s.query_one("#presets").option_count > 0
            return True
        t1 = time.perf_counter()
        while not has_data() and time.perf_counter() - t1 < 10:
            await pilot.pause(0.005)
        t_data = time.perf_counter() - t0
        perf_now, wall_now = time.perf_counter(), time.time()
        print(json.dumps({"import_s": t_import, "first_paint_s": t_paint, "paint_perf": app.first_paint_at,
                          "perf_at_wall": perf_now, "wall_now": wall_now,
                          "first_data_s": t_data, "cpu_paint_s": cpu_paint, "heavy": heavy, "screen": type(app.screen).__name__}))
asyncio.run(main())
"""


def _busy(k: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(k)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--screen", default="hardware", choices=("hardware", "model", "monitor"))
    ap.add_argument("--busy", type=int, default=0, help="CPU-bound processes to run meanwhile")
    ap.add_argument("--pyc", action="store_true", help="children cache bytecode (as an installed package)")
    args = ap.parse_args()
    attach = "none-such-run" if args.screen == "monitor" else None
    env = {**os.environ, "ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2"}
    tmp = None
    if args.pyc:
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix="rocm-tune-pyc-")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = tmp.name
    bytecode = "cached (--pyc)" if args.pyc else (
        "compiled at every launch (PYTHONDONTWRITEBYTECODE)" if env.get("PYTHONDONTWRITEBYTECODE") else "as installed")
    burners = _busy(args.busy)
    results = []
    try:
        for i in range(args.runs + (1 if args.pyc else 0)):
            t_launch = time.time()
            out = subprocess.run([sys.executable, "-c", CHILD % {"screen": args.screen, "attach": attach}],
                                 capture_output=True, text=True, env=env, check=False)
            if out.returncode != 0:
                print(out.stderr, file=sys.stderr)
                return 1
            rec = json.loads(out.stdout.strip().splitlines()[-1])
            # wall clock of the paint = wall now - (perf now - perf at paint)
            paint_wall = rec["wall_now"] - (rec["perf_at_wall"] - rec["paint_perf"])
            rec["from_launch_s"] = paint_wall - t_launch
            if not (args.pyc and i == 0):   # the warm-up run writes the bytecode
                results.append(rec)
    finally:
        for p in burners:
            p.kill()
            p.wait()
        if tmp is not None:
            tmp.cleanup()
    def ms(xs):
        return (f"median {statistics.median(xs) * 1000:.0f} ms, min {min(xs) * 1000:.0f} ms, "
                f"max {max(xs) * 1000:.0f} ms")
    launch = [r["from_launch_s"] for r in results]
    print(f"screen: {results[0]['screen']}  runs: {len(results)}  busy processes: {args.busy}  "
          f"load average: {os.getloadavg()[0]:.1f}  cores: {os.cpu_count()}  bytecode: {bytecode}")
    print(f"import rocm_tune.tui.app:                 {ms([r['import_s'] for r in results])}")
    print(f"first paint after interpreter start:      {ms([r['first_paint_s'] for r in results])}")
    print(f"first paint from process launch:          {ms(launch)}")
    print(f"first data on screen (after interp start): {ms([r['first_data_s'] for r in results])}")
    print(f"CPU time of the app to first paint:       {ms([r['cpu_paint_s'] for r in results])}"
          "  (what the paint costs; the wall time also counts the waits for a core on a loaded machine)")
    heavy = sorted({m for r in results for m in r["heavy"]})
    print(f"heavy modules imported before first paint: {heavy or 'none'}")
    target = 0.6 if args.busy else 0.3
    ok = statistics.median(launch) <= target and not heavy
    print(f"target: median first paint from launch <= {target * 1000:.0f} ms "
          f"({'one core busy' if args.busy else 'idle machine'}) ->", "OK" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
