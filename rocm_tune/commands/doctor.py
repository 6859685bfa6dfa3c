"""`rocm-tune doctor`: system checks (GPU stack, torch, IOMMU, DeepSpeed, ...) with evidence and fixes."""

from __future__ import annotations

import argparse
import sys

from rocm_tune.commands._common import print_json

MARK = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "skip": "skip"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", "-v", action="store_true", help="show the evidence of passing checks too")


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.hardware.doctor import SystemView, run_checks, summarize

    view = SystemView()
    results = run_checks(view)
    summary = summarize(results)
    backend, tried, samples = view.gpus()
    if args.json:
        print_json({"ok": summary["ok"], "counts": summary["counts"], "backend": backend,
                    "gpus": [s.to_dict() for s in samples], "checks": [r.to_dict() for r in results]})
    else:
        if not samples:
            print("No GPU found on this machine; checks that need one are skipped.\n")
        for r in results:
            print(f"[{MARK[r.status]}] {r.id:<20} {r.summary}" + (f"  ({r.code})" if r.code else ""))
            show_evidence = r.status in ("warn", "fail") or args.verbose
            if show_evidence:
                for e in r.evidence:
                    print(f"         - {e}")
            if r.fix and r.status in ("warn", "fail"):
                print(f"         fix: {r.fix}")
            elif r.fix and r.status == "skip":  # e.g. how to install DeepSpeed on ROCm (its build flags)
                print(f"         when needed: {r.fix}")
        c = summary["counts"]
        print(f"\n{c['pass']} passed, {c['warn']} warnings, {c['fail']} failed, {c['skip']} skipped.")
    sys.stdout.flush()
    return 0 if summary["ok"] else 1
