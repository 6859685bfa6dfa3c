"""An argument the installed release refuses but another release of the same runner declares (e-skew, issue 26).

FAMILIES.md, config_error vs version_check: an argument rejected because the installed version does not know it is
version_check (keys renamed between releases too); an argument wrong for every version stays config_error. The
refusal shapes (their source): HfArgumentParser's `Some specified arguments are not used by the HfArgumentParser:
[...]` / `Some keys are not used by the HfArgumentParser: [...]` (transformers/hf_argparser.py, LLaMA-Factory's and
TRL's parsers re-raise the same words), argparse's `error: unrecognized arguments: ...` (Megatron's parse_args,
`accelerate launch`), accelerate's `The config file at F had unknown keys ([...])`, pydantic's
`<field>\\n  Extra inputs are not permitted` (v1: `extra fields not permitted`) under
`N validation errors for <Config>` (eole's config, extra="forbid"), and `TypeError: <Config>.__init__() got an unexpected keyword
argument '<k>'` for a runner's config/arguments class. Which runner's names apply follows from the log (frames,
command line, usage line, the class named); the names per runner and release are profiles/runner_args.py, read
from each runner's source at every release tag (tools/build_runner_arg_names.py).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import lru_cache

_HF_LIST = re.compile(r"(?:Some (specified arguments|keys) are not used by the HfArgumentParser|Got unknown args, "
                      r"potentially deprecated arguments): \[([^\]\n]*)\]")
_ARGPARSE = re.compile(r"^(.*?)error: unrecognized arguments: ([^\n]*)", re.M)
# accelerate's config file (commands/config/config_args.py): `The config file at F had unknown keys (['k']), please
# try upgrading your `accelerate` version or fix (and potentially remove) these keys from your config file.`
_ACCELERATE_KEYS = re.compile(r"The config file at \S+ had unknown keys \(\[([^\]\n]*)\]\)")
_PYDANTIC_HEAD = re.compile(r"\d+ validation errors? for (\w+)")
_RANK = r"(?:\[(?:rank|default)\d+\]:)?"        # e-skew2: torchrun's prefix on every line of a rank's traceback
_PYDANTIC_EXTRA = re.compile(rf"^{_RANK}[ \t]*([\w.\[\]-]+)[ \t]*\r?\n{_RANK}[ \t]+(?:Extra inputs are not permitted|"
                             r"extra fields not permitted)", re.M)
_KWARG = re.compile(r"(?:\b(\w+)\.)?__init__\(\) got an unexpected keyword argument '(\w+)'")
_CALLED_CLASS = re.compile(r"\b([A-Z]\w*(?:Config|Arguments|Args))\(")


@dataclass(frozen=True)
class Refusal:
    shape: str                   # "hfargparser", "argparse", "pydantic", "kwarg", "accelerate-config"
    names: tuple[str, ...]       # the refused argument names, '-' written '_'
    cls: str = ""                # the config class named (pydantic, kwarg)


@dataclass(frozen=True)
class Reading:
    runner: str                  # the runner whose releases know every refused name ("" for a typo)
    names: tuple[str, ...]
    spans: tuple[tuple[str, str], ...]   # per name: (runner, "FIRST..LAST" of its releases declaring it); () for a typo
    close: tuple[str, ...] = ()  # for a typo: the nearest names the runner's newest release declares
    sibling: str = ""            # e-cli9: the sibling launcher that declares the name torchrun refused ('torch-launch')


@lru_cache(maxsize=1)
def _tables() -> dict[str, tuple[str, str, dict[str, str], frozenset[str]]]:
    """runner -> (oldest release, newest release, name -> span, class names); loaded only for a refusal."""
    from rocm_tune.profiles.deepspeed_config_keys import DEEPSPEED_CONFIG_KEYS
    from rocm_tune.profiles.launcher_args import LAUNCHER_ARGS   # e-ver3: the deepspeed launcher's flags
    from rocm_tune.profiles.cli_flags import CLI_FLAGS           # e-cli9: torchrun / torch.distributed.launch / vllm
    from rocm_tune.profiles.runner_args import RUNNER_ARGS     # ~90 KB: only for a log with a refusal
    # e-skew2: DeepSpeed's pydantic config sections (extra="forbid") read like a runner's config classes
    return {r: (old, new, {n: s for s, names in spans.items() for n in names.split()}, frozenset(cls.split()))
            for r, (old, new, spans, cls) in {**RUNNER_ARGS, "deepspeed": DEEPSPEED_CONFIG_KEYS,
                                              **LAUNCHER_ARGS, **CLI_FLAGS}.items()}


def _flag_name(flag: str) -> str:
    return flag.lstrip("-").split("=", 1)[0].replace("-", "_")


def find_refusal(text: str) -> Refusal | None:
    """The first refusal of argument names in text, else None."""
    m = _HF_LIST.search(text)
    if m:
        items = re.findall(r"['\"]([^'\"]*)['\"]", m.group(2))
        flags = [i for i in items if i.startswith("-")] if m.group(1) != "keys" and any(
            i.startswith("-") for i in items) else items
        names = tuple(_flag_name(f) for f in flags if f.strip())
        return Refusal("hfargparser", names) if names else None
    m = _ARGPARSE.search(text)
    if m:
        names = tuple(_flag_name(f) for f in re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", m.group(2)))
        return Refusal("argparse", names, m.group(1).strip()) if names else None   # cls: argparse's prog
    m = _ACCELERATE_KEYS.search(text)
    if m:
        names = tuple(re.findall(r"['\"]([^'\"]+)['\"]", m.group(1)))
        return Refusal("accelerate-config", names) if names else None
    m = _PYDANTIC_HEAD.search(text)
    if m:
        names = tuple(dict.fromkeys(next((p for p in reversed(re.split(r"[.\[\]]+", n)) if p and not p.isdigit()), n)
                                    for n in _PYDANTIC_EXTRA.findall(text[m.end():])))
        return Refusal("pydantic", names, m.group(1)) if names else None
    m = _KWARG.search(text)
    if m:
        return Refusal("kwarg", (m.group(2),), m.group(1) or "")
    return None


# e-skew2: the DeepSpeed release the log shows - deepspeed.initialize's banner (deepspeed/__init__.py: `DeepSpeed info: version=0.14.4,
# git-hash=..., git-branch=...`) or ds_report's (env_report.py) `deepspeed info ........ 0.14.4, unknown, unknown`
_DS_INSTALLED = re.compile(r"DeepSpeed info: version=(\d+\.\d+\.\d+)|deepspeed info \.+ (\d+\.\d+\.\d+)", re.I)


def _release_key(v: str) -> tuple[int, ...]:
    return (10 ** 6,) if v == "main" else tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def installed_declares(rd: Reading, blob: str) -> bool:
    """True when the log shows the installed DeepSpeed and every refused key's span covers it: the release has the
    keys, so they were refused for being in another section, not for the release."""
    m = _DS_INSTALLED.search(blob) if rd.runner == "deepspeed" else None
    if m is None or not rd.spans:
        return False
    v = _release_key(m.group(1) or m.group(2))
    return all(_release_key(span.split("..")[0]) <= v <= _release_key(span.split("..")[1]) for _, span in rd.spans)


def _kwarg_class(ref: Refusal, pre: str) -> str:
    """The class whose __init__ refused the keyword: named in the message (py3.10+) or on the traceback's last call."""
    if ref.cls:
        return ref.cls
    calls = _CALLED_CLASS.findall(pre[-3000:])
    return calls[-1] if calls else ""


