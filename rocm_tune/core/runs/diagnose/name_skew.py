"""A name a library (or Python) removed or renamed between releases, named by the failing line (e-skew2, issue 26).

FAMILIES.md, "Rule 1, refined": an import of a name that moved, a keyword the installed release no longer takes ->
version_check. The engine's rules already read these shapes as two releases that do not fit; this module names which
release removed the name and what replaced it (profiles/removed_names.py, read from the libraries' sources), and
reads Python's own removals (`No module named 'distutils'` under 3.12) that look like a package not installed.
"""
from __future__ import annotations

import re

from rocm_tune.profiles.removed_names import ADDED_KWARGS, PYTHON_REMOVED_MODULES, REMOVED_NAMES

_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'|module '([\w.]+)' has no attribute '(\w+)'|"
                     r"No module named '([\w.]+)'")
_KWARG = re.compile(r"(?:\b([\w.]+?)(?:\.__init__)?\(\) )?got an unexpected keyword argument '(\w+)'|"
                    r"\bUnexpected keyword argument '(\w+)'")   # e-tf8: msgspec.Struct's (vLLM's SamplingParams)
# e-tf8: an attribute looked up on an instance or a class (`'DynamicCache' object has no attribute 'get_max_length'`)
_ATTR = re.compile(r"(?:'(\w+)' object|type object '(\w+)') has no attribute '(\w+)'")
_NO_MODULE = re.compile(r"No module named '(\w+)(?:\.[\w.]+)?'")


def _import_hit(imp: re.Match[str] | None, name: str, lib: str) -> bool:
    if imp is None:
        return False
    if imp.group(5):    # `No module named 'a.b.c'`: the removed module or one below it
        mod = imp.group(5)
        return name.split(".")[0] == lib and "." in name and (mod == name or mod.startswith(name + "."))
    got = (imp.group(1), imp.group(2)) if imp.group(1) else (imp.group(4), imp.group(3))
    return got[0] == name and got[1].split(".")[0] == lib


def _kwarg_hit(kw: re.Match[str] | None, name: str, callee: str) -> bool:
    if kw is None or (kw.group(2) or kw.group(3)) != name:
        return False
    # msgspec's message names no callee: the row's callee pattern must accept "" (e-tf8)
    got = "" if kw.group(3) else (kw.group(1) or "").split(".")[-1] or "x"
    return re.fullmatch(callee, got) is not None


def removed_name(line: str) -> tuple[str, str] | None:
    """(title, fix) when the line fails on a name a library release removed (profiles/removed_names.py)."""
    imp, kw, attr = _IMPORT.search(line), _KWARG.search(line), _ATTR.search(line)
    for lib, shape, name, callee, last, first_without, instead, _src in REMOVED_NAMES:
        if not (shape == "import" and _import_hit(imp, name, lib) or shape == "kwarg" and _kwarg_hit(kw, name, callee)
                or shape == "attr" and attr is not None and attr.group(3) == name and
                re.fullmatch(callee, attr.group(1) or attr.group(2)) is not None):
            continue
        what = name if shape == "import" else f"the keyword {name}=" if shape == "kwarg" else f"the attribute {name}"
        return (f"{lib} removed {what} ({last} has it, {first_without} does not): the code was written for an older "
                f"{lib} than the one installed",
                f"the installed {lib}'s replacement: {instead}; or install {lib} {last} (or the release of the "
                "calling package made for the installed one)")
    return None


def added_kwarg(line: str) -> tuple[str, str] | None:
    """(title, fix) when the line fails on a keyword a library added in a later release than the one installed
    (profiles/removed_names.py ADDED_KWARGS): the calling code was written for the newer release."""
    kw = _KWARG.search(line)
    if kw is None:
        return None
    callee = (kw.group(1) or "").split(".")[-1]
    for lib, rx, name, first, _src in ADDED_KWARGS:
        if kw.group(2) == name and callee and re.fullmatch(rx, callee):
            return (f"{callee}() takes {name}= from {lib} {first} on: the calling code was written for a newer "
                    f"{lib} than the one installed",
                    f"install {lib} >= {first} built for the installed torch/ROCm (on ROCm the fork's build must be "
                    f"that recent too), or the release of the calling package made for the installed {lib}")
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


