"""Names the libraries (and Python) removed or renamed between releases (e-skew2, issue 26; e-gen8: TRL trainer
keywords 0.10-0.14, accelerate's Accelerator keywords 0.16/0.20 and huggingface_hub exports 0.23-1.0, read from the tags named in each row): data, no logic.

Each entry was read from the library's source at the releases named (the git tags of huggingface/peft, accelerate,
trl; transformers' wheels 4.41.2 4.45.2 4.46.3 4.51.3 4.57.6 5.0.0; the removals' own deprecation messages), or from
the release notes named in `source`. A log that fails on one of them (`cannot import name`, `module ... has no
attribute`, `No module named`, `got an unexpected keyword argument`) was written for the release that had it.
"""
from __future__ import annotations

# e-tf8: transformers 4.3x -> 5.x, read from the wheels named (4.36.2 4.44.2 4.46.0 4.47.1 4.48.0 4.49.0 4.50.0
# 4.57.6, and 5.24.0 installed here) and from MIGRATION_GUIDE_V5.md at huggingface/transformers@048bd927 ("the v5
# guide"); "5.0.0" is written only where the guide or the removal's own deprecation message names v5.0, otherwise
# the first release read without the name. shape "attr": `'<Class>' object has no attribute '<name>'` (or `type
# object '<Class>'`), callee = the class regex.
_V5 = "MIGRATION_GUIDE_V5.md at huggingface/transformers@048bd927 ({}); present in the 4.57.6 wheel, absent from 5.24.0"
_W = "transformers/{f} in the {a} wheel, absent from the {b} wheel"
_TA = r"\w*TrainingArguments|\w*Config"
_TA_V5 = (  # (keyword, replacement): the guide's "Removing ... arguments in TrainingArguments"
    ("per_gpu_train_batch_size", "per_device_train_batch_size="), ("per_gpu_eval_batch_size", "per_device_eval_batch_size="),
    ("no_cuda", "use_cpu="), ("use_mps_device", "nothing: mps is used when detected"),
    ("fp16_backend", "nothing: torch.amp only"), ("half_precision_backend", "nothing: torch.amp only"),
    ("include_inputs_for_metrics", "include_for_metrics="), ("push_to_hub_token", "hub_token="),
    ("push_to_hub_model_id", "hub_model_id="), ("push_to_hub_organization", "hub_model_id="),
    ("tpu_metrics_debug", "debug="), ("fsdp_min_num_params", "fsdp_config="),
    ("fsdp_transformer_layer_cls_to_wrap", "fsdp_config="), ("include_tokens_per_second", "include_num_input_tokens_seen="),
    ("use_legacy_prediction_loop", "nothing: evaluation_loop only"), ("overwrite_output_dir", "resume_from_checkpoint="),
    ("logging_dir", "the TENSORBOARD_LOGGING_DIR environment variable"), ("jit_mode_eval", "use_torch_compile="),
    ("tpu_num_cores", "the TPU_NUM_CORES environment variable"), ("past_index", "nothing (removed)"),
    ("ray_scope", "the RAY_SCOPE environment variable"), ("warmup_ratio", "warmup_steps= (a float is a ratio)"),
    ("mp_parameters", "nothing (removed)"),
)
_ATTN = "the model's attention class with config._attn_implementation / attn_implementation= (attention interface)"
_TF_ROWS: tuple[tuple[str, str, str, str, str, str, str, str], ...] = (
    *(("transformers", "kwarg", kw, _TA, "4.57.6", "5.0.0", inst, _V5.format("Trainer: TrainingArguments"))
      for kw, inst in _TA_V5),
    ("transformers", "kwarg", "save_safetensors", _TA, "4.57.6", "5.24.0", "nothing: safetensors is always written",
     _W.format(f="training_args.py", a="4.57.6", b="5.24.0")),
    *(("transformers", "kwarg", kw, r"\w+", "4.57.6", "5.0.0", "quantization_config=BitsAndBytesConfig(...)",
       _V5.format("Quantization changes")) for kw in ("load_in_8bit", "load_in_4bit")),
    *(("transformers", "kwarg", kw, r"push_to_hub", "4.57.6", "5.0.0", "repo_id=", _V5.format("PushToHubMixin"))
      for kw in ("organization", "repo_url", "use_temp_dir")),
    *(("transformers", "import", n, "", "4.47.1", "4.48.0", _ATTN,
       _W.format(f=f"models/{m}/modeling_{m}.py", a="4.47.1", b="4.48.0"))
      for n, m in (("LlamaFlashAttention2", "llama"), ("LlamaSdpaAttention", "llama"),
                   ("MistralFlashAttention2", "mistral"), ("Qwen2FlashAttention2", "qwen2"))),
    ("transformers", "import", "is_torch_tpu_available", "", "4.50.0", "4.57.6", "is_torch_xla_available",
     "transformers/utils/import_utils.py: FutureWarning 'is deprecated and will be removed in 4.41.0'; exported by the "
     "4.50.0 wheel, not by 4.57.6's"),
    ("transformers", "import", "AutoModelForVision2Seq", "", "4.57.6", "5.0.0", "AutoModelForImageTextToText",
     "transformers/models/auto/modeling_auto.py FutureWarning 'is deprecated and will be removed in v5.0' (4.57.6 "
     "wheel); absent from 5.24.0"),
    ("transformers", "import", "top_k_top_p_filtering", "", "4.36.2", "4.44.2", "TopKLogitsWarper / TopPLogitsWarper",
     _W.format(f="__init__.py", a="4.36.2", b="4.44.2")),
    ("transformers", "import", "is_flash_attn_available", "", "4.36.2", "4.44.2", "is_flash_attn_2_available",
     _W.format(f="utils/__init__.py", a="4.36.2", b="4.44.2")),
    ("transformers", "import", "shard_checkpoint", "", "4.46.0", "4.47.1",
     "huggingface_hub.split_torch_state_dict_into_shards", _W.format(f="modeling_utils.py", a="4.46.0", b="4.47.1")),
    *(("transformers", "import", n, "", "4.57.6", "5.0.0", "HF_HOME / huggingface_hub.constants",
       _V5.format("Environment variables")) for n in ("TRANSFORMERS_CACHE", "PYTORCH_TRANSFORMERS_CACHE",
                                                      "PYTORCH_PRETRAINED_BERT_CACHE", "HUGGINGFACE_CO_RESOLVE_ENDPOINT")),
    *(("transformers", "import", n, "", "4.57.6", "5.0.0", "a custom_generate repository on the Hub (constrained "
       "beam search left the library)", _V5.format("Generate: PR #41223")) for n in
      ("Constraint", "PhrasalConstraint", "DisjunctiveConstraint", "ConstraintListState")),
    *(("transformers", "import", n, "", "4.57.6", "5.0.0", "the PyTorch class (TensorFlow and Jax left the library)",
       _V5.format("Removal of TensorFlow and Jax")) for n in ("TFPreTrainedModel", "FlaxPreTrainedModel")),
    *(("transformers", "import", n, "", "4.57.6", "5.24.0", "DynamicCache / StaticCache (per-layer cache types)",
       _W.format(f="cache_utils.py", a="4.57.6", b="5.24.0")) for n in ("HybridCache", "OffloadedCache",
                                                                         "SlidingWindowCache")),
    ("transformers", "import", "find_pruneable_heads_and_indices", "", "4.57.6", "5.0.0",
     "nothing: head pruning left the library", _V5.format("Attention-related features: PR #41417")),
    ("transformers", "attr", "get_max_length", r"\w*Cache", "4.48.0", "4.49.0", "get_max_cache_shape()",
     _W.format(f="cache_utils.py", a="4.48.0", b="4.49.0") + " ('deprecated in favor of get_max_cache_shape')"),
    ("transformers", "attr", "seen_tokens", r"\w*Cache", "4.50.0", "4.57.6", "get_seq_length() / cache_position",
     _W.format(f="cache_utils.py", a="4.50.0", b="4.57.6") + " (warning: 'will be removed in v4.41')"),
    ("transformers", "attr", "get_usable_length", r"\w*Cache", "4.50.0", "4.57.6", "get_seq_length()",
     _W.format(f="cache_utils.py", a="4.50.0", b="4.57.6")),
    *(("transformers", "attr", n, r"\w*Cache", "4.57.6", "5.24.0", "DynamicCache(...) / the cache's layers",
       _W.format(f="cache_utils.py", a="4.57.6", b="5.24.0")) for n in ("from_legacy_cache", "to_legacy_cache")),
)