# e-cli9: torch's launchers' usage line (torch/distributed/run.py get_args_parser: `--nproc-per-node`/`--nproc_per_node`
# then the positional `training_script ...`) or their module named on the command line
_TORCH_LAUNCHER_SIGN = re.compile(r"torch\.distributed\.(?:run|launch)\b|usage: \S+ \[-h\] \[--nnodes NNODES\]")


def _torch_launcher(prog: str, blob: str) -> str:
    """e-cli9: 'torchrun' / 'torch-launch' when argparse's prog is torch's launcher (`torchrun: error:`, `launch.py:
    error:` / `run.py: error:` under `python -m torch.distributed.launch|run`), else ''."""
    if re.search(r"(?:^|[\s/])torchrun:?$", prog):
        return "torchrun"
    m = re.search(r"(?:^|[\s/])(run|launch)\.py:?$", prog)
    if m and _TORCH_LAUNCHER_SIGN.search(blob):
        return "torchrun" if m.group(1) == "run" else "torch-launch"
    return ""


def launcher_sibling(rd: Reading, runners: tuple[str, ...]) -> str:
    """e-cli9: for a flag torchrun refused that torch.distributed.launch declares (`--use_env`): 'torch-launch'."""
    if runners != ("torchrun",) or rd.runner or len(rd.names) != 1:
        return ""
    return "torch-launch" if rd.names[0] in _tables()["torch-launch"][2] else ""


