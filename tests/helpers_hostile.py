"""Hostile files and the commands that read them (issue 25 items 16-19), shared by
tests/test_hostile_readers.py and benchmarks/hostile.py.

`make(kind, path, fmt)` puts one hostile thing at `path` in the shape of format `fmt`
(yaml | json | toml | py | sh | log | safetensors | text); `KINDS[fmt]` lists the kinds that apply.
Every file is small on disk: the "huge" one is sparse.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

HUGE = 3 * 2**30            # sparse: bigger than any cap, costs no disk
LONG_LINE = 3 * 2**20       # one line of 3 MiB (under the config cap: must still be quick)
DEEP = 100_000
DIGITS = 4000               # under Python's own 4300-digit guard: only rocm-tune's limit stops it

_BOMB_YAML = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8))

COMMON = ["fifo", "dev-zero", "huge", "deep"]
KINDS = {
    "yaml": COMMON + ["long-line", "deep-block", "alias-bomb", "bigint", "1e400", "list-for-str"],
    "json": COMMON + ["long-line", "bigint", "1e400", "list-for-str"],
    "toml": COMMON + ["dotted", "bigint", "1e400", "list-for-str"],
    "py": COMMON + ["long-line", "chain"],
    "sh": ["fifo", "dev-zero", "huge", "long-line"],
    "log": ["fifo", "dev-zero", "huge", "long-line"],
    "safetensors": ["fifo", "dev-zero", "huge", "deep", "bigint", "1e400", "list-for-str", "header-size"],
    "text": ["fifo", "dev-zero", "huge", "long-line"],
}


def _yaml(kind: str) -> str:
    good = "model_name_or_path: qwen2.5-0.5b\nstage: sft\nfinetuning_type: lora\ncutoff_len: 1024\n"
    return {
        "deep": good + "x: " + "[" * DEEP + "]" * DEEP + "\n",
        "deep-block": good + "x:\n" + "".join(" " * (i + 1) + f"k{i}:\n" for i in range(3000)) + " " * 3001 + "v: 1\n",
        "alias-bomb": good + _BOMB_YAML,
        "long-line": good + "x: " + "y" * LONG_LINE + "\n",
        "bigint": good.replace("cutoff_len: 1024", "cutoff_len: " + "9" * DIGITS),
        "1e400": good.replace("cutoff_len: 1024", "cutoff_len: 1e400"),
        "list-for-str": good.replace("model_name_or_path: qwen2.5-0.5b", "model_name_or_path: [a, [b, c]]"),
    }[kind]


def _json(kind: str, fmt: str) -> str:
    if kind == "deep":
        return "[" * DEEP + "]" * DEEP
    if kind == "long-line":
        return json.dumps({"train_micro_batch_size_per_gpu": 1, "x": "y" * LONG_LINE})
    val = {"bigint": "9" * DIGITS, "1e400": "1e400", "list-for-str": '["a", ["b"]]'}[kind]
    # the one document that fits every JSON reader: DeepSpeed keys, trainer_state keys, a weight map, a plan
    return ('{"train_micro_batch_size_per_gpu": %s, "zero_optimization": {"stage": %s}, "global_step": %s, '
            '"max_steps": %s, "train_batch_size": %s, "weight_map": {"w": %s}, "version": %s, '
            '"d": {"file_name": %s, "formatting": %s}, "log_history": [{"step": %s, "loss": %s}]}'
            % ((val,) * 11))


def _toml(kind: str) -> str:
    return {
        "deep": "notify = " + "[" * DEEP + "]" * DEEP + "\n",
        "dotted": "a" + ".a" * 60_000 + " = 1\n",
        "bigint": "notify = " + "9" * DIGITS + "\n",
        "1e400": "notify = 1e400\n",
        "list-for-str": 'notify = [["https://example.com/x"]]\n',
    }[kind]


def _py(kind: str) -> str:
    head = "from transformers import TrainingArguments\n"
    return {
        "deep": head + "args = TrainingArguments(output_dir=" + "(" * DEEP + "'o'" + ")" * DEEP + ")\n",
        "chain": head + "args = TrainingArguments(per_device_train_batch_size=" + "1+" * 200_000 + "1)\n",
        "long-line": head + "args = TrainingArguments(output_dir='" + "y" * LONG_LINE + "')\n",
    }[kind]


def _safetensors(kind: str) -> bytes:
    if kind == "header-size":  # the 8-byte size says 2**63
        return struct.pack("<Q", 2**63) + b"{}"
    if kind == "deep":
        head = ("[" * DEEP + "]" * DEEP).encode()
    else:
        val = {"bigint": "9" * DIGITS, "1e400": "1e400", "list-for-str": '["a"]'}[kind]
        head = ('{"w": {"dtype": "F32", "shape": [%s], "data_offsets": [0, %s]}}' % (val, val)).encode()
    return struct.pack("<Q", len(head)) + head + b"\0" * 64


def make(kind: str, path: Path, fmt: str) -> Path:
    """A hostile `kind` at `path` (its parent exists); returns path."""
    path = Path(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", path)
    elif kind == "huge":
        with open(path, "wb") as fh:
            fh.write(b"model_name_or_path: x\n" if fmt != "safetensors" else struct.pack("<Q", 16) + b"{}" + b" " * 14)
            fh.truncate(HUGE)
    elif fmt == "safetensors":
        path.write_bytes(_safetensors(kind))
    elif fmt == "yaml":
        path.write_text(_yaml(kind))
    elif fmt == "json":
        path.write_text(_json(kind, fmt))
    elif fmt == "toml":
        path.write_text(_toml(kind))
    elif fmt == "py":
        path.write_text(_py(kind))
    elif fmt in ("sh", "log", "text"):
        assert kind == "long-line", kind
        head = "#!/bin/bash\n" if fmt == "sh" else "step 1\n"
        path.write_text(head + "y" * LONG_LINE + "\n")
    else:
        raise ValueError(f"{fmt}/{kind}")
    return path
