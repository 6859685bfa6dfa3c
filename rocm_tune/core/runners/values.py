"""A setting's value written as something to compute instead of a literal (pure; nothing is executed).

One home for every reader: bash arithmetic `$(( ))` and `$(expr a op b)` over the variables the script sets
(launchers._expand), a Python expression over the module's literal assignments (f-string fields, str.format, the
`int(128 / nproc_per_node)` a launcher writes), and `unread`: the form of a value that is still a template, so that
the check says which value was not read and why instead of cutting a number out of an expression."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from rocm_tune.profiles.value_forms import VALUE_FORMS

# the environment the program being read starts with (core/formats/env_reads.program_environ: the .env files it
# loads, the variables its launch line sets): os.getenv / os.environ reads resolve against it; empty: the default
ENVIRON: ContextVar[dict[str, str] | None] = ContextVar("ENVIRON", default=None)
_LIMIT = 1 << 63            # bash arithmetic is 64-bit; beyond it (or a huge power) the value is not computed
_FORMS = tuple((name, re.compile(rx), what) for name, rx, what in VALUE_FORMS)


def unread(value) -> tuple[str, str] | None:
    """(form, what it is) when `value` is a template or expression still to compute; None for a literal."""
    if not isinstance(value, str):
        return None
    for name, rx, what in _FORMS:
        if rx.search(value):
            return name, what
    return None


def unread_note(native: str, value: str, fallback: str) -> str | None:
    """The assumption's words for a setting whose value is not read: which value, its form, what is used."""
    form = unread(value)
    return None if form is None else f"{native} {value}: {form[1]}; {fallback}"


# ------------------------------------------------------------------------------------------------ bash arithmetic
_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\d+)|\$\{([A-Za-z_]\w*)\}|\$?([A-Za-z_]\w*)|"
                    r"(\*\*|<<|>>|[-+*/%()&|^~]))")
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_"


def _bash_number(text: str) -> int | None:
    """bash integer constants: 0x hex, a leading 0 octal, base#digits (bash(1) ARITHMETIC EVALUATION)."""
    try:
        if "#" in text:
            base, digits = text.split("#", 1)
            b = int(base)
            if not 2 <= b <= 64:
                return None
            alphabet = _DIGITS if b > 36 else _DIGITS[:36]
            n = 0
            for ch in digits if b > 36 else digits.lower():
                d = alphabet.index(ch)
                if d >= b:
                    return None
                n = n * b + d
            return n
        if text[:2] in ("0x", "0X"):
            return int(text, 16)
        return int(text, 8) if len(text) > 1 and text[0] == "0" else int(text)
    except ValueError:
        return None


def shell_arith(expr: str, env: dict[str, str], _depth: int = 0) -> int | None:
    """The value of a bash arithmetic expression over literals and the variables `env` sets (a variable's value is
    itself arithmetic, as bash reads it); None when a variable is not set here (the environment may set it),
    on division by zero, an overflow or anything else (assignment, comparison, ternary)."""
    if _depth > 8:
        return None
    words: list[str] = []
    pos = 0
    text = expr.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            return None
        pos = m.end()
        num, braced, name, op = m.groups()
        if num is not None:
            v = _bash_number(num)
            if v is None:
                return None
            words.append(str(v))
        elif braced or name:
            ref = env.get(braced or name)
            if ref is None or ref.strip() == "":
                return None
            v = shell_arith(ref, env, _depth + 1)
            if v is None:
                return None
            words.append(f"({v})")
        else:
            words.append(op)
    if not words:
        return None
    try:
        tree = ast.parse(" ".join(words), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return _int_tree(tree.body)


def _c_div(a: int, b: int, mod: bool) -> int | None:
    if b == 0:
        return None
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)      # C: truncation toward zero
    return a - q * b if mod else q


_INT_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
            ast.Div: lambda a, b: _c_div(a, b, False), ast.Mod: lambda a, b: _c_div(a, b, True),
            ast.Pow: lambda a, b: a ** b if 0 <= b <= 64 else None,
            ast.LShift: lambda a, b: a << b if 0 <= b < 64 else None,
            ast.RShift: lambda a, b: a >> b if 0 <= b < 64 else None,
            ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b}