def runners_for(ref: Refusal, blob: str, pre: str = "") -> tuple[str, ...]:
    """The runners whose releases' names decide this refusal (their tables are unioned), () when none applies."""
    from rocm_tune.profiles.cli_flags import VLLM_SIGN
    from rocm_tune.profiles.runner_args import LF_NO_TRAINING_ARGS, RUNNER_SIGNS

    def shows(runner: str) -> bool:
        return bool(re.search(RUNNER_SIGNS[runner], blob))
    if ref.shape == "hfargparser":
        if shows("llamafactory"):
            # chat/webchat/api/export/eval parse a subset of the dataclasses: a key they refuse is most often one of
            # another command (training, a dataset split), not of another release
            return () if re.search(LF_NO_TRAINING_ARGS, blob) else ("llamafactory", "transformers")
        return ("trl", "transformers") if shows("trl") else ("transformers",)
    if ref.shape == "accelerate-config":
        return ("accelerate",)
    if ref.shape == "argparse":
        if re.match(r"accelerate\b", ref.cls):          # prog `accelerate <command> [<args>] launch:`
            return ("accelerate",)
        if re.match(r"deepspeed:?$", ref.cls):           # e-ver3: the launcher's own flags (launcher/runner.py)
            return ("deepspeed-launcher",)
        if re.match(r"trl [\w-]+:?$", ref.cls):          # e-cli9: TRL's CLI (`trl sft: error:`), TrlParser's argparse
            return ("trl", "transformers")
        if (torch_launcher := _torch_launcher(ref.cls, blob)):
            return (torch_launcher,)
        if re.search(r"(?:^|\s)vllm \w+:?$", ref.cls) or (re.search(r"(?:^|[\s/])api_server\.py:?$", ref.cls) and
                                                          re.search(VLLM_SIGN, blob)):
            return ("vllm",)                              # e-cli9: `vllm serve: error:`, the OpenAI api_server module
        return ("megatron",) if shows("megatron") else ()
    if ref.shape == "pydantic":
        if ref.cls in _tables()["deepspeed"][3]:       # e-skew2: DeepSpeedZeroConfig, DeepSpeedZeroOffload*Config...
            return ("deepspeed",)
        return ("eole",) if shows("eole") else ()
    cls = _kwarg_class(ref, pre)
    owners = tuple(r for r, t in _tables().items() if cls in t[3])
    if not cls:
        from rocm_tune.profiles.runner_args import KWARG_FRAME_RUNNERS
        frames = re.findall(r'File "([^"]+)"', pre[-3000:])
        owners = tuple(r for r, rx in KWARG_FRAME_RUNNERS.items() if frames and re.search(rx, frames[-1]))
    if "trl" in owners:
        return ("trl", "transformers")        # TRL's configs are TrainingArguments subclasses
    return owners[:1]


def _announced(runner: str, name: str) -> tuple[str, str] | None:
    from rocm_tune.profiles.cli_flags import CLI_ANNOUNCED_REMOVALS
    return CLI_ANNOUNCED_REMOVALS.get(runner, {}).get(name)


