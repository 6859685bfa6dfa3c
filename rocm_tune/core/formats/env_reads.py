"""The environment a training program starts with, from the `.env` files given (issue 26; pure).

A dotenv file (core/formats/dotenv.py) reaches a program four ways, each read here:
- a launch script sources it: `source x.env`, `. ./x.env`, `set -a; . x.env; set +a`, `export $(cat x.env | xargs)`,
  `export $(grep -v '^#' x.env | xargs)` (bash assigns its lines; the script's own later lines win);
- the program's command line names it (`python train.py --config x.env`, `--env-file x.env`): the program loads it
  with python-dotenv (load_dotenv(path), override=False: the variables the launch line sets win);
- the program given calls load_dotenv() / dotenv_values() itself (find_dotenv: the `.env` beside it), or its
  pydantic-settings class names it (`SettingsConfigDict(env_file=".env")`);
- docker's --env-file (core/runners/launchers.py, docker's own rules: read in formats._env_files).
What the program then does with a variable: when its source is given, its os.getenv / os.environ reads are resolved
against this environment (core/runners/values.py ENVIRON); when it is not, the variables are read as its arguments
by name (profiles/env_settings.py: pydantic-settings' convention)."""

from __future__ import annotations

import os
import re

from rocm_tune.core.formats import dotenv
from rocm_tune.profiles import env_settings as E

__all__ = ["dotenv_files", "sourced", "named_on", "program_env", "as_flags", "program_environ"]

# `source F` / `. F` (after `set -a;` or `&&`), `export $(cat F | xargs)`, `env $(grep -v '^#' F | xargs) cmd`
_SOURCE = re.compile(r"(?:^\s*|[;&|]\s*|\bthen\s+|\bdo\s+)(?:source|\.)\s+[\"']?([^\s\"';&|)]+)")
_CAT = re.compile(r"\$\(\s*(?:cat|grep\s+-v\s+\S+|sed\s+\S+)\s+[\"']?([^\s\"';&|)]+)[\"']?\s*\|\s*xargs")
_LOAD_DOTENV = re.compile(r"\b(?:load_dotenv|dotenv_values)\s*\(\s*(?:dotenv_path\s*=\s*)?(?:[rf]?[\"']([^\"']+)[\"'])?")
# pydantic-settings: SettingsConfigDict(env_file=".env") (v2) / class Config: env_file = ".env" (v1), a tuple of them
_SETTINGS_ENV_FILE = re.compile(r"\benv_file\s*=\s*[(\[]?\s*[rf]?[\"']([^\"']+)[\"']")


def dotenv_files(files: dict[str, str]) -> dict[str, str]:
    """{path: text} of the files given that are dotenv files."""
    return {p: t for p, t in files.items() if dotenv.is_dotenv(t, p)}


def _given(ref: str, envs: dict[str, str]) -> str | None:
    base = os.path.basename(ref.strip().strip("\"'"))
    return next((p for p in envs if os.path.basename(p) == base), None) if base else None


_ALLEXPORT = re.compile(r"\bset\s+([-+])(?:a\b|o\s+allexport\b)")


def sourced(text: str, files: dict[str, str], environ: dict[str, str] | None = None,
            numbered: list[tuple[int, str]] | None = None
            ) -> tuple[dict[str, tuple[str, int, str]], list[str], set[str]]:
    """The variables of the given dotenv files a shell script sources, in order: {KEY: (value, line, file)}, notes
    saying which, and the keys exported to the programs the script starts (bash: a line written `export K=V`, a file
    sourced under `set -a` / `set -o allexport`, `export $(cat F | xargs)`; the others are shell variables that only
    the script's own `$K` reads). `numbered`: the script's lines with their line in the file (a YAML task's)."""
    # a file of assignments only that the script sources is read alike whatever its name (`source config.sh`)
    envs = {**{p: t for p, t in files.items() if _assignments_only(t)}, **dotenv_files(files)}
    out: dict[str, tuple[str, int, str]] = {}
    exported: set[str] = set()
    notes: list[str] = []
    if not envs:
        return out, notes, exported
    scope = dict(environ or {})
    allexport = False
    for no, line in numbered or list(enumerate(text.splitlines(), 1)):
        if line.lstrip().startswith("#"):
            continue
        events = sorted([(m.start(), "set", m.group(1)) for m in _ALLEXPORT.finditer(line)]
                        + [(m.start(), "source", m.group(1)) for m in _SOURCE.finditer(line)]
                        + [(m.start(), "export", m.group(1)) for m in _CAT.finditer(line)])
        for _at, kind, arg in events:
            if kind == "set":
                allexport = arg == "-"
                continue
            path = _given(arg, envs)
            if path is None:
                continue
            marked = {b.key for b in dotenv.parse(envs[path])[0] if b.exported}
            for k, (v, ln) in dotenv.values(envs[path], {**scope, **{k: x[0] for k, x in out.items()}},
                                            override=True).items():
                out[k] = (v, ln, path)
                if allexport or kind == "export" or k in marked:
                    exported.add(k)
            notes.append(f"{os.path.basename(path)}: sourced by line {no} ({line.strip()[:60]}): its variables are "
                         f"the script's")
    return out, notes, exported


