"""Settings a training program reads from its environment (a `.env` file it loads, the variables its launch line
sets): how they are named (issue 26; data only, read by core/formats/env_reads.py).

A program that takes its settings from the environment names them as its arguments, upper-cased: pydantic-settings
BaseSettings reads field `per_device_train_batch_size` from `PER_DEVICE_TRAIN_BATCH_SIZE` (case-insensitive), or
from `<env_prefix><FIELD>` when the model sets `env_prefix="TRAIN_"` (pydantic-settings docs, "Environment variable
names"); scripts doing `int(os.getenv("TRAIN_BATCH_SIZE", 4))` by hand follow the same habit. So a variable is read
as the argument its lower-cased name, or that name without a prefix word several of the file's variables share,
names (core/runners/hf.py read_flags reads those names as it reads a program's flags).

ALIASES: short spellings of TrainingArguments / LoraConfig / TRL fields seen in such files, mapped to the flag name
read_flags knows. METHOD_KEYS: a variable naming the fine-tuning method; METHOD_FLAGS: its value -> the flags that
say it (qlora = LoRA over a 4-bit base: the QLoRA paper's recipe, bitsandbytes load_in_4bit).
NOT_SETTINGS: the environment of the libraries themselves (W&B, HF Hub, the launchers), never a training setting.
"""

from __future__ import annotations

ALIASES: dict[str, str] = {
    "grad_accum": "gradient_accumulation_steps",
    "grad_accum_steps": "gradient_accumulation_steps",
    "gradient_accumulation": "gradient_accumulation_steps",
    "accum_steps": "gradient_accumulation_steps",
    "grad_ckpt": "gradient_checkpointing",
    "grad_checkpointing": "gradient_checkpointing",
    "gradient_ckpt": "gradient_checkpointing",
    "per_device_batch_size": "per_device_train_batch_size",
    "train_batch_size": "per_device_train_batch_size",
    "eval_batch_size": "per_device_eval_batch_size",
    "epochs": "num_train_epochs",
    "num_epochs": "num_train_epochs",
    "max_seq_len": "max_seq_len",
    "seq_len": "seq_len",
    "max_len": "max_length",
    "context_length": "max_seq_length",
    "attn_impl": "attn_implementation",
    "attention_implementation": "attn_implementation",
    "lora_r": "lora_r",
    "lora_targets": "lora_target_modules",
    "base_model": "base_model",
    "model": "model",
    "model_name": "model_name",
    "model_id": "model_id",
    "model_path": "model_path",
    "optimizer": "optim",
    "precision": "precision",
}

METHOD_KEYS = ("method", "train_method", "finetune_method", "finetuning_method", "peft_method", "finetuning_type",
               "training_method", "tuning_method")
METHOD_FLAGS: dict[str, dict[str, str]] = {
    "qlora": {"use_lora": "true", "load_in_4bit": "true"},
    "lora": {"use_lora": "true"},
    "dora": {"use_lora": "true"},
    "full": {"use_lora": "false"},
    "sft": {},
}
# precision=bf16|fp16|fp32 -> the TrainingArguments switch
PRECISION_FLAGS: dict[str, dict[str, str]] = {
    "bf16": {"bf16": "true"}, "bfloat16": {"bf16": "true"},
    "fp16": {"fp16": "true"}, "float16": {"fp16": "true"},
}

NOT_SETTINGS = ("WANDB_", "HF_", "HUGGING", "TRANSFORMERS_", "TORCH_", "PYTORCH_", "CUDA_", "HIP_", "ROCR_", "HSA_",
                "NCCL_", "RCCL_", "OMP_", "MASTER_", "WORLD_", "LOCAL_", "RANK", "TOKENIZERS_", "ACCELERATE_",
                "DS_", "PATH", "PYTHON", "MIOPEN_", "AMD_", "VLLM_", "UV_", "XDG_")
# the arguments that name a dotenv file on a program's command line (`train.py --config x.env`, `--env-file`)
ENV_FILE_FLAGS = ("config", "env", "env_file", "env-file", "dotenv", "envfile", "settings", "config_file")
