"""Issue 12 defect 1: what the Plan screen's field shows is what is planned and exported.

Keys are delivered as a terminal delivers a burst (a fast typist, a paste, SSH batching): the bytes
are parsed by Textual's own xterm parser and every event is posted to the app at once, as the
driver does, without waiting between keys (Pilot.press waits, which hides the bug).
"""

from __future__ import annotations

import asyncio

import pytest
from textual._xterm_parser import XTermParser
from textual.widgets import Input

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from tests.helpers_tui import wait_for

ANSWERS = {"gpu": "mi50-32gb", "gpus": 2, "model": "qwen2.5-7b", "method": "lora", "effective_batch": 64}
BS = "\x7f"


def burst(app, data: str) -> None:
    for event in XTermParser().feed(data):
        app.post_message(event)


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


async def plan_screen(pilot):
    app = pilot.app
    await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict)
    await pilot.pause(0.3)
    return app.screen


async def field_showing(pilot, value: str) -> Input:
    """Focus cutoff_len and make it show `value` (typed, then planned)."""
    app = pilot.app
    inp = app.screen.query_one("#set-cutoff_len", Input)
    inp.focus()
    inp.action_end()
    if inp.value != value:
        burst(app, BS * 8 + value)
        await wait_for(pilot, lambda: app.state.plan_dict["recommended"]["cutoff_len"] == int(value)
                       and "re-planning" not in str(app.screen.query_one("#set-error").render()))
    return inp


def run(check):
    async def go():
        app = RocmTuneApp(start="plan", answers=dict(ANSWERS), backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(100, 32)) as pilot:
            await plan_screen(pilot)
            await check(pilot)

    asyncio.run(go())


def planned_cutoff(app) -> int:
    return app.state.plan_dict["recommended"]["cutoff_len"]


@pytest.mark.slow
def test_burst_on_1024_plans_2048_paste_works_and_an_invalid_value_blocks_export():
    async def check(pilot):
        app = pilot.app
        inp = await field_showing(pilot, "1024")
        burst(app, BS * 4 + "2048")
        await wait_for(pilot, lambda: planned_cutoff(app) == 2048 and "re-planning" not in str(
            app.screen.query_one("#set-error").render()))
        assert inp.value == "2048"
        assert str(app.screen.query_one("#set-error").render()) == ""
        # bracketed paste
        burst(app, BS * 4 + "\x1b[200~512\x1b[201~")
        await wait_for(pilot, lambda: planned_cutoff(app) == 512)
        assert inp.value == "512"
        # an invalid value is shown with its error and blocks the export
        burst(app, BS * 3 + "0")   # cutoff_len 0: below core.vocabulary's limit
        await wait_for(pilot, lambda: "got 0" in str(app.screen.query_one("#set-error").render()))
        assert inp.value == "0"
        burst(app, "\x0e")   # ctrl+n
        await wait_for(pilot, lambda: "fix the setting first" in status(app))
        assert type(app.screen).__name__ == "PlanScreen" and planned_cutoff(app) == 512
        # back to the planned value: the error goes
        burst(app, BS + "512")
        await wait_for(pilot, lambda: str(app.screen.query_one("#set-error").render()) == "")
        assert planned_cutoff(app) == 512

    run(check)


@pytest.mark.slow
def test_burst_on_896_never_leaves_field_and_plan_apart_and_exports_what_is_shown():
    async def check(pilot):
        app = pilot.app
        inp = await field_showing(pilot, "896")
        burst(app, BS * 4 + "2048")
        # export at once, while the re-plan may still be on its way: it waits for the plan of 2048
        burst(app, "\x0e")   # ctrl+n
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ExportScreen"
                       and any(w.option_count for w in app.screen.query("#files")), 30)
        assert inp.value == "2048" and planned_cutoff(app) == 2048
        files = app.screen._files
        yaml = next(v for k, v in files.items() if k.endswith(".yaml") and "cutoff_len" in v)
        assert "cutoff_len: 2048" in yaml

    run(check)


@pytest.mark.slow
def test_resize_redraws_the_vram_bar_on_one_line_and_focus_is_visible_without_colour(monkeypatch):
    """Defect 9: 120x36 -> 80x24 keeps the bar on one row; the focused setting reads without colour."""
    monkeypatch.setenv("NO_COLOR", "1")

    async def go():
        app = RocmTuneApp(start="plan", answers=dict(ANSWERS), backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(120, 36)) as pilot:
            await plan_screen(pilot)
            app.screen.query_one("#set-cutoff_len", Input).focus()
            await pilot.resize_terminal(80, 24)
            await pilot.pause(0.5)
            strips = app.screen._compositor.render_strips()
            texts = ["".join(seg.text for seg in strip) for strip in strips]
            i = next(i for i, t in enumerate(texts) if "GiB/32 GiB" in t)
            assert "█" in texts[i] and "|" in texts[i] and len(texts[i].rstrip()) <= 80
            assert not any("GiB/32 GiB" in t for t in texts[i + 1:])
            assert texts[-1].rstrip().endswith("f1 Help")   # the footer fits 80 columns
            # the focused setting's label is reversed (readable with NO_COLOR)
            row = next(strip for strip, t in zip(strips, texts) if "cutoff_len" in t)
            label = next(seg for seg in row if "cutoff_len" in seg.text)
            assert label.style is not None and label.style.reverse
            others = next(strip for strip, t in zip(strips, texts) if "micro-batch" in t)
            assert not any(seg.style is not None and seg.style.reverse for seg in others if "micro" in seg.text)

    asyncio.run(go())
