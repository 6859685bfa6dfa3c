"""The finetune demo YAML of THUDM's GLM-4 / GLM-4V and ChatGLM3 (`python finetune.py data/ THUDM/glm-4-9b-chat
configs/lora.yaml`, `finetune_vision.py` likewise): `data_config`, `max_input_length`, `max_output_length`, a
`training_args` block of Seq2SeqTrainingArguments and an optional `peft_config`. Pure.

Read as the demo's program uses it (THUDM/GLM-4 finetune_demo/finetune.py, FinetuningConfig.from_file and main):
- every sample is cut at max_input_length + max_output_length + 1 tokens (process_batch), batches padded to the
  longest (DataCollatorForSeq2Seq padding='longest');
- the model is loaded in bf16 ("Must use BFloat 16": from_pretrained(torch_dtype=torch.bfloat16)), with or without
  peft_config, and `model.gradient_checkpointing_enable()` is always called;
- training_args go to Seq2SeqTrainingArguments as they are (per_device_train_batch_size, deepspeed,
  predict_with_generate with generation_config.max_new_tokens, per_device_eval_batch_size);
- peft_config goes to peft.get_peft_config: peft_type LORA (r, target_modules) or PREFIX_TUNING (P-Tuning v2: a small
  prefix encoder, the model frozen - counted here like LoRA, as a frozen model with a small trainable part).
"""

from __future__ import annotations

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners.common import Setting, as_int

SRC = "THUDM/GLM-4:finetune_demo/finetune.py"


def is_config(data) -> bool:
    """GLM's finetune demo config: a training_args block beside max_input_length/max_output_length or data_config."""
    return isinstance(data, dict) and isinstance(data.get("training_args"), dict) and (
        "max_input_length" in data or "max_output_length" in data) and "data_config" in data


def read(data: dict, lines: dict[str, int], file: str) -> tuple[dict[str, Setting], list[str]]:
    """(settings, notes) of the demo's YAML: Seq2SeqTrainingArguments flags read like any HF trainer's."""
    from rocm_tune.core.runners import hf as hf_args

    args = data["training_args"]
    flags = {str(k): (str(v), lines.get(str(k), 0)) for k, v in args.items()
             if isinstance(v, (str, int, float, bool))}
    out, notes = hf_args.read_flags(flags, file)
    notes = [f"{file}: GLM's finetune demo config, read as its program uses it ({SRC}): bf16 weights, gradient "
             "checkpointing on, samples cut at max_input_length + max_output_length + 1"] + notes

    def put(key, value, native, kind="yaml"):
        out[key] = Setting(key, value, file, lines.get(native.split(".")[-1]), native, kind)

    lengths = {}
    for key in ("max_input_length", "max_output_length"):
        if key in data:
            n = as_int(data[key])
            if n is None or n < 0 or isinstance(data[key], bool):
                raise UserError(f"{file}:{lines.get(key, '?')}: {key} {data[key]!r} is not a whole number of tokens "
                                f"(finetune.py cuts each sample at max_input_length + max_output_length + 1)")
            lengths[key] = n
    if lengths:
        put("cutoff_len", sum(lengths.values()) + 1, "max_input_length")
    put("load_dtype", "bf16", "torch_dtype", "default")
    if "bf16" not in out and "fp16" not in out:
        put("bf16", True, "torch_dtype", "default")
    out["disable_gradient_checkpointing"] = Setting("disable_gradient_checkpointing", False, file, None,
                                                    "model.gradient_checkpointing_enable()", "default", True)
    gen = args.get("generation_config")
    if isinstance(gen, dict) and as_int(gen.get("max_new_tokens")):
        put("max_new_tokens", as_int(gen["max_new_tokens"]), "generation_config.max_new_tokens")
    peft = data.get("peft_config")
    if isinstance(peft, dict):
        kind = str(peft.get("peft_type", "")).upper()
        put("finetuning_type", "lora", "peft_config.peft_type")
        if kind == "LORA":
            if as_int(peft.get("r")):
                put("lora_rank", as_int(peft["r"]), "peft_config.r")
            tm = peft.get("target_modules")
            if tm:
                put("lora_target", ",".join(map(str, tm)) if isinstance(tm, list) else str(tm),
                    "peft_config.target_modules")
        else:
            notes.append(f"{file}: peft_type {kind or '?'} (P-Tuning v2): counted as a frozen model with a small "
                         "trainable part, like LoRA")
    else:
        put("finetuning_type", "full", "peft_config", "default")
    return out, notes
