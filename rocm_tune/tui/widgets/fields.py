"""A wizard question (`rocm_tune.core.plan.questions.Question`) rendered as a one-row field."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style

from textual import work
from textual.app import ComposeResult
from textual.widget import Widget
from textual.strip import Strip
from textual.widgets import Input, Select, Static

from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.questions import Question, dynamic_choices
from rocm_tune.tui.widgets.inputs import CompactSelect, OrderedInput


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


LABEL_WIDTH = 16   # cells: the label's column, left of the control


class QuestionField(Widget):
    """Label, control (Input / Select / Switch) and a help line that turns into the error.

    The label is drawn by the field itself, in the cells its control's margin leaves free on the first line (no
    Label widget: one widget fewer per field before the first paint, ~6 M instructions each, issue 25 item 15):
    the label's text in the `q-label` component style (muted; bold reverse while the field holds the focus), the
    rest of its 16 cells in the field's background, as a Label of that width drew them. The control is one line
    high, as the grid row that held it was (a long value in a narrow Select is cut, not wrapped)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"q-label"}
    DEFAULT_CSS = """
    QuestionField { height: auto; margin: 0 0 1 0; layout: vertical; }
    QuestionField .q-label { color: $text-muted; }
    QuestionField > Input, QuestionField > Select { width: 1fr; height: 1; margin-left: 16; }
    QuestionField > Switch { width: auto; height: 1; border: none; padding: 0; margin-left: 16; }
    QuestionField .q-help { color: $text-muted; padding-left: 2; height: auto; }
    QuestionField.-invalid .q-help { color: $error; }
    """

    def __init__(self, question: Question, value: Any = None, choices: tuple[str, ...] | None = None) -> None:
        super().__init__(id=f"q-{question.name}")
        self.question = question
        self.initial = question.default if value is None and not question.optional else value
        # choices loaded from data (all GPU profiles) come after the first paint, from a worker;
        # until then the field offers its static choices and the current value
        self._pending = choices is None and question.kind == "choice" and bool(question.choices_from)
        if choices is not None:
            self.choices = tuple(choices)
        elif self._pending:
            extra = (str(self.initial),) if self.initial not in (None, "") and self.initial not in question.choices else ()
            self.choices = tuple(question.choices) + extra
        else:
            self.choices = tuple(question.choices) if question.kind == "choice" else ()

    def compose(self) -> ComposeResult:
        q = self.question
        if q.kind == "choice":
            opts = self._options()
            value = self.initial if self.initial in self.choices else Select.NULL
            yield CompactSelect(opts, value=value, allow_blank=q.optional or value is Select.NULL,
                                id=f"in-{q.name}")
        elif q.kind == "bool":
            from textual.widgets import Switch  # where a yes/no question is shown (none on the first screen)

            yield Switch(value=bool(self.initial), id=f"in-{q.name}")
        else:
            placeholder = "(optional)" if q.optional else ""
            yield OrderedInput(_text(self.initial), placeholder=placeholder, compact=True, id=f"in-{q.name}")
        yield Static(q.help, classes="q-help")

    def render_line(self, y: int) -> Strip:
        """The label on the first line (under the children, in the cells left of the control), else blank."""
        background = self.background_colors[1]
        blank = Style.from_color(None, background.rich_color if background.a else None)
        width = self.size.width
        if y != 0:
            return Strip.blank(width, blank)
        label = self.question.label[:LABEL_WIDTH]
        segments = [Segment(label, self.get_component_rich_style("q-label")),
                    Segment(" " * (LABEL_WIDTH - cell_len(label)), blank)]
        return Strip(segments).adjust_cell_length(width, blank)

    def _options(self) -> list[tuple[str, str]]:
        q = self.question
        return [(c if c not in q.choice_help else f"{c}  {q.choice_help[c]}", c) for c in self.choices]

    def on_mount(self) -> None:
        # after the first paint and the screen's own first data (never on focus: the first screen focuses
        # its GPU field), at once when the list opens; validation loads them too if still pending
        if self._pending:
            self.set_timer(0.5, self._load_choices)
            ctl = self.control
            if isinstance(ctl, Select):
                self.watch(ctl, "expanded", self._opened, init=False)

    def _opened(self, expanded: bool) -> None:
        if expanded:
            self.ensure_choices()

    @work(thread=True, exclusive=True, exit_on_error=False, group="choices")
    def _load_choices(self) -> None:
        if not self._pending:
            return
        choices = dynamic_choices(self.question)
        self.app.call_from_thread(self._set_choices, choices)

    def _set_choices(self, choices: tuple[str, ...]) -> None:
        if not self._pending:
            return
        self._pending = False
        ctl = self.control
        current = self.raw()
        self.choices = tuple(dict.fromkeys(tuple(choices) + ((str(current),) if current else ())))
        if isinstance(ctl, Select):
            with ctl.prevent(Select.Changed):
                ctl.set_options(self._options())
                if current in self.choices:
                    ctl.value = current

    def ensure_choices(self) -> None:
        """Load the data-driven choices now (validation needs them); cached after the first call."""
        if self._pending:
            self._set_choices(dynamic_choices(self.question))

    @property
    def control(self) -> Widget:
        return self.query_one(f"#in-{self.question.name}")

    def raw(self) -> Any:
        ctl = self.control
        if isinstance(ctl, Select):
            return None if ctl.value is Select.NULL else ctl.value
        return ctl.value  # type: ignore[attr-defined]   # an Input's text, a Switch's bool

    def set_value(self, value: Any) -> None:
        self.ensure_choices()
        ctl = self.control
        if isinstance(ctl, Select):
            ctl.value = value if value in self.choices else Select.NULL
        elif isinstance(ctl, Input):
            ctl.value = _text(value)
        else:   # a Switch
            ctl.value = bool(value)  # type: ignore[attr-defined]

    def value(self) -> Any:
        """The parsed value; raises UserError (and shows it) when invalid."""
        self.ensure_choices()
        try:
            choices = self.choices if self.question.kind == "choice" and len(self.choices) > 1 else None
            parsed = self.question.parse(self.raw(), choices)
        except UserError as exc:
            self.show_error(str(exc))
            raise
        self.show_error(None)
        return parsed

    def show_error(self, message: str | None) -> None:
        help_ = self.query_one(".q-help", Static)
        self.set_class(message is not None, "-invalid")
        help_.update(message if message else self.question.help)
