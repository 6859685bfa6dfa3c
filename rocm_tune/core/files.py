"""Reading and writing the user's files with one-line errors (standard library only at import time).

* ``read_text`` / ``read_json`` / ``read_yaml``: for files the user named. Every failure is a
  ``UserError`` of one line that names the file and what it should hold (``what``, e.g. "plan file").
* ``try_read_json`` / ``try_read_yaml``: for files rocm-tune itself wrote or only peeks at (run
  records, configs next to a run): ``None`` / a default instead of an error, never raises.
* ``atomic_write_text`` / ``atomic_write_json``: temp file in the same directory + ``os.replace``, so a
  reader never sees half a file; an existing file is replaced only with ``force=True``.
* One safe loader per format, used by every reader of a user's file (issue 25 items 17-18):
  ``load_json`` / ``load_yaml`` / ``load_toml`` / ``parse_python`` (text -> data) and ``read_config_text``
  / ``read_toml`` / ``read_safetensors_header`` (path -> data). Each refuses, with one line naming the
  limit hit: not a regular file (FIFO, device), more than its byte cap, a line longer than MAX_LINE,
  nesting deeper than MAX_DEPTH, more than MAX_NODES values once YAML aliases are expanded (an alias
  bomb), an integer of more than MAX_DIGITS digits, a finite literal that overflows to infinity (1e400).
  ``as_int`` / ``as_str`` are the type checks at the use site (a list where a string belongs).
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from rocm_tune.core.errors import UserError

_KIND: dict[type, str] = {dict: "JSON object", list: "JSON array", str: "JSON string"}


MAX_TEXT_BYTES = 2 * 2**30      # the most of one file rocm-tune reads into memory
MAX_YAML_BYTES = 16 * 2**20     # a training config / YAML larger than this is not a config
MAX_NESTING = 1000              # brackets nested deeper than this are refused before any parser sees them
MAX_CONFIG_BYTES = 8 * 2**20    # a config, script, DeepSpeed JSON, dataset_info.json, index or notify config
MAX_STATE_BYTES = 256 * 2**20   # trainer_state.json / plan.json (a long run's log_history is tens of MiB)
MAX_LINE = 1 * 2**20            # the longest line of a config or script
MAX_DEPTH = 100                 # levels of nesting of parsed data (a real config has fewer than 10)
MAX_NODES = 5_000_000           # values of one document once YAML aliases are expanded
MAX_DIGITS = 30                 # digits of an integer (a config's biggest number has fewer than 20)
MAX_SAFETENSORS_HEADER = 100 * 2**20  # safetensors' own limit for the JSON header


def open_regular(path: str | os.PathLike, what: str, spec: str | None = None) -> int:
    """An fd of a regular file opened for reading without ever blocking (FIFOs, devices and sockets
    are refused, so `/dev/zero` or a FIFO never hangs or fills memory). UserError otherwise."""
    spec = str(path) if spec is None else spec
    try:
        fd = os.open(os.path.expanduser(str(path)), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UserError(f"{what} {spec!r} does not exist (no such file)") from None
    except IsADirectoryError:
        raise UserError(f"{what} {spec!r} is a directory, expected a file") from None
    except PermissionError:
        raise UserError(f"cannot read {what} {spec!r}: permission denied") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read {what} {spec!r}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise UserError(f"cannot read {what} {spec!r}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        os.close(fd)
        raise UserError(f"{what} {spec!r} is a directory, expected a file")
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) or
                stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise UserError(f"{what} {spec!r} is {kind}, expected a regular file")
    return fd


def read_bytes(path: str | os.PathLike, what: str, max_bytes: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes` (one-line UserError otherwise)."""
    fd = open_regular(path, what)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise UserError(f"{what} {str(path)!r} is {size / 2**20:,.0f} MiB; rocm-tune reads at most "
                            f"{max_bytes / 2**20:,.0f} MiB of a {what} (give a smaller file or a sample)")
        chunks = []
        total = 0
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError as exc:
                raise UserError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:  # grew while read
                raise UserError(f"{what} {str(path)!r} is larger than {max_bytes / 2**20:,.0f} MiB")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, what: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """UTF-8 text of a file (a BOM is dropped). UserError: missing, a directory, not a regular file
    (FIFO, device), larger than `max_bytes`, permission denied, not UTF-8."""
    data = read_bytes(path, what, max_bytes)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{what} {str(path)!r} is not UTF-8 text (bad byte at offset {exc.start})") from None


