"""e-new15 (issue 26): an index error whose index is garbage on a pre-Vega AMD card is the ROCm libraries'
wrong results (hip_error), not the data's (FAMILIES.md "Symptom vs cause"). Spellings and bounds:
profiles/garbage_index.py; the card's gfx: profiles/gpu_archs.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_tune.profiles import garbage_index as gi
from rocm_tune.profiles import gpu_archs as ga

_INDEX = tuple(re.compile(p) for p in gi.INDEX_ERRORS)
_CARD = tuple(re.compile(p, re.M) for p in (*ga.CARD_GFX, *gi.CARD_GFX_MORE))
_LEGACY = re.compile(gi.LEGACY_GFX)
_LEGACY_NAME = tuple(re.compile(p) for p in gi.LEGACY_NAMES)


def garbage_index(lines: Sequence[str]) -> tuple[int, int] | None:
    """(index, size) of the first index error among the lines whose index no data or tokenizer produces."""
    for line in lines:
        for rx in _INDEX:
            m = rx.search(line)
            if m is None:
                continue
            idx, size = int(m.group("idx")), int(m.group("size"))
            if abs(idx) >= gi.GARBAGE_MIN and abs(idx) >= gi.GARBAGE_RATIO * max(size, 1):
                return idx, size
    return None


def legacy_card(texts: Sequence[str]) -> str | None:
    """The pre-Vega AMD card the log shows (its gfx, or the name printed), or None."""
    for t in texts:
        for rx in _CARD:
            for m in rx.finditer(t):
                if _LEGACY.match(m.group("gfx").split(":")[0]):
                    return m.group("gfx")
        for rx in _LEGACY_NAME:
            if (name := rx.search(t)) is not None:
                return name.group(0)
    return None
