"""ctrl+l on the Plan and Export screens: confirm, start the run detached, watch it in the monitor."""

from __future__ import annotations

from typing import Any

from textual import work
from textual.binding import Binding
from textual.message import Message

from rocm_tune.core.errors import UserError

LAUNCH_BINDING = Binding("ctrl+l", "launch", "Launch", priority=True)


class LaunchChecked(Message):
    def __init__(self, preview: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.preview, self.error = preview, error


class LaunchStarted(Message):
    def __init__(self, info: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.info, self.error = info, error


class LaunchMixin:
    """For StepScreen subclasses: `action_launch` and its workers (they never touch widgets)."""

    _launching = False

    def action_launch(self) -> None:
        if self._launching:
            self.set_status("a launch is already on its way", error=True)  # type: ignore[attr-defined]
            return
        try:
            self.collect()  # type: ignore[attr-defined]
        except UserError as exc:
            self.set_status(str(exc), error=True)  # type: ignore[attr-defined]
            return
        self._launching = True
        self.set_status("checking what would run ...")  # type: ignore[attr-defined]
        self.check_launch(self.state.plan_dict, dict(self.state.answers))  # type: ignore[attr-defined]

    @work(thread=True, exclusive=True, exit_on_error=False, group="launch")
    def check_launch(self, plan: dict | None, answers: dict) -> None:
        from rocm_tune.tui import launch_model as lm

        try:
            self.post_message(LaunchChecked(lm.preview(plan, answers)))  # type: ignore[attr-defined]
        except UserError as exc:
            self.post_message(LaunchChecked(error=str(exc)))  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(LaunchChecked(error=f"cannot launch: {type(exc).__name__}: {exc}"))  # type: ignore[attr-defined]

    def on_launch_checked(self, msg: LaunchChecked) -> None:
        if msg.error:
            self._launching = False
            self.set_status(msg.error, error=True)  # type: ignore[attr-defined]
            self.notify(msg.error, severity="error", timeout=8)  # type: ignore[attr-defined]
            return
        from rocm_tune.tui import launch_model as lm
        from rocm_tune.tui.widgets.modals import ConfirmModal

        preview = msg.preview
        plan = self.state.plan_dict  # type: ignore[attr-defined]

        def answer(yes: bool | None) -> None:
            if yes:
                self.set_status(f"starting {preview.name} ...")  # type: ignore[attr-defined]
                self.start_launch(plan, preview)
            else:
                self._launching = False
                self.set_status("not launched")  # type: ignore[attr-defined]

        self.app.push_screen(  # type: ignore[attr-defined]
            ConfirmModal(f"Launch {preview.name} now?", lm.describe(preview), variant="launch"), answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="launch")
    def start_launch(self, plan: dict, preview: Any) -> None:
        from rocm_tune.tui import launch_model as lm

        try:
            self.post_message(LaunchStarted(lm.start(plan, preview)))  # type: ignore[attr-defined]
        except UserError as exc:
            self.post_message(LaunchStarted(error=str(exc)))  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(LaunchStarted(error=f"launch failed: {type(exc).__name__}: {exc}"))  # type: ignore[attr-defined]

    def on_launch_started(self, msg: LaunchStarted) -> None:
        self._launching = False
        if msg.error:
            self.set_status(msg.error, error=True)  # type: ignore[attr-defined]
            self.notify(msg.error, severity="error", timeout=8)  # type: ignore[attr-defined]
            return
        info = msg.info
        self.set_status(f"started {info.id}")  # type: ignore[attr-defined]
        self.notify(f"started {info.id}; it runs detached (rocm-tune attach {info.id})")  # type: ignore[attr-defined]
        from rocm_tune.tui.navigation import make_screen

        self.app.push_screen(make_screen("monitor", attach=info.id))  # type: ignore[attr-defined]
