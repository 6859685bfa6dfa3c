"""e-ver3 (issue 26): a Python traceback read by its anatomy (tables: profiles/traceback_anatomy.py).

Each frame belongs to an owner: an installed package (site-packages, dist-packages, an editable checkout), a model's
remote code (transformers_modules), the standard library, a launcher's entry point, or else the user's own script.
The frames that only pass a call on (torch's Module.__call__, decorators, hooks) are skipped to find the caller.

- `border_skew`: a call with another release's signature (CPython's unexpected keyword / positional count / missing
  argument / multiple values), a module attribute or import name that is not there, raised where an installed
  package's own code is the caller: the caller and the package it calls are from releases that do not fit
  (FAMILIES.md amended rule 1: an API changed between releases) -> version_check, naming the border.
- `anatomy_family`: where no rule read a generic exception: the library's own confession of a defect ("this should
  not happen, please open an issue") -> version_check; a sentence of the shapes the libraries use to refuse a user's
  value -> config_error; a Python internal-error type raised deep in a library (the last frame installed code, the
  user's script only at the bottom) -> version_check (a defect a later release fixes, FAMILIES.md amended rule 1).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rocm_tune.profiles import traceback_anatomy as tb

_INSTALLED = re.compile(tb.INSTALLED)
_REMOTE = re.compile(tb.REMOTE_CODE)
_GENERATED = re.compile(tb.GENERATED_CODE)
_STDLIB = re.compile(tb.STDLIB)
_EDITABLE = re.compile(r"[/\\](?:src[/\\])?(" + "|".join(tb.EDITABLE_PACKAGES) + r")[/\\][\w./\\-]+\.py$")
_ENTRY = re.compile(tb.ENTRY)
_DISPATCH = tuple(re.compile(rx) for rx in tb.DISPATCH_FRAMES)
_DRIFT = tuple(re.compile(rx, re.M) for rx in tb.DRIFT_SHAPES)
_CONFESSION = re.compile(tb.BUG_CONFESSIONS, re.I)
_VALIDATION = tuple(re.compile(rx, re.M) for rx in tb.VALIDATION_SHAPES)
_INTERNAL = re.compile(tb.INTERNAL_BUG)
_RELEASE_REASON = re.compile(tb.RELEASE_REASON)
_REFUSAL_TYPE = re.compile(tb.REFUSAL_TYPES)

INSTALLED_KINDS = ("library", "remote_code")


@dataclass(frozen=True)
class Frame:
    path: str
    function: str
    kind: str      # library | remote_code | stdlib | entry | user
    owner: str     # the package, "the model's remote code", the module, or the script's file name

    @property
    def installed(self) -> bool:
        return self.kind in INSTALLED_KINDS


def owner_of(path: str, function: str = "") -> Frame:
    """Who owns the frame at `path`."""
    p = path.replace("\\", "/")
    if m := _INSTALLED.search(p):
        return Frame(path, function, "library", m.group(1))
    if _REMOTE.search(p):
        return Frame(path, function, "remote_code", "the model's remote code (transformers_modules)")
    if _GENERATED.search(p):
        return Frame(path, function, "library", "unsloth")
    if _ENTRY.search(p):
        return Frame(path, function, "entry", p.rsplit("/", 1)[-1])
    if m := _STDLIB.search(p):
        return Frame(path, function, "stdlib", m.group(1) or p.rsplit("/", 1)[-1])
    if m := _EDITABLE.search(p):
        return Frame(path, function, "library", m.group(1))
    return Frame(path, function, "user", p.rsplit("/", 1)[-1])


def anatomy(frames: Sequence[tuple[str, str]]) -> list[Frame]:
    """The frames (path, function), oldest first, with their owners."""
    return [owner_of(p, fn) for p, fn in frames]


def caller(frames: Sequence[Frame]) -> Frame | None:
    """The last frame that is not one that only passes a call on (Module.__call__, decorators, hooks)."""
    for f in reversed(frames):
        where = f"{f.path.replace(chr(92), '/')} {f.function}"   # chr(92): a Windows path's backslash
        if not any(rx.search(where) for rx in _DISPATCH):
            return f
    return None


_MESSAGE = re.compile(r"(?:^|[\s:\])])(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt): (.*)$")


def message_of(line: str) -> str:
    """The exception's message, past a rank/worker prefix and the (qualified) class: '' without a class."""
    m = _MESSAGE.search(line)
    return m.group(1) if m else ""


