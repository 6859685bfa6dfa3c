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
DEMO_BINDING = Binding("ctrl+t", "demo", "Demo run", priority=True)
DEMO_TEXT = ("rocm-tune demo: a tiny random model (2 layers, built here, nothing downloaded) really trains on a tiny "
             "dataset, about 30 s on a CPU, detached like any run; the monitor opens on it.")


class DemoStarted(Message):
    def __init__(self, info: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.info, self.error = info, error


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


class DemoMixin:
    """ctrl+t (and a launch without a dataset): start `rocm-tune demo`'s tiny real run, as the command starts it,
    after a confirmation, and open the monitor on it."""

    _demo_starting = False

    def action_demo(self, title: str = "Start a tiny demo run?", declined: str = "no demo run started") -> None:
        if self._demo_starting:
            self.set_status("the demo run is already being started", error=True)  # type: ignore[attr-defined]
            return
        from rocm_tune.tui.widgets.modals import ConfirmModal

        def answer(yes: bool | None) -> None:
            if yes:
                self._demo_starting = True
                self.set_status("building the tiny model and starting the demo run ...")  # type: ignore[attr-defined]
                self.start_demo_worker()
            else:
                self.set_status(declined)  # type: ignore[attr-defined]

        self.app.push_screen(ConfirmModal(title, DEMO_TEXT, variant="launch"), answer)  # type: ignore[attr-defined]

    @work(thread=True, exclusive=True, exit_on_error=False, group="demo")
    def start_demo_worker(self) -> None:
        from rocm_tune.tui import launch_model as lm

        try:
            self.post_message(DemoStarted(lm.start_demo()))  # type: ignore[attr-defined]
        except UserError as exc:
            self.post_message(DemoStarted(error=str(exc)))  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(DemoStarted(error=f"demo failed: {type(exc).__name__}: {exc}"))  # type: ignore[attr-defined]

    def on_demo_started(self, msg: DemoStarted) -> None:
        self._demo_starting = False
        if msg.error:
            self.set_status(msg.error, error=True)  # type: ignore[attr-defined]
            return
        self.set_status(f"started demo run {msg.info.id}")  # type: ignore[attr-defined]
        self.notify(f"started demo run {msg.info.id}; it runs detached (rocm-tune attach {msg.info.id})")  # type: ignore[attr-defined]
        from rocm_tune.tui.navigation import make_screen

        self.app.push_screen(make_screen("monitor", attach=msg.info.id))  # type: ignore[attr-defined]


class LaunchMixin(DemoMixin):
    """For StepScreen subclasses: `action_launch` and its workers (they never touch widgets)."""

    _launching = False

    def action_launch(self) -> None:
        if self._launching:
            self.set_status("a launch is already on its way", error=True)  # type: ignore[attr-defined]
            return
        from rocm_tune.tui import launch_model as lm

        if not lm.dataset_of(self.state.plan_dict, self.state.answers):  # type: ignore[attr-defined]
            # nothing to train on: say where the dataset goes, and offer the tiny real run instead
            need = "launch needs a dataset: set it on the Goal screen (esc back to it)"
            self.set_status(need, error=True)  # type: ignore[attr-defined]
            self.action_demo("No dataset to launch with: start the tiny demo run instead?", need)
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
