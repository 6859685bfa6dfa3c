"""Programs that build a dense GPT from its shape instead of loading a hub model (nanoGPT and its config files,
modded-nanogpt's `--model d12` table, nanochat's `--depth`): the model as a config.json dict the estimator builds
like a preset (core/check/check.py resolve_model), with the source of every figure. Facts and defaults:
rocm_tune/profiles/gpt_programs.py. Pure: standard library only."""

from __future__ import annotations

import ast
import os

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners.common import Setting, as_int
from rocm_tune.core.runners.values import program_names, py_value
from rocm_tune.profiles import gpt_programs as P

_MAX = 10**6      # no layer count, width, batch or length of a real run reaches it


def _whole(key: str, value, file: str) -> int:
    """A positive whole number, else the one-line error naming the value (exit 2)."""
    n = value if isinstance(value, int) and not isinstance(value, bool) else as_int(value) \
        if isinstance(value, str) else None
    if n is None or not 0 < n < _MAX:
        raise UserError(f"{file}: {key} = {value!r}: expected a whole number from 1 to {_MAX - 1}")
    return n


def shape_config(layers: int, heads: int, width: int, vocab: int, seq: int | None = None) -> dict:
    """A GPT-2-style decoder (4x MLP, untied as counted: the larger) as config.json keys."""
    cfg = {"model_type": "gpt_neox", "hidden_act": "gelu", "tie_word_embeddings": False, "num_hidden_layers": layers,
           "num_attention_heads": heads, "hidden_size": width, "intermediate_size": 4 * width, "vocab_size": vocab}
    if seq:
        cfg["max_position_embeddings"] = seq
    return cfg


def _parse(text: str):
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def named_shapes(text: str) -> dict[str, dict]:
    """{name: config dict} of a program's table of model shapes: `{"d12": GPTConfig(n_layer=12, n_head=12,
    n_embd=768), ...}` (modded-nanogpt train_gpt2.py) or `{'gpt2': dict(n_layer=12, ...)}` (nanoGPT model.py):
    a dict literal whose string keys map to calls or dicts with the layers, the heads and the width."""
    from rocm_tune.core.runners.hf import _dims_of

    tree = _parse(text)
    if tree is None:
        return {}
    names = program_names(tree)
    out: dict[str, dict] = {}
    for n in ast.walk(tree):
        if not isinstance(n, ast.Dict):
            continue
        for k, v in zip(n.keys, n.values):
            key = py_value(k) if k is not None else None
            if isinstance(v, ast.Call):
                vals = {kw.arg: py_value(kw.value, names) for kw in v.keywords if kw.arg}
            elif isinstance(v, ast.Dict):
                vals = {py_value(a): py_value(b, names) for a, b in zip(v.keys, v.values) if a is not None}
            else:
                continue
            dims = _dims_of({a: b for a, b in vals.items() if isinstance(a, str)})
            if isinstance(key, str) and dims:
                vocab = dims.get("vocab_size") or as_int(names.get("*.vocab_size")) or P.GPT2_VOCAB
                out[key] = shape_config(dims["num_hidden_layers"], dims["num_attention_heads"], dims["hidden_size"],
                                        vocab)
    return out


def _assignments(tree) -> dict[str, tuple[object, int]] | None:
    """name -> (value, line) of a file made only of top-level `name = value` lines, else None; a value as
    values.py_value computes it over the names assigned above it (configurator.py exec()s the file: `5 * 8`,
    `n_embd = n_head * 64`), None where it does not."""
    found: dict[str, tuple[object, int]] = {}
    for st in tree.body:
        if isinstance(st, (ast.Import, ast.ImportFrom)) or (isinstance(st, ast.Expr)
                                                             and isinstance(st.value, ast.Constant)):
            continue      # `import time` for wandb_run_name = 'ft-' + str(time.time()) (finetune_shakespeare.py)
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
            return None
        names = {k: v for k, (v, _line) in found.items() if v is not None}
        found[st.targets[0].id] = (py_value(st.value, names), st.lineno)
    return found


def is_nanogpt_config(text: str) -> bool:
    """A nanoGPT config file (config/*.py): only `name = literal` lines, two or more of them train.py globals
    that mark it (NANOGPT_MARKERS), one a model or batch key."""
    if "=" not in text:
        return False
    tree = _parse(text)
    found = _assignments(tree) if tree is not None else None
    if not found:
        return False
    return sum(k in found for k in P.NANOGPT_MARKERS) >= 2 and any(k in found for k in P.NANOGPT_CORE)


def _override(flags: dict[str, tuple[str, int]], file: str) -> dict[str, tuple[object, int, str]]:
    """`--key=value` words over train.py's globals (configurator.py: literal_eval, else the string)."""
    out: dict[str, tuple[object, int, str]] = {}
    for k, (v, line) in flags.items():
        if k in P.NANOGPT_DEFAULTS:
            try:
                val: object = ast.literal_eval(v)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                val = v
            out[k] = (val, line, file)
    return out


