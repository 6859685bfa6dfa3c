"""Time to first paint of the rocm-tune app, and proof that no heavy library is imported first.

Each run starts a fresh interpreter (as `rocm-tune` would) and runs the app as `rocm-tune` runs it
(`App.run_async`), headless at 80x24 on fake GPUs; the child only watches it (an asyncio sleep of
1 ms between looks: Pilot.pause would post a message to every widget and force a screen update
every time, work the real app never does, and so measure the benchmark along with the app). It records:
  - first paint from launch (the figure of issue 25 item 15): the first screen composed, laid out
                  and rendered (the app's `first_paint_at`, set right after that screen's first
                  refresh), counted from the moment this process launched the child, so process
                  and interpreter start-up (site, .pth hooks, asyncio) are included
  - interpreter ready: launch -> the child's first line, after `import asyncio`
  - import:       `import rocm_tune.tui.app` (textual included)
  - first data:   the GPU table filled (hardware screen) / the run's first poll shown (monitor)
  - heavy:        torch / transformers / peft / accelerate / amdsmi / pynvml in sys.modules at paint
Usage: python benchmarks/tui_startup.py [--runs N] [--screen hardware|model|monitor] [--busy K] [--pyc]
                                        [--against DIR] [--floor] [--instructions]
Run it from the tree to measure with that tree first on the path (PYTHONPATH=$PWD).
`--busy K` keeps K CPU-bound processes running meanwhile (a loaded machine).
`--pyc`: the children write and reuse bytecode and the app's parsed-CSS cache in a private folder
(one warm-up run first), as an installed package does from its second start; without it they run as
the environment says (PYTHONDONTWRITEBYTECODE=1 makes every launch compile rocm_tune's sources
again; the CSS cache is $XDG_CACHE_HOME/rocm-tune's). The output says which.
`--against DIR`: also run the code of DIR (a checkout of main), alternately with this tree, run by
run, so that on a shared machine both are measured under the same load; both are printed.
`--instructions --floor` counts the floor's instructions to its first paint too, the same way.
Targets (issues 12, 25): median first paint from launch <= 300 ms on an idle machine, <= 600 ms with
one core busy (`--busy 1`), no heavy module. Also printed: the CPU time the app spent to its first
paint, which on a loaded machine tells the paint's own cost apart from the waits for a core.
Figures before 2026-11-27 came from a child that polled with Pilot.pause (see above): not comparable."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHILD = r"""
import time, sys, json, asyncio
t0 = time.perf_counter()
from rocm_tune.tui.app import RocmTuneApp
t_import = time.perf_counter() - t0
async def main():
    app = RocmTuneApp(start=%(screen)r, attach=%(attach)r)
    # the app runs as `rocm-tune` runs it (run_async), headless; this loop only looks at it, never drives it
    task = asyncio.create_task(app.run_async(headless=True, size=(80, 24)))
    while app.first_paint_at is None and not task.done():
        await asyncio.sleep(0.001)
    if task.done():
        await task
        raise SystemExit("the app ended before its first paint")
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
        await asyncio.sleep(0.005)
    t_data = time.perf_counter() - t0
    perf_now, wall_now = time.perf_counter(), time.time()
    screen = type(app.screen).__name__
    app.exit()
    await task
    print(json.dumps({"import_s": t_import, "first_paint_s": t_paint, "paint_perf": app.first_paint_at,
                      "t0_perf": t0, "perf_at_wall": perf_now, "wall_now": wall_now,
                      "first_data_s": t_data, "cpu_paint_s": cpu_paint, "heavy": heavy, "screen": screen,
                      "module": sys.modules["rocm_tune"].__file__}))
asyncio.run(main())
"""


# --floor: the same harness around the smallest Textual app (one Static, no CSS of ours): what the framework alone
# costs on this machine from launch to its first paint (the first refresh after mount, as the app's screens mark it)
FLOOR = r"""
import time, sys, json, asyncio
t0 = time.perf_counter()
from textual.app import App
from textual.widgets import Static
t_import = time.perf_counter() - t0
class Floor(App):
    first_paint_at = None
    def compose(self):
        yield Static("rocm-tune")
    def on_mount(self):
        self.call_after_refresh(self._painted)
    def _painted(self):
        self.first_paint_at = time.perf_counter()