# e-tf8: vLLM engine arguments, SamplingParams fields and modules (LLM(**kw) builds EngineArgs(**kw); SamplingParams
# is a msgspec.Struct from 0.6: `Unexpected keyword argument 'x'`), each from the PR that removed it
_ENG = r"(?:Async)?EngineArgs|LLM"
_SP = r"(?:\w*SamplingParams)?"
_VLLM_ROWS: tuple[tuple[str, str, str, str, str, str, str, str], ...] = (
    ("vllm", "kwarg", "worker_use_ray", _ENG, "0.6.6.post1", "0.7.0", "distributed_executor_backend='ray'",
     "vllm-project/vllm PR #12383 (deprecated since 0.4.3, commit 676a9998); EngineArgs at v0.7.0"),
    ("vllm", "kwarg", "use_beam_search", _SP, "0.6.2", "0.6.3", "LLM.beam_search(prompts, BeamSearchParams(...))",
     "vllm-project/vllm PR #9105 'remove beam search from the core'; issue #10605 (SamplingParams docs 0.6.2/0.6.3)"),
    ("vllm", "kwarg", "guided_decoding", _SP, "0.11.2", "0.12.0", "structured_outputs=StructuredOutputsParams(...)",
     "vllm-project/vllm PR #22772 (renamed to structured outputs) and PR #29326 (the deprecated names removed)"),
    ("vllm", "import", "GuidedDecodingParams", "", "0.11.2", "0.12.0", "vllm.sampling_params.StructuredOutputsParams",
     "vllm-project/vllm PR #29326 (vllm/sampling_params.py); huggingface/trl PR #4117 / #4797 for vllm 0.12"),
    ("vllm", "kwarg", "prompt_token_ids", r"generate|embed", "0.10.1.1", "0.10.2",
     "prompts=[TokensPrompt(prompt_token_ids=ids), ...] (vllm.inputs)",
     "vllm-project/vllm PR #18800 'Remove prompt_token_ids arg fallback in LLM.generate and LLM.embed' "
     "(deprecated in PR #11129)"),
    ("vllm", "kwarg", "enable_prompt_adapter", _ENG, "0.9.2", "0.10.0", "nothing: prompt adapters left vLLM (LoRA "
     "adapters: enable_lora=)", "vllm-project/vllm PR #20588 '[V0 Deprecation] Remove Prompt Adapters'"),
    ("vllm", "import", "vllm.worker", "", "0.11.0", "0.11.1", "vllm.v1.worker (WorkerWrapperBase: "
     "vllm.v1.worker.worker_base)", "vllm-project/vllm PR #25901 'Remove vllm.worker' (V0 engine removal)"),
)