_BRACKETS = re.compile(r"[\[\]{}]")


def nesting_depth(text: str, limit: int = MAX_NESTING) -> int:
    """Deepest bracket nesting of `text` (strings are not skipped: an upper bound), stopping past `limit`."""
    depth = best = 0
    for m in _BRACKETS.finditer(text):
        if m.group() in "[{":
            depth += 1
            if depth > best:
                best = depth
                if best > limit:
                    return best
        elif depth:
            depth -= 1
    return best


def check_nesting(text: str, path: str | os.PathLike, what: str, limit: int = MAX_NESTING) -> None:
    """UserError when brackets nest deeper than `limit` (a YAML parser would overflow its stack)."""
    if text.count("[") + text.count("{") > limit and nesting_depth(text, limit) > limit:
        raise UserError(f"{what} {str(path)!r} nests brackets more than {limit} levels deep; not a valid {what}")


def parse_json(text: str, path: str | os.PathLike, what: str) -> Any:
    """json.loads with the one-line error 'malformed JSON in <what> <path> at line L column C: why'
    (and the limits of `load_json`)."""
    return load_json(text, path, what)


class _Overflow(ValueError):
    """A number literal past the limits (its text is the message)."""


class _Overflowed(float):
    """A finite literal that overflowed to infinity (1e400): check_structure refuses it naming its key."""

    text = ""


def _finite_float(text: str) -> float:
    x = float(text)
    if math.isinf(x):
        x = _Overflowed(x)
        x.text = text
    return x


class _TooLong:
    """An integer literal of more than MAX_DIGITS digits, left unconverted: check_structure names its key."""

    def __init__(self, text: str):
        self.text = text


def _int(text: str) -> int | _TooLong:
    return _TooLong(text) if sum(c.isdigit() for c in text) > MAX_DIGITS else int(text)


def _key_path(parent: str, key: Any) -> str:
    return f"{parent}.{key}" if parent else str(key)


def check_structure(data: Any, path: str | os.PathLike, what: str, *, max_depth: int = MAX_DEPTH,
                    max_nodes: int = MAX_NODES) -> Any:
    """`data` itself when it nests at most `max_depth` levels, holds at most `max_nodes` values with
    shared (aliased) parts counted each time they are reached, and no integer of more than MAX_DIGITS
    digits; UserError (one line naming the limit) otherwise. Iterative: never recursion-limited."""
    big = 10 ** MAX_DIGITS
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, int, bool, str]] = [(data, 1, False, "")] if isinstance(data, (dict, list)) else []
    while stack:
        obj, depth, done, where = stack.pop()
        kids = obj.values() if isinstance(obj, dict) else obj
        if done:
            n = 1 + sum(sizes.get(id(k), 1) for k in kids)
            if n > max_nodes:
                raise UserError(f"{what} {str(path)!r} expands to more than {max_nodes:,} values (YAML aliases "
                                "that repeat each other: an alias bomb?); not a valid " + what)
            sizes[id(obj)] = n
            continue
        if depth > max_depth:
            raise UserError(f"{what} {str(path)!r} nests more than {max_depth} levels deep; not a valid {what}")
        stack.append((obj, depth, True, where))
        items = obj.items() if isinstance(obj, dict) else enumerate(obj)
        for key, k in items:
            if isinstance(k, (dict, list)):
                if id(k) not in sizes:
                    stack.append((k, depth + 1, False, _key_path(where, key)))
            elif isinstance(k, int) and not isinstance(k, bool) and not -big < k < big:
                raise UserError(f"{what} {str(path)!r}: {_key_path(where, key)} is an integer of {len(str(abs(k)))} "
                                f"digits; numbers of at most {MAX_DIGITS} digits are read")
            elif isinstance(k, _TooLong):
                raise UserError(f"{what} {str(path)!r}: {_key_path(where, key)} is an integer of "
                                f"{sum(c.isdigit() for c in k.text)} digits; numbers of at most {MAX_DIGITS} digits "
                                "are read")
            elif isinstance(k, _Overflowed):
                raise UserError(f"{what} {str(path)!r}: {_key_path(where, key)} is {k.text[:40]!r}, a number that "
                                "overflows (too large for any setting)")
        if isinstance(obj, dict):
            for k in obj:
                if isinstance(k, int) and not isinstance(k, bool) and not -big < k < big:
                    raise UserError(f"{what} {str(path)!r} holds an integer key of {len(str(abs(k)))} digits")
    if (isinstance(data, int) and not isinstance(data, bool) and not -big < data < big) or \
            isinstance(data, (_TooLong, _Overflowed)):
        raise UserError(f"{what} {str(path)!r} is a number too large for any setting")
    return data


