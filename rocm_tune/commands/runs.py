"""`rocm-tune runs [--json] [--all]`: known runs with status, progress, loss, age and a note.

Statuses: running (any process of the run lives), finished, failed(CODE), stopped / "stopped by you",
lost (no exit record and no process left), corrupt (run.json is broken: the note says what)."""

from __future__ import annotations

import argparse

from rocm_tune.commands._common import int_range, print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object {\"runs\": [...]}")
    parser.add_argument("--all", action="store_true", help="every registered run (default: running + 20 newest)")
    parser.add_argument("--limit", type=int_range("--limit", 1, 100_000), default=None,
                        help="show at most this many runs")


def _finite(x):
    return x if isinstance(x, (int, float)) and x == x and abs(x) != float("inf") else None


def format_age(seconds: float | None) -> str:
    secs = _finite(seconds)
    if secs is None:
        return "-"
    s = int(secs)
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


def _peak(info) -> dict:
    """The measured peak of the run's ranks (RUN_DIR/ranks/, issue 13): bytes, None when not measured."""
    from rocm_tune.core.runs.watch.measured import read_measured

    m = read_measured(info.dir)
    return {"measured_peak_allocated_bytes": m.peak_allocated_bytes if m else None,
            "measured_peak_reserved_bytes": m.peak_reserved_bytes if m else None,
            "measured_nodes": len(m.nodes) if m else 0}


def format_peak(peak: dict) -> str:
    """The highest reserved (else allocated) GPU memory of any rank, e.g. "21.3G"; "-" when not measured."""
    n = peak.get("measured_peak_reserved_bytes") or peak.get("measured_peak_allocated_bytes")
    if not n:
        return "-"
    return f"{n / 2**30:.1f}G" + (f"/{peak['measured_nodes']}n" if peak.get("measured_nodes", 0) > 1 else "")


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.runs.registry import list_runs, runs_root

    infos = list_runs(all=bool(args.all) or args.limit is not None, limit=args.limit)
    if args.json:
        print_json({"root": str(runs_root()), "runs": [r.to_dict() | {"age_s": _finite(r.age_s)} | _peak(r)
                                                       for r in infos]})
        return 0
    if not infos:
        print(f"no runs yet (registry: {runs_root()}); start one with `rocm-tune run -- CMD` or `rocm-tune demo`")
        return 0
    rows = [("ID", "NAME", "STATUS", "PROGRESS", "LOSS", "PEAK", "AGE", "NOTE")]
    for r in infos:
        rows.append((r.id, r.name, format_status(r), format_progress(r), format_loss(r.loss),
                     format_peak(_peak(r)), format_age(r.age_s), format_note(r)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    return 0


def format_status(r) -> str:
    if r.status == "failed" and r.returncode is not None:
        return f"failed({r.returncode})"
    if r.status == "stopped" and r.stopped_by_user:
        return "stopped by you"
    return r.status


def format_loss(loss) -> str:
    if not isinstance(loss, (int, float)) or isinstance(loss, bool):
        return "-"
    return f"{loss:.4g}"


def format_note(r) -> str:
    """One short line: why it ended / what is wrong / processes still running (cut at 100 characters)."""
    text = r.problem or r.note or r.reason or ""
    text = " ".join(str(text).split())
    return text if len(text) <= 100 else text[:99] + "…"
