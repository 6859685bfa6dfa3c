"""Regenerate screenshots/*.svg (every screen of the app) for the README.

Runs each scene of `rocm_tune.tui.scenes` headless on fake GPUs and recorded runs with a frozen
clock, so the pictures are reproducible. Usage:
    python screenshots/make_screenshots.py [--size 120x36] [--only plan,monitor]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent


async def shoot(name: str, size: tuple[int, int], dest: Path) -> None:
    from rocm_tune.tui.scenes import SCENES

    scene = SCENES[name]
    app = scene.make_app()
    async with app.run_test(size=size) as pilot:
        await scene.ready(pilot)
        svg = app.export_screenshot(title=f"rocm-tune - {scene.title}")
    dest.write_text(svg, encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="120x36", help="terminal size WxH (default 120x36)")
    ap.add_argument("--only", default="", help="comma list of scene names")
    args = ap.parse_args()
    w, h = (int(x) for x in args.size.lower().split("x"))
    from rocm_tune.tui.scenes import SCENES, prepare

    names = [n for n in args.only.split(",") if n] or list(SCENES)
    unknown = [n for n in names if n not in SCENES]
    if unknown:
        print(f"unknown scene {unknown[0]!r}; known: {', '.join(SCENES)}", file=sys.stderr)
        return 2
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.pop("XDG_STATE_HOME", None)  # keep the real run registry out: it is ~/.local/state/...
        os.environ["HOME"] = tmp                 # with ~ here (the launch scene shows it)
        os.environ.pop("NO_COLOR", None)
        os.chdir(tmp)
        try:
            prepare(tmp)
            for n in names:
                dest = OUT / f"{n}.svg"
                asyncio.run(shoot(n, (w, h), dest))
                print(dest.relative_to(OUT.parent))
        finally:
            os.chdir(here)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
