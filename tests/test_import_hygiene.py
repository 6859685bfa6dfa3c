"""`rocm_tune.core` (and the CLI entry) must not pull heavy libraries at import time."""

import subprocess
import sys

HEAVY = ("torch", "transformers", "textual", "rich", "amdsmi", "pynvml", "peft", "accelerate")

SCRIPT = r"""
import importlib, pkgutil, sys, json
import rocm_tune.core as core
names = []
for m in pkgutil.walk_packages(core.__path__, "rocm_tune.core."):
    importlib.import_module(m.name)
    names.append(m.name)
import rocm_tune.cli
print(json.dumps({"modules": names, "heavy": [h for h in %r if h in sys.modules]}))
"""


def test_core_imports_no_heavy_libraries():
    out = subprocess.run([sys.executable, "-c", SCRIPT % (HEAVY,)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import json

    data = json.loads(out.stdout)
    assert "rocm_tune.core.errors" in data["modules"]
    assert data["heavy"] == [], f"heavy imports at core import time: {data['heavy']}"


def test_cli_help_lists_every_command():
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    from rocm_tune.cli import COMMANDS

    for name in COMMANDS:
        assert f"  {name} " in out.stdout


def test_unknown_command_is_one_line_exit_2():
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "frobnicate"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "'frobnicate'" in out.stderr


def test_value_errors_keep_the_allowed_range_in_one_line():
    out = subprocess.run([sys.executable, "-m", "rocm_tune", "estimate", "--model", "qwen2.5-7b", "--cutoff-len", "-5"],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip() == "rocm-tune estimate: error: --cutoff-len must be between 1 and 1048576, got -5"
