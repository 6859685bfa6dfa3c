"""The list of runs (registry) side by side with their loss curves: pick one to watch, or mark two
(space) and compare their loss curves (c)."""

from __future__ import annotations

import bisect
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from rocm_tune.tui.render import fmt_clock, fmt_num, sparkline
from rocm_tune.tui.widgets.chart import Chart
from rocm_tune.tui.widgets.table import FitTable

SPARK_W = 16
MAX_CURVES = 30   # the newest runs get their loss curve read (the real parsers, in a worker)


NARROW_BELOW = 100   # terminal columns: below this the name column goes (the id ends with the name)


class RunsLoaded(Message):
    def __init__(self, runs: list, curves: dict | None = None, error: str | None = None,
                 earlier: dict | None = None) -> None:
        super().__init__()
        self.runs, self.curves, self.error, self.earlier = runs, curves or {}, error, earlier


def loss_points(run_dir: str) -> list[tuple[int, float]]:
    """(step, loss) of a run, read with the monitor's own watcher (metrics.jsonl or the text log)."""
    from rocm_tune.core.runs.watch.watch import Watcher

    w = Watcher(run_dir, gpus=False)
    try:
        w.poll()
        s = w.history.series.get("loss")
        return list(s.points()) if s is not None else []
    finally:
        w.close()


def run_row(r, now: float, curve: list | None = None, earlier_s: float = 0.0, narrow: bool = False) -> tuple:
    """One row of the list: id, name (not when narrow), status, step, loss, loss curve, elapsed — the whole run's
    time, its segments before a resume (`earlier_s`, watch.earlier_segments) included."""
    prog = r.progress
    start = r.started_at or r.created_at
    end = r.ended_at if r.ended_at else now
    step = (f"{r.step}/{r.total_steps}" if r.total_steps and r.step is not None else
            (str(r.step) if r.step is not None else "-") + ("" if prog is None else f" {prog * 100:.0f}%"))
    width = SPARK_W // 2 if narrow else SPARK_W
    spark = Text(sparkline([v for _, v in curve], width), style="cyan") if curve else Text("-", style="dim")
    elapsed = fmt_clock(max(0.0, end - start) + earlier_s) if start else "-"
    name = () if narrow else (r.name,)
    return (r.id, *name, r.status, step, fmt_num(r.loss) if isinstance(r.loss, float) else "-", spark, elapsed)


def earlier_times(runs: list) -> dict:
    """{run id: seconds of its segments before the current one} (resumed runs only)."""
    from rocm_tune.core.runs.watch.watch import earlier_segments

    out = {}
    for r in runs:
        secs, n = earlier_segments(str(r.dir))   # an unreadable run.json counts no earlier time (never raises)
        if n:
            out[r.id] = secs
    return out


def common_grid(curves: list[list[tuple[int, float]]], n: int) -> tuple[list[list[float | None]], int]:
    """Each curve's loss at n evenly spaced steps from 0 to the longest run's last step (None past
    its own end), so two runs line up by step, not by how many points they logged."""
    last = max((c[-1][0] for c in curves if c), default=0)
    out = []
    for c in curves:
        steps = [s for s, _ in c]
        vals = []
        for i in range(n):
            x = last * (i + 1) / n
            j = bisect.bisect_right(steps, x) - 1
            vals.append(c[j][1] if j >= 0 and x <= steps[-1] else None)
        out.append(vals)
    return out, last


class CompareScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Back")]

    def __init__(self, runs: list, curves: list[list[tuple[int, float]]]) -> None:
        super().__init__()
        self.runs, self.curves = runs, curves

    def compose(self) -> ComposeResult:
        a, b = self.runs
        with Vertical():
            yield Static(Text.assemble(("Compare loss  ", "bold"), ("⣿ ", "cyan"), a.name, "  vs  ",
                                       ("• ", "bold yellow"), b.name), id="cmp-title")
            yield Chart("loss", id="cmp-chart")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self.draw)

    def draw(self) -> None:
        chart = self.query_one("#cmp-chart", Chart)
        n = max(20, 2 * (chart.size.width - 9))
        (va, vb), last = common_grid(self.curves, n)
        a, b = self.runs
        chart.update_series([(a.name[:20], va, "cyan"), (b.name[:20], vb, "bold yellow", "•")],
                            x_steps=(0, last))

    def on_resize(self) -> None:
        self.call_after_refresh(self.draw)

    def action_close(self) -> None:
        self.dismiss(None)


class RunListScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose", "Watch"),
        Binding("space", "mark", "Mark"),
        Binding("c", "compare", "Compare 2"),
        Binding("k", "checkpoints", "Checkpoints / resume"),
        Binding("g", "reload", "Refresh"),
        Binding("escape", "close", "Back"),
    ]

    def compose(self) -> ComposeResult:
        yield Static("[b]Runs[/b]  enter watch · space mark · c compare 2 · k resume · g refresh", id="runs-title")
        yield FitTable(id="runs", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self._runs: dict[str, object] = {}
        self._curves: dict[str, list] = {}
        self._marked: list[str] = []
        self._earlier: dict[str, float] = {}
        self._narrow = self.app.size.width < NARROW_BELOW
        t = self.query_one(DataTable)
        for c in ("id", "name", "status", "step", "loss", "loss curve", "elapsed"):
            if c != "name" or not self._narrow:
                t.add_column("curve" if c == "loss curve" and self._narrow else c, key=c)
        self.action_reload()

    def action_reload(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load(self) -> None:
        from rocm_tune.core.runs.registry import list_runs

        try:
            runs = list(list_runs())
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(RunsLoaded([], error=str(exc)))
            return
        self.post_message(RunsLoaded(runs, earlier=earlier_times(runs)))   # the table first, then the curves
        curves = {}
        for r in runs[:MAX_CURVES]:
            try:
                curves[r.id] = loss_points(r.dir)
            except Exception:  # noqa: BLE001 - an unreadable run has no curve, the others still do
                curves[r.id] = []
        self.post_message(RunsLoaded(runs, curves))

    def on_runs_loaded(self, msg: RunsLoaded) -> None:
        t = self.query_one(DataTable)
        cursor = t.cursor_row
        t.clear()
        now = self.app.clock()  # type: ignore[attr-defined]
        self._runs = {r.id: r for r in msg.runs}
        self._curves.update(msg.curves)
        if msg.earlier is not None:
            self._earlier = msg.earlier
        for r in msg.runs:
            row = list(run_row(r, now, self._curves.get(r.id), self._earlier.get(r.id, 0.0), self._narrow))
            if r.id in self._marked:
                row[0] = Text(f"* {r.id}", style="bold reverse")
            t.add_row(*row, key=r.id)
        if msg.runs:
            t.move_cursor(row=min(cursor, len(msg.runs) - 1))
        title = self.query_one("#runs-title", Static)
        if msg.error:
            title.update(f"[b]Runs[/b]  {msg.error}")
        elif not msg.runs:
            title.update("[b]Runs[/b]  none yet: start one with `rocm-tune run` or `rocm-tune demo`")
        t.focus()

    def _cursor_id(self) -> str | None:
        t = self.query_one(DataTable)
        if not t.row_count:
            return None
        return t.coordinate_to_cell_key(t.cursor_coordinate).row_key.value

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_choose(self) -> None:
        rid = self._cursor_id()
        if rid:
            self.dismiss(rid)

    def action_mark(self) -> None:
        rid = self._cursor_id()
        if not rid:
            return
        if rid in self._marked:
            self._marked.remove(rid)
        else:
            self._marked = (self._marked + [rid])[-2:]
        self.post_message(RunsLoaded(list(self._runs.values())))
        self.notify(f"marked: {', '.join(self._marked) or 'none'}" + ("; c compares them" if len(self._marked) == 2
                                                                       else ""))

    def action_compare(self) -> None:
        if len(self._marked) != 2:
            self.notify("mark two runs with space first", severity="warning")
            return
        missing = [rid for rid in self._marked if not self._curves.get(rid)]
        if missing:
            self.notify(f"no loss logged yet by {', '.join(missing)}", severity="warning")
            return
        self.app.push_screen(CompareScreen([self._runs[rid] for rid in self._marked],
                                           [self._curves[rid] for rid in self._marked]))

    def action_checkpoints(self) -> None:
        """The selected run's checkpoints; resuming one watches it (the run list closes on it)."""
        from rocm_tune.tui.screens.checkpoints import CheckpointsScreen

        rid = self._cursor_id()
        if not rid:
            self.notify("no run selected", severity="warning")
            return

        def resumed(got: str | None) -> None:
            if got:
                self.dismiss(got)

        self.app.push_screen(CheckpointsScreen(rid), resumed)

    def action_close(self) -> None:
        self.dismiss(None)
