"""ljm565/universal-llm-trainer (`python3 src/run/train.py --config CONFIG.yaml --mode train`): data only, read from
its source at aefdc4a (2025-09-11, version 1.6.4).

- src/utils/training_utils.py choose_proper_model: `model:` names a family and `model_size:` a size; the checkpoint
  is the family's listed one nearest in size (phi3: the medium one from 10B up). src/trainer/build.py get_model
  raises NotImplementedError for any other `model:`; a Hugging Face id (owner/name) there is read as the checkpoint
  meant (said in the answer).
- the config's keys (config/*.yaml) and the sub-configs they name: `peft_config_path` (config_lora/*.yaml: type lora,
  r, lora_alpha, target_modules) and `quant_config` (config_quant/*.yaml: BitsAndBytesConfig keys).
"""
from __future__ import annotations

REPO = "ljm565/universal-llm-trainer"
COMMIT = "aefdc4a"

# choose_proper_model: family (lower case) -> the checkpoints it picks from
FAMILY_MODELS: dict[str, tuple[str, ...]] = {
    "llama3": ("meta-llama/Meta-Llama-3-8B-Instruct",),
    "llama3.1": ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"),
    "llama2": ("meta-llama/Llama-2-13b-hf",),
    "gemma": ("google/gemma-2b", "google/gemma-7b"),
    "gemma1": ("google/gemma-2b", "google/gemma-7b"),
    "gemma2": ("google/gemma-2-9b-it",),
    "gemma3": ("google/gemma-3-12b-it",),
    "phi3": ("microsoft/Phi-3-mini-128k-instruct", "microsoft/Phi-3-medium-4k-instruct"),
    "qwen3": ("Qwen/Qwen3-8B", "Qwen/Qwen3-14B", "Qwen/Qwen3-30B-A3B-Instruct-2507"),
}
# phi3 is chosen by a threshold, not by the nearest size: `idx = 1 if target_size >= 10 else 0`
PHI3_MEDIUM_FROM_B = 10.0

# keys only this trainer's config/*.yaml carries (src/trainer/trainer.py, src/trainer/build.py,
# src/models/*.py read them); a config is this trainer's when it has `model:` and at least MIN_KEYS of these
KEYS = ("bit", "fsdp_train", "fsdp_hyperparameters", "gradient_accumuate_step", "peft_config_path", "quant_config",
        "del_logits_after_forward", "data_train_type", "amp_training", "half_inference", "total_cpu_use")
MIN_KEYS = 4

SOURCES = {
    "model": "src/utils/training_utils.py choose_proper_model",
    "bit": "src/models/*.py __set_bit and from_pretrained(dtype=...): 4/8 -> torch.float32 with a "
           "BitsAndBytesConfig (src/utils/quant_utils.py init_quant_config), 16 -> bfloat16, 32 -> float32, a dtype "
           "name -> that dtype",
    "kbit": "src/trainer/build.py get_model: prepare_model_for_kbit_training(model) when bit is 4 or 8",
    "amp": "src/trainer/trainer.py: torch.autocast(device_type, enabled=amp_training) (cuda's default float16) "
           "and torch.GradScaler",
    "optimizer": "src/trainer/trainer.py: optim.AdamW(self.model.parameters(), ...) (moments in the parameters' dtype)",
    "length": "src/data_collection/qa_dataset.py / ar_dataset.py _pad: every sample cut at and padded to max_length",
    "devices": "src/run/train.py main: one process per entry of `device` (torch.multiprocessing.spawn), DDP, or "
               "FSDP when fsdp_train",
    "fsdp": "src/trainer/build.py get_wrapped_model: FSDP FULL_SHARD, CPUOffload(offload_params=True) when "
            "fsdp_hyperparameters.cpu_offload, MixedPrecision(param_dtype=float16) when fsdp_hyperparameters."
            "amp_training",
    "gc": "src/models/*.py __set_gradient_checkpointing: gradient_checkpointing.activate (hf_checkpoint: "
          "gradient_checkpointing_enable; torch_checkpoint: apply_activation_checkpointing per decoder layer)",
    "peft": "src/utils/peft_utils.py init_lora_config: LoraConfig(r, lora_alpha, target_modules or PEFT's default)",
}
