"""`rocm-tune demo [--headless] [--steps N] [--dir DIR]`: plan, launch and watch a tiny real training.

Works on any machine, GPU or not: builds a tiny random Qwen2 model (2 layers, hidden 64) and a tiny
learnable alpaca dataset locally (nothing downloaded), plans it, writes a `rocm-tune train` config,
starts it detached through the same launcher as `rocm-tune run`, and shows the live monitor (the TUI
on a terminal, else one line per step). The run keeps going if the monitor is closed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rocm_tune.commands._common import int_range, print_json
from rocm_tune.core.errors import UserError
from rocm_tune.train.demo import _say, start_demo, work_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--headless", action="store_true",
                        help="no monitor: wait for the end, print a summary, exit 0 when it finished")
    parser.add_argument("--plain", action="store_true", help="line-per-step view instead of the full-screen monitor")
    parser.add_argument("--steps", type=int_range("--steps", 2, 100_000), default=60,
                        help="training steps (default 60; about 30 s on 2 CPU cores)")
    parser.add_argument("--dir", metavar="DIR",
                        help="work directory for the tiny model and data (default: $XDG_CACHE_HOME/rocm-tune/demo)")
    parser.add_argument("--gpu", metavar="PROFILE", default=None,
                        help="GPU profile to plan for when none is detected (default mi50-32gb)")
    parser.add_argument("--json", action="store_true", help="with --headless: print the summary as one JSON object")


def read_metrics(path: Path) -> list[dict]:
    out = []
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if isinstance(rec, dict):
                    out.append(rec)
    except OSError:
        pass
    return out


def summary(run_id: str) -> dict:
    from rocm_tune.core.runs.registry import find_run

    info = find_run(run_id)
    recs = read_metrics(info.metrics_path)
    losses = [r["loss"] for r in recs if r.get("type") == "step" and isinstance(r.get("loss"), (int, float))]
    end: dict = next((r for r in reversed(recs) if r.get("type") == "end"), {})
    took = None
    if info.started_at and info.ended_at:
        took = info.ended_at - info.started_at
    return {
        "id": info.id, "dir": info.dir, "status": info.status, "returncode": info.returncode,
        "steps": end.get("step", info.step), "total_steps": info.total_steps,
        "first_loss": losses[0] if losses else None, "last_loss": losses[-1] if losses else None,
        "train_loss": end.get("train_loss"), "seconds": None if took is None else round(took, 1),
    }


def _print_summary(s: dict) -> None:
    def f(x):
        return "-" if x is None else f"{x:.4f}"

    print(f"demo run {s['id']}: {s['status']}" + (f" (exit code {s['returncode']})" if s["returncode"] else ""))
    print(f"  steps {s['steps']}/{s['total_steps']}, loss {f(s['first_loss'])} -> {f(s['last_loss'])}, "
          f"{s['seconds'] if s['seconds'] is not None else '-'} s")
    print(f"  run dir: {s['dir']}")


def _wait(run_id: str, timeout: float = 3600) -> None:
    from rocm_tune.core.runs.registry import find_run

    end = time.time() + timeout
    while time.time() < end and find_run(run_id).status == "running":
        time.sleep(0.5)


def run(args: argparse.Namespace) -> int:
    if args.json and not args.headless:
        raise UserError("--json needs --headless (without it the demo streams the training, which is not one "
                        "JSON object)")
    if args.plain and args.headless:
        raise UserError("--plain and --headless do not go together: --headless shows no monitor at all")
    quiet = bool(args.json)
    t0 = time.time()
    work = work_dir(args.dir)
    if args.gpu is not None:
        from rocm_tune.profiles.gpu_profiles import get_gpu_profile

        get_gpu_profile(args.gpu)  # UserError for an unknown profile
    started = start_demo(work, args.steps, args.gpu, quiet)
    info, cfg, gpu = started.info, started.cfg, started.gpu
    _say(f"started run {info.id} on {'GPU' if gpu else 'CPU'} ({args.steps} steps, full fine-tuning, "
         f"{cfg['per_device_train_batch_size']} samples/step); it runs detached: "
         f"`rocm-tune attach {info.id}`, `rocm-tune stop {info.id}`", quiet)
    _say(f"  run dir: {info.dir}   (set up in {time.time() - t0:.1f} s)", quiet)

    if args.headless:
        _wait(info.id)
        s = summary(info.id)
        if args.json:
            print_json(s)
        else:
            _print_summary(s)
        return 0 if s["status"] == "finished" else 1

    code = None
    if sys.stdout.isatty() and not args.plain:
        from rocm_tune.tui.app import run_app

        code = run_app(attach=info.id)
    if code is None:
        from rocm_tune.core.runs.watch.watch import stream_plain

        try:
            stream_plain(info.id)
        except KeyboardInterrupt:
            print(f"\nmonitor closed; the run goes on: rocm-tune attach {info.id} / rocm-tune stop {info.id}")
            return 0
    s = summary(info.id)
    if s["status"] != "running":
        _print_summary(s)
    else:
        print(f"the run goes on in the background: rocm-tune attach {info.id} / rocm-tune stop {info.id}")
    return 0 if s["status"] in ("finished", "running") else 1
