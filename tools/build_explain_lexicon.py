"""Make rocm_tune/profiles/explain_lexicon.json: explain's fallback lexicon, from the FIT part of the corpus only.

    python3 tools/build_explain_lexicon.py [--check]

Reads benchmarks/corpus/logs/<id>/case.json of the cases whose id the split rule (benchmarks/corpus/SCHEMA.md) puts
in "fit" - a held case's folder is never opened - and asserts each says "split": "fit". Each case's
`evidence_lines` are tokenized (rocm_tune.core.runs.diagnose.resemble.tokens) into its family's word counts
(multinomial naive Bayes). The smoothing, the prior, how a log's lines are read (all words pooled, or each line on
its own: resemble.best_guess), the least number of known words and the confidence threshold
are chosen by 10-fold cross-validation over the fit cases: each fold's cases are answered from their own log.txt
(`error_lines`, as explain reads a log) by a lexicon made without them; the choice maximises right answers minus
WRONG_COST x wrong ones (a wrong family is worse than "unknown"). It prints that CV figure. --check: exit 1 when
the file differs from what the current fit cases make (tests/test_explain_lexicon.py does the same).
e-unk2: the grid also holds how a line is cut (words, or words and neighbouring pairs) and the model (naive Bayes or
complement naive Bayes); then, on the chosen setting's CV rows, the weak tier's limits (resemble.weak_decide): the
least confidence and lead that give the most right answers with "unknown" counted as wrong (a guess on a harmless
case's log loses its right "no failure" answer), ties to the fewest guesses.
How the whole method generalises (a lexicon made by make_lexicon from 4 of 5 folds): benchmarks/explain_cv.py.
e-lex: --sources also weighs the tools' own messages (tools/explain_source_docs.py) as labelled documents, a weight per
source chosen by this CV (SOURCE_WEIGHTS_TRIED); the outer CV did not confirm them, so the shipped grid is (0,) and the
lexicon is the fit cases' alone, byte for byte what it was.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections import Counter
from collections.abc import Mapping

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from corpus_stats import split_of  # noqa: E402  (the split rule's one home)
from rocm_tune.core.runs.diagnose import resemble  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
import explain_source_docs as source_docs  # noqa: E402

CORPUS = os.path.join(ROOT, "benchmarks", "corpus", "logs")
OUT = resemble.LEXICON
FOLDS = 10
WRONG_COST = 3
ALPHAS = (0.05, 0.1, 0.3, 1.0)
PRIORS = ("uniform", "empirical")
MIN_TOKENS = (2, 3, 4)
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(2, 20))
# what a family's word counts are made of: the deciding lines only, or also the error lines of the case's own log
# (the lines explain reads at run time, of fit cases only)
TRAIN_ON = ("evidence", "evidence+log")
# r5-cv: how a log's lines are read (resemble.best_guess): all words pooled, or each line on its own
COMBINE = ("pooled", "maxline")
# e-unk2: how a line is cut (resemble.tokens) and the model (multinomial naive Bayes with either prior). Tried and
# taken out of resemble.py again (e-unk2): word pairs and complement naive Bayes - this inner CV chose them
# (answered 413, right 377 against 362/335), but benchmarks/explain_cv.py's outer 5-fold CV showed no gain ((b)
# 397/683 both) and they made a confident wrong answer on a bare `IndexError` (tests/test_explain_e_swift2.py)
FEATURES = ("words",)
MODELS = (("nb", "uniform"), ("nb", "empirical"))
# e-lex: the weight of one document of a source (tools/explain_source_docs.py: the tools' own messages) against one
# fit case's lines; 0 leaves the source out (all 0: the lexicon of the fit cases alone). The grid tried
# (SOURCE_WEIGHTS_TRIED, `--sources`), 802 fit cases: this inner CV chose refusals 0.1 and said it helps a little
# (right - 3 x wrong 298 -> 300: answered 434 -> 492, right 400 -> 444; with the GPU runtimes' statuses as a source,
# since left out, refusals 0.1, runtime 1.0, skew 0.03: 309), but benchmarks/explain_cv.py's outer 5-fold CV
# (`--sources`) says it does not generalise: the fallback alone right 441 -> 420/802, right when it decided 408/458 ->
# 387/433 (runtime too: 389/435), with the weak tier 516 -> 507, full explain 775 both. So the shipped grid is (0,),
# the lexicon of the fit cases alone, until an outer CV says otherwise
SOURCE_WEIGHTS_TRIED = (0.0, 0.03, 0.1, 0.3, 1.0)
SOURCE_WEIGHTS: tuple[float, ...] = (0.0,)
# e-unk2: the weak tier's limits (resemble.weak_decide), below the confident threshold: the least confidence and
# the least lead over the runner-up family; chosen by right answers with "unknown" counted as wrong (issue 26)
WEAK_THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(0, 19))
WEAK_MARGINS = tuple(round(0.05 * i, 2) for i in range(0, 13))
# what a wrong guess costs against a right one: at 0 (right answers alone) CV chooses no limit at all - a guess on
# every error line no rule reads (a bare host-allocation line, `nvidia-smi: command not found`), half of them wrong;
# at 1 a guess must be right more often than wrong
WEAK_WRONG_COST: float | None = 1.0   # None: no weak tier (the lexicon has no weak limits, resemble.guess is None)


def is_fit(case_id: str) -> bool:
    """The corpus's split rule (SCHEMA.md, benchmarks/corpus_stats.split_of): held when sha256(id) % 3 == 0."""
    return split_of(case_id) == "fit"


