"""`explain` over the project's corpus of real failure logs (issue 26): no regression, no benign root.

Runs the diagnosis engine in-process (as `rocm-tune explain LOG` does, files beside the log included)
over every case in benchmarks/corpus/logs and compares the root cause's family with the case's
`family`. benchmarks/corpus/explain-baseline.json records each case's result when it was last
measured (`python benchmarks/corpus_explain.py --write-baseline`): a case right there must stay
right, and a harmless line (a library warning) is never the root of any case. Accuracy by family,
runner and split is printed by benchmarks/corpus_explain.py; this test only guards.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus_explain  # noqa: E402

CASES = corpus_explain.load_cases(str(ROOT / "benchmarks" / "corpus" / "logs"))
BASELINE_PATH = ROOT / "benchmarks" / "corpus" / "explain-baseline.json"
BASELINE = json.loads(BASELINE_PATH.read_text()) if BASELINE_PATH.is_file() else {}

pytestmark = pytest.mark.skipif(not CASES, reason="no corpus cases in benchmarks/corpus/logs")


@pytest.fixture(scope="module")
def results():
    return {r["id"]: r for r in (corpus_explain.explain_case(d, c) for d, c in CASES)}


def test_a_benign_line_is_never_the_root(results):
    benign = [f"{i}: {r['code']}" for i, r in results.items() if r["benign_root"]]
    assert not benign, benign


def test_no_case_right_in_the_baseline_became_wrong(results):
    regressed = [f"{i}: expected {r['expected']}, now {r['found']} ({r['code']})"
                 for i, r in results.items() if BASELINE.get(i, {}).get("ok") and not r["ok"]]
    assert not regressed, regressed


def test_the_baseline_records_what_the_engine_answers():
    # the baseline is measured, not written by hand: every case it names that is still in the corpus
    # with the same expected family was recorded with a found family and code from the catalogue
    from rocm_tune.core import codes
    from rocm_tune.core.runs import catalogue as cat

    for cid, rec in BASELINE.items():
        assert rec["found"] in cat.FAMILIES, cid
        # a catalogue code, or one of explain's own codes (core/codes.py: the fallback, last reading, silent hang...)
        assert rec["code"] is None or rec["code"] in cat.BY_CODE or rec["code"] in codes.codes_of("explain") or \
            rec["code"] in ("config-memory-risk", "live-stall"), cid
        assert rec["ok"] == (rec["found"] == rec["expected"]), cid
