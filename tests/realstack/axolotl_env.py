"""The real Axolotl for tests/realstack/test_axolotl.py, in its own cached venv (as tests/realstack/envsetup.py does
for LLaMA-Factory: `python -m venv --system-site-packages`, the test Python's CPU torch shared and pinned by a
constraints file, so pip never pulls a CUDA torch; cached under ``~/.cache/rocm-tune/realstack/axolotl-<hash>``,
the hash over everything below, built by one process at a time under a lock).

Axolotl 0.19.0 pins ~60 packages (gradio, modal, lm_eval, s3fs/gcsfs/adlfs, xformers, flash-linear-attention, ...)
that loading a config and training one step never import, and some (xformers, fla-core) have no CPU build. So
``axolotl`` goes in with ``--no-deps`` and then only the requirements its config loader and trainer import
(`IMPORTED`, at the versions Axolotl's own metadata pins them): the transformers/peft/accelerate/datasets/trl/pydantic
stack, its contribs, and the modules its CLI and train path import at module level (posthog for telemetry, numba,
fire, bitsandbytes, fastcore, triton, evaluate, wandb: Triton is 1 GB installed, but the trainer imports it at
module level, and torch takes any importable `triton` for the real one, so no import shim can stand in for it).
If the venv cannot be built (no network, no torch), `ensure_env()` gives the reason and the tests skip with it."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.venvcache import cached_venv

from tests.realstack.envsetup import _run, _torch_version, cache_root

AXOLOTL = "axolotl==0.19.0"
# distribution names (as Axolotl's metadata spells them) whose pins come along; everything else it requires is
# never imported by `axolotl.cli.config.load_cfg` / `axolotl.cli.train` on one process
IMPORTED = ("transformers", "peft", "accelerate", "datasets", "trl", "pydantic", "tokenizers", "huggingface_hub",
            "addict", "pyyaml", "packaging", "posthog", "numba", "fire", "bitsandbytes", "fastcore", "triton",
            "evaluate", "wandb", "axolotl-contribs-lgpl", "axolotl-contribs-mit")
# imported at module level by axolotl's config loader (axolotl/utils/schemas/multimodal.py: PIL.Image) but not in
# its metadata (another requirement brings it): installed by name, since the venv's system site-packages may lack it
ALSO = ("pillow",)
VERSION = 4  # bump to force a rebuild


def env_key(torch_version: str) -> str:
    spec = json.dumps([VERSION, AXOLOTL, IMPORTED, ALSO, torch_version, sys.version_info[:2]])
    return hashlib.sha256(spec.encode()).hexdigest()[:12]


class AxolotlEnv:
    def __init__(self, root: Path, seconds: float, created: bool):
        self.root = root
        self.python = str(root / "bin" / "python")
        self.seconds = seconds      # time spent creating it (0 when reused from the cache)
        self.created = created


def _requirements(py: str) -> list[str]:
    """Axolotl's own pins of the IMPORTED distributions (platform markers evaluated by pip)."""
    reqs = json.loads(subprocess.run(
        [py, "-c", "import importlib.metadata as m, json; print(json.dumps(m.requires('axolotl') or []))"],
        capture_output=True, text=True, check=True).stdout)
    out = []
    for req in reqs:
        if "extra ==" in req:
            continue
        name = re.split(r"[<>=!~ ;\[]", req, maxsplit=1)[0].strip().lower().replace("_", "-")
        if name in {n.replace("_", "-") for n in IMPORTED}:
            out.append(req)
    return out


def _build(root: Path, torch_version: str, log) -> None:
    subprocess.run(["rm", "-rf", str(root)], check=True)
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(root)], log)
    py = str(root / "bin" / "python")
    pip = [py, "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    cons = root / "constraints.txt"
    cons.write_text(f"torch=={torch_version.split('+')[0]}\n", encoding="utf-8")
    _run(pip + ["--no-deps", AXOLOTL], log)
    _run(pip + ["-c", str(cons), *_requirements(py), *ALSO], log)
    after = _torch_version(py)
    if after != torch_version:
        raise RuntimeError(f"the venv's torch is {after}, not the system's {torch_version}")
    # compile once here so the first test does not pay for it
    subprocess.run([py, "-c", "import axolotl.cli.config"], stdout=log, stderr=subprocess.STDOUT, check=False)


def ensure_env() -> tuple[AxolotlEnv | None, str]:
    """(AxolotlEnv, note) or (None, the reason it could not be made)."""
    if os.environ.get("ROCM_TUNE_REALSTACK") == "0":
        return None, "ROCM_TUNE_REALSTACK=0"
    torch_version = _torch_version(sys.executable)
    if not torch_version:
        return None, "torch is not installed in the test Python (the venv reuses its CPU torch)"
    base = cache_root()
    root = base / f"axolotl-{env_key(torch_version)}"
    return cached_venv(base, root, ".axolotl.lock", "Axolotl",
                        lambda log: _build(root, torch_version, log), AxolotlEnv)


if __name__ == "__main__":
    env, note = ensure_env()
    print(note)
    sys.exit(0 if env else 1)
