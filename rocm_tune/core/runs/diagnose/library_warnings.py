"""The training libraries' own harmless warnings, recognised by their words (e-benign, issue 26).

rocm_tune/profiles/library_warnings.py (made by tools/build_library_warnings.py from the source of transformers
4.46-5.x, peft, trl, accelerate, DeepSpeed, torch 2.x and bitsandbytes) lists each message a library prints with
`logger.warning/_once` or `warnings.warn` and goes on after, with a hole where the f-string, `.format` or `%` puts a
value. `warning_of(line)` answers which one a log line is — whatever prefix a logger, a rank or a progress bar put
before it (transformers' default handler prints the bare message) — and `find(text)` the lines of a log that are
such warnings. A warning is never a cause: the short list of those that are (the table's CAUSES) is left out of the
table, and a hole holding failure words (`Could not load X: CUDA error: out of memory`) is not a harmless line.
Pure; the table is compiled on first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

HOLE = "\x00"
HOLE_MAX = 240                 # characters a value put into a message may take
MIN_FIXED = 24                 # characters of fixed text one line of a template needs to be told apart
MIN_WORDS = 4
KEY_MIN = 5                    # letters of the word a template line is looked up by
MAX_FOUND = 200                # warning lines kept from one log
# words that say something failed: a line holding them in a value, or (for overriding another rule) in its fixed
# text, is not read as harmless here
FAILING = re.compile(r"error|fail|fatal|abort|exception|traceback|out of memory|\boom\b|killed|timed? ?out|\bnan\b|"
                     r"overflow|corrupt|segmentation|core dumped|cannot|could not|unable to|not found|denied", re.I)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{%d,}" % (KEY_MIN - 1))


@dataclass(frozen=True)
class Warned:
    library: str
    source: str                # the file that prints it
    template: str              # the message line, values as HOLE
    strict: bool               # no failure words anywhere: it may overrule another rule's reading of the line


def _usable(line: str) -> bool:
    fixed = line.replace(HOLE, "")
    return len(fixed.strip()) >= MIN_FIXED and len(re.findall(r"[A-Za-z]{2,}", fixed)) >= MIN_WORDS


def _regex(line: str) -> str:
    """The template line as a regex: fixed text with any run of spaces as spaces, values as bounded captures."""
    parts = []
    for p in line.strip().split(HOLE):
        parts.append(r"\s+".join(re.escape(w) for w in p.split()) if p.strip() else "")
        if p[:1].isspace() and parts[-1]:
            parts[-1] = r"\s*" + parts[-1]
        if p[-1:].isspace() and parts[-1]:
            parts[-1] += r"\s*"
    return f"(.{{0,{HOLE_MAX}}}?)".join(parts)


def _keys(line: str) -> list[str]:
    """Whole words of the fixed text (not glued to a value), longest first."""
    pieces = line.strip().split(HOLE)
    out = []
    for i, p in enumerate(pieces):
        words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(p)]
        for s, e, w in words:
            if (s == 0 and i > 0) or (e == len(p) and i < len(pieces) - 1):
                continue   # glued to a value (`{n}GB`, `{name}_proj`): the log's word is longer
            out.append(w)
    return sorted(set(out), key=lambda w: (-len(w), w))


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, tuple[int, ...]], tuple[tuple[str, str, str], ...]]:
    """(index: a word -> the template lines it is looked up by, the lines: (line, library, source)). ~200 KB of
    messages: imported when a log is read for them, not when explain or attach is imported."""
    from rocm_tune.profiles.library_warnings import WARNINGS

    entries: list[list[str]] = []
    keyed: list[list[str]] = []
    seen: dict[str, int] = {}
    for library, source, template in WARNINGS:
        for line in template.split("\n"):
            norm = " ".join(line.split())
            if norm in seen:
                # the same text printed from several files (each model's modeling file): name the first and say
                # how many more, not one of them as if it were the only one
                e = entries[seen[norm]]
                n = int(e[3]) + 1
                e[2], e[3] = f"{e[2].split(' and ')[0]} and {n} other file{'s' if n > 1 else ''}", str(n)
                continue
            if not _usable(line) or not (keys := _keys(line)):
                continue
            seen[norm] = len(entries)
            entries.append([line, library, source, "0"])
            keyed.append(keys)
    # each line by its rarest whole word: few candidates per log line
    freq: dict[str, int] = {}
    for keys in keyed:
        for k in keys:
            freq[k] = freq.get(k, 0) + 1
    index: dict[str, list[int]] = {}
    for i, keys in enumerate(keyed):
        index.setdefault(min(keys, key=lambda k: (freq[k], -len(k))), []).append(i)
    return {k: tuple(v) for k, v in index.items()}, tuple((e[0], e[1], e[2]) for e in entries)


@lru_cache(maxsize=4096)
def _compiled(line: str, library: str, source: str) -> tuple[re.Pattern, Warned]:
    # compiled when a log line first holds the template's key word: a thousand patterns cost a second to compile
    norm = " ".join(line.split())
    return re.compile(_regex(line)), Warned(library, source, norm.replace(HOLE, "{}"),
                                            not FAILING.search(line.replace(HOLE, " ")))


def warning_of(line: str, strict: bool = False) -> Warned | None:
    """The library warning the log line carries (its values without failure words), else None. strict: only one
    whose fixed text has no failure words either (one that may overrule another rule's reading of the line)."""
    if len(line) < MIN_FIXED:
        return None
    index, entries = _table()
    hits: list[Warned] = []
    for w in sorted(set(_WORD.findall(line))):
        for i in index.get(w, ()):
            rx, warned = _compiled(*entries[i])
            if strict and not warned.strict:
                continue
            m = rx.search(line)
            if m and not any(FAILING.search(g or "") for g in m.groups()):
                hits.append(warned)
    if len({h.source.split(" and ")[0] for h in hits}) > 1:
        # several files print a text this line fits: the first named, the others counted, none claimed alone
        return replace(hits[0], source=f"{hits[0].source.split(' and ')[0]} and {len(hits) - 1} other "
                                        f"file{'s' if len(hits) > 2 else ''}")
    return hits[0] if hits else None


def find(text: str, limit: int = MAX_FOUND) -> list[tuple[int, str, Warned]]:
    """(offset, line, warning) of the log lines that are library warnings, in order (at most `limit`)."""
    index, _entries = _table()
    present = {w for w in set(_WORD.findall(text)) if w in index}
    if not present:
        return []
    starts: set[int] = set()
    for w in present:
        i = text.find(w)
        while i >= 0 and len(starts) < 20 * limit:
            starts.add(text.rfind("\n", 0, i) + 1)
            e = text.find("\n", i)
            i = text.find(w, e) if e >= 0 else -1
    out = []
    for s in sorted(starts):
        e = text.find("\n", s)
        line = text[s:e if e >= 0 else len(text)]
        for seg in line.split("\r"):
            warned = warning_of(seg.strip())
            if warned is not None:
                out.append((s, seg.strip(), warned))
                break
        if len(out) >= limit:
            break
    return out
