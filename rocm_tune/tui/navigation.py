"""Which screen a name opens, and the wizard's order of steps.

Screens are named by "module:Class" strings and imported on first use, so the app starts without
loading every screen, and no screen module imports another through this table (the screens package
has no import cycle: `base.py` -> `navigation.py` never leads back to a screen module statically).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

STEPS = ("hardware", "model", "goal", "plan", "export")

SCREENS = {
    "hardware": "rocm_tune.tui.screens.hardware:HardwareScreen",
    "model": "rocm_tune.tui.screens.model:ModelScreen",
    "goal": "rocm_tune.tui.screens.goal:GoalScreen",
    "plan": "rocm_tune.tui.screens.plan:PlanScreen",
    "export": "rocm_tune.tui.screens.export:ExportScreen",
    "monitor": "rocm_tune.tui.screens.monitor:MonitorScreen",
    "runs": "rocm_tune.tui.screens.runs:RunListScreen",
    "check": "rocm_tune.tui.screens.check:CheckPlanScreen",
}


def make_screen(name: str, **kw: Any):
    try:
        module, cls = SCREENS[name].split(":")
    except KeyError:
        raise ValueError(f"unknown screen {name!r}; known: {', '.join(SCREENS)}") from None
    screen_cls = getattr(import_module(module), cls)
    if name == "monitor":
        return screen_cls(kw.get("attach"))
    return screen_cls()


def open_screen(app, name: str, **kw: Any) -> None:
    """Open a screen at start: wizard steps are stacked so `esc` goes back."""
    if name in STEPS:
        for step in STEPS[: STEPS.index(name) + 1]:
            app.push_screen(make_screen(step))
    else:
        app.push_screen(make_screen(name, **kw))
