"""Shell scripts and command lines: logical commands with their env, flags and line numbers (pure).

What bash really does is what counts: a backslash joins the next line, but a ``#`` that starts a word on a
joined line is a comment to the end of that line, so the command ends there and every flag on the lines
after it is run as a separate (failing) command -- silently dropped from the training (seen in real
ms-swift scripts, ms-swift#5199). That is reported, not repaired.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field

from rocm_tune.core.runners import values
from rocm_tune.profiles.command_wrappers import SHELL_VALUE_OPTS, SHELLS, WRAPPERS
from rocm_tune.core.runners.common import Finding

_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
# $NAME, ${NAME} and bash's ${NAME op word} for op in :- - := = :? ? :+ + (bash(1) "Parameter Expansion")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class Token:
    text: str
    line: int          # 1-based physical line in the file


@dataclass
class Command:
    tokens: list[Token]
    env: dict[str, str]            # prefixes of this command (VAR=value cmd ...)
    line: int                      # first line
    dropped: list[Token] = field(default_factory=list)   # flags cut off by a comment inside a continuation
    cut_line: int | None = None                           # the line that cut them
    cut_kind: str | None = None                           # comment | space
    wrappers: tuple[str, ...] = ()                        # nohup / env / exec / time / srun before the command
    env_files: tuple[str, ...] = ()                       # docker/apptainer/uv --env-file FILE: its variables count
    wrapper_args: dict[str, list[str]] = field(default_factory=dict)   # srun / mpirun -> their own options

    @property
    def argv(self) -> list[str]:
        return [t.text for t in self.tokens]


@dataclass
class Script:
    commands: list[Command]
    exports: dict[str, str]        # export VAR=... lines (and plain VAR=... of an exported name), in file order
    sbatch: dict[str, tuple[str, int]]   # #SBATCH --key -> (value, line)
    findings: list[Finding]
    arrays: dict[str, list[Token]] = field(default_factory=dict)   # NAME=( ... ): its words
    # plain VAR=... lines (a command of assignments only): shell variables that $VAR expands, but bash does not
    # put them in a program's environment unless exported (NPROC_PER_NODE=8 on its own line does not reach swift)
    shell_vars: dict[str, str] = field(default_factory=dict)
    # (line, as written, value) of each `$(( ))` / `$(expr ...)` computed from the script's own variables
    computed: list[tuple[int, str, str]] = field(default_factory=list)


_ARRAY_START = re.compile(r"^\s*(?:export\s+|declare\s+-a\s+|local\s+)?([A-Za-z_][A-Za-z0-9_]*)(\+?)=\((.*)$")
_ARRAY_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}$")


def _arrays(lines: list[str], exports: dict[str, str]) -> tuple[list[str], dict[str, list[Token]]]:
    """bash arrays (``ARGS=( --tp 2 \\n --sp )``, as Megatron-LM, slime and Miles scripts group their flags): their
    words by name, and the lines with each definition blanked (its line numbers kept). Comments inside the
    parentheses are bash comments; ``NAME+=( ... )`` appends."""
    out = list(lines)
    arrays: dict[str, list[Token]] = {}
    i = 0
    while i < len(out):
        m = _ARRAY_START.match(_strip_comment(out[i]))
        if not m:
            i += 1
            continue
        name, append, rest = m.group(1), m.group(2), m.group(3)
        parts: list[tuple[int, str]] = []
        j, body = i, rest
        while True:
            text = _strip_comment(body)
            end = text.rfind(")")
            if end >= 0 and text[end + 1:].strip() in ("", ";"):
                parts.append((j + 1, text[:end]))
                break
            parts.append((j + 1, text.rstrip().rstrip("\\")))
            j += 1
            if j >= len(out):
                break
            body = out[j]
        words = [Token(_expand(t.text, exports), t.line) for t in _tokens(parts)]
        arrays[name] = (arrays.get(name, []) if append else []) + words
        for k in range(i, min(j, len(out) - 1) + 1):
            out[k] = ""
        i = j + 1
    return out, arrays


def _with_arrays(toks: list[Token], arrays: dict[str, list[Token]]) -> list[Token]:
    """``${NAME[@]}`` (quoted or not) replaced by the array's words; an unknown array stays as written."""
    out: list[Token] = []
    for t in toks:
        m = _ARRAY_REF.match(t.text)
        if m and m.group(1) in arrays:
            out += [Token(w.text, w.line) for w in arrays[m.group(1)]]
        else:
            out.append(t)
    return out


def _parameter(m: re.Match, env: dict[str, str]) -> str:
    """One ${NAME op word} / $NAME as bash expands it where the files set NAME (or give its default); an expansion
    that depends on the environment the script runs in stays as written (values.unread names it later)."""
    name, op, word = m.group(1) or m.group(4), m.group(2), m.group(3)
    value = env.get(name)
    if op is None:
        return value if value else m.group(0)
    if value is not None and (value != "" or not op.startswith(":")):      # set (and not empty, for `:op`)
        return word if op[-1] == "+" else value
    if op[-1] in "-=":
        return word
    if op[-1] == "+":
        return "" if name in env else m.group(0)
    return m.group(0)          # :? / ?: the script stops unless the environment sets it (unknown here)


