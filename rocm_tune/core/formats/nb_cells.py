"""What a notebook's Python cells do besides assigning values (pure: ast + yaml, nothing is run).

``training_cell``: the cell that starts the training (``trainer.train()`` on a Trainer the notebook built): cells
after it load the pushed result for inference, so a model id they name is not the model trained.
``written_files``: the config files a cell writes from Python (``with open(P, "w") as f: f.write(S)`` /
``yaml.dump(D, f)`` / ``json.dump(D, f)``, ``OmegaConf.save(D, P)``, ``Path(P).write_text(S)``) as {name: text},
so the runner's own reader reads them like a ``%%writefile`` cell (Axolotl, LLaMA-Factory, ms-swift, DeepSpeed
configs written that way in Colab notebooks)."""
from __future__ import annotations

import ast
import json
import textwrap

from rocm_tune.core.runners.values import call_name, py_value

# the modes of open() that write a text file from its start (docs.python.org, built-in open)
_WRITE_MODES = ("w", "wt", "w+", "wt+")
_YAML_DUMPS = ("dump", "safe_dump")


def _parse(code: str):
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _trainer_names(trees: list) -> set[str]:
    """The names bound to a Trainer the notebook builds (`trainer = SFTTrainer(...)`, `Trainer(...)`,
    `GRPOTrainer(...)`: transformers' and TRL's trainer classes all end in "Trainer")."""
    out: set[str] = set()
    for tree in trees:
        for n in ast.walk(tree) if tree is not None else ():
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], ast.Name) and call_name(n.value.func).endswith("Trainer"):
                out.add(n.targets[0].id)
    return out


def _calls_train(tree, trainers: set[str]) -> bool:
    """A top-level statement `trainer.train(...)` / `stats = trainer.train()` on a bound Trainer."""
    for st in tree.body if tree is not None else ():
        v = st.value if isinstance(st, (ast.Expr, ast.Assign)) else None
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "train" \
                and isinstance(v.func.value, ast.Name) and v.func.value.id in trainers:
            return True
    return False


def training_cell(cells: list[str]) -> int | None:
    """The index of the first cell (Python text, shell lines already made `pass`) whose top-level code calls
    `.train()` on a Trainer the notebook built; None when none does."""
    trees = [_parse(c) for c in cells]
    trainers = _trainer_names(trees)
    if not trainers:
        return None
    return next((i for i, t in enumerate(trees) if _calls_train(t, trainers)), None)


def _value(node, names: dict):
    """py_value, plus what a config cell computes: `yaml.safe_load(S)` / `json.loads(S)` /
    `OmegaConf.create(D or S)` of a computed string or dict, `textwrap.dedent(S)`, `S.strip()`."""
    if isinstance(node, ast.Call) and node.args:
        name = call_name(node.func)
        inner = _value(node.args[0], names)
        if name in ("safe_load", "load", "create") and isinstance(inner, str):
            return _yaml(inner) if name != "load" or "yaml" in ast.unparse(node.func) else None
        if name == "loads" and isinstance(inner, str):
            try:
                return json.loads(inner)
            except ValueError:
                return None
        if name == "create" and isinstance(inner, dict):
            return inner
        if name == "dedent" and isinstance(inner, str):
            return textwrap.dedent(inner)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "strip" \
            and not node.args:
        s = _value(node.func.value, names)
        return s.strip() if isinstance(s, str) else None
    return py_value(node, names)


def _yaml(text: str):
    """A `yaml.safe_load(...)` of a literal in a cell: the runners' own loader (its limits hold), None when it
    does not parse."""
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runners.common import load_structured

    try:
        return load_structured(text, "a notebook cell's YAML")
    except UserError:
        return None


def _text(data, path: str, as_json: bool = False) -> str | None:
    """The file's text: a string as written, a dict dumped as JSON or YAML (by the call or the file's suffix)."""
    import yaml

    if isinstance(data, str):
        return data
    if not isinstance(data, dict):
        return None
    try:
        if as_json or path.lower().endswith(".json"):
            return json.dumps(data, indent=2) + "\n"
        return yaml.safe_dump(data, sort_keys=False)
    except (TypeError, ValueError, yaml.YAMLError):      # a value neither can write (a set, a tuple key)
        return None


def _open_target(node, names: dict) -> str | None:
    """`open(P, "w")` -> P (a computed str) when the mode writes text from the start."""
    if not (isinstance(node, ast.Call) and call_name(node.func) == "open" and node.args):
        return None
    mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"), None)
    path = py_value(node.args[0], names)
    return path if isinstance(path, str) and mode is not None and py_value(mode, names) in _WRITE_MODES else None


def _writes(call, handles: dict[str, str], names: dict) -> tuple[str, str] | None:
    """(path, text) one call writes: f.write(S), yaml.dump(D, f), json.dump(D, f), OmegaConf.save(D, P),
    Path(P).write_text(S), yaml.dump(D, open(P, "w"))."""
    name = call_name(call.func)
    args = list(call.args) + [k.value for k in call.keywords if k.arg in ("config", "f", "stream", "fp", "data")]
    if name == "write" and isinstance(call.func, ast.Attribute) and len(call.args) == 1:
        owner = call.func.value
        path = handles.get(owner.id) if isinstance(owner, ast.Name) else _open_target(owner, names)
        text = _text(_value(call.args[0], names), path or "")
        return (path, text) if path and text is not None else None
    if name == "write_text" and isinstance(call.func, ast.Attribute) and call.args:
        owner = call.func.value
        path = py_value(owner.args[0], names) if isinstance(owner, ast.Call) and call_name(owner.func) == "Path" \
            and owner.args else None
        text = _text(_value(call.args[0], names), path or "")
        return (path, text) if isinstance(path, str) and text is not None else None
    if name in _YAML_DUMPS + ("save",) and len(args) >= 2:
        sink = args[1]
        path = (handles.get(sink.id) if isinstance(sink, ast.Name) else _open_target(sink, names)) \
            if name != "save" else py_value(sink, names)
        if name == "dump" and "json" in ast.unparse(call.func):
            text = _text(_value(args[0], names), path or "", as_json=True)
        else:
            text = _text(_value(args[0], names), ".yaml")
        return (path, text) if isinstance(path, str) and text is not None else None
    return None


def _bind(st, names: dict) -> None:
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
        v = _value(st.value, names)
        if v is not None:
            names[st.targets[0].id] = v
        else:
            names.pop(st.targets[0].id, None)


def _walk(body: list, names: dict, handles: dict[str, str], out: dict[str, str]) -> None:
    """The statements in source order: assignments bind names (the value at that point), `with open(P, "w") as
    f` binds f to P inside its block, and each writing call adds its file (the last write of a path stands)."""
    for st in body:
        _bind(st, names)
        if isinstance(st, ast.With):
            inner = dict(handles)
            for item in st.items:
                path = _open_target(item.context_expr, names)
                if path and isinstance(item.optional_vars, ast.Name):
                    inner[item.optional_vars.id] = path
            _walk(st.body, names, inner, out)
            continue
        if isinstance(st, (ast.If, ast.For, ast.While, ast.Try)):
            _walk(getattr(st, "body", []), names, handles, out)
            continue
        for n in ast.walk(st):
            if isinstance(n, ast.Call):
                got = _writes(n, handles, names)
                if got is not None:
                    out[got[0]] = got[1]


def written_files(code: str) -> dict[str, str]:
    """{path as the program spells it: text} of the files a program's top-level code writes (see the module)."""
    tree = _parse(code)
    out: dict[str, str] = {}
    if tree is not None:
        _walk(tree.body, {}, {}, out)
    return out
