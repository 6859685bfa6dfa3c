"""An option value the installed release's enum refuses, read against the values each release declares (e-skew2,
issue 26).

FAMILIES.md, config_error vs version_check: a value the installed release does not know while another release
declares it is version_check (an optimizer, scheduler, strategy or quantization method added later, or one a later
release removed); a value no release declares (a typo) stays config_error. The refusal's spellings (their source):
transformers' ExplicitEnum (utils/generic.py `_missing_`: `ValueError: X is not a valid OptimizerNames, please select
one of ['adamw_torch', ...]`), Python's Enum for accelerate's and PEFT's str enums (`ValueError: 'fp8' is not a valid
PrecisionType`). The values per enum and release are profiles/enum_values.py (tools/build_enum_values.py).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_REFUSAL = re.compile(r"ValueError: (?P<q>['\"]?)(?P<val>[^'\"\s,]+)(?P=q) is not a valid (?P<cls>\w+)"
                      r"(?:, please select one of \[(?P<list>[^\]\n]*)\])?")


@dataclass(frozen=True)
class EnumReading:
    cls: str
    value: str
    lib: str
    span: tuple[str, str] | None      # (first, last) release read that declares the value; None: no release does
    before: str = ""                  # the release read just before `first` (the value is newer than it)
    close: tuple[str, ...] = ()       # for a typo: the values the message (or the newest release) lists closest to it


def _spans(cls: str) -> dict[str, tuple[str, str]]:
    from rocm_tune.profiles.enum_values import ENUM_SUCCESSORS, ENUM_VALUES
    out: dict[str, tuple[str, str]] = {}
    for c in (cls, *ENUM_SUCCESSORS.get(cls, ())):
        for span, vals in ENUM_VALUES[c][1].items():
            first, last = span.split("..")
            for v in vals.split():
                out.setdefault(v, (first, last))
    return out


def read_enum_refusal(text: str) -> EnumReading | None:
    """The enum refusal in text read against the releases of its library, else None (no refusal, an enum not read)."""
    from rocm_tune.profiles.enum_values import ENUM_VALUES
    m = _REFUSAL.search(text)
    if m is None or m.group("cls") not in ENUM_VALUES:
        return None
    return _reading(m.group("cls"), m.group("val"), m.group("list") or "")


# e-ver3: argparse's refusal of a value outside an option's choices (HfArgumentParser's Enum fields, accelerate launch)
_CHOICE = re.compile(r"error: argument (?:-\w+/)?--(?P<arg>[\w-]+)(?:/--?[\w-]+)*: invalid choice: (?P<q>['\"]?)"
                     r"(?P<val>[^'\"\s]+)(?P=q) \(choose from (?P<list>[^)\n]*)\)")


def read_choice_refusal(text: str) -> EnumReading | None:
    """argparse's `invalid choice` for an option whose choices are an enum's values (profiles/enum_args.py), read
    against that enum's releases like read_enum_refusal; None for another option."""
    from rocm_tune.profiles.enum_args import ARG_ENUMS
    m = _CHOICE.search(text)
    if m is None or (cls := ARG_ENUMS.get(m.group("arg").replace("-", "_"))) is None:
        return None
    spans = _spans(cls)
    val = next((v for v in (m.group("val"), m.group("val").upper(), m.group("val").lower()) if v in spans),
               m.group("val"))
    return _reading(cls, val, m.group("list"))


def _reading(cls: str, val: str, listed_text: str) -> EnumReading | None:
    from rocm_tune.profiles.enum_values import ENUM_RELEASES, ENUM_VALUES
    lib = ENUM_VALUES[cls][0]
    rels = ENUM_RELEASES[lib]
    spans = _spans(cls)
    if val in spans:
        first, last = spans[val]
        if (first, last) == (rels[0], rels[-1]):
            return None             # every release has it: not a release question (another enum, a patched install)
        before = rels[rels.index(first) - 1] if rels.index(first) > 0 else ""
        return EnumReading(cls, val, lib, (first, last), before)
    listed = re.findall(r"['\"]([^'\"]+)['\"]", listed_text)
    newest = listed or [v for v, (_, last) in spans.items() if last == rels[-1]]
    return EnumReading(cls, val, lib, None, close=tuple(difflib.get_close_matches(val, newest, n=3, cutoff=0.75)))


def skew_sentence(rd: EnumReading) -> tuple[str, str]:
    """(title, fix) of a value another release of the library declares."""
    from rocm_tune.profiles.enum_values import ENUM_RELEASES
    assert rd.span is not None
    first, last = rd.span
    newest = ENUM_RELEASES[rd.lib][-1]
    if last == newest:
        when = f"added after {rd.lib} {rd.before}" if rd.before else f"declared from {rd.lib} {first}"
        fix = (f"upgrade {rd.lib} to a release that has it ({first} has; `pip install -U '{rd.lib}>={first}'` within "
               f"the range the runner accepts), or choose a value the installed release lists")
    else:
        when = f"declared by {rd.lib} {first} to {last} and removed later"
        fix = (f"use the installed release's replacement value (its changelog names it), or install the {rd.lib} "
               f"release the config was written for ({last} or earlier)")
    return (f"the installed {rd.lib} refused {rd.value!r} for {rd.cls}: a value of another {rd.lib} release ({when}); "
            "the config was written for another release than the one installed", fix + " (`pip show` names the "
            "installed release)")
