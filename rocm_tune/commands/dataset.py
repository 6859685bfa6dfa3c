"""`rocm-tune dataset PATH [--name N] [--model M] [--json]`: token lengths and truncation per cutoff_len."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
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
    if ref is None:
        return None
    from rocm_tune.core.model.architecture import load_model  # presets / HF cache ids

    p = Path(os.path.expanduser(ref))
    if p.is_dir():
        return p  # a model directory; without tokenizer files analyze_dataset notes the approximation
    if p.is_file():
        load_model(str(p))  # a config.json: UserError when it is not one (malformed, not a model config)
        return p
    spec = load_model(ref)
    if spec.source == "preset":
        # a preset has no tokenizer on disk (its location is the preset YAML): say so, not "no tokenizer
        # files in <the presets folder>"
        return replace(spec, location=None)
    return spec


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.data.dataset import CUTOFFS, analyze_dataset, round_cutoff

    if args.name is not None and not os.path.isdir(os.path.expanduser(args.path)):
        raise UserError(f"--name {args.name!r} picks an entry of dataset_info.json, so PATH must be a folder "
                        f"holding one; {args.path!r} is not a folder")
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
