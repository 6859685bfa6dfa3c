"""Reading and writing the user's files with one-line errors (standard library only at import time).

* ``read_text`` / ``read_json`` / ``read_yaml``: for files the user named. Every failure is a
  ``UserError`` of one line that names the file and what it should hold (``what``, e.g. "plan file").
* ``try_read_json`` / ``try_read_yaml``: for files rocm-tune itself wrote or only peeks at (run
  records, configs next to a run): ``None`` / a default instead of an error, never raises.
* ``atomic_write_text`` / ``atomic_write_json``: temp file in the same directory + ``os.replace``, so a
  reader never sees half a file; an existing file is replaced only with ``force=True``.
"""

from __future__ import annotations

import errno
import json
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
    """json.loads with the one-line error 'malformed JSON in <what> <path> at line L column C: why'."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"malformed JSON in {what} {path} at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise UserError(f"malformed JSON in {what} {path}: nested too deeply") from None


def read_json(path: str | os.PathLike, what: str, expect: type | None = dict, hint: str = "",
              max_bytes: int = MAX_TEXT_BYTES) -> Any:
    """Parsed JSON of a regular file of at most `max_bytes` whose brackets nest at most MAX_NESTING
    levels; with `expect`, a UserError unless the top level is of that type (`hint` is added to that
    message, e.g. " (the output of `rocm-tune plan --json`)")."""
    text = read_text(path, what, max_bytes)
    check_nesting(text, path, what)
    data = parse_json(text, path, what)
    if expect is not None and not isinstance(data, expect):
        kind = _KIND.get(expect, expect.__name__)
        raise UserError(f"{what} {path} must hold a {kind}{hint}, got a JSON {_json_type(data)}")
    return data


def read_yaml(path: str | os.PathLike, what: str, expect: type | None = dict) -> Any:
    """Parsed YAML (safe loader) of a file; an empty file is {} when a mapping is expected."""
    import yaml

    text = read_text(path, what, max_bytes=MAX_YAML_BYTES)
    check_nesting(text, path, what)
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except RecursionError:
        raise UserError(f"{what} {str(path)!r} is nested too deeply to be a {what}") from None
    except (ValueError, OverflowError) as exc:  # a value the constructor cannot make (an int of 5,000 digits)
        raise UserError(f"{what} {str(path)!r} is not valid YAML: {str(exc)[:80]}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None)
        raise UserError(f"{what} {str(path)!r} is not valid YAML{where}" + (f": {problem}" if problem else "")) from None
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
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return default


def try_read_yaml(path: str | os.PathLike) -> dict | None:
    """A YAML mapping from a regular file, or None when missing, unreadable, too big, nested too
    deeply, malformed or not a mapping (a FIFO named in someone's argv is never opened)."""
    data = _try_read_small(path, MAX_YAML_BYTES)
    if data is None:
        return None
    try:
        import yaml

        text = data.decode("utf-8-sig")
        if text.count("[") + text.count("{") > MAX_NESTING and nesting_depth(text) > MAX_NESTING:
            return None
        obj = yaml.safe_load(text)
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
