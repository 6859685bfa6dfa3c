"""The rocm-tune terminal app (Textual).

`run_app()` opens the wizard (Hardware -> Model -> Goal -> Plan -> Export); `run_app(attach=T)`
opens the monitor on a run. This module stays import-light: textual only, screens load lazily,
never torch/transformers.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

# Start-up allocates tens of thousands of long-lived objects (textual's classes, CSS, the first screen's widgets):
# with the default threshold the cyclic GC scans them again and again before the first paint (~10 % of its CPU
# time). Collect rarely until the first screen is on the terminal, then restore the threshold and freeze what
# start-up made (later collections skip it). A process that imports this module and never paints only collects
# less often.
_GC_THRESHOLD = gc.get_threshold()
gc.set_threshold(max(_GC_THRESHOLD[0], 200_000), *_GC_THRESHOLD[1:])

# textual is imported after the GC threshold above is raised (its classes and CSS are what start-up allocates)
from textual.app import App, CSSPathType  # noqa: E402
from textual.binding import Binding, BindingType  # noqa: E402

from rocm_tune.tui import css_cache  # noqa: E402

STYLES = Path(__file__).parent / "styles"


@dataclass
class WizardState:
    """What the wizard has learned so far; screens read and write it."""

    answers: dict[str, Any] = field(default_factory=lambda: import_module("rocm_tune.core.plan.questions").defaults())
    backend_name: str | None = None
    samples: tuple = ()
    model: Any = None            # ModelSpec
    dataset_stats: Any = None    # DatasetStats
    plan: Any = None             # PlanResult
    plan_dict: dict | None = None   # PlanResult.to_dict(), with the user's edits applied
    check: Any = None               # tui.check_model.CheckSession: `rocm-tune check FILE...` opened the app


def _after_start() -> None:
    """Normal garbage collection once the first screen is painted (see _GC_THRESHOLD); the CSS parsed
    for it kept for the next start (a no-op when it was all read from the cache)."""
    if gc.get_threshold()[0] != _GC_THRESHOLD[0]:
        gc.freeze()
        gc.set_threshold(*_GC_THRESHOLD)
    css_cache.save()


class RocmTuneApp(App):
    TITLE = "rocm-tune"
    CSS_PATH: ClassVar[CSSPathType | None] = [STYLES / "app.tcss"]
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        # ctrl+c quits cleanly (Textual's default only toasts); on the monitor it detaches (the run goes on)
        Binding("ctrl+c", "interrupt", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        attach: str | None = None,
        *,
        clock: Callable[[], float] = time.time,
        answers: dict[str, Any] | None = None,
        poll_interval: float = 1.0,
        start: str | None = None,
        backend: Any = None,
        doctor_view: Callable[[], Any] | None = None,
        host_probe: Any = None,
        check: Any = None,
    ) -> None:
        super().__init__()
        # the same stylesheet, its parses read from the previous start's (css_cache)
        self.stylesheet = css_cache.CachedStylesheet(variables=self.stylesheet._variables)
        # no widget of the app has a tooltip: no hidden Tooltip widget on every screen (as App.run_test does;
        # tests/test_tui_structure.py keeps every screen's widgets without one)
        self._disable_tooltips = True
        self.attach = attach
        self.clock = clock
        self.poll_interval = poll_interval
        self.state = WizardState()
        if answers:
            self.state.answers.update(answers)
        self.state.check = check
        self.start = start or ("monitor" if attach else "check" if check is not None else "hardware")
        self.mounted_at: float | None = None
        self.first_paint_at: float | None = None   # perf_counter() once the first screen is on the terminal
        self.backend = backend   # GPU telemetry backend (tests: FakeBackend with a fixed clock)
        self.doctor_view = doctor_view   # () -> doctor.SystemView (tests: a fake host)
        self.host_probe = host_probe     # monitor's host CPU/RAM and process owners (tests: a fixed host)

    def gpu_backend(self) -> Any:
        """The telemetry backend: the injected one, else `core.hardware.devices.detect()` (called in workers)."""
        if self.backend is None:
            devices = import_module("rocm_tune.core.hardware.devices")
            self.backend = devices.detect()
        return self.backend

    def get_default_screen(self) -> Any:
        """Textual's empty screen under the app's screens, not restyled on its first resume (screens.base)."""
        from rocm_tune.tui.screens.base import FreshScreen

        return FreshScreen(id="_default")

    def on_mount(self) -> None:
        from rocm_tune.tui.navigation import open_screen

        open_screen(self, self.start, attach=self.attach)
        self.mounted_at = time.perf_counter()

    def screen_painted(self, screen: Any = None) -> None:
        """Called by each screen right after its first refresh (benchmarks/tui_startup.py reads it)."""
        if self.first_paint_at is None:
            self.first_paint_at = time.perf_counter()
            self.call_after_refresh(_after_start)

    async def action_quit(self) -> None:
        """Quit; from a monitor the run goes on and its id and `rocm-tune attach` line are printed."""
        detach = next((getattr(s, "detach_message", None) for s in reversed(self.screen_stack)
                       if callable(getattr(s, "detach_message", None))), None)
        self.exit(0, message=detach() if detach is not None else None)

    async def action_interrupt(self) -> None:
        await self.action_quit()

    def action_help(self) -> None:
        from rocm_tune.tui.widgets.modals import HelpModal

        text = getattr(self.screen, "HELP", None) or "rocm-tune: every action is on a key shown in the footer."
        self.push_screen(HelpModal(text))


def run_app(attach: str | None = None) -> int:
    """Entry point for `rocm-tune`, `rocm-tune attach TARGET` and `rocm-tune demo`."""
    app = RocmTuneApp(attach=attach)
    result = app.run()
    css_cache.save()   # the CSS of the screens opened since the first paint
    return int(result or 0) if isinstance(result, int) else 0


def run_check_app(session: Any) -> int:
    """Entry point for `rocm-tune check FILE...` in a terminal: the Plan screen of the user's own files."""
    app = RocmTuneApp(check=session)
    app.run()
    css_cache.save()
    return int(session.report.exit_code)
