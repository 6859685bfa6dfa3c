"""AutoTrain Advanced (huggingface/autotrain-advanced) LLM fine-tuning: data only, read from its source per release.

`autotrain llm --train ...` (src/autotrain/cli/run_llm.py) and `autotrain --config X.yml` with `task: llm-sft|llm-dpo|
llm-orpo|llm-reward|llm-generic|llm` (src/autotrain/parser.py AutoTrainConfigParser: `base_model` -> model, `params:`
-> LLMTrainingParams fields, the task's suffix -> trainer). Three spellings of the same parameters:
  2023 CLI (0.6.3 .. 0.6.51, run_llm.py at 1e76ba1 2023-07-21 .. baaf553~1 2023-12-12): --use_peft, --use_int4,
      --use_int8, --fp16, --train_batch_size (2), --gradient_accumulation_steps (1), --model_max_length (1024)
  later CLI (0.6.52+, baaf553 2023-12-14 "Improvements to arguments"): --peft, --quantization int4|int8,
      --mixed_precision fp16|bf16, --batch_size, --gradient_accumulation, with aliases (--use-peft, --mp,
      --batch-size, --train-batch-size, --gradient-accumulation, --disable-gc, --use-fa2, --max-len)
  YAML params: the LLMTrainingParams field names (src/autotrain/trainers/clm/params.py).
"""
from __future__ import annotations

REPO = "huggingface/autotrain-advanced"

# spelling (after `--`, `-` read as `_`) -> LLMTrainingParams field; None: a value handled by the reader
FLAG_FIELDS: dict[str, str] = {
    "model": "model", "model_name": "model",
    "batch_size": "batch_size", "train_batch_size": "batch_size",
    "gradient_accumulation": "gradient_accumulation", "gradient_accumulation_steps": "gradient_accumulation",
    "block_size": "block_size",
    "model_max_length": "model_max_length", "max_len": "model_max_length", "max_length": "model_max_length",
    "peft": "peft", "use_peft": "peft",
    "quantization": "quantization",
    "mixed_precision": "mixed_precision", "mp": "mixed_precision",
    "lora_r": "lora_r", "lora_alpha": "lora_alpha", "target_modules": "target_modules",
    "disable_gradient_checkpointing": "disable_gradient_checkpointing", "disable_gc": "disable_gradient_checkpointing",
    "use_flash_attention_2": "use_flash_attention_2", "use_fa2": "use_flash_attention_2",
    "attn_implementation": "attn_implementation",
    "optimizer": "optimizer", "trainer": "trainer", "padding": "padding",
    "max_prompt_length": "max_prompt_length", "max_completion_length": "max_completion_length",
    "model_ref": "model_ref", "unsloth": "unsloth", "distributed_backend": "distributed_backend",
    "auto_find_batch_size": "auto_find_batch_size",
}
# the 2023 CLI's switches that became values of one field in 0.6.52 (run_llm.py before baaf553)
OLD_SWITCHES: dict[str, tuple[str, str]] = {
    "use_int4": ("quantization", "int4"), "use_int8": ("quantization", "int8"), "fp16": ("mixed_precision", "fp16"),
}
# spellings only the 2023 CLI accepts (its argparse: --use_int4/--use-int4, --use_int8, --fp16; the later CLI has
# --quantization and --mixed-precision, and --use-peft with a hyphen only)
OLD_ONLY = ("use_int4", "use_int8", "fp16")
OLD_ONLY_RAW = ("use_peft",)

# task of the YAML (parser.py task_param_map / _parse_config: "llm-X" -> trainer X, "llm" -> default)
LLM_TASKS = ("llm", "llm-sft", "llm-dpo", "llm-orpo", "llm-reward", "llm-generic")