def _assignments_only(text: str) -> bool:
    bindings, bad = dotenv.parse(text)
    return not bad and any(b.value is not None for b in bindings) and all(re.fullmatch(r"[A-Za-z_]\w*", b.key)
                                                                          for b in bindings)


def named_on(words: list[str], files: dict[str, str]) -> list[str]:
    """The given dotenv files a command's words name (`--config x.env`, `--env-file=x.env`, a positional x.env)."""
    envs = dotenv_files(files)
    found: list[str] = []
    for w in words:
        path = _given(w.split("=", 1)[1] if w.startswith("-") and "=" in w else w, envs)
        if path is not None and path not in found:
            found.append(path)
    return found


def program_env(paths: list[str], files: dict[str, str], launch: dict[str, str], launch_file: str,
                launch_line: int) -> dict[str, tuple[str, int, str]]:
    """The environment the program builds from the dotenv files it loads (python-dotenv load_dotenv, override=False:
    a variable the launch line or the script already sets keeps that value): {KEY: (value, line, file)}."""
    out: dict[str, tuple[str, int, str]] = {}
    for p in paths:
        for k, (v, ln) in dotenv.values(files[p], launch).items():
            out.setdefault(k, (v, launch_line, launch_file) if k in launch else (v, ln, p))
    return out


def _prefixes(keys: list[str]) -> set[str]:
    words = [k.lower().split("_", 1)[0] for k in keys if "_" in k]
    return {w for w in words if words.count(w) >= 2}


def _known(name: str) -> bool:
    from rocm_tune.core.runners import hf
    return name in hf.MAPPED or name in hf.PASSTHROUGH or bool(hf.MODEL_FLAG.match(name)) \
        or name in ("batch_size", "micro_batch_size")


def _flags_of(name: str, value: str) -> dict[str, str] | None:
    """The flags one variable (its lower-cased name) says, or None when its name is none the program reads."""
    v = value.strip().lower()
    if name in E.METHOD_KEYS:
        return E.METHOD_FLAGS.get(v) if v in E.METHOD_FLAGS else None
    if name in ("precision", "mixed_precision", "dtype", "torch_dtype"):
        return E.PRECISION_FLAGS.get(v)
    name = E.ALIASES.get(name, name)
    return {name: value} if _known(name) else None


def as_flags(env: dict[str, tuple[str, int, str]]) -> tuple[dict[str, dict[str, tuple[str, int]]], list[str]]:
    """The variables read as the program's arguments, by file: {file: {flag: (value, line)}}, and notes. A variable
    is read by its lower-cased name, else by that name without a prefix word several variables share (TRAIN_)."""
    keys = [k for k in env if not k.upper().startswith(E.NOT_SETTINGS)]
    prefixes = _prefixes(keys)
    out: dict[str, dict[str, tuple[str, int]]] = {}
    read: list[str] = []
    for k in keys:
        value, line, file = env[k]
        low = k.lower()
        cands = [low] + ([low.split("_", 1)[1]] if "_" in low and low.split("_", 1)[0] in prefixes else [])
        for c in cands:
            got = _flags_of(c, value)
            if got is not None:
                for flag, v in got.items():
                    out.setdefault(file, {})[flag] = (v, line)
                read.append(f"{k}={value}")
                break
    notes = [f"the program's environment read as its arguments by name (pydantic-settings' convention): "
             f"{', '.join(read[:12])}"] if read else []
    return out, notes


def program_environ(p: str, text: str, files: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The environment the given Python program `p` reads: the dotenv file(s) it loads itself (load_dotenv("x.env"),
    or the `.env` beside it for a bare load_dotenv()), under the variables and dotenv files of the command of
    another given file that starts it (its `VAR=value` prefixes win: load_dotenv does not override)."""
    envs = dotenv_files(files)
    if not envs:
        return {}, []
    launch: dict[str, str] = {}
    loaded: list[str] = []
    base = os.path.basename(p)
    for q, t in files.items():
        if q == p or q in envs or base not in t:
            continue
        from rocm_tune.core.runners import launchers
        try:
            script = launchers.parse_script(t, q)
        except Exception:       # noqa: BLE001 - a file that does not read as a script starts nothing here
            continue
        src, _, exported = sourced(t, files, None, launchers.task_commands(t))
        for c in script.commands:
            if any(os.path.basename(w) == base for w in c.argv):
                launch = {**script.exports, **{k: v[0] for k, v in src.items() if k in exported}, **c.env}
                loaded += named_on(c.argv, files)
    for m in [*_LOAD_DOTENV.finditer(text), *_SETTINGS_ENV_FILE.finditer(text)]:
        path = _given(m.group(1) or ".env", envs) or (next(iter(envs)) if m.group(1) is None and len(envs) == 1
                                                     else None)
        if path is not None and path not in loaded:
            loaded.append(path)
    env = dict(launch)
    for path in loaded:
        for k, (v, _ln) in dotenv.values(files[path], launch).items():
            env.setdefault(k, v)
    notes = [f"{base}: its os.environ / os.getenv reads resolved against "
             f"{', '.join(os.path.basename(x) for x in loaded) or 'the launch line'}"] if env else []
    return env, notes
