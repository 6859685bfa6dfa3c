"""Axolotl YAML -> canonical settings (pure; yaml).

Axolotl's keys (src/axolotl/utils/schemas/config.py): base_model, adapter (lora | qlora | empty = full),
load_in_8bit / load_in_4bit (the base quantised by bitsandbytes), lora_r, lora_alpha, lora_target_linear /
lora_target_modules, sequence_len, micro_batch_size, gradient_accumulation_steps, optimizer, bf16 (true |
auto = bf16 where the GPU has it), fp16, gradient_checkpointing, flash_attention, deepspeed (a JSON path),
fsdp / fsdp_config, eval_batch_size, val_set_size. Axolotl runs the transformers Trainer: runner hf."""

from __future__ import annotations

from rocm_tune.core.runners.common import Default, Setting, as_bool
from rocm_tune.core.runners.llamafactory import yaml_lines

AX = "axolotl-ai-cloud/axolotl:src/axolotl/utils/schemas/config.py (AxolotlInputConfig"
DEFAULTS = {
    "method": Default("full", f"{AX}.adapter: none = full fine-tuning)"),
    "cutoff_len": Default(512, f"{AX}.sequence_len)"),
    "micro_batch": Default(1, f"{AX}.micro_batch_size)"),
    "eval_batch": Default("micro_batch", f"{AX}.eval_batch_size: micro_batch_size when unset)"),
    "gradient_checkpointing": Default(False, f"{AX}.gradient_checkpointing)"),
}


def read(data: dict, text: str, file: str) -> tuple[dict[str, Setting], list[str]]:
    lines = yaml_lines(text)
    out: dict[str, Setting] = {}
    notes: list[str] = []

    def put(key, value, native):
        out[key] = Setting(key, value, file, lines.get(native), native, "yaml")

    put("model_name_or_path", data.get("base_model"), "base_model")
    adapter = str(data.get("adapter") or "").lower()
    q4, q8 = as_bool(data.get("load_in_4bit")), as_bool(data.get("load_in_8bit"))
    put("finetuning_type", "lora" if adapter in ("lora", "qlora") else "full", "adapter")
    if adapter == "qlora" or (adapter == "lora" and q4):
        put("quantization_bit", 4, "load_in_4bit")
    elif adapter == "lora" and q8:
        put("quantization_bit", 8, "load_in_8bit")
        notes.append("axolotl load_in_8bit: the base is an 8-bit bitsandbytes model under LoRA")
    if data.get("lora_r"):
        put("lora_rank", data.get("lora_r"), "lora_r")
    if data.get("lora_alpha"):
        put("lora_alpha", data.get("lora_alpha"), "lora_alpha")
    if as_bool(data.get("lora_target_linear")):
        put("lora_target", "all", "lora_target_linear")
    elif data.get("lora_target_modules"):
        mods = data["lora_target_modules"]
        put("lora_target", ",".join(mods) if isinstance(mods, list) else str(mods), "lora_target_modules")
    for src, key in (("sequence_len", "cutoff_len"), ("micro_batch_size", "per_device_train_batch_size"),
                     ("gradient_accumulation_steps", "gradient_accumulation_steps"), ("optimizer", "optim"),
                     ("eval_batch_size", "per_device_eval_batch_size"), ("deepspeed", "deepspeed"),
                     ("warmup_steps", "warmup_steps"), ("val_set_size", "val_size"), ("eval_steps", "eval_steps")):
        if data.get(src) not in (None, ""):
            put(key, data[src], src)
    bf = data.get("bf16")
    if str(bf).lower() == "auto" or as_bool(bf):
        put("bf16", True, "bf16")
        put("load_dtype", "bf16", "bf16")     # axolotl normalize_config: bf16 -> cfg.torch_dtype = torch.bfloat16
        if str(bf).lower() == "auto":
            notes.append("axolotl bf16: auto read as bf16 (the GPU's support is checked below)")
    elif as_bool(data.get("fp16")):
        put("fp16", True, "fp16")
        put("load_dtype", "fp16", "fp16")
    gcv = data.get("gradient_checkpointing")
    # "offload" / "offload_disk": checkpointing with the checkpoints moved to host memory (on, and less on the GPU)
    gc = True if str(gcv).lower() in ("offload", "offload_disk", "unsloth") else as_bool(gcv)
    out["disable_gradient_checkpointing"] = Setting("disable_gradient_checkpointing", not bool(gc), file,
                                                    lines.get("gradient_checkpointing"), "gradient_checkpointing",
                                                    "yaml", invert=True)
    if data.get("gradient_checkpointing_kwargs"):
        put("gradient_checkpointing_kwargs", data["gradient_checkpointing_kwargs"], "gradient_checkpointing_kwargs")
    if as_bool(data.get("flash_attention")):
        put("flash_attn", "fa2", "flash_attention")
    elif as_bool(data.get("sdp_attention")):
        put("flash_attn", "sdpa", "sdp_attention")
    if data.get("fsdp") or data.get("fsdp_config"):
        # read by core.runners.fsdp.spec_from: `fsdp:` is a word list (full_shard, offload, ...), `fsdp_config:`
        # a mapping (fsdp_version, fsdp_offload_params, reshard_after_forward / fsdp_sharding_strategy, ...)
        put("fsdp", data.get("fsdp") or "", "fsdp" if data.get("fsdp") else "fsdp_config")
        fc = dict(data["fsdp_config"]) if isinstance(data.get("fsdp_config"), dict) else {}
        if data.get("fsdp_version") is not None:          # axolotl >= 0.12: a top-level key
            fc.setdefault("fsdp_version", data["fsdp_version"])
        if fc:
            put("fsdp_config", fc, "fsdp_config")
    if as_bool(data.get("activation_offloading")):
        put("activation_offloading", True, "activation_offloading")
    plugins = " ".join(map(str, data.get("plugins") or [])) if isinstance(data.get("plugins"), list) else ""
    if "cut_cross_entropy" in plugins or as_bool(data.get("cut_cross_entropy")):
        put("cut_cross_entropy", True, "plugins" if "cut_cross_entropy" in plugins else "cut_cross_entropy")
    if "liger" in plugins.lower():
        put("enable_liger_kernel", True, "plugins")
    if (data.get("val_set_size") or 0) and float(data.get("val_set_size") or 0) > 0:
        put("do_eval", True, "val_set_size")
    return out, notes