def _substitution(body: str, env: dict[str, str]) -> str | None:
    """`$(( arithmetic ))` or `$(expr A op B)` computed over what the files set; None for any other command."""
    if body.startswith("(") and body.endswith(")"):
        v = values.shell_arith(_VAR.sub(lambda m: _parameter(m, env), body[1:-1]), env)
        return None if v is None else str(v)
    words = _split(body)
    if words[:1] == ["expr"]:
        v = values.expr_command([_VAR.sub(lambda m: _parameter(m, env), w) for w in words[1:]], env)
        return None if v is None else str(v)
    return None


def _computed(into: list | None, line: int, raw: str, value: str) -> str:
    """`value` (the expansion of `raw`), recorded in `into` when a substitution in it was computed here."""
    if into is not None and "$(" in raw and "$(" not in value and "`" not in value:
        into.append((line, raw, value))
    return value


def _expand(text: str, env: dict[str, str]) -> str:
    out, pos = [], 0
    for start, end in _substitution_spans(text):
        out.append(_VAR.sub(lambda m: _parameter(m, env), text[pos:start]))
        got = _substitution(text[start + 2:end - 1], env)
        out.append(text[start:end] if got is None else got)
        pos = end
    out.append(_VAR.sub(lambda m: _parameter(m, env), text[pos:]))
    return "".join(out)


def _substitution_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of each `$( ... )` / `$(( ... ))` in `text`, parentheses balanced (an unclosed one: none)."""
    spans: list[tuple[int, int]] = []
    i = text.find("$(")
    while i >= 0:
        depth, j = 0, i + 1
        while j < len(text):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        if depth:
            break
        spans.append((i, j + 1))
        i = text.find("$(", j + 1)
    return spans


def _strip_comment(line: str) -> str:
    """bash: `#` starting a word (outside quotes) comments out the rest of the line; `a#500` is a word."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


_HIDDEN_SPACE = "\x1f"


def _split(text: str) -> list[str]:
    """shlex's words, a `$( ... )` / `$(( ... ))` kept one word as bash keeps it (`$(expr 16 / $n)`)."""
    spans = _substitution_spans(text)
    for start, end in reversed(spans):
        text = text[:start] + re.sub(r"\s", _HIDDEN_SPACE, text[start:end]) + text[end:]
    try:
        words = shlex.split(text)
    except ValueError:   # an unterminated quote in an excerpt: words as written, without the stray quotes
        words = [w.strip("'\"") for w in text.split() if w.strip("'\"")]
    return [w.replace(_HIDDEN_SPACE, " ") for w in words] if spans else words


def _continues(line: str) -> bool:
    """bash joins the next line only when the backslash is the line's very last character."""
    return line.rstrip("\r\n").endswith("\\") and not line.lstrip().startswith("#")


def _space_after_backslash(line: str) -> bool:
    """`--flag value \\ ` + spaces: an escaped space, not a continuation -- the command ends on this line."""
    t = line.rstrip("\r\n")
    return t != t.rstrip() and t.rstrip().endswith("\\") and not line.lstrip().startswith("#")


def _quote_after(line: str, quote: str | None) -> str | None:
    """The quote still open at the end of `line` (bash: a quoted string runs over newlines), given the one open at
    its start: `'` ends only at `'`; inside `"` a backslash escapes; outside quotes `#` starting a word comments out
    the rest and a backslash escapes the next character."""
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if quote == "'":
            if ch == "'":
                quote = None
        elif quote == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                quote = None
        elif ch == "\\":
            i += 1
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            break
        i += 1
    return quote


QUOTED_LINES_MAX = 200     # a quote left open longer than this is a stray one (an excerpt), not a string


def _closes_within(lines: list[str], i: int, quote: str) -> bool:
    """The quote open after line i closes within QUOTED_LINES_MAX lines."""
    q: str | None = quote
    for j in range(i + 1, min(len(lines), i + 1 + QUOTED_LINES_MAX)):
        q = _quote_after(lines[j], q)
        if q is None:
            return True
    return False


_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def _heredoc_bodies(lines: list[str]) -> set[int]:
    """Indexes of the lines inside here-documents (`cat <<EOF ... EOF`, `python - <<'PY' ... PY`): text, not shell,
    so an apostrophe there opens no quoted string."""
    body: set[int] = set()
    i = 0
    while i < len(lines):
        m = _HEREDOC.search(_strip_comment(lines[i]))
        i += 1
        if m is None:
            continue
        end = m.group(2)
        while i < len(lines) and lines[i].strip() != end:
            body.add(i)
            i += 1
        i += 1
    return body


