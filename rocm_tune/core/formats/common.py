"""What every reader returns: settings with where they were written, and findings (pure)."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class Finding:
    code: str            # stable, UPPER_SNAKE (README "check" lists them)
    severity: str        # error | warning | info
    file: str | None
    line: int | None
    message: str
    fix: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Setting:
    """One value as the user wrote it: the canonical (LLaMA-Factory) key it maps to, the key as written,
    the file and line, and how it was written (yaml | flag | json | env)."""

    key: str
    value: object
    file: str | None
    line: int | None
    native: str
    kind: str
    invert: bool = False       # native is the opposite flag (HF gradient_checkpointing vs LF disable_...)


TRUE = ("true", "1", "yes", "on", "y")
FALSE = ("false", "0", "no", "off", "n", "none", "null")


def as_bool(v) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return bool(v)
    s = str(v).strip().strip("'\"").lower()
    if s in TRUE:
        return True
    if s in FALSE:
        return False
    return None


def as_int(v) -> int | None:
    if isinstance(v, bool):
        return None
    try:
        f = float(str(v).strip().strip("'\""))
    except (TypeError, ValueError):
        return None
    import math

    if not math.isfinite(f):
        return None
    return int(f) if f == int(f) else None
