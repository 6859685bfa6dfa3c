"""ms-swift command lines (`swift sft|pt|rlhf ...`) -> canonical settings (pure).

ms-swift's argument names (swift/llm/argument/*.py): --train_type (lora | full | ...), --max_length,
--torch_dtype, --deepspeed zero0|zero1|zero2|zero3|zero2_offload|zero3_offload or a JSON path,
--lora_rank, --lora_alpha, --target_modules, --gradient_checkpointing (default true), --attn_impl."""

from __future__ import annotations

from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int

SW = "modelscope/ms-swift:swift"
# ms-swift 3.x (swift/trainers/arguments.py TrainArgumentsMixin overrides the HF Trainer's defaults)
DEFAULTS = {
    "method": Default("lora", f"{SW}/llm/argument/tuner_args.py (TunerArguments.train_type)"),
    # max_length None = the model's max_model_len: the bound when the data is not known (a dropped --max_length
    # on long multimodal samples is a real OOM, test_check SWIFT_5199)
    "cutoff_len": Default("model", f"{SW}/llm/argument/base_args/template_args.py (TemplateArguments.max_length: "
                                   f"None = the model's max_model_len)"),
    "micro_batch": Default(1, f"{SW}/trainers/arguments.py (TrainArgumentsMixin.per_device_train_batch_size)"),
    "eval_batch": Default(1, f"{SW}/trainers/arguments.py (TrainArgumentsMixin.per_device_eval_batch_size)"),
    "gradient_checkpointing": Default(True, f"{SW}/trainers/arguments.py (TrainArgumentsMixin.gradient_checkpointing)"),
    "precision": Default("bf16", f"{SW}/llm/argument/base_args/model_args.py (ModelArguments.torch_dtype: None = "
                                 f"the checkpoint's, bf16 for the models people fine-tune)"),
}

MAP = {"model": "model_name_or_path", "train_type": "finetuning_type", "tuner_type": "finetuning_type", "max_length": "cutoff_len",
       "lora_rank": "lora_rank", "lora_alpha": "lora_alpha", "target_modules": "lora_target",
       "per_device_train_batch_size": "per_device_train_batch_size",
       "gradient_accumulation_steps": "gradient_accumulation_steps",
       "per_device_eval_batch_size": "per_device_eval_batch_size", "deepspeed": "deepspeed",
       "attn_impl": "flash_attn", "save_total_limit": "save_total_limit", "eval_steps": "eval_steps",
       "gradient_checkpointing": "disable_gradient_checkpointing", "quant_bits": "quantization_bit",
       "packing": "packing", "optim": "optim", "eval_strategy": "eval_strategy",
       "split_dataset_ratio": "val_size", "val_dataset": "eval_dataset", "use_liger_kernel": "enable_liger_kernel",
       "device_map": "device_map", "sequence_parallel_size": "sequence_parallel_size",
       "lisa_activated_layers": "freeze_trainable_layers", "use_galore": "use_galore",
       # `swift rlhf --rlhf_type grpo` (core/runners/rl.py)
       **{k: k for k in ("use_vllm", "vllm_mode", "vllm_gpu_memory_utilization", "sleep_level", "beta",
                         "max_completion_length", "num_generations", "offload_model", "offload_optimizer")}}
# ms-swift's named DeepSpeed configs (swift/llm/ds_config/): stage and offload
NAMED_DS = {"zero0": (0, "none"), "zero1": (1, "none"), "zero2": (2, "none"), "zero3": (3, "none"),
            "zero2_offload": (2, "optimizer"), "zero3_offload": (3, "all")}


def read_flags(flags: dict[str, tuple[str, int]], file: str) -> dict[str, Setting]:
    out: dict[str, Setting] = {}
    for k, (v, line) in flags.items():
        if k == "rlhf_type":
            out["stage"] = Setting("stage", {"dpo": "dpo", "orpo": "dpo", "simpo": "dpo", "cpo": "dpo"}.get(
                v.lower(), v.lower()), file, line, k, "flag")
        elif k == "torch_dtype":
            d = v.lower()
            key = "bf16" if "bf" in d else "fp16" if ("16" in d or "half" in d) else "pure_fp32"
            out[key] = Setting(key, True, file, line, k, "flag")
            # ModelArguments.torch_dtype is the dtype from_pretrained loads the model in (not the checkpoint's)
            out["load_dtype"] = Setting("load_dtype", {"bf16": "bf16", "fp16": "fp16"}.get(key, "fp32"), file, line,
                                        k, "flag")
        elif k in MAP:
            key = MAP[k]
            value: object = v
            invert = False
            if key == "disable_gradient_checkpointing":
                b = as_bool(v)
                value, invert = ((not b) if b is not None else v), True
            elif key == "finetuning_type":
                value = {"lora": "lora", "full": "full", "longlora": "lora", "adalora": "lora"}.get(v.lower(), v)
            out[key] = Setting(key, value, file, line, k, "flag", invert)
    lisa = out.get("freeze_trainable_layers")
    if lisa is not None and as_int(lisa.value) and str(out.get("finetuning_type", lisa).value) in ("full", str(lisa.value)):
        # LISA trains N randomly chosen layers at a time (swift/trainers/callback.py DynamicLayerActivation): the
        # memory of a freeze fine-tune of N layers
        out["finetuning_type"] = Setting("finetuning_type", "freeze", file, lisa.line, "lisa_activated_layers", "flag")
    galore = out.pop("use_galore", None)
    if galore is not None and as_bool(galore.value) and "optim" not in out:
        # GaLore keeps the Adam moments of rank-r projections (swift/trainers/optimizers/galore): far below full
        # AdamW; estimated as a factored (Adafactor-sized) state
        out["optim"] = Setting("optim", "adafactor", file, galore.line, "use_galore", "flag")
    return out
