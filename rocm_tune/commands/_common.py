"""Helpers shared by the subcommands: argparse value types and output."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from rocm_tune.core.errors import UserError
from rocm_tune.core.units import fmt_bytes_gib


_ASCII_INT = re.compile(r"\s*[+-]?[0-9]+\s*")
_ASCII_FLOAT = re.compile(r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*|\s*[+-]?(?:inf|infinity|nan)\s*",
                          re.I)


def _int_in(text: str, what: str, lo: int, hi: int) -> int:
    # ASCII digits only: int() also reads '١٢' (Arabic-Indic), '１２' (full-width) and '1_0' as numbers
    if not isinstance(text, str) or not _ASCII_INT.fullmatch(text):
        raise UserError(f"{what} must be an integer (ASCII digits), got {text!r}")
    value = int(text)
    if not lo <= value <= hi:
        raise UserError(f"{what} must be between {lo} and {hi}, got {value}")
    return value


def int_range(what: str, lo: int, hi: int):
    """argparse `type=` that accepts integers in [lo, hi] and names the flag when not."""

    def parse(text: str) -> int:
        return _int_in(text, what, lo, hi)

    parse.__name__ = what
    return parse


def float_range(what: str, lo: float, hi: float):
    def parse(text: str) -> float:
        if not isinstance(text, str) or not _ASCII_FLOAT.fullmatch(text):
            raise UserError(f"{what} must be a number (ASCII digits), got {text!r}")
        value = float(text)
        if not (lo <= value <= hi) or value != value:
            raise UserError(f"{what} must be between {lo:g} and {hi:g}, got {text}")
        return value

    parse.__name__ = what
    return parse


def print_json(obj: Any) -> None:
    """One JSON object on stdout (the contract scripts rely on)."""
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=False, default=str) + "\n")
    sys.stdout.flush()


def human_bytes(n: int | float) -> str:
    return fmt_bytes_gib(n, 2)
