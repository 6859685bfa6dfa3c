"""Time to first paint of the rocm-tune app, and proof that no heavy library is imported.

Runs the app headless in a fresh interpreter (as `rocm-tune` would start), measures from process
start to the first screen mounted and painted, and lists heavy modules in sys.modules.
Usage: python benchmarks/tui_startup.py [--runs N] [--screen hardware|monitor]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

CHILD = r"""
import time, sys, json, asyncio
t0 = time.perf_counter()
from rocm_tune.tui.app import RocmTuneApp
t_import = time.perf_counter() - t0
async def main():
    app = RocmTuneApp(start=%(screen)r, attach=%(attach)r)
    async with app.run_test(size=(80, 24)) as pilot:
        while app.mounted_at is None:
            await pilot.pause(0.005)
        await pilot.pause(0)   # let the first frame render
        t_paint = time.perf_counter() - t0
        heavy = [m for m in ("torch", "transformers", "peft", "accelerate", "amdsmi", "pynvml") if m in sys.modules]
        print(json.dumps({"import_s": t_import, "first_paint_s": t_paint, "heavy": heavy,
                          "screen": type(app.screen).__name__}))
asyncio.run(main())
"""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--screen", default="hardware", choices=("hardware", "model", "monitor"))
    args = ap.parse_args()
    attach = "none-such-run" if args.screen == "monitor" else None
    results = []
    for _ in range(args.runs):
        # interpreter start-up is counted too: time the whole child from outside
        import time
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", CHILD % {"screen": args.screen, "attach": attach}],
                             capture_output=True, text=True, env={**__import__("os").environ,
                                                                  "ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2"})
        wall = time.perf_counter() - t0
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            return 1
        rec = json.loads(out.stdout.strip().splitlines()[-1])
        rec["process_wall_s"] = wall
        results.append(rec)
    paint = [r["first_paint_s"] for r in results]
    print(f"screen: {results[0]['screen']}  runs: {len(results)}")
    print(f"import rocm_tune.tui.app: median {statistics.median(r['import_s'] for r in results) * 1000:.0f} ms")
    print(f"first paint (after interpreter start): median {statistics.median(paint) * 1000:.0f} ms, "
          f"max {max(paint) * 1000:.0f} ms")
    print(f"whole process incl. interpreter start and teardown: median "
          f"{statistics.median(r['process_wall_s'] for r in results) * 1000:.0f} ms")
    heavy = sorted({m for r in results for m in r["heavy"]})
    print(f"heavy modules imported: {heavy or 'none'}")
    print("target: first paint < 500 ms ->", "OK" if max(paint) < 0.5 and not heavy else "MISSED")
    return 0 if max(paint) < 0.5 and not heavy else 1


if __name__ == "__main__":
    raise SystemExit(main())
