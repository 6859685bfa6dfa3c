"""The public corpus stays well-formed: every case has the schema's keys, follows the split rule, names a known
family, and every deciding line it lists is really in its log (benchmarks/corpus/SCHEMA.md)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], capture_output=True,
                          text=True, timeout=300, check=False)


def test_every_log_case_is_well_formed():
    p = _run("corpus_log_stats.py", "--check")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]
    assert p.stdout.strip().endswith("check: ok")


def test_every_config_case_is_well_formed():
    p = _run("corpus_stats.py")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-2000:]


def test_the_split_rule_has_one_home():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from corpus_stats import split_of
    import corpus_log_stats
    assert corpus_log_stats.expected_split is split_of
    assert {split_of(f"case-{i}") for i in range(30)} == {"fit", "held"}
