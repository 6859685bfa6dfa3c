"""LitGPT fine-tuning (Lightning-AI/litgpt): `litgpt finetune lora|full|adapter CHECKPOINT_DIR ...`, the older
`litgpt finetune_lora ...` and lit-gpt's `python finetune/lora.py --checkpoint_dir ...`, with `--config X.yaml`
(LitGPT's config_hub/finetune YAML: the same keys, `train:` nested) and jsonargparse's dotted flags
(`--train.micro_batch_size 2`). Pure: the settings as canonical keys, each default with the source line it models.

What the source does (litgpt/finetune/lora.py, full.py, adapter.py `setup`):
- the model is `checkpoint_dir` (positional in `litgpt finetune`, `--checkpoint_dir` in the scripts);
- `precision` None -> litgpt/utils.py get_default_supported_precision(training=True): "bf16-mixed" where the GPU has
  bf16 (fp32 weights under bf16 autocast); "bf16-true" keeps the weights (and for full fine-tuning the gradients and
  AdamW moments) in bf16;
- `quantize` "bnb.nf4", "bnb.nf4-dq", "bnb.fp4(-dq)" -> 4-bit base weights, "bnb.int8-training" -> 8-bit (QLoRA;
  BitsandbytesPrecision, PagedAdamW);
- LoRA on query and value only (lora_query=True, lora_value=True, the rest False), lora_r 8;
- train.micro_batch_size 4 (lora, adapter) / 1 (full); train.max_seq_length None: the longest sample of the data,
  no cap but the model's context (fit(): model.max_seq_length = min(longest, max_seq_length or inf));
- devices > 1: FSDPStrategy(auto_wrap_policy={Block}, activation_checkpointing_policy={Block}) - full sharding
  with every block recomputed; one device: no activation checkpointing.
"""

from __future__ import annotations

from collections.abc import Mapping

import os
import re

from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int, named_data

SRC = "Lightning-AI/litgpt:litgpt/finetune/{m}.py (setup"
METHODS = ("lora", "full", "adapter", "adapter_v2")
MICRO = {"lora": 4, "adapter": 4, "adapter_v2": 4, "full": 1}     # TrainArgs(micro_batch_size=...) in setup()
# the defaults a LitGPT job carries for check (core/runners/config.py reads them where the job sets nothing)
DEFAULTS = {
    "cutoff_len": Default("model", "Lightning-AI/litgpt:litgpt/finetune/lora.py (fit: model.max_seq_length = "
                                   "min(longest sample, train.max_seq_length or inf))"),
    "gradient_checkpointing": Default(False, "Lightning-AI/litgpt:litgpt/finetune/lora.py (strategy 'auto' on "
                                             "one device: no activation checkpointing)"),
}
QUANT_BITS = {"bnb.nf4": 4, "bnb.nf4-dq": 4, "bnb.fp4": 4, "bnb.fp4-dq": 4, "bnb.int8-training": 8}


def entry(argv: list[str]) -> tuple[int, str] | None:
    """(index of the last word of the command, its arguments after it; method) when the command is a LitGPT
    fine-tuning. `litgpt finetune` alone is `finetune lora` (litgpt/__main__.py: "finetune": finetune_lora_fn)."""
    for i, w in enumerate(argv):
        base = os.path.basename(w)
        if base == "litgpt":
            rest = argv[i + 1:]
            if rest[:1] == ["finetune"]:
                return (i + 2, rest[1]) if len(rest) > 1 and rest[1] in METHODS else (i + 1, "lora")
            m = re.fullmatch(r"finetune_(lora|full|adapter|adapter_v2)", rest[0]) if rest else None
            if m:
                return i + 1, m.group(1)
        m = re.fullmatch(r"(lora|full|adapter|adapter_v2)\.py", base)
        if m and os.path.basename(os.path.dirname(w)) == "finetune":
            return i, m.group(1)
    return None


def method_of_config(path: str, data: dict) -> str:
    """The method a LitGPT YAML given alone trains: its file name (config_hub/finetune/<model>/lora.yaml, qlora.yaml,
    full.yaml), else LoRA when it sets lora_* keys, else full."""
    stem = os.path.splitext(os.path.basename(path))[0].lower()
    if stem in METHODS:
        return stem
    if stem == "qlora" or any(str(k).startswith("lora_") for k in data):
        return "lora"
    return "full"


