"""The app's parsed CSS kept between launches, as Python keeps bytecode.

Textual parses the app's stylesheet and every widget's DEFAULT_CSS at each start (~15 % of the app's
own CPU time to its first paint, issue 25 item 15), although the text, the theme's variables and
Textual are the same every time. `CachedStylesheet` looks each parse up in a file under
$XDG_CACHE_HOME/rocm-tune (unpickling is ~8x faster than parsing) and parses as Textual does on a
miss; `save()` writes what was parsed anew, after the first paint and when the app ends.

The key is Textual's own parse key (the CSS text, where it was read, default or not, tie breaker,
scope) plus a digest of the CSS variables (the theme: dark, light, NO_COLOR, 256 colours). The file's
name carries the Python version and the size and mtime of Textual's and Rich's CSS and style modules,
so another Textual or Rich never reads it. The file is read only when it is a regular file of this
user that no one else can write (it is unpickled, like a .pyc it runs code), and only when it is
smaller than MAX_BYTES; any problem with it means parsing as without it. It is written to a temporary
file that then replaces it; a symlink or anything else at its place is left alone.
"""

from __future__ import annotations

import functools
import os
import pickle
import stat
import sys
from pathlib import Path
from typing import Any

from textual.css.stylesheet import Stylesheet

try:   # hashlib's blake2b without hashlib, which loads OpenSSL's libcrypto first (milliseconds at start-up)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import blake2b

MAX_BYTES = 8 * 1024 * 1024
_STORE: dict[tuple, bytes] | None = None   # key -> pickled rules, as read from the file
_NEW: dict[tuple, list] = {}   # key -> rules parsed in this process, pickled when saved (after the paint)


@functools.lru_cache(maxsize=1)
def _version_tag() -> str:
    import rich
    import textual

    stamp = [sys.version, str(pickle.HIGHEST_PROTOCOL)]
    for package, names in ((textual, ("css", "color.py", "geometry.py")), (rich, ("style.py", "color.py"))):
        root = Path(package.__file__ or "").parent
        for name in names:
            path = root / name
            for f in sorted(path.glob("*.py")) if path.is_dir() else [path]:
                st = f.stat()
                stamp.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
    return blake2b("\n".join(stamp).encode(), digest_size=8).hexdigest()


def cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "rocm-tune" / f"tui-css-{_version_tag()}.pickle"


def _read(path: Path) -> dict[tuple, bytes]:
    try:
        st = os.lstat(path)
        if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022
                or st.st_size > MAX_BYTES):
            return {}
        with open(path, "rb") as f:
            store = pickle.load(f)
        return store if isinstance(store, dict) else {}
    except Exception:  # noqa: BLE001 - no cache, or a bad one: parse as without it
        return {}


def _store() -> dict[tuple, bytes]:
    """The file's entries, read once per process (as Textual's own parse cache, it then lives in memory)."""
    global _STORE
    if _STORE is None:
        _STORE = _read(cache_file())
    return _STORE


def save() -> bool:
    """Write the parses made since the file was read; False when nothing was new or it could not be written."""
    if not _NEW or _STORE is None:
        return False
    import tempfile  # after the first paint (tempfile loads shutil and random)

    path = cache_file()
    try:
        for key, rules in list(_NEW.items()):
            _STORE[key] = pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL)
            del _NEW[key]
        if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".tui-css-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(_STORE, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except Exception:  # noqa: BLE001 - a cache that cannot be written only costs the next start its parse
        return False
    return True


class CachedStylesheet(Stylesheet):
    """Textual's Stylesheet whose parses are looked up in (and added to) the cache file first."""

    _digest_of: tuple[Any, str] | None = None

    def _variables_digest(self) -> str:
        if self._digest_of is None or self._digest_of[0] is not self._variables:
            text = "\n".join(f"{k}={v}" for k, v in sorted(self._variables.items()))
            self._digest_of = (self._variables, blake2b(text.encode(), digest_size=16).hexdigest())
        return self._digest_of[1]

    def _parse_rules(self, css: str, read_from: Any, is_default_rules: bool = False, tie_breaker: int = 0,
                     scope: str = "") -> list:
        key = (css, read_from, is_default_rules, tie_breaker, scope)   # Textual's in-process cache key
        stored_key = (*key, self._variables_digest())
        store = _store()
        if key not in self._parse_cache and stored_key in store:
            try:
                self._parse_cache[key] = pickle.loads(store[stored_key])
            except Exception:  # noqa: BLE001 - a bad entry: parse it again
                del store[stored_key]
        rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        if stored_key not in store:
            _NEW[stored_key] = rules
        return rules
