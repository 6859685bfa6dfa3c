"""ljm565/universal-llm-trainer's own config YAML (`python3 src/run/train.py --config config/X.yaml --mode train`),
with the LoRA and quantization YAMLs it names, read as the trainer's source uses them (profiles/universal_llm_trainer.py,
at its commit). Pure.

What the source does for memory:
- the model: choose_proper_model picks the family's checkpoint nearest `model_size` (a Hugging Face id in `model:`,
  which get_model itself refuses, is read as the checkpoint meant, and said);
- `bit`: 4/8 load with a BitsAndBytesConfig and dtype=torch.float32, then prepare_model_for_kbit_training (the
  unquantised weights stay fp32, so the hidden states are fp32); 16 -> bfloat16 weights; 32 -> float32; a dtype name
  (e.g. "bfloat16") -> that dtype;
- `amp_training`: torch.autocast(device_type) with cuda's default float16 and a GradScaler; else no autocast: the
  layers compute in the weights' dtype;
- torch AdamW over the trainable parameters, moments in their dtype (bf16 weights -> bf16 moments);
- every sample is cut at and padded to `max_length` (the datasets' _pad): each row is max_length tokens;
- `batch_size` per process; one process per `device` entry (DDP), FSDP FULL_SHARD when fsdp_train (parameters on
  the host under fsdp_hyperparameters.cpu_offload, fp16 MixedPrecision under its amp_training);
- gradient_checkpointing.activate; peft_config_path -> LoraConfig (type lora, r, lora_alpha, target_modules).
"""
from __future__ import annotations

import re

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners.common import Setting, as_bool, as_int, as_number
from rocm_tune.profiles import universal_llm_trainer as P

ENTRY = "universal-llm-trainer (src/run/train.py)"
_SIZE = re.compile(r"\b(\d+\.\d+|\d+)b\b")


def is_config(data) -> bool:
    """The trainer's own config: `model:` beside at least P.MIN_KEYS of the keys only its source reads."""
    return isinstance(data, dict) and "model" in data and not isinstance(data.get("model"), dict) and \
        sum(k in data for k in P.KEYS) >= P.MIN_KEYS


def sub_configs(data: dict) -> dict[str, str]:
    """{"peft": path, "quant": path} of the sub-configs the config names (a false value: none)."""
    out = {}
    for role, key in (("peft", "peft_config_path"), ("quant", "quant_config")):
        v = data.get(key)
        if isinstance(v, str) and v.strip() and as_bool(v) is not False:
            out[role] = v.strip()
    return out


def model_id(data: dict, file: str, line: int | None) -> tuple[str, str]:
    """(checkpoint, how it was chosen) as choose_proper_model picks it; UserError where the trainer would fail."""
    name = str(data.get("model") or "").strip()
    if "/" in name:
        return name, (f"{file}: model {name}: a Hugging Face id, read as that checkpoint (the trainer's get_model at "
                      f"{P.COMMIT} takes a family name with model_size, e.g. `model: gemma2`, `model_size: 9b`, and "
                      f"raises NotImplementedError for any other name)")
    family = name.lower()
    models = P.FAMILY_MODELS.get(family)
    if models is None:
        raise UserError(f"{file}:{line or '?'}: model {name!r} is not one of universal-llm-trainer's families "
                        f"({', '.join(P.FAMILY_MODELS)}); its get_model raises NotImplementedError")
    raw = data.get("model_size")
    text = str(raw).strip().lower()
    size = as_number(text[:-1] if text.endswith("b") else text)
    if size is None:
        raise UserError(f"{file}:{line or '?'}: model {name} needs model_size (e.g. 8b) to choose its checkpoint "
                        f"({P.SOURCES['model']}); it is {raw!r}")
    if family == "phi3":
        pick = models[1] if size >= P.PHI3_MEDIUM_FROM_B else models[0]
    else:
        pick = min(models, key=lambda m: abs(size - float(_SIZE.findall(m.lower())[0].split("-")[-1])))
    return pick, (f"{file}: model {name}, model_size {raw}: {pick}, the nearest of {', '.join(models)} "
                  f"({P.REPO} {P.SOURCES['model']})")


def _precision(data: dict, put, notes: list[str], quant: int | None) -> None:
    """bit / amp_training -> the load dtype and the compute precision (module docstring)."""
    bit = data.get("bit", 16)
    amp = bool(as_bool(data.get("amp_training")))
    name = str(bit).strip().lower().removeprefix("torch.")
    if quant in (4, 8) or name in ("32", "float32", "float"):
        load = "fp32"
    elif name in ("16", "bfloat16"):
        load = "bf16"
    elif name in ("float16", "half"):
        load = "fp16"
    else:
        raise UserError(f"bit {bit!r}: universal-llm-trainer takes 4, 8, 16, 32 or a torch dtype name "
                        f"({P.SOURCES['bit']})")
    put("load_dtype", load, "bit")
    if amp:
        put("fp16", True, "amp_training")
        notes.append(f"amp_training: fp16 autocast over the {load} weights ({P.SOURCES['amp']})")
    elif load == "fp32":
        put("pure_fp32", True, "bit")
    else:
        put(load, True, "bit")
        notes.append(f"bit {bit}: the weights, the LoRA-free layers' activations and AdamW's moments are {load}; no "
                     f"autocast ({P.SOURCES['bit']}; {P.SOURCES['optimizer']})")


