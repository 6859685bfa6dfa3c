"""`rocm-tune dataset PATH [--name N] [--model M] [--json]`: token lengths and truncation per cutoff_len."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rocm_tune.commands._common import int_range, print_json
from rocm_tune.core.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path",
        help="a .json/.jsonl file (alpaca, sharegpt or messages), a folder of them, "
        "or a folder with dataset_info.json (then --name)",
    )
    parser.add_argument("--name", help="dataset name in dataset_info.json (LLaMA-Factory's `dataset:`)")
    parser.add_argument(
        "--model",
        help="model directory (or anything `estimate` accepts) whose tokenizer and chat template count "
        "tokens; without it, or without tokenizer files, a documented approximation is used",
    )
    parser.add_argument("--bins", type=int_range("--bins", 1, 200), default=16, help="histogram bins (default 16)")
    parser.add_argument(
        "--percentile", type=int_range("--percentile", 1, 100), default=95,
        help="percentile the suggested cutoff_len covers (default 95)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def _model_arg(ref: str | None):
    if not ref:
        return None
    p = Path(os.path.expanduser(ref))
    if p.is_dir() or p.is_file():
        return p
    from rocm_tune.core.model import load_model  # presets / HF cache ids

    spec = load_model(ref)
    if not spec.location:
        return spec  # a preset: no tokenizer on disk, analyze_dataset notes the approximation
    return spec


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.dataset import CUTOFFS, analyze_dataset, round_cutoff

    stats = analyze_dataset(args.path, model=_model_arg(args.model), dataset_name=args.name)
    suggested = round_cutoff(stats.percentile(args.percentile))
    if args.json:
        out = stats.to_dict()
        out["histogram"] = [{"lo": a, "hi": b, "count": k} for a, b, k in stats.histogram(args.bins)]
        out["suggested_cutoff_len"] = suggested
        out["suggested_percentile"] = args.percentile
        print_json(out)
        return 0
    print(render(stats, args.bins, args.percentile, suggested, CUTOFFS))
    return 0


def render(stats, bins: int, pct: int, suggested: int, cutoffs) -> str:
    n = stats.count
    lines = [
        f"dataset    {stats.label}",
        f"format     {stats.format}, {n:,} samples" + (f" ({stats.skipped:,} skipped)" if stats.skipped else ""),
        f"tokens by  {stats.tokenizer}",
        "",
        f"length (tokens)  p50 {stats.percentile(50):,}   p90 {stats.percentile(90):,}   p95 {stats.percentile(95):,}   p99 {stats.percentile(99):,}   max {stats.lengths[-1]:,}   mean {stats.mean():,.0f}",
        "",
        "histogram",
    ]
    hist = stats.histogram(bins)
    top = max((k for _, _, k in hist), default=1) or 1
    w = len(f"{hist[-1][1] - 1:,}") if hist else 1
    for lo, hi, k in hist:
        bar = "#" * max(1 if k else 0, round(40 * k / top))
        lines.append(f"  {lo:>{w},} - {hi - 1:>{w},}  {bar:<40} {k:,}")
    lines += ["", "  cutoff_len   truncated   share"]
    for c in cutoffs:
        t = stats.truncated_at(c)
        lines.append(f"  {c:>10,}   {t:>9,}   {100.0 * t / n:5.1f}%")
    covered = n - stats.truncated_at(suggested)
    lines += [
        "",
        f"suggested cutoff_len: {suggested} (covers p{pct} = {stats.percentile(pct):,} tokens; "
        f"{covered:,} of {n:,} samples fit, {100.0 * covered / n:.1f}%)",
    ]
    for note in stats.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


__all__ = ["UserError", "add_arguments", "run"]
