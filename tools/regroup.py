#!/usr/bin/env python3
"""Group `rocm_tune/core` by what each part decides (issue 24 item 5): move the modules, rewrite every reference.

    python3 tools/regroup.py            # apply: `git mv` each module still at its old place, rewrite references
    python3 tools/regroup.py --check    # exit 1 (and say what) while a module or a reference is left to move
    python3 tools/regroup.py --dry-run  # print what apply would do, change nothing

Deterministic and re-runnable (standard library only): a second run finds nothing to do. Meant to be run again
on a main that merged other work after this map was written: modules this map does not name stay where they
are (listed as "not placed" when they sit beside moved ones), and a module of the map that is gone is skipped.

What is rewritten, in rocm_tune/, tests/, benchmarks/, screenshots/, tools/, docs/, README.md, pyproject.toml
and .ci/ (inputs copied from the world, tests/fixtures and benchmarks/corpus, only in their *.py and README.md):
- dotted names: `rocm_tune.core.runs.watch`, `rocm_tune.core.runs.watch.snapshot` (patch targets, `-m`,
  import_module strings, `import ... as`), and the short `core.memory` of docstrings and comments;
- paths: `rocm_tune/core/plan.py`, `core/runs/catalogue.py`, `core/devices/`;
- `from PKG import NAME` where PKG.NAME is a moved module: `from rocm_tune.core import plan_search` becomes
  `from rocm_tune.core.plan import search as plan_search` (the local name is kept), split when the names of
  one statement now live in different modules.
A name is resolved against the modules that exist when the run starts plus the map's old names, by the longest
prefix: `rocm_tune.core.plan.Plan` is the old module plan's attribute (moved), `rocm_tune.core.plan.plan.Plan`
is the new module's (kept), which makes the rewrite idempotent.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import shutil
import subprocess
import sys
import textwrap
import tokenize

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = "rocm_tune.core"

# old module (or package) under rocm_tune.core -> new place. A package moves with everything in it.
MOVES: dict[str, str] = {
    # the model: what config.json says, how users name it, where it is cached, what LoRA wraps, what trains
    "model": "model.architecture",
    "model_names": "model.names",
    "model_cache": "model.cache",
    "model_lora": "model.lora",
    "trainable": "model.trainable",
    # the user's data
    "dataset": "data.dataset",
    "seqlen": "data.seqlen",
    # what a job needs: GPU memory, the one "fits", checkpoints on disk
    "memory": "memory.estimate",
    "fitting": "memory.fitting",
    "checkpoint_size": "memory.checkpoint_size",
    # the machine
    "devices": "hardware.devices",
    "rules": "hardware.rules",
    "doctor": "hardware.doctor",
    # the plan: request, answers, questions, search, explanations, speed, the typed Plan and its warnings
    "plan": "plan.plan",
    "planner": "plan.planner",
    "plan_search": "plan.search",
    "plan_explain": "plan.explain",
    "plan_request": "plan.request",
    "request": "plan.answers",
    "questions": "plan.questions",
    "throughput": "plan.throughput",
    "warnings": "plan.warnings",
    # judging a config before it trains: on paper (check), on the machine (preflight)
    "check": "check.check",
    "check_gpu": "check.gpu",
    "check_preflight": "check.preflight_plan",
    "preflight": "check.preflight",
    # runs: start, follow, explain, continue (api, catalogue, notify, procs, registry, rundir stay in runs/)
    "runs.launcher": "runs.launch.launcher",
    "runs.plan_launch": "runs.launch.plan_launch",
    "runs.supervisor": "runs.launch.supervisor",
    "runs.watch": "runs.watch.watch",
    "runs.sources": "runs.watch.sources",
    "runs.parsers": "runs.watch.parsers",
    "runs.history": "runs.watch.history",
    "runs.alerts": "runs.watch.alerts",
    "runs.measured": "runs.watch.measured",
    "runs.slurm": "runs.watch.slurm",
    "runs.diagnose": "runs.diagnose.diagnose",
    "runs.alert_fix": "runs.diagnose.alert_fix",
    "runs.oom_advice": "runs.diagnose.oom_advice",
    "runs.resume": "runs.resume.resume",
    "runs.retry": "runs.resume.retry",
    "runs.zero_convert": "runs.resume.zero_convert",
}

# the docstring of each package the moves make (light: no imports, so importing one module stays cheap)
PACKAGES: dict[str, str] = {
    "model": "The model: its architecture and exact parameter counts from config.json (architecture.py), the names "
             "users give it, where its config is cached, which layers LoRA wraps and which parameters train.",
    "data": "The user's dataset: token-length statistics (dataset.py) and the sequence lengths the collators "
            "really feed the model (seqlen.py).",
    "memory": "What a job needs: per-GPU training memory itemised (estimate.py), the one meaning of \"fits\" "
              "(fitting.py), and how big its checkpoints are on disk (checkpoint_size.py).",
    "hardware": "The machine: GPU detection and live samples (devices/), what each architecture can do (rules.py) "
                "and the system checks of `rocm-tune doctor` (doctor.py).",
    "plan": "The plan: the planner's request (request.py, answers.py, questions.py), its search and explanations "
            "(planner.py, search.py, explain.py, throughput.py), the typed Plan (plan.py) and its warning codes.",
    "check": "Judging a config before it trains: `rocm-tune check` on paper (check.py, gpu.py) and "
             "`rocm-tune preflight` on the machine (preflight.py; preflight_plan.py joins the two).",
    "runs.launch": "Starting a run: the detached launcher and stop (launcher.py), a plan as a run (plan_launch.py) "
                   "and the supervisor that owns one (supervisor.py).",
    "runs.watch": "Following a run: targets and snapshots (watch.py), log sources and parsers, the metric history, "
                  "alerts, measured memory and speed, Slurm jobs.",
    "runs.diagnose": "Why a run failed or hangs: the root cause from its logs (diagnose.py), the smallest change that "
                     "fits after an OOM (oom_advice.py) and one fix text for live alerts (alert_fix.py).",
    "runs.resume": "Continuing a run: from its newest checkpoint (resume.py), after an OOM (retry.py), at another "
                   "world size through DeepSpeed's universal checkpoint (zero_convert.py).",
}

# literal text edits that the name rewriting cannot make (applied where `old` is found; `new` never contains `old`)
EXTRA: list[tuple[str, str, str]] = [
    ("docs/internals.md", "## Plan (`rocm_tune/core/plan/plan.py`, `planner.py`, `request.py`, `vocabulary.py`)",
     "## Plan (`rocm_tune/core/plan/`: `plan.py`, `planner.py`, `request.py`, `answers.py`; `core/vocabulary.py`)"),
    ("docs/internals.md", "- `request.py`: `request_from_answers(", "- `answers.py`: `request_from_answers("),
    ("docs/internals.md", "The search (numbers) is `plan_search.py`, the reasons and warnings\n  `plan_explain.py`.",
     "The search (numbers) is `search.py`, the reasons and warnings\n  `explain.py`."),
    ("README.md", "`rocm_tune/core` decides (pure,",
     "`rocm_tune/core` decides (grouped by what each part decides: \"Layout\" in docs/internals.md; pure,"),
]

OWN = ("tools/regroup.py", "tests/test_regroup_tool.py")
SCOPE = ["rocm_tune", "tests", "benchmarks", "screenshots", "tools", "docs", ".ci", "README.md", "pyproject.toml"]
INPUTS = ("tests/fixtures/", "benchmarks/corpus/")      # copies of real files: only our *.py and README.md there
SKIP_DIRS = {".git", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".benchmarks", "__snapshots__",
             "golden", "node_modules", ".venv", "venv"}
TEXT_EXT = (".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".sh", ".yaml", ".yml")

DOTTED = re.compile(r"(?:(?<![\w.])rocm_tune\.|(?<![\w./]))core(?:\.[A-Za-z_]\w*)+")
SLASHED = re.compile(r"(?:(?<![\w.-])rocm_tune/|(?<![\w./-]))core(?:/[A-Za-z_]\w*)+(?:\.py\b|/)?")


# ------------------------------------------------------------------------------------------------ the map
def module_files(root: str) -> dict[str, str]:
    """Every module of the package as it is now: dotted name -> file (a package -> its __init__.py)."""
    out: dict[str, str] = {}
    base = os.path.join(root, "rocm_tune")
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), root)[:-3].replace(os.sep, ".")
                out[rel[: -len(".__init__")] if rel.endswith(".__init__") else rel] = os.path.join(d, f)
    return out


def full_map(root: str) -> dict[str, str]:
    """The moves per module (a package expanded to its modules, found at the old place or the new one)."""
    out: dict[str, str] = {}
    for old, new in MOVES.items():
        o, n = f"{PKG}.{old}", f"{PKG}.{new}"
        out[o] = n
        if not _is_package_move(root, old, new):
            continue
        for name in (o, n):
            top = os.path.join(root, *name.split("."))
            if os.path.isdir(top):
                for sub, dirs, files in os.walk(top):
                    dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
                    for f in sorted(files):
                        if not f.endswith(".py"):
                            continue
                        rel = os.path.relpath(os.path.join(sub, f), top)[:-3].replace(os.sep, ".")
                        if rel == "__init__":
                            continue
                        rel = rel[: -len(".__init__")] if rel.endswith(".__init__") else rel
                        out[f"{o}.{rel}"] = f"{n}.{rel}"
                break
    return out


def _path(root: str, name: str) -> str:
    return os.path.join(root, *f"{PKG}.{name}".split("."))


def _is_package_move(root: str, old: str, new: str) -> bool:
    """The move takes a whole package (devices/), not one module (a name of PACKAGES is a module made package)."""
    if old in PACKAGES:
        return False
    return any(os.path.isfile(os.path.join(_path(root, x), "__init__.py")) for x in (old, new))


class Resolver:
    def __init__(self, root: str) -> None:
        self.map = full_map(root)
        self.known = set(module_files(root)) | set(self.map)
        self.packages = {f"{PKG}.{old}" for old, new in MOVES.items() if _is_package_move(root, old, new)}

    def rewrite(self, name: str) -> tuple[str, str | None]:
        """(name with its module part moved, the old module that matched or None when it stays)."""
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            head = ".".join(parts[:i])
            if head in self.known:
                if head in self.map:
                    return ".".join([self.map[head]] + parts[i:]), head
                return name, None
        return name, None


# ------------------------------------------------------------------------------------------------ rewriting
def _dotted(res: Resolver, m: re.Match) -> str:
    tok = m.group(0)
    short = not tok.startswith("rocm_tune.")
    new, hit = res.rewrite("rocm_tune." + tok if short else tok)
    if hit is None:
        return tok
    return new[len("rocm_tune."):] if short else new


def _slashed(res: Resolver, m: re.Match) -> str:
    tok = m.group(0)
    suffix = ".py" if tok.endswith(".py") else "/" if tok.endswith("/") else ""
    body = tok[: len(tok) - len(suffix)]
    short = not body.startswith("rocm_tune/")
    name = ("rocm_tune/" + body if short else body).replace("/", ".")
    new, hit = res.rewrite(name)
    if hit is None or (suffix == "/" and hit == name and hit not in res.packages):
        return tok      # `core/plan/` names the package plan, not the old module plan.py
    path = new.replace(".", "/")
    return (path[len("rocm_tune/"):] if short else path) + suffix


def _import_from_lines(node: ast.ImportFrom, res: Resolver) -> list[str] | None:
    """The statement(s) replacing `node`, or None when nothing in it moved."""
    if node.level or not node.module or not (node.module == "rocm_tune" or node.module.startswith("rocm_tune.")):
        return None
    groups: dict[str, list[str]] = {}
    changed = False
    for a in node.names:
        full = f"{node.module}.{a.name}"
        new, hit = res.rewrite(full)
        if hit is None:             # a module that stays, or an attribute of one
            mod, name = node.module, a.name
        else:                       # a moved module, or an attribute of one
            mod, name = new.rsplit(".", 1)
            changed = True
        local = a.asname or a.name
        groups.setdefault(mod, []).append(name if local == name else f"{name} as {local}")
    if not changed:
        return None
    return [f"from {mod} import {', '.join(names)}" for mod, names in groups.items()]


def _wrap(stmt: str, indent: str, width: int = 110) -> str:
    """`from M import a, b` as it is, or in parentheses one name a line when longer than `width`."""
    if len(indent) + len(stmt) <= width:
        return stmt
    head, names = stmt.split(" import ", 1)
    inner = "".join(f"\n{indent}    {n}," for n in names.split(", "))
    return f"{head} import ({inner}\n{indent})"


def _comments(src: str) -> dict[int, str]:
    out: dict[int, str] = {}
    try:
        for t in tokenize.generate_tokens(io.StringIO(src).readline):
            if t.type == tokenize.COMMENT:
                out[t.start[0]] = t.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def rewrite_python(src: str, res: Resolver) -> str:
    """`from X import Y` statements through the AST, then every dotted name and path elsewhere."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return rewrite_text(src, res)
    lines = src.splitlines(keepends=True)
    comments = None
    spans: list[tuple[int, int, int, int, list[str]]] = []
    protected: list[tuple[int, int]] = []       # `from rocm_tune... import` lines: the AST decides, not the text
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "rocm_tune":
            protected.append((node.lineno, node.end_lineno or node.lineno))
            new = _import_from_lines(node, res)
            if new is not None:
                spans.append((node.lineno, node.col_offset, node.end_lineno or node.lineno,
                              node.end_col_offset or 0, new))
    # text outside those statements: names and paths
    out_lines = []
    for i, line in enumerate(lines, start=1):
        if any(a <= i <= b for a, b in protected):
            out_lines.append(line)
        else:
            out_lines.append(rewrite_text(line, res))
    lines = out_lines
    for lineno, col, end_lineno, end_col, new in sorted(spans, reverse=True):
        if comments is None:
            comments = _comments(src)
        indent = " " * col
        notes = "  ".join(comments[n] for n in range(lineno, end_lineno + 1) if n in comments)
        stmts = [_wrap(stmt, indent) for stmt in new]
        if notes:
            first, nl, rest = stmts[0].partition("\n")
            stmts[0] = f"{first}  {notes}{nl}{rest}"
        tail = lines[end_lineno - 1][end_col:]
        if tail.strip().startswith("#"):    # the comment went to the first line
            tail = "\n" if tail.endswith("\n") else ""
        lines[lineno - 1: end_lineno] = [lines[lineno - 1][:col] + ("\n" + indent).join(stmts) + tail]
    return "".join(lines)


