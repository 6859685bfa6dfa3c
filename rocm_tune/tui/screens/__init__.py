"""Screens of the rocm-tune app (imported lazily by `rocm_tune.tui.app`)."""

from __future__ import annotations

from typing import Any

STEPS = ("hardware", "model", "goal", "plan", "export")


def make_screen(name: str, **kw: Any):
    if name == "hardware":
        from rocm_tune.tui.screens.hardware import HardwareScreen
        return HardwareScreen()
    if name == "model":
        from rocm_tune.tui.screens.model import ModelScreen
        return ModelScreen()
    if name == "goal":
        from rocm_tune.tui.screens.goal import GoalScreen
        return GoalScreen()
    if name == "plan":
        from rocm_tune.tui.screens.plan import PlanScreen
        return PlanScreen()
    if name == "export":
        from rocm_tune.tui.screens.export import ExportScreen
        return ExportScreen()
    if name == "monitor":
        from rocm_tune.tui.screens.monitor import MonitorScreen
        return MonitorScreen(kw.get("attach"))
    if name == "runs":
        from rocm_tune.tui.screens.runs import RunListScreen
        return RunListScreen()
    raise ValueError(f"unknown screen {name!r}")


def open_screen(app, name: str, **kw: Any) -> None:
    """Open a screen at start: wizard steps are stacked so `esc` goes back."""
    if name in STEPS:
        for step in STEPS[: STEPS.index(name) + 1]:
            app.push_screen(make_screen(step))
    else:
        app.push_screen(make_screen(name, **kw))
