"""`rocm-tune stop RUN [--grace S]`: SIGTERM to the run's whole process group, then SIGKILL."""

from __future__ import annotations

import argparse

from rocm_tune.commands._common import float_range, print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="run id, unique id prefix, run name (latest) or run directory")
    parser.add_argument("--grace", type=float_range("--grace", 0, 86_400), default=30.0,
                        help="seconds between SIGTERM and SIGKILL (default 30: time to save a checkpoint)")
    parser.add_argument("--json", action="store_true", help="print the run afterwards as one JSON object")


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.runs.launcher import stop_run
    from rocm_tune.core.runs.registry import find_run

    before = find_run(args.run)
    if before.status != "running":
        if args.json:
            print_json(before.to_dict() | {"stopped": False})
        else:
            print(f"run {before.id} is not running (status {before.status}); nothing to stop")
        return 1
    if not args.json:
        print(f"stopping {before.id}: SIGTERM to process group {before.pgid}, SIGKILL after {args.grace:g} s ...",
              flush=True)
    after = stop_run(before.id, grace=args.grace)
    if args.json:
        print_json(after.to_dict() | {"stopped": True})
    else:
        code = "" if after.returncode is None else f" (exit code {after.returncode})"
        print(f"run {after.id}: {after.status}{code}")
    return 0
