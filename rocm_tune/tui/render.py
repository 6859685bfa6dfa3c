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

from rocm_tune.core.units import fmt_bytes_gib, fmt_lr, fmt_rate
from rocm_tune.core.units import fmt_duration as _units_duration

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
    """'17.8 GiB' (core.units.fmt_bytes_gib); 'n/a' for NA / None / NaN."""
    return fmt_bytes_gib(num(n), digits)


def fmt_duration(seconds: Any) -> str:
    """core.units.fmt_duration ('45 s', '12 min', '3.4 h'); 'n/a' for NA / None / NaN / negative."""
    v = num(seconds)
    return _units_duration(v if v is not None and v >= 0 else None)


def fmt_clock(seconds: Any) -> str:
    """An elapsed / remaining time as a clock, like tqdm: '01:22', '1:02:03' ('n/a' when unknown)."""
    v = num(seconds)
    if v is None or v < 0:
        return "n/a"
    s = round(v)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def fmt_tok_s(x: Any) -> str:
    """'55,200 tok/s' (core.units.fmt_rate)."""
    return fmt_rate(num(x), "tok/s")


def fmt_s_step(x: Any) -> str:
    """'0.70 s/step' (core.units.fmt_rate)."""
    return fmt_rate(num(x), "s/step")


def fmt_num(x: Any, unit: str = "", digits: int = 3) -> str:
    """A plain value: NaN / inf as such (a NaN loss is news), tiny values like a learning rate in
    scientific notation (core.units.fmt_lr), large ones with thousands separators."""
    if isinstance(x, float) and not math.isfinite(x):
        return ("NaN" if math.isnan(x) else ("inf" if x > 0 else "-inf")) + unit
    v = num(x)
    if v is None:
        return "n/a"
    if v != 0 and abs(v) < 1e-3:
        return fmt_lr(v) + unit
    if abs(v) >= 1e3:
        return f"{v:,.0f}{unit}"
    return f"{v:.{digits}g}{unit}"


def axis_labels(lo: float, hi: float) -> tuple[str, str]:
    """The y-axis ends of a chart with the same precision: enough decimals to tell them apart."""
    span = abs(hi - lo)
    big = max(abs(lo), abs(hi))
    if big and big < 1e-3:
        return fmt_lr(hi), fmt_lr(lo)
    if big >= 1e3:
        return f"{hi:,.0f}", f"{lo:,.0f}"
    decimals = 0 if span <= 0 else max(0, min(3, 2 - math.floor(math.log10(span))))
    return f"{hi:.{decimals}f}", f"{lo:.{decimals}f}"


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


def flow(t: Text, parts: Sequence[tuple[str, str] | list[tuple[str, str]]], width: int, indent: str = "") -> None:
    """Append `parts` to `t`, each kept whole: a part that would not fit in `width` on the current line starts the
    next one (indented, its leading spaces dropped), so no figure is cut or wrapped in the middle. A part is a
    (text, style) pair or a list of them (kept together)."""
    col = len(t.plain) - (t.plain.rfind("\n") + 1)
    for part in parts:
        segs = [part] if isinstance(part, tuple) else list(part)
        n = len("".join(x for x, _ in segs).rstrip())
        if col and col + n > width:
            t.append("\n" + indent)
            col = len(indent)
            segs[0] = (segs[0][0].lstrip(), segs[0][1])
        for x, style in segs:
            t.append(x, style=style)
            col += len(x)


def fit_path(path: str, width: int) -> str:
    """`path` with the home folder as ~, shortened from the left (`…/runs/x/output`) to `width`: the tail names it."""
    import os

    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home):]
    if len(path) <= width:
        return path
    return "…" + path[len(path) - max(1, width - 1):]


