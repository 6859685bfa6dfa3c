"""Print counts of the project's public corpus (benchmarks/corpus): configs by runner, outcome, AMD share and split;
logs by family, runner, AMD share and split. Also checks each case.json against the schema's required keys and the
split rule, and that every listed fixture file exists. Exit code 1 if a case is malformed.

Usage: python3 benchmarks/corpus_stats.py [--markdown]
"""
from __future__ import annotations

import collections
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "corpus"
CONFIG_KEYS = ["id", "source_url", "source_kind", "runner", "model", "model_params_b", "method", "sharding", "hardware",
               "amd", "outcome", "evidence", "key_settings", "config_files", "check_args", "split", "confidence", "notes"]
LOG_KEYS = ["id", "source_url", "source_kind", "runner", "hardware", "amd", "family", "root_cause", "fix",
            "evidence_lines", "log_file", "split", "confidence"]


def split_of(case_id: str) -> str:
    return "held" if int(hashlib.sha256(case_id.encode()).hexdigest(), 16) % 3 == 0 else "fit"


def load(kind: str, keys: list[str]) -> tuple[list[dict], list[str]]:
    cases, problems = [], []
    base = ROOT / kind
    if not base.is_dir():
        return cases, problems
    for d in sorted(p for p in base.iterdir() if p.is_dir()):
        path = d / "case.json"
        try:
            case = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problems.append(f"{d.name}: unreadable case.json ({exc})")
            continue
        missing = [k for k in keys if k not in case]
        if missing:
            problems.append(f"{d.name}: missing {', '.join(missing)}")
        if case.get("id") != d.name:
            problems.append(f"{d.name}: id {case.get('id')!r} differs from the folder name")
        if case.get("split") != split_of(d.name):
            problems.append(f"{d.name}: split {case.get('split')!r} is not the hash rule's {split_of(d.name)!r}")
        files = case.get("config_files", []) if kind == "configs" else [case.get("log_file")] + case.get("beside", [])
        for name in files:
            if name and not (d / name).is_file():
                problems.append(f"{d.name}: listed file {name} is missing")
        cases.append(case)
    return cases, problems


def table(title: str, counter: collections.Counter, total: int, md: bool) -> list[str]:
    rows = [f"### {title}" if md else f"{title}:"]
    if md:
        rows += ["| value | cases | share |", "|---|---:|---:|"]
    for key, n in sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        share = f"{100 * n / total:.0f}%" if total else "-"
        rows.append(f"| {key} | {n} | {share} |" if md else f"  {str(key):<24} {n:>4}  {share:>4}")
    return rows


def report(kind: str, cases: list[dict], fields: list[str], md: bool) -> list[str]:
    total = len(cases)
    amd = sum(1 for c in cases if c.get("amd"))
    head = f"{kind}: {total} cases, AMD/ROCm/DCU {amd} ({100 * amd / total:.0f}%)" if total else f"{kind}: 0 cases"
    out = [f"## {head}" if md else head]
    for field in fields:
        out += table(f"{kind} by {field}", collections.Counter(c.get(field) for c in cases), total, md)
    return out


def main(argv: list[str]) -> int:
    md = "--markdown" in argv
    configs, p1 = load("configs", CONFIG_KEYS)
    logs, p2 = load("logs", LOG_KEYS)
    lines = report("configs", configs, ["runner", "outcome", "amd", "split", "method"], md)
    if configs:
        both = collections.Counter((c.get("amd"), c.get("outcome")) for c in configs)
        lines += table("configs by (amd, outcome)", both, len(configs), md)
    lines += report("logs", logs, ["family", "runner", "amd", "split"], md)
    print("\n".join(lines))
    for problem in p1 + p2:
        print("PROBLEM", problem, file=sys.stderr)
    return 1 if p1 or p2 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
