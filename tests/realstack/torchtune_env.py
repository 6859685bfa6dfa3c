"""A venv with the real torchtune for tests/realstack/test_torchtune.py, built once and cached.

Cached under ``$ROCM_TUNE_TORCHTUNE_CACHE`` (default ``~/.cache/rocm-tune/torchtune``), keyed by a hash of the pins,
the test Python's torch and its version, behind a file lock (parallel workers build it once):

* ``python -m venv --system-site-packages``: the venv imports the test Python's CPU torch; a constraints file pins
  ``torch==<that version>`` so pip can never pull another (CUDA) build.
* ``torchtune==0.6.1`` (the release on PyPI) with ``--no-deps``, then its requirements read from its metadata
  except ``blobfile`` (only tiktoken's remote loading uses it; it brings lxml and pycryptodomex, 23 MB), and
  ``torchao==0.11.0``: torchtune imports ``torchao.dtypes.nf4tensor`` at import, which torchao 0.12+ no longer
  has (torchao 0.18 fails with ModuleNotFoundError), so the torchao of torchtune 0.6.1's time is pinned.

Where a step fails (no network, no torch) `ensure_env()` returns the reason and the test skips with it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.venvcache import cached_venv

TORCHTUNE = "torchtune==0.6.1"
PINS = ["torchao==0.11.0"]
EXCLUDED = ("blobfile",)
VERSION = 1  # bump to force a rebuild


def cache_root() -> Path:
    return Path(os.environ.get("ROCM_TUNE_TORCHTUNE_CACHE") or Path.home() / ".cache" / "rocm-tune" / "torchtune")


def _torch_version(python: str) -> str | None:
    r = subprocess.run([python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True,
                       check=False)
    return r.stdout.strip() if r.returncode == 0 else None


class Env:
    def __init__(self, root: Path, seconds: float, created: bool):
        self.root = root
        self.python = str(root / "bin" / "python")
        self.tune = str(root / "bin" / "tune")
        self.seconds = seconds    # time spent building it (0 when reused from the cache)
        self.created = created


def _run(cmd: list[str], log) -> None:
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, timeout=900, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd[:6])} ...` failed with exit {r.returncode}")


def _build(root: Path, torch_version: str, log) -> None:
    subprocess.run(["rm", "-rf", str(root)], check=True)
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(root)], log)
    py = str(root / "bin" / "python")
    cons = root / "constraints.txt"
    cons.write_text(f"torch=={torch_version.split('+')[0]}\n", encoding="utf-8")
    pip = [py, "-m", "pip", "--disable-pip-version-check", "install", "--quiet", "-c", str(cons)]
    _run(pip + ["--no-deps", TORCHTUNE], log)
    reqs = json.loads(subprocess.run([py, "-c", "import importlib.metadata as m, json; print(json.dumps("
                                      "m.requires('torchtune') or []))"], capture_output=True, text=True,
                                     check=True).stdout)
    import re

    reqs = [q.split(";")[0].strip() for q in reqs if ";" not in q                 # extras ("dev") left out
            and re.split(r"[<>=!~ \[]", q, maxsplit=1)[0].strip().lower() not in EXCLUDED]
    _run(pip + [*reqs, *PINS], log)
    after = _torch_version(py)
    if after != torch_version:      # the venv's torch must still be the system's CPU build, never a download
        raise RuntimeError(f"the venv's torch is {after}, not the system's {torch_version}")
    # compile once here, so the test does not pay for it
    _run([py, "-c", "import torchtune, torchtune.training, torchtune.models.qwen2"], log)


def ensure_env() -> tuple[Env | None, str]:
    """(Env, note) or (None, the reason it could not be made)."""
    if os.environ.get("ROCM_TUNE_REALSTACK") == "0":
        return None, "ROCM_TUNE_REALSTACK=0"
    torch_version = _torch_version(sys.executable)
    if not torch_version:
        return None, "torch is not installed in the test Python (the venv reuses its CPU torch)"
    key = hashlib.sha256(json.dumps([VERSION, TORCHTUNE, PINS, EXCLUDED, torch_version, sys.version_info[:2]]).encode()).hexdigest()[:12]
    base = cache_root()
    root = base / key
    return cached_venv(base, root, ".lock", "torchtune",
                        lambda log: _build(root, torch_version, log), Env)


if __name__ == "__main__":
    env, note = ensure_env()
    print(note)
    sys.exit(0 if env else 1)
