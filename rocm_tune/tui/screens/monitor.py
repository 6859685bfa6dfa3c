"""The monitor: loss/lr/grad_norm charts, progress and ETA, GPU panes, alerts, log tail."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Log, Static

from rocm_tune.tui.monitor_model import MonitorSource, RunView
from rocm_tune.tui.render import fmt_duration, fmt_num, render_gpu_pane, render_progress
from rocm_tune.tui.widgets.chart import Chart

STATUS_STYLE = {"running": "bold green", "finished": "bold blue", "failed": "bold red", "stopped": "bold yellow",
                "lost": "bold red"}


class ViewReady(Message):
    def __init__(self, view: RunView) -> None:
        super().__init__()
        self.view = view


def render_header(v: RunView) -> Text:
    """Run title, status, progress bar, ETA, speed (pure)."""
    t = Text()
    t.append(v.title[:40], style="bold")
    t.append("  ")
    t.append(f" {v.status} ", style=f"reverse {STATUS_STYLE.get(v.status, 'bold')}")
    if v.status in ("failed", "stopped") and v.returncode is not None:
        t.append(f" exit {v.returncode}")
    if v.source:
        t.append(f"  {v.source}", style="dim")
    t.append("\n")
    t.append_text(render_progress(v.step, v.total_steps, 24))
    if v.epoch is not None:
        t.append(f"  epoch {v.epoch:.2f}")
    t.append(f"  elapsed {fmt_duration(v.elapsed_s)}  ETA ")
    t.append(fmt_duration(v.eta_s) if v.status == "running" else "-", style="bold")
    t.append(f"  {fmt_num(v.tokens_per_s)} tok/s  {fmt_num(v.step_time_s)} s/step")
    return t


def render_alerts(v: RunView) -> Text:
    t = Text()
    for i, (code, evidence, fix, severity) in enumerate(v.alerts):
        if i:
            t.append("\n")
        t.append(f"! {code}", style="bold red" if severity in ("error", "critical") else "bold yellow")
        if evidence:
            t.append(f"  {evidence[:200]}")
        if fix:
            t.append(f"\n  fix: {fix}", style="italic")
    return t


class MonitorScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "detach", "Detach"),
        Binding("s", "stop", "Stop run"),
        Binding("l", "toggle_log", "Log"),
        Binding("r", "runs", "Runs"),
        Binding("escape", "wizard", "Plan"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "detach", "Quit", show=False),
    ]
    HELP = """[b]Monitor[/b]
Top: run, status, progress, elapsed time, ETA and speed. Left: the loss (raw and smoothed), the
learning rate and grad_norm. Right: one pane per GPU (utilisation, VRAM, temperature, power, with a
short history). Below: alerts with their fixes, and the tail of the run's log.

The run lives on its own: detaching or losing the terminal never stops it. Come back with
`rocm-tune attach RUN`.

