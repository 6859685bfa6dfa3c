"""The built-in trainer (``rocm_tune/train/trainer.py``): it runs exactly the requested regime.

fp32: everything fp32. bf16/fp16: frozen weights loaded in 16 bit, trainable weights upcast to fp32,
torch autocast in the 16-bit dtype (full fine-tuning loads fp32, every weight trains). pure_bf16: every
weight, gradient and optimizer moment in bf16, no autocast. Under DeepSpeed the JSON's fp16/bf16 block
makes DeepSpeed run the 16-bit module itself (see ``deepspeed.py``).
"""

from __future__ import annotations

from rocm_tune.core.runners import Fact, Regime, checkpoint_dtype
from rocm_tune.core.runners.common import Default

_CFG = "rocm-tune:rocm_tune/train/config.py (TrainerConfig"
# what rocm-tune's own trainer fills in (it reads LLaMA-Factory's keys, with its own defaults)
DEFAULTS = {
    "method": Default("lora", f"{_CFG}.finetuning_type)"),
    "cutoff_len": Default(2048, f"{_CFG}.cutoff_len)"),
    "micro_batch": Default(1, f"{_CFG}.per_device_train_batch_size)"),
    "eval_batch": Default(1, f"{_CFG}.per_device_eval_batch_size)"),
    "gradient_checkpointing": Default(True, f"{_CFG}.gradient_checkpointing)"),
}

SOURCE = "rocm-tune:rocm_tune/train/trainer.py (_load_model)"
FACTS = (
    Fact("fp32: load_dtype float32, no autocast", SOURCE, "this repository"),
    Fact("bf16/fp16: frozen weights loaded in the 16-bit dtype, trainable ones cast to float32, "
         "TrainingArguments bf16/fp16 = torch autocast", SOURCE, "this repository"),
    Fact("pure_bf16: the model and LoRA adapters stay bf16 (autocast_adapter_dtype=False), no autocast",
         SOURCE, "this repository"),
)


def regime(model, cfg) -> Regime:
    ckpt = checkpoint_dtype(model)
    p = cfg.precision
    if p == "fp32":
        return Regime("builtin", p, "fp32", "fp32", "fp32", None, ckpt)
    if p == "pure_bf16":
        return Regime("builtin", p, "bf16", "bf16", "bf16", None, ckpt)
    return Regime("builtin", p, p, "fp32", p, p, ckpt)
