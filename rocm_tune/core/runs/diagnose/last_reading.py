"""e-fall (issue 26): explain's last reading, where every rule and the lexicon fallback (resemble.py) declined.

A user who brings a log deserves a best reading, marked as such. Three readings, from the tools' own sources (the
names are data: rocm_tune/profiles/runtime_errors.py), never from a case's wording:

- `runtime_reading`: a HIP/ROCm failure in any spelling - a `hipError_t` name (hipErrorX, HIP_ERROR_X), a
  `hipGetErrorString` text after the runtime's prefix (`HIP error: invalid device function`), a ROCm library's
  status (`rocblas_status_*`, `HIPBLAS_STATUS_*`, `miopenStatus*`, HSA_STATUS_ERROR_*, RCCL's ncclUnhandledCudaError),
  an amdgpu/KFD kernel line, a card refused by its gfx -> hip_error (a failed allocation -> gpu_oom); CUDA's names
  (cudaErrorX, CUDA_ERROR_X, CUBLAS_STATUS_X ...) -> cuda_error where the log bears NVIDIA's marks, not ROCm's.
  FAMILIES.md's arch clause (the card's gfx and the build's list shown, the card not in it) makes it version_check.
- `exception_reading`: a Python exception no rule knows, from its class and the owners of its frames
  (traceback_anatomy.py): a missing submodule/name of an installed package -> version_check (a missing top-level
  package -> missing_package); an AttributeError/TypeError across a package border -> version_check; a ValueError/
  KeyError/AssertionError raised where the user's value or file reaches a library -> config_error (dataset_error
  when it is about the data's files or columns).
- `warning_reading`: a log with no failure at all (no traceback, no error/fatal line, no non-zero exit, no kill):
  the user asks about what it printed -> benign_warning naming its most prominent warning.
Pure: regexes over the log's text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from rocm_tune.core.runs.diagnose import arch_skew, library_warnings, traceback_anatomy
from rocm_tune.profiles import runtime_errors as rt

CODE = "last-reading"
CODE_WARNING = "last-reading-warning"
BEST = "best reading (no rule of rocm-tune reads this log): "

_HIP_NAME = re.compile(r"(?<![A-Za-z])hip_?error_?([A-Z][A-Za-z]+|[A-Z][A-Z_]+)", re.I)
_HIP_BY_KEY = {n.lower(): n for n in rt.HIP_ERRORS}
_TEXTS = sorted({t for n, t in rt.HIP_ERRORS.items() if n not in rt.HIP_ANSWERS}, key=len, reverse=True)
_HIP_TEXT = re.compile(rt.RUNTIME_PREFIX + "(" + "|".join(re.escape(t) for t in _TEXTS) + r")\b", re.I)
# e-hip4: the distinctive texts after a program's own `Failed to <call>: ` words (rt.FAILED_PREFIX), to the message's end
_FAILED_TEXT = re.compile(rt.FAILED_PREFIX + "(" + "|".join(re.escape(t) for t in _TEXTS if t not in rt.GENERIC_TEXTS)
                          + r")[ .;!)'\"]*$")
_CUDA_PREFIX = re.compile(r"\b(?:CUDA|cuda) (?:runtime )?(?:error|failure|Error)\b")
_LIB_STATUS = re.compile(rt.LIBRARY_STATUS)
_LIB_OOM = re.compile(rt.LIBRARY_OOM)
_SUCCESS = re.compile(rt.STATUS_SUCCESS)
_AMDGPU = re.compile(rt.AMDGPU_KERNEL)
_CUDA_NAME = re.compile(rt.CUDA_NAMES)
_CUDA_OOM = re.compile(rt.CUDA_OOM)
_ARCH_REFUSED = re.compile(rt.ARCH_REFUSED)
_RCCL = re.compile(rt.RCCL_STATUS)
_CUDA_ORDINAL = re.compile(rt.CUDA_SETTINGS)
_ATTENTION = re.compile(rt.ATTENTION_KERNELS)


@dataclass
class Reading:
    family: str
    title: str
    cause: str
    fix: str
    line: str
    numbers: dict = field(default_factory=dict)


_OOM_FIX = ("lower the micro-batch or sequence length, turn on gradient checkpointing, or shard/offload (ZeRO-3, "
            "FSDP); `rocm-tune check` on the config says what fits")
_HIP_FIX = ("use the PyTorch wheel built for the installed ROCm, check the GPU is supported (HSA_OVERRIDE_GFX_VERSION "
            "on consumer cards), and rerun with AMD_LOG_LEVEL=3 AMD_SERIALIZE_KERNEL=3 to see the failing call")
_CUDA_FIX = ("check the driver matches the CUDA of the PyTorch wheel (nvidia-smi's CUDA Version >= "
             "torch.version.cuda) and rerun with CUDA_LAUNCH_BLOCKING=1 to see the failing call")


def _hip_name(line: str) -> str | None:
    """The hipError_t name the line spells (hipErrorNoBinaryForGpu, HIP_ERROR_InvalidValue), canonical; never one
    that is an answer rather than a failure (rt.HIP_ANSWERS)."""
    for m in _HIP_NAME.finditer(line):
        name = _HIP_BY_KEY.get("hiperror" + m.group(1).replace("_", "").lower())
        if name is not None and name not in rt.HIP_ANSWERS:
            return name
    return None


def _status(line: str) -> str | None:
    return next((m.group(0) for m in _LIB_STATUS.finditer(line) if not _SUCCESS.search(m.group(0))), None)


def _cuda_name(line: str) -> str | None:
    return next((m.group(0) for m in _CUDA_NAME.finditer(line) if not _SUCCESS.search(m.group(0))), None)


def _named(line: str, rocm: bool, nvidia: bool) -> tuple[str, str, str] | None:
    """(family, the runtime's or library's name for it, which stack) of one line, or None."""
    if (name := _hip_name(line)) is not None:
        return _hip_family(name), name, "HIP"
    if (m := _HIP_TEXT.search(line)) is not None:
        text = m.group(1).lower()
        cuda_side = bool(_CUDA_PREFIX.search(m.group(0))) and not rocm
        name = next((n for n, t in rt.HIP_ERRORS.items() if t.lower() == text), "hipErrorUnknown")
        fam = _hip_family(name)
        return ("cuda_error" if cuda_side and fam == "hip_error" else fam), m.group(0).strip(), \
            "CUDA" if cuda_side else "HIP"
    if (m := _FAILED_TEXT.search(line.rstrip())) is not None:
        name = next((n for n, t in rt.HIP_ERRORS.items() if t == m.group(1)), "hipErrorUnknown")
        fam = _hip_family(name)
        cuda_side = nvidia and not rocm
        return ("cuda_error" if cuda_side and fam == "hip_error" else fam), m.group(0).strip(), \
            "CUDA" if cuda_side else "HIP"
    if (st := _status(line)) is not None:
        if _LIB_OOM.search(st):
            return "gpu_oom", st, "ROCm library"
        if _RCCL.search(st):
            # RCCL/NCCL's status for a HIP/CUDA call that failed inside a collective: FAMILIES.md's border
            # (nccl_rccl_timeout_hang vs hip_error) - the collective's transport (IPC handles, P2P, the IOMMU) is what
            # the fix changes
            return "nccl_rccl_timeout_hang", st, "RCCL" if rocm or not nvidia else "NCCL"
        return "hip_error", st, "ROCm library"
    if (m := _AMDGPU.search(line)) is not None:
        return "hip_error", m.group(0).strip(), "amdgpu kernel driver"
    if (cn := _cuda_name(line)) is not None:
        if _CUDA_OOM.search(cn):
            return "gpu_oom", cn, "CUDA"
        if _CUDA_ORDINAL.search(cn):
            return "config_error", cn, "CUDA"
        return ("cuda_error" if nvidia or not rocm else "hip_error"), cn, "CUDA"
    if (m := _ARCH_REFUSED.search(line)) is not None:
        if _ATTENTION.search(line):
            return "flash_attn_error", m.group(0).strip(), "the attention kernels"
        return "hip_error", m.group(0).strip(), "HIP"
    return None


def _hip_family(name: str) -> str:
    """A failed allocation is the GPU's memory; a device index the process cannot see is the run's settings
    (hipErrorInvalidDevice, `invalid device ordinal`: HIP/CUDA_VISIBLE_DEVICES or the rank's device); else the
    runtime's."""
    if name in rt.HIP_OOM:
        return "gpu_oom"
    return "config_error" if name in rt.HIP_SETTINGS else "hip_error"


def runtime_reading(lines: Sequence[str], blob: str, rocm: bool, nvidia: bool) -> Reading | None:
    """The newest line that names a GPU runtime's or library's failure, read (see the module's docstring)."""
    for line in reversed(lines):
        got = _named(line, rocm, nvidia)
        if got is None:
            continue
        family, name, stack = got
        if family == "gpu_oom":
            return Reading(family, BEST + f"the GPU ran out of memory ({stack}: {name})",
                           f"{stack} reports a failed device allocation ({name}): the GPU's memory ran out",
                           _OOM_FIX, line, {"named": name})
        if family == "hip_error" and (s := arch_skew.read_arch_skew(line, blob) or (
                arch_skew.skew_in(blob + "\n" + line) if _ARCH_REFUSED.search(line) else None)) is not None:
            title, fix = arch_skew.sentence(s)
            return Reading("version_check", BEST + title, f"{stack} failed ({name}) on a card the installed build "
                           "has no code for (FAMILIES.md arch clause)", fix, line,
                           {"named": name, "arch": s.card, "build_archs": list(s.build)})
        if family == "cuda_error" and (s := arch_skew.read_sm_skew(blob)) is not None:
            title, fix = arch_skew.sm_sentence(s)
            return Reading("version_check", BEST + title, f"CUDA failed ({name}) on a card the wheel has no kernels "
                           "for", fix, line, {"named": name, "arch": s.card, "build_archs": list(s.build)})
        return Reading(family, BEST + f"the {stack} runtime/library failed: {name}",
                       f"the log's last failure is the {stack} stack's own error ({name}); no rule of rocm-tune "
                       "names this call, so the reading is the runtime's name for it",
                       _CUDA_FIX if family == "cuda_error" else _HIP_FIX, line, {"named": name})
    return None


_CLASS = re.compile(r"(?:^|[\s:\]])(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception))(?:: |\s*$)")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_CANNOT_IMPORT = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")
_MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")
_OBJECT_ATTR = re.compile(r"'(\w+)' object has no attribute '(\w+)'")
_SIGNATURE = re.compile(r"(?:([\w.]+)\(\) )?(?:got an unexpected keyword argument|takes (?:from \d+ to )?\d+ "
                        r"positional arguments? but|missing \d+ required (?:positional|keyword-only) argument|"
                        r"got multiple values for (?:keyword )?argument|got some positional-only arguments)")
_DATA = re.compile(r"\b(?:datasets?|columns?|data_files?|data_dir|split|features?|rows?|samples?|examples?|"
                   r"conversations?|messages|jsonl?|csv|parquet|arrow)\b|['\"](?:train|validation|test|text|messages|"
                   r"conversations|instruction|input|output|prompt|chosen|rejected|label|labels)['\"]", re.I)
_RELEASE = re.compile(r"(?i)\bversion of\b|\b(?:upgrade|downgrade)\b|\b[\w.-]+\s*(?:>=|==|<=)\s*\d+\.\d+|"
                      r"\brequires? [\w.-]+ (?:version|release)")
_VALUE_TYPES = frozenset({"ValueError", "KeyError", "AssertionError"})


def _border(frames: Sequence[traceback_anatomy.Frame]) -> bool:
    """The traceback passes from one owner to another (the user's script into a package, or one package into
    another) and ends in installed code."""
    owners = [f.owner for f in frames if f.kind in ("library", "remote_code", "user")]
    return bool(frames) and frames[-1].installed and len(set(owners)) >= 2


def _version(what: str) -> tuple[str, str]:
    return "version_check", (f"{what}: the installed packages are from releases that do not fit; install the "
                             "versions the runner or the script pins (its requirements) in a fresh environment")


def _raised_in_library(frames: Sequence[traceback_anatomy.Frame]) -> bool:
    """The exception was raised in installed code, or the log shows no frames of it (a rank's one-line report, a
    runner's logger): the library's side of the call."""
    return not frames or frames[-1].installed


def exception_reading(line: str, frames: Sequence[traceback_anatomy.Frame]) -> tuple[str, str] | None:
    """(family, fix) of a Python exception no rule knows, from its class and its frames' owners; None when neither
    says more than the message."""
    m = _CLASS.search(line)
    if m is None:
        return None
    cls, msg = m.group(1), traceback_anatomy.message_of(line)
    if cls in ("ModuleNotFoundError", "ImportError"):
        return _import_reading(cls, msg)
    if cls in ("AttributeError", "TypeError"):
        return _api_reading(cls, msg, frames)
    if cls in _VALUE_TYPES and _RELEASE.search(msg):
        return _version("the library refuses the installed release of a package it works with (its message names "
                        "the version)")
    if cls == "NotImplementedError" and _raised_in_library(frames):
        return _version("the installed release of the library does not implement this path (a later or the pinned "
                        "release does, or the runner's requirements name the one it was written for)")
    if cls in ("SyntaxError", "NameError") and frames and frames[-1].installed:
        return _version(f"{frames[-1].owner}'s own code does not run here ({cls} in an installed package: a release "
                        "written for another Python or for another release of a package it names)")
    if (named := _CLASS_FAMILY.get(_class_kind(cls))) is not None:
        return named
    if cls in _VALUE_TYPES and msg.strip() and (cls != "KeyError" or _border(frames)):
        if _DATA.search(msg):
            return "dataset_error", ("the data the run reads (its files, columns or splits) does not fit what the "
                                     f"library expects ({cls}): check the dataset's files and columns")
        return "config_error", (f"a value of the run's settings or arguments reached the code and was refused "
                                f"({cls}): correct the value the message names")
    return None


# a library's own exception class says what it refuses: a config/argument/validation/schema/parse class (pydantic's
# ValidationError, omegaconf's ConfigAttributeError, hydra's ConfigCompositionException, yaml's ScannerError) is the
# run's settings; a dataset/data-files class (datasets' DatasetGenerationError, DataFilesNotFoundError) the data; a
# template class (jinja2's TemplateError/UndefinedError, rendering the chat template) the tokenizer's template
_CLASS_KINDS = (("config", re.compile(r"Config|Argument|Validation|Schema|Option|Setting|Hydra|OmegaConf|Parser|"
                                      r"Scanner|Composer|Constructor")),
                ("data", re.compile(r"Dataset|DataFiles|DataLoad|Split")),
                ("template", re.compile(r"Template|Undefined")))
_CLASS_FAMILY = {
    "config": ("config_error", "the library's own validation refused the run's settings (its exception class says "
                               "so): correct the setting the message names"),
    "data": ("dataset_error", "the datasets library refused the data (its exception class says so): check the "
                              "dataset's files, format and columns"),
    "template": ("tokenizer_template", "rendering a (chat) template failed (its exception class says so): check the "
                                       "template name and the tokenizer's chat_template"),
}


def _class_kind(cls: str) -> str:
    return next((kind for kind, rx in _CLASS_KINDS if rx.search(cls)), "")


def _import_reading(cls: str, msg: str) -> tuple[str, str] | None:
    """An import that failed: a dotted module whose parent imported (CPython names the dotted module only then) or a
    name the module lacks is the installed release's; a top-level module not there is a package not installed."""
    if (mm := _NO_MODULE.search(msg)) is not None:
        name = mm.group(1)
        if "." in name:
            return _version(f"{name.split('.')[0]} is installed but has no module {name}")
        return "missing_package", (f"the module {name} is not installed in the run's environment: pip install the "
                                   "package that provides it")
    if (ci := _CANNOT_IMPORT.search(msg)) is not None:
        return _version(f"{ci.group(2)} has no name {ci.group(1)} in the installed release")
    if cls == "ImportError" and msg:
        return _version("an installed package failed to import (a module, name or built library the release "
                        "expects is not what is installed)")
    return None


def _api_reading(cls: str, msg: str, frames: Sequence[traceback_anatomy.Frame]) -> tuple[str, str] | None:
    """AttributeError/TypeError across a package border: another release's module attribute, object attribute or
    call signature (not a None or builtin value - a list, a dict, a str: that is a value of the wrong kind, the
    script's, not an API)."""
    if (ma := _MODULE_ATTR.search(msg)) is not None and ma.group(1) != "__main__":
        return _version(f"module {ma.group(1)} has no attribute {ma.group(2)} in the installed release")
    inside = _border(frames) or not frames
    if cls == "TypeError" and _SIGNATURE.search(msg) and inside:
        return _version("a call crosses a package border with another release's signature")
    if (oa := _OBJECT_ATTR.search(msg)) is not None and oa.group(1) not in rt.PLAIN_VALUES and \
            (inside or _raised_in_library(frames)):
        return _version(f"{oa.group(1)} has no attribute {oa.group(2)} in the installed release of the package that "
                        "uses it")
    return None


# --------------------------------------------------------------------------------------------- no failure at all
_FAILURE = re.compile(r"Traceback \(most recent call last\)|(?:^|[\s:\]])(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception): |"
                      r"\b(?:ERROR|FATAL|CRITICAL|PANIC)\b|\b[Ee]rror\b|\b[Ff]atal\b|[Ss]egmentation fault|"
                      r"core dumped|\bAborted\b|^[ \t]*Killed[ \t]*$|\bclosing signal\b|terminate called|out of memory|\bOOM\b|"
                      r"exit(?:ed)?(?: with)? (?:code|status)[ :=]*-?[1-9]|exitcode\s*:\s*-?[1-9]|"
                      r"returned non-zero exit status|(?i:\bloss\b[^\n]{0,20}?\bnan\b)|\bOVERFLOW\b|[Gg]radient overflow|\bSIG(?:KILL|SEGV|ABRT|BUS|TERM|ILL|FPE)\b|"
                      r"^[EF]\d{4} \d\d:|^[ \t]*\[[EF](?:\d{4})? |\*ERROR\*|CANCELLED|hipError|cudaError", re.M)
# the warning lines, by kind, most prominent first: a GPU library's, a library's own known template (library_warnings),
# a Python warning category, torch's C++ `[W ...]`/glog `W1127`, a logger's WARNING
_GPU_WARN = re.compile(r"(?i)\b(?:rocBLAS|hipBLASLt|hipBLAS|MIOpen|RCCL|NCCL|Tensile|HSA|amdgpu)\b[^\n]{0,60}?"
                       r"\bwarn(?:ing)?\b|\bwarn(?:ing)?\b[^\n]{0,40}?\b(?:rocBLAS|hipBLASLt|MIOpen|RCCL|Tensile)\b")
_PY_WARN = re.compile(r"\b[A-Z]\w*Warning: |^\s*warnings\.warn\(")
_C10_WARN = re.compile(r"^\s*(?:\[rank\d+\]:)?\[W(?:\d{4})? [^\]]*\]|^\s*W\d{4} \d\d:\d\d")
_LOG_WARN = re.compile(r"(?<![=\w])WARN(?:ING)?\b(?!=)|^\s*[Ww]arning: ")
_COMMAND = re.compile(r"^\s*(?:\+|\$|#|>>>) ")   # a shell's or REPL's echo of a command, not a line the program printed
_KINDS = (("GPU library warning", _GPU_WARN), ("Python warning", _PY_WARN), ("torch C++ warning", _C10_WARN),
          ("logged warning", _LOG_WARN))


def _known(text: str) -> dict[str, library_warnings.Warned]:
    """The log's lines that are a library's own warning (library_warnings.py's templates), found once per log."""
    return {line.strip(): w for _off, line, w in library_warnings.find(text)}


def _warning_kind(line: str, known: dict[str, library_warnings.Warned]) -> tuple[int, str] | None:
    """(rank, kind) of a warning line, lower rank more prominent; None for a line that is no warning."""
    if _COMMAND.search(line):
        return None
    w = known.get(line.strip())
    for i, (kind, rx) in enumerate(_KINDS):
        if rx.search(line):
            return (i + 1, f"{w.library} warning ({w.source})") if w and i else (i * 2, kind)
    return (1, f"{w.library} warning ({w.source})") if w else None


# a logger's warning line that still says something failed (NCCL/RCCL have no error level: `NCCL WARN ... failed`,
# `NET/IB : Got completion with error`; a runner's `[WARNING] Unable to find ...`): a failure, not a warning; a Python
# warning category and c10's one-letter level stay warnings (the run went on past them)
_FAILING_WARN = re.compile(r"(?i)\bfail(?:ed|ure|s)?\b|\berrors?\b|\bfatal\b|timed? ?out|\bkilled\b|\babort|"
                           r"\bcannot\b|\bcan't\b|unable to|could not|couldn't|not found|no such|denied|\binvalid\b|"
                           r"closing signal|\bSIG(?:KILL|SEGV|ABRT|BUS|TERM)\b")


def _failing_warning(line: str, known: dict[str, library_warnings.Warned]) -> bool:
    return bool(_FAILING_WARN.search(line)) and not _PY_WARN.search(line) and line.strip() not in known


def failure_line(text: str, known: dict[str, library_warnings.Warned] | None = None) -> str | None:
    """The first line of the text that says something failed (not a warning line), or None."""
    known = _known(text) if known is None else known
    for m in _FAILURE.finditer(text):
        line = _line_at(text, m)
        if _warning_kind(line, known) is None:
            return line
    for m in _FAILING_WARN.finditer(text):
        line = _line_at(text, m)
        if _warning_kind(line, known) is not None and _failing_warning(line, known):
            return line
    return None


def _line_at(text: str, m: re.Match) -> str:
    """The line a match ends in (a match may begin at the newline before it)."""
    s = text.rfind("\n", 0, m.end() - 1) + 1
    e = text.find("\n", m.end())
    return text[s:e if e >= 0 else len(text)]


def _key(line: str) -> str:
    return re.sub(r"\d+", "0", re.sub(r"^.*?(?=\b[A-Z]\w*Warning: |WARN|\[W|W\d{4} )", "", line))[:200]


def _stops_at_a_warning(text: str, known: dict[str, library_warnings.Warned]) -> bool:
    """The run's output stops at a warning: its last line is one and other output came before (nothing went on
    after it, so the stop is not explained by it: it may be where the run hung or was killed - e-benign's reading).
    A log of warnings only (with their indented continuation lines) is what the user asks about: no stop to explain."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines or _warning_kind(lines[-1].strip(), known) is None:
        return False
    return any(_warning_kind(ln.strip(), known) is None and not ln[:1].isspace() for ln in lines)


def warning_reading(text: str) -> Reading | None:
    """benign_warning naming the log's most prominent warning, when the log shows no failure at all, at least one
    warning, and goes on after its last warning (None otherwise)."""
    known = _known(text)
    if failure_line(text, known) is not None:
        return None
    seen: dict[str, tuple[int, str, str]] = {}
    count: Counter[str] = Counter()
    for line in text.splitlines():
        line = line.strip()
        if len(line) < 8 or (kind := _warning_kind(line, known)) is None:
            continue
        k = _key(line)
        count[k] += 1
        seen[k] = (kind[0], kind[1], line[:300])
    if not seen or _stops_at_a_warning(text, known):
        return None
    best = min(seen, key=lambda k: (seen[k][0], -count[k]))
    _rank, label, shown = seen[best]
    n = count[best]
    return Reading("benign_warning", BEST + f"no failure in the log; its most prominent line is a {label}"
                   + (f" (x{n})" if n > 1 else "") + f": {shown[:160]}",
                   "the log shows no traceback, no error or fatal line, no non-zero exit and no kill: the lines it "
                   "printed are warnings the program went on past", "nothing to fix for the run; read the warning if "
                   "its advice applies (a setting it names, a deprecation to act on before the next upgrade)", shown,
                   {"warning_kind": label, "count": n, "distinct_warnings": len(seen)})


def arch_refusal(message: str, blob: str) -> tuple[str, str] | None:
    """e-hip4: (family, fix) of a Python exception whose own message refuses the card by its gfx (`... is not supported
    on gfx1100`, `Unsupported GPU architecture gfx1036`): the attention kernels' refusal -> flash_attn_error; the card
    and the build's list both shown -> version_check (FAMILIES.md arch clause); else the ROCm stack not supporting the
    card (FAMILIES.md hip_error's "architecture not supported"). None when the message names no refused gfx."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    if _ARCH_REFUSED.search(first) is None:
        return None
    if _ATTENTION.search(first):
        return "flash_attn_error", ("run attention without these kernels (attn_implementation='eager' or 'sdpa', "
                                    "another vLLM attention backend) or install an attention build for this gfx")
    if (s := arch_skew.skew_in(blob + "\n" + first)) is not None:
        return "version_check", arch_skew.sentence(s)[1]
    return "hip_error", ("the code that raised it has no kernels for this GPU architecture: run on a supported card, "
                         "use a build of that library (or a ROCm/PyTorch wheel) made for this gfx, or turn the "
                         "feature off; " + _HIP_FIX)
