"""`rocm-tune runs [--json] [--all]`: known runs with status, progress and age."""

from __future__ import annotations

import argparse
import time

from rocm_tune.commands._common import int_range, print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object {\"runs\": [...]}")
    parser.add_argument("--all", action="store_true", help="every registered run (default: running + 20 newest)")
    parser.add_argument("--limit", type=int_range("--limit", 1, 100_000), default=None,
                        help="show at most this many runs")


def format_age(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    return f"{s // 86400}d{(s % 86400) // 3600}h"


def format_progress(info) -> str:
    if info.step is None:
        return "-"
    if info.total_steps:
        return f"{info.step}/{info.total_steps} {100 * info.progress:.0f}%"
    return f"step {info.step}"


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.runs.registry import list_runs, runs_root

    infos = list_runs(all=bool(args.all) or args.limit is not None, limit=args.limit)
    if args.json:
        print_json({"root": str(runs_root()), "runs": [r.to_dict() | {"age_s": r.age_s} for r in infos]})
        return 0
    if not infos:
        print(f"no runs yet (registry: {runs_root()}); start one with `rocm-tune run -- CMD` or `rocm-tune demo`")
        return 0
    rows = [("ID", "NAME", "STATUS", "PROGRESS", "LOSS", "AGE")]
    for r in infos:
        status = r.status
        if r.status in ("failed",) and r.returncode is not None:
            status = f"failed({r.returncode})"
        loss = "-" if r.loss is None else f"{r.loss:.4g}"
        rows.append((r.id, r.name, status, format_progress(r), loss, format_age(r.age_s)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    _ = time
    return 0