# ---------------------------------------------------------------- VRAM bar
VRAM_PARTS = (
    # key, label (as `rocm-tune estimate`'s breakdown names them), fill char, style
    ("weights", "weights", "█", "bold blue"),
    ("gradients", "gradients", "▓", "magenta"),
    ("optimizer", "optimizer", "▒", "yellow"),
    ("activations", "activations", "░", "cyan"),
    ("transient", "transient", "▞", "bright_cyan"),
    ("comm", "comm buffers", "≈", "bright_magenta"),
    ("other", "allocator", "▪", "bright_black"),
    ("in_use", "in use by others", "×", "red"),
)


def vram_parts(mem: dict[str, Any], in_use: int = 0) -> dict[str, int]:
    """Split per-GPU memory (plan.json `memory`) into the bar's parts, as `rocm-tune estimate` does:
    weights, gradients, optimizer state, activations kept for backward, transient peak (+ autocast
    weight copies), communication buffers and NCCL/RCCL communicators, the allocator's reserve (reserved - the
    rest), and the VRAM other processes already use."""
    def g(k: str) -> int:
        v = num(mem.get(k))
        return int(v) if v is not None else 0

    weights = g("weights_bytes") or g("frozen_weights_bytes") + g("trainable_weights_bytes")
    parts = {
        "weights": weights,
        "gradients": g("gradients_bytes"),
        "optimizer": g("optimizer_bytes"),
        "activations": g("activations_bytes"),
        "transient": g("transient_bytes") + g("autocast_copies_bytes"),
        "comm": g("comm_buffers_bytes") + g("communicator_bytes"),   # + NCCL/RCCL communicators (reserved)
    }
    total = max(g("reserved_bytes"), g("peak_allocated_bytes"), sum(parts.values()))
    parts["other"] = max(0, total - sum(parts.values()))
    parts["in_use"] = max(0, int(in_use or 0))
    parts["total"] = total
    return parts


def render_vram_bar(mem: dict[str, Any], vram_bytes: int, width: int = 60, limit_frac: float | None = None,
                    in_use: int = 0) -> Text:
    """One bar (the parts, then free VRAM up to the plan's headroom `|`, then the rest) and a legend
    wrapped to `width` (+ the numbers at the bar's end)."""
    width = max(10, width)
    parts = vram_parts(mem, in_use)
    total = parts["total"]
    cap = max(int(vram_bytes or 0), 1)
    need = total + parts["in_use"]
    scale = max(cap, need)
    text = Text()
    used_cells = 0
    for key, _label, ch, style in VRAM_PARTS:
        cells = round(parts[key] / scale * width)
        cells = min(cells, width - used_cells)
        if cells:
            text.append(ch * cells, style=style)
            used_cells += cells
    limit_cell = round(limit_frac * cap / scale * width) if limit_frac else None
    for c in range(used_cells, width):
        if limit_cell is not None and c == limit_cell:
            text.append("|", style="bold yellow")
        else:
            text.append("·", style="green")
    pct = need / cap * 100
    over = need > cap
    text.append(f" {fmt_gib(total)}/{fmt_gib(cap, 0)} {pct:.0f}%", style="bold red" if over else "bold")
    if limit_frac and not over and need > cap * limit_frac:
        text.append(f" >{limit_frac * 100:.0f}%", style="yellow")
    if over:
        text.append(f" OVER by {fmt_gib(need - cap)}", style="bold red")
    items = []
    for key, label, ch, style in VRAM_PARTS:
        if parts[key] == 0 and key not in ("weights",):
            continue
        items.append((ch, style, f" {label} {parts[key] / GIB:.1f}"))
    items.append(("·", "green", f" free {max(0, cap - need) / GIB:.1f} GiB"))
    line_len = 0
    text.append("\n")
    for ch, style, label in items:
        n = len(label) + 1
        if line_len and line_len + 2 + n > width + 20:
            text.append("\n")
            line_len = 0
        elif line_len:
            text.append("  ")
            line_len += 2
        text.append(ch, style=style)
        text.append(label)
        line_len += n
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


_isfinite = math.isfinite


