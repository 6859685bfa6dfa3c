"""What a Python training program's own code says about the sample length and the per-rank batch, beyond the literal
keywords of its TrainingArguments (issue 26). Read with `ast`, nothing is executed. Pure.

* The tokenizer truncates: transformers' PreTrainedTokenizerBase.__call__ / encode / encode_plus /
  batch_encode_plus / apply_chat_template (tokenize=True passes truncation and max_length on to __call__) with ``truncation=True`` (or a strategy: "longest_first", "only_first", "only_second") and
  ``max_length=N`` cut every sample to N tokens (tokenization_utils_base.py _get_padding_truncation_strategies /
  truncate_sequences), so the collator's batches are at most N long: the program's own length cap, used where no
  sequence-length setting is read. The largest N over the program's truncating tokenizer calls counts.
* A global batch split over the ranks: ``per_device_train_batch_size=args.batch_size // world_size`` where the
  divisor is the launcher's process count (``os.environ["WORLD_SIZE"]`` as torchrun / accelerate / deepspeed set it,
  torch.distributed.get_world_size(), accelerator.num_processes): the command's --batch_size is the batch of all
  ranks together, each rank trains batch_size / world_size."""

from __future__ import annotations

import ast

from rocm_tune.core.runners.common import Setting
from rocm_tune.core.runners.values import call_name, py_value

TRUNCATING = (True, "longest_first", "only_first", "only_second")
TOKENIZE_METHODS = ("encode", "encode_plus", "batch_encode_plus", "__call__", "apply_chat_template")
BATCH_KEYS = ("per_device_train_batch_size", "per_device_eval_batch_size")
# the launcher's process count, as a program reads it
WORLD_ENV = ("WORLD_SIZE",)
WORLD_CALLS = ("get_world_size",)
WORLD_ATTRS = ("num_processes", "world_size")
TOK_KEY, BATCH_KEY = "__tokenizer_max_length__", "__batch_over_ranks__"


def _assigned(tree) -> dict[str, list[ast.AST]]:
    """Every value a plain name is assigned anywhere in the program (module, functions)."""
    out: dict[str, list[ast.AST]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            out.setdefault(n.targets[0].id, []).append(n.value)
    return out


def _value(node, names: dict, assigned: dict[str, list[ast.AST]]):
    """py_value, or for a name the program assigns one computable value only (a function's local `max_length = 256`)."""
    v = py_value(node, names)
    if v is None and isinstance(node, ast.Name):
        got = {py_value(x, names) for x in assigned.get(node.id, [])}
        if len(got) == 1:
            v = got.pop()
    return v


def _is_tokenizer_call(c: ast.Call) -> bool:
    f = c.func
    name = call_name(f).lower()
    if isinstance(f, ast.Attribute) and f.attr in TOKENIZE_METHODS:
        owner = call_name(f.value).lower()
        return "tok" in owner or "processor" in owner
    return "tokeniz" in name or name in ("tok", "processor")


def tokenizer_cap(tree, names: dict, file: str) -> tuple[Setting, str] | None:
    """(the setting, its note) of the largest max_length of the program's truncating tokenizer calls, or None."""
    assigned = _assigned(tree)
    best: tuple[int, int] | None = None
    for c in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and _is_tokenizer_call(n)):
        kws = {kw.arg: kw.value for kw in c.keywords if kw.arg}
        if "max_length" not in kws or "truncation" not in kws:
            continue
        if _value(kws["truncation"], names, assigned) not in TRUNCATING:
            continue
        if "tokenize" in kws and _value(kws["tokenize"], names, assigned) is False:
            continue         # apply_chat_template(tokenize=False) returns the text: nothing is cut
        n = _value(kws["max_length"], names, assigned)
        if _is_cap(n) and (best is None or n > best[0]):
            best = (n, c.lineno)
    if best is None:
        return None
    note = (f"{file} line {best[1]}: the program's tokenizer truncates every sample at max_length {best[0]} "
            f"(truncation=True): its samples are at most {best[0]} tokens")
    return Setting(TOK_KEY, best[0], file, best[1], "max_length", "flag"), note


def _is_cap(v) -> bool:
    """A length a program states: a positive int below ten million (not a bool, not a computed value)."""
    return isinstance(v, int) and not isinstance(v, bool) and 0 < v < 10**7


