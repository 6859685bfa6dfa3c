"""A name a library (or Python) removed or renamed between releases, named by the failing line (e-skew2, issue 26).

FAMILIES.md, "Rule 1, refined": an import of a name that moved, a keyword the installed release no longer takes ->
version_check. The engine's rules already read these shapes as two releases that do not fit; this module names which
release removed the name and what replaced it (profiles/removed_names.py, read from the libraries' sources), and
reads Python's own removals (`No module named 'distutils'` under 3.12) that look like a package not installed.
"""
from __future__ import annotations

import re

from rocm_tune.profiles.removed_names import PYTHON_REMOVED_MODULES, REMOVED_NAMES

_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'|module '([\w.]+)' has no attribute '(\w+)'|"
                     r"No module named '([\w.]+)'")
_KWARG = re.compile(r"(?:\b([\w.]+?)(?:\.__init__)?\(\) )?got an unexpected keyword argument '(\w+)'")
_NO_MODULE = re.compile(r"No module named '(\w+)(?:\.[\w.]+)?'")


def removed_name(line: str) -> tuple[str, str] | None:
    """(title, fix) when the line fails on a name a library release removed (profiles/removed_names.py)."""
    imp, kw = _IMPORT.search(line), _KWARG.search(line)
    for lib, shape, name, callee, last, first_without, instead, _src in REMOVED_NAMES:
        if shape == "import" and imp:
            got = (imp.group(1), imp.group(2)) if imp.group(1) else (imp.group(4), imp.group(3)) if imp.group(4) \
                else (imp.group(5), imp.group(5))
            if not (got[0] == name and got[1].split(".")[0] == lib):
                continue
        elif shape == "kwarg" and kw:
            if kw.group(2) != name or not re.fullmatch(callee, (kw.group(1) or "").split(".")[-1] or "x"):
                continue
        else:
            continue
        what = name if shape == "import" else f"the keyword {name}="
        return (f"{lib} removed {what} ({last} has it, {first_without} does not): the code was written for an older "
                f"{lib} than the one installed",
                f"the installed {lib}'s replacement: {instead}; or install {lib} {last} (or the release of the "
                "calling package made for the installed one)")
    return None


def python_removed_module(line: str) -> tuple[str, str] | None:
    """(title, fix) for `No module named 'X'` where X is a standard-library module a Python release removed."""
    m = _NO_MODULE.search(line)
    if m is None or m.group(1) not in PYTHON_REMOVED_MODULES:
        return None
    mod, rel = m.group(1), PYTHON_REMOVED_MODULES[m.group(1)]
    shim = " (`pip install setuptools` brings a distutils shim)" if mod == "distutils" else ""
    return (f"Python {rel} removed the standard-library module {mod}: the package importing it predates the "
            "interpreter's release",
            f"install the release of the importing package that supports Python {rel}+{shim}, or run it under a "
            f"Python older than {rel}")
