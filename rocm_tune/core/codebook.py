"""Every code of every family in one view: core/codes.py's entries and explain's catalogue (whose signatures are
also live alerts). `registry()`, `get(code)`, `of(source)` and `readme_table()` (README.md "## Codes", kept equal
by tests/test_codes.py). Import this only where the catalogue is needed anyway (it compiles its regexes)."""

from __future__ import annotations

from functools import lru_cache

from rocm_tune.core import codes as _codes
from rocm_tune.core.codes import Code, Severity
from rocm_tune.core.runs import catalogue


@lru_cache(maxsize=1)
def registry() -> dict[str, Code]:
    """code -> Code over every family: core/codes.py's entries, then explain's catalogue (each a live alert too)."""
    out: dict[str, Code] = {}
    out.update(_codes.OWN_BY_CODE)
    for s in catalogue.SIGNATURES:
        if s.code in out:   # a fact whose home is core/codes.py: the signature must carry its texts
            if (s.severity, s.title, s.cause, s.fix, s.confirm) != (out[s.code].severity, out[s.code].title,
                                                                      out[s.code].cause, out[s.code].fix,
                                                                      out[s.code].confirm):
                raise ValueError(f"code {s.code!r}: the catalogue's texts differ from core/codes.py's")
            continue
        out[s.code] = Code(s.code, ("alert", "explain") + _codes.CATALOGUE_ALSO.get(s.code, ()),
                           Severity(s.severity).value, s.title, s.cause, s.fix, s.confirm)
    return out


def get(code: str) -> Code:
    """The entry of `code`; an unknown code is a bug (KeyError)."""
    try:
        return registry()[code]
    except KeyError:
        raise KeyError(f"unknown code {code!r}: add it to rocm_tune/core/codes.py") from None


def severity(code: str) -> str:
    return get(code).severity


def of(source: str) -> list[Code]:
    """The codes a family emits, in registry order."""
    if source not in _codes.SOURCES:
        raise ValueError(f"unknown source {source!r}")
    return [c for c in registry().values() if source in c.sources]


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _from(c: Code) -> str:
    """Who emits it; for explain's signatures also the catalogue's family and role (README "The catalogue")."""
    sig = catalogue.by_code(c.code) if "explain" in c.sources else None
    if sig is None:
        return ", ".join(c.sources)
    role = "benign" if sig.benign else sig.role + (" (hang)" if sig.hang else "")
    return f"{', '.join(c.sources)} ({sig.family}, {role})"


def _series(c: Code) -> str:
    sig = catalogue.by_code(c.code) if "explain" in c.sources else None
    if sig is not None and (not sig.patterns and sig.family != "fp16_overflow" or sig.code == "loss-collapse"):
        return " (from the loss series)"
    return ""


def readme_table() -> str:
    """README.md's one table of codes (## Codes), made from the registry in its order: plan, check, preflight,
    doctor, alert, then explain's catalogue (tests/test_codes.py keeps README equal to it). "what it means" is the
    title, with the cause for the codes outside the catalogue that have one (what a doctor check looks at, when an
    alert fires)."""
    rows = ["| code | from | severity | what it means | fix |", "|---|---|---|---|---|"]
    for c in registry().values():
        what = c.title + (f": {c.cause}" if c.cause and "explain" not in c.sources else "") + _series(c)
        rows.append(f"| `{c.code}` | {_from(c)} | {c.severity} | {_cell(what)} | {_cell(c.fix)} |")
    return "\n".join(rows) + "\n"
