"""Readable without colour (NO_COLOR) and at 256 colours: nothing relies on colour alone.

The screens are rendered headless on the snapshot scenes (fake GPUs, recorded runs, frozen clock);
the rows checked are what the terminal would receive (the app's line filters applied).
"""

from __future__ import annotations

import asyncio

import pytest
from rich.color import ColorSystem

from rocm_tune.tui.render import VRAM_PARTS
from rocm_tune.tui.scenes import SCENES, prepare

BRAILLE = {chr(c) for c in range(0x2801, 0x2900)}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    prepare(tmp_path)
    return tmp_path


def render(name: str, size=(100, 30), check=None):
    """Run a scene; return (app facts, rows of segments) as the terminal would receive them."""
    scene = SCENES[name]

    async def go():
        app = scene.make_app()
        async with app.run_test(size=size) as pilot:
            await scene.ready(pilot)
            await pilot.pause(0.1)
            strips = app.screen._compositor.render_strips()
            rows = [[(seg.text, seg.style) for seg in strip] for strip in strips]
            extra = check(app) if check else None
            return app.no_color, rows, extra

    return asyncio.run(go())


def text_of(row) -> str:
    return "".join(t for t, _ in row)


def is_grey(color) -> bool:
    if color is None or color.is_default:
        return True
    r, g, b = color.get_truecolor()
    return r == g == b


def test_no_color_vram_bar_and_loss_chart_stay_apart_by_glyph(workdir, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    no_color, rows, _ = render("plan")
    assert no_color
    # the whole screen reaches the terminal without hue (Textual's monochrome filter)
    assert all(is_grey(s.color) and is_grey(s.bgcolor) for row in rows for _, s in row if s is not None)
    texts = [text_of(r) for r in rows]
    i = next(i for i, t in enumerate(texts) if "GiB/32 GiB" in t)
    bar, legend = texts[i], texts[i + 1] + texts[i + 2] + texts[i + 3]   # the legend wraps to the width
    glyphs = {ch for ch, _label, *_ in [(p[2], p[1]) for p in VRAM_PARTS]}
    in_bar = {c for c in bar if c in glyphs | {"·"}}
    # weights, at least one of the training parts, and the free headroom: each a glyph of its own
    assert "█" in in_bar and "·" in in_bar and len(in_bar) >= 3, bar
    for _key, label, ch, _style in VRAM_PARTS:
        if ch in in_bar:
            assert f"{ch} {label}" in legend, (ch, label, legend)
    assert "· free" in legend

    monkeypatch.setenv("NO_COLOR", "1")
    no_color, rows, _ = render("monitor")
    assert no_color
    texts = [text_of(r) for r in rows]
    head = next(t for t in texts if "smoothed" in t)
    assert "⣿ loss" in head and "• smoothed" in head
    plot = [t for t in texts if "┤" in t][:8]   # the loss chart's rows
    assert any(c in BRAILLE for t in plot for c in t), plot
    assert sum(t.count("•") for t in plot) >= 10, plot


def test_256_colours_every_character_stays_readable(workdir, monkeypatch):
    """With a 256-colour terminal, rich downgrades every colour; no text may end up fg == bg."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "256")

    def terminal_bytes(app) -> str:
        return app.screen._compositor.render_update(full=True).render_segments(app.console)

    for name in ("hardware", "plan", "monitor"):
        _, rows, out = render(name, check=terminal_bytes)
        assert "\x1b[38;5;" in out and "38;2;" not in out, name   # 256-colour codes only
        bad = []
        for row in rows:
            for text, style in row:
                if style is None or not text.strip():
                    continue
                fg, bg = style.color, style.bgcolor
                if fg is None or bg is None or fg.is_default or bg.is_default:
                    continue
                if style.reverse:
                    fg, bg = bg, fg
                if fg.downgrade(ColorSystem.EIGHT_BIT).number == bg.downgrade(ColorSystem.EIGHT_BIT).number:
                    bad.append(text.strip()[:20])
        assert not bad, (name, bad[:10])
