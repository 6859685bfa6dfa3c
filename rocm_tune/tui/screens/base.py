"""The frame every wizard step shares: breadcrumb, body, footer, next/back."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.css.model import RuleSet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from rocm_tune.core.errors import UserError
from rocm_tune.tui.navigation import STEPS, make_screen
from rocm_tune.tui.widgets.fields import QuestionField
from rocm_tune.tui.widgets.footer import KeyFooter
from rocm_tune.tui.widgets.inputs import FOCUS_BINDINGS, after_keys

COMPACT_BELOW = 100   # columns: below this the footer drops its padding so every key fits 80 columns

TITLES = {"hardware": "Hardware", "model": "Model", "goal": "Goal", "plan": "Plan", "export": "Export"}


def breadcrumb(current: str) -> str:
    parts = []
    for i, step in enumerate(STEPS, 1):
        label = f"{i} {TITLES[step]}"
        parts.append(f"[b reverse] {label} [/]" if step == current else f" {label} ")
    return "[b]rocm-tune[/b]  " + "›".join(parts)


def next_binding(step: str) -> Binding:
    """ctrl+n on a wizard step, named for the step it opens (the same key reads the same on every screen)."""
    nxt = STEPS[STEPS.index(step) + 1]
    return Binding("ctrl+n", "next", TITLES[nxt], priority=True)


_FOCUS_PSEUDO_CLASSES = frozenset({"focus", "blur", "focus-within"})


def _focus_rules(node: DOMNode, rules_map: dict[str, list[RuleSet]]) -> bool:
    """Whether a rule that may apply to `node` or one of its component classes depends on a focus."""
    names = set(node._selector_names)
    names.update(f".{name}" for name in node._get_component_classes())
    return any(not _FOCUS_PSEUDO_CLASSES.isdisjoint(rule.pseudo_classes)
               for name in names & rules_map.keys() for rule in rules_map[name])


class FreshScreen(Screen):
    """A Screen whose first resume keeps the styles Textual gave its widgets when it mounted them.

    Textual restyles every widget of a screen each time it is resumed, the first time too, just after
    registering the screen's widgets applied the stylesheet to each of them (all of them in place first, so
    :first-child and the like are right) and focus moved (`:focus` and `:focus-within` restyled with it).
    Nothing changes between the two, so the first restyle recomputes the same styles: ~15 % of the app's
    CPU time to its first paint (issue 25 item 15). Later resumes (back from a pushed screen) restyle as
    Textual does. tests/test_tui_focus_styles.py checks that a full restyle at first paint changes nothing.
    """

    _resumed_before = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Textual calls the handler of each class in the MRO: this one before Screen's
        if not self._resumed_before:
            self._resumed_before = True
            event.refresh_styles = False

    def _update_focus_styles(self, focused: Widget | None = None, blurred: Widget | None = None) -> None:
        """Restyle, of the nodes Textual restyles on a focus move, those a focus rule can apply to.

        Textual restyles the whole subtree of the outermost ancestor of the focused (and the blurred) widget
        that has a `:focus-within` rule: a field with its label, its control's parts, a Select's hidden
        option list, the help line. A node none of whose rules (its own, or its component classes') names
        `:focus`, `:blur` or `:focus-within` anywhere in its selectors computes the same styles after the
        move as before it, so it is left as it is (5 of the 9 nodes of the Hardware screen's GPU field at its
        first focus: the Select itself, the value and two arrows its current-value line holds, the help line)."""
        nodes: set[DOMNode] = set()
        for widget in (focused, blurred):
            if widget is None:
                continue
            for ancestor in reversed(widget.ancestors_with_self):
                if ancestor._has_focus_within:
                    nodes.update(ancestor.walk_children(with_self=True))
                    break
        stylesheet = self.app.stylesheet
        rules_map = stylesheet.rules_map
        nodes = {node for node in nodes if _focus_rules(node, rules_map)}
        if nodes:
            stylesheet.update_nodes(nodes, animate=True)


class StepScreen(FreshScreen):
    STEP = "hardware"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+n", "next", "Next", priority=True),
        Binding("escape", "back", "Back"),
        *FOCUS_BINDINGS,
    ]

    def on_mount(self) -> None:
        # runs after the subclass's on_mount (Textual calls the handler of each class in the MRO)
        self.call_after_refresh(self.app.screen_painted, self)  # type: ignore[attr-defined]

    def on_resize(self) -> None:
        for footer in self.query(Footer):
            footer.compact = self.app.size.width < COMPACT_BELOW

    def compose_header(self) -> ComposeResult:
        yield Static(breadcrumb(self.STEP), classes="breadcrumb")

    def compose_footer(self) -> ComposeResult:
        yield Static("", id="status", classes="status")
        yield KeyFooter(compact=self.app.size.width < COMPACT_BELOW)

    @property
    def state(self):
        return self.app.state  # type: ignore[attr-defined]

    def set_status(self, message: str, error: bool = False) -> None:
        """One line that fits the terminal; a longer error is shown whole in a notification too."""
        status = self.query_one("#status", Static)
        status.set_class(error, "-error")
        width = max(20, (self.app.size.width or 80) - 2)
        line = " ".join(str(message).split())
        if len(line) > width:
            if error:
                self.notify(line, severity="error", timeout=10)
            line = line[: width - 1] + "…"
        status.update(Text(line))

    def collect(self) -> dict[str, Any]:
        """Validate this step's fields into state.answers; UserError on the first bad one."""
        values: dict[str, Any] = {}
        first_bad: UserError | None = None
        for fld in self.query(QuestionField):
            try:
                values[fld.question.name] = fld.value()
            except UserError as exc:
                first_bad = first_bad or exc
        if first_bad is not None:
            raise first_bad
        self.state.answers.update(values)
        return values

    def validate_step(self) -> None:
        """Extra checks before moving on (override)."""

    def action_next(self) -> None:
        after_keys(self, self._next)

    def _next(self) -> None:
        if not self.is_current:
            return
        try:
            self.collect()
            self.validate_step()
        except UserError as exc:
            self.set_status(str(exc), error=True)
            return
        nxt = STEPS.index(self.STEP) + 1
        if STEPS[nxt:nxt + 1] == ("plan",):
            # the answers may have changed: the plan of earlier ones is never drawn, exported or launched
            self.state.plan, self.state.plan_dict = None, None
        if nxt < len(STEPS):
            self.app.push_screen(make_screen(STEPS[nxt]))

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            try:
                self.collect()
            except UserError:
                pass
            self.app.pop_screen()