def _flat(data: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in data.items():
        if isinstance(v, dict) and k in ("train", "eval", "data"):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def is_config(data) -> bool:
    """LitGPT's fine-tuning YAML (config_hub/finetune/*/lora.yaml): checkpoint_dir with a train: section."""
    return isinstance(data, dict) and "checkpoint_dir" in data and isinstance(data.get("train"), dict)


def read(method: str, values: Mapping[str, tuple[object, int | None]], file: str
         ) -> tuple[dict[str, Setting], list[str]]:
    """LitGPT's arguments ({dotted key: (value, line)}: the YAML's keys under the command's flags) -> settings, notes."""
    src = SRC.format(m=method if method != "adapter_v2" else "adapter_v2")
    out: dict[str, Setting] = {}
    notes = [f"LitGPT finetune {method}: its arguments read with its defaults ({src}))"]

    def put(key, value, native, line, kind="flag"):
        out[key] = Setting(key, value, file, line, native, kind)

    def get(*keys):
        return next((values[k] for k in keys if k in values and values[k][0] is not None), (None, None))

    ckpt, line = get("checkpoint_dir")
    if ckpt:
        put("model_name_or_path", str(ckpt).rstrip("/"), "checkpoint_dir", line)
    quant, qline = get("quantize")
    bits = QUANT_BITS.get(str(quant)) if quant else None
    if method == "full":
        put("finetuning_type", "full", "finetune full", None)
    else:
        put("finetuning_type", "lora", f"finetune {method}", None)
        r, rl = get("lora_r")
        put("lora_rank", as_int(r) or 8, "lora_r", rl, "flag" if r is not None else "default")
        on = [m for m, dflt in (("query", True), ("key", False), ("value", True), ("projection", False),
                                ("mlp", False), ("head", False))
              if as_bool(get(f"lora_{m}")[0]) is not False and (get(f"lora_{m}")[0] is not None or dflt)]
        names = {"query": "q_proj", "key": "k_proj", "value": "v_proj", "projection": "o_proj",
                 "mlp": "gate_proj,up_proj,down_proj", "head": "lm_head"}
        put("lora_target", ",".join(names[m] for m in on) or "q_proj,v_proj", "lora_query/lora_value", None)
    if bits:
        put("quantization_bit", bits, "quantize", qline)
        notes.append(f"--quantize {quant}: the base weights in {bits} bits (bitsandbytes), PagedAdamW")
    prec, pline = get("precision")
    prec = str(prec) if prec else "bf16-mixed"
    if pline is None:
        notes.append("precision not set: get_default_supported_precision(training=True) -> bf16-mixed on a GPU with "
                     "bf16 (Lightning-AI/litgpt:litgpt/utils.py)")
    # with bnb quantization lora.py turns "-true" into BitsandbytesPrecision(mode, dtype): the other weights (the
    # adapters, norms, embeddings) in that dtype all the same (litgpt/finetune/lora.py setup)
    if prec.endswith("-true"):
        put("load_dtype", "bf16" if prec.startswith("bf16") else "fp16" if prec.startswith("16") else "fp32",
            "precision", pline)
    elif prec.endswith("-mixed"):
        put("load_dtype", "fp32", "precision", pline)
        put("bf16" if prec.startswith("bf16") else "fp16", True, "precision", pline)
    mb, ml = get("train.micro_batch_size", "micro_batch_size")
    put("per_device_train_batch_size", as_int(mb) or MICRO[method], "train.micro_batch_size", ml,
        "flag" if mb is not None else "default")
    if mb is None:
        notes.append(f"train.micro_batch_size not set: {MICRO[method]} ({src}: TrainArgs))")
    seq, sl = get("train.max_seq_length", "override_max_seq_length", "max_seq_length")
    if as_int(seq):
        put("cutoff_len", as_int(seq), "train.max_seq_length", sl)
    data, dal = get("data", "data.class_path")
    if data is not None and isinstance(data, str):     # `--data Alpaca`, `litgpt.data.Alpaca`: its longest sample
        out.update(named_data([f"litgpt/{data.rsplit('.', 1)[-1].lower()}"], file, dal, "data", "flag"))
    dev, dl = get("devices")
    ndev = as_int(dev)
    if ndev is not None and ndev > 1:
        put("fsdp", "full_shard auto_wrap", "devices", dl)
        put("disable_gradient_checkpointing", False, "devices", dl)
        out["disable_gradient_checkpointing"].invert = True
        notes.append(f"devices {dev}: FSDPStrategy(auto_wrap_policy={{Block}}, activation_checkpointing_policy="
                     f"{{Block}}): weights sharded, every block recomputed ({src}))")
    return out, notes


def flags_of(words: list[tuple[str, int]]) -> tuple[dict[str, tuple[object, int]], list[tuple[str, int]]]:
    """jsonargparse command words -> ({key: (value, line)} with dots kept, the positional words)."""
    flags: dict[str, tuple[object, int]] = {}
    pos: list[tuple[str, int]] = []
    i = 0
    while i < len(words):
        w, ln = words[i]
        if w.startswith("--"):
            k = w[2:]
            if "=" in k:
                k, v = k.split("=", 1)
                flags[k.replace("-", "_")] = (v, ln)
            elif i + 1 < len(words) and not words[i + 1][0].startswith("--"):
                flags[k.replace("-", "_")] = (words[i + 1][0], ln)
                i += 1
            else:
                flags[k.replace("-", "_")] = ("true", ln)
        else:
            pos.append((w, ln))
        i += 1
    return flags, pos


def from_config(data: dict, lines: dict[str, int]) -> dict[str, tuple[object, int | None]]:
    """A LitGPT YAML's keys as {dotted key: (value, line)}."""
    return {k: (v, lines.get(k.split(".")[-1])) for k, v in _flat(data).items()}