def fit_cases(root: str = CORPUS) -> list[dict]:
    """The fit cases, by id, each with its log's error lines; a held case's folder is never read."""
    out = []
    for name in sorted(os.listdir(root)):
        if not is_fit(name):
            continue
        p = os.path.join(root, name, "case.json")
        if not os.path.isfile(p):
            continue
        with open(p, encoding="utf-8") as f:
            case = json.load(f)
        assert case.get("split") == "fit" and case.get("id") == name, f"{name}: not a fit case"
        log = os.path.join(root, name, case.get("log_file") or "log.txt")
        data = open(log, "rb").read() if os.path.isfile(log) else b""
        out.append({"id": name, "family": case["family"], "log_file": case.get("log_file") or "log.txt",
                    "evidence": list(case.get("evidence_lines") or []),
                    "lines": [ln for _, ln in resemble.error_lines(data)]})
    return out


def counts_of(cases: list[dict], train_on: str = "evidence", features: str = "words",
              weights: Mapping[str, float] | None = None) -> tuple[dict[str, dict[str, float]], dict[str, int]]:
    """Per family, the word counts of the cases (their evidence lines, and their log's error lines with
    "evidence+log"), plus each source's documents (tools/explain_source_docs.py) times its weight, for the families
    the cases have; the number of cases per family (the prior: a source document is no case)."""
    counts: dict[str, Counter] = {}
    docs: Counter = Counter()
    for c in cases:
        docs[c["family"]] += 1
        lines = c["evidence"] + (c["lines"] if train_on == "evidence+log" else [])
        counts.setdefault(c["family"], Counter()).update(t for ln in lines for t in resemble.tokens(ln, features))
    out: dict[str, dict[str, float]] = {f: dict(sorted(c.items())) for f, c in sorted(counts.items())}
    for source, w in sorted((weights or {}).items()):
        if w <= 0:
            continue
        for fam, words in source_docs.source_counts(source, features).items():
            if fam in out:
                row = out[fam]
                for t, k in words.items():
                    row[t] = round(row.get(t, 0) + w * k, 6)
    return {f: dict(sorted(c.items())) for f, c in out.items()}, dict(sorted(docs.items()))


def _fold(case_id: str) -> int:
    return int(hashlib.sha256(("fold:" + case_id).encode()).hexdigest(), 16) % FOLDS


Row = tuple[str, float, int, int, float, bool]


