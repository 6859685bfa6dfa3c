"""`.env` files (dotenv): `KEY=VALUE` settings a launch script or a program reads into its environment (issue 26).

The syntax is python-dotenv's own parser (theskumar/python-dotenv src/dotenv/parser.py at bca6644), which docker
compose's `env_file:` and bash's `set -a; . ./x.env` read alike for the plain forms:
- a binding: optional `export ` prefix, a key (unquoted `[^=#\\s]+` or single-quoted), optional spaces, `=`,
  optional spaces, a value; a key with no `=` has no value (it passes the caller's, not known here);
- a value single-quoted (`\\'` and `\\\\` escapes), double-quoted (`\\n \\t \\" \\\\` ... escapes; both may span
  lines), or unquoted (up to the end of the line, a ` #...` comment and trailing spaces cut);
- `#` lines and blank lines skipped; a line that does not parse is skipped (python-dotenv warns and goes on);
- `${NAME}` and `${NAME:-default}` expanded (src/dotenv/main.py resolve_variables, interpolate=True): from the
  bindings above it and the environment the program starts with; with override=False (load_dotenv's default) the
  environment wins over the file, with override=True the file wins.
Pure: standard library only."""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass
from typing import Mapping

__all__ = ["Binding", "parse", "values", "is_dotenv", "env_file_name"]