def _poss(name: str) -> str:
    """`trl's`, `transformers'`."""
    return name + ("'" if name.endswith("s") else "'s")


def _file(f: Frame) -> str:
    return f.path.replace("\\", "/").rsplit("/", 1)[-1]


def _callee_package(name: str) -> str:
    return name.split(".", 1)[0]


def border_skew(frames: Sequence[Frame], line: str) -> tuple[str, str] | None:
    """version_check when installed code (the caller) calls another release's API: a signature drift or a module name
    that is not there, raised in the caller's frame; None otherwise (the user's own call is the catalogue's)."""
    who = caller(frames)
    if who is None or not who.installed:
        return None
    for rx in _DRIFT:
        m = rx.search(line)
        if m is None:
            continue
        callee = m.group(1)
        if rx.pattern.startswith(r"\bTypeError"):
            what = f"calls {callee}() with a signature the installed release of its package does not have"
        else:
            pkg = _callee_package(callee)
            if pkg == who.owner:
                return None   # a package's own module: the catalogue's rules for a partial install decide
            what = f"uses a name of {pkg} ({callee}) that the installed {pkg} release does not have"
        return "version_check", (f"{_poss(who.owner)} code ({_file(who)} {who.function}) {what}: {who.owner} and "
                                 "the package it calls are from releases that do not fit; install the versions "
                                 f"{who.owner} pins (its requirements), or the {who.owner} release made for the "
                                 "installed one")
    return None


def release_refusal(frames: Sequence[Frame], line: str) -> tuple[str, str] | None:
    """version_check when installed code refuses and its message gives the installed release as the reason."""
    msg = message_of(line)
    lib = next((f for f in reversed(frames) if f.installed), None)
    if not msg or lib is None or not _RELEASE_REASON.search(msg):
        return None
    return "version_check", (f"{lib.owner} refused this because of an installed release (its message says so): "
                             "install the release the message asks for (usually the latest), or the one the runner "
                             "pins")


def _validation(msg: str) -> bool:
    return any(rx.search(msg) for rx in _VALIDATION)


def anatomy_family(frames: Sequence[Frame], line: str) -> tuple[str, str] | None:
    """(family, fix) for a generic exception no rule read, from where it was raised and its message's shape."""
    msg = message_of(line)
    last = frames[-1] if frames else None
    lib = next((f for f in reversed(frames) if f.installed), None)
    if msg and _CONFESSION.search(msg) and lib is not None:
        return "version_check", (f"{lib.owner} says this is a defect of its own (it should not happen): install the "
                                 f"{lib.owner} release that fixes it (its issue tracker names it; usually the latest), "
                                 "or the release the runner pins")
    if (released := release_refusal(frames, line)) is not None:
        return released
    if msg and _REFUSAL_TYPE.search(line) and _validation(msg):
        who = f"{lib.owner} " if lib is not None else "the code "
        return "config_error", (f"{who}refused a value of the run's settings (the message names it and what it must "
                                "be): change that setting or the combination it rejects")
    if last is not None and last.installed and _INTERNAL.search(line) and not _user_value(frames, line):
        return "version_check", (f"{_poss(last.owner)} own code failed ({_file(last)} {last.function}) with no value "
                                 f"of the run's in the message: a defect of the installed {last.owner} release (or of "
                                 f"the package it calls); install the {last.owner} release that fixes it (its issue "
                                 "tracker; usually the latest) or the one the runner pins")
    return None


_USER_WORDS = re.compile(r"\b(?:args|cfg|config|self\.args|dataset|data|sample|example|column|input_ids|labels|"
                         r"messages|prompt|text)\b|['\"](?:text|messages|input_ids|labels|prompt|conversations|"
                         r"instruction|output|train|validation|test)['\"]")


_LOADING = re.compile(r"load|restore|resume|checkpoint|state_dict", re.I)
_PARAM_NAME = re.compile(r"'[\w.]+\.(?:weight|bias|\w*scales?|qweight|qzeros|g_idx|inv_freq|\w*_proj)'")


def _user_value(frames: Sequence[Frame], line: str) -> bool:
    """The message names the user's data or settings, or the user's own script raised it; or the library was
    loading files (a checkpoint's key or a parameter's name missing is the files', not only the release's)."""
    if _USER_WORDS.search(line) or _PARAM_NAME.search(line):
        return True
    return bool(frames) and (frames[-1].kind == "user" or bool(_LOADING.search(frames[-1].function)))
