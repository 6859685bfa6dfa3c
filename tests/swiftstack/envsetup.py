"""The ms-swift environment of the test run: the real `swift` that `export --format swift` writes for.

ms-swift 4.6 pins transformers < 5.20 and peft < 0.21, so it cannot share rocm-tune's environment
(transformers 5.2x, peft 0.21). Built once and cached like tests/realstack/envsetup.py (under
``$ROCM_TUNE_SWIFT_CACHE``, default ``~/.cache/rocm-tune/swift``; the key is a hash of everything below):

* ``python -m venv --system-site-packages``: the venv reuses the installed CPU torch; a constraints file
  pins ``torch==<that version>`` so no dependency can pull a CUDA build.
* ``ms-swift`` with ``--no-deps``, then only what ``swift sft`` imports to parse its arguments and train
  (REQUIRES): not its web UI, serving, evaluation or tokenizer extras (gradio, fastapi, uvicorn, openai,
  tensorboard, matplotlib, nltk, rouge, tiktoken, oss2, cpm_kernels, transformers_stream_generator).
* ``deepspeed`` with ``DS_BUILD_OPS=0``: SftArguments checks it is installed when ``--deepspeed`` is given.

If any step fails (no network, no torch), `ensure_env()` returns the reason and the tests skip with it.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.venvcache import cached_venv

MS_SWIFT = "ms-swift==4.6.0"
REQUIRES = ["transformers>=4.33,<5.20", "peft>=0.11,<0.21", "trl>=0.15,<1.0", "datasets>=4.0,<4.8.5",
            "modelscope>=1.23", "addict", "attrdict", "binpacking", "dacite", "json-repair", "simplejson",
            "sortedcontainers", "einops", "zstandard", "deepspeed==0.19.8",
            # swift's templates import PIL at module level (ms-swift's own requirement): a machine whose system
            # Python has no Pillow (the venv shares its site-packages) must get it here
            "pillow"]
VERSION = 2  # bump to force a rebuild


def cache_root() -> Path:
    return Path(os.environ.get("ROCM_TUNE_SWIFT_CACHE") or Path.home() / ".cache" / "rocm-tune" / "swift")


def _torch_version(python: str) -> str | None:
    r = subprocess.run([python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True,
                       check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def env_key(torch_version: str) -> str:
    spec = json.dumps([VERSION, MS_SWIFT, REQUIRES, torch_version, sys.version_info[:2]])
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


class Env:
    def __init__(self, root: Path, seconds: float, created: bool):
        self.root = root
        self.python = str(root / "bin" / "python")
        self.bin_dir = str(root / "bin")
        self.seconds = seconds  # time spent creating it (0 when reused from the cache)
        self.created = created


def _run(cmd: list[str], log, env: dict | None = None) -> None:
    log.write(f"$ {' '.join(cmd)}\n")
    log.flush()
    r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, timeout=1500, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd[:6])} ...` failed with exit {r.returncode}")


def _build(root: Path, torch_version: str, log) -> None:
    subprocess.run(["rm", "-rf", str(root)], check=True)
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(root)], log)
    py = str(root / "bin" / "python")
    pip = [py, "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    cons = root / "constraints.txt"
    cons.write_text(f"torch=={torch_version.split('+')[0]}\n", encoding="utf-8")
    _run(pip + ["--no-deps", MS_SWIFT], log)
    _run(pip + ["-c", str(cons), *REQUIRES], log, env=dict(os.environ, DS_BUILD_OPS="0"))
    after = _torch_version(py)
    if after != torch_version:
        raise RuntimeError(f"the venv's torch is {after}, not the system's {torch_version}")
    # compile once here so the first test does not pay for it
    subprocess.run([py, "-c", "import swift.arguments"], stdout=log, stderr=subprocess.STDOUT, check=False)


def ensure_env() -> tuple[Env | None, str]:
    """(Env, note) or (None, reason it could not be made)."""
    if os.environ.get("ROCM_TUNE_REALSTACK") == "0":
        return None, "ROCM_TUNE_REALSTACK=0"
    try:   # the installed distribution's version (== torch.__version__), without importing torch (seconds)
        import importlib.metadata

        torch_version: str | None = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = None
    if not torch_version:
        return None, "torch is not installed in the test Python (the venv reuses its CPU torch)"
    base = cache_root()
    root = base / env_key(torch_version)
    return cached_venv(base, root, ".lock", "ms-swift",
                        lambda log: _build(root, torch_version, log), Env)


if __name__ == "__main__":
    env, note = ensure_env()
    print(note)
    sys.exit(0 if env else 1)
