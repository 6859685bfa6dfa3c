"""A run's checkpoint list (`c` on the monitor, `k` on the run list): every checkpoint-N, complete or not (and why);
`enter` resumes from the selected one, `n` from the newest complete one (on the GPUs / nodes typed, else the plan's),
through `rocm-tune resume`'s own checks
(`tui/resume_model.py`); a refusal is shown here, word for word."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.markup import escape
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Label, Static

from rocm_tune.core.errors import UserError
from rocm_tune.tui.render import fit_path
from rocm_tune.tui.widgets.inputs import FOCUS_BINDINGS, OrderedInput
from rocm_tune.tui.widgets.table import FitTable


class CheckpointsLoaded(Message):
    def __init__(self, listing: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.listing, self.error = listing, error


class ResumeReady(Message):
    def __init__(self, resume: Any = None, error: str | None = None, size: tuple = (None, None)) -> None:
        super().__init__()
        self.resume, self.error, self.size = resume, error, size


class ResumeStarted(Message):
    def __init__(self, info: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.info, self.error = info, error


def _name(path: str, folder: str | None) -> str:
    """A checkpoint's folder name in the run's output folder (the whole path when it lies elsewhere)."""
    import os

    if folder and os.path.dirname(os.path.normpath(path)) == os.path.normpath(folder):
        return os.path.basename(os.path.normpath(path))
    return path


class CheckpointsScreen(ModalScreen[str | None]):
    """Dismisses with the run id once the run was resumed (the caller watches it), else None."""

    DEFAULT_CSS = """
    CheckpointsScreen { align: center middle; }
    CheckpointsScreen > Vertical { width: 110; max-width: 98%; height: auto; max-height: 90%;
                                   border: thick $accent; padding: 0 1; background: $panel; }
    CheckpointsScreen DataTable { height: auto; max-height: 16; }
    CheckpointsScreen #ck-status { height: auto; margin-top: 1; }
    CheckpointsScreen #ck-where, CheckpointsScreen #ck-detail { height: auto; }
    CheckpointsScreen .ck-size { height: 1; margin-top: 1; }
    CheckpointsScreen .ck-size Label { width: auto; margin-right: 1; color: $text-muted; }
    CheckpointsScreen .ck-size Input { width: 12; margin-right: 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "resume_selected", "Resume from this"),
        Binding("n", "resume_newest", "Resume from newest complete"),
        Binding("escape,q", "close", "Back"),
        *FOCUS_BINDINGS,
    ]

    def __init__(self, ref: str) -> None:
        super().__init__()
        self.ref = ref
        self.listing: Any = None
        self.started: Any = None
        self._busy = False

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"[b]Checkpoints of {escape(self.ref)}[/b]", id="ck-title")
            yield Static("", id="ck-where")
            yield FitTable(id="ck-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="ck-detail")
            with Horizontal(classes="ck-size"):   # `rocm-tune resume --gpus N --nodes N` (empty: the plan's)
                yield Label("resume on GPUs per node")
                yield OrderedInput("", id="ck-gpus", placeholder="the plan's", compact=True, type="integer")
                yield Label("nodes")
                yield OrderedInput("", id="ck-nodes", placeholder="the plan's", compact=True, type="integer")
            yield Static("reading the checkpoints ...", id="ck-status")
        yield Footer()

    def on_mount(self) -> None:
        t = self.query_one(DataTable)
        for c in ("checkpoint", "step", "state", "weights", "ZeRO", "ranks"):
            t.add_column(c, key=c)
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="ck")
    def load(self) -> None:
        from rocm_tune.tui import resume_model as rm

        try:
            self.post_message(CheckpointsLoaded(rm.checkpoints(self.ref)))
        except UserError as exc:
            self.post_message(CheckpointsLoaded(error=str(exc)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(CheckpointsLoaded(error=f"{type(exc).__name__}: {exc}"))

    def say(self, text: str, error: bool = False) -> None:
        self.query_one("#ck-status", Static).update(Text(text, style="bold red" if error else ""))

    def on_checkpoints_loaded(self, msg: CheckpointsLoaded) -> None:
        if msg.error:
            self.say(msg.error, error=True)
            return
        self.listing = lst = msg.listing
        self.query_one("#ck-title", Static).update(f"[b]Checkpoints of {escape(lst.run_id)}[/b]")
        # the folder once, on its own line (shortened from the left to the width); the table names each checkpoint
        # by its folder in it, so no row is cut at 80 columns; the highlighted one's full path and problem below
        where = self.query_one("#ck-where", Static)
        where.update(Text(f"in {fit_path(lst.output_dir, self._width() - 3)}", style="dim") if lst.output_dir else "")
        t = self.query_one(DataTable)
        t.clear()
        for c in lst.checkpoints:
            state = Text("complete", style="green") if c.complete else Text("cut short", style="red")
            t.add_row(_name(c.path, lst.output_dir), f"{c.step:,}", state, c.weights or "-", str(c.zero_stage or "-"),
                      str(c.world_size or "-"), key=c.path)
        if lst.problem:
            self.say(lst.problem, error=True)
        elif not lst.checkpoints:
            self.say(f"none saved yet (looked in {lst.output_dir})")
        else:
            self.say("enter: resume from the selected checkpoint · n: from the newest complete one · tab: another "
                     "number of GPUs · esc: back")
        t.focus()

    def _width(self) -> int:
        """Columns inside the dialog's border and padding."""
        return max(20, min(110, int((self.app.size.width or 80) * 0.98)) - 4)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        c = next((c for c in getattr(self.listing, "checkpoints", ()) if c.path == event.row_key.value), None)
        detail = self.query_one("#ck-detail", Static)
        if c is None:
            detail.update("")
            return
        t = Text(fit_path(c.path, self._width()), style="dim")
        if not c.complete:
            t.append(f"\ncut short: {c.problem}", style="red")
        detail.update(t)

    def _selected(self) -> str | None:
        t = self.query_one(DataTable)
        if not t.row_count:
            return None
        return t.coordinate_to_cell_key(t.cursor_coordinate).row_key.value

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_resume_selected()

    def action_resume_selected(self) -> None:
        path = self._selected()
        if path is None:
            self.say("no checkpoint to resume from", error=True)
            return
        self._prepare(path)

    def action_resume_newest(self) -> None:
        self._prepare(None)

    def resume_size(self) -> tuple[int | None, int | None]:
        """--gpus / --nodes as `rocm-tune resume` checks them (empty: the plan's)."""
        out: list[int | None] = []
        for wid, flag, hi in (("#ck-gpus", "GPUs per node", 1024), ("#ck-nodes", "nodes", 4096)):   # the app's words
            raw = self.query_one(wid, Input).value.strip()
            if not raw:
                out.append(None)
                continue
            try:
                v = int(raw)
            except ValueError:
                raise UserError(f"{flag} must be a whole number, got {raw!r}") from None
            if not 1 <= v <= hi:
                raise UserError(f"{flag} must be between 1 and {hi}, got {v}")
            out.append(v)
        return out[0], out[1]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_resume_selected()

    def _prepare(self, checkpoint: str | None) -> None:
        if self._busy:
            return
        try:
            gpus, nodes = self.resume_size()
        except UserError as exc:
            self.say(str(exc), error=True)
            return
        self._busy = True
        self.say("checking the checkpoint against the plan ...")
        self.prepare_worker(self.listing.run_id if self.listing else self.ref, checkpoint, gpus, nodes)

    @work(thread=True, exclusive=True, exit_on_error=False, group="resume")
    def prepare_worker(self, ref: str, checkpoint: str | None, gpus: int | None = None,
                       nodes: int | None = None) -> None:
        from rocm_tune.tui import resume_model as rm

        try:
            self.post_message(ResumeReady(rm.prepare(ref, checkpoint, gpus=gpus, nodes=nodes), size=(gpus, nodes)))
        except UserError as exc:
            self.post_message(ResumeReady(error=str(exc)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(ResumeReady(error=f"cannot resume: {type(exc).__name__}: {exc}"))

    def on_resume_ready(self, msg: ResumeReady) -> None:
        if msg.error:
            self._busy = False
            self.say(f"not resumed: {msg.error}", error=True)
            return
        from rocm_tune.tui import resume_model as rm
        from rocm_tune.tui.widgets.modals import ConfirmModal

        r = msg.resume

        def answer(yes: bool | None) -> None:
            if yes:
                self.say(f"resuming {r.run_id} ...")
                self.start_worker(r)
            else:
                self._busy = False
                self.say("not resumed")

        self.app.push_screen(ConfirmModal(f"Resume {r.run_id}?", rm.describe(r, *msg.size), variant="launch"), answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="resume")
    def start_worker(self, r: Any) -> None:
        from rocm_tune.tui import resume_model as rm

        try:
            self.post_message(ResumeStarted(rm.start(r)))
        except UserError as exc:
            self.post_message(ResumeStarted(error=str(exc)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(ResumeStarted(error=f"resume failed: {type(exc).__name__}: {exc}"))

    def on_resume_started(self, msg: ResumeStarted) -> None:
        self._busy = False
        if msg.error:
            self.say(f"not resumed: {msg.error}", error=True)
            return
        self.started = msg.info
        self.app.notify(f"resumed {msg.info.id}; it runs detached (rocm-tune attach {msg.info.id})")
        self.dismiss(msg.info.id)

    def action_close(self) -> None:
        self.dismiss(None)