# (library, shape, name, callee regex (kwarg shape) or "", last release that has it, first release without it,
#  the installed release's replacement, source). shape: "import" (a name imported or looked up on the library's
#  module: cannot import name / module has no attribute / No module named), "kwarg" (a keyword the callee no longer
#  takes), "attr" (e-tf8: an attribute of an object or class; callee = the class). "first without" is the first
#  release read without the name (its removal is in or before it).
REMOVED_NAMES: tuple[tuple[str, str, str, str, str, str, str, str], ...] = (
    ("peft", "import", "prepare_model_for_int8_training", "", "0.9.0", "0.10.0", "prepare_model_for_kbit_training",
     "peft src/peft/utils/other.py at v0.9.0 (deprecation warning), absent at v0.10.0"),
    ("transformers", "import", "AdamW", "", "4.46.3", "4.51.3", "torch.optim.AdamW",
     "transformers/optimization.py in the 4.46.3 wheel, absent from 4.51.3's"),
    ("transformers", "kwarg", "tokenizer", r"(?:Seq2Seq)?Trainer", "4.57.6", "5.0.0",
     "processing_class= (transformers >= 4.46 takes it)",
     "transformers/trainer.py: @deprecate_kwarg('tokenizer', new_name='processing_class') in 4.46.3-4.57.6, gone "
     "in 5.0.0"),
    ("trl", "kwarg", "tokenizer", r"(?:SFT|DPO|ORPO|KTO|CPO|Reward)Trainer", "0.11.4", "0.12.0", "processing_class=",
     "trl/trainer/{sft,dpo,orpo,kto,cpo,reward}_trainer.py __init__ at v0.11.4 and v0.12.0"),
    ("transformers", "kwarg", "evaluation_strategy", r"\w*TrainingArguments|\w*Config", "4.46.3", "4.51.3",
     "eval_strategy= (transformers >= 4.41)", "transformers/training_args.py in the 4.46.3 and 4.51.3 wheels"),
    ("transformers", "kwarg", "use_auth_token", r"\w+", "4.57.6", "5.0.0", "token= (transformers >= 4.35)",
     "transformers/modeling_utils.py in the 4.57.6 and 5.0.0 wheels"),
    ("accelerate", "kwarg", "dispatch_batches", r"Accelerator", "0.34.2", "1.0.0",
     "dataloader_config=DataLoaderConfiguration(dispatch_batches=...) (accelerate >= 0.28)",
     "src/accelerate/accelerator.py at v0.34.2 and v1.0.0"),
    ("accelerate", "kwarg", "split_batches", r"Accelerator", "0.34.2", "1.0.0",
     "dataloader_config=DataLoaderConfiguration(split_batches=...) (accelerate >= 0.28)",
     "src/accelerate/accelerator.py at v0.34.2 and v1.0.0"),
    ("accelerate", "kwarg", "even_batches", r"Accelerator", "0.34.2", "1.0.0",
     "dataloader_config=DataLoaderConfiguration(even_batches=...) (accelerate >= 0.28)",
     "src/accelerate/accelerator.py at v0.34.2 and v1.0.0"),
    ("accelerate", "kwarg", "use_seedable_sampler", r"Accelerator", "0.34.2", "1.0.0",
     "dataloader_config=DataLoaderConfiguration(use_seedable_sampler=...) (accelerate >= 0.28)",
     "src/accelerate/accelerator.py at v0.34.2 and v1.0.0"),
    ("trl", "kwarg", "dataset_text_field", r"SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(dataset_text_field=...)",
     "trl/trainer/sft_trainer.py __init__ at v0.12.x and v0.13.0 (#2306 removed the deprecated arguments)"),
    ("trl", "kwarg", "max_seq_length", r"SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(max_length=...) (trl >= 0.20)",
     "trl/trainer/sft_trainer.py __init__ at v0.12.x and v0.13.0"),
    ("trl", "kwarg", "packing", r"SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(packing=...)",
     "trl/trainer/sft_trainer.py __init__ at v0.12.x and v0.13.0"),
    ("trl", "kwarg", "max_seq_length", r"SFTConfig", "0.19.1", "0.20.0", "max_length=",
     "trl/trainer/sft_config.py at v0.19.1 and v0.20.0"),
    ("trl", "kwarg", "beta", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(beta=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "label_smoothing", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(label_smoothing=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "loss_type", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(loss_type=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "max_length", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(max_length=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "max_prompt_length", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(max_prompt_length=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "max_target_length", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(max_target_length=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "precompute_ref_log_probs", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(precompute_ref_log_probs=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "reference_free", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(reference_free=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "generate_during_eval", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(generate_during_eval=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "truncation_mode", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(truncation_mode=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "label_pad_token_id", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(label_pad_token_id=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "padding_value", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(padding_value=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "is_encoder_decoder", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(is_encoder_decoder=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "disable_dropout", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(disable_dropout=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "force_use_ref_model", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(force_use_ref_model=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "model_adapter_name", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(model_adapter_name=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "ref_adapter_name", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(ref_adapter_name=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "model_init_kwargs", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(model_init_kwargs=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "ref_model_init_kwargs", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(ref_model_init_kwargs=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "dataset_num_proc", r"\w*DPOTrainer", "0.12.2", "0.13.0", "DPOConfig(dataset_num_proc=...) passed as args=",
     "trl/trainer/dpo_trainer.py DPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "neftune_noise_alpha", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(neftune_noise_alpha=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "dataset_kwargs", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(dataset_kwargs=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "dataset_num_proc", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(dataset_num_proc=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "dataset_batch_size", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(dataset_batch_size=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "eval_packing", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(eval_packing=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "num_of_sequences", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(num_of_sequences=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "chars_per_token", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(chars_per_token=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "infinite", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(infinite=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "model_init_kwargs", r"\w*SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(model_init_kwargs=...) passed as args=",
     "trl/trainer/sft_trainer.py SFTTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "max_length", r"\w*RewardTrainer", "0.13.0", "0.14.0", "RewardConfig(max_length=...) passed as args=",
     "trl/trainer/reward_trainer.py RewardTrainer.__init__ signature at v0.13.0 and v0.14.0 (e-gen8)"),
    ("trl", "kwarg", "embedding_func", r"\w*KTOTrainer", "0.9.6", "0.10.0", "none: KTOTrainer no longer takes an embedding model (BCOTrainer does)",
     "trl/trainer/kto_trainer.py KTOTrainer.__init__ signature at v0.9.6 and v0.10 (e-gen8)"),
    ("trl", "kwarg", "embedding_tokenizer", r"\w*KTOTrainer", "0.9.6", "0.10.0", "none: KTOTrainer no longer takes an embedding model (BCOTrainer does)",
     "trl/trainer/kto_trainer.py KTOTrainer.__init__ signature at v0.9.6 and v0.10 (e-gen8)"),
    ("trl", "kwarg", "dataset", r"\w*PPOTrainer", "0.11.4", "0.12.0", "the PPO API of trl >= 0.12 (args=PPOConfig, train_dataset=, reward_model=, value_model=), or trl 0.11.4",
     "trl/trainer/ppo_trainer.py PPOTrainer.__init__ signature at v0.11.4 and v0.12.0 (e-gen8)"),
    ("trl", "kwarg", "num_shared_layers", r"\w*PPOTrainer", "0.11.4", "0.12.0", "the PPO API of trl >= 0.12 (args=PPOConfig, train_dataset=, reward_model=, value_model=), or trl 0.11.4",
     "trl/trainer/ppo_trainer.py PPOTrainer.__init__ signature at v0.11.4 and v0.12.0 (e-gen8)"),
    ("trl", "kwarg", "lr_scheduler", r"\w*PPOTrainer", "0.11.4", "0.12.0", "the PPO API of trl >= 0.12 (args=PPOConfig, train_dataset=, reward_model=, value_model=), or trl 0.11.4",
     "trl/trainer/ppo_trainer.py PPOTrainer.__init__ signature at v0.11.4 and v0.12.0 (e-gen8)"),
    ("trl", "kwarg", "training_data_collator", r"\w*PPOTrainer", "0.11.4", "0.12.0", "the PPO API of trl >= 0.12 (args=PPOConfig, train_dataset=, reward_model=, value_model=), or trl 0.11.4",
     "trl/trainer/ppo_trainer.py PPOTrainer.__init__ signature at v0.11.4 and v0.12.0 (e-gen8)"),
    ("trl", "kwarg", "config", r"\w*PPOTrainer", "0.12.2", "0.13.0", "args= / model= / ref_model= (renamed in trl 0.13)",
     "trl/trainer/ppo_trainer.py PPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "policy", r"\w*PPOTrainer", "0.12.2", "0.13.0", "args= / model= / ref_model= (renamed in trl 0.13)",
     "trl/trainer/ppo_trainer.py PPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("trl", "kwarg", "ref_policy", r"\w*PPOTrainer", "0.12.2", "0.13.0", "args= / model= / ref_model= (renamed in trl 0.13)",
     "trl/trainer/ppo_trainer.py PPOTrainer.__init__ signature at v0.12.2 and v0.13.0 (e-gen8)"),
    ("huggingface_hub", "import", "cached_download", "", "0.25.2", "0.26.0", "hf_hub_download",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.25.2 and v0.26.0 (e-gen8)"),
    ("huggingface_hub", "import", "HfFolder", "", "0.36.2", "1.0.0", "huggingface_hub.get_token() / login()",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.36.2 and v1.0.0 (e-gen8)"),
    ("huggingface_hub", "import", "Repository", "", "0.36.2", "1.0.0", "HfApi().upload_folder / the git CLI",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.36.2 and v1.0.0 (e-gen8)"),
    ("huggingface_hub", "import", "InferenceApi", "", "0.36.2", "1.0.0", "InferenceClient",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.36.2 and v1.0.0 (e-gen8)"),
    ("huggingface_hub", "import", "configure_http_backend", "", "0.36.2", "1.0.0", "set_client_factory (httpx backend)",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.36.2 and v1.0.0 (e-gen8)"),
    ("huggingface_hub", "import", "ModelFilter", "", "0.23.5", "0.24.0", "HfApi().list_models(...) keyword filters",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.23.5 and v0.24.0 (e-gen8)"),
    ("huggingface_hub", "import", "DatasetFilter", "", "0.23.5", "0.24.0", "HfApi().list_datasets(...) keyword filters",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.23.5 and v0.24.0 (e-gen8)"),
    ("huggingface_hub", "import", "split_numpy_state_dict_into_shards", "", "0.23.5", "0.24.0", "split_torch_state_dict_into_shards",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.23.5 and v0.24.0 (e-gen8)"),
    ("huggingface_hub", "import", "list_files_info", "", "0.22.2", "0.23.0", "HfApi().list_repo_tree / get_paths_info",
     "src/huggingface_hub/__init__.py _SUBMOD_ATTRS at v0.22.2 and v0.23.0 (e-gen8)"),
    ("accelerate", "kwarg", "fp16", r"Accelerator", "0.15.0", "0.16.0", "mixed_precision='fp16'",
     "src/accelerate/accelerator.py Accelerator.__init__ signature at v0.15.0 and v0.16.0 (e-gen8)"),
    ("accelerate", "kwarg", "logging_dir", r"Accelerator", "0.19.0", "0.20.0", "project_dir= (or project_config=ProjectConfiguration(logging_dir=...))",
     "src/accelerate/accelerator.py Accelerator.__init__ signature at v0.19.0 and v0.20.0 (e-gen8)"),
    ("torch", "import", "torch._six", "", "1.13.1", "2.0.0",
     "math.inf / collections.abc / str (what torch._six re-exported); DeepSpeed >= 0.8.2 and Megatron releases "
     "after the removal no longer import it", "torch 2.0 removed torch._six; DeepSpeed deepspeed/runtime/utils.py "
     "imports it under try/except from v0.8.2 (v0.8.1: three plain imports)"),
    ("torchvision", "import", "torchvision.transforms.functional_tensor", "", "0.16.2", "0.17.0",
     "torchvision.transforms.functional (rgb_to_grayscale ...) in the importing code, or torchvision < 0.17",
     "torchvision 0.17 release notes (the private functional_tensor module removed)"),
    ("numpy", "import", "float", "", "1.23.5", "1.24.0", "float / np.float64",
     "numpy 1.24.0 release notes (the np.float/int/bool/object/str aliases deprecated in 1.20 removed)"),
    ("numpy", "import", "int", "", "1.23.5", "1.24.0", "int / np.int64", "numpy 1.24.0 release notes"),
    ("numpy", "import", "bool", "", "1.23.5", "1.24.0", "bool / np.bool_", "numpy 1.24.0 release notes"),
    ("numpy", "import", "object", "", "1.23.5", "1.24.0", "object / np.object_", "numpy 1.24.0 release notes"),
    ("numpy", "import", "float_", "", "1.26.4", "2.0.0", "np.float64", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "NaN", "", "1.26.4", "2.0.0", "np.nan", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "Inf", "", "1.26.4", "2.0.0", "np.inf", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "string_", "", "1.26.4", "2.0.0", "np.bytes_", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "unicode_", "", "1.26.4", "2.0.0", "np.str_", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "complex_", "", "1.26.4", "2.0.0", "np.complex128", "numpy 2.0 migration guide (NEP 52)"),
    *_TF_ROWS,
    *_VLLM_ROWS,
)

# The standard-library modules Python removed, by the release that removed them (PEP 594 and What's New in Python
# 3.10, 3.11, 3.12, 3.13): `No module named 'distutils'` under 3.12 is the interpreter's release, not a package to
# install (setuptools >= 60 ships a distutils shim; the package's newer release no longer imports it)
PYTHON_REMOVED_MODULES: dict[str, str] = {
    **dict.fromkeys(("formatter", "parser", "symbol"), "3.10"),
    "binhex": "3.11",
    **dict.fromkeys(("distutils", "imp", "asynchat", "asyncore", "smtpd"), "3.12"),
    **dict.fromkeys(("aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "mailcap", "msilib", "nis",
                     "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib",
                     "lib2to3"), "3.13"),
}

# e-gen8: keywords a library ADDED in a release, so that code passing them fails on an older install with
# `<callee>() got an unexpected keyword argument '<kw>'`: (library, callee regex, keyword, first release that takes
# it, source). flash-attn: flash_attn/flash_attn_interface.py's public functions at every v2.x tag of
# Dao-AILab/flash-attention (ROCm's fork, ROCm/flash-attention, carries older 2.x interfaces: its CK builds lag these)
_FA_FUNCS = r"flash_attn_(?:varlen_)?(?:qkv|kv)?(?:packed_)?func|flash_attn_with_kvcache"
_FA_SRC = "flash_attn/flash_attn_interface.py at Dao-AILab/flash-attention tags {a} (without) and {b} (with)"
ADDED_KWARGS: tuple[tuple[str, str, str, str, str], ...] = (
    ("flash-attn", _FA_FUNCS, "window_size", "2.3.0", _FA_SRC.format(a="v2.2.5", b="v2.3.0")),
    ("flash-attn", _FA_FUNCS, "alibi_slopes", "2.4.0", _FA_SRC.format(a="v2.3.6", b="v2.4.0")),
    ("flash-attn", _FA_FUNCS, "deterministic", "2.4.1", _FA_SRC.format(a="v2.4.0", b="v2.4.1")),
    ("flash-attn", _FA_FUNCS, "softcap", "2.6.0", _FA_SRC.format(a="v2.5.9", b="v2.6.0")),
    ("flash-attn", r"flash_attn_varlen_func", "block_table", "2.5.7", _FA_SRC.format(a="v2.5.6", b="v2.5.7")),
    ("flash-attn", r"flash_attn_with_kvcache", "block_table", "2.5.0", _FA_SRC.format(a="v2.4.3", b="v2.5.0")),
    ("flash-attn", r"flash_attn_with_kvcache", "cache_leftpad", "2.6.1", _FA_SRC.format(a="v2.6.0", b="v2.6.1")),
    ("flash-attn", r"flash_attn_with_kvcache", "return_softmax_lse", "2.6.0", _FA_SRC.format(a="v2.5.9", b="v2.6.0")),
    ("flash-attn", r"flash_attn_with_kvcache", "rotary_cos", "2.2.3", _FA_SRC.format(a="v2.2.2", b="v2.2.3")),
    ("flash-attn", r"flash_attn_with_kvcache", "cache_batch_idx", "2.3.1", _FA_SRC.format(a="v2.3.0", b="v2.3.1")),
)