def _quant(q: dict | None, bit, put, notes: list[str]) -> int | None:
    """bit 4/8 with the quantization YAML's BitsAndBytesConfig keys -> quantization_bit (and double quant)."""
    b = as_int(bit)
    if b not in (4, 8):
        return None
    q = q or {}
    put("quantization_bit", b, "bit")
    put("kbit_fp32", True, "bit")
    if b == 4 and "bnb_4bit_use_double_quant" in q:
        put("double_quantization", bool(as_bool(q.get("bnb_4bit_use_double_quant"))), "bnb_4bit_use_double_quant")
    notes.append(f"bit {b}: bitsandbytes {b}-bit linears; the other weights in fp32 ({P.SOURCES['bit']}; "
                 f"{P.SOURCES['kbit']}), so the hidden states are fp32 without amp_training")
    return b


def _peft(p: dict | None, path: str | None, put, notes: list[str]) -> None:
    if path is None:
        put("finetuning_type", "full", "peft_config_path", "default")
        return
    if p is None:
        raise UserError(f"peft_config_path {path}: the LoRA config it names is not among the files given; give it "
                        f"too ({P.SOURCES['peft']})")
    kind = str(p.get("type", "lora")).lower()
    if kind != "lora":
        raise UserError(f"{path}: type {kind!r}: universal-llm-trainer builds only LoRA (get_peft_model raises "
                        f"NotImplementedError)")
    put("finetuning_type", "lora", "peft_config_path")
    if as_int(p.get("r")):
        put("lora_rank", as_int(p["r"]), "r")
    if as_int(p.get("lora_alpha")):
        put("lora_alpha", as_int(p["lora_alpha"]), "lora_alpha")
    tm = p.get("target_modules")
    put("lora_target", ",".join(map(str, tm)) if isinstance(tm, list) else str(tm) if tm else "__peft_default__",
        "target_modules")
    notes.append(f"{path}: LoRA r {p.get('r')}, targets {tm or 'PEFT default'} ({P.SOURCES['peft']})")


def _world(data: dict, put, notes: list[str]) -> int:
    """One process per `device` entry; FSDP keys when fsdp_train with more than one."""
    dev = data.get("device", [0])
    n = len(dev) if isinstance(dev, list) else 0 if str(dev).lower() == "cpu" else 1
    if n > 1 and as_bool(data.get("fsdp_train")):
        raw = data.get("fsdp_hyperparameters")
        h: dict = raw if isinstance(raw, dict) else {}
        offload = bool(as_bool(h.get("cpu_offload")))
        put("fsdp", "full_shard auto_wrap" + (" offload" if offload else ""), "fsdp_train")
        if as_bool(h.get("amp_training")):
            put("fp16", True, "fsdp_hyperparameters.amp_training")
        notes.append(f"fsdp_train over {n} GPUs ({P.SOURCES['fsdp']})")
    elif n > 1:
        notes.append(f"device {dev}: {n} DDP processes, a whole model on each ({P.SOURCES['devices']})")
    return max(n, 1)


def read(data: dict, lines: dict[str, int], file: str, peft: dict | None = None, peft_path: str | None = None,
         quant: dict | None = None) -> tuple[dict[str, Setting], list[str], int]:
    """(settings, notes, GPUs) of the trainer's config and the LoRA / quantization YAMLs it names."""
    out: dict[str, Setting] = {}
    notes: list[str] = [f"{file}: universal-llm-trainer's config, read as its source uses it ({P.REPO} at "
                        f"{P.COMMIT})"]

    def put(key, value, native, kind="yaml"):
        out[key] = Setting(key, value, file, lines.get(native.split(".")[0]), native, kind)

    mid, how = model_id(data, file, lines.get("model"))
    put("model_name_or_path", mid, "model")
    notes.append(how)
    qb = _quant(quant, data.get("bit", 16), put, notes)
    _precision(data, put, notes, qb)
    _peft(peft, peft_path, put, notes)
    n = as_int(data.get("max_length"))
    if n:
        put("cutoff_len", n, "max_length")
        put("packing", True, "max_length")
        notes.append(f"max_length {n}: {P.SOURCES['length']}")
    b = as_int(data.get("batch_size"))
    if b:
        put("per_device_train_batch_size", b, "batch_size")
    ga = as_int(data.get("gradient_accumuate_step"))
    if ga:
        put("gradient_accumulation_steps", ga, "gradient_accumuate_step")
    gc = data.get("gradient_checkpointing")
    on = bool(as_bool(gc.get("activate"))) if isinstance(gc, dict) else bool(as_bool(gc))
    put("disable_gradient_checkpointing", not on, "gradient_checkpointing")
    out["disable_gradient_checkpointing"].invert = True
    attn = data.get("attn_implementation")
    if attn and as_bool(attn) is not False:
        put("flash_attn", str(attn), "attn_implementation")
    put("optim", "adamw_torch", "lr0", "default")
    return out, notes, _world(data, put, notes)