def read_nanogpt_config(text: str, file: str, flags: dict[str, tuple[str, int]] | None = None,
                        flags_file: str = "") -> tuple[dict[str, Setting], list[str]]:
    """A nanoGPT config file (and the --key=value words of the command that passes it) over train.py's defaults,
    as the settings of the transformers-style program it is: the model's shape, batch, block, accumulation, dtype."""
    tree = _parse(text)
    own = {k: (v, ln, file) for k, (v, ln) in (_assignments(tree) or {}).items()} if tree is not None else {}
    got = {**own, **_override(flags or {}, flags_file or file)}

    def val(k: str):
        return got[k][0] if k in got and got[k][0] is not None else P.NANOGPT_DEFAULTS[k]

    def num(k: str) -> int:
        if k in got and got[k][0] is None:     # `n_layer = depth * 2`: computed from what is not here
            raise UserError(f"{got[k][2]}:{got[k][1]}: {k} is computed, not written as a number: write its value")
        return _whole(k, val(k), got[k][2] if k in got else file)

    def put(key: str, value, k: str) -> None:
        where = got.get(k)
        out[key] = Setting(key, value, where[2] if where else file, where[1] if where else None,
                           k if where else f"{k} (train.py default)", "flag" if where else "default")

    out: dict[str, Setting] = {}
    init = str(val("init_from"))
    if init in P.GPT2_SHAPES:
        layers, heads, width = P.GPT2_SHAPES[init]
        model = shape_config(layers, heads, width, P.GPT2_VOCAB, 1024)
        how = f"init_from {init!r}: GPT-2 {layers} layers x {width}, {heads} heads, vocab {P.GPT2_VOCAB} (model.py)"
    else:
        model = shape_config(num("n_layer"), num("n_head"), num("n_embd"), P.NANOGPT_VOCAB, num("block_size"))
        how = (f"n_layer {val('n_layer')}, n_head {val('n_head')}, n_embd {val('n_embd')}, vocab {P.NANOGPT_VOCAB} "
               f"(train.py's from-scratch vocab)")
    put("model_name_or_path", model, "init_from" if init in P.GPT2_SHAPES else "n_layer")
    put("per_device_train_batch_size", num("batch_size"), "batch_size")
    put("cutoff_len", num("block_size"), "block_size")
    put("gradient_accumulation_steps", num("gradient_accumulation_steps"), "gradient_accumulation_steps")
    dtype = str(val("dtype"))
    if dtype in ("bfloat16", "float16"):
        put("bf16" if dtype == "bfloat16" else "fp16", True, "dtype")
    put("packing", True, "block_size")             # get_batch cuts every sample to block_size tokens
    put("finetuning_type", "full", "init_from")
    put("disable_gradient_checkpointing", True, "n_layer")   # model.py checkpoints nothing
    note = (f"{os.path.basename(file)}: a nanoGPT config file ({P.NANOGPT_SOURCE}: its globals, then this file, then "
            f"--key=value) read as a GPT built from its shape: {how}; fp32 weights, {dtype} autocast, AdamW")
    return out, [note]


def nanochat_settings(flags: dict[str, tuple[str, int]], file: str) -> tuple[dict[str, Setting], list[str]]:
    """nanochat's base_train flags (`--depth=20 --max_seq_len=2048 --device_batch_size=64`, either spelling) over
    its defaults, as settings: the model from the depth, the device batch, the sequence."""
    norm = {k.replace("-", "_"): v for k, v in flags.items()}

    def val(k: str) -> int:
        return _whole(k, norm[k][0], file) if k in norm else P.NANOCHAT_DEFAULTS[k]

    def put(key: str, value, k: str) -> None:
        hit = norm.get(k)
        out[key] = Setting(key, value, file, hit[1] if hit else None, k if hit else f"{k} (base_train default)",
                           "flag" if hit else "default")

    depth, hd = val("depth"), val("head_dim")
    width = -(-depth * val("aspect_ratio") // hd) * hd
    out: dict[str, Setting] = {}
    put("model_name_or_path", shape_config(depth, width // hd, width, P.NANOCHAT_VOCAB, val("max_seq_len")), "depth")
    put("per_device_train_batch_size", val("device_batch_size"), "device_batch_size")
    put("cutoff_len", val("max_seq_len"), "max_seq_len")
    put("bf16", True, "depth")
    put("packing", True, "max_seq_len")
    put("finetuning_type", "full", "depth")
    put("disable_gradient_checkpointing", True, "depth")
    out["__upper_bound__"] = Setting("__upper_bound__", P.NANOCHAT_UNCOUNTED, file, None, "base_train", "default")
    note = (f"nanochat base_train ({P.NANOCHAT_SOURCE}): depth {depth} -> {depth} layers x {width} "
            f"(depth x {val('aspect_ratio')}, rounded to head_dim {hd}), {width // hd} heads, vocab {P.NANOCHAT_VOCAB}; "
            f"bf16 autocast; Muon + AdamW counted as AdamW (an upper bound)")
    return out, [note]
