"""Pure render functions: state in, rich `Text` out. No widgets, no I/O, unit-testable.

Every bar and chart uses distinct characters per part (not only colours), so it stays readable
with NO_COLOR and in 256 colours.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any

from rich.text import Text

GIB = 2**30
SPARK = "▁▂▃▄▅▆▇█"
# braille dot bits for (column, row) inside a 2x4 cell
_BRAILLE = ((0x01, 0x02, 0x04, 0x40), (0x08, 0x10, 0x20, 0x80))


# ---------------------------------------------------------------- numbers
def num(x: Any) -> float | None:
    """A finite float, or None for NA / None / NaN / non-numbers."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def fmt_gib(n: Any, digits: int = 1) -> str:
    v = num(n)
    return "N/A" if v is None else f"{v / GIB:.{digits}f} GiB"


def fmt_duration(seconds: Any) -> str:
    s = num(seconds)
    if s is None or s < 0:
        return "N/A"
    s = round(s)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    if s < 86400 * 2:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    return f"{s // 86400}d {s % 86400 // 3600:02d}h"


def fmt_num(x: Any, unit: str = "", digits: int = 3) -> str:
    v = num(x)
    if v is None:
        return "N/A"
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e6):
        mant, exp = f"{v:.2e}".split("e")
        return f"{mant}e{int(exp)}{unit}"
    return f"{v:.{digits}g}{unit}"


def fmt_count(n: Any) -> str:
    v = num(n)
    if v is None:
        return "N/A"
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(v) >= div:
            return f"{v / div:.2f}{suffix}"
    return f"{int(v)}"


def fit_name(name: str, width: int) -> str:
    """Shorten `name` to `width` by cutting the middle: the tail (the size: ...-qwen-1.5b) tells presets apart."""
    if len(name) <= width:
        return name
    head = (width - 1) // 2 - 2
    return name[:head] + "…" + name[-(width - 1 - head):]


# ---------------------------------------------------------------- VRAM bar
VRAM_PARTS = (
    # key, label, fill char, style
    ("weights", "weights", "█", "bold blue"),
    ("gradients", "grads", "▓", "magenta"),
    ("optimizer", "optim", "▒", "yellow"),
    ("activations", "activ", "░", "cyan"),
    ("other", "other", "▪", "bright_black"),
)


def vram_parts(mem: dict[str, Any]) -> dict[str, int]:
    """Split per-GPU memory (plan.json `memory` / PerGpuMemory.to_dict) into the bar's parts."""
    def g(k: str) -> int:
        v = num(mem.get(k))
        return int(v) if v is not None else 0

    parts = {
        "weights": g("weights_bytes"),
        "gradients": g("gradients_bytes"),
        "optimizer": g("optimizer_bytes"),
        "activations": g("activations_bytes") + g("transient_bytes") + g("autocast_copies_bytes")
        + g("comm_buffers_bytes"),
    }
    total = max(g("reserved_bytes"), g("peak_allocated_bytes"), sum(parts.values()))
    parts["other"] = max(0, total - sum(parts.values()))
    parts["total"] = total
    return parts


def render_vram_bar(mem: dict[str, Any], vram_bytes: int, width: int = 60, limit_frac: float | None = None) -> Text:
    """One bar (weights/grads/optim/activations/other/headroom) plus a legend line."""
    width = max(10, width)
    parts = vram_parts(mem)
    total = parts["total"]
    cap = max(int(vram_bytes or 0), 1)
    scale = max(cap, total)
    text = Text()
    used_cells = 0
    for key, _label, ch, style in VRAM_PARTS:
        cells = round(parts[key] / scale * width)
        cells = min(cells, width - used_cells)
        if cells:
            text.append(ch * cells, style=style)
            used_cells += cells
    free_cells = width - used_cells
    if free_cells > 0:
        text.append("·" * free_cells, style="green")
    pct = total / cap * 100
    over = total > cap
    text.append(f" {fmt_gib(total)}/{fmt_gib(cap, 0)} {pct:.0f}%", style="bold red" if over else "bold")
    if limit_frac and not over and total > cap * limit_frac:
        text.append(" >limit", style="yellow")
    if over:
        text.append(f" OVER by {fmt_gib(total - cap)}", style="bold red")
    text.append("\n")
    first = True
    for key, label, ch, style in VRAM_PARTS:
        if parts[key] == 0 and key == "other":
            continue
        if not first:
            text.append("  ")
        first = False
        text.append(ch, style=style)
        text.append(f" {label} {parts[key] / GIB:.1f}")
    text.append("  ")
    text.append("·", style="green")
    text.append(f" free {max(0, cap - total) / GIB:.1f} GiB")
    return text


