"""e-peer2 (issue 26): a rank's own exception, whatever its class, ranks above the other ranks' waits and timeouts.

FAMILIES.md ("a consequence (other ranks' watchdog timeouts, ChildFailedError, a launcher's exit code) is never the
family when the cause is known"): the catalogue's catch-all reads exception lines of the classes it knows the shape
of (`...Error: msg`); a traceback can end in any class (`Exception: msg`, a bare `AssertionError` behind a worker's
prefix, `torch._dynamo.exc.Unsupported: ...`, a library's own class). This module reads where each traceback ends, as
CPython prints it (profiles/rank_exceptions.py), so that such a line is a rank's own failure the waits follow from;
and, where no rule gives that exception a family, gives one from its class and who raised it (traceback_anatomy's
owners): a configuration parser's or validator's class -> config_error; a data reader's -> dataset_error; the user's
own script raising it deliberately (`raise ...` / `assert ...` in the user's frame) -> config_error.

Pure: regexes over the log's bytes and the hit's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from rocm_tune.core.runs.diagnose.traceback_anatomy import Frame
from rocm_tune.profiles import rank_exceptions as rx

_PREFIX = re.compile(rx.STREAM_PREFIX)
_FRAME = re.compile(rx.FRAME_LINE)
_EXCEPTION = re.compile(rx.EXCEPTION_LINE)
_CHAINING = re.compile(rx.CHAINING)
_NOT_A_FAILURE = re.compile(rx.NOT_A_FAILURE)
_CLASS_FAMILIES = tuple((re.compile(c), who, fam, fix) for c, who, fam, fix in rx.CLASS_FAMILIES)
_OWN = re.compile(rx.OWN_EXCEPTION)
_OWN_CLASS = re.compile(r"([A-Z]\w*(?:Error|Exception|Exit|Interrupt)|Exception)(?::|\s*$)")
_DATA_WORDS = re.compile(rx.DATA_WORDS, re.I)
_SPAWN_CHILD = re.compile(rx.SPAWN_CHILD)
_RAISE = re.compile(r"^\s*(?:raise|assert)\b")


def _lines(data: bytes, start: int, end: int) -> Iterator[tuple[int, str]]:
    """(offset, text) of each line in data[start:end]."""
    pos = start
    while pos < end:
        e = data.find(b"\n", pos, end)
        e = end if e < 0 else e
        yield pos, data[pos:e].decode("utf-8", "replace").rstrip("\r\n")
        pos = e + 1


def _body(line: str, prefix: str) -> str | None:
    """The line without the traceback's own prefix; None when it is another stream's line (interleaved)."""
    if prefix and line.startswith(prefix):
        return line[len(prefix):]
    if _PREFIX.match(line):
        return None
    return line


def _end_of(data: bytes, head: int, line_start: int) -> tuple[int, str] | None:
    """(offset, exception line) ending the traceback whose head is at `head` (its line starting at line_start)."""
    prefix = data[line_start:head].decode("utf-8", "replace")
    seen_frame, foreign = False, 0
    stop = min(len(data), head + rx.MAX_BYTES_AFTER)
    for n, (off, line) in enumerate(_lines(data, data.find(b"\n", head, stop) + 1 or stop, stop)):
        if n > rx.MAX_LINES_AFTER:
            return None
        body = _body(line, prefix)
        if body is None or not body.strip():
            foreign += body is None
            if foreign > rx.MAX_FOREIGN_LINES:
                return None
            continue
        if _FRAME.match(body):
            seen_frame = True
            continue
        if body.startswith("Traceback (most recent call last):") or _CHAINING.match(body):
            return None
        m = _EXCEPTION.match(body)
        if m and seen_frame:
            return (None if _NOT_A_FAILURE.match(m.group(2)) else (off, line.strip()))
        foreign += 1
        if foreign > rx.MAX_FOREIGN_LINES or not prefix.strip():
            return None   # a line of the traceback's own stream that is no exception: not a traceback's end
    return None


def traceback_ends(data: bytes) -> list[tuple[int, str, int]]:
    """(line offset, text, offset of its `Traceback` line's start) of the exception line ending each traceback in
    `data` (profiles/rank_exceptions.py)."""
    out: list[tuple[int, str, int]] = []
    i = data.find(rx.TRACEBACK_HEAD)
    while i >= 0 and len(out) < rx.MAX_TRACEBACKS:
        s = data.rfind(b"\n", 0, i) + 1
        if (end := _end_of(data, i, s)) is not None and (not out or out[-1][0] != end[0]):
            out.append((end[0], end[1], s))
        i = data.find(rx.TRACEBACK_HEAD, i + 1)
    return out


def qualified_class(line: str) -> str | None:
    """The class of an exception line as printed (`torch._dynamo.exc.Unsupported`, `ValueError`), past a rank/worker
    prefix (a tool's unqualified `Error: ...` is no class's)."""
    body = _PREFIX.sub("", line.strip(), count=1).strip()
    m = _EXCEPTION.match(body)
    if m is not None:
        return None if m.group(1) == "Error" else m.group(1)
    own = _OWN_CLASS.search(line) if _OWN.search(line) else None
    return own.group(1) if own else None


def exception_class(line: str) -> str | None:
    """The class (the last part of its name) of an exception line."""
    q = qualified_class(line)
    return q.rsplit(".", 1)[-1] if q else None


def is_exception_line(line: str) -> bool:
    """The line states a Python exception: a class named as exceptions are (`...Error`, `Exception`, a bare
    `AssertionError`) anywhere in it, or a module-qualified class beginning it (`torch._dynamo.exc.Unsupported: `);
    not an unqualified word before a colon (`Note: `)."""
    if _OWN.search(line):
        return True
    m = _EXCEPTION.match(_PREFIX.sub("", line.strip(), count=1).strip())
    return bool(m and "." in m.group(1))


def class_family(frames: Sequence[Frame], line: str, pre: str) -> tuple[str, str] | None:
    """(family, what to do) of a rank's exception no rule read, from its class and who raised it (module docstring):
    the user's own script only when it raised the exception itself (its last statement a `raise` / `assert`)."""
    cls = qualified_class(line)
    if cls is None:
        return None
    last = frames[-1] if frames else None
    raised_by_user = last is not None and last.kind == "user" and _raised_here(pre)
    about_data = bool(_DATA_WORDS.search(line))
    for crx, who, family, fix in _CLASS_FAMILIES:
        if not crx.search(cls):
            continue
        if who == "any" or (raised_by_user and (who == "user" or (who == "user-data" and about_data))):
            return family, fix
    return None


def _raised_here(pre: str) -> bool:
    """The traceback's last source line (under its last frame) is a `raise` or an `assert` statement."""
    at = pre.rfind('File "')
    if at < 0:
        return False
    src = pre[at:].splitlines()[1:3]
    return any(_RAISE.match(_PREFIX.sub("", s.strip(), count=1)) for s in src)


def spawned_rank(pre: str) -> int | None:
    """The rank torch.multiprocessing.spawn names for the child whose traceback ends just after `pre`."""
    found = None
    for found in _SPAWN_CHILD.finditer(pre[-8000:]):  # noqa: B007 - the last one is the traceback's own
        pass
    return int(found.group(1)) if found else None


def said(rank: int | None, cls: str | None) -> str:
    """The answer's sentence: which rank raised what first, and that the waits follow from it."""
    who = f"rank {rank}" if rank is not None else "a rank"
    return f"{who} raised {cls or 'an exception'} first; the timeouts and lost connections on the other ranks follow " \
           "from it"
