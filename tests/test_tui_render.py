"""Pure render functions of the TUI: real values in, characters out."""

from __future__ import annotations

import math

from rocm_tune.tui.render import (
    braille_grid,
    ema,
    fmt_duration,
    fmt_gib,
    render_chart,
    render_gpu_pane,
    render_histogram,
    render_progress,
    render_vram_bar,
    sparkline,
    vram_parts,
)

GIB = 2**30


def test_vram_parts_and_bar_show_each_part_and_headroom():
    mem = {"weights_bytes": 14 * GIB, "gradients_bytes": 1 * GIB, "optimizer_bytes": 2 * GIB,
           "activations_bytes": 5 * GIB, "transient_bytes": 1 * GIB, "reserved_bytes": 25 * GIB}
    parts = vram_parts(mem)
    # named as `rocm-tune estimate`'s breakdown: the transient peak is not "activations"
    assert parts["activations"] == 5 * GIB and parts["transient"] == 1 * GIB
    assert parts["other"] == 2 * GIB and parts["total"] == 25 * GIB
    text = render_vram_bar(mem, 32 * GIB, width=64, limit_frac=0.85).plain
    bar, legend = text.split("\n", 1)
    # 64 cells: weights 14/32 -> 28 cells, free 7/32 -> 14 cells, one of them the headroom mark at 85%
    assert bar.count("█") == 28 and bar.count("·") + bar.count("|") == 14
    assert bar.index("|") == round(0.85 * 64)
    assert "25.0 GiB/32 GiB 78%" in bar
    assert "weights 14.0" in legend and "transient 1.0" in legend and "free 7.0 GiB" in legend
    # VRAM other processes already use is a part of its own
    text = render_vram_bar(mem, 32 * GIB, width=64, in_use=4 * GIB).plain
    assert "in use by others 4.0" in text and "29.0" not in text.split("\n")[0][:64]


def test_vram_bar_over_capacity_says_by_how_much():
    text = render_vram_bar({"weights_bytes": 40 * GIB, "reserved_bytes": 40 * GIB}, 32 * GIB, 40).plain
    assert "OVER by 8.0 GiB" in text and "·" not in text.split("\n")[0]


def test_sparkline_scales_and_keeps_gaps():
    assert sparkline([0, 50, 100], 3, 0, 100) == "▁▅█"
    assert sparkline([1, None, 3], 5) == "  ▁ █"
    assert sparkline([], 4) == "    "


def test_histogram_marks_bins_beyond_cutoff():
    text = render_histogram([(0, 100, 10), (100, 200, 5), (200, 400, 1)], width=40, cutoff=150).plain
    rows = text.split("\n")
    assert rows[0].startswith("  0-100 █") and "▒" in rows[1] and "▒" in rows[2]
    assert rows[0].rstrip().endswith("10")


def test_braille_chart_falling_loss_goes_down():
    values = [3.0 - i * 0.02 for i in range(100)]
    rows, lo, hi = braille_grid([(values, "cyan")], 20, 4)
    assert (lo, hi) == (values[-1], values[0])
    # first column has dots in the top row, last column in the bottom row
    assert rows[0].plain[0] != " " and rows[-1].plain[-1] != " "
    assert rows[-1].plain[0] == " " and rows[0].plain[-1] == " "


def test_braille_chart_skips_nan_and_handles_flat_series():
    rows, lo, hi = braille_grid([([1.0, math.nan, 1.0, float("inf"), 1.0], "x")], 10, 3)
    assert lo < 1.0 < hi and any(r.plain.strip() for r in rows)
    chart = render_chart("loss", [("raw", [2, 1.5, 1.2], "cyan")], 40, 6).plain
    assert chart.startswith("loss") and "raw 1.2" in chart and "┤" in chart


def test_ema_smooths_and_skips_missing():
    out = ema([1.0, None, 3.0], alpha=0.5)
    assert out == [1.0, None, 2.0]


def test_gpu_pane_formats_values_and_na():
    class S:
        index, name = 1, "AMD Instinct MI50 32GB"
        util_percent, vram_used_bytes, vram_total_bytes = 97.0, 30 * GIB, 32 * GIB
        temp_c, power_w, power_limit_w = 71.0, 212.0, 300.0
    text = render_gpu_pane(S(), {"util": [10, 97]}, 40).plain
    assert "GPU1 AMD Instinct MI50" in text and "97%" in text and "30.0 GiB / 32.0 GiB" in text
    assert "71°C" in text and "212/300 W" in text

    class NA:  # a backend that knows nothing
        index = 0
        name = None
    text = render_gpu_pane(NA(), None, 30).plain
    assert text.count("n/a") >= 3


def test_formatters():
    # one formatting everywhere: core.units
    assert fmt_duration(59) == "59 s" and fmt_duration(3725) == "1.0 h" and fmt_duration(None) == "n/a"
    assert fmt_gib(3 * GIB) == "3.0 GiB" and fmt_gib(float("nan")) == "n/a"
    from rocm_tune.tui.render import axis_labels, fmt_clock, fmt_num, fmt_tok_s

    assert fmt_tok_s(55200.0) == "55,200 tok/s" and fmt_num(2.3e-06) == "2.3e-06"
    assert fmt_num(float("nan")) == "NaN" and fmt_num(1830.4) == "1,830"
    assert fmt_clock(82) == "01:22" and fmt_clock(3723) == "1:02:03"
    assert axis_labels(1.24, 3.12) == ("3.12", "1.24") and axis_labels(1820, 1840) == ("1,840", "1,820")
    assert render_progress(5, 20, 20).plain.endswith("5/20 25%")
    assert "waiting" in render_progress(None, None).plain


def test_fit_name_keeps_the_distinguishing_tail():
    from rocm_tune.tui.render import fit_name

    names = ["deepseek-r1-distill-qwen-1.5b", "deepseek-r1-distill-qwen-14b", "deepseek-r1-distill-llama-70b"]
    short = [fit_name(n, 22) for n in names]
    assert all(len(s) == 22 for s in short) and len(set(short)) == 3
    assert short[0].endswith("qwen-1.5b") and "…" in short[0]
    assert fit_name("qwen2.5-7b", 22) == "qwen2.5-7b"
