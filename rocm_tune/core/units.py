"""Units and their formatting: one spelling of bytes, durations, rates and learning rates.

The CLI and the app both print through these, so a number reads the same everywhere.
"""

from __future__ import annotations

import math

GIB = 2**30
MIB = 2**20


def gib(n: float) -> float:
    """Bytes -> GiB (a float)."""
    return n / GIB


def fmt_bytes_gib(n: float | None, digits: int = 1) -> str:
    """'17.8 GiB' (None -> 'n/a')."""
    if n is None:
        return "n/a"
    return f"{n / GIB:.{digits}f} GiB"


def fmt_duration(seconds: float | None) -> str:
    """A duration people read: '45 s', '12 min', '3.4 h', '2.1 d' (None -> 'n/a')."""
    if seconds is None or not math.isfinite(seconds):
        return "n/a"
    s = max(0.0, float(seconds))
    if 0 < s < 0.5:
        return "< 1 s"
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.0f} min"
    if s < 48 * 3600:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} d"


def fmt_rate(x: float | None, unit: str) -> str:
    """'55,200 tok/s' (thousands separators, no decimals from 100 up)."""
    if x is None or not math.isfinite(x):
        return f"n/a {unit}"
    if abs(x) >= 100:
        return f"{x:,.0f} {unit}"
    if abs(x) >= 10:
        return f"{x:.1f} {unit}"
    return f"{x:.2f} {unit}"


def fmt_lr(x: float | None) -> str:
    """A learning rate in scientific notation with two decimals: '2.30e-06' -> '2.3e-06' style."""
    if x is None or not math.isfinite(x):
        return "n/a"
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant}e{exp}"


def fmt_percent(fraction: float | None, digits: int = 0) -> str:
    """0.853 -> '85%' (digits after the point optional)."""
    if fraction is None or not math.isfinite(fraction):
        return "n/a"
    return f"{fraction * 100:.{digits}f}%"