def _overflow_msg(exc: Exception, path: str | os.PathLike, what: str) -> str:
    text = str(exc)
    if isinstance(exc, _Overflow):
        return f"{what} {str(path)!r} holds the number {text[:40]!r}, which overflows (too large for any setting)"
    if "digits" in text:  # Python's own guard for int(str) of more than 4300 digits
        return f"{what} {str(path)!r} holds an integer of more than {MAX_DIGITS} digits; not a valid {what}"
    return f"{what} {str(path)!r} holds a number that cannot be read: {text[:80]}"


def load_json(text: str, path: str | os.PathLike, what: str, *, lenient: bool = False) -> Any:
    """JSON text -> data within the limits (bracket nesting, MAX_DEPTH, MAX_DIGITS, no 1e400);
    UserError of one line naming the file and the limit otherwise. lenient=True: None for text that
    is not JSON at all (a peek), the limits still as UserError."""
    check_nesting(text, path, what)
    try:
        data = json.loads(text, parse_float=_finite_float, parse_int=_int)
    except json.JSONDecodeError as exc:
        if lenient:
            return None
        raise UserError(f"malformed JSON in {what} {path} at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise UserError(f"malformed JSON in {what} {path}: nested too deeply") from None
    except ValueError as exc:
        raise UserError(_overflow_msg(exc, path, what)) from None
    return check_structure(data, path, what)


def _yaml_loader():
    """The C safe loader (when built) whose int and float constructors refuse what overflows."""
    global _YAML_LOADER
    if _YAML_LOADER is None:
        import yaml

        class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc,valid-type]
            pass

        def _yint(loader, node):
            if sum(c.isdigit() for c in str(node.value)) > MAX_DIGITS:
                return _TooLong(str(node.value))
            return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)

        def _float(loader, node):
            x = yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
            if math.isinf(x) and "inf" not in str(node.value).lower():
                x = _Overflowed(x)
                x.text = str(node.value)
            return x

        Loader.add_constructor("tag:yaml.org,2002:int", _yint)
        Loader.add_constructor("tag:yaml.org,2002:float", _float)
        _YAML_LOADER = Loader
    return _YAML_LOADER


_YAML_LOADER = None


