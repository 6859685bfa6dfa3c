"""`rocm-tune explain` over the project's public corpus of real failure logs (issue 26, item 6).

    python benchmarks/corpus_explain.py [--dir benchmarks/corpus/logs] [--split fit|held|all]
                                        [--write-baseline] [--json]

For every case folder (case.json + log.txt, and the config files that were beside the log) it runs
the diagnosis engine in-process (rocm_tune.core.runs.diagnose.diagnose.diagnose, the same call `rocm-tune
explain LOG` makes, so the files beside the log are read as the CLI reads them) and compares the
root cause's family with the case's `family`. It prints accuracy by family, by runner, by split and
AMD vs not, then the wrong cases (of the chosen split: tune on "fit", report "held"). A benign
line (a harmless warning) as the root is always wrong; a case of family `benign_warning` (a
scary line, no failure) is right when the engine finds no root cause and only harmless lines
(Explanation.answer: "no failure found; these lines are harmless"). `--write-baseline` records every case's
result in benchmarks/corpus/explain-baseline.json, which tests/test_corpus_explain.py holds the
engine to (a case right there must stay right).
Target (issue 26): the root family right on at least 90 % of the held-out part, no benign root.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from rocm_tune.core.runs.diagnose.diagnose import diagnose  # noqa: E402

DEFAULT_DIR = os.path.join(HERE, "corpus", "logs")
BASELINE = os.path.join(HERE, "corpus", "explain-baseline.json")


def load_cases(root: str = DEFAULT_DIR) -> list[tuple[str, dict]]:
    """(case dir, case.json) of every readable case, by id."""
    out = []
    if not os.path.isdir(root):
        return out
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        p = os.path.join(d, "case.json")
        if not os.path.isfile(p):
            continue
        try:
            with open(p, encoding="utf-8") as f:
                case = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(case, dict) and case.get("family") and \
                os.path.isfile(os.path.join(d, case.get("log_file") or "log.txt")):
            out.append((d, case))
    return out


def explain_case(case_dir: str, case: dict) -> dict:
    """The engine's answer for one case, as the baseline records it."""
    exp = diagnose([os.path.join(case_dir, case.get("log_file") or "log.txt")])
    r = exp.diagnoses[exp.root] if exp.root is not None else None
    # with no root cause the answer is "no failure found": benign_warning when only harmless lines were seen
    # (what a case of family benign_warning expects), else unknown
    found = exp.answer
    return {"id": case.get("id") or os.path.basename(case_dir), "expected": case["family"], "found": found,
            "code": r.code if r else None, "benign_root": bool(r and r.benign),
            "ok": found == case["family"] and not (r and r.benign), "split": case.get("split") or "?",
            "runner": case.get("runner") or "?", "amd": bool(case.get("amd")),
            "confidence": case.get("confidence") or "?"}


def _table(title: str, rows: list[dict], key) -> list[str]:
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        groups[str(key(r))].append(r)
    lines = [f"\n{title}"]
    for k in sorted(groups, key=lambda k: (-len(groups[k]), k)):
        g = groups[k]
        ok = sum(r["ok"] for r in g)
        lines.append(f"  {k:<32} {ok:>4}/{len(g):<4} {100 * ok / len(g):5.1f} %")
    return lines


def report(results: list[dict], split: str) -> str:
    lines = []
    for part in ("fit", "held"):
        rows = [r for r in results if r["split"] == part]
        if rows:
            ok = sum(r["ok"] for r in rows)
            lines.append(f"{part:<5} right family as root: {ok}/{len(rows)} ({100 * ok / len(rows):.1f} %)")
    ok = sum(r["ok"] for r in results)
    lines.append(f"all   right family as root: {ok}/{len(results)}"
                 + (f" ({100 * ok / len(results):.1f} %)" if results else "")
                 + f"; benign line as root: {sum(r['benign_root'] for r in results)}")
    shown = results if split == "all" else [r for r in results if r["split"] == split]
    lines += _table(f"by family ({split})", shown, lambda r: r["expected"])
    lines += _table(f"by runner ({split})", shown, lambda r: r["runner"])
    lines += _table(f"AMD vs not ({split})", shown, lambda r: "AMD/ROCm/DCU" if r["amd"] else "not AMD")
    lines += _table("by split", results, lambda r: r["split"])
    # how each part fares where the thread confirms the cause plainly (high) or less so (medium)
    lines += _table("by split and confidence", results, lambda r: f"{r['split']}/{r['confidence']}")
    wrong = [r for r in shown if not r["ok"]]
    lines.append(f"\nwrong ({split}): {len(wrong)}")
    for r in wrong:
        lines.append(f"  {r['id'][:60]:<60} expected {r['expected']:<26} found {r['found']} ({r['code']})")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=DEFAULT_DIR)
    ap.add_argument("--split", choices=("fit", "held", "all"), default="fit",
                    help="which part's tables and wrong cases to print (default fit: the part one tunes on)")
    ap.add_argument("--write-baseline", action="store_true", help=f"record the results in {BASELINE}")
    ap.add_argument("--json", action="store_true", help="the per-case results as JSON")
    a = ap.parse_args()
    cases = load_cases(a.dir)
    if not cases:
        print(f"no cases in {a.dir}")
        return 0
    results = [explain_case(d, c) for d, c in cases]
    if a.json:
        print(json.dumps(results, indent=1))
    else:
        print(report(results, a.split))
    if a.write_baseline:
        base = {r["id"]: {k: r[k] for k in ("expected", "found", "code", "ok", "split")} for r in results}
        os.makedirs(os.path.dirname(BASELINE), exist_ok=True)
        with open(BASELINE, "w", encoding="utf-8") as f:
            json.dump(base, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"\nbaseline: {BASELINE} ({len(base)} cases)")
    return 0 if not any(r["benign_root"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
