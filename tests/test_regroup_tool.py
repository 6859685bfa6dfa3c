"""tools/regroup.py (issue 24 item 5) on a small checkout made here: every way a moved module is named is
rewritten, what stays is left alone, the modules move, and a second run changes nothing (--check says so)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "regroup.py"


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _checkout(root: Path) -> None:
    for pkg in ("rocm_tune", "rocm_tune/core", "rocm_tune/core/runs", "rocm_tune/core/devices"):
        _write(root, f"{pkg}/__init__.py", "")
    _write(root, "rocm_tune/core/plan.py", "class Plan:\n    pass\n")
    _write(root, "rocm_tune/core/plan_search.py", "def search():\n    return 1\n")
    _write(root, "rocm_tune/core/units.py", "GIB = 2**30\n")
    _write(root, "rocm_tune/core/devices/types.py", "X = 1\n")
    _write(root, "rocm_tune/core/runs/watch.py", "def snapshot():\n    return 2\n")
    _write(root, "rocm_tune/core/runs/diagnose.py", "def diagnose():\n    return 3\n")
    _write(root, "rocm_tune/core/runs/brand_new.py", "Y = 1\n")
    _write(root, "tests/test_x.py", (
        "from rocm_tune.core import plan_search, units\n"
        "from rocm_tune.core.plan import Plan  # noqa: F401\n"
        "from rocm_tune.core.runs import watch as w\n"
        "from rocm_tune.core.runs import diagnose\n"
        "from rocm_tune.core.devices.types import X\n"
        "import rocm_tune.core.runs.watch\n"
        "\n"
        "def test_it(monkeypatch):\n"
        "    from rocm_tune.core.runs.diagnose import diagnose as d\n"
        "    monkeypatch.setattr('rocm_tune.core.runs.diagnose.diagnose', lambda: 4)\n"
        "    cmd = ['python', '-m', 'rocm_tune.core.runs.watch']  # core.plan_search, core/runs/watch.py\n"
        "    return plan_search, units, Plan, w, diagnose, X, rocm_tune.core.runs.watch.snapshot, d, cmd\n"))
    _write(root, "README.md", "See `rocm_tune/core/plan.py`, `core/devices/` and `core/runners/`, and core.units.\n")


def _run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), "--root", str(root), *args], capture_output=True, text=True,
                          check=False, timeout=120)


def test_regroup_moves_rewrites_and_is_idempotent(tmp_path):
    _checkout(tmp_path)
    r = _run(tmp_path, "--check")
    assert r.returncode == 1 and "to move: rocm_tune/core/plan.py -> rocm_tune/core/plan/plan.py" in r.stdout
    assert "not placed (not in the map, left where it is): rocm_tune.core.runs.brand_new" in r.stdout

    r = _run(tmp_path)
    assert r.returncode == 0, r.stderr
    core = tmp_path / "rocm_tune" / "core"
    assert (core / "plan" / "plan.py").is_file() and not (core / "plan.py").exists()
    assert (core / "plan" / "search.py").is_file() and (core / "plan" / "__init__.py").is_file()
    assert (core / "hardware" / "devices" / "types.py").is_file() and not (core / "devices").exists()
    assert (core / "runs" / "watch" / "watch.py").is_file() and (core / "runs" / "diagnose" / "diagnose.py").is_file()
    assert (core / "runs" / "brand_new.py").is_file() and (core / "units.py").is_file()

    test = (tmp_path / "tests" / "test_x.py").read_text()
    assert "from rocm_tune.core.plan import search as plan_search\nfrom rocm_tune.core import units\n" in test
    assert "from rocm_tune.core.plan.plan import Plan  # noqa: F401\n" in test
    assert "from rocm_tune.core.runs.watch import watch as w\n" in test
    assert "from rocm_tune.core.runs.diagnose import diagnose\n" in test
    assert "from rocm_tune.core.hardware.devices.types import X\n" in test
    assert "import rocm_tune.core.runs.watch.watch\n" in test
    assert "    from rocm_tune.core.runs.diagnose.diagnose import diagnose as d\n" in test
    assert "'rocm_tune.core.runs.diagnose.diagnose.diagnose'" in test
    assert "'-m', 'rocm_tune.core.runs.watch.watch']  # core.plan.search, core/runs/watch/watch.py" in test
    assert "rocm_tune.core.runs.watch.watch.snapshot" in test
    readme = (tmp_path / "README.md").read_text()
    assert readme == "See `rocm_tune/core/plan/plan.py`, `core/hardware/devices/` and `core/runners/`, and core.units.\n"

    # the rewritten code imports and runs
    env_code = ("import sys; sys.path.insert(0, 'tests'); import test_x\n"
                "class M:\n    def setattr(self, *a): pass\n"
                "print(test_x.test_it(M())[6]())")
    r = subprocess.run([sys.executable, "-c", env_code], cwd=tmp_path, capture_output=True, text=True, check=False,
                       env={"PYTHONPATH": str(tmp_path)})
    assert r.returncode == 0 and r.stdout.strip() == "2", r.stderr

    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert _run(tmp_path).returncode == 0
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert after == before
    r = _run(tmp_path, "--check")
    assert r.returncode == 0 and "0 moves, 0 packages, 0 files to rewrite" in r.stdout, r.stdout
