"""The monitor: loss/lr/grad_norm charts, progress and ETA, GPU panes, alerts, log tail."""

from __future__ import annotations

import os
import shlex
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Log, Static

from rocm_tune.tui.monitor_model import MonitorSource, RunView
from rocm_tune.tui.render import (
    fmt_clock,
    fmt_s_step,
    fmt_tok_s,
    render_gpu_pane,
    render_gpu_table,
    render_host,
    render_nodes,
    render_progress,
)
from rocm_tune.tui.screens.base import COMPACT_BELOW, FreshScreen
from rocm_tune.tui.widgets.chart import Chart

STOP_GRACE_S = 30.0   # SIGTERM, then SIGKILL after this long (the trainer saves a checkpoint on SIGTERM)

STATUS_STYLE = {"running": "bold green", "finished": "bold blue", "failed": "bold red", "stopped": "bold yellow",
                "lost": "bold red"}


class ViewReady(Message):
    def __init__(self, view: RunView) -> None:
        super().__init__()
        self.view = view


def _cut(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut with … (a header line never wraps)."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def render_header(v: RunView, width: int = 80) -> Text:
    """Run title, status, progress bar, elapsed (the whole run, all its segments after a resume), ETA while it
    runs, smoothed speed; after a stop or failure: the last checkpoint and `rocm-tune resume RUN`. Every line
    fits `width` cells (pure)."""
    width = max(40, width)
    t = Text()
    label = "stopped by you" if v.status == "stopped" and v.stopped_by_user else v.status
    tail = ""
    if v.status == "failed" and v.returncode is not None:
        tail = f" exit {v.returncode}"
    elif v.status == "stopped" and not v.stopped_by_user and v.reason:
        tail = f" {v.reason}"
    src = f"  {v.source}" if v.source else ""
    room = width - len(label) - 4 - len(src)
    tail = _cut(tail, max(0, room - 12)) if tail else ""
    t.append(_cut(v.title, max(8, room - len(tail))), style="bold")
    t.append("  ")
    t.append(f" {label} ", style=f"reverse {STATUS_STYLE.get(v.status, 'bold')}")
    t.append(tail)
    if src and len(t.plain) + len(src) <= width:
        t.append(src, style="dim")
    t.append("\n")
    running = v.status in ("running", "unknown")
    parts = f" ({v.segments} parts)" if v.segments > 1 else ""
    eta = fmt_clock(v.eta_s) if running else ""
    speed = f"  {fmt_tok_s(v.tokens_per_s)}  {fmt_s_step(v.step_time_s)}"
    rest = f"  elapsed {fmt_clock(v.elapsed_s)}{parts}" + (f"  ETA {eta}" if running else "")
    epoch = f"  epoch {v.epoch:.2f}" if v.epoch is not None else ""
    counter = len(render_progress(v.step, v.total_steps, 0).plain)
    room = width - counter - len(rest)
    if room - len(speed) < 6:
        speed = f"  {fmt_tok_s(v.tokens_per_s)}"
    if room - len(speed) < 6:
        speed = ""
    room -= len(speed)
    if room - len(epoch) < 8:
        epoch = ""
    t.append_text(render_progress(v.step, v.total_steps, max(0, min(24, room - len(epoch) - 1))))
    t.append(epoch)
    t.append(rest.split("  ETA ")[0])
    if running:
        t.append("  ETA ")
        t.append(eta, style="bold")
    t.append(speed)
    for r in v.restarts[-3:]:   # the newest three (the loss chart marks each with ↻)
        t.append("\n")
        t.append(_cut(f"↻ {r.get('line')}", width), style="bold magenta")
    if v.status != "running" and v.checkpoints:
        saved = f"{os.path.basename(v.checkpoints[-1][1])} saved"
        t.append("\n")
        t.append(_cut(saved, width), style="bold green")
        if v.resume_cmd:
            hint = f"resume: {v.resume_cmd}"
            if len(saved) + 2 + len(hint) <= width:
                t.append("  ")
            else:
                t.append("\n")
            t.append(hint if len(hint) <= width else v.resume_cmd, style="dim")
    return t


def simulated_label(v: RunView, width: int = 31) -> Text:
    """A first line over the GPU panes when the GPUs are simulated (ROCM_TUNE_FAKE_GPUS, ROCM_TUNE_REPLAY): their
    telemetry and processes are made up, never this machine's."""
    if not v.simulated:
        return Text()
    what = "replayed" if v.backend == "replay" else "SIMULATED"
    return Text(_cut(f"{what} GPUs & processes", max(10, width)) + "\n", style="bold reverse yellow")


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


class MonitorScreen(FreshScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "detach", "Detach"),
        Binding("s", "stop", "Stop run"),
        Binding("g", "next_gpu", "GPU"),
        Binding("c", "checkpoints", "Checkpoints"),
        Binding("l", "toggle_log", "Log"),
        Binding("a", "alerts", "Alerts", show=False),
        Binding("r", "runs", "Runs"),
        Binding("escape", "wizard", "Plan"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "detach", "Quit", show=False),
    ]
    HELP = f"""[b]Monitor[/b]
Top: run, status, progress, elapsed time since the run started, ETA and speed (tokens/s and
s/step averaged over the last steps; tqdm's own rate when the log has one). After the end: who
stopped it, the last checkpoint and the command that resumes from it.
Left: the loss (raw, smoothed, eval_loss as ◆) with steps on the x axis, the learning rate,
grad_norm (a NaN shows as NaN and ×), tokens/s and step time.
Right: every GPU in one row each; below, the selected GPU in detail (history, predicted vs
measured memory, the processes on it: PID, user, VRAM, command), the host CPU and RAM, and the
ranks' own memory reports. Below: alerts with their whole fixes (an OOM's is `explain`'s: the plan's
smallest change that fits; `a` focuses the pane, arrows scroll it), and the tail of the run's log.

The run lives on its own: detaching or losing the terminal never stops it. Come back with
`rocm-tune attach RUN`. Stopping sends SIGTERM (the trainer saves a checkpoint), then SIGKILL
after {STOP_GRACE_S:.0f} s if it is still running.

[b]d[/b] detach (the run goes on)   [b]s[/b] stop the run (asks first)   [b]g[/b] next GPU
[b]c[/b] checkpoints and how to resume   [b]l[/b] show/hide the log   [b]r[/b] runs (compare two)
[b]a[/b] scroll the alerts
[b]esc[/b] back to the plan (after a launch from it)   [b]?[/b] help   [b]q[/b] / [b]ctrl+c[/b] detach and quit"""

    def __init__(self, target: str | None) -> None:
        super().__init__()
        self.target = target
        self.source: MonitorSource | None = None
        self.view: RunView | None = None
        self._log_key: tuple | None = None
        self.selected_gpu: int | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="mon-header")
        with Horizontal(id="mon-main"):
            with Vertical(id="mon-charts"):
                yield Chart("loss", id="chart-loss")
                with Horizontal(classes="mon-small"):
                    yield Chart("lr", id="chart-lr")
                    yield Chart("grad_norm", id="chart-gn")
                with Horizontal(classes="mon-small"):
                    yield Chart("tok/s", id="chart-tps")
                    yield Chart("s/step", id="chart-st")
            with VerticalScroll(id="mon-gpus"):
                yield Static("", id="gpu-table")
                yield Static("", id="gpu-detail", classes="gpu-pane")
                yield Static("", id="host")
                yield Static("", id="nodes")
        with VerticalScroll(id="mon-alerts-pane"):   # every alert whole, its fix uncut; `a` focuses it to scroll
            yield Static("", id="mon-alerts")
        yield Log(id="mon-log", max_lines=500, auto_scroll=True)
        yield Footer(compact=self.app.size.width < COMPACT_BELOW)

    def on_mount(self) -> None:
        self.call_after_refresh(self.app.screen_painted, self)  # type: ignore[attr-defined]
        # at 80x24 the charts need the rows: the log starts hidden below 30 rows (`l` shows it)
        self.query_one("#mon-log", Log).display = self.app.size.height >= 30
        if not self.target:
            self.app.call_later(self.action_runs)
            self.query_one("#mon-header", Static).update("no run selected: press r for the list of runs")
            return
        self.open(self.target)

    def open(self, target: str) -> None:
        self.target = target
        backend = self.app.backend  # type: ignore[attr-defined]
        self.source = MonitorSource(target, self.app.clock, backend if backend is not None else True,  # type: ignore[attr-defined]
                                    host=getattr(self.app, "host_probe", None))
        self.view = None
        self._log_key = None
        self.query_one("#mon-log", Log).clear()
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
        header.update(render_header(v, header.size.width or self.app.size.width))
        self.update_charts(v)
        self.update_gpus(v)
        alerts = self.query_one("#mon-alerts", Static)
        if old is None or old.alerts != v.alerts:
            alerts.update(render_alerts(v))
            self.query_one("#mon-alerts-pane", VerticalScroll).display = bool(v.alerts)
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

    def update_charts(self, v: RunView) -> None:
        steps = (v.steps[0], v.steps[-1]) if v.steps else None
        loss = [("loss", v.loss_series, "cyan"), ("smoothed", v.smooth_series, "bold yellow", "•")]
        if any(x is not None for x in v.eval_series):
            loss.append(("eval", v.eval_series, "bold green", "◆"))
        if any(x is not None for x in v.restart_series):
            loss.append(("restart", v.restart_series, "bold red", "↻"))
        self.query_one("#chart-loss", Chart).update_series(loss, x_steps=steps)
        self.query_one("#chart-lr", Chart).update_series([("lr", v.lr_series, "green")])
        self.query_one("#chart-gn", Chart).update_series([("grad_norm", v.grad_series, "magenta")])
        self.query_one("#chart-tps", Chart).update_series([("tok/s", v.tps_series, "cyan")])
        self.query_one("#chart-st", Chart).update_series([("s/step", v.step_time_series, "yellow")])

    def update_gpus(self, v: RunView) -> None:
        box = self.query_one("#mon-gpus", VerticalScroll)
        width = max(24, box.size.width - 5) if box.size.width else 31
        table, detail = self.query_one("#gpu-table", Static), self.query_one("#gpu-detail", Static)
        if not v.gpus:
            table.update(Text(f"no GPU telemetry here ({v.backend or 'none'})", style="dim"))
            detail.display = False
        else:
            indices = [getattr(s, "index", i) for i, s in enumerate(v.gpus)]
            if self.selected_gpu not in indices:
                self.selected_gpu = indices[0]
            table.update(simulated_label(v, width) + render_gpu_table(v.gpus, self.selected_gpu if len(v.gpus) > 1
                                                                       else None, width))
            table.display = len(v.gpus) > 1
            sample = v.gpus[indices.index(self.selected_gpu)]
            rank = None
            if v.measured is not None:
                rank = next((r for r in v.measured.ranks if r.gpu_index == self.selected_gpu), None)
            hist = (v.gpu_history.get(self.selected_gpu) or {})
            pane = render_gpu_pane(sample, hist, width, v.process_users, rank, v.predicted)
            detail.update(pane if len(v.gpus) > 1 else simulated_label(v, width) + pane)
            detail.display = True
        offload = (v.predicted or {}).get("cpu_offload_bytes")
        self.query_one("#host", Static).update(render_host(v.host, v.measured, offload))
        nodes = self.query_one("#nodes", Static)
        nodes_text = render_nodes(v.measured) if v.measured is not None and len(v.measured.nodes) > 1 else Text()
        nodes.update(nodes_text)
        nodes.display = bool(nodes_text.plain)

    def on_resize(self) -> None:
        self.query_one(Footer).compact = self.app.size.width < COMPACT_BELOW
        if self.view is not None and not self.view.error:
            self.update_gpus(self.view)

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

    def action_next_gpu(self) -> None:
        v = self.view
        if v is None or not v.gpus:
            return
        indices = [getattr(s, "index", i) for i, s in enumerate(v.gpus)]
        i = indices.index(self.selected_gpu) if self.selected_gpu in indices else -1
        self.selected_gpu = indices[(i + 1) % len(indices)]
        self.update_gpus(v)

    def detach_message(self) -> str | None:
        v = self.view
        ref = (v.run_id if v is not None else None) or self.target
        if not ref:
            return None
        return (f"detached from {ref}; it goes on on its own.\n"
                f"watch it again: rocm-tune attach {shlex.quote(str(ref))}")

    def action_detach(self) -> None:
        self.app.exit(0, message=self.detach_message())

    def action_alerts(self) -> None:
        """Focus the alerts pane: arrows / page keys scroll every alert and its whole fix."""
        pane = self.query_one("#mon-alerts-pane", VerticalScroll)
        if pane.display:
            pane.focus()
        else:
            self.notify("no alerts", severity="information")

    def action_toggle_log(self) -> None:
        log = self.query_one("#mon-log", Log)
        log.display = not log.display

    def action_checkpoints(self) -> None:
        from rocm_tune.tui.screens.checkpoints import CheckpointsScreen

        v = self.view
        if v is None:
            return
        self.app.push_screen(CheckpointsScreen(str(v.run_id or self.target)),
                             lambda rid: self.open(rid) if rid else None)

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
                self.notify(f"stopping {ref}: SIGTERM, SIGKILL after {STOP_GRACE_S:.0f} s ...")
                self.stop_worker(ref)

        self.app.push_screen(ConfirmModal(
            f"Stop run {v.title}?",
            f"SIGTERM to every process of the run; SIGKILL after {STOP_GRACE_S:.0f} s if any is still "
            "running.\nThe trainer saves a checkpoint on SIGTERM; the run ends as 'stopped by you'."), answer)

    @work(thread=True, exclusive=True, exit_on_error=False, group="stop")
    def stop_worker(self, ref: str) -> None:
        from rocm_tune.core.errors import UserError
        from rocm_tune.core.runs.launch.launcher import stop_run

        try:
            info = stop_run(ref, grace=STOP_GRACE_S)
            said = "stopped by you" if getattr(info, "stopped_by_user", False) else info.status
            self.app.call_from_thread(self.notify, f"{ref}: {said}")
        except UserError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.app.call_from_thread(self.notify, f"stop failed: {exc}", severity="error")


def render_checkpoints(v: RunView) -> str:
    """The checkpoint list with the resume command (Rich markup, values escaped)."""
    from rich.markup import escape

    lines = [f"[b]Checkpoints of {escape(v.title)}[/b]"]
    if not v.checkpoints:
        lines.append("none saved yet" + (f" (looked in {escape(v.run_dir)})" if v.run_dir else ""))
    for step, path in v.checkpoints:
        lines.append(f"  step {step:>7,}  {escape(path)}")
    if v.resume_cmd:
        lines += ["", "[b]resume from the last one[/b]", f"  {escape(v.resume_cmd)}"]
    return "\n".join(lines)


def _overlap(prev: list[str], new: list[str]) -> int | None:
    """How many leading lines of `new` were already shown (`prev` scrolled by some lines), or None."""
    if not prev:
        return 0
    for j in range(len(prev)):
        k = len(prev) - j
        if k <= len(new) and prev[j:] == new[:k]:
            return k
    return None
