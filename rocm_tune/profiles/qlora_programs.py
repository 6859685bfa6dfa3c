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

# yangjianxin1/LongQLoRA train.py: HfArgumentParser((LongQLoRAArguments, TrainingArguments)).parse_yaml_file(
# --train_args_file). Known by the YAML's required LongQLoRAArguments (component/argument.py: max_seq_length,
# model_max_length, train_file, model_name_or_path, sft - no default). load_model_and_tokenizer() always loads the
# base in 4 bits (BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16,
# bnb_4bit_use_double_quant=True, bnb_4bit_quant_type="nf4"), torch_dtype=torch.float16), then
# prepare_model_for_kbit_training(model, use_gradient_checkpointing=training_args.gradient_checkpointing);
# insert_adapter() puts LoRA (lora_rank, default 64) on every Linear4bit (find_all_linear_names) unless
# target_modules says which. replace_llama_attn(args.use_flash_attn): without use_flash_attn (its default False)
# attention/llama_attn_replace.py forward_noflashattn runs S2-Attn in eager PyTorch: the sequence is cut into groups
# of q_len * group_size_ratio (1/4) tokens, and each group's [heads, group, group] scores are materialised
# (matmul, / sqrt(d), + mask, softmax(dtype=float32).to(fp16)): per token, heads x group scores, not heads x q_len.
LONGQLORA_REQUIRED = ("max_seq_length", "model_max_length", "train_file", "model_name_or_path", "sft")
LONGQLORA_OWN = frozenset({*LONGQLORA_REQUIRED, "target_modules", "eval_file", "use_flash_attn", "train_embedding",
                           "train_norm", "lora_rank", "lora_alpha", "lora_dropout"})
LONGQLORA_DEFAULT_RANK = 64
LONGQLORA_GROUP_RATIO = 0.25   # attention/llama_attn_replace.py group_size_ratio = 1/4
LONGQLORA_SOURCE = ("yangjianxin1/LongQLoRA train.py: the base loaded in 4 bits (nf4, double quant, fp16 compute), "
                    "LoRA on every Linear4bit, and without use_flash_attn attention/llama_attn_replace.py "
                    "forward_noflashattn: eager S2-Attn over groups of 1/4 of the sequence")
