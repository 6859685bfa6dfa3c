"""A Python training program that reads its settings from a YAML/JSON file (pure; nothing is executed).

`cfg = yaml.safe_load(open(args.config))`, `with open(CONFIG_PATH) as f: cfg = yaml.safe_load(f)`,
`cfg = OmegaConf.load(path)`, `cfg = load_yaml(args.config)` (a helper of the program that returns one of those):
the name stands for that file's data, and so do the parts the program takes of it (`mcfg = cfg["model"]`,
`train = cfg.get("training", {})`); `py_value` then reads `mcfg["name"]`, `cfg.model.name`, `cfg["t"].get("bs", 4)`.

Which file: the path the load is given, as `py_value` computes it (an argparse default, a module constant), matched
against the files the job gives (their path ends with it), else the file at that path beside the program (relative
to its folder or a folder above it, as a launcher that cds to the repository root runs it); when the path is not
computed, the one settings file the job gives. None of these: the name stays unbound (the model stays unknown).
"""

from __future__ import annotations

import ast
import os

from rocm_tune.core.runners.values import call_name, py_value
from rocm_tune.profiles.config_loaders import CONFIG_LOADERS, CONFIG_SUFFIXES

_UP = 3          # folders above the program's own searched for a relative config path


def _loader(call: ast.Call) -> bool:
    f = call.func
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and (f.value.id, f.attr) in CONFIG_LOADERS


def _helpers(tree) -> dict[str, int]:
    """The program's own functions that return a loaded config: name -> index of the parameter holding its path."""
    out: dict[str, int] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or not fn.args.args:
            continue
        loaded = {t.id for a in ast.walk(fn) if isinstance(a, ast.Assign) and isinstance(a.value, ast.Call)
                  and _loader(a.value) for t in a.targets if isinstance(t, ast.Name)}
        if any(isinstance(r, ast.Return) and (isinstance(r.value, ast.Call) and _loader(r.value) or
                                              isinstance(r.value, ast.Name) and r.value.id in loaded)
               for r in ast.walk(fn)):
            out[fn.name] = 0
    return out


def _inside(tree, names: set[str]) -> set[int]:
    """ids of the nodes inside the functions named `names` (a helper's own load reads its parameter's path)."""
    return {id(x) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and fn.name in names
            for x in ast.walk(fn)}


def _opened(tree) -> dict[str, ast.expr]:
    """`with open(P) as f`: f -> P (the file handle a loader is given)."""
    out: dict[str, ast.expr] = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.With, ast.AsyncWith)):
            for it in n.items:
                c, v = it.context_expr, it.optional_vars
                if isinstance(c, ast.Call) and call_name(c.func) == "open" and c.args and isinstance(v, ast.Name):
                    out.setdefault(v.id, c.args[0])
    return out


def _path_expr(call: ast.Call, helpers: dict[str, int], opened: dict[str, ast.expr]) -> ast.expr | None | bool:
    """The expression of the path a config-loading call reads; False when the call loads no config."""
    if _loader(call):
        arg = call.args[0] if call.args else None
    elif isinstance(call.func, ast.Name) and call.func.id in helpers:
        arg = call.args[helpers[call.func.id]] if call.args else None
        return arg
    else:
        return False
    if isinstance(arg, ast.Call) and call_name(arg.func) == "open" and arg.args:
        return arg.args[0]
    if isinstance(arg, ast.Name) and arg.id in opened:
        return opened[arg.id]
    if isinstance(arg, ast.Call) and call_name(arg.func) == "read_text" and isinstance(arg.func, ast.Attribute):
        return arg.func.value.args[0] if isinstance(arg.func.value, ast.Call) and arg.func.value.args else None
    return arg


def _norm(p: str) -> str:
    return os.path.normpath(p.replace("\\", "/")).lstrip("./") if p else ""


def choose(path: str | None, program: str, configs: dict[str, dict], read_beside) -> tuple[str, dict] | None:
    """The settings file a load of `path` reads: a given file whose path ends with it, else one beside the program
    (`read_beside(full_path)` -> data or None), else (path not computed) the only given settings file."""
    if path:
        want = _norm(path)
        hits = [q for q in configs if _norm(q) == want or _norm(q).endswith("/" + want)]
        if len(hits) == 1:
            return hits[0], configs[hits[0]]
        if hits:
            return None
        if os.path.isabs(path):
            got = read_beside(path)
            return (path, got) if isinstance(got, dict) else None
        here = os.path.dirname(os.path.abspath(program))
        for _ in range(_UP + 1):
            full = os.path.join(here, path)
            got = read_beside(full) if os.path.isfile(full) else None
            if isinstance(got, dict):
                return full, got
            here = os.path.dirname(here)
        return None
    if len(configs) == 1:
        (q, data), = configs.items()
        return q, data
    return None


def _dict_parts(tree, names: dict, bound: set[str]) -> bool:
    """`mcfg = cfg["model"]` / `cfg.model` / `cfg.get("model", {})` over a bound config: mcfg -> that dict."""
    grew = False
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id not in bound and isinstance(n.value, (ast.Subscript, ast.Attribute, ast.Call)):
            v = py_value(n.value, names)
            if isinstance(v, dict):
                names[n.targets[0].id] = v
                bound.add(n.targets[0].id)
                grew = True
    return grew


def bind_configs(tree, names: dict, program: str, configs: dict[str, dict], read_beside) -> list[str]:
    """Bind in `names` every name the program assigns a loaded settings file (and the dicts it takes of it);
    answers notes saying which file each load read."""
    helpers, opened = _helpers(tree), _opened(tree)
    notes: list[str] = []
    bound: set[str] = set()
    skip = _inside(tree, set(helpers))
    for n in ast.walk(tree):
        if id(n) in skip or not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Call)):
            continue
        expr = _path_expr(n.value, helpers, opened)
        if expr is False or n.targets[0].id in bound:
            continue
        path = py_value(expr, names) if isinstance(expr, ast.expr) else None
        hit = choose(path if isinstance(path, str) else None, program, configs, read_beside)
        if hit is None:
            continue
        names[n.targets[0].id] = hit[1]
        bound.add(n.targets[0].id)
        notes.append(f"line {n.lineno}: {n.targets[0].id} is the settings file {os.path.basename(hit[0])} the "
                     f"program loads" + (f" ({path})" if isinstance(path, str) else " (the only one given)"))
    for _ in range(4):
        if not bound or not _dict_parts(tree, names, bound):
            break
    return notes


def is_config_path(path: str) -> bool:
    return path.lower().endswith(CONFIG_SUFFIXES)