def _predictions(cases: list[dict], weights: Mapping[str, float] | None = None,
                 only: tuple | None = None) -> dict[tuple, list[Row]]:
    """Per setting (train_on, features, model, alpha, prior, combine): each case's (family, confidence, known words,
    ok, lead over the runner-up, the case is of a harmless family) from a lexicon made without its fold (and with
    the sources' documents at `weights`); ok 1 right, 0 wrong, -1 no failure family named. `only`: that one setting."""
    preds: dict[tuple, list[Row]] = {}
    for k in range(FOLDS):
        train = [c for c in cases if _fold(c["id"]) != k]
        test = [c for c in cases if _fold(c["id"]) == k]
        for train_on in TRAIN_ON:
            for features in FEATURES:
                if only is not None and (train_on, features) != only[:2]:
                    continue
                counts, docs = counts_of(train, train_on, features, weights)
                for kind, prior in MODELS:
                    for alpha in ALPHAS:
                        if only is not None and (kind, alpha, prior) != only[2:5]:
                            continue
                        m = resemble.Model(counts, docs, alpha, prior, kind, features)
                        for combine in COMBINE:
                            if only is not None and combine != only[5]:
                                continue
                            rows = preds.setdefault((train_on, features, kind, alpha, prior, combine), [])
                            for c in test:
                                got = resemble.ranked_guess(m, c["lines"], combine)
                                fam, p, n, _, lead = got if got else ("", 0.0, 0, "", 0.0)
                                ok = 1 if fam == c["family"] else (0 if fam else -1)
                                rows.append((fam, p, n, ok, lead, c["family"] in resemble.NOT_A_CAUSE))
    return preds


def _best(preds: dict[tuple, list[Row]]) -> tuple[tuple, list[Row], dict]:
    """(utility key, rows, settings) of the setting, least known words and threshold with the best CV utility."""
    best = None
    for (train_on, features, kind, alpha, prior, combine), rows in sorted(preds.items()):
        for mt in MIN_TOKENS:
            for th in THRESHOLDS:
                ans = [ok for fam, p, n, ok, *_ in rows if n >= mt and p >= th and ok >= 0]
                right, wrong = sum(ans), len(ans) - sum(ans)
                key = (right - WRONG_COST * wrong, th, train_on == "evidence", features == "words", kind == "nb",
                       alpha, prior == "uniform", combine == "pooled", -mt)
                if best is None or key > best[0]:
                    best = (key, rows, {"train_on": train_on, "features": features, "model": kind, "alpha": alpha,
                                        "prior": prior, "combine": combine, "min_tokens": mt, "threshold": th,
                                        "cv": {"folds": FOLDS, "cases": len(rows), "answered": len(ans),
                                               "right": right, "wrong": wrong, "wrong_cost": WRONG_COST,
                                               "top1_all": sum(r[3] == 1 for r in rows)}})
    assert best is not None
    return best


def source_weights(cases: list[dict], setting: tuple, grid: tuple[float, ...] = SOURCE_WEIGHTS) -> dict[str, float]:
    """e-lex: each source's weight (tools/explain_source_docs.py), one source at a time in SOURCES' order, the others
    at their weight so far: the grid value with the best CV utility at the weight-0 lexicon's `setting`, a higher
    weight taken only when it is strictly better (0, today's lexicon, wins ties: CV can refuse the sources)."""
    weights = {s: 0.0 for s in source_docs.SOURCES}
    score = _best(_predictions(cases, weights, setting))[0][0]
    for source in source_docs.SOURCES:
        for w in grid:
            if w <= 0:
                continue
            trial = dict(weights, **{source: w})
            got = _best(_predictions(cases, trial, setting))[0][0]
            if got > score:
                score, weights = got, trial
    return weights


def cross_validate(cases: list[dict], grid: tuple[float, ...] = SOURCE_WEIGHTS) -> dict:
    """The settings with the best CV utility over the fit cases, and its figures; e-lex: then the sources' weights
    (`source_weights`) and, when one is not 0, the settings again with the sources at those weights; then the weak
    tier's limits on the rows of those settings (`weak_limits`)."""
    key, rows, chosen = _best(_predictions(cases))
    setting = tuple(chosen[k] for k in ("train_on", "features", "model", "alpha", "prior", "combine"))
    weights = source_weights(cases, setting, grid) if any(w > 0 for w in grid) else {}
    if any(w > 0 for w in weights.values()):
        key2, rows2, chosen2 = _best(_predictions(cases, weights))
        if key2[0] > key[0]:
            rows, chosen = rows2, dict(chosen2, source_weights=weights)
    if WEAK_WRONG_COST is not None:
        chosen.update(weak_limits(rows, chosen["min_tokens"], chosen["threshold"], WEAK_WRONG_COST))
    return chosen


