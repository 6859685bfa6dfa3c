"""Counts of the public failure-log corpus (benchmarks/corpus/logs): by family, AMD share, split, runner.

Run: python3 benchmarks/corpus_log_stats.py [--check]
--check also verifies each case: the schema keys, the split rule, the family vocabulary (when rocm_tune is
importable) and that every evidence line is (part of) a line of log.txt, verbatim; exits 1 on a problem.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

LOGS = Path(__file__).resolve().parent / "corpus" / "logs"
KEYS = ("id", "source_url", "source_kind", "runner", "hardware", "amd", "family", "root_cause", "fix",
        "evidence_lines", "log_file", "beside", "split", "confidence", "notes")


sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_stats import split_of as expected_split  # noqa: E402  (the split rule's one home)


def load_cases(root: Path = LOGS) -> list[dict]:
    return [json.loads(p.read_text()) | {"_dir": p.parent}
            for p in sorted(root.glob("*/case.json"))]


def problems(case: dict, families: tuple[str, ...] | None) -> list[str]:
    out = [f"missing key {k}" for k in KEYS if k not in case]
    d: Path = case["_dir"]
    if case.get("id") != d.name:
        out.append("id differs from folder name")
    if case.get("split") != expected_split(d.name):
        out.append("split does not follow the hash rule")
    if families and case.get("family") not in families:
        out.append(f"family {case.get('family')!r} not in FAMILIES")
    log = d / case.get("log_file", "log.txt")
    text = log.read_text(encoding="utf-8") if log.is_file() else ""
    if not text.strip():
        out.append("log file missing or empty")
    # an evidence line is a line of the log or the deciding part of one, verbatim
    out += [f"evidence line not in log: {e[:60]!r}" for e in case.get("evidence_lines", []) if e.strip() not in text]
    out += [f"beside file missing: {b}" for b in case.get("beside", []) if not (d / b).is_file()]
    return out


def table(title: str, counter: Counter, total: int) -> str:
    rows = [f"{title}:"] + [f"  {k:<34} {v:>4}  ({100 * v / total:.0f}%)" for k, v in counter.most_common()]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="verify every case, exit 1 on a problem")
    args = ap.parse_args(argv)
    cases = load_cases()
    n = len(cases)
    if not n:
        print("no cases")
        return 1
    amd = sum(1 for c in cases if c.get("amd"))
    print(f"cases: {n}   AMD/ROCm/DCU: {amd} ({100 * amd / n:.0f}%)")
    print(table("split", Counter(c["split"] for c in cases), n))
    print(table("family", Counter(c["family"] for c in cases), n))
    print(table("family (AMD only)", Counter(c["family"] for c in cases if c.get("amd")), max(amd, 1)))
    print(table("runner", Counter(c["runner"] for c in cases), n))
    print(table("confidence", Counter(c["confidence"] for c in cases), n))
    print(f"with files beside the log: {sum(1 for c in cases if c.get('beside'))}")
    if not args.check:
        return 0
    try:
        from rocm_tune.core.runs.catalogue import FAMILIES
    except ImportError:
        FAMILIES = None
    bad = {c["_dir"].name: p for c in cases if (p := problems(c, FAMILIES))}
    for name, ps in bad.items():
        print(f"PROBLEM {name}: " + "; ".join(ps))
    print("check:", "ok" if not bad else f"{len(bad)} case(s) with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
