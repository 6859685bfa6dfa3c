"""Version skew a library states in its own words, or that a saved dataset carries (e-ver3, issue 26).

FAMILIES.md "Rule 1, refined": version_check when the log shows the installed components disagree - a stated
requirement, an ABI or runtime named twice, a name another release has. Two readings the catalogue's family rules
miss because another component raised them:
- a library's own gate sentence (profiles/release_gates.py): transformers refusing torch.load under torch 2.6, torch's
  cuDNN check, protobuf's runtime check, datasets 4.0's removal of loading scripts;
- a saved dataset whose feature type the installed datasets does not declare (features.py generate_from_dict:
  `ValueError: Feature type 'List' not found. Available feature types: [...]`, before 2.20 `KeyError: 'List'` in
  that frame), read against each release's feature types (profiles/dataset_feature_types.py, generated from the
  release tags by tools/build_dataset_feature_types.py).
"""
from __future__ import annotations

import re
from functools import lru_cache

_FEATURE_REFUSAL = re.compile(r"Feature type '(\w+)' not found\. Available feature types")
_FEATURE_KEYERROR = re.compile(r"KeyError: '(\w+)'[ \t]*$", re.M)
_GENERATE_FRAME = re.compile(r"datasets[/\\]features[/\\]features\.py\"?, line \d+, in generate_from_dict")


@lru_cache(maxsize=1)
def _library_attr() -> re.Pattern[str]:
    from rocm_tune.profiles.release_gates import LIBRARY_CLASS_SUFFIXES
    return re.compile(r"AttributeError: '(?P<cls>(?:[A-Z][A-Za-z0-9_]*?)?(?:" + "|".join(LIBRARY_CLASS_SUFFIXES) +
                      r"))' object has no attribute '(?P<attr>\w+)'")


@lru_cache(maxsize=1)
def _gates() -> tuple[tuple[re.Pattern[str], str, str], ...]:
    from rocm_tune.profiles.release_gates import RELEASE_GATES
    return tuple((re.compile(rx), title, fix) for rx, title, fix, _src in RELEASE_GATES)


def _fill(template: str, m: re.Match[str]) -> str:
    groups = {k: re.sub(r"\s+", " ", v.strip()) for k, v in m.groupdict().items() if v is not None}
    return template.format(**groups)


def gate_reading(text: str) -> tuple[str, str] | None:
    """(title, fix) when the line is a library's statement that the installed release is not the one needed."""
    for rx, title, fix in _gates():
        if (m := rx.search(text)) is not None:
            return _fill(title, m), _fill(fix, m)
    return None


def feature_type_skew(text: str, pre: str) -> tuple[str, str] | None:
    """(title, fix) when datasets refuses a saved feature type that another datasets release declares."""
    from rocm_tune.profiles.dataset_feature_types import FEATURE_RELEASES, FEATURE_TYPES
    m = _FEATURE_REFUSAL.search(text)
    if m is None:
        m = _FEATURE_KEYERROR.search(text)
        if m is None or not _GENERATE_FRAME.search(pre[-4000:]):
            return None
    name = m.group(1)
    if name not in FEATURE_TYPES:
        return None                     # no release declares it: a hand-written dataset_info, not a release
    first, last = FEATURE_TYPES[name]
    if last == FEATURE_RELEASES[-1]:
        return (f"the dataset was saved by datasets >= {first} (its features use the type {name}) and the installed "
                f"datasets predates {first}: it cannot read that feature type",
                f"upgrade datasets to >= {first} (`pip install -U 'datasets>={first}'`, within what the runner "
                "accepts), or save the dataset again with the installed release (or load its raw files)")
    return (f"the dataset's features use the type {name}, which datasets {first} to {last} declare and the installed "
            "datasets does not: the dataset was saved by an older datasets",
            f"install datasets <= {last} to read it, or save it again with that release in the installed one's "
            "feature types")


def library_attribute(text: str) -> tuple[str, str] | None:
    """(title, fix) for an attribute missing on an object of a library's public class (profiles/release_gates.py
    LIBRARY_CLASS_SUFFIXES): code written for another release of that library."""
    m = _library_attr().search(text)
    if m is None:
        return None
    cls, attr = m.group("cls"), m.group("attr")
    return (f"the code uses {cls}.{attr}, which the installed release of {cls}'s library does not have: the code (or "
            "the runner calling it) was written for another release, one that added or still has that attribute",
            f"install the library release the code or runner pins (its requirements; the library's changelog names "
            f"the release that added or removed {attr}), `pip show` names the installed one; or change the code to the "
            "installed release's API")


# Python's SyntaxError names the file it could not compile on the `File "...", line N` line before the caret; under
# site-packages/dist-packages that is an installed release written for a newer Python than the interpreter
_SYNTAX = re.compile(r"^(?:\[\w+\d*\]:\s*)?SyntaxError: ", re.M)
_INSTALLED_FILE = re.compile(r'File "[^"]*[/\\](?:site|dist)-packages[/\\](?P<pkg>[A-Za-z_]\w*)[/\\][^"]*", line \d+\s*$',
                             re.M)


def installed_syntax_error(text: str, pre: str) -> tuple[str, str] | None:
    """(title, fix) for a SyntaxError raised while importing an installed package's module (Python's compiler
    names the file last before the message): that release needs a newer Python than the interpreter."""
    if _SYNTAX.search(text) is None:
        return None
    files = list(_INSTALLED_FILE.finditer(pre[-800:]))
    if not files or pre[-800:][files[-1].end():].count('File "') > 0:
        return None
    pkg = files[-1].group("pkg")
    return (f"the installed {pkg} uses Python syntax this interpreter does not have: that {pkg} release was written "
            "for a newer Python than the one running it",
            f"run under the Python the {pkg} release requires (its python_requires; `python --version` names the one "
            f"running), or install the {pkg} release that still supports this Python")


def release_reading(text: str, pre: str) -> tuple[str, str] | None:
    """The first of the readings above that the root's line (and the traceback before it) shows."""
    return gate_reading(text) or feature_type_skew(text, pre) or installed_syntax_error(text, pre)
