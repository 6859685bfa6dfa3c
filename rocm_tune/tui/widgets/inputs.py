"""An Input that applies a burst of keys in the order they were typed.

Textual's Input inserts printable keys in its own key handler but runs editing keys (backspace,
delete, arrows, home/end) through bindings, which are looked up only after the key event has
bubbled through every ancestor's message queue. When several keys arrive at once (a fast typist,
SSH batching, a terminal sending a burst) the printable keys overtake the editing keys:
`backspace x4, 2 0 4 8` on "1024" becomes "10242048" and then "1024". Here the Input's own
bindings run in its key handler, in arrival order. Bracketed paste is Input's (first line, at
the cursor or over the selection).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.binding import NoBinding
from textual.widgets import Input


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
