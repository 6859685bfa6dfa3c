"""e-g910 (issue 26): families of a generic exception read from where it was raised (tables: profiles/
exception_sources.py).

- transformers' own modeling file reshaping the attention output to the width its release derives, failing with
  torch's `shape '[b, s, H]' is invalid for input of size N` where N / (b*s) is a whole other width W: the
  checkpoint's attention width (heads x config.head_dim) is not hidden_size, which only releases that read
  config.head_dim handle (Mistral-NeMo on transformers < 4.43). FAMILIES.md Rule 1, refined: the log shows the two
  widths (H in the shape, W from N) and that the code is the installed library's, not the user's: version_check.
- flash-linear-attention's TileLang backend failing to build its kernel for this GPU (TVM/TileLang errors under a
  frame of fla/ops/.../backends/tilelang/): the attention library's backend choice, flash_attn_error, fix
  FLA_TILELANG=0 (FAMILIES.md: the fix is another implementation of the same attention op).
- a CUDA-only package (nvidia-resiliency-ext) that an option loads, missing: on a log without NVIDIA's marks (this
  tool's stack, ROCm) the option is the fix (config_error); with them, installing it is (missing_package).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.profiles import exception_sources as src

_MODELING = re.compile(src.MODELING_FRAME)
_RESHAPE = re.compile(src.WIDTH_RESHAPE)
_SHAPE = re.compile(src.SHAPE_INVALID)
_FLA_TL = re.compile(src.FLA_TILELANG_FRAME)
_IMPORT = re.compile(src.IMPORT_FAILURE)
_CUDA_ONLY = tuple((re.compile(rx, re.I), fix) for rx, fix in src.CUDA_ONLY_PACKAGES.items())
_NVIDIA = re.compile(r"\b(?:NVIDIA|nvidia-smi|CUDA Version|GeForce|Tesla|libcuda\.so|sm_\d{2,3}|\+cu\d{2,3}|"
                     r"A100|H100|H200|H20|L40S?|RTX \d{4})\b")
NVIDIA_MARKERS = _NVIDIA     # a log that shows NVIDIA's stack (driver, CUDA build, card names)


def width_skew(frames: Sequence[tuple[str, str]], statement: str, line: str) -> tuple[str, str] | None:
    """version_check when transformers' modeling file (the last frame) reshapes to the derived width and the input
    holds a whole other width; None otherwise."""
    if not frames or not statement:
        return None
    path, _fn = frames[-1]
    m_frame = _MODELING.search(path.replace("\\", "/"))
    m = _SHAPE.search(line)
    if m_frame is None or m is None or not _RESHAPE.search(statement):
        return None
    dims = [int(d) for d in m.group(1).replace(" ", "").split(",") if d]
    size = int(m.group(2))
    lead = 1
    for d in dims[:-1]:
        lead *= d
    if len(dims) < 2 or lead <= 0 or size % lead or size // lead == dims[-1]:
        return None
    fix = src.WIDTH_SKEW_FIX.format(width=size // lead, hidden=dims[-1], model=m_frame.group(1))
    return "version_check", fix


def fla_tilelang(pre: str, line: str) -> tuple[str, str] | None:
    """flash_attn_error when the traceback runs through FLA's TileLang backend and the exception is not an import
    failure (the package rules read those)."""
    if _IMPORT.search(line) or not _FLA_TL.search(pre):
        return None
    return "flash_attn_error", src.FLA_TILELANG_FIX


def cuda_only_package(line: str, texts: Sequence[str]) -> tuple[str, str] | None:
    """config_error (the option that loads it) when the exception names a CUDA-only package and the log has a ROCm
    mark or no NVIDIA mark; missing_package with an NVIDIA mark only; None when no such package is named."""
    for rx, fix in _CUDA_ONLY:
        if rx.search(line):
            rocm = any(cat.ROCM_MARKERS.search(t) for t in texts)
            if not rocm and any(_NVIDIA.search(t) for t in texts):
                return "missing_package", src.CUDA_ONLY_NVIDIA_FIX
            return "config_error", fix
    return None
