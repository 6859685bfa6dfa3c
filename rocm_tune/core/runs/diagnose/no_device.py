"""e-hipfa (issue 26): `invalid device ordinal` (hipErrorInvalidDevice) reads as a wrong index - config_error -
unless the log shows the process enumerated no GPU at all before: rccl-tests' `# Using devices` header with the
failure in place of its first device row, or a device count of zero printed, with no visibility mask set. Then no
index could have worked: the runtime sees no device (hip_error, the no-gpu-visible reading).

Pure: regexes over the log text (the spellings are data: rocm_tune/profiles/device_visibility.py).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_tune.profiles import device_visibility as dv

_HEADER = re.compile(dv.RCCL_TESTS_HEADER, re.M)
_ROW = re.compile(dv.RCCL_TESTS_ROW, re.M)
_ZERO = re.compile(dv.ZERO_GPUS)
_MASK = re.compile(dv.MASK_SET)


def _header_without_rows(blob: str, at: int) -> bool:
    """rccl-tests' device header is the last header before offset `at`, and no device row follows it."""
    heads = [m for m in _HEADER.finditer(blob, 0, at)]
    return bool(heads) and not _ROW.search(blob, heads[-1].end(), at)


def none_enumerated(line: str, texts: Sequence[str]) -> bool:
    """The failing `line` (an invalid device ordinal) came after the log showed no GPU enumerated at all."""
    first = line.strip().splitlines()[0] if line.strip() else ""
    for blob in texts:
        at = blob.find(first) if first else -1
        if at < 0:
            continue
        before = blob[:at]
        if _MASK.search(before):
            return False
        if _header_without_rows(blob, at) or _ZERO.search(before):
            return True
    return False