def _int_tree(node) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        v = node.value
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
        x = _int_tree(node.operand)
        if x is None:
            return None
        v = -x if isinstance(node.op, ast.USub) else ~x if isinstance(node.op, ast.Invert) else x
    elif isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        a, b = _int_tree(node.left), _int_tree(node.right)
        if a is None or b is None or abs(a) >= _LIMIT or abs(b) >= _LIMIT:
            return None
        v = _INT_OPS[type(node.op)](a, b)
    else:
        return None
    return v if v is not None and abs(v) < _LIMIT else None


def expr_command(args: list[str], env: dict[str, str]) -> int | None:
    """`expr A OP B [OP C ...]` (coreutils expr: decimal integers, + - * / %, left to right when every operator has
    one precedence - all of + - or all of * / %): its output; None for anything else (a word that is no integer, as
    `$N` the shell did not expand, mixed precedence, a division by zero). `env` is unused: the shell expands first."""
    del env
    if len(args) < 3 or len(args) % 2 == 0:
        return None
    ops, nums = args[1::2], args[0::2]
    if not (set(ops) <= {"+", "-"} or set(ops) <= {"*", "/", "%"}) or \
            not all(re.fullmatch(r"[-+]?\d{1,18}", n) for n in nums):
        return None
    v: int | None = int(nums[0])
    for op, n in zip(ops, nums[1:]):
        b = int(n)
        v = None if v is None else v + b if op == "+" else v - b if op == "-" else v * b if op == "*" else \
            _c_div(v, b, op == "%")
        if v is None or abs(v) >= _LIMIT:
            return None
    return v


# ------------------------------------------------------------------------------------------------ Python
_CALLS: dict[str, Callable[..., Any]] = {"int": int, "float": float, "str": str, "round": round, "abs": abs, "min": min, "max": max}
_PY_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
           ast.Pow: lambda a, b: a ** b}


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def call_name(func) -> str:
    """The called name: `f` of `f(...)`, `attr` of `x.attr(...)`; "" otherwise."""
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _joined_path(parts: list) -> str | None:
    """A path built from pieces (`BASE / "models" / "qwen3-8b"`, `os.path.join(BASE, "qwen3-8b")`): the pieces that
    are text joined by `/`; a base that is not (`Path(__file__).parent`) is left out, since the folders after it
    still name the model (the last one is what resolve_model reads). None when the last piece is no text."""
    if not parts or not isinstance(parts[-1], str) or not parts[-1].strip():
        return None
    return "/".join(p.rstrip("/") for p in parts if isinstance(p, str) and p)


def _binop(node: ast.BinOp, names: dict):
    a, b = py_value(node.left, names), py_value(node.right, names)
    op = type(node.op)
    if op is ast.Div and isinstance(b, str):          # pathlib: Path("a") / "b"
        return _joined_path([a, b])
    if op not in _PY_OPS or a is None or b is None:
        return None
    if isinstance(a, str) and isinstance(b, str) and op is ast.Add:
        return a + b if len(a) + len(b) < 100_000 else None
    if not (_number(a) and _number(b)) or abs(a) >= _LIMIT or abs(b) >= _LIMIT:
        return None
    if op is ast.Pow and not (0 <= b <= 64):
        return None
    try:
        v = _PY_OPS[op](a, b)
    except (ZeroDivisionError, OverflowError):
        return None
    return v if not isinstance(v, float) or math.isfinite(v) else None


def _attribute(node: ast.Attribute, names: dict):
    """`args.model_name` (an argparse default, bound as `args.<dest>`), `script_args.model_name` (a dataclass field's
    default, bound as `*.<field>`), `torch.bfloat16` (its own name, as str() of it reads)."""
    if isinstance(node.value, ast.Name):
        for key in (f"{node.value.id}.{node.attr}", f"*.{node.attr}"):
            if key in names:
                return names[key]
        if node.value.id == "torch":
            return f"torch.{node.attr}"
    base = py_value(node.value, names)
    return base.get(node.attr) if isinstance(base, dict) else None   # OmegaConf: `cfg.model.name`


def _container(node, names: dict):
    """A list, tuple, set or dict whose every element is computed; None otherwise."""
    try:
        return ast.literal_eval(node)                 # literals only (None elements too)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.Dict):
        keys, vals = [py_value(k, names) for k in node.keys], [py_value(v, names) for v in node.values]
        if any(x is None for x in keys + vals):
            return None
        try:
            return dict(zip(keys, vals))
        except TypeError:                             # a key that is a list
            return None
    elts = [py_value(e, names) for e in node.elts]
    if any(e is None for e in elts):
        return None
    try:
        return list(elts) if isinstance(node, ast.List) else tuple(elts) if isinstance(node, ast.Tuple) else set(elts)
    except TypeError:
        return None