async def main():
    app = Floor()
    task = asyncio.create_task(app.run_async(headless=True, size=(80, 24)))
    while app.first_paint_at is None and not task.done():
        await asyncio.sleep(0.001)
    cpu_paint = time.process_time()
    perf_now, wall_now = time.perf_counter(), time.time()
    app.exit()
    await task
    print(json.dumps({"import_s": t_import, "first_paint_s": app.first_paint_at - t0, "paint_perf": app.first_paint_at,
                      "t0_perf": t0, "perf_at_wall": perf_now, "wall_now": wall_now,
                      "first_data_s": app.first_paint_at - t0, "cpu_paint_s": cpu_paint, "heavy": [],
                      "screen": "Static", "module": %(module)r}))
asyncio.run(main())
"""


# the same child, ended at the first paint: what --instructions counts
PAINT_ONLY = CHILD.split("    t_paint = app.first_paint_at")[0] + "    os._exit(0)\nasyncio.run(main())\n"
PAINT_ONLY = PAINT_ONLY.replace("import time, sys, json, asyncio", "import time, sys, json, asyncio, os")
# the floor, ended at its first paint (--instructions --floor)
FLOOR_PAINT_ONLY = FLOOR.split("    cpu_paint = time.process_time()")[0] + "    os._exit(0)\nasyncio.run(main())\n"
FLOOR_PAINT_ONLY = FLOOR_PAINT_ONLY.replace("import time, sys, json, asyncio", "import time, sys, json, asyncio, os")


def _instructions(code: str, env: dict[str, str], cwd: str) -> int:
    """Instructions from process start to the first paint (valgrind cachegrind's `I refs`)."""
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False,
                         cwd=cwd)
    for line in out.stderr.splitlines():
        if "I   refs:" in line or "I refs:" in line:
            return int(line.split(":")[-1].strip().replace(",", ""))
    raise RuntimeError(out.stderr.strip()[-2000:] or "valgrind printed no instruction count")


def _busy(k: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(k)]


def _launch(code: str, env: dict[str, str], cwd: str) -> dict:
    """One child: its record, with the paint counted from the moment this process launched it. It runs in
    `cwd`, the tree measured: `python -c` puts the current directory first on sys.path, ahead of PYTHONPATH,
    so a child started in another checkout would import that checkout's rocm_tune."""
    t_launch = time.time()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False,
                         cwd=cwd)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip() or f"child exited {out.returncode}")
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    if not os.path.abspath(rec["module"]).startswith(os.path.join(os.path.abspath(cwd), "")):
        raise RuntimeError(f"the child imported {rec['module']}, not the code of {cwd}")
    # wall clock of an instant = wall now - (perf now - perf at that instant)
    to_wall = rec["wall_now"] - rec["perf_at_wall"]
    rec["from_launch_s"] = rec["paint_perf"] + to_wall - t_launch
    rec["interp_s"] = rec["t0_perf"] + to_wall - t_launch   # launch -> the child's first line (asyncio imported)
    return rec


def _ms(xs: list[float]) -> str:
    return (f"median {statistics.median(xs) * 1000:4.0f} ms, min {min(xs) * 1000:4.0f} ms, "
            f"max {max(xs) * 1000:4.0f} ms")