_EXPORT = re.compile(r"(?:export[^\S\r\n]+)?")
_SQ_KEY = re.compile(r"'([^']+)'")
_KEY = re.compile(r"([^=#\s]+)")
_EQUAL = re.compile(r"=[^\S\r\n]*")
_SQ_VALUE = re.compile(r"'((?:\\'|[^'])*)'")
_DQ_VALUE = re.compile(r'"((?:\\"|[^"])*)"')
_UNQUOTED = re.compile(r"([^\r\n]*)")
_COMMENT = re.compile(r"(?:[^\S\r\n]*#[^\r\n]*)?")
_EOL = re.compile(r"[^\S\r\n]*(?:\r\n|\n|\r|$)")
_REST = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)?")
_WS = re.compile(r"[^\S\r\n]*")
_DQ_ESC = re.compile(r"\\[\\'\"abfnrtv]")
_SQ_ESC = re.compile(r"\\[\\']")
_VARIABLE = re.compile(r"\$\{(?P<name>[^}:]*)(?::-(?P<default>[^}]*))?\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
# file names that are dotenv files by convention: `.env`, `.env.local`, `prod.env`, `x.env.example`, `env.list`
_ENV_NAME = re.compile(r"(?:^\.env(?:\..+)?$|^.+\.env(?:\.[A-Za-z0-9_-]+)?$|^env\.list$|^\.envrc$)")


@dataclass(frozen=True)
class Binding:
    key: str
    value: str | None         # None: a bare KEY (no `=`)
    line: int                 # 1-based line of the key
    quote: str = ""           # "'" / '"' / "" as written
    exported: bool = False    # written `export KEY=...` (bash puts it in the programs' environment when sourced)


def _unescape(rx: re.Pattern, s: str) -> str:
    return rx.sub(lambda m: codecs.decode(m.group(0), "unicode-escape"), s)


def _value(text: str, pos: int) -> tuple[str, str, int]:
    """(value, quote, end) of the value starting at pos."""
    ch = text[pos:pos + 1]
    if ch == "'":
        m = _SQ_VALUE.match(text, pos)
        if m is None:
            raise ValueError("unclosed '")
        return _unescape(_SQ_ESC, m.group(1)), "'", m.end()
    if ch == '"':
        m = _DQ_VALUE.match(text, pos)
        if m is None:
            raise ValueError('unclosed "')
        return _unescape(_DQ_ESC, m.group(1)), '"', m.end()
    if ch in ("", "\n", "\r"):
        return "", "", pos
    m = _UNQUOTED.match(text, pos)
    assert m is not None
    return re.sub(r"\s+#.*", "", m.group(1)).rstrip(), "", m.end()


def _binding(text: str, pos: int) -> tuple[Binding | None, int, bool]:
    """(binding or None, end, parsed) of the binding at pos (after leading whitespace)."""
    start = pos
    pos = _EXPORT.match(text, pos).end()          # type: ignore[union-attr]
    exported = pos > start
    if text[pos:pos + 1] == "#":
        return None, _REST.match(text, pos).end(), True     # type: ignore[union-attr]
    m = _SQ_KEY.match(text, pos) if text[pos:pos + 1] == "'" else _KEY.match(text, pos)
    if m is None:
        raise ValueError("no key")
    key, pos = m.group(1), _WS.match(text, m.end()).end()    # type: ignore[union-attr]
    value, quote = None, ""
    if text[pos:pos + 1] == "=":
        value, quote, pos = _value(text, _EQUAL.match(text, pos).end())     # type: ignore[union-attr]
    pos = _COMMENT.match(text, pos).end()         # type: ignore[union-attr]
    end = _EOL.match(text, pos)
    if end is None:
        raise ValueError("text after the value")
    return Binding(key, value, 0, quote, exported), end.end(), True


def parse(text: str) -> tuple[list[Binding], list[int]]:
    """The bindings of a dotenv text in order, and the lines that do not parse (skipped, as python-dotenv does)."""
    text = text.removeprefix("\ufeff")
    out: list[Binding] = []
    bad: list[int] = []
    pos = 0
    while pos < len(text):
        start = re.compile(r"\s*").match(text, pos).end()       # type: ignore[union-attr]
        if start >= len(text):
            break
        line = text.count("\n", 0, start) + 1
        try:
            b, pos, _ok = _binding(text, start)
        except ValueError:
            bad.append(line)
            pos = _REST.match(text, start).end()    # type: ignore[union-attr]
            continue
        if b is not None:
            out.append(Binding(b.key, b.value, line, b.quote, b.exported))
    return out, bad


def _expand(value: str, env: Mapping[str, str | None]) -> str:
    def one(m: re.Match) -> str:
        got = env.get(m.group("name"))
        return got if got is not None else (m.group("default") or "")
    return _VARIABLE.sub(one, value)


def values(text: str, environ: Mapping[str, str] | None = None,
           override: bool = False) -> dict[str, tuple[str, int]]:
    """{KEY: (value, line)} as python-dotenv's dotenv_values / load_dotenv resolve them over `environ` (the
    environment the program starts with): ${VAR} expanded; a bare KEY (no value) left out. With override=False a
    key `environ` already sets keeps the environment's value (load_dotenv's default)."""
    environ = dict(environ or {})
    new: dict[str, str | None] = {}
    lines: dict[str, int] = {}
    for b in parse(text)[0]:
        if b.value is None:
            new[b.key] = None
            continue
        scope: dict[str, str | None] = {**environ, **new} if override else {**new, **environ}
        new[b.key] = _expand(b.value, scope)
        lines[b.key] = b.line
    out: dict[str, tuple[str, int]] = {}
    for k, v in new.items():
        if v is None:
            continue
        out[k] = (environ[k], lines[k]) if (k in environ and not override) else (v, lines[k])
    return out


def env_file_name(path: str) -> bool:
    """A file named as a dotenv file (`.env`, `.env.prod`, `train.env`, `x.env.example`, `env.list`)."""
    return bool(_ENV_NAME.match(os.path.basename(str(path))))


def is_dotenv(text: str, path: str = "") -> bool:
    """Every non-comment line of `text` a dotenv binding with a shell-variable key, at least one with a value, and
    the file named as an env file (a bare `A=1` list named `x.sh` stays a shell script)."""
    if not env_file_name(path):
        return False
    bindings, bad = parse(text)
    return not bad and any(b.value is not None for b in bindings) and all(_NAME.fullmatch(b.key) for b in bindings)
