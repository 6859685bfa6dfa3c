"""Modal screens: confirmation and help."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


class ConfirmModal(ModalScreen[bool]):
    """Ask a yes/no question; dismisses with True only on `y`."""

    DEFAULT_CSS = """
    ConfirmModal { align: center middle; }
    ConfirmModal > Vertical { width: 64; max-width: 95%; height: auto; border: thick $error; padding: 1 2;
                              background: $panel; }
    ConfirmModal .title { text-style: bold; }
    ConfirmModal.-launch > Vertical { width: 100; border: thick $accent; padding: 0 1; max-height: 100%; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, body: str = "", variant: str = "danger") -> None:
        super().__init__(classes="-launch" if variant == "launch" else "")
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="title")
            if self.body:
                yield Static(self.body)
            yield Static("\n[b]y[/b] yes    [b]n[/b] / [b]esc[/b] no")
        yield Footer()

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class HelpModal(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpModal { align: center middle; }
    HelpModal > VerticalScroll { width: 76; max-width: 98%; height: auto; max-height: 90%; border: thick $accent;
                                 padding: 0 1; background: $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,f1,question_mark", "dismiss_help", "Close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.text)
        yield Footer()

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
