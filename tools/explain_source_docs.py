"""e-lex (issue 26): the tools' own messages as labelled documents for explain's fallback lexicon.

tools/build_explain_lexicon.py learns per-family word counts from the fit cases; this module gives it, per SOURCE, the
messages rocm-tune's source tables already hold - each a line as the tool prints it, its \\x00 holes (where the code
puts a value) dropped - with the family the catalogue's border rules (benchmarks/corpus/FAMILIES.md) give it:

- refusals: profiles/runner_refusals.py, the runners' argument checks (ms-swift, LLaMA-Factory, transformers, TRL,
  accelerate, DeepSpeed) -> the family explain's own reading of such a refusal gives (diagnose._runner_refusal:
  config_error, or version_check / missing_package / tokenizer_template where the words say so)
- swift: profiles/swift_raises.py, ms-swift's raise sites with the family each was labelled
- warnings: profiles/library_warnings.py WARNINGS, the warnings the libraries print and go on after ->
  benign_warning (a row carrying one of CAUSES' words is left out: a cause in FAMILIES.md terms)
- skew: names and values of one release only (profiles/removed_names.py, enum_values.py, deepspeed_config_keys.py)
  as the refusal that meets them prints them -> version_check

Left out (e-lex): the GPU runtimes' status names and texts (runtime_errors.py, blas_status.py, amd_errors.py) as a
source. CV chose them (weight 1), but explain's last reading (diagnose/last_reading.py) already reads every such name
with the log's ROCm/NVIDIA context, AFTER the fallback: learnt by the lexicon they only pre-empt it, and wrongly where
the vendors share words (`CUBLAS_STATUS_NOT_INITIALIZED` read as hip_error, 170 HIP/ROCm statuses to 8 cuBLAS ones).

A source's documents are tokenized once (resemble.tokens) into per-family word counts (`source_counts`); the builder
adds them, times the weight its cross-validation chose for that source, to the fit cases' counts.
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from functools import lru_cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from rocm_tune.core.runs.diagnose import resemble  # noqa: E402

SOURCES = ("refusals", "swift", "warnings", "skew")
HOLE = "\x00"


def _fill(template: str, value: str = " ") -> str:
    """A template's text with its holes dropped (a value's words are the user's, not the tool's)."""
    return " ".join(template.replace(HOLE, value).split())


def refusal_docs() -> list[tuple[str, str]]:
    from rocm_tune.core.runs.diagnose.diagnose import _runner_refusal
    from rocm_tune.profiles.runner_refusals import REFUSALS

    out = []
    for _runner, _path, _fn, exc, template in REFUSALS:
        got = _runner_refusal(f"{exc}: {_fill(template, 'x')}")
        out.append((got[0] if got else "config_error", f"{exc}: {_fill(template)}"))
    return out


def swift_docs() -> list[tuple[str, str]]:
    from rocm_tune.profiles.swift_raises import SWIFT_RAISES

    return [(family, f"{exc}: {_fill(template)}") for family, _ref, _path, exc, template in SWIFT_RAISES]


def warning_docs() -> list[tuple[str, str]]:
    from rocm_tune.profiles.library_warnings import CAUSES, WARNINGS

    return [("benign_warning", _fill(t)) for _lib, _path, t in WARNINGS
            if not any(word.lower() in t.lower() for word, _ in CAUSES)]


def skew_docs() -> list[tuple[str, str]]:
    from rocm_tune.profiles.deepspeed_config_keys import DEEPSPEED_CONFIG_KEYS
    from rocm_tune.profiles.enum_values import ENUM_RELEASES, ENUM_VALUES
    from rocm_tune.profiles.removed_names import REMOVED_NAMES

    out = []
    for lib, shape, name, callee, *_rest in REMOVED_NAMES:
        if shape == "import":
            out.append(("version_check", f"ImportError: cannot import name '{name}' from '{lib}'"))
        else:
            who = (re.findall(r"[A-Z][A-Za-z]+", callee) or ["Trainer"])[-1]   # the callee's class name
            out.append(("version_check", f"TypeError: {who}.__init__() got an unexpected keyword argument '{name}'"))
    for cls, (lib, spans) in sorted(ENUM_VALUES.items()):
        rel = ENUM_RELEASES[lib]
        for span, values in sorted(spans.items()):
            first, last = span.split("..")
            if (first, last) == (rel[0], rel[-1]):
                continue   # a value every release read declares: refusing it is a typo, not skew
            out.extend(("version_check", f"ValueError: '{v}' is not a valid {cls}") for v in values.split())
    oldest, newest, spans, classes = DEEPSPEED_CONFIG_KEYS
    for span, keys in sorted(spans.items()):
        if span == f"{oldest}..{newest}":
            continue
        out.extend(("version_check", f"pydantic_core._pydantic_core.ValidationError: 1 validation error for "
                                     f"DeepSpeedZeroConfig {k} Extra inputs are not permitted") for k in keys.split())
    return out


_DOCS = {"refusals": refusal_docs, "swift": swift_docs, "warnings": warning_docs, "skew": skew_docs}


@lru_cache(maxsize=None)
def source_docs(source: str) -> tuple[tuple[str, str], ...]:
    """(family, line) of one source's documents, in the table's order."""
    return tuple(_DOCS[source]())


@lru_cache(maxsize=None)
def source_counts(source: str, features: str = "words") -> dict[str, dict[str, int]]:
    """Per family, the word counts of one source's documents (made once)."""
    counts: dict[str, Counter] = {}
    for family, line in source_docs(source):
        counts.setdefault(family, Counter()).update(resemble.tokens(line, features))
    return {f: dict(sorted(c.items())) for f, c in sorted(counts.items())}