def _call(node: ast.Call, names: dict):
    """str.format, os.getenv / os.environ.get with a default (the default), str() / Path() / PurePath() of a path,
    os.path.join, and int() float() str() round() abs() min() max() of computed values."""
    func, name = node.func, call_name(node.func)
    if isinstance(func, ast.Attribute) and name == "get" and 1 <= len(node.args) <= 2 and not node.keywords:
        base = py_value(func.value, names)            # a loaded config's `cfg["training"].get("bs", 4)`
        if isinstance(base, dict):
            key = py_value(node.args[0], names)
            got = base.get(key) if isinstance(key, (str, int)) else None
            return got if got is not None or len(node.args) == 1 else py_value(node.args[1], names)
    if isinstance(func, ast.Attribute) and name == "format" and isinstance(func.value, ast.Constant) \
            and isinstance(func.value.value, str):
        kw = {k.arg: py_value(k.value, names) for k in node.keywords if k.arg}
        missed: list[str] = []
        text = _fill_fields(func.value.value, {k: v for k, v in kw.items() if v is not None},
                            [py_value(a, names) for a in node.args], missed)
        return None if missed else text
    if isinstance(func, ast.Attribute) and name in ("getenv", "get") and 1 <= len(node.args) <= 2 \
            and call_name(func.value) in ("os", "environ"):
        key = py_value(node.args[0], names)
        env = ENVIRON.get() or {}
        if isinstance(key, str) and key in env:       # the .env file / launch line the program starts with sets it
            return env[key]
        # the environment may set it; the program's default is read
        return py_value(node.args[1], names) if len(node.args) == 2 else None
    if isinstance(func, ast.Attribute) and name == "join" and call_name(func.value) == "path" and node.args:
        return _joined_path([py_value(a, names) for a in node.args])
    if node.keywords or not node.args:
        return None
    if name in ("str", "Path", "PurePath") and len(node.args) == 1:
        v = py_value(node.args[0], names)
        if isinstance(v, str) or name != "str":
            return v if isinstance(v, str) else None
    if not isinstance(func, ast.Name) or name not in _CALLS:
        return None
    args = [py_value(a, names) for a in node.args]
    if any(a is None for a in args):
        return None
    try:
        v = _CALLS[name](*args)
    except (TypeError, ValueError, OverflowError):
        return None
    return v if not isinstance(v, float) or math.isfinite(v) else None


def py_value(node, names: dict | None = None):
    """The value of a Python expression: the one evaluator of every reader of Python. Literals (str, int, float,
    bool; lists, tuples, sets and dicts of computed values), the names `names` binds (`args.x` / `*.x` for
    argparse and dataclass defaults: program_names), + - * / // % ** and unary -, `a or b` (b where a is not
    computed: `os.environ.get("X") or "dflt"`), f-strings and str.format, os.getenv's default, paths (`BASE / "m"`,
    os.path.join, Path()), `torch.<dtype>` as its name, int() float() str() round() abs() min() max(). None
    otherwise (a name not bound, a division by zero, a huge number, any other call). Nothing is executed."""
    names = names or {}
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
        v = node.value
        return v if not isinstance(v, float) or math.isfinite(v) else None
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        return _attribute(node, names)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return _container(node, names)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        x = py_value(node.operand, names)
        return None if not _number(x) else -x if isinstance(node.op, ast.USub) else x
    if isinstance(node, ast.BinOp):
        return _binop(node, names)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2:
        first = py_value(node.values[0], names)
        return first if first else py_value(node.values[1], names)
    if isinstance(node, ast.JoinedStr):
        parts = [fstring_part(v, names) for v in node.values]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p is not None)
    if isinstance(node, ast.Call):
        return _call(node, names)
    if isinstance(node, ast.Subscript) and call_name(node.value) == "environ":     # os.environ["X"]
        key = py_value(node.slice, names)
        return (ENVIRON.get() or {}).get(key) if isinstance(key, str) else None
    if isinstance(node, ast.Subscript):               # a loaded config's `cfg["model"]["name"]`
        base, key = py_value(node.value, names), py_value(node.slice, names)
        return base.get(key) if isinstance(base, dict) and isinstance(key, (str, int)) else None
    return None


