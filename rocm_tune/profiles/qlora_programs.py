"""QLoRA training programs known by their entry and a flag only they spell, with what their own source does to the
memory that a plain Trainer's defaults would miss (issue 26). Pure data.

Each entry: (program file name, flags of which one names this program among others of that file name, gradient
checkpointing: "forced" = on whatever the TrainingArguments say, "default" = on unless the flag turns it off,
the flags whose sum is the sample's length cap with their defaults, settings the program fixes itself, the source)."""

from __future__ import annotations

# shuxueslpi/chatGLM-6B-QLoRA train_qlora.py (0622d0f): `prepare_model_for_kbit_training(model,
# use_gradient_checkpointing=True)` (hard-coded: the --train_args_json TrainingArguments cannot turn it off);
# tokenize_func cuts the question at max_input_length - 2 and the answer at max_output_length - 1, and
# DataCollatorForChatGLM pads each batch to its longest sample, cut at model_max_length = max_input_length +
# max_output_length (defaults 512 and 1536); LoraConfig(target_modules=
# TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING['chatglm']) = PEFT's ["query_key_value"]
CHATGLM_QLORA = ("train_qlora.py", ("train_args_json",), "forced",
                 (("max_input_length", 512), ("max_output_length", 1536)), {"lora_target": "query_key_value"},
                 "shuxueslpi/chatGLM-6B-QLoRA train_qlora.py: prepare_model_for_kbit_training(model, "
                 "use_gradient_checkpointing=True); samples cut at max_input_length + max_output_length")

# artidoro/qlora qlora.py (gradient_checkpointing default True in its TrainingArguments, samples cut at
# source_max_len + target_max_len) is not here: its do_mmlu_eval evaluation (mmlu_source_max_len 2048) is not
# modelled, and with only its training read its OOMs in that evaluation are read as fitting
QLORA_PROGRAMS = (CHATGLM_QLORA,)