def weak_limits(rows: list[Row], min_tokens: int, threshold: float, cost: float) -> dict:
    """The weak tier's (least confidence, least lead) over the rows the confident tier refuses: the most right
    answers, "unknown" counted as wrong - a guess of a failure family on a harmless case's log loses the right
    "no failure" answer -, less `cost` (WEAK_WRONG_COST) per wrong guess, ties to the fewest guesses (the highest limits)."""
    below = [r for r in rows if r[0] and r[2] >= min_tokens and r[1] < threshold]
    best = None
    for wt in WEAK_THRESHOLDS:
        for wm in WEAK_MARGINS:
            got = [r for r in below if r[1] >= wt and r[4] >= wm]
            right = sum(r[3] == 1 for r in got)
            lost = sum(r[5] for r in got)
            key = (right - lost - cost * (len(got) - right - lost), -len(got), wt, wm)
            if best is None or key > best[0]:
                best = (key, {"weak_threshold": wt, "weak_margin": wm,
                              "weak_cv": {"guessed": len(got), "right": right, "harmless_guessed": lost,
                                          "refused_by_confident_tier": len(below)}})
    return best[1]


def inputs_hash(cases: list[dict]) -> str:
    blob = json.dumps([[c["id"], c["family"], c["evidence"], c["lines"]] for c in cases], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def build(root: str = CORPUS) -> dict:
    return make_lexicon(fit_cases(root))


def make_lexicon(cases: list[dict], grid: tuple[float, ...] = SOURCE_WEIGHTS) -> dict:
    """The lexicon the given (fit) cases make: settings and the sources' weights chosen by CV over them, then counts
    of all of them (benchmarks/explain_cv.py calls it on 4 of 5 folds to measure how the method generalises).
    grid (0,): no source documents - the lexicon of the fit cases alone."""
    chosen = cross_validate(cases, grid)
    weights = chosen.get("source_weights")
    counts, docs = counts_of(cases, chosen["train_on"], chosen["features"], weights)
    extra = {}
    if weights:
        extra = {"source_docs": {s: len(source_docs.source_docs(s)) for s in sorted(weights) if weights[s] > 0}}
    return {"about": "explain's fallback lexicon: per-family word counts of the fit cases' evidence_lines "
                     "(multinomial naive Bayes); made by tools/build_explain_lexicon.py, do not edit",
            "fit_cases": len(cases), "inputs_sha256": inputs_hash(cases), **chosen, **extra, "docs": docs,
            "counts": counts}


def dumps(lex: dict) -> str:
    return json.dumps(lex, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the file is not what the fit cases make")
    ap.add_argument("--sources", action="store_true",
                    help="e-lex: let the CV weigh the tools' own messages too (SOURCE_WEIGHTS_TRIED); with --check "
                         "it only prints the figures")
    a = ap.parse_args()
    lex = make_lexicon(fit_cases(), SOURCE_WEIGHTS_TRIED) if a.sources else build()
    text = dumps(lex)
    cv = lex["cv"]
    print(f"fit cases: {lex['fit_cases']}; chosen by {cv['folds']}-fold CV on fit: counts of {lex['train_on']}, alpha {lex['alpha']}, prior "
          f"{lex['prior']}, lines {lex['combine']}, min known words {lex['min_tokens']}, threshold {lex['threshold']}")
    w = lex.get("weak_cv") or {"guessed": 0, "refused_by_confident_tier": 0, "right": 0}
    print(f"features {lex['features']}, model {lex['model']}; weak tier: confidence >= {lex.get('weak_threshold')}, lead "
          f">= {lex.get('weak_margin')}: guessed {w['guessed']} of the {w['refused_by_confident_tier']} the confident tier "
          f"refuses, right {w['right']} ({100 * w['right'] / max(1, w['guessed']):.1f} %)")
    print(f"CV (fit only): top-1 family right {cv['top1_all']}/{cv['cases']} "
          f"({100 * cv['top1_all'] / cv['cases']:.1f} %); answered above the threshold {cv['answered']}/{cv['cases']}, "
          f"right {cv['right']}/{cv['answered']} ({100 * cv['right'] / max(1, cv['answered']):.1f} %)")
    sw = lex.get("source_weights") or {}
    print("source documents' weights (e-lex, chosen by the same CV): " +
          (", ".join(f"{s} {w} ({lex['source_docs'].get(s, 0)} docs)" for s, w in sorted(sw.items())) if sw else
           "none (all 0: the fit cases alone)"))
    old = open(OUT, encoding="utf-8").read() if os.path.isfile(OUT) else None
    if a.check:
        print("up to date" if old == text else f"{OUT} differs from what the fit cases make")
        return 0 if old == text else 1
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {OUT} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