# ---------------------------------------------------------------- sparkline / histogram
def sparkline(values: Sequence[Any], width: int, lo: float | None = None, hi: float | None = None) -> str:
    """Last `width` values as block characters; missing values are blanks."""
    vals = [num(v) for v in list(values)[-width:]] if width > 0 else []
    present = [v for v in vals if v is not None]
    if not present:
        return " " * max(0, width) if width > 0 else ""
    lo = min(present) if lo is None else lo
    hi = max(present) if hi is None else hi
    span = hi - lo
    out = []
    for v in vals:
        if v is None:
            out.append(" ")
        else:
            frac = 0.5 if span <= 0 else min(1.0, max(0.0, (v - lo) / span))
            out.append(SPARK[round(frac * (len(SPARK) - 1))])
    return "".join(out).rjust(width)


def render_histogram(hist: Sequence[tuple[int, int, int]], width: int = 40, cutoff: int | None = None,
                     max_rows: int = 10) -> Text:
    """Length histogram rows `lo-hi |#### count`; bins above cutoff_len are marked as truncated."""
    rows = list(hist)
    if len(rows) > max_rows:  # merge neighbouring bins so it fits
        k = math.ceil(len(rows) / max_rows)
        merged = []
        for i in range(0, len(rows), k):
            chunk = rows[i:i + k]
            merged.append((chunk[0][0], chunk[-1][1], sum(c for _, _, c in chunk)))
        rows = merged
    text = Text()
    if not rows:
        return text.append("(no samples)")
    peak = max(c for _, _, c in rows) or 1
    label_w = max(len(f"{lo}-{hi}") for lo, hi, _ in rows)
    bar_w = max(4, width - label_w - 9)
    for i, (lo, hi, count) in enumerate(rows):
        cut = cutoff is not None and hi > cutoff
        cells = round(count / peak * bar_w)
        text.append(f"{lo}-{hi}".rjust(label_w) + " ")
        text.append(("▒" if cut else "█") * cells, style="red" if cut else "cyan")
        text.append(" " * (bar_w - cells) + f" {count:>6}")
        if i < len(rows) - 1:
            text.append("\n")
    return text


# ---------------------------------------------------------------- braille line chart
def _finite(values: Iterable[Any]) -> list[float | None]:
    return [num(v) for v in values]


def ema(values: Sequence[Any], alpha: float = 0.1) -> list[float | None]:
    """Exponential moving average, skipping missing values (display smoothing only)."""
    out: list[float | None] = []
    acc: float | None = None
    for v in _finite(values):
        if v is not None:
            acc = v if acc is None else acc + alpha * (v - acc)
        out.append(acc if v is not None else None)
    return out


