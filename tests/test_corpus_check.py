"""`check` over every configuration of the project's corpus (benchmarks/corpus/configs), against the committed
per-case baseline (benchmarks/corpus/check-baseline.json): a case that was right must stay right (not become
wrong or unknown). In process, a few seconds; skips cleanly while the corpus is empty.

The baseline records what check answered when it was last accepted; rebuild it after a change that makes cases
right with ROCM_TUNE_UPDATE_BASELINE=1 (a case that turns wrong must be explained, not re-baselined).
Cases marked "outcome_unverified" (the source states no outcome) are left out of the run and of the baseline."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "benchmarks" / "corpus" / "check-baseline.json"


def _bench():
    spec = importlib.util.spec_from_file_location("corpus_check", ROOT / "benchmarks" / "corpus_check.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_no_case_that_was_right_turns_wrong_or_unknown():
    bench = _bench()
    cases, _left_out = bench.scored_and_left_out(bench.cases(bench.DEFAULT))
    if not cases:
        pytest.skip(f"no scored corpus cases in {bench.DEFAULT}")
    results = {r["id"]: r for r in (bench.run_case(c, in_process=True) for c in cases)}
    if os.environ.get("ROCM_TUNE_UPDATE_BASELINE"):
        BASELINE.parent.mkdir(parents=True, exist_ok=True)
        BASELINE.write_text(json.dumps({i: {"verdict": r["verdict"], "right": r["right"]}
                                        for i, r in sorted(results.items())}, indent=1) + "\n", encoding="utf-8")
    base = json.loads(BASELINE.read_text(encoding="utf-8")) if BASELINE.is_file() else {}
    lost = [f"{i}: was {b['verdict']} (right), now {results[i]['verdict']} -- {results[i]['reason']}"
            for i, b in base.items() if b.get("right") and i in results and not results[i]["right"]]
    assert lost == [], "cases that were right are not any more:\n" + "\n".join(lost)
    # every case ran through the real command and came back with a verdict of the vocabulary
    assert {r["verdict"] for r in results.values()} <= {"fits", "oom", "unknown", "error"}


def test_the_comparison_can_fail(tmp_path):
    """A right case whose verdict flips is reported (the check above is not vacuous)."""
    bench = _bench()
    r = {"id": "x", "runner": "llamafactory", "split": "fit", "amd": False, "outcome": "fits", "verdict": "oom",
         "right": False, "reason": ""}
    assert bench.summary([r])["all"]["right"] == 0
    good = dict(r, verdict="fits", right=True)
    s = bench.summary([good, r, dict(r, verdict="unknown")])
    assert s["all"]["answered"] == 2 and s["all"]["unknown_rate"] == pytest.approx(0.333, abs=1e-3)


def _write_case(root: Path, case_id: str, split: str, **extra) -> None:
    d = root / case_id
    d.mkdir()
    (d / "train.yaml").write_text("model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nfinetuning_type: lora\n"
                                  "cutoff_len: 1024\nper_device_train_batch_size: 1\nbf16: true\n", encoding="utf-8")
    (d / "case.json").write_text(json.dumps({"id": case_id, "runner": "llamafactory", "split": split,
                                             "outcome": "fits", "config_files": ["train.yaml"],
                                             "check_args": ["--vram-gib", "80"], **extra}), encoding="utf-8")


def test_a_case_whose_outcome_is_unverified_is_not_scored(tmp_path, capsys):
    """A case marked outcome_unverified stays readable but is neither run nor counted; the count is printed."""
    bench = _bench()
    _write_case(tmp_path, "lf-x-scored", "fit")
    _write_case(tmp_path, "lf-y-unverified", "held", outcome_unverified=True)
    scored, left_out = bench.scored_and_left_out(bench.cases(str(tmp_path)))
    assert [c["id"] for c in scored] == ["lf-x-scored"] and [c["id"] for c in left_out] == ["lf-y-unverified"]
    assert bench.main([str(tmp_path), "--in-process", "--wrong", "all"]) == 0
    out = capsys.readouterr().out
    all_line = next(line for line in out.splitlines() if line.startswith("all "))
    assert all_line.split()[1] == "1"                      # one case in the figures, not two
    assert "lf-y-unverified" not in out and "split=held" not in out
    assert "outcome_unverified: the source states no outcome): 1 (held 1)" in out
    assert bench.main([str(tmp_path), "--in-process", "--json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["lf-x-scored"]
