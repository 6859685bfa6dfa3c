"""`rocm-tune stop RUN [--grace S]`: SIGTERM to every process of the run, then SIGKILL.

Every process of the run is reached (found by the run id in its environment and the run's cgroup),
also workers that started sessions of their own, double-forked daemons, and processes left after
the launcher or the supervisor was SIGKILLed. No process is signalled unless it is confirmed to be
the run's. With two runs of one name, the running one is stopped; two running: give the id."""

from __future__ import annotations

import argparse

from rocm_tune.commands._common import float_range, print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="run id, unique id prefix, run name or run directory")
    parser.add_argument("--grace", type=float_range("--grace", 0, 86_400), default=30.0,
                        help="seconds between SIGTERM and SIGKILL (default 30: time to save a checkpoint)")
    parser.add_argument("--json", action="store_true", help="print the run afterwards as one JSON object")


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.runs.launch.launcher import stop_run
    from rocm_tune.core.runs.registry import find_run

    before = find_run(args.run, prefer_running=True)
    if before.status != "running" and not before.processes:
        if args.json:
            print_json(before.to_dict() | {"stopped": False})
        else:
            extra = f": {before.problem}" if before.problem else ""
            print(f"run {before.id} is not running (status {before.status}{extra}); nothing to stop")
        return 1
    if not args.json:
        n = before.processes
        what = f"its {n} process{'es' if n != 1 else ''}" if n else "its processes"
        print(f"stopping {before.id}: SIGTERM to {what}, SIGKILL after {args.grace:g} s ...", flush=True)
    after = stop_run(before, grace=args.grace)
    if args.json:
        print_json(after.to_dict() | {"stopped": True})
    else:
        code = "" if after.returncode is None else f" (exit code {after.returncode})"
        left = f"; {after.processes} process(es) still running" if after.processes else ""
        print(f"run {after.id}: {after.status}{code}{left}")
    return 0 if not after.processes else 1
