"""Notifications (placeholder, filled in by item 2)."""

from __future__ import annotations

from dataclasses import dataclass

from rocm_tune.core.errors import UserError


@dataclass(frozen=True)
class Target:
    spec: str


def parse_target(text: str) -> Target:
    if not text.strip():
        raise UserError("--notify is empty")
    return Target(text.strip())
