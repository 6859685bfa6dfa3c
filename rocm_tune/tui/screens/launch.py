"""ctrl+l on the Plan and Export screens: confirm (with `rocm-tune run`'s --retry-oom N and --notify options),
start the run detached, watch it in the monitor."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Label, Static

from rocm_tune.core.errors import UserError
from rocm_tune.tui.widgets.inputs import FOCUS_BINDINGS, OrderedInput

LAUNCH_BINDING = Binding("ctrl+l", "launch", "Launch", priority=True)


class LaunchChecked(Message):
    def __init__(self, preview: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.preview, self.error = preview, error


class LaunchStarted(Message):
    def __init__(self, info: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.info, self.error = info, error


class LaunchModal(ModalScreen[dict | None]):
    """The launch confirmation: what will run, and the options of `rocm-tune run` for a long run: retry on GPU OOM
    (--retry-oom N) and who is told (--notify URL|COMMAND). Dismisses with {"retry_oom", "notify"} or None."""

    DEFAULT_CSS = """
    LaunchModal { align: center middle; }
    LaunchModal > Vertical { width: 100; max-width: 98%; height: auto; max-height: 100%; border: thick $accent;
                             padding: 0 1; background: $panel; }
    LaunchModal .title { text-style: bold; }
    LaunchModal .opt { height: 1; }
    LaunchModal .opt Label { width: 26; color: $text-muted; }
    LaunchModal .opt Input { width: 1fr; }
    LaunchModal #launch-error { height: auto; }
    """
    AUTO_FOCUS = ""   # no field focused: y / n answer at once; tab moves into the options
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "launch", "Yes, launch"),
        Binding("n,escape", "cancel", "No"),
        *FOCUS_BINDINGS,
    ]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            yield Static(self.body)
            yield Static("")
            with Horizontal(classes="opt"):
                yield Label("retry on GPU OOM (times)")
                yield OrderedInput("0", id="retry-oom", compact=True, type="integer")
            with Horizontal(classes="opt"):
                yield Label("notify (URL or command)")
                yield OrderedInput("", id="notify", compact=True, placeholder="none  (e.g. https://ntfy.sh/my-runs)")
            yield Static("", id="launch-error")
            yield Static("[b]y[/b] launch (or [b]enter[/b] in a field)   [b]n[/b]/[b]esc[/b] no   [b]tab[/b] options: "
                         "[dim]an OOM is retried stepped down from the last checkpoint; notify is told on finish, "
                         "failure, alert, stall, retry[/dim]")
        yield Footer()

    def options(self) -> dict:
        """The options as `rocm-tune run` checks them (one line naming the value when wrong)."""
        raw = self.query_one("#retry-oom", Input).value.strip() or "0"
        try:
            n = int(raw)
        except ValueError:
            raise UserError(f"retry on OOM must be a whole number, got {raw!r}") from None
        if not 0 <= n <= 100:
            raise UserError(f"retry on OOM must be between 0 and 100, got {n}")
        spec = self.query_one("#notify", Input).value.strip()
        if spec:
            from rocm_tune.core.runs.notify import parse_target

            spec = parse_target(spec).spec
        return {"retry_oom": n, "notify": spec or None}

    def action_launch(self) -> None:
        try:
            opts = self.options()
        except UserError as exc:
            self.query_one("#launch-error", Static).update(Text(str(exc), style="bold red"))
            return
        self.dismiss(opts)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_launch()

    def action_cancel(self) -> None:
        self.dismiss(None)


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

        preview = msg.preview
        plan = self.state.plan_dict  # type: ignore[attr-defined]

        def answer(opts: dict | None) -> None:
            if opts is not None:
                self.set_status(f"starting {preview.name} ...")  # type: ignore[attr-defined]
                self.start_launch(plan, preview, opts)
            else:
                self._launching = False
                self.set_status("not launched")  # type: ignore[attr-defined]

        self.app.push_screen(  # type: ignore[attr-defined]
            LaunchModal(f"Launch {preview.name} now?", lm.describe(preview)), answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="launch")
    def start_launch(self, plan: dict, preview: Any, opts: dict | None = None) -> None:
        from rocm_tune.tui import launch_model as lm

        try:
            self.post_message(LaunchStarted(lm.start(plan, preview, **(opts or {}))))  # type: ignore[attr-defined]
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