def _report(label: str, results: list[dict]) -> float:
    launch = [r["from_launch_s"] for r in results]
    print(f"[{label}] first paint from process launch:  {_ms(launch)}   <- the figure of issue 25 item 15")
    print(f"  launch -> interpreter ready (site, asyncio):  {_ms([r['interp_s'] for r in results])}")
    what = "textual.app + Static" if label.startswith("textual floor") else "rocm_tune.tui.app (textual)"
    print(f"  import {what:<38}{_ms([r['import_s'] for r in results])}")
    print(f"  first paint after interpreter start:          {_ms([r['first_paint_s'] for r in results])}")
    print(f"  first data on screen (after interp start):    {_ms([r['first_data_s'] for r in results])}")
    print(f"  CPU time of the app to first paint:           {_ms([r['cpu_paint_s'] for r in results])}"
          "  (its cost; the wall time also counts the waits for a core on a loaded machine)")
    return statistics.median(launch)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--screen", default="hardware", choices=("hardware", "model", "monitor"))
    ap.add_argument("--busy", type=int, default=0, help="CPU-bound processes to run meanwhile")
    ap.add_argument("--pyc", action="store_true", help="children cache bytecode (as an installed package)")
    ap.add_argument("--instructions", action="store_true", help="count instructions to first paint (valgrind) "
                    "instead of timing")
    ap.add_argument("--floor", action="store_true", help="also run the smallest Textual app (one Static) "
                    "alternately with this tree: the framework's own cost to first paint on this machine")
    ap.add_argument("--against", metavar="DIR", help="a checkout of other code (e.g. main), run alternately "
                    "with this one, so both are measured under the same load")
    args = ap.parse_args()
    attach = "none-such-run" if args.screen == "monitor" else None
    code = CHILD % {"screen": args.screen, "attach": attach}
    here = str(Path(__file__).resolve().parent.parent)
    trees = {"this tree": here} if not args.against else {"this tree": here, "against": os.path.abspath(args.against)}
    codes = {label: code for label in trees}
    if args.floor:
        trees["textual floor"] = here
        codes["textual floor"] = FLOOR % {"module": os.path.join(here, "rocm_tune", "__init__.py")}
    env = {**os.environ, "ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2"}
    tmp = None
    if args.pyc:
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix="rocm-tune-pyc-")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = tmp.name
        env["XDG_CACHE_HOME"] = tmp.name   # the app's parsed-CSS cache too (rocm_tune/tui/css_cache.py)
    bytecode = "cached (--pyc)" if args.pyc else (
        "compiled at every launch (PYTHONDONTWRITEBYTECODE)" if env.get("PYTHONDONTWRITEBYTECODE") else "as installed")
    if args.instructions:
        paint_only = {label: PAINT_ONLY % {"screen": args.screen, "attach": attach} for label in trees}
        if args.floor:
            paint_only["textual floor"] = FLOOR_PAINT_ONLY
        return _count(paint_only, codes, trees, env, args.runs)
    burners = _busy(args.busy)
    results: dict[str, list[dict]] = {k: [] for k in trees}
    try:
        for i in range(args.runs + (1 if args.pyc else 0)):
            order = list(trees.items())
            # alternately, and in turn first (ABBA): a load change hits both alike, neither always runs first
            for label, tree in (order if i % 2 == 0 else order[::-1]):
                child_env = _tree_env(env, tree)
                rec = _launch(codes[label], child_env, tree)
                if not (args.pyc and i == 0):   # the warm-up run writes the bytecode
                    results[label].append(rec)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        for p in burners:
            p.kill()
            p.wait()
        if tmp is not None:
            tmp.cleanup()
    first = results["this tree"]
    print(f"screen: {first[0]['screen']}  runs: {len(first)} each  busy processes: {args.busy}  "
          f"load average: {os.getloadavg()[0]:.1f}  cores: {os.cpu_count()}  bytecode: {bytecode}")
    medians = {label: _report(f"{label}: {trees[label]}", rs) for label, rs in results.items()}
    heavy = sorted({m for r in first for m in r["heavy"]})
    print(f"heavy modules imported before first paint: {heavy or 'none'}")
    target = 0.6 if args.busy else 0.3
    ok = medians["this tree"] <= target and not heavy
    print(f"target: median first paint from launch <= {target * 1000:.0f} ms "
          f"({'one core busy' if args.busy else 'idle machine'}) ->", "OK" if ok else "MISSED")
    return 0 if ok else 1


def _count(paint_only: dict[str, str], codes: dict[str, str], trees: dict[str, str], env: dict[str, str],
           runs: int) -> int:
    """Instructions to first paint of each tree (and of the floor, with --floor), `runs` times each."""
    if shutil.which("valgrind") is None:
        print("--instructions needs valgrind", file=sys.stderr)
        return 1
    env = {**env, "PYTHONHASHSEED": "0"}
    counts: dict[str, list[int]] = {label: [] for label in trees}
    try:
        for label, tree in trees.items():   # warm-up: the CSS cache holds each tree's CSS (bytecode too, --pyc)
            _launch(codes[label], _tree_env(env, tree), tree)
        for _ in range(runs):
            for label, tree in trees.items():
                counts[label].append(_instructions(paint_only[label], _tree_env(env, tree), tree))
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    med = {label: statistics.median(ns) for label, ns in counts.items()}
    for label, ns in counts.items():
        print(f"[{label}: {trees[label]}] instructions from process start to first paint: median "
              f"{med[label] / 1e6:,.0f} M, min {min(ns) / 1e6:,.0f} M, max {max(ns) / 1e6:,.0f} M ({len(ns)} runs)")
    if "against" in med:
        print(f"this tree vs against (medians): {100 * (med['this tree'] / med['against'] - 1):+.1f} %")
    return 0


def _tree_env(env: dict[str, str], tree: str) -> dict[str, str]:
    return {**env, "PYTHONPATH": os.pathsep.join([tree, *filter(None, [env.get("PYTHONPATH")])])}


if __name__ == "__main__":
    raise SystemExit(main())