def fstring_part(node, names: dict) -> str | None:
    """One piece of an f-string as text: a literal piece, or a field whose value `py_value` computes (its format
    spec applied when that is itself literal); None for a field it does not compute."""
    if isinstance(node, ast.Constant):
        return str(node.value)
    if not isinstance(node, ast.FormattedValue):
        return None
    v = py_value(node.value, names)
    if v is None:
        return None
    spec = py_value(node.format_spec, names) if node.format_spec is not None else ""
    if spec is None:
        return None
    try:
        v = repr(v) if node.conversion == ord("r") else v
        return format(v, str(spec))
    except (TypeError, ValueError):
        return None


def plain(v) -> bool:
    """A value a name may stand for: a str, int, float or bool, or a non-empty list/tuple of str (a list of module
    names: `LoraConfig(target_modules=TARGETS)`)."""
    return isinstance(v, (str, int, float, bool)) or (isinstance(v, (list, tuple)) and bool(v)
                                                      and all(isinstance(x, str) for x in v))


def module_names(tree, names: dict | None = None, last_wins: bool = False) -> dict:
    """Names a module assigns a plain value `py_value` computes (`nproc_per_node = 8`, `bs: int = 4`,
    `ga = 128 // 8`), in source order, over `names` already bound. A name assigned twice with different values is
    left out (which one runs is not known here); `last_wins`: the last value computed stands (a program read for
    its settings: the assignment nearest the call; an assignment not computed leaves the earlier value)."""
    out: dict = dict(names or {})
    dropped: set[str] = set()
    for n in ast.walk(tree):
        target = (n.targets[0] if isinstance(n, ast.Assign) and len(n.targets) == 1 else
                  n.target if isinstance(n, ast.AnnAssign) else None)
        value = getattr(n, "value", None)
        if not isinstance(target, ast.Name) or value is None:
            continue
        v = py_value(value, out)
        if last_wins:
            if plain(v):
                out[target.id] = v
        elif target.id in out and out[target.id] != v or not plain(v):
            dropped.add(target.id)
        elif target.id not in dropped:
            out[target.id] = v
    return {k: v for k, v in out.items() if k not in dropped}