def load_yaml(text: str, path: str | os.PathLike, what: str, *, syntax_errors: bool = False) -> Any:
    """YAML text (safe loader) -> data within the limits (bracket nesting, MAX_DEPTH also of indented
    blocks, MAX_NODES after aliases, MAX_DIGITS, no 1e400); UserError of one line otherwise.
    syntax_errors=True: a YAML syntax error is raised as the yaml.YAMLError itself (a caller that
    reads an excerpt leniently), the limits still as UserError."""
    import yaml

    check_nesting(text, path, what)
    try:
        data = yaml.load(text, Loader=_yaml_loader())
    except RecursionError:
        raise UserError(f"{what} {str(path)!r} is nested too deeply to be a {what}") from None
    except (ValueError, OverflowError) as exc:  # a value the constructor cannot make (an int of 5,000 digits)
        raise UserError(_overflow_msg(exc, path, what)) from None
    except yaml.YAMLError as exc:
        if syntax_errors:
            raise
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None)
        raise UserError(f"{what} {str(path)!r} is not valid YAML{where}" + (f": {problem}" if problem else "")) from None
    except TypeError as exc:  # an unhashable key (`? [a]`)
        raise UserError(f"{what} {str(path)!r} is not valid YAML: {str(exc)[:80]}") from None
    return check_structure(data, path, what)


_TOML_KEY = re.compile(r"^\s*\[*\s*([^=\]\n]*)", re.M)


def load_toml(text: str, path: str | os.PathLike, what: str) -> dict:
    """TOML text -> a table within the limits (nesting, dotted keys of at most MAX_DEPTH parts, no 1e400)."""
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise UserError(f"{path}: reading a TOML {what} needs Python 3.11+ or `pip install tomli`") from None
    check_nesting(text, path, what)
    for m in _TOML_KEY.finditer(text):
        if m.group(1).count(".") >= MAX_DEPTH:  # tomllib takes minutes over a key of 60,000 parts
            raise UserError(f"{what} {str(path)!r} has a dotted key of more than {MAX_DEPTH} parts; not a valid {what}")
    try:
        data = tomllib.loads(text, parse_float=_finite_float)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        raise UserError(f"{what} {str(path)!r} is nested too deeply to be a {what}") from None
    except ValueError as exc:
        raise UserError(_overflow_msg(exc, path, what)) from None
    return check_structure(data, path, what)