def _logical_lines(lines: list[str]):
    """Yield (start_line, [(line_no, text)], dropped[(line_no, text)], (cut kind, cut line) | None) per command.

    Two bash traps end a continued command early, and every line after it up to the end of the chain is then
    run as other commands: a `#` comment line inside the chain ("comment"), and whitespace after a line's
    final backslash ("space")."""
    i, n = 0, len(lines)
    heredoc = _heredoc_bodies(lines)
    while i < n:
        start = i
        parts = [(i + 1, lines[i])]
        dropped: list[tuple[int, str]] = []
        cut = None
        cur = lines[i]
        quote = None if i in heredoc else _quote_after(cur, None)
        if quote is not None and not _closes_within(lines, i, quote):
            quote = None
        while i + 1 < n and (quote is not None or _continues(cur) or _space_after_backslash(cur)):
            if quote is not None:
                # a quoted string runs over the newline (GPT_ARGS="<newline> --num-layers 36 \\<newline> ... ")
                i += 1
                cur = lines[i]
                quote = _quote_after(cur, quote)
                parts.append((i + 1, cur))
                continue
            if _space_after_backslash(cur):
                cut = ("space", i + 1)
                j = i
                while j + 1 < n and lines[j + 1].strip() and (_continues(lines[j]) or _space_after_backslash(lines[j])):
                    j += 1
                    dropped.append((j + 1, lines[j]))
                i = j
                break
            i += 1
            cur = lines[i]
            if cur.lstrip().startswith("#"):
                # bash: the comment ends the command; the continuation lines after it are other commands
                cut = ("comment", i + 1)
                j = i
                # the commented line's own backslash is part of the comment: the command is over
                while j + 1 < n and lines[j + 1].strip() and (lines[j].rstrip().endswith("\\") or j == i):
                    if not lines[j + 1].lstrip().startswith(("-", "#")):
                        break          # a program starts on this line: bash runs it as a command of its own
                    j += 1
                    dropped.append((j + 1, lines[j]))
                    if not lines[j].rstrip().endswith("\\"):
                        break
                i = j
                break
            parts.append((i + 1, cur))
            quote = None if i in heredoc else _quote_after(cur, None)
            if quote is not None and not _closes_within(lines, i, quote):
                quote = None
        yield start + 1, parts, dropped, cut
        i += 1


def _tokens(parts: list[tuple[int, str]]) -> list[Token]:
    out: list[Token] = []
    text = ""
    starts: list[tuple[int, int]] = []
    for ln, t in parts:
        t = _strip_comment(t.rstrip("\n"))
        if t.rstrip().endswith("\\"):
            t = t.rstrip()[:-1] + " "
        starts.append((len(text), ln))
        text += t + " "
    pos = 0
    for w in _split(text):
        probe = w.split("=", 1)[0] if w.startswith("-") else w
        at = text.find(probe[:40], pos) if probe else -1
        if at >= 0:
            pos = at + 1
        loc = at if at >= 0 else pos
        ln = starts[0][1]
        for off, line_no in starts:
            if off <= loc:
                ln = line_no
        out.append(Token(w, ln))
    return out


def _yaml_task_commands(text: str) -> list[tuple[int, str]] | None:
    """A task file that lists shell commands in YAML (dstack's ``commands:`` with ``env:``; a plain
    multi-line command there is one YAML scalar, its lines joined by spaces): [(line in the file, shell line)],
    the env entries first as exports. None for anything else."""
    if not re.search(r"^(?:commands|services|jobs)\s*:", text, re.M):
        return None
    try:
        import yaml

        data = yaml.safe_load(text)
    except Exception:             # noqa: BLE001 - not YAML: a shell script after all
        return None
    if isinstance(data, dict) and isinstance(data.get("services"), dict) and "commands" not in data:
        return _compose_commands(data["services"], text.splitlines())
    if isinstance(data, dict) and isinstance(data.get("jobs"), dict) and "commands" not in data:
        return _workflow_commands(data, text.splitlines())
    cmds = data.get("commands") if isinstance(data, dict) else None
    if not isinstance(cmds, list) or not all(isinstance(c, str) for c in cmds):
        return None
    raw = text.splitlines()

    def line_of(s: str) -> int:
        first = " ".join(s.split()[:2])     # YAML folds a plain multi-line scalar: its first words are on the line
        return next((i for i, t in enumerate(raw, 1) if first and first in t), 1)

    env = data.get("env")
    items = [f"{k}={v}" for k, v in env.items() if v is not None] if isinstance(env, dict) else \
        [e for e in env if isinstance(e, str) and "=" in e] if isinstance(env, list) else []
    out = [(line_of(e), "export " + shlex.quote(e)) for e in items]
    out += [(line_of(c), " ".join(c.split("\n"))) for c in cmds]
    return out


# words that make a compose service's command the training (the others: a database, a notebook server, tensorboard)
_TRAINING_WORDS = re.compile(r"\b(?:python3?|torchrun|accelerate|deepspeed|llamafactory-cli|swift|axolotl|tune|trl|"
                             r"megatron|litgpt|autotrain)\b")


def _compose_words(v) -> str | None:
    """A compose `command:` / `entrypoint:` as a shell line: a string as written (compose splits it shell-like),
    a list (exec form) quoted word by word."""
    if isinstance(v, str):
        return v
    if isinstance(v, list) and all(isinstance(w, (str, int, float)) for w in v):
        return shlex.join(str(w) for w in v)
    return None


def _compose_commands(services: dict, raw: list[str]) -> list[tuple[int, str]] | None:
    """A docker compose file (compose-spec 05-services.md): the service that runs the training, as [(line, shell
    line)]: its `env_file:` files sourced in order (a later file wins), then its `environment:` (which wins over
    env_file: Docker docs "Environment variables precedence"), then `entrypoint` + `command`."""
    def line_of(s: str) -> int:
        first = " ".join(str(s).split()[:2])
        return next((i for i, t in enumerate(raw, 1) if first and first in t), 1)

    runs = [(name, svc) for name, svc in services.items() if isinstance(svc, dict)
            and (_compose_words(svc.get("command")) or _compose_words(svc.get("entrypoint")))]
    name, svc = next(((n, v) for n, v in runs if _TRAINING_WORDS.search(
        f"{_compose_words(v.get('entrypoint')) or ''} {_compose_words(v.get('command')) or ''}")), (None, None))
    if svc is None:
        return None
    out: list[tuple[int, str]] = []
    files = svc.get("env_file")
    for f in files if isinstance(files, list) else [files] if files else []:
        path = f.get("path") if isinstance(f, dict) else f
        if isinstance(path, str):
            out.append((line_of(path), f"set -a; . {shlex.quote(path)}; set +a"))
    env = svc.get("environment")
    items = [f"{k}={v}" for k, v in env.items() if v is not None] if isinstance(env, dict) else \
        [e for e in env if isinstance(e, str) and "=" in e] if isinstance(env, list) else []
    out += [(line_of(e.split("=", 1)[0]), "export " + shlex.quote(e)) for e in items]
    words = " ".join(w for w in (_compose_words(svc.get("entrypoint")), _compose_words(svc.get("command"))) if w)
    cmd = svc.get("command") if svc.get("command") is not None else svc.get("entrypoint")
    out.append((line_of(str(cmd[0] if isinstance(cmd, list) and cmd else cmd)), " ".join(words.split("\n"))))
    return out


