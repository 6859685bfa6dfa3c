"""How explain's resemblance fallback GENERALISES: k-fold cross-validation inside the FIT part of the corpus.

    python3 benchmarks/explain_cv.py [--folds 5] [--timing]

A case's fold is sha256("cv:" + id) % folds (deterministic). For each fold the lexicon is made the way
tools/build_explain_lexicon.py makes the shipped one (its settings chosen by its own inner CV), but from the other
folds' fit cases only; then every case of the fold is answered with that lexicon:
  (a) full explain (rocm_tune.core.runs.diagnose.diagnose.diagnose on the case's log, the rules and the fallback as
      shipped, the same call benchmarks/corpus_explain.py makes), right when its answer is the case's family and no
      benign line is the root;
  (b) the fallback alone, as if no rule fired: resemble.classify over the log's error lines (resemble.error_lines);
      right when it names the family, or says nothing on a case whose family is no failure (benign_warning);
  (c) how often the fallback decided in the full explain (root code `by-resemblance`) and how often it was right;
  (b') the fallback alone with its weak tier (e-unk2: resemble.guess where classify refuses);
  (e) how often the weak tier decided in full explain (root code `by-resemblance-weak`), how often right;
  (d) where a weak rule (role weak or consequence: a generic exception, a launcher's teardown) is the root and the
      fallback, confident, names another family: how often each is right (whether a weak rule should yield).
It also prints the rules alone (no lexicon) for comparison. A held case is never read: ids are filtered with
benchmarks/corpus_stats.split_of before any file of theirs is opened (tools/build_explain_lexicon.fit_cases).
--sources (e-lex): the builder's CV also weighs the tools' own messages (tools/explain_source_docs.py).
--timing: the slowest explain of one log (the whole diagnose call) over the fit cases, with the shipped lexicon, and
the fallback alone on the most it is ever given.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

from corpus_stats import split_of  # noqa: E402
from rocm_tune.core.runs.diagnose import resemble  # noqa: E402
from rocm_tune.core.runs.diagnose.diagnose import diagnose  # noqa: E402

CORPUS = os.path.join(HERE, "corpus", "logs")


def _tool():
    spec = importlib.util.spec_from_file_location("build_explain_lexicon",
                                                  os.path.join(ROOT, "tools", "build_explain_lexicon.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def fold_of(case_id: str, folds: int) -> int:
    return int(hashlib.sha256(("cv:" + case_id).encode()).hexdigest(), 16) % folds


def _use(lex: dict | None) -> None:
    """Make resemble.classify (what diagnose calls) answer from `lex` (None: no lexicon, the rules alone)."""
    got = None if lex is None else (resemble.model_of(lex), lex)
    resemble.lexicon = lambda: got


def _explain(case: dict) -> tuple[str, str | None, bool, str | None]:
    """(answer, root code, benign root, root's role) of full explain on a fit case's log."""
    assert split_of(case["id"]) == "fit"
    exp = diagnose([os.path.join(CORPUS, case["id"], case["log_file"])])
    r = exp.diagnoses[exp.root] if exp.root is not None else None
    return exp.answer, (r.code if r else None), bool(r and r.benign), (r.role if r else None)


def run_cv(cases: list[dict], folds: int, sources: bool = False) -> Counter:
    tool = _tool()
    n = Counter()
    for k in range(folds):
        train = [c for c in cases if fold_of(c["id"], folds) != k]
        test = [c for c in cases if fold_of(c["id"], folds) == k]
        lex = tool.make_lexicon(train, tool.SOURCE_WEIGHTS_TRIED) if sources else tool.make_lexicon(train)
        _use(lex)
        for c in test:
            fam = c["family"]
            got = resemble.classify(c["lines"]) if c["lines"] else None
            alone = got[0] if got else None
            n["alone_decided"] += alone is not None
            n["alone_right"] += alone == fam or (alone is None and fam in resemble.NOT_A_CAUSE)
            n["alone_right_decided"] += alone == fam
            # e-unk2: with the weak tier (resemble.guess) where the confident tier refuses
            weak = resemble.guess(c["lines"]) if c["lines"] and got is None else None
            either = alone if alone is not None else (weak[0] if weak else None)
            n["weak_alone"] += weak is not None
            n["weak_alone_right"] += weak is not None and weak[0] == fam
            n["tiers_right"] += either == fam or (either is None and fam in resemble.NOT_A_CAUSE)
            answer, code, benign, role = _explain(c)
            ok = answer == fam and not benign
            if alone is not None and alone != answer and role in ("weak", "consequence") and code != resemble.CODE:
                # a weak rule's answer the confident fallback contradicts: who is right, were it to yield
                n["yield_cases"] += 1
                n["yield_rule_right"] += ok
                n["yield_fb_right"] += alone == fam
            n["full_right"] += ok
            n["benign_root"] += benign
            if code == resemble.CODE:
                n["fb_decided"] += 1
                n["fb_right"] += ok
            if code == resemble.CODE_WEAK:
                n["weak_decided"] += 1
                n["weak_right"] += ok
            n["unknown"] += answer == "unknown"
        _use(None)
        for c in test:
            answer, _, benign, _ = _explain(c)
            n["rules_right"] += answer == c["family"] and not benign
        n["cases"] += len(test)
    return n


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / max(1, b):.1f} %)"


def timing(cases: list[dict]) -> tuple[float, float, str]:
    """(slowest, mean seconds, slowest id) of one full explain per fit case with the shipped lexicon."""
    resemble.lexicon = _SHIPPED
    times = []
    for c in cases:
        t = time.perf_counter()
        _explain(c)
        times.append((time.perf_counter() - t, c["id"]))
    worst = max(times)
    return worst[0], sum(t for t, _ in times) / len(times), worst[1]


def worst_case_seconds() -> float:
    """Seconds the fallback (resemble.classify) takes at most: MAX_LINES distinct error lines of LINE_MAX characters
    made of the lexicon's own words (every word known), the most it is ever given."""
    resemble.lexicon = _SHIPPED
    vocab = sorted(resemble.lexicon()[0].vocab)
    lines = [" ".join(["RuntimeError:"] + [vocab[(i * 37 + j * 11) % len(vocab)] for j in range(150)])[:resemble.LINE_MAX]
             for i in range(resemble.MAX_LINES)]
    t = time.perf_counter()
    resemble.classify(lines)
    return time.perf_counter() - t


_SHIPPED = resemble.lexicon


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--sources", action="store_true",
                    help="e-lex: the builder's CV also weighs the tools' own messages (its SOURCE_WEIGHTS_TRIED)")
    ap.add_argument("--timing", action="store_true", help="also time explain of each fit log (shipped lexicon)")
    a = ap.parse_args()
    if a.folds < 2:
        print(f"--folds must be at least 2, not {a.folds}", file=sys.stderr)
        return 2
    tool = _tool()
    cases = tool.fit_cases()
    n = run_cv(cases, a.folds, a.sources)
    total = n["cases"]
    print(f"{a.folds}-fold CV inside the fit part ({total} cases; lexicon from the other folds, settings by its "
          f"inner CV)")
    print(f"  (a) full explain right:        {_pct(n['full_right'], total)}; benign line as root: {n['benign_root']}")
    print(f"      rules alone (no lexicon):  {_pct(n['rules_right'], total)}")
    print(f"  (b) fallback alone right:      {_pct(n['alone_right'], total)}; it decided "
          f"{_pct(n['alone_decided'], total)}, right when it decided {_pct(n['alone_right_decided'], n['alone_decided'])}")
    print(f"  (c) fallback decided in full explain: {_pct(n['fb_decided'], total)}, right "
          f"{_pct(n['fb_right'], n['fb_decided'])}")
    print(f"  (b') fallback alone with the weak tier right: {_pct(n['tiers_right'], total)}; the weak tier guessed "
          f"{n['weak_alone']}, right {_pct(n['weak_alone_right'], n['weak_alone'])}")
    print(f"  (e) weak tier decided in full explain: {_pct(n['weak_decided'], total)}, right "
          f"{_pct(n['weak_right'], n['weak_decided'])}; full explain answered unknown: {n['unknown']}")
    print(f"  (d) a weak/consequence rule root that the confident fallback contradicts: {n['yield_cases']} cases; "
          f"the rule right {n['yield_rule_right']}, the fallback right {n['yield_fb_right']} (were it to yield)")
    if a.timing:
        worst, mean, which = timing(cases)
        print(f"timing: explain of one log, mean {1000 * mean:.1f} ms, slowest {1000 * worst:.1f} ms ({which})")
        print(f"timing: the fallback alone on {resemble.MAX_LINES} lines of {resemble.LINE_MAX} known words' "
              f"characters (its most): {1000 * worst_case_seconds():.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