def parse_python(text: str, path: str | os.PathLike, what: str):
    """ast.parse of a Python program, never executed; UserError (one line) for a syntax error, an
    expression nested or chained too deeply for the parser (RecursionError, MemoryError), or an AST
    deeper than 2 * MAX_DEPTH."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise UserError(f"{what} {str(path)!r} is not valid Python (line {exc.lineno}: {exc.msg})") from None
    except (RecursionError, MemoryError):
        raise UserError(f"{what} {str(path)!r} nests or chains expressions too deeply to be read") from None
    except ValueError as exc:  # NUL bytes
        raise UserError(f"{what} {str(path)!r} is not Python source: {exc}") from None
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > 2 * MAX_DEPTH:
            raise UserError(f"{what} {str(path)!r} nests expressions more than {2 * MAX_DEPTH} levels deep")
        stack.extend((c, depth + 1) for c in ast.iter_child_nodes(node))
    return tree


def check_lines(text: str, path: str | os.PathLike, what: str, max_line: int = MAX_LINE) -> str:
    """`text` itself when no line is longer than `max_line` characters; UserError naming the line otherwise."""
    if len(text) > max_line:
        for i, line in enumerate(text.split("\n"), 1):
            if len(line) > max_line:
                raise UserError(f"{what} {str(path)!r} line {i} is {len(line) / 1024:,.0f} KiB long; lines of at "
                                f"most {max_line / 1024:,.0f} KiB are read")
    return text


def read_config_text(path: str | os.PathLike, what: str, max_bytes: int = MAX_CONFIG_BYTES,
                     max_line: int = MAX_LINE) -> str:
    """Text of a config, script or small JSON the user gave: a regular file of at most `max_bytes`
    with no line over `max_line` (one-line UserError naming the limit otherwise)."""
    return check_lines(read_text(path, what, max_bytes), path, what, max_line)


def read_toml(path: str | os.PathLike, what: str) -> dict:
    """A TOML table from a regular file of at most MAX_CONFIG_BYTES (load_toml's limits)."""
    data = read_bytes(path, what, MAX_CONFIG_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not valid TOML (not UTF-8)") from None
    return load_toml(text, path, what)


def read_safetensors_header(path: str | os.PathLike, what: str = "safetensors file") -> tuple[dict, int, int]:
    """(header, header length, file size) of a .safetensors file: a regular file whose 8-byte length is
    at most MAX_SAFETENSORS_HEADER and inside the file, and whose header is a JSON object within
    load_json's limits. UserError (one line) otherwise: the caller turns it into "cut short" or a refusal."""
    import struct

    name = os.path.basename(os.fspath(path))
    fd = open_regular(path, what)
    try:
        size = os.fstat(fd).st_size
        head = os.read(fd, 8)
        if len(head) < 8:
            raise UserError(f"{name} is {size} bytes (cut short)")
        (n,) = struct.unpack("<Q", head)
        if n > size - 8 or n > MAX_SAFETENSORS_HEADER:
            raise UserError(f"{name}: header of {n} bytes in a {size}-byte file (cut short)")
        raw = b""
        while len(raw) < n:
            chunk = os.read(fd, n - len(raw))
            if not chunk:
                raise UserError(f"{name}: header of {n} bytes in a {size}-byte file (cut short)")
            raw += chunk
    except OSError as exc:
        raise UserError(f"{name} unreadable ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{name}: header is not UTF-8 JSON") from None
    header = load_json(text, name, what)
    if not isinstance(header, dict):
        raise UserError(f"{name}: header is a JSON {_json_type(header)}, not an object")
    return header, n, size


def as_int(value: Any, lo: int | None = None, hi: int | None = None) -> int | None:
    """`value` when it is an int (not a bool) within [lo, hi]; a float that is a whole finite number
    counts; None otherwise (a list, a string, 1e400, NaN): the type check at the use site."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            return None
        value = int(value)
    if not isinstance(value, int):
        return None
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        return None
    return value


def as_str(value: Any) -> str | None:
    """`value` when it is a string, else None (a list or a number where a path or a name belongs)."""
    return value if isinstance(value, str) else None


def read_json(path: str | os.PathLike, what: str, expect: type | None = dict, hint: str = "",
              max_bytes: int = MAX_TEXT_BYTES) -> Any:
    """Parsed JSON of a regular file of at most `max_bytes` whose brackets nest at most MAX_NESTING
    levels; with `expect`, a UserError unless the top level is of that type (`hint` is added to that
    message, e.g. " (the output of `rocm-tune plan --json`)")."""
    data = load_json(read_text(path, what, max_bytes), path, what)
    if expect is not None and not isinstance(data, expect):
        kind = _KIND.get(expect, expect.__name__)
        raise UserError(f"{what} {path} must hold a {kind}{hint}, got a JSON {_json_type(data)}")
    return data


def read_yaml(path: str | os.PathLike, what: str, expect: type | None = dict) -> Any:
    """Parsed YAML (safe loader) of a file; an empty file is {} when a mapping is expected."""
    data = load_yaml(read_text(path, what, max_bytes=MAX_YAML_BYTES), path, what)
    if data is None and expect is dict:
        return {}
    if expect is dict and not isinstance(data, dict):
        raise UserError(f"{what} {str(path)!r} must be a YAML mapping (key: value lines), got a {type(data).__name__}")
    if expect is not None and not isinstance(data, expect):
        raise UserError(f"{what} {str(path)!r} must hold a YAML {expect.__name__}, got a {type(data).__name__}")
    return data


def _json_type(v: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(v), "number" if isinstance(v, (int, float)) else type(v).__name__)


def _try_read_small(path: str | os.PathLike, max_bytes: int) -> bytes | None:
    """Bytes of a regular file of at most max_bytes, else None (never blocks, never raises)."""
    try:
        fd = os.open(os.fspath(path), os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError, TypeError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return None
        data = os.read(fd, max_bytes + 1)
        return data if len(data) <= max_bytes else None
    except OSError:
        return None
    finally:
        os.close(fd)


def try_read_json(path: str | os.PathLike, default: Any = None, max_bytes: int = 64 * 2**20) -> Any:
    """Parsed JSON of a regular file, or `default` when missing, unreadable, too big or malformed (never raises)."""
    data = _try_read_small(path, max_bytes)
    if data is None:
        return default
    try:
        return load_json(data.decode("utf-8"), os.fspath(path), "file")
    except (ValueError, UserError):
        return default


def try_read_yaml(path: str | os.PathLike) -> dict | None:
    """A YAML mapping from a regular file, or None when missing, unreadable, too big, nested too
    deeply, malformed or not a mapping (a FIFO named in someone's argv is never opened)."""
    data = _try_read_small(path, MAX_YAML_BYTES)
    if data is None:
        return None
    try:
        obj = load_yaml(data.decode("utf-8-sig"), os.fspath(path), "file")
    except Exception:  # noqa: BLE001 - a peek: any failure means "no usable config"
        return None
    return obj if isinstance(obj, dict) else None


def existing(path: str | os.PathLike) -> str | None:
    """None when nothing is at `path`; else what is there, for a one-line refusal: "exists",
    "is a dangling symlink" or "is a symlink loop" (a symlink counts as existing whatever it points at).
    `path` itself may be a symlink; a loop in a parent directory is reported as a loop too."""
    p = os.fspath(path)
    try:
        os.lstat(p)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is under a symlink loop"
        return None
    try:
        os.stat(p)
    except OSError as exc:
        return "is a symlink loop" if exc.errno == errno.ELOOP else "is a dangling symlink"
    return "exists"


def directory_path(path: str | os.PathLike, flag: str) -> Path:
    """The resolved path of a directory the user named (it need not exist yet). UserError (one line)
    when it exists and is not a directory, or when it or the nearest existing folder above it is a
    dangling symlink or a symlink loop (a directory is never made through one)."""
    shown = f"{flag} {str(path)!r}"
    p = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
    for a in (p, *p.parents):
        there = existing(a)
        if there is None:
            continue
        if there != "exists":
            where = "" if a == p else f" ({str(a)!r} {there})"
            raise UserError(f"{shown} {there if a == p else 'is not usable'}{where}; give a directory")
        break
    if p.exists() and not p.is_dir():
        raise UserError(f"{shown} exists and is not a directory")
    try:
        return p.resolve()
    except (OSError, RuntimeError) as exc:  # 3.11 raises RuntimeError on a loop
        raise UserError(f"{shown} cannot be resolved: {exc}") from None


def atomic_write_text(path: str | os.PathLike, text: str, *, force: bool = True, mode: int | None = None,
                      fsync: bool = False, flag: str = "") -> None:
    """Write text through a temp file in the same directory + os.replace (readers never see half a file).

    force=False: a UserError when anything is at the path already, a dangling symlink or a symlink loop
    included (nothing the user made is overwritten). With force a symlink is replaced itself, never
    its target. mode: permission bits of the result (default: those of the file replaced, else 0o644).
    fsync: flush to disk before renaming. flag: the option that named the path, for the messages."""
    p = Path(path)
    name = f"{flag} {str(p)!r}" if flag else str(p)
    if p.is_dir():  # a symlink to a directory too
        raise UserError(f"{name} is a directory; give a file path")
    there = existing(p)
    if there == "is under a symlink loop":
        raise UserError(f"cannot write {name}: a directory of the path is a symlink loop")
    if not p.parent.is_dir():
        raise UserError(f"cannot write {name}: directory {str(p.parent)!r} does not exist")
    if not force and there is not None:
        raise UserError(f"{name} {'exists already' if there == 'exists' else there}; pass --force to overwrite it")
    fd, tmp = tempfile.mkstemp(dir=str(p.parent), prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is None:
            try:
                st = os.lstat(p)  # the file replaced, never a symlink's target
                mode = st.st_mode & 0o7777 if stat.S_ISREG(st.st_mode) else 0o644
            except OSError:
                mode = 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_json(path: str | os.PathLike, obj: Any, *, force: bool = True) -> None:
    """atomic_write_text of obj as indented JSON (values JSON does not know are written as str())."""
    atomic_write_text(path, json.dumps(obj, indent=2, default=str) + "\n", force=force)


def _write_error(exc: OSError) -> str:
    return {errno.ENOSPC: "disk full", errno.EFBIG: "file too large (the file-size limit of this process)",
            errno.EDQUOT: "disk quota exceeded"}.get(exc.errno or 0, exc.strerror or str(exc))


def write_all_atomic(files: dict[str, str], *, flag: str = "") -> None:
    """Write every {path: text} or none: each text goes to a temp file beside its path (fsynced), and only
    when all are whole are they renamed over their paths (a symlink there is replaced itself). On a
    failure (a full disk) every temp file is removed and a one-line UserError names the file and why."""
    temps: list[tuple[str, str]] = []
    path = ""
    try:
        for path, text in files.items():
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                       prefix=f".{os.path.basename(path)}.", suffix=".tmp")
            temps.append((tmp, path))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            try:
                st = os.lstat(path)
                mode = st.st_mode & 0o7777 if stat.S_ISREG(st.st_mode) else 0o644
            except OSError:
                mode = 0o644
            os.chmod(tmp, mode)
        for tmp, path in temps:
            os.replace(tmp, path)
    except OSError as exc:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise UserError(f"cannot write {flag + ' ' if flag else ''}{path!r}: {_write_error(exc)}; "
                        "nothing was written") from None


# ------------------------------------------------------------------------------------------------ log encodings
UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}
_SNIFF_BYTES = 64        # the first characters that tell UTF-16 without a mark (32 UTF-16 code units)
_SNIFF_MIN = 16          # ... at least 8 of them: fewer bytes (a short file that has ended) are read as UTF-8
_ASCII = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0D}


def _ascii_units(units: bytes, low_first: bool) -> bool:
    """Three in four 2-byte units of `units` are a NUL and a printable ASCII byte (text as UTF-16)."""
    pairs = [(units[i], units[i + 1]) if low_first else (units[i + 1], units[i]) for i in range(0, len(units) - 1, 2)]
    return bool(pairs) and 4 * sum(hi == 0 and lo in _ASCII for lo, hi in pairs) >= 3 * len(pairs)


def log_encoding(head: bytes, final: bool = False) -> tuple[str, int] | None:
    """(codec, byte-order-mark length) of a log from its first bytes: UTF-16 with a mark (Windows PowerShell's `>`
    and Out-File write UTF-16LE with FF FE), UTF-16 without one (a NUL every other byte in its first characters:
    ASCII text as UTF-16LE / BE), else ("utf-8", 0). None while too few bytes are there to tell (a log just being
    written: one byte, or fewer than 8 characters that may be UTF-16); `final`: no more bytes will come, so the
    bytes there decide (fewer than 8 characters without a mark: UTF-8)."""
    if head[:2] in UTF16_BOMS:
        return UTF16_BOMS[head[:2]], 2
    units = head[:_SNIFF_BYTES]
    if len(units) < _SNIFF_MIN:
        may_be = len(units) < 2 or b"\x00" in units and (_ascii_units(units, True) or _ascii_units(units, False))
        return None if may_be and not final else ("utf-8", 0)
    if _ascii_units(units, True):
        return "utf-16-le", 0
    if _ascii_units(units, False):
        return "utf-16-be", 0
    return "utf-8", 0


def decode_log_head(head: bytes) -> str:
    """The first bytes of a log as text, in the encoding `log_encoding` finds (undecodable bytes replaced)."""
    codec, skip = log_encoding(head, final=True) or ("utf-8", 0)
    body = head[skip:]
    if codec != "utf-8":
        body = body[: len(body) & ~1]
    return body.decode(codec, "replace")
