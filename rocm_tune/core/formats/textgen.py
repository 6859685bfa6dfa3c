"""text-generation-webui's Training tab (oobabooga/text-generation-webui modules/training.py): the settings it saves
beside the LoRA as `loras/<name>/training_parameters.json` (its PARAMETERS list) are the training; the model and
its 4/8-bit loading come from the server's command line (`python server.py --model M --load-in-4bit`). Pure.

What do_train() builds from them (modules/training.py):
- TrainingArguments(per_device_train_batch_size=micro_batch_size, gradient_accumulation_steps=batch_size //
  micro_batch_size, fp16=True, optim=optimizer, save_strategy "no" without an eval dataset);
- every sample is padded to cutoff_len (tokenize(): `[pad] * (cutoff_len - len(input_ids)) + input_ids`): each
  sequence is exactly cutoff_len tokens;
- prepare_model_for_int8_training(shared.model) (PEFT: gradient checkpointing on, the non-quantized weights in fp32);
- LoraConfig(r=lora_rank, lora_alpha, target_modules): the `*_proj_en` switches where the file has them (newer
  releases), else PEFT's default for the architecture (q_proj, v_proj for Llama).
"""

from __future__ import annotations

from rocm_tune.core.runners.common import Setting, as_bool, as_int

SRC = "oobabooga/text-generation-webui:modules/training.py (do_train)"
MARKERS = ("lora_name", "micro_batch_size", "cutoff_len", "lora_rank")
PROJ = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def is_config(data) -> bool:
    return isinstance(data, dict) and all(k in data for k in MARKERS)


def read(data: dict, lines: dict[str, int], file: str) -> tuple[dict[str, Setting], list[str]]:
    out: dict[str, Setting] = {}

    def put(key, value, native, kind="json"):
        out[key] = Setting(key, value, file, lines.get(native), native, kind)

    put("finetuning_type", "lora", "lora_name")
    put("lora_rank", as_int(data.get("lora_rank")) or 32, "lora_rank")
    if as_int(data.get("lora_alpha")):
        put("lora_alpha", as_int(data["lora_alpha"]), "lora_alpha")
    on = [p for p in PROJ if as_bool(data.get(f"{p}_en"))]
    put("lora_target", ",".join(on) if on else "q_proj,v_proj", "q_proj_en" if on else "lora_name",
        "json" if on else "default")
    mb = as_int(data.get("micro_batch_size")) or 4
    put("per_device_train_batch_size", mb, "micro_batch_size")
    if as_int(data.get("batch_size")):
        put("gradient_accumulation_steps", max(1, as_int(data["batch_size"]) // mb), "batch_size")
    put("cutoff_len", as_int(data.get("cutoff_len")) or 256, "cutoff_len")
    put("fp16", True, "micro_batch_size", "default")
    if data.get("optimizer"):
        put("optim", str(data["optimizer"]), "optimizer")
    put("disable_gradient_checkpointing", False, "lora_name", "default")
    out["disable_gradient_checkpointing"].invert = True
    if str(data.get("eval_dataset", "None")) in ("None", ""):
        put("save_strategy", "no", "eval_dataset")
    notes = [f"{file}: text-generation-webui's Training tab settings, trained as do_train builds them ({SRC}): "
             f"every sample padded to cutoff_len {out['cutoff_len'].value}, fp16, gradient checkpointing "
             f"(prepare_model_for_int8_training)"]
    return out, notes