def braille_grid(series: Sequence[tuple], width: int, height: int,
                 y_range: tuple[float, float] | None = None) -> tuple[list[Text], float, float]:
    """Draw each series (values, style[, marker]) into a width x height braille grid (2x4 dots per cell).

    Values are spread evenly over the width (bucket-averaged when there are more points than
    dot columns); consecutive points are joined vertically. Later series draw over earlier ones.
    A series with a marker (e.g. "•") is drawn at cell resolution with that character instead of
    braille dots, so two series stay apart without colour (NO_COLOR, monochrome terminals).
    Returns the rows and the y range used.
    """
    width, height = max(1, width), max(1, height)
    cols, rows = width * 2, height * 4
    allv = [v for ser in series for v in _finite(ser[0]) if v is not None]
    if y_range is not None:
        lo, hi = y_range
    elif allv:
        lo, hi = min(allv), max(allv)
    else:
        lo, hi = 0.0, 1.0
    if hi - lo <= 1e-12:
        pad = abs(hi) * 0.05 or 1.0
        lo, hi = lo - pad, hi + pad
    cells = [[0] * width for _ in range(height)]
    owner: list[list[str | None]] = [[None] * width for _ in range(height)]
    marks: list[list[tuple[str, str] | None]] = [[None] * width for _ in range(height)]

    def ypix(v: float) -> int:
        frac = (v - lo) / (hi - lo)
        return min(rows - 1, max(0, round((1 - frac) * (rows - 1))))

    for ser in series:
        vals, style = ser[0], ser[1]
        marker = ser[2] if len(ser) > 2 else None
        fv = _finite(vals)
        n = len(fv)
        if n == 0:
            continue
        if marker:
            _mark_series(fv, marks, width, height, ypix, marker, style)
            continue
        pts: list[int | None] = [None] * cols
        if n <= cols:
            for i, v in enumerate(fv):
                if v is not None:
                    c = 0 if n == 1 else round(i * (cols - 1) / (n - 1))
                    pts[c] = ypix(v)
        else:
            for c in range(cols):
                a = int(c * n / cols)
                b = max(int((c + 1) * n / cols), a + 1)
                good = [v for v in fv[a:b] if v is not None]
                pts[c] = ypix(sum(good) / len(good)) if good else None
        # join points: interpolate across gaps so sparse series draw as lines
        known = [(c, y) for c, y in enumerate(pts) if y is not None]
        for (c0, y0), (c1, y1) in itertools.pairwise(known):
            for c in range(c0, c1 + 1):
                t = (c - c0) / (c1 - c0) if c1 != c0 else 0
                y_here = y0 + (y1 - y0) * t
                y_prev = y0 + (y1 - y0) * ((c - 1 - c0) / (c1 - c0)) if c > c0 else y_here
                ya, yb = sorted((round((y_prev)), round(y_here)))
                for y in range(ya, yb + 1):
                    _dot(cells, owner, c, y, style)
        if len(known) == 1:
            c, y = known[0]
            _dot(cells, owner, c, y, style)
    out: list[Text] = []
    for r in range(height):
        line = Text()
        for c in range(width):
            mark = marks[r][c]
            if mark is not None:
                line.append(mark[0], style=mark[1])
                continue
            bits = cells[r][c]
            line.append(chr(0x2800 + bits) if bits else " ", style=owner[r][c] or "")
        out.append(line)
    return out, lo, hi


