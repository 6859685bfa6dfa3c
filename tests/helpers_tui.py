"""Shared helpers for the app's Pilot tests."""

from __future__ import annotations

import time


async def wait_for(pilot, cond, timeout: float = 60.0, what: str = "condition", every: float = 0.05):
    """Let the app run until cond() is true. `timeout` is only an upper bound for a loaded machine: the
    condition itself is made to happen by the test, never by the passing of time."""
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"{what} not reached in {timeout:g} s")
        await pilot.pause(every)
