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

# AnswerDotAI/fsdp_qlora train.py (@05ed9f2): `python train.py --flag value` (fastcore @call_parse over main();
# its bool flags are bool_arg and take a value: `--use_cpu_offload False`). fsdp_qlora() mp.spawn()s one process per
# visible GPU (world_size -1 = torch.cuda.device_count()), each wraps the model in FSDP with
# sharding_strategy full_shard (ShardingStrategy.FULL_SHARD), auto-wrap per LlamaDecoderLayer / MistralDecoderLayer
# (and per trainable LoRA leaf), cpu_offload=CPUOffload(offload_params=True) under --use_cpu_offload (default True);
# --use_gradient_checkpointing (True) applies checkpoint_wrapper per decoder layer, --use_activation_cpu_offload
# wraps the model in offload_wrapper. precision bf16 (default): the model is loaded in bf16 and AdamW steps on those
# bf16 weights (no MixedPrecision policy, no fp32 copy); bf16_autocast / fp16_autocast load fp32 weights and
# autocast; fp32 keeps fp32; bf16_buffers_autocast loads bf16. qlora / custom_qlora / bnb_dora replace every decoder
# linear by bnb Linear4bit (nf4, quant_storage = the load dtype, so FSDP shards the 4-bit base); hqq_lora / hqq_dora
# by HQQLinear of --n_bits; lora / custom_lora / full load the 16-bit model. LoRA of --lora_rank (64) on
# --lora_target_modules "all" = k_proj, q_proj, v_proj, up_proj, down_proj, gate_proj (not o_proj); "default" =
# PEFT's default. get_dataloader pads each batch to its longest sample, cut at --context_length (512); the dummy
# dataset's samples are longer than that (every batch is context_length long).
FSDP_QLORA_SOURCE = "AnswerDotAI/fsdp_qlora train.py @05ed9f2"
FSDP_QLORA_ENTRIES = ("train.py",)
FSDP_QLORA_DEFAULTS: dict[str, object] = {
    "world_size": -1, "train_type": "qlora", "batch_size": 1, "context_length": 512, "gradient_accumulation_steps": 1,
    "dataset": "alpaca_sample", "sharding_strategy": "full_shard", "use_gradient_checkpointing": True,
    "reentrant_checkpointing": False, "use_cpu_offload": True, "use_activation_cpu_offload": False, "low_memory": True, "precision": "bf16",
    "model_name": "meta-llama/Llama-2-7b-hf", "lora_rank": 64, "lora_alpha": 16, "lora_target_modules": "all",
    "n_bits": 4,
}
# flags only this train.py spells (one of them, or --train_type with one of its choices, names the program)
FSDP_QLORA_MARKERS = ("reentrant_checkpointing", "use_cpu_offload", "use_activation_cpu_offload", "low_memory",
                      "dataset_samples", "llama_pro_path", "apply_gradient_clipping", "profile_memory",
                      "loading_workers", "log_to")
# --train_type -> (finetuning_type, quantization: None | "bnb" | "hqq", DoRA); the llama_pro types (block
# expansion: the added layers train whole over a quantized base) are not modelled
FSDP_QLORA_TRAIN_TYPES: dict[str, tuple[str, str | None, bool]] = {
    "full": ("full", None, False), "lora": ("lora", None, False), "custom_lora": ("lora", None, False),
    "qlora": ("lora", "bnb", False), "custom_qlora": ("lora", "bnb", False), "bnb_dora": ("lora", "bnb", True),
    "hqq_lora": ("lora", "hqq", False), "hqq_dora": ("lora", "hqq", True),
}
FSDP_QLORA_UNMODELLED_TYPES = ("bnb_llama_pro", "hqq_llama_pro")
# --sharding_strategy -> the fsdp words of the estimate ("ddp" is ShardingStrategy.NO_SHARD)
FSDP_QLORA_SHARDING = {"full_shard": "full_shard", "shard_grad_op": "shard_grad_op", "ddp": "no_shard",
                       "hybrid_full_shard": "hybrid_shard", "hybrid_shard_grad_op": "_hybrid_shard_zero2"}
# --precision -> (dtype the weights are loaded and stepped in, autocast dtype or None)
FSDP_QLORA_PRECISION: dict[str, tuple[str, str | None]] = {
    "bf16": ("bf16", "bf16"), "fp32": ("fp32", None), "fp16_autocast": ("fp32", "fp16"),
    "bf16_autocast": ("fp32", "bf16"), "bf16_buffers_autocast": ("bf16", "bf16"),
}
# --low_memory False: fsdp_main loads the model with `model.to(device=rank)` (full / lora) or quantizes every layer
# onto `device=local_rank` (the quantized types) on EVERY rank before FSDP shards it: the load phase holds the whole
# model on each GPU (with low_memory, rank 0 builds it on the CPU and the others on the meta device)
FSDP_WHOLE_LOAD_KEY = "fsdp_whole_model_load"
FSDP_QLORA_ALL_TARGETS = "k_proj,q_proj,v_proj,up_proj,down_proj,gate_proj"

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
