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
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, NoBinding
from textual.widgets import Input, Select
from textual.widgets._select import SelectCurrent, SelectOverlay

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


class OrderedInput(Input):
    def __init__(self, *args: Any, compact: bool = False, **kwargs: Any) -> None:
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


class CompactSelect(Select):
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
            elif isinstance(widget, SelectCurrent) and self._value is not Select.NULL:
                widget.set_reactive(SelectCurrent.has_value, True)
                widget.set_class(True, "-has-value", update=False)
            yield widget
