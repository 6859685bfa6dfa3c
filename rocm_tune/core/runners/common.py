"""What every reader returns: settings with where they were written, and findings (pure)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from rocm_tune.core import codes as _codes
from rocm_tune.core.errors import UserError
from rocm_tune.core.files import load_yaml


@dataclass
class Finding:
    code: str            # stable kebab-case code of the one registry (core/codes.py, README "## Codes")
    severity: str        # error | warning | info: always the registry's for a registered code
    file: str | None
    line: int | None
    message: str
    fix: str | None = None

    def __post_init__(self) -> None:
        entry = _codes.OWN_BY_CODE.get(self.code)
        if entry is not None:    # one severity per code (an unregistered code fails tests/test_codes.py)
            self.severity = entry.severity

    @classmethod
    def of(cls, code: str, file: str | None, line: int | None, message: str, fix: str | None = None) -> Finding:
        """A finding of a registered code, with the registry's severity."""
        return cls(code, _codes.own(code).severity, file, line, message, fix)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Setting:
    """One value as the user wrote it: the canonical (LLaMA-Factory) key it maps to, the key as written,
    the file and line, and how it was written (yaml | flag | json | env)."""

    key: str
    value: object
    file: str | None
    line: int | None
    native: str
    kind: str
    invert: bool = False       # native is the opposite flag (HF gradient_checkpointing vs LF disable_...)


TRUE = ("true", "1", "yes", "on", "y")
FALSE = ("false", "0", "no", "off", "n", "none", "null")


def as_bool(v) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return bool(v)
    s = str(v).strip().strip("'\"").lower()
    if s in TRUE:
        return True
    if s in FALSE:
        return False
    return None


def as_int(v) -> int | None:
    """`v` as a whole number (`8`, "8", 8.0, "8e0"); None for a bool, a fraction, "x", .inf, .nan."""
    f = as_number(v)
    return int(f) if f is not None and f == int(f) else None


def as_number(v) -> float | None:
    """`v` (a number or its text) as a finite float; None for a bool, a list, "x", .inf, .nan."""
    if isinstance(v, bool):
        return None
    try:
        f = float(str(v).strip().strip("'\""))
    except (TypeError, ValueError):
        return None
    import math

    return f if math.isfinite(f) else None


# ------------------------------------------------------------------------------------------------ YAML / JSON text
def yaml_lines(text: str) -> dict[str, int]:
    """Top-level key -> 1-based line, from the YAML node marks."""
    import yaml

    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    out: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for k, _v in node.value:
            if isinstance(k, yaml.ScalarNode):
                out[str(k.value)] = k.start_mark.line + 1
    return out


def lenient_mapping(text: str) -> dict | None:
    """An excerpt cut mid-line (a post that stops at `lr_sc`): the `key: value` lines that parse."""
    import yaml

    out: dict = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#") or line.startswith((" ", "\t")):
            continue
        if ":" not in line:
            continue
        try:
            d = load_yaml(line, "excerpt", "config", syntax_errors=True)
        except (yaml.YAMLError, UserError):
            continue
        if isinstance(d, dict):
            out.update(d)
    return out if len(out) >= 3 else None


def load_structured(text: str, path: str = "config"):
    """A config text as data: JSON when it starts with `{`, else YAML (safe loader), else the `key: value` lines
    of an excerpt; None when nothing parses. files.load_json/load_yaml's limits hold (nesting, alias bombs,
    huge numbers: one-line UserError)."""
    import yaml

    from rocm_tune.core.files import load_json

    s = text.lstrip()
    if s.startswith("{"):
        return load_json(text, path, "DeepSpeed JSON", lenient=True)
    try:
        return load_yaml(text, path, "config", syntax_errors=True)
    except yaml.YAMLError:
        return lenient_mapping(text)


def yaml_error_line(text: str, path: str = "config") -> tuple[bool, int | None]:
    """(the text parses as one YAML document, the 1-based line of the first error)."""
    import yaml

    try:
        load_yaml(text, path, "config", syntax_errors=True)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return False, (mark.line + 1 if mark else None)
    except (ValueError, RecursionError):
        return False, None
    return True, None


