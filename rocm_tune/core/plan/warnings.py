"""Warnings of the planner: `PlanWarning` and `make`; the codes, severities and texts are the plan's entries in
the one registry of codes (`rocm_tune/core/codes.py`, README "## Codes"); `WARNINGS` is a view of them.

The codes are a public contract (plan.json, `rocm-tune plan --json`, the README table): never
rename one; add new ones to core/codes.py. `make(code, message=..., fix=...)` builds a `PlanWarning` whose message
and fix default to the table's text and may be made specific (numbers, names) by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass

from rocm_tune.core import codes as _codes
from rocm_tune.core.codes import BF16_EMULATED_COST, LF_FP32_LAUNCHER  # noqa: F401 - quoted by messages elsewhere

# code -> (summary, fix): a view of the plan's entries in the one registry of codes (core/codes.py)
WARNINGS: dict[str, tuple[str, str]] = {c: (_codes.own(c).title, _codes.own(c).fix) for c in _codes.codes_of("plan")}


@dataclass(frozen=True)
class PlanWarning:
    code: str
    message: str
    fix: str

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message, "fix": self.fix}


def make(code: str, message: str | None = None, fix: str | None = None) -> PlanWarning:
    """A warning with the table's text, or a more specific message/fix. Unknown code = bug."""
    if code not in WARNINGS:
        raise KeyError(f"unknown warning code {code!r}")
    summary, default_fix = WARNINGS[code]
    return PlanWarning(code, message or summary, fix or default_fix)


# warnings that change what "fits" means for this run: the headline says them beside the verdict (a plan that fits
# but runs emulated bf16, or not the precision asked for, is not the green "FITS" the user expects)
HEADLINE: dict[str, str] = {
    "bf16-emulated": "bf16 is emulated on this GPU (slow)",
    "runner-ignores-precision": "the runner does not run the precision asked for",
    "fp16-overflow-risk": "fp16 may overflow for this model",
}


def headline_caveats(warnings, precision: str | None = None) -> list[str]:
    """The HEADLINE words of the warnings (PlanWarning objects or plan.json dicts) present, in table order;
    fp16-overflow-risk only when the plan trains in fp16, bf16-emulated only in bf16 (elsewhere they are advice
    against switching)."""
    codes = {w.get("code") if isinstance(w, dict) else getattr(w, "code", None) for w in warnings or ()}
    if precision != "fp16":
        codes.discard("fp16-overflow-risk")
    if precision not in ("bf16", "pure_bf16", None):
        codes.discard("bf16-emulated")
    return [f"{text} [{code}]" for code, text in HEADLINE.items() if code in codes]


def table() -> list[tuple[str, str, str]]:
    """(code, meaning, fix) rows for documentation."""
    return [(code, summary, fix) for code, (summary, fix) in WARNINGS.items()]
