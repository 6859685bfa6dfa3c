"""ms-swift's own raise sites outside its argument classes, recognised by their words (e-swift3, issue 26).

rocm_tune/profiles/swift_raises.py (made by tools/build_swift_raises.py from ms-swift 2.x-4.x's template, dataset,
model, trainers, megatron, infer, plugin, hub and utils code) lists each `raise SomeError(msg)` and `assert cond,
msg` with a hole where the f-string, `.format` or `%` puts a value, and the family of FAMILIES.md its words and its
file give. `raise_of(line)` answers (family, file) when an exception line's message is one of them in any spelling
the code produces (a KeyError's quotes, a rank prefix, elastic's summary), also when the traceback's frames are not
in the log. Pure; the table is compiled on first use.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rocm_tune.core.runs.diagnose.refusals import _pattern

# a log of ms-swift: its logger's records, its installed package's frames, its CLI or launcher
SWIFT_MARK = re.compile(r"\[(?:INFO|WARNING|ERROR|DEBUG):swift\]|[/\\]swift[/\\](?:llm|cli|trainers|template|dataset|model|"
                        r"megatron|infer_engine|rlhf_trainers|pipelines|tuners|utils|plugin|ray)[/\\]|"
                        r"\bswift (?:sft|pt|rlhf|infer|export|deploy|sample|eval|app|web-ui)\b|\bms[-_]swift\b|"
                        r"\bmegatron (?:sft|pt|rlhf|export)\b")
_MESSAGE = re.compile(r"(?:^|[\s:\]])(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception)): (.+)$")

# what to do, by family, for a message ms-swift raises
FIXES = {
    "dataset_error": "the rows or files of the dataset do not fit what ms-swift's dataset/template code expects for "
                     "this model (the message names the field, media or length): fix those rows, or check the "
                     "dataset's format against the model's template in ms-swift's docs",
    "version_check": "ms-swift refused the installed release of a package it drives (the message names it and the "
                     "release it needs): install that release, or the ms-swift release made for the installed one",
    "missing_package": "ms-swift needs a package that is not installed for the feature the run turned on: install the "
                       "package the message names (or turn the feature off)",
    "model_download": "ms-swift could not fetch the model from the hub: check the model id, the hub token "
                      "(--hub_token / MODELSCOPE_API_TOKEN) and the network, or point --model at a local copy",
    "unrecognized_model_type_adapter": "the installed ms-swift does not know this model type: pass a registered "
                                       "--model_type (swift's supported-models list) or the ms-swift release that "
                                       "adds the model",
    "gpu_oom": "ms-swift ran out of GPU memory: lower the batch size or max_length, turn on gradient checkpointing, "
               "ZeRO or LoRA",
    "config_error": "ms-swift refused the combination of model, options and inputs the run set up (the message names "
                    "what it cannot do): change the setting it names",
}


def _short(template: str) -> tuple[str, re.Pattern]:
    """A short dump (`messages: {}`): its fixed start, then anything."""
    first = template.split("\n", 1)[0]
    return first.split("\x00")[0], re.compile(".*".join(re.escape(p) for p in first.split("\x00")))


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[str, re.Pattern, str, str, str], ...]:
    """(fixed piece, pattern, family, file, exception class that must match or '')."""
    from rocm_tune.profiles.swift_raises import SWIFT_RAISES

    out = []
    for family, _ref, path, exc, template in SWIFT_RAISES:
        got = _pattern(template)
        if got is not None:
            out.append((got[0], got[1], family, path, ""))
        else:
            out.append((*_short(template), family, path, exc))
    return tuple(out)


def raise_of(line: str) -> tuple[str, str] | None:
    """(family, file) of the ms-swift raise site whose message the exception line carries, else None."""
    m = _MESSAGE.search(line)
    if m is None:
        return None
    msg = " ".join(m.group(2).split())
    if m.group(1) == "KeyError" and len(msg) > 1 and msg[0] == msg[-1] and msg[0] in "'\"":
        msg = msg[1:-1]
    for piece, rx, family, path, exc in _table():
        if piece in msg and rx.match(msg) and exc in ("", m.group(1)):
            return family, path
    return None
