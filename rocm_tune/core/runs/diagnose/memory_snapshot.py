"""e-hidden (issue 26): the host's memory as the user's own snapshot shows it - procps `free`, `top`'s summary lines,
/proc/meminfo - exhausted when the job stopped. FAMILIES.md "Host memory vs collectives": host RAM exhausted so that a
rank died or stalled, seen on the other ranks as a collective timeout -> host_ram_oom; the snapshot is the log's own
sign of it when the kernel's kill line went to dmesg and not to the log.

Pure: regexes over the log's text (the spellings are data: rocm_tune/profiles/collective_causes.py).
"""

from __future__ import annotations

import re

from rocm_tune.profiles import collective_causes as cc

CODE = "host-ram-snapshot-full"

_FREE_HEADER = re.compile(cc.FREE_HEADER, re.M)
_FREE_ROW = re.compile(cc.FREE_ROW, re.M)
_FREE_OLD_LEFT = re.compile(cc.FREE_OLD_LEFT, re.M)
_TOP_MEM = re.compile(cc.TOP_MEM, re.M)
_TOP_AVAIL = re.compile(cc.TOP_AVAIL, re.M)
_MEMINFO_TOTAL = re.compile(cc.MEMINFO_TOTAL, re.M)
_MEMINFO_AVAIL = re.compile(cc.MEMINFO_AVAIL, re.M)
_SIZE = re.compile(r"^([\d.]+)([KMGT]i?|B)?$")


def _size(v: str) -> float | None:
    """A `free` cell in GiB-comparable units (free -h's suffixes; plain numbers keep the table's own unit)."""
    m = _SIZE.match(v)
    if not m:
        return None
    try:
        return float(m.group(1)) * cc.UNITS[m.group(2) or ""]
    except ValueError:
        return None


def _free(text: str) -> tuple[int, float, float] | None:
    """(offset, total, available) of a `free` table: the Mem row under its header."""
    h = _FREE_HEADER.search(text)
    if h is None:
        return None
    row = _FREE_ROW.search(text, h.end(), h.end() + 400)
    if row is None:
        return None
    cells = [_size(row.group(i)) for i in range(1, 7)]
    if any(c is None for c in cells):
        return None
    total = cells[0] or 0.0
    if "available" in h.group(0):
        return row.start(), total, cells[5] or 0.0
    left = _FREE_OLD_LEFT.search(text, row.end(), row.end() + 400)
    avail = _size(left.group(2)) if left else (cells[2] or 0.0) + (cells[4] or 0.0) + (cells[5] or 0.0)
    return (row.start(), total, avail) if avail is not None else None


def _top(text: str) -> tuple[int, float, float] | None:
    """(offset, total, available) of `top`'s summary lines (avail Mem on the Swap line, else free)."""
    m = _TOP_MEM.search(text)
    if m is None:
        return None
    a = _TOP_AVAIL.search(text, m.end(), m.end() + 400)
    return m.start(), float(m.group(1)), float(a.group(1) if a else m.group(2))


def _meminfo(text: str) -> tuple[int, float, float] | None:
    t = _MEMINFO_TOTAL.search(text)
    a = _MEMINFO_AVAIL.search(text, t.end(), t.end() + 400) if t else None
    return (t.start(), float(t.group(1)), float(a.group(1))) if t and a else None


def exhausted(text: str) -> tuple[int, str, float] | None:
    """(offset, line, share left) of the first snapshot in `text` whose available memory is at most
    EXHAUSTED_SHARE of the host's total, else None."""
    for read in (_free, _top, _meminfo):
        got = read(text)
        if got is None:
            continue
        off, total, avail = got
        if total > 0 and avail / total <= cc.EXHAUSTED_SHARE:
            end = text.find("\n", off)
            return off, text[off:end if end >= 0 else len(text)].strip(), avail / total
    return None
