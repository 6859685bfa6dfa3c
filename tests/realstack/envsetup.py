"""The second environment of the test run: the real LLaMA-Factory, DeepSpeed and accelerate.

LLaMA-Factory 0.9.5 pins transformers 4.55-5.6, peft 0.18.x, accelerate <= 1.11, trl <= 0.24 and
datasets <= 4.0, so it cannot share rocm-tune's environment (transformers 5.23). This module builds a
venv for it once and caches it between runs (under ``$ROCM_TUNE_REALSTACK_CACHE``, default
``~/.cache/rocm-tune/realstack``; the key is a hash of everything below, so a change rebuilds it):

* ``python -m venv --system-site-packages``: the venv sees the CPU torch that is already installed
  (the only thing it shares); everything LLaMA-Factory pins is installed into the venv and shadows
  the system copies. Nothing is written into the system Python.
* a constraints file pins ``torch==<the installed version>``. Without it pip resolves
  ``torchvision``/``torchaudio`` to their newest releases and pulls the CUDA build of torch they
  require (hundreds of MB) next to the CPU one.
* ``llamafactory`` is installed with ``--no-deps`` and then its own requirements (read from its
  metadata) except ``torchvision``/``torchaudio`` (PyPI's wheels are CUDA builds: with a CPU-only
  torch they fail at import, ``torchvision::nms does not exist`` / ``libc10_cuda.so``) and the
  web/serving extras a training run never imports (gradio, fastapi, uvicorn, sse-starlette,
  modelscope, hf-transfer, av). LLaMA-Factory imports ``torchaudio`` unconditionally
  (``data/mm_plugin.py``, used only to load audio samples), so the venv gets a small import shim
  package ``torchaudio`` that raises if an audio function is used. The shim has no dist-info, so
  ``transformers.utils.is_torchaudio_available()`` stays False.
* ``deepspeed`` is built with ``DS_BUILD_OPS=0`` (no C++/CUDA ops at install; the CPU Adam op would be
  JIT-built on first use).
* the lowest transformers LLaMA-Factory allows (4.55.4, with its tokenizers/huggingface-hub) goes
  into a separate ``--target`` folder, ``tf-low``, put first on PYTHONPATH to check a YAML means the
  same under both ends of the pin.

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

LLAMAFACTORY = "llamafactory==0.9.5"
DEEPSPEED = "deepspeed==0.19.8"
TF_LOW = ["transformers==4.55.4", "tokenizers>=0.21,<0.22", "huggingface-hub>=0.34,<1.0"]
EXCLUDED = ("torchvision", "torchaudio", "gradio", "fastapi", "uvicorn", "sse-starlette", "modelscope",
            "hf-transfer", "av")
TORCHAUDIO_SHIM = '''"""Import shim written by rocm-tune's real-stack test set-up (tests/realstack/envsetup.py).

LLaMA-Factory imports torchaudio at module level (data/mm_plugin.py) but only uses it for audio
samples; the PyPI torchaudio wheel needs a CUDA torch and fails to load next to the CPU one.
"""


def __getattr__(name):
    raise ImportError(f"torchaudio.{name}: torchaudio is not installed in this test environment (import shim)")
'''
VERSION = 1  # bump to force a rebuild


def cache_root() -> Path:
    return Path(os.environ.get("ROCM_TUNE_REALSTACK_CACHE") or Path.home() / ".cache" / "rocm-tune" / "realstack")


def _torch_version(python: str) -> str | None:
    r = subprocess.run([python, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True,
                       check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def env_key(torch_version: str) -> str:
    spec = json.dumps([VERSION, LLAMAFACTORY, DEEPSPEED, TF_LOW, EXCLUDED, TORCHAUDIO_SHIM, torch_version,
                       sys.version_info[:2]])
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


class Env:
    def __init__(self, root: Path, seconds: float, created: bool):
        self.root = root
        self.python = str(root / "bin" / "python")
        self.tf_low = str(root / "tf-low")
        self.seconds = seconds  # time spent creating it (0 when reused from the cache)
        self.created = created

    def bin(self, name: str) -> str:
        return str(self.root / "bin" / name)


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
    _run(pip + ["--no-deps", LLAMAFACTORY], log)
    reqs_json = subprocess.run(
        [py, "-c", "import importlib.metadata as m, json; print(json.dumps(m.requires('llamafactory') or []))"],
        capture_output=True, text=True, check=True).stdout
    import re

    reqs = []
    for req in json.loads(reqs_json):
        if ";" in req:  # extras only
            continue
        name = re.split(r"[<>=!~ \[]", req, maxsplit=1)[0].strip().lower()
        if name not in EXCLUDED:
            reqs.append(req)
    env = dict(os.environ, DS_BUILD_OPS="0")
    _run(pip + ["-c", str(cons), *reqs, DEEPSPEED], log, env=env)
    # the torch the venv imports must still be the system's CPU build, never a download
    after = _torch_version(py)
    if after != torch_version:
        raise RuntimeError(f"the venv's torch is {after}, not the system's {torch_version}")
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    shim = Path(site) / "torchaudio"
    shim.mkdir(exist_ok=True)
    (shim / "__init__.py").write_text(TORCHAUDIO_SHIM, encoding="utf-8")
    _run(pip + ["--no-deps", "--target", str(root / "tf-low"), *TF_LOW], log)
    # compile once here so the first test does not pay for it
    subprocess.run([py, "-c", "import llamafactory.hparams, deepspeed, accelerate"], stdout=log,
                   stderr=subprocess.STDOUT, env=dict(os.environ, DS_ACCELERATOR="cpu"), check=False)


def _torchrun_wrapper(root: Path) -> None:
    """`torchrun` of the venv's Python: torch comes from the system site, so pip made no console script in
    the venv, and the system's `torchrun` would start workers that cannot import llamafactory."""
    p = root / "bin" / "torchrun"
    if not p.is_file():
        p.write_text(f'#!/bin/sh\nexec "{root}/bin/python" -m torch.distributed.run "$@"\n', encoding="utf-8")
        p.chmod(0o755)


def ensure_env() -> tuple[Env | None, str]:
    """(Env, note) or (None, reason it could not be made)."""
    if os.environ.get("ROCM_TUNE_REALSTACK") == "0":
        return None, "ROCM_TUNE_REALSTACK=0"
    torch_version = _torch_version(sys.executable)
    if not torch_version:
        return None, "torch is not installed in the test Python (the venv reuses its CPU torch)"
    base = cache_root()
    root = base / env_key(torch_version)
    return cached_venv(base, root, ".lock", "LLaMA-Factory",
                        lambda log: _build(root, torch_version, log), Env, on_ready=_torchrun_wrapper)


if __name__ == "__main__":
    env, note = ensure_env()
    print(note)
    sys.exit(0 if env else 1)