def _argparse_defaults(tree, names: dict) -> None:
    """`parser.add_argument("--model_name", default="Qwen/...")`: `args.<dest>` (and opt. / cfg. / config.) stands
    for its default (argparse: dest from the first long flag, dashes as underscores)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and call_name(n.func) == "add_argument" and n.args:
            flag = py_value(n.args[0])
            kws = {kw.arg: kw.value for kw in n.keywords if kw.arg}
            dest = py_value(kws["dest"]) if "dest" in kws else (flag.lstrip("-").replace("-", "_")
                                                                if isinstance(flag, str) else None)
            v = py_value(kws["default"]) if "default" in kws else None
            if dest and isinstance(v, (str, int, float, bool)):
                for obj in ("args", "opt", "cfg", "config"):
                    names[f"{obj}.{dest}"] = v


_PYDANTIC_BOOL = {"1": True, "true": True, "t": True, "yes": True, "y": True, "on": True,
                  "0": False, "false": False, "f": False, "no": False, "n": False, "off": False}


def _env_prefix(cls: ast.ClassDef) -> str:
    """pydantic-settings' env_prefix: `model_config = SettingsConfigDict(env_prefix="X_")` (v2) or an inner
    `class Config: env_prefix = "X_"` (v1); "" when none."""
    for st in cls.body:
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "model_config" for t in st.targets) \
                and isinstance(st.value, ast.Call):
            got = next((py_value(k.value) for k in st.value.keywords if k.arg == "env_prefix"), None)
            return got if isinstance(got, str) else ""
        if isinstance(st, ast.ClassDef) and st.name == "Config":
            for a in st.body:
                if isinstance(a, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "env_prefix" for t in a.targets):
                    got = py_value(a.value)
                    return got if isinstance(got, str) else ""
    return ""


def _settings_env(cls: ast.ClassDef, names: dict) -> None:
    """A pydantic-settings BaseSettings class: each field read from the environment the program starts with
    (ENVIRON) as `<env_prefix><field>`, case-insensitively (pydantic-settings' default case_sensitive=False), the
    value converted by the field's annotation (int, float, bool as pydantic parses "true"/"1"/"yes"/"on" ...)."""
    env = ENVIRON.get()
    if not env or not any(call_name(b) == "BaseSettings" for b in cls.bases):
        return
    upper = {k.upper(): v for k, v in env.items()}
    prefix = _env_prefix(cls).upper()
    for st in cls.body:
        if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
            continue
        raw = upper.get(prefix + st.target.id.upper())
        if raw is None:
            continue
        kind = call_name(st.annotation) if isinstance(st.annotation, (ast.Name, ast.Attribute)) else ""
        try:
            v: Any = int(raw) if kind == "int" else float(raw) if kind == "float" else \
                _PYDANTIC_BOOL.get(raw.strip().lower(), raw) if kind == "bool" else raw
        except ValueError:
            v = raw
        names.setdefault(f"*.{st.target.id}", v)


def _declared_defaults(tree, names: dict) -> None:
    """HfArgumentParser dataclass fields (`model_name: str = field(default="...")`: `*.<field>`) and function
    parameter defaults (`def load_model(model_name="Qwen/Qwen2.5-72B")`: `model_name`); the first one stands."""
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            _settings_env(n, names)
            for st in n.body:
                if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value is not None:
                    val: ast.expr | None = st.value
                    if isinstance(val, ast.Call) and call_name(val.func) == "field":
                        val = next((kw.value for kw in val.keywords if kw.arg == "default"), None)
                    v = py_value(val) if val is not None else None
                    if isinstance(v, (str, int, float, bool)):
                        names.setdefault(f"*.{st.target.id}", v)
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [*n.args.posonlyargs, *n.args.args]
            pairs = [*zip(params[len(params) - len(n.args.defaults):], n.args.defaults),
                     *((a, d) for a, d in zip(n.args.kwonlyargs, n.args.kw_defaults) if d is not None)]
            for a, d in pairs:
                v = py_value(d)
                if isinstance(v, (str, int, float, bool)):
                    names.setdefault(a.arg, v)


def program_names(tree, configs: dict | None = None) -> dict:
    """What a Python program's names stand for, as far as `py_value` computes: argparse defaults (`args.<dest>`),
    dataclass field defaults (`*.<field>`), function parameter defaults, the module's assignments (the last one
    computed wins: module_names), then what its own calls pass its functions (`_call_site_names`). `configs`
    (`{"files": {path: data}, "program": path, "read": fn, "bind": program_config.bind_configs}`): the names
    bound to a settings file the program loads, and what it assigns from them; their notes under
    `names["__notes__"]` (the binder comes with the call: program_config reads values with this module's py_value)."""
    names: dict = {}
    _argparse_defaults(tree, names)
    _declared_defaults(tree, names)
    names = module_names(tree, names, last_wins=True)
    if configs is not None:
        notes = configs["bind"](tree, names, configs["program"], configs["files"], configs["read"])
        if notes:
            names = module_names(tree, names, last_wins=True)
            names["__notes__"] = notes
    _call_site_names(tree, names)
    return names


def _call_site_names(tree, names: dict) -> None:
    """Parameters a call of the program passes a value (`Runner("deepseek-ai/...")` into `def __init__(self,
    model_name)`, `load("Qwen/...")` into `def load(model_name)`), and `self.<attr> = <parameter>` in that function:
    what `from_pretrained(model_name=self.model_name)` loads. The first call wins; a default stays where none passes."""
    defs: dict[str, ast.FunctionDef] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            init = next((b for b in n.body if isinstance(b, ast.FunctionDef) and b.name == "__init__"), None)
            if init is not None:
                defs.setdefault(n.name, init)
        elif isinstance(n, ast.FunctionDef) and n.name != "__init__":
            defs.setdefault(n.name, n)
    for n in ast.walk(tree):
        fn = defs.get(call_name(n.func)) if isinstance(n, ast.Call) else None
        if fn is None or not isinstance(n, ast.Call):
            continue
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args] if a.arg not in ("self", "cls")]
        passed = [*zip(params, n.args), *((k.arg, k.value) for k in n.keywords if k.arg in params)]
        for param, node in passed:
            v = py_value(node, names)
            if isinstance(v, (str, int, float, bool)) and param not in names:
                names[param] = v
                _self_attributes(fn, param, v, names)
    for fn in defs.values():           # `self.load_in_4bit = load_in_4bit` where the parameter keeps its default
        for a, d in zip(fn.args.args[len(fn.args.args) - len(fn.args.defaults):], fn.args.defaults):
            v = py_value(d)
            if isinstance(v, (str, int, float, bool)):
                _self_attributes(fn, a.arg, v, names)


