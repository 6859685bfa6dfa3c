"""A wizard question (`rocm_tune.core.questions.Question`) rendered as a one-row field."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static, Switch

from rocm_tune.core.errors import UserError
from rocm_tune.core.questions import Question, dynamic_choices


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


class QuestionField(Widget):
    """Label, control (Input / Select / Switch) and a help line that turns into the error."""

    DEFAULT_CSS = """
    QuestionField { height: auto; margin: 0 0 1 0; }
    QuestionField > Horizontal { height: 1; }
    QuestionField Label.q-label { width: 16; color: $text-muted; }
    QuestionField Input, QuestionField Select { width: 1fr; }
    QuestionField Switch { width: auto; height: 1; border: none; padding: 0; }
    QuestionField .q-help { color: $text-muted; padding-left: 2; height: auto; }
    QuestionField.-invalid .q-help { color: $error; }
    """

    def __init__(self, question: Question, value: Any = None, choices: tuple[str, ...] | None = None) -> None:
        super().__init__(id=f"q-{question.name}")
        self.question = question
        self.initial = question.default if value is None and not question.optional else value
        self.choices = choices if choices is not None else (
            dynamic_choices(question) if question.kind == "choice" else ()
        )

    def compose(self) -> ComposeResult:
        q = self.question
        with Horizontal():
            yield Label(q.label, classes="q-label")
            if q.kind == "choice":
                opts = [(c if c not in q.choice_help else f"{c}  {q.choice_help[c]}", c) for c in self.choices]
                value = self.initial if self.initial in self.choices else Select.NULL
                yield Select(opts, value=value, allow_blank=q.optional or value is Select.NULL,
                             compact=True, id=f"in-{q.name}")
            elif q.kind == "bool":
                yield Switch(value=bool(self.initial), id=f"in-{q.name}")
            else:
                placeholder = "(optional)" if q.optional else ""
                yield Input(_text(self.initial), placeholder=placeholder, compact=True, id=f"in-{q.name}")
        yield Static(q.help, classes="q-help")

    @property
    def control(self) -> Widget:
        return self.query_one(f"#in-{self.question.name}")

    def raw(self) -> Any:
        ctl = self.control
        if isinstance(ctl, Select):
            return None if ctl.value is Select.NULL else ctl.value
        if isinstance(ctl, Switch):
            return ctl.value
        return ctl.value  # type: ignore[attr-defined]

    def set_value(self, value: Any) -> None:
        ctl = self.control
        if isinstance(ctl, Select):
            ctl.value = value if value in self.choices else Select.NULL
        elif isinstance(ctl, Switch):
            ctl.value = bool(value)
        else:
            ctl.value = _text(value)  # type: ignore[attr-defined]

    def value(self) -> Any:
        """The parsed value; raises UserError (and shows it) when invalid."""
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
