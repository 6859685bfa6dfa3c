"""Shared helpers for the app's Pilot tests."""

from __future__ import annotations

import time
from typing import Any


async def wait_for(pilot, cond, timeout: float = 60.0, what: Any = "condition", every: float = 0.05):
    """Let the app run until cond() is true (`what`: a text or a function giving one, for the failure). `timeout` is only an upper bound for a loaded machine: the
    condition itself is made to happen by the test, never by the passing of time."""
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"{what() if callable(what) else what} not reached in {timeout:g} s")
        await pilot.pause(every)


def typed(text: str) -> list[str]:
    """The key names of typing `text` (for `burst`)."""
    from textual.keys import _character_to_key

    return [c if c.isalnum() else _character_to_key(c) for c in text]


def burst(app, *keys: str) -> None:
    """Post key events to the app all at once, as a laggy link (SSH batching, a fast typist, a paste
    of keystrokes) delivers them: the app reads them one after the other with no pause between them.
    `Pilot.press` waits until the app is idle after every key, which hides what a burst does. The keys
    are named as for `Pilot.press` ("end", "ctrl+u", "tab", "1"); `typed(text)` gives a text's keys."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _get_unicode_name_from_key

    for key in keys:
        try:
            char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        app.post_message(event)