def _env_exports(env, line_of) -> list[tuple[int, str]]:
    items = [f"{k}={v}" for k, v in env.items() if v is not None] if isinstance(env, dict) else []
    return [(line_of(e.split("=", 1)[0] + ":"), "export " + shlex.quote(e)) for e in items]


def _run_block(block: str, raw: list[str], after: int) -> list[tuple[int, str]]:
    """A step's `run: |` script as its shell lines at their lines in the file (a `\\` line joined to the next)."""
    out: list[tuple[int, str]] = []
    first = next((ln for ln in block.splitlines() if ln.strip()), "")
    at = next((i for i in range(after, len(raw) + 1) if first and first.strip() in raw[i - 1]), after)
    pending: tuple[int, str] | None = None
    for k, ln in enumerate(block.splitlines()):
        no = at + k
        if pending is not None:
            pending = (pending[0], pending[1][:-1] + " " + ln.strip())
        else:
            pending = (no, ln.strip())
        if not pending[1].endswith("\\"):
            if pending[1]:
                out.append(pending)
            pending = None
    if pending is not None and pending[1]:
        out.append((pending[0], pending[1].rstrip("\\")))
    return out


def _workflow_commands(data: dict, raw: list[str]) -> list[tuple[int, str]] | None:
    """A GitHub Actions workflow (docs "Workflow syntax": `env` at the workflow, the job and the step, the more
    specific winning; a step's `run` is a bash script): the job whose steps run the training, as [(line, shell
    line)]: the workflow's and the job's env exported, then each run step (its own env exported before it)."""
    def line_of(s: str) -> int:
        return next((i for i, t in enumerate(raw, 1) if s and s in t), 1)

    for job in (j for j in data["jobs"].values() if isinstance(j, dict) and isinstance(j.get("steps"), list)):
        runs = [st for st in job["steps"] if isinstance(st, dict) and isinstance(st.get("run"), str)]
        if not any(_TRAINING_WORDS.search(st["run"]) for st in runs):
            continue
        out = _env_exports(data.get("env"), line_of) + _env_exports(job.get("env"), line_of)
        for st in runs:
            out += _env_exports(st.get("env"), line_of)
            out += _run_block(st["run"], raw, max([n for n, _ in out] + [1]))
        return out
    return None


def task_commands(text: str) -> list[tuple[int, str]] | None:
    """The shell lines a YAML task file (dstack `commands:`, docker compose `services:`) runs, else None."""
    return _yaml_task_commands(text)


def _early_assignments(lines: list[str], inherited: dict[str, str] | None) -> dict[str, str]:
    """Plain assignments (MODEL_DIR=...) over the caller's environment: what the arrays that use them see."""
    exports: dict[str, str] = dict(inherited or {})
    for line in lines:
        m = _ASSIGN.match(_strip_comment(line).strip())
        if m and not m.group(2).startswith("("):
            val = _split(m.group(2))
            exports.setdefault(m.group(1), _expand(val[0] if val else "", exports))
    return exports


def _sbatch_lines(lines: list[str]) -> dict[str, tuple[str, int]]:
    """`#SBATCH --flag value` lines: {flag: (value, line)}."""
    out: dict[str, tuple[str, int]] = {}
    for no, line in enumerate(lines, 1):
        m = re.match(r"^#SBATCH\s+(--?[A-Za-z-]+)(?:[ =](\S+))?", line)
        if m:
            out[m.group(1)] = (m.group(2) or "", no)
    return out