# The releases whose behaviour differs for memory: (first version, last version, commit read, facts)
#   launch: "device_map"  one process: run_llm.py calls train() itself, from_pretrained(device_map="auto") under PEFT
#           "ddp"         `accelerate launch --multi_gpu --num_processes <GPUs seen>` (commands.py
#                         get_accelerate_command; run_llm.py before that), each rank loads the whole model
#   peft_dtype: torch_dtype of the PEFT load (None: not passed, transformers loads fp32; bitsandbytes overrides
#               None with float16 for a quantized load)
RELEASES: tuple[dict, ...] = (
    {"name": "0.6.3-0.6.20", "first": (0, 6, 3), "last": (0, 6, 20), "commit": "1e76ba1 (2023-07-21)",
     "launch": "device_map", "peft_dtype": "fp16",
     "defaults": {"batch_size": 2, "gradient_accumulation": 1, "model_max_length": 1024, "quantization": None,
                  "target_modules": None, "gc": "quantized"},
     "src": "src/autotrain/trainers/clm.py (train: from_pretrained(torch_dtype=torch.float16, device_map=\"auto\"), "
            "prepare_model_for_int8_training when int4/int8); src/autotrain/cli/run_llm.py (argparse defaults)"},
    {"name": "0.6.21-0.6.51", "first": (0, 6, 21), "last": (0, 6, 51), "commit": "0a2430e (2023-08-16)",
     "launch": "ddp", "peft_dtype": "fp16",
     "defaults": {"batch_size": 2, "gradient_accumulation": 1, "model_max_length": 1024, "quantization": None,
                  "target_modules": None, "gc": "quantized"},
     "src": "src/autotrain/cli/run_llm.py (num_gpus > 1: accelerate launch --multi_gpu --num_processes N); "
            "src/autotrain/trainers/clm/__main__.py (device_map={\"\": Accelerator().process_index})"},
    {"name": "0.6.52-0.6.95", "first": (0, 6, 52), "last": (0, 6, 95), "commit": "baaf553 (2023-12-14)",
     "launch": "ddp", "peft_dtype": None,
     "defaults": {"batch_size": 2, "gradient_accumulation": 1, "model_max_length": 2048, "quantization": None,
                  "target_modules": None, "gc": "on"},
     "src": "src/autotrain/trainers/clm/params.py (LLMTrainingParams); src/autotrain/commands.py (launch_command)"},
    {"name": "0.6.96-0.7.31", "first": (0, 6, 96), "last": (0, 7, 31), "commit": "8d05e1b (2024-02-22)",
     "launch": "ddp", "peft_dtype": None,
     "defaults": {"batch_size": 2, "gradient_accumulation": 1, "model_max_length": 2048, "quantization": None,
                  "target_modules": "all-linear", "gc": "on"},
     "src": "src/autotrain/trainers/clm/params.py (LLMTrainingParams: target_modules all-linear); "
            "src/autotrain/commands.py (launch_command)"},
    {"name": "0.7.32+", "first": (0, 7, 32), "last": (9, 0, 0), "commit": "ee1310c (2024-03-21) .. b5c98fb (2025-01)",
     "launch": "ddp", "peft_dtype": None,
     "defaults": {"batch_size": 2, "gradient_accumulation": 4, "model_max_length": 2048, "quantization": "int4",
                  "target_modules": "all-linear", "gc": "on"},
     "src": "src/autotrain/trainers/clm/params.py (LLMTrainingParams: gradient_accumulation 4, quantization int4, "
            "target_modules all-linear); src/autotrain/commands.py get_accelerate_command; "
            "src/autotrain/trainers/clm/utils.py get_model"},
)
OLD_CLI_RELEASE = "0.6.21-0.6.51"     # the 2023 spelling without a version pin: its later releases (DDP, see reader)
NEW_CLI_RELEASE = "0.7.32+"           # the later spelling / a YAML without a pin: the newest releases

# block_size -1 (the default) -> configure_block_size: tokenizer.model_max_length (capped to model_max_length when
# the tokenizer says more than 2048), at most 1024 (clm utils.py configure_block_size / clm.py before 0.6.21)
BLOCK_DEFAULT_CAP = 1024
TOKENIZER_CAP_ABOVE = 2048

# trainer -> check's stage (clm/train_clm_<trainer>.py: default/generic/sft: causal LM loss; dpo: TRL DPOTrainer,
# no reference copy under PEFT (ref_model None); orpo: TRL ORPOTrainer; reward: AutoModelForSequenceClassification)
TRAINER_STAGES = {"default": "sft", "generic": "sft", "sft": "sft", "dpo": "dpo", "orpo": "orpo", "reward": "sft"}

# get_accelerate_command(distributed_backend="deepspeed"): --use_deepspeed --zero_stage 3, no offload
DEEPSPEED_STAGE = 3
