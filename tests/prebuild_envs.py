"""Build the real tools' cached venvs (LLaMA-Factory/DeepSpeed, torchtune, ms-swift, Axolotl) side by side, in the
background of a test run: their downloads then overlap with the rest of the suite instead of each holding up the
xdist worker that first needs it. Each builder takes its own file lock, so a fixture that asks for a venv while it
is being built here waits for it and then reuses it; one already built is only checked.

    python -m tests.prebuild_envs [MODULE ...]   (tests/conftest.py starts it with the builders the collected
                                                  tests need; default: all)
"""

from __future__ import annotations

import importlib
import sys
import threading
import time

BUILDERS = ("tests.realstack.envsetup", "tests.realstack.torchtune_env", "tests.swiftstack.envsetup",
            "tests.realstack.axolotl_env")


def _build(name: str, notes: list[str]) -> None:
    t0 = time.monotonic()
    try:
        _env, why = importlib.import_module(name).ensure_env()
    except Exception as exc:  # noqa: BLE001 - a builder's failure is the fixture's to report (it retries and skips)
        why = f"failed: {type(exc).__name__}: {exc}"
    notes.append(f"{name}: {why} ({time.monotonic() - t0:.0f} s)")


def main() -> int:
    notes: list[str] = []
    names = [n for n in sys.argv[1:] if n in BUILDERS] or list(BUILDERS)
    threads = [threading.Thread(target=_build, args=(name, notes), daemon=True) for name in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("\n".join(notes), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