def scalar_value(v: str):
    """A `key=value` override's value as OmegaConf / YAML reads it (`4` -> 4, `true` -> True)."""
    import yaml

    from rocm_tune.core.files import load_yaml

    if not v:
        return ""
    try:   # files.load_yaml's limits: no alias bomb, nesting or 5000-digit number in an override
        return load_yaml(v, "override", "override", syntax_errors=True)
    except yaml.YAMLError:
        return v


# ------------------------------------------------------------------------------------------------ the job
@dataclass
class Job:
    """The files given together, read as one training job: the runner, what it starts, the settings (canonical
    LLaMA-Factory keys, each with where it was written) and what was noticed."""

    runner: str = "unknown"       # llamafactory | builtin | hf | ms-swift | axolotl | torchtune | megatron | unknown
    entry: str = ""               # what runs: "llamafactory-cli train", "fine-tune.py", ...
    entry_file: str | None = None
    entry_line: int | None = None
    launcher: str | None = None   # torchrun | deepspeed | accelerate | llamafactory-cli | swift | tune | None
    settings: dict = field(default_factory=dict)     # canonical key -> Setting
    gpus: Setting | None = None
    nodes: Setting | None = None
    ds: Any = None                # runners.deepspeed.DsConfig
    accelerate: dict | None = None
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)        # what was mapped / resolved, said in the answer
    files: dict = field(default_factory=dict)        # path -> text of every file given
    formats: dict = field(default_factory=dict)      # path -> detected format
    script_flags: dict = field(default_factory=dict)  # canonical key -> native flag, for fixes
    lf_launch: bool = False            # LLaMA-Factory started through rocm-tune's lf_launch (an exported bundle)
    ds_from_accelerate: bool = False   # ZeRO set by the accelerate config's deepspeed_config (no JSON file)
    # the reading tool's own defaults (core/formats/litgpt.py ...), over the runner's DEFAULTS where the job sets nothing
    defaults: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)           # the variables the launch commands set (OmegaConf oc.env)

    def get(self, key: str, default=None):
        s = self.settings.get(key)
        return default if s is None else s.value


def resolve_ref(ref: str, here, given: dict) -> tuple[str | None, str]:
    """A path named in one file -> (path of a given file or an existing one, how it was resolved)."""
    import os
    from pathlib import Path

    base = os.path.basename(ref.strip())
    for p in given:
        name = os.path.basename(p)
        if name == base or name.startswith(base + ".") or name == base + ".json":
            if os.path.abspath(p) != os.path.abspath(ref):
                return p, f"{ref}: read from the file given beside it ({p})"
            return p, ""
    for cand in (Path(ref), Path(here) / ref):
        try:
            if cand.is_file():
                return str(cand), ""
        except OSError:
            continue
    return None, ""


@dataclass(frozen=True)
class Default:
    """What a runner uses when the files do not set a value, and where in the runner's source that is."""

    value: object
    source: str     # repository:path (Class.field or function), at the version the module names


def named_data(names, file: str | None, line: int | None, native: str, kind: str = "yaml",
               llamafactory: bool = False) -> dict[str, "Setting"]:
    """The settings a runner's reader adds for the datasets its config names (issue 26): `dataset_max_tokens`, the
    longest sample of the named public data (profiles/dataset_lengths.py, each figure with its source) when every
    named set has a sourced figure, and `__data_source__`, that source. Nothing when a set is unknown or local."""
    from rocm_tune.profiles.dataset_lengths import longest_of

    if not names or any(n is None or not str(n).strip() for n in names):
        return {}
    # the names themselves: check resolves them again with the model's vocabulary (figures counted with a large
    # vocabulary's tokenizer hold only for models with one: profiles/dataset_lengths.py LARGE_VOCAB_DATASETS)
    out = {"__data_names__": Setting("__data_names__", ",".join(str(n).strip() for n in names), file, line, native,
                                     kind)}
    got = longest_of([str(n) for n in names], llamafactory)
    if got is None:
        return out
    tokens, source = got
    return {**out, "dataset_max_tokens": Setting("dataset_max_tokens", tokens, file, line, native, kind),
            "__data_source__": Setting("__data_source__", source, file, line, native, kind)}
