"""An Input that applies a burst of keys in the order they were typed; a compact Select styled once.

Textual's Input inserts printable keys in its own key handler but runs editing keys (backspace,
delete, arrows, home/end) through bindings, which are looked up only after the key event has
bubbled through every ancestor's message queue. When several keys arrive at once (a fast typist,
SSH batching, a terminal sending a burst) the printable keys overtake the editing keys:
`backspace x4, 2 0 4 8` on "1024" becomes "10242048" and then "1024". Here the Input's own
bindings run in its key handler, in arrival order. Bracketed paste is Input's (first line, at
the cursor or over the selection).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, cast

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, NoBinding
from textual.widget import Widget
from textual.widgets import Input, Select
from textual._opacity import _apply_opacity
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets._select import NonSelectableStatic, SelectCurrent, SelectOverlay

# Tab / shift+tab as priority bindings of every screen with fields. Textual's own are plain bindings of the
# Screen, run only once the tab key has bubbled up from the focused widget's queue; the App forwards each key to
# the widget focused *when it reads the key*, so in a burst (`1024 <tab> 1`) the keys after the tab were already
# in the old field's queue when focus moved: they landed in the old field. A priority binding runs in the App's
# own key handler, before the next key is read: focus has moved when the next key is forwarded.
FOCUS_BINDINGS = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True),
]


def after_keys(screen: Any, callback: Callable[[], None]) -> None:
    """Run `callback` once every input of `screen` has handled the keys already sent to it.

    Priority bindings (ctrl+n, ctrl+s, ctrl+l ...) run in the App's key handler, ahead of the keys typed before
    them that still wait in the fields' own queues (`64 ctrl+n` in one burst would read the field before the 64).
    A callback queued behind those keys, field after field, sees every value typed before the key."""
    inputs = [w for w in screen.query(Input) if w.is_attached]

    def step(i: int) -> None:
        if i == len(inputs):
            callback()
        elif inputs[i].is_attached:
            inputs[i].call_later(step, i + 1)
        else:
            step(i + 1)

    step(0)


class _FocusedOnce:
    """A control that skips the restyle its own focus watcher does when the screen first focuses it.

    Screen._update_auto_focus sets `has_focus` (whose watcher restyles the control and its parts) and at once
    calls set_focus, which restyles the whole subtree of the control's outermost ancestor with a
    `:focus-within` rule (a QuestionField, a `.setting` row): the control's restyle is done twice. Only in that
    case (focus not yet on the screen, such an ancestor present) the first is left to set_focus; a focus that
    moves (tab, click) restyles as Textual does. A mixin, not a Widget: Textual takes a widget's CSS type names
    and DEFAULT_CSS from its first Widget base, which must stay Input / Select."""

    def watch_has_focus(self, has_focus: bool) -> None:
        node = cast(Widget, self)
        if (has_focus and node.is_attached and node.screen.focused is None
                and any(n._has_focus_within for n in node.ancestors_with_self)):
            return
        super().watch_has_focus(has_focus)  # type: ignore[misc]


def _valid_class(args: tuple, kwargs: dict[str, Any]) -> str:
    """'-valid' where Input's value watcher will set it during construction (a value, no validator, validated on
    change): given at construction, the watcher finds it there and the node is not restyled before its mount."""
    value = args[0] if args else kwargs.get("value")
    validate_on = kwargs.get("validate_on")
    if (value and not kwargs.get("validators") and not kwargs.get("restrict") and kwargs.get("type", "text") == "text"
            and (validate_on is None or "changed" in validate_on)):
        return "-valid"
    return ""


class OrderedInput(_FocusedOnce, Input):
    def __init__(self, *args: Any, compact: bool = False, **kwargs: Any) -> None:
        valid = _valid_class(args, kwargs)
        if valid:
            kwargs["classes"] = " ".join(filter(None, (kwargs.get("classes"), valid)))
        super().__init__(*args, **kwargs)
        # compact without a restyle before the widget is even mounted (Input sets its class through the
        # reactive, which restyles the node and its component classes once more on the way to the paint)
        self.set_reactive(Input.compact, compact)
        self.set_class(compact, "-textual-compact", update=False)

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            try:
                bindings = self._bindings.get_bindings_for_key(event.key)
            except NoBinding:
                bindings = []
            for binding in bindings:
                if binding.priority:
                    continue   # the app's priority bindings were offered the key first
                event.stop()
                event.prevent_default()
                self._restart_blink()
                await self.run_action(binding.action)
                return
        await super()._on_key(event)


class ArrowCurrent(SelectCurrent):
    """Select's current-value line with its arrow drawn by the line itself, not by two arrow widgets.

    SelectCurrent holds the value (a Static), a down arrow and a hidden up arrow (two more Statics, each composed,
    styled and mounted before the first paint: ~10 M instructions per Select on the way to it, issue 25 item 15).
    Here the value's Static keeps the line's left part (its margin leaves the arrow's two cells) and the line
    draws in those cells what the arrow's Static drew there: its padding cell in the line's background and the
    arrow, ▼ or, while the list is open, ▲, in the arrow's own style (SelectCurrent's `.arrow` CSS), then the
    opacity the Static's line went through. What is shown is SelectCurrent's picture (snapshots unchanged)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"arrow-current--arrow"}
    DEFAULT_CSS = """
    ArrowCurrent {
        Static#label { margin-right: 2; }
        .arrow-current--arrow { color: $foreground 50%; background: transparent; }
    }
    """

    def compose(self) -> ComposeResult:
        yield NonSelectableStatic(self.placeholder, id="label")

    def render_lines(self, crop: Region) -> list[Strip]:
        """SelectCurrent's lines (its background and padding) with the arrow's two cells drawn over them."""
        strips = super().render_lines(crop)
        gutter = self.styles.gutter
        ax, ay = gutter.left + self.size.width - 2, gutter.top   # the arrow's padding cell, then the arrow
        left, right = max(ax, crop.x), min(ax + 2, crop.right)
        if self.size.width < 2 or not crop.y <= ay < crop.bottom or left >= right:
            return strips
        row = ay - crop.y
        line = strips[row]
        strips[row] = Strip.join([line.crop(0, left - crop.x), self._arrow_strip().crop(left - ax, right - ax),
                                  line.crop(right - crop.x, crop.width)])
        return strips

    def _arrow_strip(self) -> Strip:
        """The two cells the arrow's Static drew: its padding cell in its background, the arrow in its style, and
        then what the Static's line went through (SelectCurrent's opacity, e.g. 0.7 on a disabled Select)."""
        background = self.background_colors[1]   # the arrow's base background; its own is transparent
        expanded = isinstance(self.parent, Select) and self.parent.expanded
        segments: list[Segment] = [
            Segment(" ", Style.from_color(None, background.rich_color if background.a else None)),
            Segment("▲" if expanded else "▼", self.get_component_rich_style("arrow-current--arrow")),
        ]
        opacity = self.opacity
        if opacity != 1.0:
            segments = list(_apply_opacity(segments, background, opacity))
        return Strip(segments, 2)


class CompactSelect(_FocusedOnce, Select):
    """Textual's Select, compact, with the classes its parts show set before they are mounted.

    Select sets `-textual-compact` on itself and its overlay, and `-has-value` on its current-value line, through
    reactives that restyle each of them again, once or twice, on the way to the first paint (the Select itself
    while it is constructed); here the values and classes are in place first, so those reactives find nothing to
    change. What is shown and how it behaves is Select's own."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.pop("compact", None)
        super().__init__(*args, **kwargs)
        self.set_reactive(Select.compact, True)
        self.set_class(True, "-textual-compact", update=False)

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, SelectOverlay):
                widget.set_reactive(SelectOverlay.compact, True)
                widget.set_class(True, "-textual-compact", update=False)
            elif isinstance(widget, SelectCurrent):
                widget = ArrowCurrent(self.prompt)
                if self._value is not Select.NULL:
                    widget.set_reactive(SelectCurrent.has_value, True)
                    widget.set_class(True, "-has-value", update=False)
            yield widget

    def _watch_expanded(self, expanded: bool) -> None:
        super()._watch_expanded(expanded)
        for current in self.query(ArrowCurrent):   # its arrow: ▲ while the list is open
            current.refresh()
