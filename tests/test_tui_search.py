"""Search fields take what they find: the model step takes a search that names one preset (enter / ctrl+n
move on with it), and the GPU picker takes the profile that type-to-search lands on (issue 18, item 5)."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import OptionList

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.core.model.architecture import search_presets
from rocm_tune.tui.app import RocmTuneApp
from tests.helpers_tui import wait_for


def status(app) -> str:
    return str(app.screen.query_one("#status").render())


def screen(app) -> str:
    return type(app.screen).__name__


async def type_text(pilot, widget, text: str) -> None:
    widget.focus()
    widget.value = ""
    for ch in text:
        await pilot.press("space" if ch == " " else ch)


def model_app() -> RocmTuneApp:
    return RocmTuneApp(start="model", backend=FakeBackend("mi50-32gb", 2, seed=1), poll_interval=5.0)


@pytest.mark.parametrize("key", ["enter", "ctrl+n"])
def test_a_search_with_one_match_is_taken_and_the_wizard_moves_on(key):
    async def go():
        app = model_app()
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: screen(app) == "ModelScreen"
                           and app.screen.query_one("#presets").option_count > 0)
            await type_text(pilot, app.screen.query_one("#in-model"), "qwen2.5 7b")
            await pilot.press(key)   # at once: the list may still show the previous search
            await wait_for(pilot, lambda: screen(app) == "GoalScreen", what="the goal step")
            assert app.state.model.name == "qwen2.5-7b"
            assert app.state.answers["model"] == "qwen2.5-7b"
            assert "model qwen2.5-7b" in status(app)
            await pilot.press("escape")   # back: the field now names the preset it took
            await wait_for(pilot, lambda: screen(app) == "ModelScreen")
            assert app.screen.query_one("#in-model").value == "qwen2.5-7b"

    asyncio.run(go())


def test_several_matches_ask_for_a_pick_then_take_the_highlighted_one():
    async def go():
        app = model_app()
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: screen(app) == "ModelScreen"
                           and app.screen.query_one("#presets").option_count > 0)
            inp = app.screen.query_one("#in-model")
            ol = app.screen.query_one("#presets", OptionList)
            # ctrl+n with nothing highlighted: the count, never "unknown model"
            # "7b qwen": several presets and none named by it ("qwen 7b" names Qwen v1's qwen-7b exactly since
            # session 12, and an exact name is taken at once)
            await type_text(pilot, inp, "7b qwen")
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: "pick one" in status(app))
            n = len(search_presets("7b qwen"))     # the presets the core finds for it (7 on 2026-11-28)
            assert n > 1 and f"{n} models match '7b qwen'; pick one" in status(app) and "unknown" not in status(app)
            assert screen(app) == "ModelScreen"
            # enter: the same message, and the list takes the keys with its first entry highlighted
            await wait_for(pilot, lambda: ol.option_count == n)
            inp.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.focused is ol and ol.highlighted == 0)
            assert screen(app) == "ModelScreen" and f"{n} models match" in status(app)
            names = [ol.get_option_at_index(i).id for i in range(ol.option_count)]
            assert "qwen2.5-7b" in names and len(names) == n
            target = names.index("qwen2.5-7b")
            for _ in range(target):
                await pilot.press("down")
            assert ol.highlighted == target
            await pilot.press("ctrl+n")   # ctrl+n takes the highlighted preset
            await wait_for(pilot, lambda: screen(app) == "GoalScreen")
            assert app.state.model.name == "qwen2.5-7b"
            await pilot.press("escape")
            await wait_for(pilot, lambda: screen(app) == "ModelScreen")
            # enter in the list takes the entry it is on, too
            await type_text(pilot, app.screen.query_one("#in-model"), "7b qwen")
            await wait_for(pilot, lambda: app.screen._shown_query == "7b qwen")
            await pilot.press("enter")
            ol = app.screen.query_one("#presets", OptionList)
            await wait_for(pilot, lambda: app.focused is ol and ol.highlighted == 0)
            other = ol.get_option_at_index(0).id
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen(app) == "GoalScreen")
            assert app.state.model.name == other != "qwen2.5-7b"

    asyncio.run(go())


def test_no_match_still_names_the_unknown_model():
    async def go():
        app = model_app()
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: screen(app) == "ModelScreen")
            await type_text(pilot, app.screen.query_one("#in-model"), "no such model xyz")
            await pilot.press("enter")
            await wait_for(pilot, lambda: "no such model xyz" in status(app))
            assert screen(app) == "ModelScreen" and "pick one" not in status(app)

    asyncio.run(go())


def test_gpu_picker_takes_the_profile_its_search_lands_on():
    """The hardware step's GPU field is a Select: typing in its open list jumps to the first profile
    that starts with the letters, enter takes it, ctrl+n moves on with it (no free text to refuse)."""
    async def go():
        app = RocmTuneApp(backend=FakeBackend("mi50-32gb", 2, seed=1), poll_interval=5.0)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: screen(app) == "HardwareScreen"
                           and app.screen.query_one("#gpus").row_count == 2)
            sel = app.screen.query_one("#in-gpu")
            sel.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: sel.expanded)
            for ch in "mi25":
                await pilot.press(ch)
            await pilot.press("enter")
            await wait_for(pilot, lambda: not sel.expanded)
            assert sel.value == "mi250"
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: screen(app) == "ModelScreen")
            assert app.state.answers["gpu"] == "mi250"

    asyncio.run(go())
