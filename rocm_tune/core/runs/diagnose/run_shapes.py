"""Readings of shapes the tools' sources print, for explain (e-new14, issue 26; the shapes and their sources:
profiles/run_shapes.py). Each decides a family by FAMILIES.md's border rules:
- `data_family`: a KeyError raised reading a data row by a key it lacks (a Dataset's __getitem__, a map/formatting
  function, datasets' LazyDict) -> dataset_error; a vision tower's merge reshape to an empty leading dimension (an
  image/frame smaller than one merge unit of patches) -> dataset_error.
- `injected_rank_skew`: the script's parser refuses the `--local_rank=N` DeepSpeed's launcher (and torch < 2.0's
  torch.distributed.launch) adds to every worker: the script's release spells it `--local-rank` or reads LOCAL_RANK
  -> version_check (torch >= 2.0's `--local-rank=N` refused by a script of the old spelling stays config_error: the
  deprecated launcher's own warning names torchrun as the launch to use).
- `refused_install_root`: pip/uv refused to install a package for the running Python, and the package's command or
  module is missing later: the refusal is the root (version_check), the missing program its consequence.
- `fell_back`: a line saying the program substituted something and went on (a fallback), read as a warning.
- `MODEL_BUILD`: building the model in host RAM, a phase in which a rank killed without a word is host RAM's.
Pure: regexes only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rocm_tune.profiles import run_shapes as rs

_KEY_ERROR = re.compile(r"(?:^|\s|\]:)KeyError: (?:'([^'\n]+)'|\"([^\"\n]+)\"|None)\s*$")
_DATASETS_ROW = re.compile(rs.DATASETS_ROW_ACCESS)
_VISION = re.compile(rs.VISION_CONTEXT)
_EMPTY_MERGE = re.compile(rs.EMPTY_MERGE_RESHAPE)
_PIP_REFUSAL = re.compile(rs.PIP_PYTHON_REFUSAL)
_REFUSED_PKG = re.compile(rs.REFUSED_PACKAGE)
_MISSING = re.compile(rs.MISSING_THING)
_INJECTED = re.compile(rs.INJECTED_UNDERSCORE)
_FELL_BACK = re.compile(rs.FELL_BACK)
MODEL_BUILD = re.compile(rs.MODEL_BUILD)


def _row_subscript(key: str, pre: str) -> bool:
    """One of the traceback's last source lines reads `key` from a data row (`self.data[index]['key']`,
    `example["key"]`)."""
    rx = re.compile(r"\b" + rs.DATA_ROW_BASES + r"(?:\[[^\]\n]{1,40}\])*\[\s*['\"]" + re.escape(key) + r"['\"]\s*\]")
    lines = [ln for ln in pre.splitlines()[-30:] if ln.strip() and "File \"" not in ln]
    return any(rx.search(ln) for ln in lines[-6:])


def data_family(line: str, pre: str, texts: Sequence[str] = ()) -> tuple[str, str] | None:
    """(dataset_error, fix) for a data row read by a key it lacks, or a vision input below one merge unit."""
    m = _KEY_ERROR.search(line)
    if m is not None:
        key = m.group(1) or m.group(2)
        if _DATASETS_ROW.search(pre[-1500:]) or (key and _row_subscript(key, pre)):
            return "dataset_error", (f"the data rows have no field {key!r} where the code reads it: give the rows "
                                     "that field (the format the script/runner documents), or map the data's own "
                                     "field names to it")
        return None
    m = _EMPTY_MERGE.search(line)
    if m is not None and any(_VISION.search(t) for t in (*texts, pre)):
        return "dataset_error", (f"an image or video frame reached the vision tower as fewer patches than one merge "
                                 f"unit ({m.group(1)}): the frames are too small (or their metadata wrong); resize "
                                 "them, or set the processor's min_pixels/max_pixels so every frame keeps its size")
    return None


def injected_rank_skew(lines: Sequence[str]) -> tuple[str, str] | None:
    """(title, fix) when the script's parser refused the launcher's `--local_rank=N`, else None."""
    if not any(_INJECTED.search(ln) for ln in lines):
        return None
    return ("the script's argument parser refused `--local_rank=N`, the argument DeepSpeed's launcher (and torch < 2.0's "
            "torch.distributed.launch) adds to every worker: the script's release spells it `--local-rank` or reads "
            "LOCAL_RANK from the environment, written for another launcher release",
            "use the script's release that accepts the launcher's `--local_rank` (update it: Megatron-DeepSpeed fixed "
            "this after its Megatron-LM rebase), or launch so the argument is not passed (deepspeed --no_local_rank, "
            "or torchrun, which sets LOCAL_RANK)")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name.lower())


def _links(pkg: str, missing: str) -> bool:
    a, b = _norm(pkg), _norm(missing)
    return bool(a and b) and (b.startswith(a) or a.startswith(b))


def refused_install_root(diags: Sequence[Any], root: int | None, earlier) -> int | None:
    """The index of pip's/uv's requires-Python refusal when the root is the refused package's command or module
    missing later (its consequence), else `root`. `earlier(a, b)` orders two hits in time."""
    if root is None or diags[root].family != "missing_package":
        return root
    missing = _MISSING.search(diags[root].first.text)
    name = next((g for g in missing.groups() if g), "") if missing else ""
    for i, d in enumerate(diags):
        if i == root or d.benign:
            continue
        for h in (d.first, *d.evidence):
            if not _PIP_REFUSAL.search(h.text) or earlier(h, diags[root].first) >= 0:
                continue
            pkgs = [g for m in _REFUSED_PKG.finditer("\n".join([h.text, h.context])) for g in m.groups() if g]
            if not name or not pkgs or any(_links(p, name) for p in pkgs):
                d.family = "version_check"
                return i
    return root


def fell_back(text: str) -> bool:
    """The line says the program substituted something (a dtype, a kernel, a backend) and went on."""
    return bool(_FELL_BACK.search(text))