def _release_spans(lib: str) -> tuple[tuple[str, ...], dict[str, str]] | None:
    from rocm_tune.profiles.release_names import RELEASE_NAMES     # generated: tools/build_added_names.py
    if lib not in RELEASE_NAMES:
        return None
    rels, spans = RELEASE_NAMES[lib]
    return rels, {n: s for s, names in spans.items() for n in names.split()}


def release_name(line: str) -> tuple[str, str] | None:
    """(title, fix) when the line fails to import a name of a library's package (`cannot import name 'X' from 'lib'`,
    `module 'lib' has no attribute 'X'`) that some but not every release of it exports (profiles/release_names.py,
    e-ver3): the release that added it, or the last that had it."""
    imp = _IMPORT.search(line)
    if imp is None or imp.group(5):
        return None
    name, lib = (imp.group(1), imp.group(2)) if imp.group(1) else (imp.group(4), imp.group(3))
    got = _release_spans(lib)
    if got is None or name not in got[1]:
        return None
    rels, span = got[0], got[1][name].split("..")
    first, last = span[0].lstrip("v"), span[1].lstrip("v")
    if span[1] == rels[-1] and span[0] != rels[0]:
        return (f"{name} is exported by {lib} {first} and later: the code was written for a newer {lib} than the one "
                "installed", f"upgrade {lib} to >= {first} (`pip install -U '{lib}>={first}'`, within the range the "
                f"runner accepts), or use the release of the calling code made for the installed {lib}")
    if span[1] != rels[-1]:
        return (f"{name} was exported by {lib} {first} to {last} and removed later: the code was written for an older "
                f"{lib} than the one installed", f"install {lib} <= {last} (`pip install '{lib}<={last}'`), or the "
                f"release of the calling code made for the installed {lib} (its changelog names the replacement)")
    return None


# e-gen8: torchtune's config/_utils.py _get_component_from_path refusing a `_component_` path: 0.1-0.6 spell
# `Error loading '<path>':\n<repr of the ImportError/AttributeError>\nAre you sure that '<part>' is ...`, later
# releases `Module '<module>' has no attribute '<name>'.` / `Could not import module '<module>': ...`
_COMPONENT = re.compile(r"InstantiationError: (?:Error loading '(torchtune(?:\.\w+)+)':(?=[^\n]*\n[^\n]*(?:Module"
                        r"NotFoundError|AttributeError|ImportError)\()|Module '(torchtune(?:\.\w+)*)' has no attribute "
                        r"'(\w+)'|Could not import module '(torchtune(?:\.\w+)+)')")


def _component_span(path: str) -> tuple[str, str, str] | None:
    """(module, name, "FIRST..LAST") for the first part of a dotted torchtune path that a release's package has, the
    deepest known package first; None when no package of the path is known."""
    from rocm_tune.profiles.component_names import COMPONENT_NAMES   # generated: tools/build_component_names.py
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module, name = ".".join(parts[:i]), parts[i]
        if module in COMPONENT_NAMES:
            spans = {n: s for s, names in COMPONENT_NAMES[module].items() for n in names.split()}
            return module, name, spans.get(name, "")
    return None


def component_name(text: str) -> tuple[bool, str, str] | None:
    """(a release has it, title, fix) when torchtune refuses a config's `_component_` path: version_check when the
    name is in some torchtune release (the recipe was written for that one), the run's settings when none has it."""
    m = _COMPONENT.search(text)
    if m is None:
        return None
    path = m.group(1) or m.group(4) or f"{m.group(2)}.{m.group(3)}"
    got = _component_span(path)
    if got is None:
        return None
    module, name, span = got
    if not span:
        return (False, f"no torchtune release has {module}.{name}: the config's _component_ path is misspelt",
                f"correct the path in the config (the names {module} has are in its __init__.py / the recipe's "
                "docs), or `tune cp` the installed release's config and edit that")
    first, last = span.split("..")
    when = f"{first} to {last}" if last != "main" else f"{first} and later" if first != "main" else \
        "the repository's main only (after the last release)"
    return (True, f"{module}.{name} is in torchtune {when}, not in the installed release: the config was written for "
            "another torchtune release",
            ("install torchtune from its repository (`pip install git+https://github.com/pytorch/torchtune`)"
             if first == "main" else f"install a torchtune release that has it ({first}" +
             (f" to {last})" if last != "main" else " or later)")) +
            ", or `tune cp` the installed release's own config for the recipe")
