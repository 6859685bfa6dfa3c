"""A name a guarded import left undefined or None, read against what the log shows of its package (e-new14, issue 26).

Libraries and model code import optional dependencies under `try:` and go on without them (the shapes and their
sources: profiles/guarded_imports.py); the use site then raises `NameError: name 'N' is not defined` or
`TypeError: 'NoneType' object is not callable`. Which family follows from the package that defines N and what the
log shows of it (FAMILIES.md, version_check vs missing_package):
- the import of that package failed with `No module named ...` (often in a warning the library logged and went past)
  -> missing_package: install it;
- `cannot import name 'N'` (the package is there without N), or the package's installed release shown at another
  major than the one defining N (flash-attn 1.x for flash_attn_varlen_func) -> version_check;
- remote modeling code calling a transformers attention class its guarded import set to None (classes removed in
  transformers 4.48) -> version_check: the model code and the installed transformers are of different releases.
Pure: no torch; regexes over the exception line, its traceback and the log's texts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_tune.profiles import guarded_imports as gi

_NAME_ERROR = re.compile(r"\bNameError: name '(\w+)' is not defined")
_NONE_CALLED = re.compile(r"\bTypeError: 'NoneType' object is not callable\s*$")
_FRAME_FILE = re.compile(r'File "([^"]+)"|^\s*\[?((?:/|~/|[A-Za-z]:\\)\S+?\.py)\]?', re.M)
_TRANSFORMERS_CLASS = re.compile(gi.TRANSFORMERS_ATTENTION_CLASS)
_MODEL_FILE = re.compile(gi.MODEL_CODE_FILE)


def _spelled(pkg: str) -> str:
    """The package's name as logs write it (flash_attn, flash-attn, flash_attn_2_cuda is not it)."""
    return re.escape(pkg).replace("_", "[-_]")


def _statements(pre: str, n: int = 8) -> list[str]:
    """The last source lines the traceback printed (not its frame headers), newest last."""
    out = []
    for line in pre.splitlines()[-40:]:
        code = re.sub(r"^\s*(?:\[(?:rank|default)\d+\]:)?\s*(?:-*>\s*)?(?:\d+\s+)?", "", line)
        if code and not code.startswith("File ") and not set(code) <= set("^~ ") and "Traceback" not in code:
            out.append(code)
    return out[-n:]


def _last_file(pre: str) -> str:
    files = [m.group(1) or m.group(2) for m in _FRAME_FILE.finditer(pre[-6000:])]
    return files[-1] if files else ""


def _package_state(pkg: str, name: str, blob: str) -> str | None:
    """'missing' / 'other-release' / None (the log does not say) for the package that defines `name`."""
    p = _spelled(pkg)
    if re.search(gi.NOT_INSTALLED.format(p=p), blob):
        return "missing"
    major = gi.OPTIONAL_NAMES.get(name, (pkg, None))[1]
    if major is None:
        return None
    found = [int(g) for m in re.finditer(gi.INSTALLED_AT.format(p=p), blob) for g in m.groups() if g]
    if found and all(v != major for v in found):
        return "other-release"
    return None


def _logged_beside(name_file: str, blob: str) -> str | None:
    """The package whose import a logger of the raising module reported missing (`logging.getLogger(__name__)`:
    `... transformers_modules.chatglm2-6b.quantization - Failed to load cpm_kernels:No module named 'cpm_kernels'`
    for a NameError raised in .../chatglm2-6b/quantization.py)."""
    parts = name_file.replace("\\", "/").rsplit("/", 2)
    stem = re.sub(r"\.py$", "", parts[-1])
    if stem == "__init__" and len(parts) > 1:
        stem = parts[-2]   # a package's own logger is named after the package
    if not stem or stem in ("utils", "util", "common"):
        return None
    m = re.search(r"^[^\n]*(?<![\w-])" + re.escape(stem) + r"\b[^\n]*No module named '([\w.]+)'", blob, re.M)
    return m.group(1).split(".")[0] if m else None


def _answer(pkg: str, name: str, state: str) -> tuple[str, str]:
    if state == "missing":
        return "missing_package", (f"`{name}` comes from {pkg}, whose import failed because it is not installed (the "
                                   f"code imports it optionally and went on without it): pip install {pkg} (or turn "
                                   "off the option that needs it)")
    return "version_check", (f"`{name}` comes from {pkg}, but the installed {pkg} release does not define it: install "
                             f"the {pkg} release the code was written for (its requirements pin it)")


def family(line: str, pre: str, texts: Sequence[str] = ()) -> tuple[str, str] | None:
    """(family, fix) for a NameError / 'NoneType' not callable left by a guarded import, else None."""
    blob = "\n".join([*texts, pre])
    m = _NAME_ERROR.search(line)
    if m is not None:
        name = m.group(1)
        if re.search(r"cannot import name '" + re.escape(name) + r"'", blob):
            pkg = gi.OPTIONAL_NAMES.get(name, ("its package", None))[0]
            return _answer(pkg, name, "other-release")
        if name in gi.OPTIONAL_NAMES:
            pkg = gi.OPTIONAL_NAMES[name][0]
            state = _package_state(pkg, name, blob)
            return _answer(pkg, name, state) if state else None
        pkg2 = _logged_beside(_last_file(pre), blob)
        return _answer(pkg2, name, "missing") if pkg2 else None
    if not _NONE_CALLED.search(line):
        return None
    stmts = _statements(pre)
    called = [n for s in stmts[-3:] for n in re.findall(r"\b(\w+)\s*\(", s) if n in gi.OPTIONAL_NAMES]
    if called:
        pkg = gi.OPTIONAL_NAMES[called[-1]][0]
        state = _package_state(pkg, called[-1], blob)
        return _answer(pkg, called[-1], state) if state else None
    if any(_TRANSFORMERS_CLASS.search(s) for s in stmts[-3:]) and _MODEL_FILE.search(pre[-3000:]):
        return "version_check", ("the model's code calls a transformers attention class its guarded import set to "
                                 "None: the installed transformers no longer (or does not yet) have it (per-model "
                                 "FlashAttention2/SdpaAttention classes were removed in 4.48): install the transformers "
                                 "release the model card names")
    return None
