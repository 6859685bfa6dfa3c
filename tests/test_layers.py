"""The house rules are enforced, not just written down (issue 11): the import-linter contracts of
pyproject.toml ([tool.importlinter]: core imports no tui/commands/train, profiles imports nothing of
rocm_tune, tui imports no commands, train imports no tui) and mypy on the whole rocm_tune package with no
module exempted ([tool.mypy], issue 24 item 5), and ruff over the package, the tests and the
benchmarks ([tool.ruff.lint]: errors, unused names, likely bugs).

The tools come with the `dev` extra; where they are not installed the tests say so and skip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=os.path.dirname(sys.executable))
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
    return found


def _run(argv: list[str], timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(argv, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_ruff_finds_nothing():
    r = _run([_tool("ruff"), "check", "--no-cache", "rocm_tune", "tests", "benchmarks"])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "All checks passed!" in r.stdout, r.stdout[-2000:]


def test_ruff_config_selects_the_house_rules():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    lint = text.split("[tool.ruff.lint]", 1)[1].split("\n[", 1)[0]
    assert 'select = ["E4", "E7", "E9", "F", "B"]' in lint


def test_import_contracts_hold():
    r = _run([_tool("lint-imports"), "--no-cache"])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "4 kept, 0 broken" in r.stdout


def test_mypy_config_checks_whole_package_without_exemptions():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    mypy_section = text.split("[tool.mypy]", 1)[1].split("\n[", 1)[0]
    assert 'files = ["rocm_tune"]' in mypy_section
    assert "ignore_errors" not in mypy_section and "[[tool.mypy.overrides]]" not in text


@pytest.mark.slow
def test_mypy_passes_on_whole_package():
    r = _run([_tool("mypy")])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    n_files = len(list((ROOT / "rocm_tune").rglob("*.py")))
    assert f"Success: no issues found in {n_files} source files" in r.stdout, r.stdout[-2000:]
