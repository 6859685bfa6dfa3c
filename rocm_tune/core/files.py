"""Reading and writing the user's files with one-line errors (standard library only at import time).

* ``read_text`` / ``read_json`` / ``read_yaml``: for files the user named. Every failure is a
  ``UserError`` of one line that names the file and what it should hold (``what``, e.g. "plan file").
* ``try_read_json`` / ``try_read_yaml``: for files rocm-tune itself wrote or only peeks at (run
  records, configs next to a run): ``None`` / a default instead of an error, never raises.
* ``atomic_write_text`` / ``atomic_write_json``: temp file in the same directory + ``os.replace``, so a
  reader never sees half a file; an existing file is replaced only with ``force=True``.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from rocm_tune.core.errors import UserError

_KIND = {dict: "JSON object", list: "JSON array", str: "JSON string"}


def read_text(path: str | os.PathLike, what: str) -> str:
    """UTF-8 text of a file (a BOM is dropped). UserError: missing, a directory, unreadable, not UTF-8."""
    p = Path(os.path.expanduser(str(path)))
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise UserError(f"{what} {str(path)!r} does not exist (no such file)") from None
    except IsADirectoryError:
        raise UserError(f"{what} {str(path)!r} is a directory, expected a file") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"{what} {str(path)!r} is not UTF-8 text (bad byte at offset {exc.start})") from None


def parse_json(text: str, path: str | os.PathLike, what: str) -> Any:
    """json.loads with the one-line error 'malformed JSON in <what> <path> at line L column C: why'."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"malformed JSON in {what} {path} at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise UserError(f"malformed JSON in {what} {path}: nested too deeply") from None


def read_json(path: str | os.PathLike, what: str, expect: type | None = dict, hint: str = "") -> Any:
    """Parsed JSON of a file; with `expect`, a UserError unless the top level is of that type
    (`hint` is added to that message, e.g. " (the output of `rocm-tune plan --json`)")."""
    data = parse_json(read_text(path, what), path, what)
    if expect is not None and not isinstance(data, expect):
        kind = _KIND.get(expect, expect.__name__)
        raise UserError(f"{what} {path} must hold a {kind}{hint}, got a JSON {_json_type(data)}")
    return data


def read_yaml(path: str | os.PathLike, what: str, expect: type | None = dict) -> Any:
    """Parsed YAML (safe loader) of a file; an empty file is {} when a mapping is expected."""
    import yaml

    text = read_text(path, what)
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
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


def try_read_json(path: str | os.PathLike, default: Any = None) -> Any:
    """Parsed JSON of a file, or `default` when missing, unreadable or malformed (never raises)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError, RecursionError):
        return default


def try_read_yaml(path: str | os.PathLike) -> dict | None:
    """A YAML mapping from a file, or None when missing, unreadable, malformed or not a mapping."""
    try:
        import yaml

        with open(path, encoding="utf-8") as fh:
            obj = yaml.safe_load(fh)
    except Exception:  # noqa: BLE001 - a peek: any failure means "no usable config"
        return None
    return obj if isinstance(obj, dict) else None


def atomic_write_text(path: str | os.PathLike, text: str, *, force: bool = True, mode: int | None = None,
                      fsync: bool = False) -> None:
    """Write text through a temp file in the same directory + os.replace (readers never see half a file).

    force=False: a UserError when the file exists already (nothing the user made is overwritten).
    mode: permission bits of the result (default: those of the file replaced, else 0o644).
    fsync: flush to disk before renaming."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{p} is a directory; give a file path")
    if not p.parent.is_dir():
        raise UserError(f"cannot write {p}: directory {p.parent} does not exist")
    if not force and p.exists():
        raise UserError(f"{p} exists already; pass --force to overwrite it")
    fd, tmp = tempfile.mkstemp(dir=str(p.parent), prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is None:
            try:
                mode = p.stat().st_mode & 0o7777
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