def parse_script(text: str, file: str, arrays: dict[str, list[Token]] | None = None,
                 inherited: dict[str, str] | None = None) -> Script:
    """`arrays`: bash arrays defined in another file the job gives (a sourced ``models/<model>.sh``); `inherited`:
    the environment the command that runs this script gives it (`MBS=64 CPU_OFFLOAD=False bash x.sh`): exported
    variables its `${MBS:-8}` reads."""
    task = _yaml_task_commands(text)
    if task is not None:
        return _parse_task(task, file, inherited)
    lines, own = _arrays(text.splitlines(), _early_assignments(text.splitlines(), inherited))
    arrays = {**(arrays or {}), **own}
    exports = dict(inherited or {})
    shell_vars: dict[str, str] = {}
    sbatch = _sbatch_lines(lines)
    findings: list[Finding] = []
    commands: list[Command] = []
    computed: list[tuple[int, str, str]] = []
    fed: dict[int, tuple[dict[str, str], tuple[str, ...]]] = {}     # heredoc lines -> the wrapped shell reading them
    for start, parts, dropped, cut in _logical_lines(lines):
        toks = _with_arrays(_tokens(parts), arrays)
        for n_seg, (seg, last) in enumerate(_segments(toks)):
            if seg[0].text == "export":
                _export(seg, start, exports, shell_vars, computed)
                continue
            env: dict[str, str] = dict(fed[start][0]) if start in fed else {}
            env_files: list[str] = []
            wargs: dict[str, list[str]] = {}
            k, wrappers, inner, lead = _unwrap(seg, env, {**shell_vars, **exports}, computed, env_files, wargs)
            wrappers = list(fed[start][1] if start in fed else ()) + wrappers
            if inner is not None:    # `bash -c '...'`, `ssh host "..."`, `sbatch --wrap=...`: a command line of its own
                commands += _inner_commands(inner, file, arrays, {**shell_vars, **exports, **env}, env, wrappers,
                                            env_files)
                continue
            if k == len(seg):    # plain assignments: shell variables for what follows, exported only if already so
                for name, value in env.items():
                    (exports if name in exports else shell_vars)[name] = value
                if last and cut is not None and cut[0] == "comment":
                    findings.append(_lost_prefixes(file, cut[1], list(env)))
                continue
            body = lead + _split_unquoted(seg[k:], parts, {**shell_vars, **exports, **env}, computed)
            dropped_toks = _tokens(dropped) if dropped and last else []
            cmd = Command(tokens=body, env=env, line=seg[0].line if n_seg else start, dropped=dropped_toks,
                          wrappers=tuple(wrappers), env_files=tuple(env_files), wrapper_args=wargs)
            commands.append(cmd)
            _feeds_heredoc(cmd, parts, lines, fed)
            if cut is not None and dropped_toks:
                findings.append(_cut_finding(file, cut, dropped_toks))
                cmd.cut_line, cmd.cut_kind = cut[1], cut[0]
    return Script(commands=commands, exports=exports, sbatch=sbatch, findings=findings, arrays=own,
                  shell_vars=shell_vars, computed=computed)


_SEPARATORS = ("&&", "||", ";", "|", "&")
_KEYWORDS = ("do", "then", "else", "!", "{")      # bash reserved words a command may follow on its line


def _segments(toks: list[Token]):
    """(words, is it the last) of each command in a list (`cd /w && A=1 torchrun ...; echo done`, `... | tee log`,
    `... &`): bash runs each on its own, with its own prefixes."""
    segs: list[list[Token]] = [[]]
    for t in toks:
        if t.text in _SEPARATORS:
            segs.append([])
        elif t.text.endswith(";") and not t.text.endswith("\\;") and len(t.text) > 1:
            segs[-1].append(Token(t.text[:-1], t.line))
            segs.append([])
        else:
            segs[-1].append(t)
    kept = [s for s in segs if s]
    return [(s, i == len(kept) - 1) for i, s in enumerate(kept)]


def _export(words: list[Token], line: int, exports: dict[str, str], shell_vars: dict[str, str],
            computed: list) -> None:
    """`export A=1 B` (B assigned before): into the environment of the commands after it."""
    for t in words[1:]:
        m = _ASSIGN.match(t.text)
        if m:
            exports[m.group(1)] = _computed(computed, line, t.text, _expand(m.group(2), {**shell_vars, **exports}))
        elif t.text in shell_vars:
            exports[t.text] = shell_vars[t.text]


def _feeds_heredoc(cmd: Command, parts: list[tuple[int, str]], lines: list[str],
                   fed: dict[int, tuple[dict[str, str], tuple[str, ...]]]) -> None:
    """`docker exec -i -e A=1 box bash <<EOF` + lines + `EOF`: the shell in the container runs those lines, with the
    environment and the wrappers of the command feeding them."""
    if not cmd.tokens or os.path.basename(cmd.tokens[0].text) not in SHELLS or not (cmd.env or cmd.wrappers):
        return
    m = _HEREDOC.search(_strip_comment(parts[-1][1]))
    if m is None:
        return
    for no in range(parts[-1][0] + 1, len(lines) + 1):
        if lines[no - 1].strip() == m.group(2):
            break
        fed[no] = (dict(cmd.env), cmd.wrappers)


def _inner_commands(inner: Token, file: str, arrays: dict[str, list[Token]], scope: dict[str, str],
                    env: dict[str, str], wrappers: list[str], env_files: list[str]) -> list[Command]:
    """The commands of a command line a wrapper hands to a shell (`bash -c '...'`, ssh's remote command), at the
    lines of the file they are written on, with the wrapper's environment and names."""
    sub = parse_script(inner.text, file, arrays, scope)
    base = inner.line - 1
    for c in sub.commands:
        for t in c.tokens:
            t.line += base
        c.line += base
        c.env = {**env, **c.env}
        c.wrappers = tuple(wrappers) + c.wrappers
        c.env_files = tuple(env_files) + c.env_files
    return sub.commands


