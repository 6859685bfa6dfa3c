"""One cached, locked venv build for the real-tool tests (LLaMA-Factory, torchtune, ms-swift, Axolotl): the first
caller builds `root` under `base/lock_name` (pytest-xdist workers and tests/prebuild_envs.py wait for it), writes
`root/.complete`, and every later caller reuses it."""

from __future__ import annotations

import fcntl
import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO


def cached_venv(base: Path, root: Path, lock_name: str, what: str, build: Callable[[TextIO], None],
                make_env: Callable[[Path, float, bool], Any],
                on_ready: Callable[[Path], None] | None = None) -> tuple[Any | None, str]:
    """(make_env(root, seconds, created), note), or (None, why `what` could not be built, with its log)."""
    base.mkdir(parents=True, exist_ok=True)
    stamp = root / ".complete"
    with open(base / lock_name, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # one builder at a time (xdist workers, the background prebuild)
        if stamp.is_file():
            if on_ready is not None:
                on_ready(root)
            return make_env(root, 0.0, False), f"reused {root}"
        t0 = time.monotonic()
        log_path = base / f"{root.name}.log"
        with open(log_path, "w") as log:
            try:
                build(log)
            except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
                return None, f"could not build the {what} venv: {exc} (log: {log_path})"
        seconds = time.monotonic() - t0
        if on_ready is not None:
            on_ready(root)
        stamp.write_text(json.dumps({"seconds": round(seconds, 1)}), encoding="utf-8")
        return make_env(root, seconds, True), f"built {root} in {seconds:.0f} s"
