"""Step 3: goal. Method, stage, effective batch, priority, optional dataset and time budget."""

from __future__ import annotations

from importlib import import_module
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Select, Static

from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.questions import questions_for
from rocm_tune.tui.render import fmt_count, render_histogram
from rocm_tune.tui.screens.base import StepScreen, next_binding
from rocm_tune.tui.widgets.fields import QuestionField

CUTOFFS = (256, 512, 1024, 2048, 4096, 8192)


class DatasetResult(Message):
    def __init__(self, path: str, stats: Any = None, error: str | None = None) -> None:
        super().__init__()
        self.path, self.stats, self.error = path, stats, error


def render_dataset(stats: Any, width: int = 44, cutoff: int | None = None) -> Text:
    """Summary, length histogram and samples truncated at each cutoff_len (pure)."""
    if stats is None:
        return Text("no dataset: the planner picks cutoff_len from the priority", style="dim")
    t = Text()
    t.append(f"{stats.count} samples ({stats.format}), tokens by {stats.tokenizer}\n", style="bold")
    try:
        t.append(f"p50 {stats.percentile(50)}  p95 {stats.percentile(95)}  p99 {stats.percentile(99)}"
                 f"  max {max(stats.lengths) if stats.lengths else 0}\n")
    except (TypeError, ValueError, AttributeError):
        t.append("no token lengths\n", style="dim")
    t.append_text(render_histogram(stats.histogram(12), width, cutoff, max_rows=8))
    t.append("\ncutoff_len  truncated\n", style="bold")
    n = max(1, stats.count)
    for c in CUTOFFS:
        k = stats.truncated_at(c)
        style = "green" if k == 0 else "yellow" if k / n < 0.05 else "red"
        t.append(f"{c:>10}  ", style="bold" if c == cutoff else "")
        t.append(f"{k:>6} ({k / n * 100:5.1f}%)", style=style)
        if c != CUTOFFS[-1]:
            t.append("\n")
    return t


class GoalScreen(StepScreen):
    STEP = "goal"
    BINDINGS: ClassVar[list[BindingType]] = [next_binding("goal")]
    HELP = """[b]Goal[/b]
Method (LoRA, QLoRA, full, freeze), stage (sft, dpo, pt), the effective batch (samples per optimizer
step across every GPU), what to optimise (stability, speed or context length), an optional dataset
(its token-length histogram and how many samples each cutoff_len truncates appear on the right),
epochs and an optional time budget in hours.

[b]ctrl+n[/b] plan   [b]esc[/b] back   [b]tab[/b] next field   [b]f1[/b] help   [b]ctrl+q[/b] quit"""

    def compose(self) -> ComposeResult:
        yield from self.compose_header()
        with Horizontal(classes="body"):
            with VerticalScroll(id="goal-fields"):
                for q in questions_for("goal"):
                    yield QuestionField(q, self.state.answers.get(q.name))
            with VerticalScroll(id="goal-dataset"):
                yield Static(render_dataset(self.state.dataset_stats), id="dataset-info")
        yield from self.compose_footer()

    def on_mount(self) -> None:
        self._timer: Timer | None = None
        self._sync_visibility()
        spec = self.state.model
        if spec is not None:   # the model the previous step took (a search may have named it loosely)
            total = getattr(getattr(spec, "params", None), "total", None)
            self.set_status(f"model {spec.name}" + (f" ({fmt_count(total)} parameters)" if total else ""))
        path = self.state.answers.get("dataset")
        if path and self.state.dataset_stats is None:
            self.analyze(str(path))

    def _sync_visibility(self) -> None:
        method = self.query_one("#in-method", Select).value
        for fld in self.query(QuestionField):
            fld.display = fld.question.applies({"method": method})

    @on(Select.Changed, "#in-method")
    def _method(self) -> None:
        self._sync_visibility()

    @on(Input.Changed, "#in-dataset")
    def _dataset_typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        value = event.value.strip()
        if not value:
            self.state.dataset_stats = None
            self.query_one("#dataset-info", Static).update(render_dataset(None))
            return
        self._timer = self.set_timer(0.3, lambda: self.analyze(value))

    @work(thread=True, exclusive=True, exit_on_error=False, group="dataset")
    def analyze(self, path: str) -> None:
        dataset = import_module("rocm_tune.core.data.dataset")
        try:
            stats = dataset.analyze_dataset(path, self.state.model)
            self.post_message(DatasetResult(path, stats))
        except UserError as exc:
            self.post_message(DatasetResult(path, None, str(exc)))
        except Exception as exc:  # noqa: BLE001 - a worker must not crash the app
            self.post_message(DatasetResult(path, None, f"{path}: {exc}"))

    def on_dataset_result(self, msg: DatasetResult) -> None:
        info = self.query_one("#dataset-info", Static)
        if msg.error:
            self.state.dataset_stats = None
            info.update(Text(msg.error, style="red"))
            return
        self.state.dataset_stats = msg.stats
        info.update(render_dataset(msg.stats, max(30, info.size.width - 2)))
        self.set_status(f"dataset: {msg.stats.count} samples")

    def collect(self) -> dict[str, Any]:
        values = super().collect()
        method = self.state.answers.get("method")
        for fld in self.query(QuestionField):
            if not fld.question.applies({"method": method}):
                self.state.answers.pop(fld.question.name, None)
        return values
