"""text-generation-webui's "Train LoRA" tab (oobabooga/text-generation-webui modules/training.py, do_train): the
training_parameters.json it writes beside each LoRA (`json.dump({x: vars[x] for x in PARAMETERS})`) and the
server.py flags that loaded the model, as canonical settings.

What the tab runs, read from its code:
* always LoRA (peft LoraConfig r=lora_rank, lora_alpha), on the projections whose `<name>_proj_en` box is ticked
  (list_target_modules); files from before those boxes: PEFT's default map (q_proj, v_proj for Llama);
* every sample is padded to cutoff_len (tokenize: `[pad_token_id] * (cutoff_len - len(input_ids)) + input_ids`):
  micro_batch_size x cutoff_len tokens per step, whatever the data;
* a model loaded quantized (server.py --load-in-4bit / --load-in-8bit: BitsAndBytesConfig) goes through PEFT's
  prepare_model_for_kbit_training, whose use_gradient_checkpointing=True turns checkpointing on; unquantized: off;
* TrainingArguments(fp16=not --bf16, bf16=--bf16, optim=optimizer), gradient_accumulation = batch_size //
  micro_batch_size; one process (multi-device "not yet implemented").
Pure: the JSON as parsed and the texts given beside it."""

from __future__ import annotations

import re

from rocm_tune.core.runners.common import Setting, as_int

# the keys every version of the tab writes (modules/training.py PARAMETERS)
_KEYS = {"lora_name", "micro_batch_size", "batch_size", "cutoff_len", "lora_rank", "lora_alpha"}
_PROJ = re.compile(r"^([a-z]+)_proj_en$")
_SERVER = re.compile(r"\bserver\.py\b[^\n]*")


def is_textgen_params(data) -> bool:
    return isinstance(data, dict) and _KEYS <= set(data)


def _line(text: str, key: str) -> int | None:
    for i, ln in enumerate(text.splitlines(), 1):
        if f'"{key}"' in ln:
            return i
    return None


def _server_flags(texts: dict[str, str]) -> tuple[set[str], str | None, int | None]:
    """The flags of a `server.py` command among the files given (the launch that loaded the model)."""
    for path, text in texts.items():
        for m in _SERVER.finditer(text):
            flags = set(re.findall(r"--([a-z0-9_-]+)", m.group(0)))
            return {f.replace("-", "_") for f in flags}, path, text.count("\n", 0, m.start()) + 1
    return set(), None, None


def read(data: dict, text: str, path: str, texts: dict[str, str]) -> tuple[dict[str, Setting], list[str]]:
    """(settings, notes) of a training_parameters.json and the server.py flags beside it."""
    out: dict[str, Setting] = {}

    def put(key: str, value, native: str, kind: str = "json", where: str | None = None, line: int | None = None):
        out[key] = Setting(key, value, where or path, line if where else _line(text, native), native, kind)

    put("finetuning_type", "lora", "lora_rank")
    for key in ("lora_rank", "lora_alpha", "cutoff_len"):
        if as_int(data.get(key)):
            put(key, as_int(data[key]), key)
    micro = as_int(data.get("micro_batch_size")) or 4
    put("per_device_train_batch_size", micro, "micro_batch_size")
    put("gradient_accumulation_steps", max(1, (as_int(data.get("batch_size")) or micro) // micro), "batch_size")
    if data.get("optimizer"):
        put("optim", str(data["optimizer"]), "optimizer")
    ticked = [f"{m.group(1)}_proj" for k, v in data.items() if (m := _PROJ.match(str(k))) and v is True]
    has_boxes = any(_PROJ.match(str(k)) for k in data)
    targets = ticked if has_boxes else ["q_proj", "v_proj"]
    put("lora_target", ",".join(targets) or "q_proj,v_proj",
        next((k for k in data if _PROJ.match(str(k))), "lora_rank"))
    # every sample left-padded to cutoff_len: the batch is micro_batch_size x cutoff_len tokens
    put("pad_to_max_length", True, "cutoff_len")
    flags, spath, sline = _server_flags(texts)
    bits = 4 if "load_in_4bit" in flags else 8 if "load_in_8bit" in flags else None
    notes = [f"{path}: text-generation-webui's Train LoRA tab (modules/training.py): LoRA on "
             f"{', '.join(targets)}, every sample padded to cutoff_len"]
    if bits:
        put("quantization_bit", bits, f"--load-in-{bits}bit", "flag", spath, sline)
        put("double_quantization", "use_double_quant" in flags, "--use_double_quant", "flag", spath, sline)
        notes.append(f"server.py --load-in-{bits}bit: the tab calls PEFT's prepare_model_for_kbit_training, which "
                     "turns gradient checkpointing on")
    put("disable_gradient_checkpointing", not bits, "--load-in-4bit" if bits else "cutoff_len",
        "flag" if bits else "json", spath if bits else None, sline if bits else None)
    prec = "bf16" if "bf16" in flags else "fp16"
    put(prec, True, "--bf16" if prec == "bf16" else "fp16", "flag" if prec == "bf16" else "assumed",
        spath if prec == "bf16" else None, sline if prec == "bf16" else None)
    return out, notes