def _unwrap(toks: list[Token], env: dict[str, str], scope: dict[str, str], computed: list | None,
            env_files: list[str], wargs: dict[str, list[str]]) -> tuple[int, list[str], Token | None, list[Token]]:
    """Where the command inside its wrappers starts: `A=1 srun -N 2 docker exec -e B=2 -w /w box torchrun ...`
    -> (index of `torchrun`, [srun, docker], None, []). The prefixes' assignments and the environment the wrappers
    pass in (docker -e, apptainer --env, SINGULARITYENV_/APPTAINERENV_, mpirun -x, srun --export) go into `env`,
    the files their --env-file names into `env_files`, each wrapper's own option words into `wargs`.
    A command line handed to a shell (`bash -c STR`, `ssh host STR`, `sbatch --wrap STR`) comes back as a Token;
    `uv run -m mod` as the words `python -m` to put before `mod`. A wrapper that runs no command (`docker ps`,
    a bare `nohup`) is the command itself."""
    k, n = 0, len(toks)
    wrappers: list[str] = []
    while k < n:
        w = toks[k].text
        m = _ASSIGN.match(w)
        if m:
            env[m.group(1)] = _computed(computed, toks[k].line, w, _expand(m.group(2), {**scope, **env}))
            k += 1
            continue
        if w in _KEYWORDS and k + 1 < n:      # `for ...; do torchrun ...; done`: the command after the keyword
            k += 1
            continue
        base = os.path.basename(w)
        if base in SHELLS:
            at = _shell_c(toks, k + 1)
            return (k, wrappers, None, []) if at is None else (at, wrappers + [base], toks[at], [])
        spec = WRAPPERS.get(base)
        got = None if spec is None else _wrapper_end(spec, toks, k + 1, env, {**scope, **env}, env_files)
        if spec is None or got is None:
            break
        j, inner, module = got
        wrappers.append(base)
        wargs.setdefault(base, [t.text for t in toks[k + 1:j]])
        for prefix in spec.get("env_prefixes", ()):    # SINGULARITYENV_X=1: X=1 in the container
            env.update({key[len(prefix):]: v for key, v in {**scope, **env}.items() if key.startswith(prefix)})
        if inner is not None:
            return j, wrappers, inner, []
        if module:
            return j, wrappers, None, [Token("python", toks[j].line), Token("-m", toks[j].line)]
        k = j
    return k, wrappers, None, []


def _shell_c(toks: list[Token], j: int) -> int | None:
    """`bash [-l] [-o opt] -c STR` / `sh -lc STR`: the index of STR, else None (`bash script.sh` runs a file)."""
    has_c = False
    while j < len(toks) and toks[j].text[:1] in "-+" and len(toks[j].text) > 1:
        w = toks[j].text
        if w in SHELL_VALUE_OPTS:
            j += 2
            continue
        has_c = has_c or (not w.startswith("--") and "c" in w[1:])
        j += 1
    return j if has_c and j < len(toks) else None


def _wrapper_end(spec: dict, toks: list[Token], j: int, env: dict[str, str], scope: dict[str, str],
                 env_files: list[str]) -> tuple[int, Token | None, bool] | None:
    """(index of the command the wrapper runs, the command line it hands to a shell, `-m`) for the wrapper whose
    name is at j - 1; None when it runs none (another subcommand, nothing after its options)."""
    n = len(toks)
    subs = spec["sub"]
    if subs:
        sub = next((s for s in subs if [t.text for t in toks[j:j + len(s)]] == list(s)), None)
        if sub is None:
            return None
        j += len(sub)
    module, inner = False, None
    while j < n and toks[j].text.startswith("-") and toks[j].text not in ("-", "--"):
        w = toks[j].text
        name, _, value = w.partition("=") if w.startswith("--") else (w, "", "")
        if name in spec.get("string_opts", ()):
            text = value if "=" in w else (toks[j + 1].text if j + 1 < n else "")
            inner = Token(text, toks[j].line)
        module = module or name in spec.get("module", ())
        if name in spec.get("env_files", ()):
            env_files.append(_expand(value if "=" in w else (toks[j + 1].text if j + 1 < n else ""), scope))
        j += _option_words(spec, toks, j, env, scope)
    if inner is not None:
        return j, inner, False
    if spec.get("after_dashdash"):
        dd = next((i for i in range(j, n) if toks[i].text == "--"), None)
        if dd is None:
            return None
        j = dd + 1
    elif j < n and toks[j].text == "--":
        j += 1
    j += spec["positionals"]
    if spec.get("string") and j < n:
        return j, Token(" ".join(t.text for t in toks[j:]), toks[j].line), False
    return (j, None, module) if j < n else None


def _option_words(spec: dict, toks: list[Token], j: int, env: dict[str, str], scope: dict[str, str]) -> int:
    """How many words the wrapper's option at j takes (itself and its values); the environment it passes in
    goes into `env`. A cluster of short options (`-it`, `-dit`) ends at the first one that takes a value, the
    rest of the word (`-oL`, `-N0`) or the next word being that value."""
    w, n = toks[j].text, len(toks)
    nxt = toks[j + 1].text if j + 1 < n else ""
    if w.startswith("--") and "=" in w:
        name, value = w.split("=", 1)
        _wrapper_env(spec, name, value, env, scope)
        return 1
    if w in spec.get("two_values", ()):
        return 3
    if w in spec.get("env_pairs", ()):
        if j + 2 < n:
            env[nxt] = _expand(toks[j + 2].text, scope)
        return 3
    if w in spec["value"]:
        _wrapper_env(spec, w, nxt, env, scope)
        return 2
    if w in spec["flags"]:
        return 1
    if not w.startswith("--") and len(w) > 2:
        for i, ch in enumerate(w[1:], 1):
            opt = "-" + ch
            if opt in spec["value"] or (opt not in spec["flags"] and spec["unknown_takes_value"]):
                if w[i + 1:]:
                    _wrapper_env(spec, opt, w[i + 1:], env, scope)
                    return 1
                _wrapper_env(spec, opt, nxt, env, scope)
                return 2
        return 1
    return 2 if spec["unknown_takes_value"] else 1


