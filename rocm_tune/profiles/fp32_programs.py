"""Training programs known by their entry (and, for a copied script, by the flags it takes) whose own
``from_pretrained`` call passes no ``torch_dtype``: under transformers 4.x, which they were written for and pin, the
weights load in fp32 whatever ``--bf16``/``--fp16`` say (those only turn autocast / FSDP's mixed precision on), so a
full fine-tuning keeps fp32 weights, fp32 gradients and fp32 AdamW moments (issue 26). Pure data."""

from __future__ import annotations

# lm-sys/FastChat fastchat/train/train.py (train(): `AutoModelForCausalLM.from_pretrained(model_name_or_path,
# config=config, cache_dir=..., trust_remote_code=...)`, no torch_dtype, at every commit from 2023-03 to HEAD) and the
# entries that call that train() or copy its loading (train_mem.py: flash-attn patch + train(); train_xformers.py;
# train_baichuan.py, train_with_template.py, train_yuan2.py: the same call). train_lora.py / train_lora_t5.py pass
# torch_dtype=compute_dtype and are not here.
FASTCHAT_ENTRY = (r"(?:^|[/\\.])fastchat[/\\.]train[/\\.]"
                  r"train(?:_mem|_xformers|_baichuan|_with_template|_yuan2)?(?:\.py)?$")
FASTCHAT_SOURCE = ("lm-sys/FastChat fastchat/train/train.py train(): AutoModelForCausalLM.from_pretrained(..., "
                   "config=config, cache_dir=...) without torch_dtype")

# tatsu-lab/stanford_alpaca train.py (train(): `AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path,
# cache_dir=training_args.cache_dir)`), copied under other names (`train7b.py`): known by taking no flag beyond its
# three dataclasses: ModelArguments.model_name_or_path, DataArguments.data_path, its TrainingArguments subclass's
# cache_dir / optim / model_max_length, and transformers' own TrainingArguments fields
ALPACA_OWN_FLAGS = frozenset({"model_name_or_path", "data_path", "cache_dir", "optim", "model_max_length"})
ALPACA_ENTRY = r"\w*train\w*\.py"     # train.py and its renamed copies (train7b.py, my_train.py)
ALPACA_SOURCE = ("tatsu-lab/stanford_alpaca train.py train(): AutoModelForCausalLM.from_pretrained(model_name_or_path, "
                 "cache_dir=...) without torch_dtype")
# TrainingArguments fields the README command and its copies pass that core's TRAINING_ARGUMENTS_FIELDS (a list made
# to recognise a TrainingArguments file) leaves out
TRAINING_ARGUMENTS_MORE = frozenset({
    "fsdp_transformer_layer_cls_to_wrap", "fsdp_config", "fsdp_min_num_params", "per_device_eval_batch_size",
    "save_on_each_node", "log_level", "logging_first_step", "run_name", "ddp_timeout", "disable_tqdm",
    "local_rank", "dataloader_pin_memory", "lr_scheduler_kwargs", "eval_accumulation_steps", "half_precision_backend",
    "bf16_full_eval", "fp16_full_eval", "push_to_hub", "hub_model_id", "resume_from_checkpoint", "adam_epsilon",
})