def _names_world(node, assigned: dict[str, list[ast.AST]], depth: int = 0) -> bool:
    """The expression reads the launcher's process count."""
    if depth > 4:
        return False
    if isinstance(node, ast.Call):
        if call_name(node.func) in WORLD_CALLS:
            return True
        if call_name(node.func) in ("int", "get", "getenv") or (isinstance(node.func, ast.Attribute)
                                                               and node.func.attr in ("get", "getenv")):
            return any(_names_world(a, assigned, depth + 1) for a in node.args[:1])
        return False
    if isinstance(node, ast.Subscript):
        return _names_world(node.slice, assigned, depth + 1)
    if isinstance(node, ast.Constant):
        return node.value in WORLD_ENV
    if isinstance(node, ast.Attribute):      # accelerator.num_processes, TrainingArguments.world_size
        return node.attr in WORLD_ATTRS
    if isinstance(node, ast.Name):
        vals = assigned.get(node.id, [])
        return bool(vals) and all(_names_world(v, assigned, depth + 1) for v in vals)
    return False


def batch_over_ranks(tree, names: dict, file: str) -> list[tuple[Setting, str]]:
    """`per_device_train_batch_size=<global> // <world size>` (and the eval batch's) in a TrainingArguments-like call:
    the settings BATCH_KEY + key, whose value is the global batch's flag name and its computed default as
    'flag=default', with their notes."""
    assigned = _assigned(tree)
    found: list[tuple[Setting, str]] = []
    for c in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        for kw in c.keywords:
            v = kw.value
            if kw.arg not in BATCH_KEYS or not isinstance(v, ast.BinOp) or not isinstance(v.op, (ast.FloorDiv,
                                                                                                  ast.Div)):
                continue
            if not _names_world(v.right, assigned):
                continue
            left = v.left
            flag = left.attr if isinstance(left, ast.Attribute) else left.id if isinstance(left, ast.Name) else ""
            default = _value(left, names, assigned)
            if not flag:
                continue
            note = (f"{file} line {v.lineno}: {kw.arg} = {flag} // the world size: --{flag} is the batch of all "
                    f"ranks together, each rank trains its share")
            found.append((Setting(BATCH_KEY + kw.arg, f"{flag}={default if isinstance(default, int) else ''}", file,
                                  v.lineno, flag, "flag"), note))
    return found


def _ids_name(node) -> bool:
    """`input_ids`, `example["input_ids"]`, `self.input_ids`: the token ids of a sample."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        return isinstance(key, ast.Constant) and isinstance(key.value, str) and "input_ids" in key.value
    return "input_ids" in call_name(node)


def slice_cap(tree, names: dict, file: str) -> tuple[Setting, str] | None:
    """(the setting, its note) of the program's own cut of the token ids: `input_ids = input_ids[:MAX_LENGTH]` (or
    `[-N:]`) in the function that builds a sample (datawhalechina/self-llm's process_func and the scripts copied
    from it: `if len(input_ids) > MAX_LENGTH: input_ids = input_ids[:MAX_LENGTH]`), a name computed from the
    module or that function's own one assignment; the largest N counts. None when the program slices no ids."""
    assigned = _assigned(tree)
    best: tuple[int, int] | None = None
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Subscript)):
            continue
        sub, cut = n.value, n.value.slice
        if not (isinstance(cut, ast.Slice) and cut.step is None and _ids_name(sub.value) and _ids_name(n.targets[0])):
            continue
        if cut.lower is None and cut.upper is not None:
            v = _value(cut.upper, names, assigned)
        elif cut.upper is None and isinstance(cut.lower, ast.UnaryOp) and isinstance(cut.lower.op, ast.USub):
            v = _value(cut.lower.operand, names, assigned)
        else:
            continue
        if _is_cap(v) and (best is None or v > best[0]):
            best = (v, n.lineno)
    if best is None:
        return None
    note = (f"{file} line {best[1]}: the program cuts every sample's input_ids to {best[0]} tokens (a slice): its "
            f"samples are at most {best[0]} tokens")
    return Setting(TOK_KEY, best[0], file, best[1], "input_ids slice", "flag"), note


def read(tree, names: dict, file: str) -> tuple[dict[str, Setting], list[str]]:
    """The settings (TOK_KEY, BATCH_KEY + key) and notes the rules find in one program (a truncating tokenizer
    first, else the program's slice of the ids)."""
    out: dict[str, Setting] = {}
    notes: list[str] = []
    cap = tokenizer_cap(tree, names, file) or slice_cap(tree, names, file)
    for got in (cap, *batch_over_ranks(tree, names, file)):
        if got is not None:
            out[got[0].key] = got[0]
            notes.append(got[1])
    return out, notes
