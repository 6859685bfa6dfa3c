"""Textual's Footer with its keys in the screen's first frame, recomposed only when the keys change.

Textual's Footer composes empty, waits for the screen's first `bindings_updated` signal (sent when focus
first lands) and then recomposes after the next refresh: the first frame of every screen shows an empty
key bar, a second layout pass mounts the keys, and every later signal (each focus move) rebuilds them
even when the same keys are shown. Here the keys are composed with the screen (its own and the app's
bindings are known then) and a signal recomposes only when what the footer shows would change (a focused
widget's shown bindings, a key enabled or disabled). What is shown is Footer's own compose, unchanged.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


def shown_keys(screen: Screen) -> tuple[Hashable, ...]:
    """What Footer.compose shows for `screen`'s active bindings (the same fields, in order)."""
    return tuple(
        (binding.key, binding.action, binding.description, binding.group, bool(enabled), tooltip)
        for (_, binding, enabled, tooltip) in screen.active_bindings.values()
        if binding.show
    )


class KeyFooter(Footer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.set_reactive(Footer._bindings_ready, True)
        self._shown: tuple[Hashable, ...] | None = None

    def compose(self):
        self._shown = shown_keys(self.screen)
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                # the class its `compact`, bound to the footer's, gives it: set now, not by a restyle once mounted
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and shown_keys(screen) != self._shown:
            self.call_after_refresh(self.recompose)
