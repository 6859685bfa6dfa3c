"""Small helpers without textual imports (usable by the plain wizard too)."""

from __future__ import annotations

import importlib
from typing import Any


def optional(module: str) -> Any | None:
    """Import a core module that another part provides; None while it does not exist yet."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None