def _self_attributes(fn, param: str, value, names: dict) -> None:
    """`self.<attr> = <param>` inside ``fn``: self.<attr> stands for the value passed as ``param``."""
    for st in ast.walk(fn):
        if isinstance(st, ast.Assign) and isinstance(st.value, ast.Name) and st.value.id == param:
            for t in st.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    names.setdefault(f"self.{t.attr}", value)


# ------------------------------------------------------------------------------------------------ Python commands
_ENTRY_WORDS = re.compile(r"(?:^|[\s;&|(])(?:swift|llamafactory-cli|torchrun|deepspeed|accelerate|python3?|tune|"
                          r"axolotl|trl|megatron|litgpt)(?=\s|$)|(?:^|\s)--[A-Za-z]")


def _char_col(lines: list[str], row: int, byte_col: int) -> int:
    return len(lines[row - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def _field_text(expr: str, names: dict) -> str:
    """An f-string / str.format field `expr` (without braces): its value where `py_value` computes it (a conversion
    or format spec after it applied), else the field as a one-word marker `{expr}` that `unread` names."""
    for cut in [len(expr)] + [i for i in range(len(expr) - 1, 0, -1) if expr[i] in "!:"]:
        try:
            node = ast.parse(expr[:cut].strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        v = py_value(node, names)
        rest = expr[cut:]
        spec = rest.split(":", 1)[1] if ":" in rest else ""
        if v is not None and "{" not in spec:
            try:
                return format(repr(v) if rest.startswith("!r") else v, spec)
            except (TypeError, ValueError):
                break
        break
    return "{" + "".join(expr.split()) + "}"


def _fill_fields(body: str, names: dict, positional: list | None = None, missed: list | None = None) -> str:
    """`body` of an f-string or a str.format template with each field filled (`_field_text`); `{{` `}}` unescaped;
    `positional`: str.format's positional arguments (`{}` / `{0}`)."""
    out, i, auto = [], 0, 0
    while i < len(body):
        ch = body[i]
        if ch in "{}" and body[i:i + 2] in ("{{", "}}"):
            out.append(ch)
            i += 2
            continue
        if ch != "{":
            out.append(ch)
            i += 1
            continue
        depth, j = 0, i
        while j < len(body):
            depth += {"{": 1, "}": -1}.get(body[j], 0)
            if depth == 0:
                break
            j += 1
        expr = body[i + 1:j]
        if positional is not None and re.fullmatch(r"\d*(?:[!:].*)?", expr, re.S):
            k = int(expr.split("!")[0].split(":")[0] or auto)
            auto = k + 1
            v = positional[k] if k < len(positional) else None
            out.append(str(v) if v is not None else "{" + "".join(expr.split()) + "}")
        else:
            out.append(_field_text(expr, names))
        if missed is not None and out[-1] == "{" + "".join(expr.split()) + "}":
            missed.append(expr)
        out.append("\n" * body[i:j].count("\n"))      # keep the line count
        i = j + 1
    return "".join(out)


def _format_calls(tree, lines: list[str], names: dict) -> dict[tuple[int, int], tuple[dict, list]]:
    """`"...".format(a=..., ...)`: the template's position (row, char column) -> (its keyword values, its
    positional values), each computed by `py_value` (None where not)."""
    out: dict[tuple[int, int], tuple[dict, list]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "format" \
                and isinstance(n.func.value, ast.Constant) and isinstance(n.func.value.value, str):
            s = n.func.value
            kw = {k.arg: py_value(k.value, names) for k in n.keywords if k.arg}
            out[(s.lineno, _char_col(lines, s.lineno, s.col_offset))] = (
                {**names, **{k: v for k, v in kw.items() if v is not None}},
                [py_value(a, names) for a in n.args])
    return out


def _argv_lists(tree, text: str, names: dict) -> list[tuple[int, int, list[str]]]:
    """(first row, last row, words) of each list/tuple of two or more words (`subprocess.run(["torchrun", ...])`):
    one command's argv, each element computed by `py_value` or kept as a one-word `{expr}` marker."""
    out = []
    for n in ast.walk(tree):
        if not isinstance(n, (ast.List, ast.Tuple)) or len(n.elts) < 2 or n.end_lineno is None:
            continue
        words = []
        for e in n.elts:
            v = py_value(e, names)
            if isinstance(e, ast.Starred) or isinstance(e, (ast.List, ast.Tuple, ast.Dict)):
                break
            words.append(str(v) if v is not None and not isinstance(v, bool) else
                         "{" + "".join((ast.get_source_segment(text, e) or "?").split()) + "}")
        else:
            if any(isinstance(e, (ast.Constant, ast.JoinedStr)) for e in n.elts):
                out.append((n.lineno, n.end_lineno, words))
    return out


def python_command_view(text: str, tree) -> str | None:
    """The command lines a Python program writes in its strings, as a shell script of the same lines: each string
    that holds a command or `--flags` at its place, its f-string / str.format fields filled where the module's
    literal assignments compute them (`{int(128 / nproc_per_node)}` with `nproc_per_node = 8` -> 16) and a
    one-word `{expr}` marker where they do not; a list of strings continued as one command. None: no such string."""
    import io
    import tokenize

    lines = text.splitlines()
    names = module_names(tree)
    formats = _format_calls(tree, lines, names)
    view = [""] * (len(lines) + 1)
    found = False
    argv = [a for a in _argv_lists(tree, text, names) if _ENTRY_WORDS.search(" ".join(a[2]))]
    taken = {row for first, last, _w in argv for row in range(first, last + 1)}
    for first, _last, words in argv:
        import shlex

        view[first] = shlex.join(words)
        found = True
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    for tok in toks:
        if tok.type != tokenize.STRING:
            continue
        prefix = re.sub(r"[^A-Za-z].*", "", tok.string, flags=re.S)
        quote = tok.string[len(prefix):len(prefix) + 3] if tok.string[len(prefix):len(prefix) + 3] in ('"""', "'''") \
            else tok.string[len(prefix)]
        body = tok.string[len(prefix) + len(quote):len(tok.string) - len(quote)]
        if "f" in prefix.lower():
            body = _fill_fields(body, names)
        elif tok.start in formats:
            body = _fill_fields(body, formats[tok.start][0], formats[tok.start][1])
        if tok.start[0] in taken or not _ENTRY_WORDS.search(body):
            continue
        found = True
        for k, piece in enumerate(body.split("\n")):
            row = tok.start[0] + k
            if row < len(view):
                view[row] = (view[row] + " " + piece).strip() if view[row] else piece
    if not found:
        return None
    return "\n".join(view[1:]) + "\n"


def ipython_expand(line: str, names: dict) -> str:
    """A notebook's `!cmd {expr} $name` line as IPython runs it (IPython/core/interactiveshell.py var_expand with
    its DollarFormatter): each `{expr}` and `$name` filled from the notebook's literal assignments; when one field
    cannot be, IPython leaves the whole line as written (its `except Exception: return cmd`), and so does this."""
    missed: list[str] = []
    dollars = re.sub(r"(?<!\$)\$([A-Za-z_]\w*)",
                     lambda m: str(names[m.group(1)]) if m.group(1) in names else m.group(0), line)
    filled = _fill_fields(dollars, names, None, missed)
    return line if missed else filled


# ------------------------------------------------------------------------------------------------ OmegaConf
_OC_REF = re.compile(r"\$\{\s*(\.*[A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}")
# OmegaConf's grammar (omegaconf/grammar/OmegaConfGrammarParser.g4; resolvers in omegaconf/resolvers/oc/__init__.py
# env): `${oc.env:NAME}` / `${oc.env:NAME,default}` - the default a plain or quoted string, `null` = None - and the
# older `${env:NAME,default}` spelling (OmegaConf 2.0)
_OC_ENV = re.compile(r"\$\{\s*(?:oc\.)?env\s*:\s*([A-Za-z_]\w*)\s*(?:,\s*([^{}]*?))?\s*\}")


def _oc_default(text: str | None):
    """An oc.env default as OmegaConf reads it: quotes stripped, `null` None (no default: None too)."""
    if text is None:
        return None
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    return None if t.lower() == "null" else t


def _oc_lookup(root: dict, here: list[str], ref: str):
    """The node `${ref}` names: an absolute dotted path, or relative (`${.x}` a sibling, `${..x}` the parent's)."""
    dots = len(ref) - len(ref.lstrip("."))
    path = (here[:len(here) - dots] if dots else []) + ref.lstrip(".").split(".")
    node: object = root
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _oc_env(value: str, here: list[str], env: dict, notes: list[str]):
    """`value` with its oc.env resolvers read: the launch's environment first, else the default (said in `notes`);
    one with neither stays as written. A whole-value resolver gives the value itself (None for a `null` default)."""
    def get(m: re.Match):
        name, default = m.group(1), _oc_default(m.group(2))
        if name in env:
            notes.append(f"{'.'.join(here)} {m.group(0)}: {env[name]} (the launch sets {name})")
            return env[name], True
        if m.group(2) is not None:
            notes.append(f"{'.'.join(here)} {m.group(0)}: the default {default} (unless the environment sets {name})")
            return default, True
        return m.group(0), False
    whole = _OC_ENV.fullmatch(value.strip())
    if whole:
        return get(whole)[0]
    return _OC_ENV.sub(lambda m: str(get(m)[0]), value)


def omegaconf_resolve(data: dict, notes: list[str], env: dict | None = None) -> dict:
    """A config OmegaConf loads (torchtune's YAML: torchtune/config/_parse.py OmegaConf.load + merge; NeMo
    Automodel's, nemo_automodel/components/config/loader.py) with its interpolations of other keys filled
    (`${output_dir}/logs`, `batch_size: ${train.bs}`, `${.x}`, `${..x}`) where they name a literal of the same file,
    and `${oc.env:X}` / `${oc.env:X,default}` read from `env` (the launch's environment), else as its default (said
    in `notes`: the environment may set X). Anything else (`${oc.env:X}` unset, another resolver) stays as written."""
    env = env or {}

    def resolve(value, here: list[str], depth: int = 0):
        if isinstance(value, dict):
            return {k: resolve(v, here + [str(k)], depth) for k, v in value.items()}
        if isinstance(value, list):
            return [resolve(v, here, depth) for v in value]
        if not isinstance(value, str) or "${" not in value or depth > 8:
            return value
        if _OC_ENV.search(value):
            value = _oc_env(value, here, env, notes)
            if not isinstance(value, str) or "${" not in value:
                return value
        whole = _OC_REF.fullmatch(value.strip())
        if whole:             # a whole-value interpolation keeps the referenced node's type (an int stays one)
            got = _oc_lookup(data, here, whole.group(1))
            return value if got is None or isinstance(got, (dict, list)) else resolve(got, here, depth + 1)

        def one(m: re.Match) -> str:
            got = _oc_lookup(data, here, m.group(1))
            got = resolve(got, here, depth + 1) if isinstance(got, str) else got
            return m.group(0) if got is None or isinstance(got, (dict, list)) else str(got)
        return _OC_REF.sub(one, value)
    out = resolve(data, [])
    return out if isinstance(out, dict) else data


# ------------------------------------------------------------------------------------------------ Makefiles
_MAKE_ASSIGN = re.compile(r"^(?:export\s+|override\s+)?([A-Za-z_][\w]*)\s*(\?=|:::=|::=|:=|\+=|=)\s*(.*)$")


def is_makefile(path: str) -> bool:
    name = str(path).replace("\\", "/").rsplit("/", 1)[-1]
    return name in ("Makefile", "makefile", "GNUmakefile") or name.endswith(".mk")


def makefile_as_script(text: str) -> str:
    """A Makefile as the shell script its recipes run (GNU make: `NAME = v` / `:=` / `?=` variables, `$(NAME)` /
    `${NAME}` references, `$$` for the shell's `$`, recipe lines after a tab, `@`/`-` prefixes): each variable an
    assignment, each recipe line a command, on the same lines; `+=` appends. `$(shell ...)` and other functions stay
    unread. Nothing is run."""
    out: list[str] = []
    cont = False
    for line in text.splitlines():
        if line.startswith("\t") or cont:
            body = line[1:] if line.startswith("\t") else line
            body = body if cont else body.lstrip("@-+ ")
            cont = line.rstrip().endswith("\\")
            body = re.sub(r"\$\(([A-Za-z_]\w*)\)", r"${\1}", body.replace("$$", "\x00"))
            out.append(body.replace("\x00", "$"))
            continue
        m = _MAKE_ASSIGN.match(line.strip())
        if m and not line.startswith(" "):
            name, op, value = m.groups()
            value = re.sub(r"\$\(([A-Za-z_]\w*)\)", r"${\1}", re.split(r"(?<!\\)#", value)[0].strip())
            if op == "+=":
                value = "${" + name + "} " + value
            out.append(f"{name}=\"{value}\"" if op != "?=" else f"{name}=\"${{{name}:-{value}}}\"")
            continue
        out.append("" if not line.endswith("\\") else line)
    return "\n".join(out) + "\n"
