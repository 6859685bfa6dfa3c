"""Training arguments a Python program writes as one literal dict and hands to a library's entry point
(`train_args = {"model_name_or_path": ..., ...}; start_sft(train_args)` in DB-GPT-Hub, `run_exp(dict(stage="sft",
...))` in LLaMA-Factory's notebooks): the dict's keys are the library's command-line arguments. Pure (ast only,
nothing is executed)."""

from __future__ import annotations

import ast

from rocm_tune.core.runners.values import py_value

# keys that make a dict a training run's arguments (with the model)
TRAINING_KEYS = ("per_device_train_batch_size", "cutoff_len", "max_source_length", "max_length", "model_max_length",
                 "finetuning_type", "num_train_epochs", "learning_rate", "gradient_accumulation_steps", "max_steps")


def dict_pairs(node, bound: dict | None = None) -> list[tuple[str, ast.expr]] | None:
    """(key, value node) of a `{...}` literal or a `dict(k=v, ...)` call (keys that are not literal strings, `**base`,
    are left out); a name is followed to the value `bound` gives it (`args = dict(...)` earlier in the program). The
    one reader of a literal argument dict: pyargs below and runners/hf.lf_args_dict map the values each their way."""
    if isinstance(node, ast.Name) and bound and node.id in bound:
        node = bound[node.id]
    if isinstance(node, ast.Dict):
        return [(key, v) for k, v in zip(node.keys, node.values)
                if k is not None and isinstance(key := py_value(k), str)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        return [(kw.arg, kw.value) for kw in node.keywords if kw.arg]
    return None


def _pairs(node) -> list[tuple[str, object, int]] | None:
    """(key, value, line) of a literal argument dict with literal values."""
    kv = dict_pairs(node)
    return None if kv is None else [(k, py_value(v), v.lineno) for k, v in kv]


def dict_arguments(tree) -> dict[str, tuple[str, int]] | None:
    """The training arguments of the largest literal dict that names the model and at least two training keys, as
    flags ({key: (value as text, line)}); None when the program has none."""
    best: list[tuple[str, object, int]] = []
    for n in ast.walk(tree):
        pairs = _pairs(n)
        if not pairs:
            continue
        keys = {k for k, _v, _l in pairs}
        if "model_name_or_path" in keys and sum(k in keys for k in TRAINING_KEYS) >= 2 and len(pairs) > len(best):
            best = pairs
    if not best:
        return None
    return {k: (str(v), line) for k, v, line in best if isinstance(v, (str, int, float, bool))}
