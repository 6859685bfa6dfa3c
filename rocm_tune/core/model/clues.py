"""The model the user names elsewhere in the files, when the model field names none (issue 26; pure).

A config whose ``model_name_or_path`` is missing, a placeholder (``PATH_TO_MODEL``, ``/path/to/model``), a shell
variable no file sets (``$MODEL_PATH``) or a local folder whose name says no size still names its model
somewhere: the LLaMA-Factory ``template`` (a family), the run's names (``output_dir: saves/qwen2_vl-72b/full``,
``run_name``, ``hub_model_id`` ...), the config's own file name, a comment, a launch script's variables and
``echo`` lines, the dataset's name. ``find_clue`` reads them in that fixed order (profiles/model_clues.py
``CLUE_ORDER``): the first source that names a family and a size matched to a preset gives the model (an
assumption, said with its source); a source naming several models of different sizes is a question, not a guess.
A size is only ever a size token (``7B``, ``0.5B``, ``30B-A3B``, ``8x7B``): a date, a version or a step count
(``2507``, ``v2``, ``checkpoint-500``) is never read as one (core/model/names.py)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from rocm_tune.core.model.names import _tokens, parse_name
from rocm_tune.profiles.model_clues import (
    DOWNLOAD_PATTERNS,
    LF_TEMPLATE_MODELS,
    PLACEHOLDERS,
    RUN_NAME_KEYS,
    TOKENIZER_KEYS,
)

__all__ = ["Clue", "find_clue", "is_placeholder", "models_named", "preset_of", "template_family"]

_PLACEHOLDER = re.compile("|".join(f"(?:{p})" for p in PLACEHOLDERS), re.IGNORECASE)
_SIZE_TOKEN = re.compile(r"^(?:\d+(?:\.\d+)?[bm]|\d+x\d+(?:\.\d+)?b|\d+b\d)$")
_ACTIVE_TOKEN = re.compile(r"^a\d+(?:\.\d+)?b$")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_ASSIGN = re.compile(r"^\s*(?:export\s+|local\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)=(.+)$")
_ECHO = re.compile(r"^\s*(?:echo|printf)\s+(.+)$")
_DOWNLOAD = re.compile("|".join(f"(?:{p})" for p in DOWNLOAD_PATTERNS))
# a run-name key written in a config file given (YAML `key: value`, JSON `"key": "value"`, TOML `key = "value"`), at
# any nesting level: a program's own config (`wandb: {run_name: ...}`) that no reader maps into the settings
_RUN_NAME_LINE = re.compile(r"""^\s*["']?(%s)["']?\s*[:=]\s*["']?([^"'#\s,]+)""" % "|".join(RUN_NAME_KEYS))
_CONFIG_FILE = re.compile(r"\.(?:ya?ml|json|toml)$", re.IGNORECASE)
_SAME_SIZE = 0.02      # two names whose presets differ by less than this in parameters name one size


@dataclass(frozen=True)
class Clue:
    """What the files say of the model. ``spec``: the preset a family-and-size clue names (else None);
    ``family``: the names of the sizes a family-only clue spans (template); ``ambiguous``: several sizes named."""

    source: str
    spec: Any = None
    named: str = ""
    family: tuple[str, ...] = ()
    ambiguous: tuple[str, ...] = ()


def is_placeholder(ref: object) -> bool:
    """A model field that names no model: an example's placeholder (PATH_TO_MODEL, /path/to/model, <model>)."""
    return isinstance(ref, str) and bool(_PLACEHOLDER.fullmatch(ref.strip().strip("\"'")))


def _match(cand: str):
    from rocm_tune.core.model.architecture import match_preset

    parts = parse_name(cand)
    if parts.series is None or parts.size_b is None or parts.quant == "GGUF":
        return None
    spec, _why = match_preset(parts)
    return spec


def preset_of(name: str):
    """The preset a registry name (``Qwen2-VL-72B-Instruct``) designates, or None."""
    return _match(name)


def models_named(text: str) -> list[tuple[str, Any]]:
    """(the words, the preset) of every model a free text names by family and size, in order of appearance."""
    out: list[tuple[str, Any]] = []
    words = [os.path.splitext(w)[0] if re.search(r"\.(?:py|sh|ya?ml|json|toml|cfg)$", w) else w
             for w in _WORD.findall(text.replace("/", " "))]
    toks = [t for t in _tokens(" ".join(words)) if t]
    for j, t in enumerate(toks):
        if not _SIZE_TOKEN.match(t):
            continue
        end = j + 2 if j + 1 < len(toks) and _ACTIVE_TOKEN.match(toks[j + 1]) else j + 1
        for i in range(max(0, j - 4), j):
            cand = "-".join(toks[i:end])
            spec = _match(cand)
            if spec is not None:
                out.append((cand, spec))
                break
    return out


def template_family(job) -> Clue | None:
    """A LLaMA-Factory template -> the family (every size its registry lists), never one size."""
    s = job.settings.get("template")
    if job.runner != "llamafactory" or s is None or str(s.value).strip() not in LF_TEMPLATE_MODELS:
        return None
    return Clue(source=f"template: {s.value}", family=LF_TEMPLATE_MODELS[str(s.value).strip()])


def _sources(job):
    """(source, text) in the fixed order: the tokenizer's name, downloads, run names, file names, comments, script variables and echo lines,
    dataset names (the template is read apart: a family, no size)."""
    for key in TOKENIZER_KEYS:
        s = job.settings.get(key)
        if s is not None and isinstance(s.value, str):
            yield f"{s.native or key}: {s.value}", s.value
    yield from _downloads(job)
    for key in RUN_NAME_KEYS:
        s = job.settings.get(key)
        if s is not None and isinstance(s.value, str):
            yield f"{s.native or key}: {s.value}", s.value
    for p, text in job.files.items():
        if not _CONFIG_FILE.search(p):
            continue
        for no, line in enumerate(text.splitlines(), 1):
            m = _RUN_NAME_LINE.match(line)
            if m and m.group(1) not in job.settings:
                yield f"{m.group(1)}: {m.group(2)} ({os.path.basename(p)}:{no})", m.group(2)
    for p in job.files:
        yield f"the file name {os.path.basename(p)}", os.path.basename(p)
    for p, text in job.files.items():
        for no, line in enumerate(text.splitlines(), 1):
            if line.strip().startswith("#") and not line.strip().startswith("#!"):
                yield f"a comment ({os.path.basename(p)}:{no}: {line.strip()[:80]})", line.strip().lstrip("#")
    for p, text in job.files.items():
        if job.formats.get(p) != "script":
            continue
        for no, line in enumerate(text.splitlines(), 1):
            m = _ASSIGN.match(line) or _ECHO.match(line)
            if m:
                yield f"{os.path.basename(p)}:{no}: {line.strip()[:80]}", m.group(m.lastindex or 1)
    s = job.settings.get("dataset")
    if s is not None and isinstance(s.value, str):
        yield f"dataset: {s.value}", s.value


def _downloads(job):
    """(source, repo id) of every download of a model the files hold (profiles/model_clues.py DOWNLOAD_PATTERNS):
    all of them form one source, so two downloads of different sizes are a question, not a guess."""
    found = []
    for p, text in job.files.items():
        for no, line in enumerate(text.splitlines(), 1):
            if re.search(r"repo[-_]type\W+dataset", line):        # a dataset's download, not the model's
                continue
            for m in _DOWNLOAD.finditer(line):
                repo = next(g for g in m.groups() if g)
                found.append((f"{os.path.basename(p)}:{no}", repo))
    if found:
        where = ", ".join(w for w, _ in found[:3])
        yield f"a download of the model ({where}: {', '.join(r for _, r in found[:3])})", " ".join(r for _, r in found)


def _in_family(spec, family: Clue | None) -> bool:
    if family is None:
        return True
    series = {parse_name(n).series for n in family.family}
    return any(parse_name(k).series in series for k in (spec.name, *(spec.aliases or ()), spec.hub_id or ""))


def find_clue(job) -> Clue | None:
    """The model the files name outside the model field (see the module doc), or None when none does."""
    family = template_family(job)
    for source, text in _sources(job):
        found = [(w, s) for w, s in models_named(text) if _in_family(s, family)]
        if not found:
            continue
        groups: list[tuple[str, Any]] = []
        for w, s in found:
            if not any(abs(s.params.total - g.params.total) <= _SAME_SIZE * g.params.total for _, g in groups):
                groups.append((w, s))
        if len(groups) > 1:
            return Clue(source=source, ambiguous=tuple(g.name for _, g in groups))
        return Clue(source=source, spec=groups[0][1], named=groups[0][0])
    return family