def _known(runners: tuple[str, ...], name: str) -> list[tuple[str, str, bool]]:
    """(runner, span, declared by every release read) for each of the runners whose releases declare name."""
    out = []
    for r in runners:
        old, new, names, _ = _tables()[r]
        if name in names:
            gone = _announced(r, name)   # e-cli9: the newest release read says which release removes it
            out.append((r, names[name], names[name] == f"{old}..{new}" and not gone))
    return out


def read_refusal(ref: Refusal, runners: tuple[str, ...]) -> Reading | None:
    """Reading(runner, ...) when every refused name is one some but not every release of the runners declares
    (version skew); else Reading('', name, ...): with close spellings when no release declares the name (a typo),
    without when every release does (refused by this parser: the wrong command or section, not a release). None
    when no runner's names apply."""
    if not runners or not ref.names:
        return None
    if "llamafactory" in runners and all(n in _tables()["megatron"][2] for n in ref.names):
        # LLaMA-Factory (>= 0.9.4, hparams/parser.py) takes Megatron's keys only in its Megatron modes (USE_MCA=1 with
        # mcore_adapter, USE_MEGATRON_BRIDGE=1): refused by its HF parser they are the launch, not a release
        return Reading("", ref.names, ())
    spans, owner = [], ""
    for n in ref.names:
        known = _known(runners, n)
        if not known:
            newest = [m for r in runners for m in _tables()[r][2] if _tables()[r][2][m].endswith(".." + _tables()[r][1])]
            return Reading("", (n,), (), tuple(difflib.get_close_matches(n, newest, n=3, cutoff=0.8)))
        if any(every for _, _, every in known):
            return Reading("", (n,), ())
        owner = owner or known[0][0]
        spans.append(known[0][:2])
    return Reading(owner, ref.names, tuple(spans))


def _label(runner: str) -> str:
    from rocm_tune.profiles.runner_args import RUNNER_LABELS
    return RUNNER_LABELS.get(runner, {"deepspeed": "DeepSpeed", "deepspeed-launcher": "DeepSpeed (its `deepspeed` "
                                      "launcher)", "torchrun": "torchrun (torch.distributed.run)",
                                      "torch-launch": "torch.distributed.launch",
                                      "vllm": "vLLM (`vllm serve`)"}.get(runner, runner))


def _renamed(runner: str, names: list[str]) -> str:
    """e-cli9: the new spelling of dropped flags where the runner's source shows one, else where to look for it."""
    from rocm_tune.profiles.cli_flags import CLI_RENAMES
    said = [f"{n} -> {CLI_RENAMES[runner][n]}" for n in names if n in CLI_RENAMES.get(runner, {})]
    said += [f"{n} -> {a[1]} (removed in {a[0]})" for n in names if (a := _announced(runner, n))]
    return "; ".join(said) if said else "its changelog/README gives the rename"


def skew_sentence(rd: Reading) -> tuple[str, str]:
    """(title, fix) of a refusal whose names other releases declare: which releases, and the way out."""
    parts: list[str] = []
    later: dict[tuple[str, str], list[str]] = {}      # (runner, first release) -> names the installed one predates
    earlier: dict[tuple[str, str], list[str]] = {}    # (runner, last release) -> names the installed one dropped
    for n, (runner, span) in zip(rd.names, rd.spans):
        first, last = span.split("..")
        where = "" if runner == rd.runner else f"{_label(runner)} "
        parts.append(f"{n}: {where}{first} to {last}")
        if last == _tables()[runner][1] and not _announced(runner, n):
            later.setdefault((runner, first), []).append(n)
        else:
            earlier.setdefault((runner, last), []).append(n)
    title = (f"the installed {_label(rd.runner)} refused arguments that other releases declare "
             f"({'; '.join(parts)}): the command or config was written for another release than the one installed")
    fix = [f"upgrade {_label(r)} to {first} or later (it has {', '.join(ns)})" for (r, first), ns in later.items()]
    fix += [f"install the {_label(r)} release the recipe was written for ({last} or earlier has {', '.join(ns)}), or "
            f"use the installed release's spelling ({_renamed(r, ns)})" for (r, last), ns in earlier.items()]
    return title, "; ".join(fix) + " (`pip show` names the installed release)"
