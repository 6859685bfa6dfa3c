"""The runners' own refusals of their arguments, recognised by their words (e-src, issue 26).

rocm_tune/profiles/runner_refusals.py (made by tools/build_runner_refusals.py from the source of ms-swift 2.x-4.x,
LLaMA-Factory, transformers' TrainingArguments/Trainer, TRL's configs and trainers, accelerate and DeepSpeed; and
profiles/release_refusals.py, made by tools/build_release_refusals.py, the older releases' messages) lists
each `raise ValueError/AssertionError/NotImplementedError/TypeError(msg)` and `assert cond, msg` of the code that
checks the run's arguments, with a hole where the f-string, `.format` or `%` puts a value. `refusal_of(line)` answers
(runner, file) when an exception line's message is one of them in any spelling the code produces — also when the
traceback's frames are not in the log (only the last line, elastic's summary, a logger's copy). Pure; the table is
compiled on first use.
"""

from __future__ import annotations

import re
from functools import lru_cache


HOLE = "\x00"
HOLE_MAX = 300                 # characters a value put into a message may take
_MESSAGE = re.compile(r"(?:^|[\s:\]])(?:[\w.]+\.)?(?:ValueError|AssertionError|NotImplementedError|TypeError|"
                      r"[A-Z]\w*(?:Config|Argument|Arguments)Error): (.+)$")


def _pattern(template: str) -> tuple[str, re.Pattern] | None:
    """The template's first line as a regex (values as bounded wildcards, any run of spaces as spaces) and its
    longest fixed piece (a quick test before the regex); None when that line is only values."""
    first = template.split("\n", 1)[0].strip()
    pieces = first.split(HOLE)
    longest = max((p.strip() for p in pieces), key=len)
    if len(longest) < 12:
        return None
    rx = f".{{0,{HOLE_MAX}}}?".join(r"\s+".join(re.escape(w) for w in p.split()) + (r"\s*" if p[-1:].isspace() else "")
                                    if p.strip() else r"\s*" for p in pieces)
    return " ".join(longest.split()), re.compile(rx)


@lru_cache(maxsize=2)
def _table(releases: bool = True) -> tuple[tuple[str, re.Pattern, str, str], ...]:
    # ~200 KB of messages: imported on the first exception line only, not when explain or attach is imported
    from rocm_tune.profiles.release_refusals import RELEASE_REFUSALS
    from rocm_tune.profiles.runner_refusals import REFUSALS

    # e-gen8: then the older releases' refusals the current code no longer raises, cited at the tag they were read at
    rows = [*((r, p, t) for r, p, _f, _e, t in REFUSALS), *((r, f"{p}@{tag.split('@')[0]}", t)
                                                           for r, p, _f, _e, t, tag in RELEASE_REFUSALS if releases)]
    out = []
    for runner, path, template in rows:
        got = _pattern(template)
        if got is not None:
            out.append((got[0], got[1], runner, path))
    return tuple(out)


def refusal_of(line: str, releases: bool = True) -> tuple[str, str] | None:
    """(runner, file) of the argument check whose message the exception line carries, else None (releases=False:
    the runners' current code only, not release_refusals.py)."""
    m = _MESSAGE.search(line)
    if m is None:
        return None
    msg = " ".join(m.group(1).split())
    for piece, rx, runner, path in _table(releases):
        if piece in msg and rx.match(msg):
            return runner, path
    return None
