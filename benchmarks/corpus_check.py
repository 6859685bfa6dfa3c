"""`rocm-tune check --json` over every configuration of the project's corpus (benchmarks/corpus/configs/<id>/:
case.json + the user's files), verdict vs the outcome the user reported: accuracy of the answered cases, the
unknown rate, by runner and by split (fit / held), and every wrong or unknown case with its reason.

    PYTHONPATH=. python3 benchmarks/corpus_check.py [CORPUS_CONFIGS_DIR] [--in-process] [--json]

Each case runs as a user would: its config files (the case's own folder as the working directory, so that paths
in them resolve as they did for the user) and the case's check_args (the hardware its prose states). The outcome
"fits" is right for the verdict fits, "oom" for oom; "host_oom" counts as oom (the run did not fit the machine).
A case marked "outcome_unverified" (its source states no outcome; see corpus/SCHEMA.md) stays in the corpus but is
left out of the scored figures: it is not run, and the count of such cases is printed."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the repo's own corpus; ROCM_TUNE_CORPUS_CONFIGS points elsewhere (a corpus being written in another tree)
DEFAULT = os.environ.get("ROCM_TUNE_CORPUS_CONFIGS") or os.path.join(ROOT, "benchmarks", "corpus", "configs")


def cases(corpus: str) -> list[dict]:
    out = []
    if not os.path.isdir(corpus):
        return out
    for name in sorted(os.listdir(corpus)):
        p = os.path.join(corpus, name, "case.json")
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as fh:
                c = json.load(fh)
            c["_dir"] = os.path.join(corpus, name)
            out.append(c)
    return out


def scored_and_left_out(all_cases: list[dict]) -> tuple[list[dict], list[dict]]:
    """(cases that count in the figures, cases left out because their source states no outcome)."""
    left_out = [c for c in all_cases if c.get("outcome_unverified")]
    return [c for c in all_cases if not c.get("outcome_unverified")], left_out


def left_out_line(left_out: list[dict]) -> str:
    by_split = Counter(str(c.get("split", "?")) for c in left_out)
    parts = ", ".join(f"{k} {v}" for k, v in sorted(by_split.items()))
    return f"left out of the figures (outcome_unverified: the source states no outcome): {len(left_out)}" + (
        f" ({parts})" if parts else "")


def argv_of(case: dict) -> list[str]:
    return ["check", *[str(f) for f in case.get("config_files") or []], *[str(a) for a in case.get("check_args")
                                                                            or []], "--json"]


def _cli_in_process(argv: list[str], cwd: str) -> tuple[int, str, str]:
    from rocm_tune.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as exc:           # argparse refusals
                rc = exc.code if isinstance(exc.code, int) else 2
    finally:
        os.chdir(old)
    return rc, out.getvalue(), err.getvalue()


def _cli_subprocess(argv: list[str], cwd: str) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-m", "rocm_tune", *argv], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=300, check=False)
    return p.returncode, p.stdout, p.stderr


def run_case(case: dict, in_process: bool = True) -> dict:
    """{"id", "runner", "split", "outcome", "verdict" (fits | oom | unknown | error), "right", "reason"}."""
    rc, out, err = (_cli_in_process if in_process else _cli_subprocess)(argv_of(case), case["_dir"])
    verdict, reason = "error", (err.strip().splitlines() or [f"exit {rc}"])[-1]
    try:
        d = json.loads(out)
        verdict = str(d.get("verdict"))
        reason = d.get("reason") or ""
        if verdict == "unknown" and not reason:
            reason = "; ".join(f["message"] for f in d.get("findings", []) if f.get("severity") == "error")[:200]
        if verdict == "oom":
            reason = f"OOM at {d.get('oom_phase')}, margin {(d.get('margin_bytes') or 0) / 2**30:.1f} GiB"
        elif verdict == "fits":
            reason = f"margin {(d.get('margin_bytes') or 0) / 2**30:.1f} GiB"
    except ValueError:
        pass
    want = {"fits": "fits", "oom": "oom", "host_oom": "oom"}.get(str(case.get("outcome")), str(case.get("outcome")))
    return {"id": case["id"], "runner": case.get("runner", "?"), "split": case.get("split", "?"),
            "amd": bool(case.get("amd")), "confidence": str(case.get("confidence") or "?"),
            "outcome": case.get("outcome"), "verdict": verdict,
            "right": verdict == want, "reason": reason}


def summary(results: list[dict]) -> dict:
    def block(rs: list[dict]) -> dict:
        answered = [r for r in rs if r["verdict"] in ("fits", "oom")]
        right = sum(r["right"] for r in answered)
        return {"cases": len(rs), "answered": len(answered), "right": right,
                "accuracy": round(right / len(answered), 3) if answered else None,
                "unknown_rate": round(1 - len(answered) / len(rs), 3) if rs else None}

    by: dict = {"all": block(results)}
    for key in ("split", "runner", "split/confidence"):
        groups = defaultdict(list)
        for r in results:
            # split/confidence: how the parts fare where the source states the outcome plainly (high) or not
            groups[f"{r['split']}/{r.get('confidence', '?')}" if key == "split/confidence" else r[key]].append(r)
        by[key] = {k: block(v) for k, v in sorted(groups.items())}
    return by


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", default=DEFAULT)
    ap.add_argument("--in-process", action="store_true", help="call the CLI in this process (fast)")
    ap.add_argument("--json", action="store_true", help="print the per-case results as JSON")
    ap.add_argument("--wrong", choices=("fit", "held", "all"), default="fit",
                    help="whose wrong or unknown cases to list (default fit: the part one tunes on; the held "
                         "part's list is for the closing note, not for writing rules)")
    a = ap.parse_args(argv)
    scored, left_out = scored_and_left_out(cases(a.corpus))
    results = [run_case(c, a.in_process) for c in scored]
    if a.json:
        print(json.dumps(results, indent=1))
        return 0
    if not results:
        print(f"no scored cases in {a.corpus}; {left_out_line(left_out)}")
        return 0
    s = summary(results)

    def line(name: str, b: dict) -> str:
        acc = "-" if b["accuracy"] is None else f"{b['accuracy']:.0%}"
        return (f"{name:<30} {b['cases']:>5} {b['answered']:>8} {b['right']:>6} {acc:>9} "
                f"{b['unknown_rate']:>8.0%}")

    print(f"{'':<30} {'cases':>5} {'answered':>8} {'right':>6} {'accuracy':>9} {'unknown':>8}")
    print(line("all", s["all"]))
    for key in ("split", "split/confidence", "runner"):
        for k, b in s[key].items():
            print(line(f"{key}={k}", b))
    print(f"\nwrong or unknown ({a.wrong} part):")
    for r in results:
        if not r["right"] and a.wrong in ("all", r["split"]):
            print(f"  [{r['split']}] {r['id']}: outcome {r['outcome']}, check {r['verdict']} -- {r['reason']}")
    print("\nverdicts: " + ", ".join(f"{k} {v}" for k, v in Counter(r["verdict"] for r in results).items()))
    print(left_out_line(left_out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