def rewrite_text(text: str, res: Resolver) -> str:
    text = DOTTED.sub(lambda m: _dotted(res, m), text)
    return SLASHED.sub(lambda m: _slashed(res, m), text)


def scope_files(root: str) -> list[str]:
    out: list[str] = []
    for entry in SCOPE:
        p = os.path.join(root, entry)
        if os.path.isfile(p):
            out.append(p)
            continue
        for d, dirs, files in os.walk(p):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for f in sorted(files):
                fp = os.path.join(d, f)
                rel = os.path.relpath(fp, root).replace(os.sep, "/")
                if rel.startswith(INPUTS) and not (f.endswith(".py") or f == "README.md"):
                    continue
                if f.endswith(TEXT_EXT) or rel.startswith(".ci/"):
                    out.append(fp)
    return out


def rewrites(root: str, res: Resolver) -> dict[str, str]:
    """file -> its new text, for every file in scope whose text changes."""
    out: dict[str, str] = {}
    for fp in scope_files(root):
        if os.path.relpath(fp, root).replace(os.sep, "/") in OWN:   # they name the old places on purpose
            continue
        try:
            with open(fp, encoding="utf-8") as fh:
                src = fh.read()
        except (OSError, UnicodeDecodeError):
            continue
        new = rewrite_python(src, res) if fp.endswith(".py") else rewrite_text(src, res)
        rel = os.path.relpath(fp, root).replace(os.sep, "/")
        for path, old, repl in EXTRA:
            if rel == path:
                new = new.replace(old, repl)
        if rel == LAYOUT_DOC:
            new = with_layout(new)
        if new != src:
            out[fp] = new
    return out


