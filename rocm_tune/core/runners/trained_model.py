"""Which model a Python program trains: the one its Trainer gets (pure: ast only, nothing is run).

A program or notebook may load other models beside the one it trains (a judge, a baseline run for comparison, the
pushed result reloaded for inference). The trained one is the `model=` (or first argument) of the first
`...Trainer(...)` call (transformers' Trainer, TRL's SFTTrainer / GRPOTrainer / DPOTrainer ...): a hub id string
(TRL loads it itself: trl/trainer/sft_trainer.py `if isinstance(model, str)`), or a name followed back through its
assignments before that call to the from_pretrained that made it, through the wrappers that keep the model
(peft get_peft_model / prepare_model_for_kbit_training / PeftModel.from_pretrained(base, ...), Unsloth's
FastLanguageModel.get_peft_model, `.to(...)` / `.cuda()`)."""
from __future__ import annotations

import ast

from rocm_tune.core.runners.values import call_name, py_value

# calls whose first argument (or model=) is the model they return, wrapped
_WRAPPERS = frozenset({"get_peft_model", "prepare_model_for_kbit_training", "prepare_model_for_int8_training"})
# methods of the model that return it (moved or cast)
_METHODS = frozenset({"to", "cuda", "half", "bfloat16", "float"})
_NOT_MODELS = ("Tokenizer", "Processor", "Config", "FeatureExtractor", "ImageProcessor")
_DEPTH = 12


def _assignments(tree) -> dict[str, list[tuple[int, ast.expr]]]:
    """name -> [(line, value)] of `name = value` and `name, other = value` (Unsloth's `model, tok = ...`)."""
    out: dict[str, list[tuple[int, ast.expr]]] = {}
    for n in ast.walk(tree):
        if not isinstance(n, ast.Assign) or len(n.targets) != 1:
            continue
        t = n.targets[0]
        names = [t] if isinstance(t, ast.Name) else [e for e in t.elts if isinstance(e, ast.Name)][:1] \
            if isinstance(t, ast.Tuple) else []
        for nm in names:
            out.setdefault(nm.id, []).append((n.lineno, n.value))
    return out


def _trainer_call(tree):
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and call_name(n.func).endswith("Trainer")]
    for c in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        arg = next((k.value for k in c.keywords if k.arg == "model"), c.args[0] if c.args else None)
        if arg is not None:
            return c, arg
    return None, None


def is_model_load(c) -> bool:
    """A from_pretrained that loads a model (not a tokenizer, processor or config)."""
    if call_name(c.func) != "from_pretrained":
        return False
    owner = c.func.value if isinstance(c.func, ast.Attribute) else None
    text = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
    return not any(w in text for w in _NOT_MODELS)


def _follow(node, line: int, assigns: dict, names: dict, depth: int = 0):
    """The from_pretrained call or hub id `node` stands for at `line`; None when not followed."""
    if depth > _DEPTH or node is None:
        return None
    if isinstance(node, ast.Name):
        before = [(ln, v) for ln, v in assigns.get(node.id, []) if ln < line]
        if before:      # the value the name had there; the names in it as they were before that assignment
            return _follow(before[-1][1], before[-1][0], assigns, names, depth + 1)
    v = py_value(node, names) if not isinstance(node, ast.Call) else None
    if isinstance(v, str) and "/" in v:
        return v
    if isinstance(node, ast.Call):
        name = call_name(node.func)
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        if name == "from_pretrained" and isinstance(owner, ast.Name) and owner.id == "PeftModel":
            return _follow(node.args[0] if node.args else None, line, assigns, names, depth + 1)
        if is_model_load(node):
            return node
        if name in _METHODS and owner is not None:                  # model.to("cuda"), model.cuda()
            return _follow(owner, line, assigns, names, depth + 1)
        if name in _WRAPPERS:                                      # get_peft_model(model, cfg), FastLanguageModel's
            inner = next((k.value for k in node.keywords if k.arg == "model"), node.args[0] if node.args else None)
            return _follow(inner, line, assigns, names, depth + 1)
    return None


def trained_model(tree, names: dict):
    """The from_pretrained ast.Call, or the hub id string, of the model the program's first Trainer gets; None when
    the program builds no Trainer with a model or the model is not followed back to a load."""
    trainer, arg = _trainer_call(tree)
    if trainer is None:
        return None
    return _follow(arg, trainer.lineno, _assignments(tree), names)
