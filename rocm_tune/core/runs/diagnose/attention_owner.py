"""e-hipfa (issue 26): FAMILIES.md "hip_error vs flash_attn_error" read from the frames. A HIP (or CUDA) runtime
error whose traceback's innermost own frame is flash-attn's or xformers' attention code (or whose line names their
native sources: CK's `HIP Function Failed (<flash-attention csrc>...)`) failed inside the attention kernels: the fix
is another attention implementation or an attention build for the GPU -> flash_attn_error. The arch clause and the
runtime skew readings (version_check) are decided before this one; torch's and Triton's own frames between the
error and the library are passed over (the launcher), any other library there owns the error (AITER, vLLM ops).

Pure: regexes over the log text (the spellings are data: rocm_tune/profiles/attention_owners.py).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_tune.profiles import attention_owners as ao

_OWNER_FRAMES = [(o, re.compile(p)) for o, p in ao.OWNER_FRAMES]
_OWNER_SOURCES = [(o, re.compile(p)) for o, p in ao.OWNER_SOURCES]
_PASSED = re.compile(ao.PASSED_FRAMES)
_TB_HEAD = re.compile(r"Traceback \(most recent call last\):|Stack \(most recent call first\):")
# e-hip4: the statement line is optional (Python prints none when the source cannot be read): never the next frame
_FRAME = re.compile(r'File "([^"]+)", line \d+[^\n]*\n(?:(?:\[(?:rank|default)\d+\]:)?(?!\s*File ")([^\n]*))?')
_SDPA_CALL = re.compile(ao.SDPA_CALL)
_NATIVE_FRAME = re.compile(ao.NATIVE_FRAME, re.M)
_NATIVE_OWNERS = [(o, re.compile(p)) for o, p in ao.NATIVE_OWNERS]
_NATIVE_PASSED = re.compile(ao.NATIVE_PASSED)
_NATIVE_SDPA = re.compile(ao.NATIVE_SDPA)
# the traceback must end right before the error line: at most the frames' source lines and carets in between
_TAIL_GAP = 800


def _current_frames(pre: str) -> list[tuple[str, str]]:
    """The frames (path, the statement printed under it) of the traceback that ends at the error line, innermost
    last ([] when none ends there)."""
    heads = list(_TB_HEAD.finditer(pre))
    if not heads:
        return []
    block = pre[heads[-1].end():]
    frames = list(_FRAME.finditer(block))
    if not frames or len(block) - frames[-1].end() > _TAIL_GAP:
        return []
    return [(m.group(1), m.group(2) or "") for m in frames]


def _owner_of(path: str) -> str | None:
    return next((o for o, rx in _OWNER_FRAMES if rx.search(path)), None)


def owner(text: str, pre: str) -> str | None:
    """'flash-attn' / 'xformers' when the runtime error line `text` was raised inside that library's attention code
    (its innermost own frame in the traceback `pre` ends with, or its native source named in the line), else None."""
    for o, rx in _OWNER_SOURCES:
        if rx.search(text):
            return o
    for path, statement in reversed(_current_frames(pre)):
        if _PASSED.search(path):
            continue
        return _owner_of(path) or (ao.SDPA_OWNER if _SDPA_CALL.search(statement) else None)
    return None


def native_owner(text: str, texts: Sequence[str]) -> str | None:
    """The attention library whose shared object is the innermost own frame of the c10 backtrace printed after the
    error line `text` in one of the log `texts` (None when no backtrace follows, or another library is innermost)."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    for blob in texts:
        at = blob.find(first) if first else -1
        if at < 0:
            continue
        for m in _NATIVE_FRAME.finditer(blob, at, at + ao.NATIVE_WINDOW):
            lib = m.group(1).strip()
            if _NATIVE_SDPA.search(m.group(0)):   # e-hip4: torch's fused SDPA kernels (flash / mem-efficient)
                return ao.SDPA_OWNER
            if _NATIVE_PASSED.search(lib):
                continue
            return next((o for o, rx in _NATIVE_OWNERS if rx.search(lib)), None)
    return None


def reading(owner_name: str, error: str) -> tuple[str, str, str]:
    """(title, cause, fix) for a runtime error raised inside `owner_name`'s attention kernels."""
    err = " ".join(error.split())[:120]
    return (ao.TITLE.format(owner=owner_name, error=err), ao.CAUSE.format(owner=owner_name), ao.FIX[owner_name])