# ------------------------------------------------------------------------------------------------ moving
def pending_moves(root: str) -> list[tuple[str, str]]:
    """(old path, new path) of each module or package of MOVES still at its old place."""
    out = []
    for old, new in MOVES.items():
        o = os.path.join(root, *f"{PKG}.{old}".split("."))
        n = os.path.join(root, *f"{PKG}.{new}".split("."))
        if _is_package_move(root, old, new):
            if os.path.isfile(os.path.join(o, "__init__.py")) and not os.path.exists(n):
                out.append((o, n))
        elif os.path.isfile(o + ".py") and not os.path.exists(n + ".py"):
            out.append((o + ".py", n + ".py"))
    return out


def missing_packages(root: str, moves: list[tuple[str, str]]) -> list[str]:
    """The packages of PACKAGES that will hold a module and have no __init__.py yet."""
    targets = {os.path.dirname(n) for _o, n in moves}
    out = []
    for pkg in PACKAGES:
        d = _path(root, pkg)
        if (os.path.isdir(d) or d in targets) and not os.path.isfile(os.path.join(d, "__init__.py")):
            out.append(d)
    return out


def _git_mv(root: str, src: str, dst: str) -> None:
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    r = subprocess.run(["git", "mv", os.path.relpath(src, root), os.path.relpath(dst, root)], cwd=root,
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:       # not tracked (or not a git checkout): a plain move
        shutil.move(src, dst)


def _write_init(root: str, pkg: str) -> str:
    d = os.path.join(root, *f"{PKG}.{pkg}".split("."))
    os.makedirs(d, exist_ok=True)
    p = os.path.join(d, "__init__.py")
    words = PACKAGES[pkg]
    lines, cur = [], ""
    for w in words.split(" "):
        if cur and len(cur) + 1 + len(w) > 112:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(cur)
    with open(p, "w", encoding="utf-8") as fh:
        fh.write('"""' + "\n".join(lines) + '"""\n')
    subprocess.run(["git", "add", os.path.relpath(p, root)], cwd=root, capture_output=True, check=False)
    return p


def unplaced(root: str) -> list[str]:
    """Modules left flat beside the ones moved (new since the map was written): a hint to place them."""
    moved_dirs = {os.path.dirname(os.path.join(root, *f"{PKG}.{old}".split("."))) for old in MOVES}
    keep = {f"{PKG}.{m}" for m in ("errors", "files", "units", "vocabulary", "runs.api", "runs.catalogue",
                                   "runs.notify", "runs.procs", "runs.registry", "runs.rundir")}
    out = []
    for d in sorted(moved_dirs):
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if f.endswith(".py") and f != "__init__.py":
                name = os.path.relpath(os.path.join(d, f), root)[:-3].replace(os.sep, ".")
                if name not in keep and name[len(PKG) + 1:] not in MOVES:
                    out.append(name)
    return out


LAYOUT_BEGIN = "<!-- layout of core: written by tools/regroup.py -->"
LAYOUT_END = "<!-- end of the layout -->"
LAYOUT_DOC = "docs/internals.md"


def layout_text() -> str:
    """The layout section of docs/internals.md (package names without the `core` prefix: nothing to rewrite)."""
    rows = [
        "top level: `errors.py`, `files.py`, `units.py`, `vocabulary.py`: what every part shares (one-line errors, "
        "reading the user's files, units, every choice and limit of a plan).",
        *(f"`{pkg.replace('.', '/')}/`: {PACKAGES[pkg]}" for pkg in PACKAGES),
        "`runners/` (one module per runner: its defaults, reader and writer), `formats/` (which runner a file "
        "belongs to), `export/` (the bundle a plan becomes).",
        "`runs/`: `api.py`, `registry.py`, `rundir.py`, `procs.py` (what a run is, where it lives, its processes), "
        "`catalogue.py` (failure signatures), `notify.py`; and the four packages above.",
    ]
    wrapped = [textwrap.fill(r, width=110, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)
               for r in rows]
    return "\n".join([LAYOUT_BEGIN, "## Layout of `rocm_tune/core` (by what each part decides)", *wrapped,
                      LAYOUT_END]) + "\n"


def with_layout(text: str) -> str:
    """`text` (docs/internals.md) with the layout section, before its first `## ` section or in place."""
    block = layout_text()
    if LAYOUT_BEGIN in text and LAYOUT_END in text:
        a = text.index(LAYOUT_BEGIN)
        b = text.index(LAYOUT_END) + len(LAYOUT_END)
        return text[:a] + block.rstrip("\n") + text[b:]
    i = text.find("\n## ")
    return text + "\n" + block if i < 0 else text[: i + 1] + block + "\n" + text[i + 1:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when anything is left to move or rewrite")
    ap.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")
    ap.add_argument("--root", default=ROOT, help="the checkout (default: the one holding this script)")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)
    res = Resolver(root)
    moves = pending_moves(root)
    texts = rewrites(root, res)
    inits = missing_packages(root, moves)
    for name in unplaced(root):
        print(f"not placed (not in the map, left where it is): {name}")
    if args.check or args.dry_run:
        for o, n in moves:
            print(f"to move: {os.path.relpath(o, root)} -> {os.path.relpath(n, root)}")
        for d in inits:
            print(f"to create: {os.path.relpath(d, root)}/__init__.py")
        for fp in sorted(texts):
            print(f"to rewrite: {os.path.relpath(fp, root)}")
        left = len(moves) + len(texts) + len(inits)
        print(f"regroup: {len(moves)} moves, {len(inits)} packages, {len(texts)} files to rewrite")
        return 1 if (args.check and left) else 0
    for fp, text in sorted(texts.items()):          # rewrite first, at the old paths, then move
        with open(fp, "w", encoding="utf-8") as fh:
            fh.write(text)
    for o, n in moves:
        _git_mv(root, o, n)
    for pkg in PACKAGES:                            # the packages the moves made (a module's name until now)
        d = _path(root, pkg)
        if os.path.isdir(d) and not os.path.isfile(os.path.join(d, "__init__.py")):
            _write_init(root, pkg)
    print(f"regroup: moved {len(moves)}, created {len(inits)} packages, rewrote {len(texts)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
