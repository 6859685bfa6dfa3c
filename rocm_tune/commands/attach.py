"""`rocm-tune attach TARGET [--once] [--json] [--plain]`: watch any run.

TARGET: a run id / prefix / name, a run directory, a LLaMA-Factory or HF output directory, a log
file, or the PID of a running training process.
- `--once --json`: one JSON snapshot (source, step/total, epoch, loss, smoothed loss, lr,
  grad_norm, throughput, elapsed, ETA, process status, local GPU samples, active alerts).
- `--once`: the same as a short human summary.
- `--plain`: one line per logged step (and alerts), until the run ends; exit code = the run's.
- no flag: the TUI monitor (falls back to --plain when stdout is not a terminal).
"""

from __future__ import annotations

import argparse
import sys

from rocm_tune.commands._common import float_range, print_json
from rocm_tune.core.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", help="run id/prefix/name, run directory, LLaMA-Factory/HF output directory, "
                                       "log file, PID, or slurm:JOBID")
    parser.add_argument("--once", action="store_true", help="print one snapshot and exit")
    parser.add_argument("--json", action="store_true", help="with --once: one JSON object on stdout")
    parser.add_argument("--plain", action="store_true",
                        help="stream one line per logged step (for pipes and `| tee`) until the run ends")
    parser.add_argument("--no-follow", action="store_true", help="with --plain: print what is logged so far and exit")
    parser.add_argument("--interval", type=float_range("--interval", 0.05, 3600), default=1.0,
                        help="seconds between polls when following (default 1)")
    parser.add_argument("--no-gpus", action="store_true", help="do not sample local GPUs")


def _human(snap) -> str:
    from rocm_tune.core.runs.watch.watch import _hms

    d = snap.to_dict()
    lines = [f"{snap.target.title or snap.target.spec}  [{d['kind']}, source {d['source_kind']}]"]
    step = f"{d['step']}" + (f"/{d['total_steps']}" if d["total_steps"] else "") if d["step"] is not None else "-"
    pct = f" ({d['progress'] * 100:.1f}%)" if d["progress"] is not None else ""
    lines.append(f"  status   {d['status']}" + (f" (exit code {d['exit_code']})" if d["exit_code"] is not None else "")
                 + (f", pid {d['process']['pid']}" if d["process"]["pid"] else ""))
    lines.append(f"  step     {step}{pct}" + (f"  epoch {d['epoch']:.2f}" if isinstance(d["epoch"], float) else ""))

    def f(x, spec):
        return format(x, spec) if isinstance(x, (int, float)) else ("-" if x is None else str(x))

    lines.append(f"  loss     {f(d['loss'], '.4f')} (smoothed {f(d['smoothed_loss'], '.4f')})"
                 f"  lr {f(d['learning_rate'], '.2e')}  grad_norm {f(d['grad_norm'], '.3g')}")
    thr = []
    if d["tokens_per_s"] is not None:
        thr.append(f"{f(d['tokens_per_s'], '.0f')} tok/s")
    if d["samples_per_s"] is not None:
        thr.append(f"{f(d['samples_per_s'], '.2f')} samples/s")
    if d["step_time_s"] is not None:
        thr.append(f"{f(d['step_time_s'], '.3g')} s/step")
    lines.append(f"  speed    {', '.join(thr) or '-'}")
    parts = f" (all {d['segments']} segments)" if d.get("segments", 1) > 1 else ""
    lines.append(f"  elapsed  {_hms(d['elapsed_s'] if isinstance(d['elapsed_s'], (int, float)) else None)}{parts}"
                 f"  eta {_hms(d['eta_s'] if isinstance(d['eta_s'], (int, float)) else None)}")
    for g in snap.gpus:
        gd = d["gpus"][snap.gpus.index(g)]
        used, total = gd.get("vram_used_bytes"), gd.get("vram_total_bytes")
        mem = f"{used / 2**30:.1f}/{total / 2**30:.1f} GiB" if isinstance(used, int) and isinstance(total, int) else "-"
        lines.append(f"  gpu{gd.get('index')}     {gd.get('name')}: util {gd.get('util_percent')}%, vram {mem}, "
                     f"power {gd.get('power_w')} W")
    if snap.restarts:
        from rocm_tune.core.runs.watch.watch import restart_line

        lines.append("  restarts (one loss curve across them):")
        lines += [f"    {restart_line(r)}" for r in snap.restarts]
    if snap.alerts:
        lines.append("  alerts:")
        for a in snap.alerts:
            lines.append(f"    [{a.severity}] {a.code}: {a.title}")
            lines.append(f"        evidence: {a.evidence[:300]}")
            lines.append(f"        fix: {a.fix}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.runs.watch import watch

    if args.json and not args.once:
        raise UserError("--json needs --once (a stream of steps is --plain)")
    if args.plain and args.once:
        raise UserError("--plain and --once do not go together; use --plain --no-follow for what is logged so far")
    spec, slurm_job = args.target, None
    if spec.startswith("slurm:"):  # a Slurm job id: its output files via scontrol/sacct (issue 13)
        from rocm_tune.core.runs.watch.slurm import resolve as resolve_slurm

        spec, slurm_job = resolve_slurm(spec)
    from dataclasses import replace

    from rocm_tune.core.runs.diagnose.alert_fix import AlertFixes

    target = watch.resolve_target(spec)
    fixes = AlertFixes(target.spec)   # an OOM alert's fix is explain's for the same run (issue 25 item 8)
    if args.once:
        snap = watch.snapshot(target, gpus=not args.no_gpus)
        snap = replace(snap, alerts=fixes.apply(snap.alerts))
        # measured memory per rank/node (RUN_DIR/ranks/) and the plan's prediction (issue 13)
        from rocm_tune.core.runs.watch.measured import attach_fields, human_lines, read_measured

        extra = attach_fields(snap.target)
        if slurm_job is not None:
            extra["slurm"] = slurm_job.to_dict()
            if extra["measured"] is None and slurm_job.work_dir:
                m = read_measured(slurm_job.work_dir)
                extra["measured"] = m.to_dict() if m else None
        if args.json:
            print_json({**snap.to_dict(), **extra})
        else:
            print("\n".join([_human(snap), *human_lines(extra["measured"], extra["predicted"])]))
        return 0
    if not args.plain and sys.stdout.isatty():
        from rocm_tune.tui.app import run_app

        return int(run_app(attach=spec) or 0)
    return watch.stream_plain(target, out=sys.stdout, follow=not args.no_follow, interval=args.interval,
                              fix_alerts=fixes.apply)
