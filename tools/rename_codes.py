#!/usr/bin/env python3
"""Rename `check`'s UPPER_SNAKE finding codes to the one kebab-case code style (issue 24 item 3).

Deterministic and idempotent (standard library only): every whole-token occurrence of an old code in the text files
under rocm_tune/, tests/ (goldens and snapshots included), docs/, benchmarks/ and README.md is replaced by its new
code; a second run changes nothing. Where check and another family name the same fact, the new code is the other
family's (e.g. FP16_OVERFLOW -> fp16-overflow-risk, the plan's).

    python3 tools/rename_codes.py            # rewrite, print the files changed
    python3 tools/rename_codes.py --check    # exit 1 and list what is left to rename (changes nothing)
    python3 tools/rename_codes.py --root DIR # another checkout

Run it again after merging a branch that added an old-style code; add new codes to rocm_tune/core/codes.py in
kebab-case directly.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

# old -> new, one line per code. Two splits by severity are done in the code itself, not here: BF16_UNSUPPORTED
# with no bf16 at all is `bf16-unsupported` (error), emulated `bf16-emulated` (warning); WHOLE_MODEL_EVERY_GPU
# over 85 % of the card is `whole-model-fills-gpu` (error); FORMAT_NOT_MODELLED for a program a script starts is
# `program-settings-not-read` (info).
RENAMES: dict[str, str] = {
    "BAD_VALUE": "bad-value",
    "BF16_UNSUPPORTED": "bf16-emulated",
    "CONFIG_NOT_MODELLED": "config-not-modelled",
    "DATASET_NOT_IN_INFO": "dataset-not-in-info",
    "DDP_LORA_REENTRANT": "ddp-lora-gc-reentrant",
    "DEFAULT_EVAL_BATCH": "default-eval-batch",
    "DISK_WILL_FILL": "disk-will-fill",
    "DS_PRECISION_CONFLICT": "ds-precision-conflict",
    "FA2_NO_KERNELS": "fa2-no-kernels",
    "FORMAT_NOT_MODELLED": "format-not-modelled",
    "FORMAT_UNKNOWN": "format-unknown",
    "FP16_OVERFLOW": "fp16-overflow-risk",
    "FREEZE_FIRST_LAYERS": "freeze-first-layers",
    "HOST_RAM_SHORT": "host-ram-short",
    "IOMMU_MULTI_GPU_AMD": "iommu-p2p-hang-risk",
    "KERNELS_NOT_MODELLED": "kernels-not-modelled",
    "MARGIN_THIN": "margin-thin",
    "METHOD_NOT_MODELLED": "method-not-modelled",
    "MODEL_FALLBACK": "model-fallback",
    "MODEL_MISSING": "model-missing",
    "MODEL_NOT_MODELLED": "model-not-modelled",
    "MODEL_UNKNOWN": "model-unknown",
    "NO_FIX_FOUND": "no-fix-found",
    "OFFLOAD_HOST_RAM": "offload-needs-cpu-ram",
    "OOM_MARGIN_THIN": "oom-margin-thin",          # main's check (2026-11-27), not on this branch yet
    "PAGED_OPTIMIZER": "paged-optimizer",
    "PAGED_SPILL": "paged-spill",
    "QUANTIZATION_NOT_MODELLED": "quantization-not-modelled",
    "QUANTIZED_BASE_NOT_MODELLED": "quantized-base-not-modelled",
    "REFERENCE_MISSING": "reference-missing",
    "RUNNER_IGNORES_PRECISION": "runner-ignores-precision",
    "SEVERAL_TRAININGS": "several-trainings",
    "SHELL_COMMENT_CUTS_COMMAND": "shell-comment-cuts-command",
    "SHELL_SPACE_AFTER_BACKSLASH": "shell-space-after-backslash",
    "VLM_LANGUAGE_PART": "vlm-language-part",
    "WARMUP_STEPS_FLOAT": "warmup-steps-float",
    "WHOLE_MODEL_EVERY_GPU": "whole-model-every-gpu",
    "YAML_EXCERPT": "yaml-excerpt",
    "ZERO3_INIT_FLAG_FALSE": "zero3-init-flag-false",
    "ZERO_ON_ONE_GPU": "zero-on-one-gpu",
}

TARGETS = ("rocm_tune", "tests", "docs", "benchmarks", "README.md")
SKIP_DIRS = {"__pycache__", ".git", ".venv", "node_modules", ".mypy_cache", ".ruff_cache"}
# a whole token: not inside a longer identifier (MODEL_FALLBACK_X, X_MODEL_FALLBACK stay)
PATTERN = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(map(re.escape, RENAMES), key=len, reverse=True))
                     + r")(?![A-Za-z0-9_])")


def files(root: Path):
    """The text files under the targets, sorted (deterministic)."""
    for t in TARGETS:
        p = root / t
        if p.is_file():
            yield p
        elif p.is_dir():
            for f in sorted(p.rglob("*")):
                if f.is_file() and not f.is_symlink() and not (SKIP_DIRS & set(f.relative_to(root).parts)):
                    yield f


def rename_text(text: str) -> tuple[str, int]:
    """(the text with every old code replaced, how many were)."""
    return PATTERN.subn(lambda m: RENAMES[m.group(1)], text)


def _read(f: Path) -> str | None:
    try:
        data = f.read_bytes()
        return None if b"\0" in data else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def run(root: Path, check: bool) -> int:
    left = changed = 0
    for f in files(root):
        text = _read(f)
        if text is None or not PATTERN.search(text):
            continue
        new, n = rename_text(text)
        rel = f.relative_to(root)
        if check:
            left += n
            for i, line in enumerate(text.splitlines(), 1):
                for m in PATTERN.finditer(line):
                    print(f"{rel}:{i}: {m.group(1)} -> {RENAMES[m.group(1)]}")
        else:
            with open(f, "w", encoding="utf-8", newline="") as fh:   # keep the file's own line endings
                fh.write(new)
            changed += 1
            print(f"{rel}: {n} renamed")
    if check:
        print(f"{left} old code(s) left" if left else "no old code left")
        return 1 if left else 0
    print(f"{changed} file(s) changed")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if an old code is left")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent), help="the checkout (default: this)")
    a = ap.parse_args(argv)
    root = Path(a.root)
    if not (root / "rocm_tune").is_dir():
        print(f"rename_codes: {root} is not a rocm-tune checkout (no rocm_tune/)", file=sys.stderr)
        return 2
    return run(root, a.check)


if __name__ == "__main__":
    sys.exit(main())