def reduce_series(values: Sequence[Any], n: int) -> tuple[list[float | None], set[int]]:
    """At most `n` points: bucket means of the finite values (None for a bucket with none), and the
    buckets holding a NaN / inf. One pass over the values: a 100k-step run costs as much as its width."""
    vals = list(values)
    size = len(vals)
    out: list[float | None] = []
    bad: set[int] = set()
    if size <= n:
        for i, v in enumerate(vals):
            if v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
                out.append(None)
            elif _isfinite(v):
                out.append(float(v))
            else:
                out.append(None)
                bad.add(i)
        return out, bad
    for b in range(n):
        lo_i = b * size // n
        hi_i = max((b + 1) * size // n, lo_i + 1)
        total, count = 0.0, 0
        for v in vals[lo_i:hi_i]:
            if v is None:
                continue
            if _isfinite(v):
                total += v
                count += 1
            else:
                bad.add(b)
        out.append(total / count if count else None)
    return out, bad


def ema(values: Sequence[Any], alpha: float = 0.1) -> list[float | None]:
    """Exponential moving average, skipping missing values (display smoothing only)."""
    out: list[float | None] = []
    acc: float | None = None
    for v in _finite(values):
        if v is not None:
            acc = v if acc is None else acc + alpha * (v - acc)
        out.append(acc if v is not None else None)
    return out


def _y_span(series: Sequence[tuple], y_range: tuple[float, float] | None) -> tuple[float, float]:
    """The y range to draw: `y_range`, else the finite values' span (padded when flat), else 0..1."""
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
    return lo, hi


def _grid_row(bits_row: list[int], owner_row: list[str | None], marks_row: list[tuple[str, str] | None]) -> Text:
    """One row of braille cells (markers over dots), consecutive cells of one style in one span."""
    line = Text()
    run: list[str] = []
    run_style = ""
    for c in range(len(bits_row)):
        mark = marks_row[c]
        if mark is not None:
            ch, st = mark
        else:
            bits = bits_row[c]
            ch, st = (chr(0x2800 + bits) if bits else " "), (owner_row[c] or "")
        if st != run_style and run:
            line.append("".join(run), style=run_style)
            run = []
        run_style = st
        run.append(ch)
    if run:
        line.append("".join(run), style=run_style)
    return line


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
    lo, hi = _y_span(series, y_range)
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
    return [_grid_row(cells[r], owner[r], marks[r]) for r in range(height)], lo, hi


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


def _last_raw(vals: Sequence[Any]) -> Any:
    """The newest value that is a number, NaN/inf included (a NaN is shown as NaN, not skipped)."""
    for v in reversed(list(vals)):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
    return None


def render_chart(title: str, series: Sequence[tuple], width: int, height: int,
                 y_range: tuple[float, float] | None = None, x_label: str = "",
                 x_steps: tuple[int, int] | None = None, digits: int = 3) -> Text:
    """A titled braille chart with a y axis: series = [(name, values, style[, marker]), ...].

    The title names each series' newest value (NaN / inf as such); NaN points are marked `×` on the
    top row so a NaN is never drawn as the last finite value. `x_steps` = (first, last) step adds an
    x axis with the step numbers."""
    width, height = max(12, width), max(2, height)
    axis_w = 9
    plot_h = height - 1 - (1 if x_steps else 0)
    plot_h = max(1, plot_h)
    plot_w = width - axis_w
    n_max = 2 * max(1, plot_w)
    reduced = [reduce_series(ser[1], n_max) for ser in series]
    grid, lo, hi = braille_grid([(red, *ser[2:]) for (red, _), ser in zip(reduced, series)], plot_w, plot_h,
                                y_range)
    text = Text()
    text.append(title, style="bold")
    for ser in series:
        name, vals, style = ser[0], ser[1], ser[2]
        marker = ser[3] if len(ser) > 3 else None
        last = _last_raw(vals)
        text.append("  ")
        text.append(marker or "⣿", style=style)
        bad = isinstance(last, float) and not math.isfinite(last)
        text.append(" " if len(series) == 1 and name == title else f" {name} ")
        text.append(fmt_num(last, digits=digits), style="bold red" if bad else "")
    if x_label and text.cell_len + len(x_label) + 2 <= width:
        text.append(f"  {x_label}", style="dim")
    text.truncate(width)
    # NaN / inf positions, per plot column (the top row)
    nan_cols: set[int] = set()
    for red, nan_at in reduced:
        n = len(red)
        for i in nan_at:
            nan_cols.add(0 if n <= 1 else min(plot_w - 1, i * plot_w // n))
    top, bottom = axis_labels(lo, hi)
    for r, row in enumerate(grid):
        text.append("\n")
        label = top if r == 0 else bottom if r == plot_h - 1 else ""
        text.append(label.rjust(axis_w - 1)[-(axis_w - 1):] + "┤", style="dim")
        if r == 0 and nan_cols:
            line = Text()
            for c in range(len(row.plain)):
                if c in nan_cols:
                    line.append("×", style="bold red")
                else:
                    line.append_text(row[c:c + 1])
            text.append_text(line)
        else:
            text.append_text(row)
    if x_steps:
        first, last = (f"{x_steps[0]:,}", f"{x_steps[1]:,}")
        gap = max(1, plot_w - len(first) - len(last))
        text.append("\n" + " " * (axis_w - 1) + "└" + first + " " * gap + last, style="dim")
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


def _g(sample: Any, k: str) -> Any:
    return getattr(sample, k, None)


def render_gpu_table(samples: Sequence[Any], selected: int | None = None, width: int = 34) -> Text:
    """All GPUs, one row each (8 fit 80x24): index, util %, VRAM used/total, temperature, power.
    The selected GPU (detailed below) is marked `>`."""
    text = Text()
    text.append("  # util  VRAM GiB   temp power", style="bold")
    for s in samples:
        idx = _g(s, "index")
        util, used, total = num(_g(s, "util_percent")), num(_g(s, "vram_used_bytes")), num(_g(s, "vram_total_bytes"))
        temp, power = num(_g(s, "temp_c")), num(_g(s, "power_w"))
        text.append("\n")
        mark = ">" if idx == selected else " "
        text.append(f"{mark}{idx if idx is not None else '?':>2}", style="bold reverse" if idx == selected else "bold")
        frac = used / total if used is not None and total else None
        text.append(" " + (f"{util:3.0f}%" if util is not None else " n/a"),
                    style="red" if util is not None and util >= 90 else "")
        vram = f"{used / GIB:5.1f}/{total / GIB:<4.0f}" if used is not None and total else "   n/a    "
        text.append(f" {vram}", style="red" if frac is not None and frac >= 0.95 else "")
        hot = temp is not None and temp >= 90
        text.append(" " + (f"{temp:3.0f}°" if temp is not None else " n/a"), style="bold red" if hot else "")
        text.append(" " + (f"{power:4.0f}W" if power is not None else "  n/a"))
    return text


def render_gpu_pane(sample: Any, history: dict[str, Sequence[Any]] | None = None, width: int = 38,
                    users: dict | None = None, measured: Any = None, predicted: dict | None = None) -> Text:
    """One GPU in detail: name, utilisation and VRAM with their history, temperature, power, predicted
    vs measured memory (this GPU's rank), and the processes using it (PID, user, VRAM, command)."""
    history = history or {}
    width = max(24, width)
    def g(k):
        return _g(sample, k)

    text = Text()
    name = str(g("name") or g("profile_id") or "GPU")
    text.append(f"GPU{g('index') if g('index') is not None else '?'} ", style="bold")
    text.append(name[: width - 6])
    spark_w = max(6, width - 22)
    util = num(g("util_percent"))
    text.append("\nutil ")
    text.append(f"{util:5.0f}%" if util is not None else "   n/a")
    text.append(" ")
    text.append_text(_pct_bar(util / 100 if util is not None else None, 8))
    text.append(" ")
    text.append(sparkline(history.get("util", []), spark_w, 0, 100), style="cyan")
    used, total = num(g("vram_used_bytes")), num(g("vram_total_bytes"))
    frac = used / total if used is not None and total else None
    text.append("\nvram ")
    text.append(f"{frac * 100:5.0f}%" if frac is not None else "   n/a")
    text.append(" ")
    text.append_text(_pct_bar(frac, 8))
    text.append(" ")
    text.append(sparkline(history.get("vram", []), spark_w, 0, total or None), style="magenta")
    text.append(f"\n     {fmt_gib(used)} / {fmt_gib(total)}")
    temp, power, plim = num(g("temp_c")), num(g("power_w")), num(g("power_limit_w"))
    text.append("\ntemp ")
    hot = temp is not None and temp >= 90
    text.append((f"{temp:.0f}°C" + (" HOT" if hot else "")) if temp is not None else "n/a",
                style="bold red" if hot else "")
    text.append("  power ")
    if power is not None:
        text.append(f"{power:.0f}" + (f"/{plim:.0f}" if plim is not None else "") + " W")
    else:
        text.append("n/a")
    if predicted or measured is not None:
        pred = num((predicted or {}).get("reserved_bytes"))
        text.append("\nmem  predicted ")
        text.append(fmt_gib(pred), style="bold")
        text.append("  measured ")
        meas = num(getattr(measured, "peak_reserved_bytes", None)) if measured is not None else None
        text.append(fmt_gib(meas), style="bold")
        if pred and meas:
            text.append(f" ({(meas / pred - 1) * 100:+.0f}%)", style="dim")
    procs = tuple(g("processes") or ())
    if procs:
        text.append("\n  PID user     VRAM GiB command", style="bold")
        for p in procs[:6]:
            pid, pname, vram = (tuple(p) + (None, None, None))[:3]
            user, cmd = (users or {}).get(pid, ("?", str(pname or "?")))
            if cmd == "?":
                cmd = str(pname or "?")
            v = num(vram)
            line = f"\n{pid!s:>5} {str(user)[:8]:<8} {(f'{v / GIB:8.1f}' if v is not None else '     n/a')} {cmd}"
            text.append(line[: width + 1])
        if len(procs) > 6:
            text.append(f"\n  +{len(procs) - 6} more", style="dim")
    return text


def render_host(host: dict | None, measured: Any = None, offload_bytes: Any = None) -> Text:
    """Host CPU and RAM (offloaded optimizer state and dataloaders live there)."""
    text = Text()
    host = host or {}
    cpu = num(host.get("cpu_percent"))
    text.append("host ", style="bold")
    text.append(f"CPU {cpu:3.0f}%" if cpu is not None else "CPU n/a")
    if host.get("cpus"):
        text.append(f" of {host['cpus']}", style="dim")
    used, total = num(host.get("ram_used_bytes")), num(host.get("ram_total_bytes"))
    text.append("\n     RAM ")
    text.append(f"{fmt_gib(used)} / {fmt_gib(total, 0)}" if used is not None and total else "n/a")
    rss = num(getattr(measured, "rss_bytes", None)) if measured is not None else None
    if rss is not None:
        text.append(f"\n     run RSS {fmt_gib(rss)}")   # the ranks' own report (offloaded state lives here)
    if num(offload_bytes):
        text.append(f"  offload plan {fmt_gib(offload_bytes)}", style="dim")
    return text


def render_nodes(measured: Any) -> Text:
    """Every node's GPUs from the ranks' own reports (multi-node runs): node, rank, GPU, peak memory."""
    text = Text()
    if measured is None or not getattr(measured, "ranks", ()):
        return text
    text.append("ranks (measured)", style="bold")
    for node, ranks in measured.by_node().items():
        for r in ranks:
            text.append(f"\n{str(r.host or node)[:10]:<10} r{r.rank:<2} gpu{r.gpu_index if r.gpu_index is not None else '?'}"
                        f" peak {fmt_gib(r.peak_reserved_bytes)}")
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