_ENV_ITEM = re.compile(r",(?=[A-Za-z_][A-Za-z0-9_]*=)")


_RANKS = {"srun": (("--ntasks-per-node",), ("-n", "--ntasks"), ("-N", "--nodes"), ()),
          "mpi": (("-npernode", "--npernode", "-N", "-ppn"), ("-np", "-n", "--np", "-c"), (),
                  ("-H", "-host", "--host", "-hostfile", "--hostfile", "-machinefile", "--machinefile", "-f", "-hosts"))}


def ranks_per_node(cmd: Command, nodes: int | None) -> tuple[int, str] | None:
    """(processes per node, the option) that srun / mpirun start of a program without a launcher of its own
    (`srun --ntasks-per-node=8 python train.py`: 8 ranks, one per GPU, torch.distributed reading SLURM_*/OMPI_*):
    srun(1) --ntasks-per-node / -n over -N (or the job's nodes); mpirun(1) -npernode / -N, mpiexec.hydra -ppn,
    -np on one host (none named)."""
    for name, words in cmd.wrapper_args.items():
        kind = "srun" if name in ("srun", "salloc") else "mpi" if name.startswith(("mpirun", "mpiexec", "orterun")) \
            else None
        if kind is None:
            continue
        per_node, total, node_opts, hosts = _RANKS[kind]
        opts = _option_values(words, WRAPPERS[name])
        n_nodes = next((int(opts[o]) for o in node_opts if opts.get(o, "").isdigit()), nodes)
        for o in per_node:
            if opts.get(o, "").isdigit() and int(opts[o]) > 0:
                return int(opts[o]), f"{name} {o}"
        for o in total:
            v = int(opts[o]) if opts.get(o, "").isdigit() else 0
            if v > 0 and not any(h in opts for h in hosts) and (n_nodes or 1) > 0 and v % (n_nodes or 1) == 0:
                return v // (n_nodes or 1), f"{name} {o}"
    return None


def _option_values(words: list[str], spec: dict) -> dict[str, str]:
    """{option: value} of a wrapper's own option words (`--ntasks-per-node=8`, `-n 8`, `-n8`, `-np 8`)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("--") and "=" in w:
            k, v = w.split("=", 1)
            out[k] = v
        elif w in spec["value"] and i + 1 < len(words):
            out[w] = words[i + 1]
            i += 1
        elif w.startswith("-") and not w.startswith("--") and len(w) > 2 and w[:2] in spec["value"]:
            out[w[:2]] = w[2:]
        elif w.startswith("-"):
            out.setdefault(w, "")
        i += 1
    return out


def env_file_values(text: str) -> dict[str, str]:
    """A docker/apptainer --env-file: `KEY=VALUE` a line, `#` comment lines and blank lines skipped, the value as
    written (docker does not strip quotes); a bare `KEY` passes the caller's value (not known here)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = _ASSIGN.match(line.strip().removeprefix("export "))
        if m and not line.lstrip().startswith("#"):
            out[m.group(1)] = m.group(2)
    return out


def is_env_file(text: str) -> bool:
    """Every line a `KEY=VALUE`, a bare `KEY`, a comment or blank: what --env-file reads."""
    lines = [t.strip() for t in text.splitlines() if t.strip() and not t.strip().startswith("#")]
    return bool(lines) and all(_ASSIGN.match(t.removeprefix("export ")) or re.fullmatch(r"[A-Za-z_]\w*", t)
                               for t in lines)


def _wrapper_env(spec: dict, option: str, value: str, env: dict[str, str], scope: dict[str, str]) -> None:
    """`-e KEY=VAL` / `--env KEY=VAL` / `-x KEY=VAL` set KEY in the command's environment; `-e KEY` passes the
    caller's KEY; apptainer's --env and srun's --export take several, comma-separated (`ALL,A=1,B=2`)."""
    if option not in spec.get("env", ()) and option not in spec.get("export", ()):
        return
    items = _ENV_ITEM.split(value) if spec.get("env_csv") else [value]
    for item in items:
        key, eq, val = item.partition("=")
        if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            env[key] = _expand(val, scope)
        elif key in scope and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            env[key] = scope[key]


