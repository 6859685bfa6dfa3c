"""The list of runs (registry): pick one to watch."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from rocm_tune.tui.render import fmt_duration


class RunsLoaded(Message):
    def __init__(self, runs: list, error: str | None = None) -> None:
        super().__init__()
        self.runs, self.error = runs, error


def run_row(r, now: float) -> tuple[str, ...]:
    prog = r.progress
    start = r.started_at or r.created_at
    return (r.id, r.name, r.status,
            f"{r.step}/{r.total_steps}" if r.total_steps and r.step is not None else (
                str(r.step) if r.step is not None else "-") + ("" if prog is None else f" {prog * 100:.0f}%"),
            f"{r.loss:.4g}" if isinstance(r.loss, float) else "-",
            fmt_duration(now - start) if start else "-")


class RunListScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Watch"),
        Binding("escape", "close", "Back"),
        Binding("g", "reload", "Refresh"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("[b]Runs[/b]  enter watch · g refresh · esc back", id="runs-title")
        yield DataTable(id="runs", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        t = self.query_one(DataTable)
        for c in ("id", "name", "status", "step", "loss", "age"):
            t.add_column(c, key=c)
        self.action_reload()

    def action_reload(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        from importlib import import_module

        reg = import_module("rocm_tune.core.runs.registry")
        try:
            self.post_message(RunsLoaded(list(reg.list_runs())))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(RunsLoaded([], str(exc)))

    def on_runs_loaded(self, msg: RunsLoaded) -> None:
        t = self.query_one(DataTable)
        t.clear()
        now = self.app.clock()  # type: ignore[attr-defined]
        for r in msg.runs:
            t.add_row(*run_row(r, now), key=r.id)
        title = self.query_one("#runs-title", Static)
        if msg.error:
            title.update(f"[b]Runs[/b]  {msg.error}")
        elif not msg.runs:
            title.update("[b]Runs[/b]  none yet: start one with `rocm-tune run` or `rocm-tune demo`")
        t.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_choose(self) -> None:
        t = self.query_one(DataTable)
        if t.row_count:
            self.dismiss(t.coordinate_to_cell_key(t.cursor_coordinate).row_key.value)

    def action_close(self) -> None:
        self.dismiss(None)