def _mark_series(fv: list[float | None], marks, width: int, height: int, ypix, marker: str, style: str) -> None:
    """One marker per cell column at the column's value (cell resolution, interpolated, no gaps)."""
    n = len(fv)
    for c in range(width):
        if n <= width:
            x = 0.0 if n == 1 or width == 1 else c * (n - 1) / (width - 1)
            i0 = int(x)
            i1 = min(n - 1, i0 + 1)
            a, b = fv[i0], fv[i1]
            if a is None or b is None:
                v = a if b is None else b
            else:
                v = a + (b - a) * (x - i0)
        else:
            lo_i = int(c * n / width)
            good = [x for x in fv[lo_i: max(int((c + 1) * n / width), lo_i + 1)] if x is not None]
            v = sum(good) / len(good) if good else None
        if v is not None:
            marks[ypix(v) // 4][c] = (marker, style)


def _dot(cells, owner, col: int, row: int, style: str) -> None:
    cx, dx = divmod(col, 2)
    cy, dy = divmod(row, 4)
    if 0 <= cy < len(cells) and 0 <= cx < len(cells[0]):
        cells[cy][cx] |= _BRAILLE[dx][dy]
        owner[cy][cx] = style


def render_chart(title: str, series: Sequence[tuple], width: int, height: int,
                 y_range: tuple[float, float] | None = None, x_label: str = "") -> Text:
    """A titled braille chart with a y axis: series = [(name, values, style[, marker]), ...]."""
    width, height = max(12, width), max(2, height)
    axis_w = 9
    plot_h = height - 1
    grid, lo, hi = braille_grid([tuple(ser[1:]) for ser in series], width - axis_w, plot_h, y_range)
    text = Text()
    text.append(title, style="bold")
    for ser in series:
        name, vals, style = ser[0], ser[1], ser[2]
        marker = ser[3] if len(ser) > 3 else None
        last = next((v for v in reversed(_finite(vals)) if v is not None), None)
        text.append("  ")
        text.append(marker or "⣿", style=style)
        text.append(f" {name} {fmt_num(last)}")
    if x_label and text.cell_len + len(x_label) + 2 <= width:
        text.append(f"  {x_label}", style="dim")
    text.truncate(width)
    for r, row in enumerate(grid):
        text.append("\n")
        if r == 0:
            label = fmt_num(hi)
        elif r == plot_h - 1:
            label = fmt_num(lo)
        else:
            label = ""
        text.append(label.rjust(axis_w - 1)[-(axis_w - 1):] + "┤", style="dim")
        text.append_text(row)
    return text


# ---------------------------------------------------------------- GPU pane
def _pct_bar(frac: float | None, width: int, ch: str = "█") -> Text:
    t = Text()
    if frac is None:
        return t.append("·" * width, style="dim")
    cells = round(max(0.0, min(1.0, frac)) * width)
    style = "red" if frac >= 0.9 else "yellow" if frac >= 0.75 else "green"
    t.append(ch * cells, style=style)
    t.append("·" * (width - cells), style="dim")
    return t


def render_gpu_pane(sample: Any, history: dict[str, Sequence[Any]] | None = None, width: int = 38) -> Text:
    """One GPU: name, utilisation (+ sparkline), VRAM bar (+ sparkline), temperature, power."""
    history = history or {}
    width = max(24, width)
    g = lambda k: getattr(sample, k, None)
    text = Text()
    name = str(g("name") or g("profile_id") or "GPU")
    text.append(f"GPU{g('index') if g('index') is not None else '?'} ", style="bold")
    text.append(name[: width - 6])
    spark_w = max(6, width - 22)
    util = num(g("util_percent"))
    text.append("\nutil ")
    text.append(f"{util:5.0f}%" if util is not None else "   N/A")
    text.append(" ")
    text.append_text(_pct_bar(util / 100 if util is not None else None, 8))
    text.append(" ")
    text.append(sparkline(history.get("util", []), spark_w, 0, 100), style="cyan")
    used, total = num(g("vram_used_bytes")), num(g("vram_total_bytes"))
    frac = used / total if used is not None and total else None
    text.append("\nvram ")
    text.append(f"{frac * 100:5.0f}%" if frac is not None else "   N/A")
    text.append(" ")
    text.append_text(_pct_bar(frac, 8))
    text.append(" ")
    text.append(sparkline(history.get("vram", []), spark_w, 0, total or None), style="magenta")
    text.append(f"\n     {fmt_gib(used)} / {fmt_gib(total)}")
    temp, power, plim = num(g("temp_c")), num(g("power_w")), num(g("power_limit_w"))
    text.append("\ntemp ")
    hot = temp is not None and temp >= 90
    text.append((f"{temp:.0f}°C" + (" HOT" if hot else "")) if temp is not None else "N/A",
                style="bold red" if hot else "")
    text.append("  power ")
    if power is not None:
        text.append(f"{power:.0f}" + (f"/{plim:.0f}" if plim is not None else "") + " W")
    else:
        text.append("N/A")
    return text


def render_progress(step: Any, total: Any, width: int = 30) -> Text:
    s, t = num(step), num(total)
    text = Text()
    if s is None:
        return text.append("waiting for the first step", style="dim")
    if not t:
        return text.append(f"step {int(s)}")
    frac = max(0.0, min(1.0, s / t))
    cells = int(frac * width)
    text.append("█" * cells, style="green")
    text.append("░" * (width - cells), style="dim")
    text.append(f" {int(s)}/{int(t)} {frac * 100:.0f}%")
    return text
