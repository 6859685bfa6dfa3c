"""Issue 25 item 2: the Plan screen shows the plan of the current answers, never one left by an earlier visit.

Plan a 7B, go back to the Model screen, take a 0.5B, come back: the VRAM bar, its figures and the headline are the
0.5B's from the first frame that shows a plan, also after a resize (before the fix the bar kept the 7B's 23.9 GiB
until ctrl+o, and a resize redrew it from the old plan).
"""

from __future__ import annotations

import asyncio

from rocm_tune.core.hardware.devices.synthetic import FakeBackend
from rocm_tune.tui.app import RocmTuneApp
from tests.helpers_tui import burst, typed, wait_for

ANSWERS = {"gpu": "mi50-32gb", "gpus": 2, "model": "qwen2.5-7b", "method": "lora", "effective_batch": 64}


def bar(app) -> str:
    return str(app.screen.query_one("#vram").render())


def figure(plan: dict) -> str:
    """The bar's reserved / VRAM figure of a plan."""
    return f"{plan['memory']['reserved_bytes'] / 2**30:.1f} GiB/32 GiB"


def test_after_choosing_another_model_the_plan_screen_shows_that_models_plan():
    async def go():
        app = RocmTuneApp(start="plan", answers=dict(ANSWERS), backend=FakeBackend("mi50-32gb", 2, seed=1),
                          poll_interval=5.0)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen" and app.state.plan_dict)
            await pilot.pause(0.2)
            old = app.state.plan_dict
            assert old["model"]["name"] == "qwen2.5-7b" and figure(old) in bar(app)
            burst(app, "escape")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "GoalScreen")
            burst(app, "escape")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ModelScreen")
            burst(app, "end", "ctrl+u", *typed("qwen2.5-0.5b"), "ctrl+n")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "GoalScreen")
            burst(app, "ctrl+n")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "PlanScreen")
            # until the new plan is back nothing of the old one is kept to draw, export or launch
            assert app.state.plan_dict is None or app.state.plan_dict["model"]["name"] == "qwen2.5-0.5b"
            await wait_for(pilot, lambda: app.state.plan_dict is not None)
            new = app.state.plan_dict
            assert new["model"]["name"] == "qwen2.5-0.5b" and figure(new) != figure(old)
            for _ in range(5):   # every redraw queued around the first paint has run
                await pilot.pause()
            assert figure(new) in bar(app) and figure(old) not in bar(app)
            assert "qwen2.5-0.5b" in str(app.screen.query_one("#plan-summary").render())
            await pilot.resize_terminal(100, 30)
            for _ in range(5):
                await pilot.pause()
            assert figure(new) in bar(app) and figure(old) not in bar(app)

    asyncio.run(go())