_WHOLE_VAR = re.compile(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$")


def _split_unquoted(toks: list[Token], parts: list[tuple[int, str]], env: dict[str, str],
                    computed: list | None = None) -> list[Token]:
    """The command's words with variables expanded as bash does: a word that is one unquoted ``$args`` /
    ``${args}`` is split on whitespace (bash's word splitting, IFS unset), so ``args="--stage dpo --bf16 True"``
    then ``deepspeed train.py $args`` passes four words; ``"$args"`` stays one word. Splitting keeps quote
    characters inside the value as they are (bash does not re-read quotes after an expansion)."""
    raw = " ".join(_strip_comment(t) for _, t in parts)
    out: list[Token] = []
    pos = 0
    for t in toks:
        m = _WHOLE_VAR.match(t.text)
        value = _computed(computed, t.line, t.text, _expand(t.text, env))
        at = raw.find(t.text, pos) if m else -1
        if at >= 0:
            pos = at + len(t.text)
        if m and (m.group(1) or m.group(2)) in env and at >= 0 and raw[at - 1:at] not in ('"', "'") \
                and value.count("`") % 2 == 0:     # a command's output not run here (`$(date ...)`): in its word
            out += [Token(w, t.line) for w in _split_outside_substitutions(value)]
        else:
            out.append(Token(value, t.line))
    return out


def _split_outside_substitutions(value: str) -> list[str]:
    """bash's word splitting of an unquoted expansion: on whitespace, a `$( ... )` left unrun (its output is not
    known here) kept inside its word (`--tensorboard-dir out/x_$(date "+%Y")`, a `pwd` in backquotes)."""
    spans = _substitution_spans(value) + [m.span() for m in re.finditer(r"`[^`]*`", value)]
    for start, end in sorted(spans, reverse=True):
        value = value[:start] + re.sub(r"\s", _HIDDEN_SPACE, value[start:end]) + value[end:]
    # str.split() would split on the hidden separator too (Python counts \x1f as whitespace): bash's IFS only
    return [w.replace(_HIDDEN_SPACE, " ") for w in re.split(r"[ \t\r\n]+", value) if w]


def _parse_task(task: list[tuple[int, str]], file: str, inherited: dict[str, str] | None = None) -> Script:
    """The commands of a YAML task file (`_yaml_task_commands`), each line parsed as a script of its own."""
    script = Script(commands=[], exports=dict(inherited or {}), sbatch={}, findings=[])
    for no, line in task:
        one = parse_script(line, file)
        for c in one.commands:
            for t in c.tokens:
                t.line = no
            c.line = no
            c.env = {**script.exports, **c.env}
            c.tokens = [Token(_expand(t.text, {**script.shell_vars, **script.exports, **c.env}), t.line)
                        for t in c.tokens]
            script.commands.append(c)
        script.exports.update(one.exports)
        script.shell_vars.update(one.shell_vars)
    return script


def _cut_finding(file: str, cut: tuple[str, int], dropped_toks: list[Token]) -> Finding:
    """The flags a comment line or a space after the backslash cut off a continued command."""
    kind, cut_line = cut
    flags = [t.text for t in dropped_toks if t.text.startswith("--")]
    lost = f"{len(flags)} flag(s) after it never reach the program ({', '.join(flags[:8])}" \
           f"{', ...' if len(flags) > 8 else ''})"
    if kind == "comment":
        return Finding.of("shell-comment-cuts-command", file, cut_line,
                          f"the '#' comment on line {cut_line} inside a backslash-continued command ends the "
                          f"command: " + lost, f"delete line {cut_line} (or move it below the command)")
    return Finding.of("shell-space-after-backslash", file, cut_line,
                      f"whitespace after the backslash on line {cut_line} makes it an escaped space, not a line "
                      f"continuation: the command ends there and " + lost,
                      f"delete the spaces after the backslash on line {cut_line}")


def _lost_prefixes(file: str, cut_line: int, names: list[str]) -> Finding:
    """`A=1 B=2 \\` + `# a commented line \\` + `program ...`: the comment ends the command after the assignments,
    which become unexported shell variables; the program on the next line runs without them."""
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    return Finding.of("shell-comment-cuts-command", file, cut_line,
                      f"the '#' comment on line {cut_line} inside a backslash-continued command ends the command: "
                      f"the variables before it ({shown}) are not exported and never reach the program after it",
                      f"delete line {cut_line} (or move it below the command)")


def without_cutting_comments(text: str) -> tuple[str, list[int]]:
    """The script as its author meant it: every comment line that cuts a continued command removed, the
    whitespace after a final backslash removed; and the lines changed. Applied until none is left."""
    removed: list[int] = []
    while True:
        sc = parse_script(text, "")
        cuts = sorted({(c.cut_line, c.cut_kind) for c in sc.commands if c.cut_line}, reverse=True)
        if not cuts:
            return text, sorted(removed)
        lines = text.splitlines(keepends=True)
        for ln, kind in cuts:
            if kind == "space":       # the trailing whitespace goes, the line stays
                body = lines[ln - 1].rstrip("\r\n")
                lines[ln - 1] = body.rstrip() + lines[ln - 1][len(body):]
            else:
                del lines[ln - 1]
            removed.append(ln)
        text = "".join(lines)


def flag_values(tokens: list[Token], lists: dict[str, list[str]] | None = None) -> dict[str, tuple[str, int]]:
    """--key value / --key=value / bare --flag (-> "true") pairs, last one wins. `lists`, when given, receives
    every value of each `--key v1 v2 ...` (argparse nargs="+", ms-swift's List[str] fields)."""
    out: dict[str, tuple[str, int]] = {}
    i = 0
    while i < len(tokens):
        w = tokens[i].text
        if w.startswith("--") and len(w) > 2:
            if "=" in w:
                k, v = w[2:].split("=", 1)
                out[k] = (v, tokens[i].line)
            elif i + 1 < len(tokens) and not tokens[i + 1].text.startswith("--"):
                vals = [tokens[i + 1].text]
                j = i + 2
                # multi-value flags (swift --dataset a b c): keep the first, skip the rest
                while j < len(tokens) and not tokens[j].text.startswith("-") and "=" not in tokens[j].text \
                        and not tokens[j].text.endswith((".py", ".yaml", ".yml", ".json")):
                    vals.append(tokens[j].text)
                    j += 1
                out[w[2:]] = (vals[0], tokens[i].line)
                if lists is not None:
                    lists[w[2:]] = vals
                i = j
                continue
            else:
                out[w[2:]] = ("true", tokens[i].line)
        i += 1
    return out


def shquote(s: str) -> str:
    return shlex.quote(s)