[b]d[/b] detach (the run goes on)   [b]s[/b] stop the run (asks first)   [b]l[/b] show/hide the log
[b]r[/b] list of runs   [b]esc[/b] back to the plan (after a launch from it)   [b]?[/b] help
[b]q[/b] detach and quit"""

    def __init__(self, target: str | None) -> None:
        super().__init__()
        self.target = target
        self.source: MonitorSource | None = None
        self.view: RunView | None = None
        self._log_key: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="mon-header")
        with Horizontal(id="mon-main"):
            with Vertical(id="mon-charts"):
                yield Chart("loss", id="chart-loss")
                with Horizontal(id="mon-small"):
                    yield Chart("lr", id="chart-lr")
                    yield Chart("grad_norm", id="chart-gn")
            yield VerticalScroll(id="mon-gpus")
        yield Static("", id="mon-alerts")
        yield Log(id="mon-log", max_lines=500, auto_scroll=True)
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self.app.screen_painted, self)  # type: ignore[attr-defined]
        if not self.target:
            self.app.call_later(self.action_runs)
            self.query_one("#mon-header", Static).update("no run selected: press r for the list of runs")
            return
        self.open(self.target)

    def open(self, target: str) -> None:
        self.target = target
        backend = self.app.backend  # type: ignore[attr-defined]
        self.source = MonitorSource(target, self.app.clock, backend if backend is not None else True)  # type: ignore[attr-defined]
        self.view = None
        self._log_key = None
        self.query_one("#mon-log", Log).clear()
        self.query_one("#mon-gpus", VerticalScroll).remove_children()
        self.query_one("#mon-header", Static).update(f"opening {target} ...")
        self.poll()

    @work(thread=True, exclusive=True, exit_on_error=False, group="monitor")
    def poll(self) -> None:
        source = self.source
        if source is None:
            return
        view = source.poll()
        self.post_message(ViewReady(view))

    def on_view_ready(self, msg: ViewReady) -> None:
        v = msg.view
        if v.target != self.target:
            return
        self.apply(v)
        interval = self.app.poll_interval  # type: ignore[attr-defined]
        if v.status != "running" and v.error is None and v.status != "unknown":
            interval = max(interval, 2.0)
        self.set_timer(interval, self.poll)

    def apply(self, v: RunView) -> None:
        """Update only what changed."""
        old, self.view = self.view, v
        header = self.query_one("#mon-header", Static)
        if v.error:
            header.update(Text(f"{v.target}: {v.error}", style="bold red"))
            return
        header.update(render_header(v))
        self.query_one("#chart-loss", Chart).update_series(
            [("loss", v.loss_series, "cyan"), ("smoothed", v.smooth_series, "bold yellow", "•")],
            x_label=f"steps {v.steps[0]}-{v.steps[-1]}" if v.steps else "")
        self.query_one("#chart-lr", Chart).update_series([("lr", v.lr_series, "green")])
        self.query_one("#chart-gn", Chart).update_series([("grad_norm", v.grad_series, "magenta")])
        self.update_gpus(v)
        alerts = self.query_one("#mon-alerts", Static)
        if old is None or old.alerts != v.alerts:
            alerts.update(render_alerts(v))
            alerts.display = bool(v.alerts)
        key = (len(v.log_tail), v.log_tail[-1] if v.log_tail else None)
        if key != self._log_key:
            log = self.query_one("#mon-log", Log)
            prev = list(old.log_tail) if old is not None and self._log_key is not None else []
            new = list(v.log_tail)
            # append only the new lines when the old tail is a prefix-overlap of the new
            overlap = _overlap(prev, new)
            if overlap is None:
                log.clear()
                log.write_lines(new)
            else:
                log.write_lines(new[overlap:])
            self._log_key = key

    def update_gpus(self, v: RunView) -> None:
        box = self.query_one("#mon-gpus", VerticalScroll)
        panes = {w.id: w for w in box.query(Static)}
        width = max(24, box.size.width - 4) if box.size.width else 32
        if not v.gpus:
            if "gpu-none" not in panes:
                box.remove_children()
                box.mount(Static(Text(f"no GPU telemetry here ({v.backend or 'none'})", style="dim"),
                                 id="gpu-none"))
            return
        if "gpu-none" in panes:
            panes.pop("gpu-none").remove()
        for s in v.gpus:
            idx = getattr(s, "index", 0)
            pid = f"gpu-{idx}"
            text = render_gpu_pane(s, v.gpu_history.get(idx), width)
            if pid in panes:
                panes[pid].update(text)
            else:
                box.mount(Static(text, id=pid, classes="gpu-pane"))

    # ---- actions
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "wizard":  # only when the monitor was opened from the wizard (ctrl+l launch)
            return self._over_wizard()
        return True

    def _over_wizard(self) -> bool:
        stack = self.app.screen_stack
        return self in stack and stack.index(self) > 1

    def action_wizard(self) -> None:
        if self._over_wizard():
            self.app.pop_screen()

    def action_detach(self) -> None:
        self.app.exit(0)

    def action_toggle_log(self) -> None:
        log = self.query_one("#mon-log", Log)
        log.display = not log.display

    def action_runs(self) -> None:
        from rocm_tune.tui.screens.runs import RunListScreen

        def chosen(run_id: str | None) -> None:
            if run_id:
                self.open(run_id)

        self.app.push_screen(RunListScreen(), chosen)

    def action_stop(self) -> None:
        from rocm_tune.tui.widgets.modals import ConfirmModal

        v = self.view
        if v is None or v.status != "running":
            self.notify("this run is not running", severity="warning")
            return
        ref = v.run_id or self.target

        def answer(yes: bool | None) -> None:
            if yes:
                self.notify(f"stopping {ref} ...")
                self.stop_worker(ref)

        self.app.push_screen(ConfirmModal(f"Stop run {v.title}?",
                                          "SIGTERM to its whole process group, SIGKILL after the grace period.\n"
                                          "The trainer saves a checkpoint on SIGTERM."), answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stop")
    def stop_worker(self, ref: str) -> None:
        from importlib import import_module

        from rocm_tune.core.errors import UserError

        runs = import_module("rocm_tune.core.runs.launcher")
        try:
            info = runs.stop_run(ref)
            self.app.call_from_thread(self.notify, f"{ref}: {info.status}")
        except UserError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.app.call_from_thread(self.notify, f"stop failed: {exc}", severity="error")


def _overlap(prev: list[str], new: list[str]) -> int | None:
    """How many leading lines of `new` were already shown (`prev` scrolled by some lines), or None."""
    if not prev:
        return 0
    for j in range(len(prev)):
        k = len(prev) - j
        if k <= len(new) and prev[j:] == new[:k]:
            return k
    return None
