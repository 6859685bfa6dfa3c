"""The argument names each runner's releases declare (e-skew, issue 26): data, no logic.

Per runner: (oldest release read, newest release read ('main' = the default branch's head), {"FIRST..LAST": names
first declared in release FIRST and last declared in release LAST}, the argument/config class names). Read from
the source of every release tag: transformers' TrainingArguments + Seq2SeqTrainingArguments fields (4.20 - 5.x),
LLaMA-Factory's hparams dataclasses, TRL's *Config/ScriptArguments dataclasses, PEFT's *Config dataclasses,
Megatron-LM's argparse flags (megatron/arguments.py, megatron/training/arguments.py, and the config dataclasses its
newer releases make flags from; flags written with '_' for '-'), eole's pydantic config fields (extra="forbid"),
accelerate's launch flags and config-file keys (commands/launch.py, commands/config/config_args.py).
Made by tools/build_runner_arg_names.py; explain uses it to tell an argument the installed release refuses but
another release declares (version skew) from one no release declares (a typo: the configuration).
"""
from __future__ import annotations

# how each runner is named in an answer
RUNNER_LABELS: dict[str, str] = {
    "transformers": "transformers (TrainingArguments)", "llamafactory": "LLaMA-Factory", "trl": "TRL", "peft": "PEFT",
    "megatron": "Megatron-LM / Megatron-Core", "eole": "eole", "accelerate": "accelerate",
}
# what in a log (frames, command line, usage line, config class) shows which runner's parser refused the arguments
RUNNER_SIGNS: dict[str, str] = {
    "llamafactory": r"llamafactory|llmtuner|LLaMA-(?:Factory|Efficient-Tuning)|LlamaFactory|train_bash\.py|train_web\.py",
    "trl": r"[/\\]trl[/\\]|\bTrlParser\b|\btrl (?:sft|dpo|grpo|kto|reward|rloo|vllm-serve)\b",
    "megatron": r"[Mm]egatron|--num-layers\b|--tensor-model-parallel-size\b|pretrain_(?:gpt|bert|t5|mamba)\.py",
    "eole": r"[/\\]eole[/\\]|\beole (?:train|predict|build_vocab|convert|tools)\b",
}
# a config class's refused keyword with no class in the message (Python < 3.10) nor on the call: the runner whose code
# the last frame is (PEFT's PeftConfig.from_pretrained / from_peft_type build the class from adapter_config.json)
KWARG_FRAME_RUNNERS: dict[str, str] = {
    "peft": r"[/\\]peft[/\\](?:config|utils[/\\]config|tuners[/\\].*config)\.py",
    "trl": r"[/\\]trl[/\\]\S*config\.py",
    "transformers": r"[/\\]transformers[/\\](?:training_args|hf_argparser)\.py",
}
# LLaMA-Factory's parsers that take no TrainingArguments (chat, webchat, api, export, eval): a key refused there is
# most often one of another command, not of another release
LF_NO_TRAINING_ARGS = r"get_infer_args|get_eval_args|_parse_infer_args|_parse_eval_args|\bllamafactory-cli (?:chat|webchat|api|export|eval)\b"


RUNNER_ARGS: dict[str, tuple[str, str, dict[str, str], str]] = {
    "transformers": (
        "4.20.1", "5.24.0",
        {
            "4.20.1..4.30.2": (
                "sharded_ddp xpu_backend "
            ),
            "4.20.1..4.46.3": (
                "evaluation_strategy "
            ),
            "4.20.1..4.51.3": (
                "use_ipex "
            ),
            "4.20.1..4.57.1": (
                "adafactor fp16_backend fp16_opt_level fsdp_min_num_params half_precision_backend "
                "include_inputs_for_metrics jit_mode_eval mp_parameters no_cuda overwrite_output_dir past_index "
                "per_gpu_eval_batch_size per_gpu_train_batch_size push_to_hub_model_id push_to_hub_organization "
                "push_to_hub_token ray_scope torchdynamo tpu_metrics_debug tpu_num_cores use_legacy_prediction_loop "
            ),
            "4.20.1..5.0.0": (
                "group_by_length logging_dir warmup_ratio "
            ),
            "4.20.1..5.24.0": (
                "adam_beta1 adam_beta2 adam_epsilon auto_find_batch_size bf16 bf16_full_eval data_seed "
                "dataloader_drop_last dataloader_num_workers dataloader_pin_memory ddp_bucket_cap_mb "
                "ddp_find_unused_parameters debug deepspeed disable_tqdm do_eval do_predict do_train "
                "eval_accumulation_steps eval_delay eval_steps fp16 fp16_full_eval fsdp full_determinism "
                "generation_max_length generation_num_beams gradient_accumulation_steps gradient_checkpointing "
                "greater_is_better hub_model_id hub_private_repo hub_strategy hub_token ignore_data_skip label_names "
                "label_smoothing_factor learning_rate length_column_name load_best_model_at_end local_rank log_level "
                "log_level_replica log_on_each_node logging_first_step logging_nan_inf_filter logging_steps "
                "logging_strategy lr_scheduler_type max_grad_norm max_steps metric_for_best_model num_train_epochs "
                "optim output_dir per_device_eval_batch_size per_device_train_batch_size predict_with_generate "
                "prediction_loss_only push_to_hub remove_unused_columns report_to resume_from_checkpoint run_name "
                "save_on_each_node save_steps save_strategy save_total_limit seed skip_memory_metrics sortish_sampler "
                "tf32 warmup_steps weight_decay "
            ),
            "4.30.2..4.57.1": (
                "fsdp_transformer_layer_cls_to_wrap save_safetensors use_mps_device "
            ),
            "4.30.2..5.24.0": (
                "ddp_backend ddp_timeout fsdp_config generation_config optim_args torch_compile torch_compile_backend "
                "torch_compile_mode "
            ),
            "4.38.2..4.46.3": (
                "dispatch_batches split_batches "
            ),
            "4.38.2..4.57.1": (
                "include_tokens_per_second "
            ),
            "4.38.2..5.24.0": (
                "accelerator_config dataloader_persistent_workers dataloader_prefetch_factor ddp_broadcast_buffers "
                "gradient_checkpointing_kwargs hub_always_push include_num_input_tokens_seen lr_scheduler_kwargs "
                "neftune_noise_alpha save_only_model use_cpu "
            ),
            "4.41.2..5.24.0": (
                "batch_eval_metrics eval_do_concat_batches eval_strategy optim_target_modules "
                "restore_callback_states_from_checkpoint "
            ),
            "4.45.2..5.24.0": (
                "eval_on_start eval_use_gather_object torch_empty_cache_steps use_liger_kernel "
            ),
            "4.46.3..5.24.0": (
                "average_tokens_across_devices include_for_metrics "
            ),
            "4.51.3..4.51.3": (
                "tp_size "
            ),
            "4.57.1..5.24.0": (
                "hub_revision liger_kernel_config parallelism_config project trackio_space_id "
            ),
            "5.0.0..5.24.0": (
                "enable_jit_checkpoint use_cache "
            ),
            "5.24.0..5.24.0": (
                "activation_checkpointing activation_checkpointing_kwargs dataloader_in_order "
                "dataloader_multiprocessing_context ddp_static_graph trackio_bucket_id trackio_static_space_id "
                "train_sampling_strategy "
            ),
        },
        "Seq2SeqTrainingArguments TrainingArguments "
    ),
    "llamafactory": (
        "v0.0.9", "main",
        {
            "v0.0.9..v0.1.3": (
                "prompt_template "
            ),
            "v0.0.9..v0.1.5": (
                "dev_ratio "
            ),
            "v0.0.9..v0.1.6": (
                "source_prefix "
            ),
            "v0.0.9..v0.1.7": (
                "padding_side "
            ),
            "v0.0.9..v0.1.8": (
                "max_source_length max_target_length num_hidden_layers "
            ),
            "v0.0.9..v0.2.0": (
                "use_auth_token "
            ),
            "v0.0.9..v0.3.3": (
                "checkpoint_dir resume_lora_training "
            ),
            "v0.0.9..v0.4.0": (
                "dataset_name dataset_sha1 load_from "
            ),
            "v0.0.9..v0.7.0": (
                "name_module_trainable num_layer_trainable "
            ),
            "v0.0.9..v0.8.2": (
                "split "
            ),
            "v0.0.9..main": (
                "cache_dir compute_dtype dataset dataset_dir do_sample double_quantization eval_num_beams "
                "finetuning_type ignore_pad_token_for_loss length_penalty lora_alpha lora_dropout lora_rank "
                "lora_target max_length max_new_tokens max_samples model_name_or_path model_revision num_beams "
                "overwrite_cache plot_loss preprocessing_num_workers quantization_bit quantization_type "
                "repetition_penalty reward_model stage temperature top_k top_p use_fast_tokenizer "
            ),
            "v0.1.4..main": (
                "buffer_size mix_strategy streaming template "
            ),
            "v0.1.6..v0.2.0": (
                "hf_auth_token "
            ),
            "v0.1.6..v0.7.1": (
                "dpo_beta "
            ),
            "v0.1.6..main": (
                "interleave_probs val_size "
            ),
            "v0.1.7..v0.3.3": (
                "system_prompt "
            ),
            "v0.1.7..main": (
                "model_max_length ppo_score_norm rope_scaling "
            ),
            "v0.1.8..v0.4.0": (
                "history prompt query ranking response "
            ),
            "v0.1.8..main": (
                "flash_attn "
            ),
            "v0.2.0..v0.5.3": (
                "sft_packing "
            ),
            "v0.2.0..v0.6.0": (
                "ppo_logger "
            ),
            "v0.2.0..main": (
                "additional_target cutoff_len export_dir ppo_target shift_attn split_special_tokens train_on_prompt "
                "upcast_layernorm "
            ),
            "v0.2.1..v0.2.2": (
                "dpo_ref_model dpo_ref_model_checkpoint "
            ),
            "v0.2.1..v0.3.3": (
                "neft_alpha "
            ),
            "v0.2.1..v0.4.0": (
                "content formatting messages role subset "
            ),
            "v0.2.1..v0.6.1": (
                "cache_path "
            ),
            "v0.2.1..main": (
                "hf_hub_token "
            ),
            "v0.2.2..main": (
                "batch_size download_mode lang n_shot save_dir seed task task_dir "
            ),
            "v0.3.0..v0.3.3": (
                "ref_model_checkpoint reward_model_checkpoint "
            ),
            "v0.3.0..v0.8.2": (
                "reserved_label_len "
            ),
            "v0.3.0..main": (
                "ppo_whiten_rewards ref_model ref_model_quantization_bit reward_model_quantization_bit "
                "reward_model_type "
            ),
            "v0.3.2..main": (
                "ppo_buffer_size ppo_epochs "
            ),
            "v0.3.3..main": (
                "export_size "
            ),
            "v0.4.0..v0.4.0": (
                "folder system "
            ),
            "v0.4.0..v0.7.1": (
                "dpo_ftx dpo_loss "
            ),
            "v0.4.0..main": (
                "adapter_name_or_path create_new_adapter export_quantization_bit export_quantization_dataset "
                "export_quantization_maxlen export_quantization_nsamples ms_hub_token ref_model_adapters "
                "reward_model_adapters "
            ),
            "v0.5.0..v0.5.3": (
                "lora_bf16_mode "
            ),
            "v0.5.0..main": (
                "disable_gradient_checkpointing export_hub_model_id export_legacy_format resize_vocab "
                "upcast_lmhead_output use_unsloth "
            ),
            "v0.5.2..v0.5.3": (
                "disable_version_checking "
            ),
            "v0.5.2..main": (
                "print_param_status use_llama_pro use_rslora "
            ),
            "v0.5.3..main": (
                "use_dora "
            ),
            "v0.6.0..v0.9.3": (
                "use_cache "
            ),
            "v0.6.0..main": (
                "galore_layerwise galore_proj_type galore_rank galore_scale galore_target galore_update_interval "
                "infer_backend loraplus_lr_embedding loraplus_lr_ratio low_cpu_mem_usage offload_folder packing "
                "pure_bf16 use_galore vllm_enforce_eager vllm_gpu_util vllm_maxlen "
            ),
            "v0.6.1..main": (
                "dpo_label_smoothing "
            ),
            "v0.6.2..v0.7.1": (
                "orpo_beta "
            ),
            "v0.6.2..main": (
                "moe_aux_loss_coef quantization_device_map tokenized_path "
            ),
            "v0.6.3..v0.7.0": (
                "badam_switch_block_every "
            ),
            "v0.6.3..main": (
                "badam_mask_mode badam_mode badam_start_block badam_switch_mode badam_update_ratio badam_verbose "
                "export_device mixture_of_depths use_badam "
            ),
            "v0.7.0..v0.8.3": (
                "visual_inputs "
            ),
            "v0.7.0..v0.9.2": (
                "new_special_tokens "
            ),
            "v0.7.1..main": (
                "badam_switch_interval freeze_extra_modules freeze_trainable_layers freeze_trainable_modules "
            ),
            "v0.8.0..v0.8.1": (
                "vllm_dtype "
            ),
            "v0.8.0..v0.9.1": (
                "train_mm_proj_only "
            ),
            "v0.8.0..main": (
                "default_system freeze_vision_tower kto_chosen_weight kto_rejected_weight pref_beta pref_ftx "
                "pref_loss simpo_gamma train_from_scratch vllm_max_lora_rank "
            ),
            "v0.8.2..main": (
                "adapter_folder infer_dtype pissa_convert pissa_init pissa_iter "
            ),
            "v0.8.3..main": (
                "compute_accuracy eval_dataset mask_history neat_packing quantization_method tool_format "
            ),
            "v0.9.0..v0.9.1": (
                "image_resolution video_resolution "
            ),
            "v0.9.0..main": (
                "block_diag_attn device_map enable_liger_kernel preprocessing_batch_size use_adam_mini use_unsloth_gc "
                "video_fps video_maxlen "
            ),
            "v0.9.1..v0.9.1": (
                "image_dir "
            ),
            "v0.9.1..main": (
                "include_effective_tokens_per_second om_hub_token vllm_config "
            ),
            "v0.9.2..v0.9.4": (
                "placement_strategy ray_run_name ray_storage_path resources_per_worker "
            ),
            "v0.9.2..main": (
                "apollo_layerwise apollo_proj apollo_proj_type apollo_rank apollo_scale apollo_scale_front "
                "apollo_scale_type apollo_target apollo_update_interval disable_shuffling freeze_language_model "
                "freeze_multi_modal_projector image_max_pixels image_min_pixels media_dir ray_num_workers "
                "skip_special_tokens swanlab_api_key swanlab_logdir swanlab_mode swanlab_project swanlab_run_name "
                "swanlab_workspace trust_remote_code use_apollo use_reentrant_gc use_swanlab video_max_pixels "
                "video_min_pixels "
            ),
            "v0.9.3..v0.9.4": (
                "ray_storage_filesystem "
            ),
            "v0.9.3..main": (
                "add_special_tokens add_tokens audio_sampling_rate crop_to_patches data_shared_file_system "
                "early_stopping_steps enable_thinking eval_on_each_dataset image_do_pan_and_scan ld_alpha "
                "ray_init_kwargs sglang_config sglang_lora_backend sglang_maxlen sglang_mem_fraction sglang_tp_size "
                "swanlab_lark_secret swanlab_lark_webhook_url use_audio_in_video use_muon "
            ),
            "v0.9.4..v0.9.4": (
                "chunk_size cpu_infer kt_force_think kt_maxlen kt_mode kt_optimize_rule kt_use_cuda_graph mode "
            ),
            "v0.9.4..main": (
                "fp8 fp8_backend fp8_enable_fsdp_float8_all_gather init_special_tokens module_dropout "
                "new_special_tokens_config oft_block_size oft_rank oft_target overwrite_output_dir pref_bco_weight "
                "use_dft_loss use_kt use_kv_cache use_mca use_v1_kernels "
            ),
            "v0.9.5..main": (
                "asft_alpha eaft_alpha enable_torch_profiler hyper_parallel_args kt_expert_checkpoint_path "
                "kt_lora_expert_intermediate_size kt_lora_expert_num kt_use_lora_experts kt_weight_path master_addr "
                "master_port preserve_thinking profile_modules profiler_active_steps profiler_output_dir "
                "profiler_profile_memory profiler_record_shapes profiler_repeat profiler_wait_steps "
                "profiler_warmup_steps profiler_with_stack use_asft_loss use_eaft_loss use_hyper_parallel "
            ),
            "main..main": (
                "account_for_embedding_in_pipeline_split account_for_loss_in_pipeline_split apply_rope_fusion "
                "bias_activation_fusion calculate_per_token_loss context_parallel_size cross_entropy_loss_fusion "
                "expert_model_parallel_size export_hf_on_finish extra_config hyper_parallel_cp_size kt_config "
                "kt_cpu_activation kt_non_expert_weight_path masked_softmax_fusion megatron_bridge_args "
                "megatron_pretrained_checkpoint mixed_precision moe_grouped_gemm moe_token_dispatcher_type "
                "overlap_grad_reduce overlap_param_gather pipeline_model_parallel_size recompute_granularity "
                "recompute_method recompute_num_layers sequence_parallel tensor_model_parallel_size "
                "use_distributed_optimizer use_megatron_bridge use_packed_sequences "
                "virtual_pipeline_model_parallel_size "
            ),
        },
        "ApolloArguments BaseModelArguments DataArguments EvaluationArguments ExportArguments FinetuningArguments "
        "Fp8Arguments FreezeArguments GaloreArguments GeneralArguments GeneratingArguments KTransformersArguments "
        "LoraArguments MegatronBridgeArguments ModelArguments OFTArguments ProcessorArguments ProfilerArguments "
        "QuantizationArguments RLHFArguments RayArguments SGLangArguments SwanLabArguments TrainingArguments "
        "VllmArguments _KTransformersRuntimeArguments "
    ),
    "trl": (
        "v0.4.2", "main",
        {
            "v0.4.2..v0.11.4": (
                "adap_kl_ctrl compare_steps early_stopping forward_batch_size horizon init_kl_coef max_grad_norm "
                "model_name optimize_cuda_cache ppo_epochs push_to_hub_if_best_kwargs steps target target_kl "
            ),
            "v0.4.2..v0.14.0": (
                "gradient_accumulation_steps "
            ),
            "v0.4.2..v0.23.1": (
                "accelerator_kwargs log_with seed tracker_kwargs tracker_project_name "
            ),
            "v0.4.2..v0.26.2": (
                "padding return_tensors tokenizer "
            ),
            "v0.4.2..main": (
                "batch_size cliprange cliprange_value gamma lam learning_rate max_length mini_batch_size "
                "pad_to_multiple_of remove_unused_columns vf_coef "
            ),
            "v0.4.5..v0.11.4": (
                "task_name "
            ),
            "v0.4.5..v0.23.1": (
                "project_kwargs "
            ),
            "v0.4.7..v0.11.4": (
                "kl_penalty ratio_threshold "
            ),
            "v0.5.0..v0.11.4": (
                "backward_batch_size "
            ),
            "v0.5.0..v0.28.0": (
                "label_pad_token_id "
            ),
            "v0.5.0..main": (
                "max_prompt_length padding_value truncation_mode "
            ),
            "v0.6.0..v0.11.4": (
                "score_clip use_score_norm use_score_scaling "
            ),
            "v0.6.0..v0.23.1": (
                "allow_tf32 async_reward_computation logdir max_workers mixed_precision negative_prompts "
                "num_checkpoint_limit num_epochs per_prompt_stat_tracking per_prompt_stat_tracking_buffer_size "
                "per_prompt_stat_tracking_min_count resume_from sample_batch_size sample_eta sample_guidance_scale "
                "sample_num_batches_per_epoch sample_num_steps save_freq train_adam_beta1 train_adam_beta2 "
                "train_adam_epsilon train_adam_weight_decay train_adv_clip_max train_batch_size train_cfg "
                "train_clip_range train_gradient_accumulation_steps train_learning_rate train_max_grad_norm "
                "train_num_inner_epochs train_timestep_fraction train_use_8bit_adam "
            ),
            "v0.6.0..v0.27.2": (
                "run_name "
            ),
            "v0.7.2..v0.7.4": (
                "model "
            ),
            "v0.7.2..v0.11.4": (
                "global_backward_batch_size global_batch_size is_peft_model query_dataset reward_model "
            ),
            "v0.7.2..v0.13.0": (
                "max_target_length "
            ),
            "v0.7.2..v0.27.2": (
                "exp_name "
            ),
            "v0.7.2..main": (
                "gradient_checkpointing is_encoder_decoder world_size "
            ),
            "v0.7.3..v0.7.10": (
                "gradient_checkpointing_kwargs "
            ),
            "v0.7.3..v0.23.1": (
                "optimize_device_cache "
            ),
            "v0.7.3..main": (
                "whiten_rewards "
            ),
            "v0.7.5..v0.26.2": (
                "pad_token_id "
            ),
            "v0.7.11..v0.26.2": (
                "torch_dtype "
            ),
            "v0.7.11..main": (
                "attn_implementation bnb_4bit_quant_type load_in_4bit load_in_8bit lora_alpha lora_dropout "
                "lora_modules_to_save lora_r lora_target_modules model_name_or_path model_revision trust_remote_code "
                "use_bnb_nested_quant use_peft "
            ),
            "v0.8.0..v0.10.1": (
                "sanity_check "
            ),
            "v0.8.0..v0.12.2": (
                "config device do_sample examples num_beams save_folder system_prompt user "
            ),
            "v0.8.0..v0.19.1": (
                "max_seq_length "
            ),
            "v0.8.0..v0.26.2": (
                "gradient_checkpointing_use_reentrant "
            ),
            "v0.8.0..v0.28.0": (
                "ref_model_init_kwargs "
            ),
            "v0.8.0..main": (
                "beta dataset_name dataset_text_field desirable_weight generate_during_eval ignore_bias_buffers "
                "lora_task_type max_completion_length max_new_tokens model_init_kwargs packing "
                "precompute_ref_log_probs repetition_penalty temperature top_k top_p undesirable_weight "
            ),
            "v0.8.2..main": (
                "dataset_num_proc disable_dropout label_smoothing loss_type "
            ),
            "v0.8.5..v0.8.6": (
                "dataset_test_name dataset_train_name "
            ),
            "v0.8.5..v0.12.2": (
                "eos_token_ids eos_tokens "
            ),
            "v0.9.3..v0.9.6": (
                "base_model num_updates "
            ),
            "v0.9.3..v0.10.1": (
                "non_eos_penalty penalty_reward_value "
            ),
            "v0.9.3..v0.11.4": (
                "neftune_noise_alpha "
            ),
            "v0.9.3..v0.17.0": (
                "chars_per_token dataset_batch_size num_of_sequences "
            ),
            "v0.9.3..v0.24.0": (
                "rloo_k "
            ),
            "v0.9.3..v0.28.0": (
                "force_use_ref_model reference_free rpo_alpha "
            ),
            "v0.9.3..main": (
                "dataset_kwargs dataset_test_split dataset_train_split eval_packing kl_coef local_batch_size "
                "local_mini_batch_size local_rollout_forward_batch_size max_density_ratio micro_batch_size "
                "min_density_ratio model_adapter_name num_mini_batches num_ppo_epochs num_sample_generations "
                "prompt_sample_size ref_adapter_name ref_model_mixup_alpha ref_model_sync_steps response_length "
                "reward_model_path sft_model_path stop_token stop_token_id sync_ref_model total_episodes "
            ),
            "v0.9.6..v0.23.1": (
                "truncated_backprop_rand truncated_backprop_timestep truncated_rand_backprop_minmax "
            ),
            "v0.9.6..main": (
                "cpo_alpha f_alpha_divergence_coef f_divergence_type simpo_gamma "
            ),
            "v0.10..v0.17.0": (
                "use_liger "
            ),
            "v0.10..v0.26.2": (
                "episode "
            ),
            "v0.10..v0.28.0": (
                "accelerator count mean std var "
            ),
            "v0.10..main": (
                "center_rewards_coefficient missing_eos_penalty num_total_batches use_rslora "
            ),
            "v0.11.0..v0.23.1": (
                "log_image_freq "
            ),
            "v0.11.0..v0.26.2": (
                "ignore_index messages_key "
            ),
            "v0.11.0..main": (
                "alpha lmbda mixture_coef teacher_model_init_kwargs teacher_model_name_or_path "
            ),
            "v0.11.3..v0.26.2": (
                "prompt_key "
            ),
            "v0.12.0..v1.0.0": (
                "judge "
            ),
            "v0.12.0..main": (
                "push_to_hub seq_kd use_weighting "
            ),
            "v0.13.0..v0.16.1": (
                "use_num_logits_to_keep "
            ),
            "v0.13.0..main": (
                "dataset_config discopop_tau precompute_ref_batch_size step_separator train_on_last_step_only "
            ),
            "v0.14.0..v0.14.0": (
                "per_device_train_batch_size "
            ),
            "v0.14.0..v0.17.0": (
                "vllm_device "
            ),
            "v0.14.0..v0.21.0": (
                "normalize_advantage "
            ),
            "v0.14.0..v0.24.0": (
                "normalize_reward token_level_kl "
            ),
            "v0.14.0..v0.28.0": (
                "tools "
            ),
            "v0.14.0..main": (
                "ds3_gather_for_generation num_generations padding_free reward_clip_range use_vllm "
                "vllm_gpu_memory_utilization "
            ),
            "v0.15.0..v0.17.0": (
                "vllm_dtype vllm_max_model_len "
            ),
            "v0.15.0..v0.28.0": (
                "use_logits_to_keep "
            ),
            "v0.15.0..main": (
                "log_completions reward_weights "
            ),
            "v0.16.0..v0.17.0": (
                "vllm_enable_prefix_caching "
            ),
            "v0.16.0..v0.27.2": (
                "vllm_guided_decoding_regex "
            ),
            "v0.16.0..main": (
                "cache_implementation epsilon epsilon_high min_p num_iterations scale_rewards use_dora "
                "vllm_server_host vllm_server_port vllm_server_timeout "
            ),
            "v0.16.1..main": (
                "pad_token "
            ),
            "v0.17.0..v0.24.0": (
                "gpu_memory_utilization "
            ),
            "v0.17.0..v0.27.2": (
                "use_liger_loss "
            ),
            "v0.17.0..v0.28.0": (
                "base_model_attribute_name "
            ),
            "v0.17.0..main": (
                "completion_only_loss eos_token kl_estimator mask_truncated_completions num_completions_to_print "
                "shuffle_dataset wandb_log_unique_prompts "
            ),
            "v0.18.0..main": (
                "activation_offloading delta generation_batch_size ld_alpha steps_per_generation vllm_mode "
                "vllm_server_base_url vllm_tensor_parallel_size "
            ),
            "v0.19.0..v0.22.2": (
                "average_tokens_across_devices "
            ),
            "v0.19.0..main": (
                "assistant_only_loss bf16 chat_template_path dataset_streaming generation_kwargs logging_steps "
                "packing_strategy "
            ),
            "v0.20.0..main": (
                "importance_sampling_level loss_weights top_entropy_quantile use_transformers_paged "
            ),
            "v0.21.0..main": (
                "lora_target_parameters vllm_model_impl "
            ),
            "v0.22.0..main": (
                "columns data_dir data_files datasets name normalize_advantages path split streaming test_split_size "
            ),
            "v0.23.0..main": (
                "dtype vllm_enable_sleep_mode vllm_importance_sampling_cap vllm_importance_sampling_correction "
            ),
            "v0.24.0..v1.7.1": (
                "num_remains_in_group "
            ),
            "v0.24.0..main": (
                "replay_buffer_size "
            ),
            "v0.25.0..v0.29.1": (
                "student_model_revision trl_project "
            ),
            "v0.25.0..v1.6.0": (
                "hub_model_revision overwrite_hub_revision push_to_hub_revision wandb_entity wandb_project "
                "wandb_run_group "
            ),
            "v0.25.0..v1.7.1": (
                "der_loss_weight1 der_loss_weight2 mask_ratio mask_type perception_loss_weight "
            ),
            "v0.25.0..main": (
                "callbacks cast_lm_head_to_fp32 chat_template_kwargs log_completions_steps "
                "teacher_tokenizer_name_or_path uld_crossentropy_weight uld_distillation_weight "
                "uld_hybrid_matched_weight uld_hybrid_unmatched_weight uld_skip_student_eos uld_skip_teacher_eos "
                "uld_student_temperature uld_teacher_temperature uld_use_hybrid_loss use_extended_uld use_uld_loss "
                "vllm_sync_frequency "
            ),
            "v0.25.1..main": (
                "lr_scheduler_kwargs "
            ),
            "v0.26.0..main": (
                "bnb_4bit_quant_storage kd_temperature length_normalization log_unique_prompts num_generations_eval "
                "rkl_advantage sapo_temperature_neg sapo_temperature_pos single_step_decomposition "
                "use_bias_correction_kl vllm_importance_sampling_mode vllm_max_model_length "
            ),
            "v0.27.0..v1.2.0": (
                "flat_logits "
            ),
            "v0.27.0..main": (
                "max_tool_calling_iterations multi_objective_aggregation off_policy_mask_threshold vllm_group_port "
                "vllm_structured_outputs_regex "
            ),
            "v0.28.0..main": (
                "log_completions_hub_repo "
            ),
            "v0.29.0..main": (
                "torch_empty_cache_steps use_liger_kernel "
            ),
            "v1.0.0..v1.5.1": (
                "ema_update_rate full_logit_distillation sdpo_policy_loss_mode teacher_regularization "
            ),
            "v1.0.0..v1.8.0": (
                "clip_ratio_c divergence_topk divergence_type "
            ),
            "v1.0.0..main": (
                "diagnostics_flat_tolerance diagnostics_warning_interval distillation_add_tail distillation_alpha "
                "distillation_is_clip distillation_topk distillation_weight dont_reprompt_on_self_success "
                "environment_feedback_only_without_solution feedback_template generate_from_teacher "
                "include_environment_feedback max_inflight_tasks max_reprompt_len max_staleness "
                "num_loss_tokens_to_skip queue_maxsize remove_thinking_from_demonstration reprompt_template "
                "request_timeout solution_template success_reward_threshold teacher_model_revision "
                "teacher_prompt_template teacher_update_rate use_successful_as_teacher vespo_k_neg vespo_k_pos "
                "vespo_lambda_neg vespo_lambda_pos weight_sync_steps "
            ),
            "v1.1.0..main": (
                "loss_add_tail loss_top_k reverse_kl_top_1_mode teacher_model_server_url use_teacher_server "
            ),
            "v1.2.0..main": (
                "filter_empty "
            ),
            "v1.3.0..main": (
                "tpo_alpha tpo_l_gamma "
            ),
            "v1.6.0..main": (
                "beta1 beta2 distillation_mode filter_all_incorrect heartbeat_stale_after_s num_value_samples "
                "teacher_model_kind teacher_sync_steps train_sampling_strategy vllm_importance_sampling_clip_max "
                "vllm_importance_sampling_clip_min "
            ),
            "v1.7.0..main": (
                "router_aux_loss_coef transformers_continuous_batching_config use_transformers_continuous_batching "
            ),
            "v1.8.0..main": (
                "entropy_coef entropy_coef_delta entropy_coef_max entropy_coef_min entropy_target fraction "
                "token_budget uld_token_merge_strategy use_adaptive_entropy "
            ),
            "v1.9.0..main": (
                "distillation_objective fork_threshold_tokens iw_opd_epsilon iw_opd_gamma log_multimodal "
                "lr_scheduler_type "
            ),
        },
        "A2POConfig AlignPropConfig AsyncGRPOConfig BCOConfig BaseConfig CPOConfig ChatArguments DDPOConfig "
        "DPOConfig DPOScriptArguments DPPOConfig DatasetConfig DatasetMixtureConfig DistillationConfig "
        "DpoScriptArguments GFPOConfig GKDConfig GMPOConfig GOLDConfig GRPOConfig GRPOWithReplayBufferConfig "
        "IWOPDConfig IterativeSFTConfig KTOConfig MiniLLMConfig ModelConfig NashMDConfig ORPOConfig "
        "OnPolicyConfig OnlineDPOConfig OnpolicyRuntimeConfig PAPOConfig PPOConfig PPOv2Config PRMConfig "
        "RLOOConfig RewardConfig RewardScriptArguments SDFTConfig SDPOConfig SFTConfig SFTScriptArguments "
        "SSDConfig ScriptArguments SelfDistillationConfig ServerDistillationConfig SftScriptArguments TPOConfig "
        "XPOConfig _BaseConfig "
    ),
    "peft": (
        "v0.0.1", "main",
        {
            "v0.0.1..v0.0.2": (
                "postprocess_past_key_value_function "
            ),
            "v0.0.1..v0.2.0": (
                "enable_lora merge_weights "
            ),
            "v0.0.1..main": (
                "bias encoder_dropout encoder_hidden_size encoder_num_layers encoder_reparameterization_type "
                "fan_in_fan_out inference_mode lora_alpha lora_dropout num_attention_heads num_layers "
                "num_transformer_submodules num_virtual_tokens peft_type prefix_projection prompt_tuning_init "
                "prompt_tuning_init_text r target_modules task_type token_dim tokenizer_name_or_path "
            ),
            "v0.1.0..main": (
                "base_model_name_or_path modules_to_save "
            ),
            "v0.3.0..main": (
                "adapter_layers adapter_len beta1 beta2 deltaT init_lora_weights init_r orth_reg_weight rank_pattern "
                "target_r tfinal tinit total_step "
            ),
            "v0.4.0..main": (
                "auto_mapping feedforward_modules init_ia3_weights layers_pattern layers_to_transform revision "
            ),
            "v0.6.0..main": (
                "adapter_layer_names alpha alpha_pattern decompose_both decompose_factor init_weights layers_mapping "
                "merged_adapters module_dropout num_ranks num_tasks prefix prompt_tuning_init_state_dict_path "
                "prompt_tuning_init_task rank_dropout use_effective_conv2d "
            ),
            "v0.6.2..main": (
                "other_param_names "
            ),
            "v0.7.0..main": (
                "block_share coft eps loftq_bits loftq_config loftq_iter megatron_config megatron_core "
                "tokenizer_kwargs "
            ),
            "v0.8.0..main": (
                "n_skills n_splits n_tasks poly_type use_rslora "
            ),
            "v0.9.0..main": (
                "use_dora "
            ),
            "v0.10.0..main": (
                "layer_replication "
            ),
            "v0.11.0..main": (
                "boft_block_num boft_block_size boft_dropout boft_n_butterfly_factor d_initial projection_prng_key "
                "save_projection vera_dropout "
            ),
            "v0.12.0..main": (
                "adapters apply_GS enable_softmax enable_softmax_topk ephemeral_gpu_offload global_scaling_weight "
                "hidden_size layerwise_scalings n_frequency n_frequency_pattern random_loc_seed runtime_config "
                "scaling scaling_pass_value softmax_temperature top_k_lora use_trainable_adapters xlora_depth "
                "xlora_dropout_p xlora_size "
            ),
            "v0.13.0..main": (
                "init_logits_std init_vector_bank_bound num_vectors save_only_topk_weights topk vblora_dropout "
                "vector_length "
            ),
            "v0.14.0..main": (
                "adjust_scaling_factors cpt_mask cpt_token_ids cpt_tokens_type_mask eva_config exclude_modules "
                "label_mask_value lora_bias oft_block_size opt_loss_decay_factor opt_projection_epsilon "
                "opt_projection_format_epsilon opt_weighted_loss_type rank_dropout_scale rho tau use_label_mask "
                "whiten "
            ),
            "v0.15.0..main": (
                "cache_file corda_config corda_method covariance_file prune_temporary_fields token_indices "
                "trainable_token_indices use_float16_for_covariance verbose "
            ),
            "v0.16.0..main": (
                "block_size block_size_pattern num_cayley_neumann_terms qalora_group_size randlora_alpha "
                "randlora_dropout sparse use_cayley_neumann use_qalora very_sparse "
            ),
            "v0.17.0..main": (
                "mask_type mini_r miss_dropout random_seed target_parameters "
            ),
            "v0.18.0..main": (
                "alora_invocation_tokens arrow_config delora_lambda effective_rank ensure_weight_tying "
                "gks_adapter_names group_size lambda_pattern peft_version proportional_parameters rng_seed "
                "router_temperature target_module_mapping target_svd_config task_adapter_names top_k tuner_layer_cls "
                "use_gks use_idwt variant wavelet_family "
            ),
            "v0.19.0..main": (
                "ab_svd_init act_fn asa_importance_beta asa_schedule_exponent asa_target_subspaces "
                "asa_uncertainty_beta cayley_neumann_eps depth direction final_warmup gralora_dropout gralora_k "
                "hybrid_r init_v_bound init_warmup lora_ga_config mask_interval match_strict nblocks num_B "
                "num_frozen_tokens num_subspaces projection_seed psoft_alpha psoft_dropout psoft_mag_a psoft_mag_b "
                "psoft_orth psoft_svd psoft_svd_lowrank_niter pvera_dropout sample_at_inference scale stable_gamma "
                "stride_A subspace_rank svd_threshold target_modules_bd_a target_modules_bd_b tinylora_dropout u "
                "use_asa use_bdlora use_dynamic_rank weight_tying "
            ),
            "v0.20.0..main": (
                "buffer_size config_A_B config_C config_D_E decomposition_method deft_dropout dirichlet_prior "
                "frod_dropout frozen_peft_weight_names generator_seed hira_dropout init_scale init_theta_d_bound "
                "init_type kl_loss_weight monteclora_config num_groups num_samples para progressbar proj_seed "
                "quantization_backend regularization_alpha runtime_offload_base_weight sample_scaler save_indices "
                "sparse_rate theta_d_length unilora_dropout use_entropy velora_config "
            ),
            "main..main": (
                "beta gamma kasa_config save_precomputed_indices select_top sparsity "
            ),
        },
        "AdaLoraConfig AdamssConfig AdaptionPromptConfig ArrowConfig BOFTConfig BdLoraConfig BeftConfig "
        "BoneConfig C3AConfig CPTConfig CartridgeConfig CordaConfig DeftConfig DeloraConfig EvaConfig "
        "FourierFTConfig FrodConfig GloraConfig GraloraConfig HRAConfig HiraConfig IA3Config KasaConfig "
        "LNTuningConfig LilyConfig LoHaConfig LoKrConfig LoftQConfig LoraConfig LoraGAConfig LoraRuntimeConfig "
        "LycorisConfig MissConfig MontecloraConfig MultitaskPromptTuningConfig OFTConfig OSFConfig PeanutConfig "
        "PeftConfig PolyConfig PrefixTuningConfig PromptEncoderConfig PromptLearningConfig PromptTuningConfig "
        "PsoftConfig PveraConfig RandLoraConfig RoadConfig ShiraConfig SupertuningConfig TinyLoraConfig "
        "TrainableTokensConfig UniLoraConfig VBLoRAConfig VeloraConfig VeraConfig WaveFTConfig XLoraConfig "
    ),
    "megatron": (
        "v1.0", "main",
        {
            "v1.0..v1.0": (
                "min_scale "
            ),
            "v1.0..v2.0": (
                "fp32_allreduce "
            ),
            "v1.0..v2.5": (
                "checkpoint_num_layers "
            ),
            "v1.0..v2.6": (
                "override_lr_scheduler use_checkpoint_lr_scheduler "
            ),
            "v1.0..23.06": (
                "DDP_impl data_impl mmap_warmup "
            ),
            "v1.0..main": (
                "adlr_autoresume adlr_autoresume_interval apply_query_key_layer_scaling "
                "apply_residual_connection_post_layernorm attention_dropout attention_softmax_in_fp32 batch_size "
                "checkpoint_activations clip_grad data_path distributed_backend eod_mask_loss eval_interval "
                "eval_iters exit_interval finetune fp16 hidden_dropout hidden_size hysteresis init_method_std "
                "layernorm_epsilon load local_rank log_interval loss_scale loss_scale_window lr lr_decay_iters "
                "lr_decay_style make_vocab_size_divisible_by mask_prob max_position_embeddings merge_file min_lr "
                "model_parallel_size no_load_optim no_load_rng no_save_optim no_save_rng num_attention_heads "
                "num_layers num_workers openai_gelu reset_attention_mask reset_position_ids save save_interval seed "
                "seq_length short_seq_prob split tensorboard_dir tokenizer_type train_iters vocab_file warmup "
                "weight_decay "
            ),
            "v2.0..v2.0": (
                "faiss_use_gpu no_scaled_masked_softmax_fusion report_topk_accuracies "
                "scaled_upper_triang_masked_softmax_fusion "
            ),
            "v2.0..v2.6": (
                "distribute_checkpointed_activations "
            ),
            "v2.0..23.06": (
                "no_query_key_layer_scaling "
            ),
            "v2.0..main": (
                "adam_beta1 adam_beta2 adam_eps bert_load block_data_path exit_duration_in_mins fp16_lm_cross_entropy "
                "fp32_residual_connection global_batch_size ict_head_size ict_load indexer_batch_size "
                "indexer_log_interval initial_loss_scale lazy_mpu_init lr_decay_samples lr_warmup_fraction "
                "lr_warmup_iters lr_warmup_samples micro_batch_size min_loss_scale no_bias_dropout_fusion "
                "no_bias_gelu_fusion onnx_safe pipeline_model_parallel_size query_in_block_prob rampup_batch_size "
                "tensor_model_parallel_size titles_data_path train_samples use_cpu_initialization use_one_sent_docs "
            ),
            "v2.5..v2.5": (
                "use_contiguous_buffers_in_ddp "
            ),
            "v2.5..v2.6": (
                "img_dim "
            ),
            "v2.5..core_v0.8.0": (
                "log_batch_size_to_tensorboard no_log_learnig_rate_to_tensorboard "
            ),
            "v2.5..v0.15.3": (
                "no_log_loss_scale_to_tensorboard retriever_seq_length "
            ),
            "v2.5..core_v0.17.1": (
                "no_scatter_gather_tensors_in_pipeline "
            ),
            "v2.5..main": (
                "accumulate_allreduce_grads_in_fp32 bert_no_binary_head bf16 biencoder_projection_dim "
                "biencoder_shared_query_context_model dataloader_type decoder_seq_length embedding_path "
                "encoder_seq_length evidence_data_path ffn_hidden_size init_method_xavier_uniform kv_channels "
                "log_memory_to_tensorboard log_num_zeros_in_grad log_params_norm log_timers_to_tensorboard "
                "log_validation_ppl_to_tensorboard no_masked_softmax_fusion num_channels num_classes "
                "num_layers_per_virtual_pipeline_stage optimizer patch_dim retriever_report_topk_accuracies "
                "retriever_score_scaling sample_rate sgd_momentum tensorboard_log_interval tensorboard_queue_size "
                "vocab_extra_ids "
            ),
            "v2.6..v2.6": (
                "activations_checkpoint_method activations_checkpoint_num_layers "
            ),
            "v2.6..23.06": (
                "no_contiguous_buffers_in_local_ddp "
            ),
            "v2.6..main": (
                "empty_unused_memory_level "
            ),
            "23.04..23.06": (
                "fp8_e4m3 fp8_hybrid "
            ),
            "23.04..core_v0.5.0": (
                "retro_return_doc_ids retro_workdir "
            ),
            "23.04..core_v0.10.0": (
                "standalone_embedding_stage "
            ),
            "23.04..core_v0.13.1": (
                "pipeline_model_parallel_split_rank "
            ),
            "23.04..v0.15.3": (
                "no_async_tensor_model_parallel_allreduce no_fp8_wgrad retro_add_retriever retro_cyclic_train_iters "
                "retro_encoder_attention_dropout retro_encoder_hidden_dropout retro_encoder_layers "
                "retro_num_neighbors retro_num_retrieved_chunks "
            ),
            "23.04..main": (
                "apply_layernorm_1p bert_embedder_type classes_fraction data_parallel_random_init "
                "data_per_class_fraction decoder_num_layers dino_bottleneck_size dino_freeze_last_layer "
                "dino_head_hidden_size dino_local_crops_number dino_local_img_size dino_norm_last_layer "
                "dino_teacher_temp dino_warmup_teacher_temp dino_warmup_teacher_temp_epochs disable_bias_linear "
                "distribute_saved_activations distributed_timeout_minutes encoder_num_layers end_weight_decay "
                "exit_on_missing_checkpoint exit_signal_handler fp8_amax_compute_algo fp8_amax_history_len "
                "fp8_interval fp8_margin head_lr_mult img_h img_w inference_batch_times_seqlen_threshold "
                "iter_per_epoch log_world_size_to_tensorboard mask_factor mask_type max_tokens_to_oom "
                "no_barrier_with_level_1_timing no_data_sharding no_gradient_accumulation_fusion no_initialization "
                "no_persist_layer_norm no_position_embedding num_experts output_bert_embeddings "
                "override_opt_param_scheduler recompute_activations recompute_granularity recompute_method "
                "recompute_num_layers rotary_percent sequence_parallel squared_relu start_weight_decay swiglu "
                "swin_backbone_type test_data_path timing_log_level timing_log_option tokenizer_model train_data_path "
                "transformer_impl untie_embeddings_and_output_weights use_checkpoint_args "
                "use_checkpoint_opt_param_scheduler use_distributed_optimizer use_flash_attn use_ring_exchange_p2p "
                "use_rotary_position_embeddings valid_data_path vision_backbone_type vision_pretraining "
                "vision_pretraining_type vocab_size weight_decay_incr_style "
            ),
            "23.06..23.06": (
                "embedding_weights_in_fp32 overlap_p2p_communication "
            ),
            "23.06..main": (
                "data_cache_path skip_train "
            ),
            "core_v0.4.0..core_v0.4.0": (
                "bias_gelu_fusion "
            ),
            "core_v0.4.0..core_v0.8.0": (
                "delay_param_gather no_delay_grad_reduce "
            ),
            "core_v0.4.0..v0.15.3": (
                "disable_tp_comm_bulk_dgrad disable_tp_comm_bulk_wgrad disable_tp_comm_split_ag "
                "disable_tp_comm_split_rs no_clone_scatter_output_in_embedding no_manual_gc_eval "
                "retro_no_verify_neighbor_count "
            ),
            "core_v0.4.0..core_v0.16.1": (
                "async_tensor_model_parallel_allreduce "
            ),
            "core_v0.4.0..main": (
                "activation_func add_bias_linear autocast_dtype barrier_with_L1_time batch_p2p_comm batch_p2p_sync "
                "bias_dropout_fusion clone_scatter_output_in_embedding context_parallel_size "
                "deallocate_pipeline_outputs enable_autocast expert_model_parallel_size finalize_model_grads_func fp8 "
                "fp8_format fp8_wgrad gated_linear_unit grad_scale_func grad_sync_func gradient_accumulation_fusion "
                "group_query_attention init_method layernorm_zero_centered_gamma lr_warmup_init manual_gc "
                "manual_gc_interval masked_softmax_fusion nccl_communicator_config_path "
                "no_check_for_nan_in_loss_and_grad no_overlap_p2p_communication no_sync_func norm_epsilon "
                "normalization num_microbatches_with_partial_activation_checkpoints num_moe_experts num_query_groups "
                "output_layer_init_method overlap_grad_reduce overlap_p2p_comm overlap_param_gather param_sync_func "
                "params_dtype perform_initialization persist_layer_norm pipeline_dtype position_embedding_type "
                "profile profile_ranks profile_step_end profile_step_start rotary_seq_len_interpolation_factor spec "
                "timers tp_comm_bulk_dgrad tp_comm_bulk_wgrad tp_comm_overlap tp_comm_overlap_cfg tp_comm_split_ag "
                "tp_comm_split_rs use_mcore_models variable_seq_lengths virtual_pipeline_model_parallel_size "
                "wandb_exp_name wandb_project wandb_save_dir "
            ),
            "core_v0.5.0..core_v0.7.0": (
                "enable_one_logger one_logger_entity "
            ),
            "core_v0.5.0..v0.15.3": (
                "retro_attention_gate "
            ),
            "core_v0.5.0..main": (
                "add_qkv_bias apply_rope_fusion bias_activation_fusion cpu_offloading cpu_offloading_activations "
                "cpu_offloading_num_layers cpu_offloading_weights log_progress log_throughput "
                "memory_efficient_layer_norm mock_data moe_aux_loss_coeff moe_grouped_gemm moe_input_jitter_eps "
                "moe_router_load_balancing_type moe_router_topk moe_token_dropping moe_z_loss_coeff "
                "no_bias_swiglu_fusion no_rope_fusion one_logger_project one_logger_run_name rotary_interleaved "
                "tp_comm_atomic_ag tp_comm_atomic_rs window_size "
            ),
            "core_v0.6.0..core_v0.7.0": (
                "ammo_convert_te_to_local_spec ammo_load_classic_megatron_to_mcore ammo_quant_cfg "
            ),
            "core_v0.6.0..v0.15.3": (
                "disable_tp_comm_overlap_ag disable_tp_comm_overlap_rs retro_project_dir "
            ),
            "core_v0.6.0..main": (
                "auto_detect_ckpt_format ckpt_fully_parallel_save ckpt_step decoupled_lr decoupled_min_lr "
                "defer_embedding_wgrad_compute disable_parameter_transpose_cache dist_ckpt_format "
                "moe_per_layer_logging moe_token_dispatcher_type no_create_attention_mask_in_dataloader "
                "no_mmap_bin_files pretrained_checkpoint qk_layernorm test_mode tp_comm_overlap_ag tp_comm_overlap_rs "
                "use_dist_ckpt yaml_cfg "
            ),
            "core_v0.7.0.beta..core_v0.7.0.beta": (
                "tp_comm_disable_fc1 tp_comm_disable_qkv "
            ),
            "core_v0.7.0.beta..main": (
                "activation_func_fp8_input_store ddp_bucket_size disable_straggler_on_startup enable_cuda_graph "
                "fp8_dot_product_attention fp8_multi_head_attention log_straggler straggler_ctrlr_port "
                "straggler_minmax_count tp_comm_overlap_rs_dgrad use_te_rng_tracker use_tp_pp_dp_mapping "
            ),
            "core_v0.7.0..core_v0.16.1": (
                "moe_extended_tp "
            ),
            "core_v0.7.0..main": (
                "async_save calculate_per_token_loss check_weight_hash_across_dp_replicas_interval "
                "ckpt_assume_constant_structure ckpt_fully_parallel_load moe_expert_capacity_factor "
                "moe_layer_recompute moe_pad_expert_input_to_capacity moe_token_drop_policy "
                "num_dataset_builder_threads "
            ),
            "core_r0.8.0..core_v0.12.3": (
                "s3_cache_path "
            ),
            "core_r0.8.0..core_v0.17.1": (
                "tiktoken_special_tokens use_legacy_models "
            ),
            "core_r0.8.0..main": (
                "app_tag_run_name app_tag_run_version cross_entropy_loss_fusion ddp_average_in_collective "
                "deterministic_mode dist_ckpt_strictness export_legacy_megatron export_quant_cfg "
                "export_te_mcore_model hybrid_attention_ratio hybrid_mlp_ratio hybrid_override_pattern logging_level "
                "lr_wsd_decay_iters lr_wsd_decay_samples lr_wsd_decay_style moe_router_pre_softmax "
                "no_ckpt_fully_parallel_save no_one_logger one_logger_async rotary_base tiktoken_num_special_tokens "
                "tiktoken_pattern wgrad_deferral_limit "
            ),
            "core_r0.9.0..core_v0.10.0": (
                "first_pipeline_num_layers last_pipeline_num_layers renormalize_blend_weights "
            ),
            "core_r0.9.0..core_v0.13.1": (
                "encoder_pipeline_model_parallel_size encoder_tensor_model_parallel_size "
            ),
            "core_r0.9.0..core_v0.16.1": (
                "no_align_grad_reduce "
            ),
            "core_r0.9.0..main": (
                "ckpt_convert_format ckpt_convert_save ckpt_convert_update_legacy_dist_opt_format ckpt_format "
                "config_logger_dir decoder_first_pipeline_num_layers decoder_last_pipeline_num_layers "
                "decrease_batch_size_if_needed enable_ft_package external_cuda_graph fp8_param_gather "
                "moe_use_upcycling no_align_param_gather non_persistent_ckpt_type non_persistent_global_ckpt_dir "
                "non_persistent_local_ckpt_algo non_persistent_local_ckpt_dir non_persistent_save_interval "
                "overlap_param_gather_with_optimizer_step persistent_save_interval tp_comm_overlap_disable_fc1 "
                "tp_comm_overlap_disable_qkv tp_only_amax_red train_sync_interval use_pytorch_profiler "
            ),
            "NVLM-1.0..core_v0.12.3": (
                "export_kd_finalize "
            ),
            "NVLM-1.0..v0.15.3": (
                "no_use_tokenizer_model_from_checkpoint_args "
            ),
            "NVLM-1.0..core_v0.16.1": (
                "moe_use_legacy_grouped_gemm "
            ),
            "NVLM-1.0..main": (
                "attention_backend beta_fast beta_slow check_for_spiky_loss cp_comm_type "
                "cuda_graph_retain_backward_graph data_args_path error_injection_rate error_injection_type "
                "exp_avg_dtype exp_avg_sq_dtype expert_tensor_parallel_size export_kd_cfg export_kd_teacher_load "
                "flash_decode hierarchical_context_parallel_sizes inference_max_seq_length kv_lora_rank "
                "main_grads_dtype main_params_dtype memory_snapshot_path "
                "microbatch_group_size_per_virtual_pipeline_stage microbatch_group_size_per_vp_stage "
                "moe_ffn_hidden_size moe_layer_freq moe_router_topk_limited_devices moe_router_topk_scaling_factor "
                "moe_shared_expert_intermediate_size moe_shared_expert_overlap mscale mscale_all_dim "
                "multi_latent_attention num_distributed_optimizer_instances overlap_p2p_comm_warmup_flush "
                "overlap_p2p_communication_warmup_flush per_split_data_args_path q_lora_rank qk_head_dim "
                "qk_pos_emb_head_dim record_memory_history rerun_mode rotary_scaling_factor tp_comm_bootstrap_backend "
                "use_mp_args_from_checkpoint_args use_precision_aware_optimizer use_rope_scaling use_torch_fsdp2 "
                "v_head_dim "
            ),
            "core_r0.11.0..main": (
                "account_for_embedding_in_pipeline_split account_for_loss_in_pipeline_split calc_ft_timeouts "
                "cuda_graph_use_single_mempool cuda_graph_warmup_steps inference_rng_tracker moe_permute_fusion "
                "moe_router_bias_update_rate moe_router_enable_expert_bias moe_router_group_topk "
                "moe_router_num_groups moe_router_score_function num_layers_in_first_pipeline_stage "
                "num_layers_in_last_pipeline_stage num_virtual_stages_per_pipeline_rank "
                "relative_attention_max_distance relative_attention_num_buckets replication replication_factor "
                "replication_jump rope_scaling_factor softmax_scale te_rng_tracker "
            ),
            "core_v0.11.0..main": (
                "rope_type "
            ),
            "core_v0.12.0..core_v0.13.1": (
                "export_num_eagle_layers export_num_medusa_heads keep_fp8_transpose_cache_when_using_custom_fsdp "
                "use_custom_fsdp "
            ),
            "core_v0.12.0..v0.15.3": (
                "inference_dynamic_batching_buffer_guaranteed_fraction "
                "inference_dynamic_batching_buffer_overflow_factor inference_dynamic_batching_max_requests_override "
                "inference_dynamic_batching_max_tokens_override "
            ),
            "core_v0.12.0..main": (
                "check_for_large_grads cross_entropy_fusion_impl cuda_graph_scope data_parallel_sharding_strategy "
                "ddp_num_buckets ddp_pad_buckets_for_high_nccl_busbw disable_bf16_reduced_precision_matmul "
                "disable_gloo_process_groups export_force_local_attention export_kv_cache_quant export_model_type "
                "export_real_quant_cfg finetune_hf_dataset first_last_layers_bf16 fp8_param fp8_recipe "
                "grad_reduce_in_bf16 heterogeneous_block_specs heterogeneous_layers_config_encoded_json "
                "heterogeneous_layers_config_path inference_dynamic_batching "
                "inference_dynamic_batching_buffer_size_gb inference_max_requests init_model_with_meta_device "
                "is_hybrid_model iterations_to_skip mamba_head_dim mamba_num_groups mamba_state_dim "
                "moe_apply_probs_on_input moe_enable_deepep moe_router_dtype mrope_section mtp_loss_scaling_factor "
                "mtp_num_layers no_gradient_reduce_div_fusion no_pin_cpu_grads no_pin_cpu_params "
                "num_layers_at_end_in_bf16 num_layers_at_start_in_bf16 optimizer_cpu_offload "
                "optimizer_offload_fraction overlap_cpu_optimizer_d2h_h2d pipeline_model_parallel_comm_backend "
                "recompute_modules result_rejected_tracker_filename run_workload_inspector_server "
                "suggested_communication_unit_size use_persistent_ckpt_worker use_torch_optimizer_for_cpu_offload "
            ),
            "core_v0.13.0..core_v0.13.1": (
                "export_draft_vocab_size export_eagle_algorithm export_freeze_mtp export_num_mtp "
            ),
            "core_v0.13.0..core_v0.14.0": (
                "inference_dynamic_batching_chunk_size load_model_opt_format "
            ),
            "core_v0.13.0..main": (
                "delay_wgrad_compute disable_mamba_mem_eff_path disable_msc enable_experimental "
                "export_kd_teacher_ckpt_format export_moe_apply_probs_on_input export_qk_l2_norm finetune_data_split "
                "fsdp_double_buffer hetereogenous_dist_checkpoint high_priority_stream_groups "
                "inprocess_active_world_size inprocess_barrier_timeout inprocess_completion_timeout "
                "inprocess_empty_cuda_cache inprocess_granularity inprocess_hard_timeout inprocess_heartbeat_interval "
                "inprocess_heartbeat_timeout inprocess_last_call_wait inprocess_max_iterations "
                "inprocess_monitor_process_interval inprocess_monitor_thread_interval "
                "inprocess_progress_watchdog_interval inprocess_restart inprocess_soft_timeout "
                "inprocess_termination_grace_time kitchen_config_file kitchen_recipe_number log_energy "
                "mamba_num_heads mid_level_dataset_surplus mlp_chunks_for_prefill moe_deepep_num_sms "
                "moe_router_force_load_balancing moe_router_padding_for_fp8 moe_upcycling_granularity "
                "nccl_all_reduce_for_prefill no_rope_freq object_storage_cache_path pipeline_model_parallel_layout "
                "qk_l2_norm quant_recipe reuse_grad_buf_for_mxfp8_param_ag sft sft_tokenizer_prompt_format "
                "symmetric_ar_type torch_fsdp2_no_reshard_after_forward use_kitchen use_mamba_mem_eff_path "
                "use_nccl_ub use_sharp "
            ),
            "core_v0.14.0..v0.15.3": (
                "no_strict_fsdp_dtensor_load "
            ),
            "core_v0.14.0..main": (
                "cache_mla_latents cpu_offloading_double_buffering embedding_init_method embedding_init_method_std "
                "enable_full_sharding_in_hsdp full_validation inference_dynamic_batching_num_cuda_graphs "
                "keep_fp8_transpose_cache load_main_params_from_ckpt moe_router_fusion multiple_validation_sets "
                "original_max_position_embeddings overlap_moe_expert_parallel_comm padded_vocab_size "
                "save_retain_interval sharp_enabled_group use_fused_weighted_squared_relu use_megatron_fsdp "
            ),
            "core_v0.15.0..v0.15.3": (
                "grpo_default_temperature grpo_default_top_p rl_calculate_intra_group_similarity "
                "rl_sequence_packing_bin_size teacher_model_config "
            ),
            "core_v0.15.0..core_v0.16.1": (
                "disable_chunked_prefill inference_max_batch_size langrl_external_server "
                "langrl_inference_server_conversation_template langrl_inference_server_type legacy_tokenizer "
                "rl_offload_kv_cache_during_training rl_remove_kv_cache_during_training rl_reset_cuda_graphs "
            ),
            "core_v0.15.0..main": (
                "activation_func_clamp_value cuda_graph_impl decode_only_cuda_graphs disable_symmetric_registration "
                "dist_ckpt_optim_fully_reshardable dist_ckpt_save_pre_mcore_014 "
                "distrib_optim_fully_reshardable_mem_efficient distributed_timeout_seconds_after_init "
                "export_offline_model fp4 fp4_format fp4_param fp4_param_gather fp4_recipe fused_single_qkv_rope "
                "glu_linear_offset grpo_clamp_eps_lower grpo_clamp_eps_upper grpo_entropy_term_weight "
                "grpo_filter_groups_with_same_reward grpo_group_size grpo_iterations grpo_kl_beta "
                "grpo_prompts_per_step inference_dynamic_batching_block_size "
                "inference_dynamic_batching_track_paused_request_events "
                "inference_dynamic_batching_unified_memory_level inference_sampling_seed langrl_env_config "
                "modelopt_enabled moe_pad_experts_for_cuda_graph_inference perform_rl_step quick_geglu "
                "rl_importance_sampling_truncation_coef rl_inference_logprobs_is_correction "
                "rl_offload_optimizer_during_inference rl_partial_rollouts rl_prompts_per_eval "
                "rl_sequence_packing_algo rl_use_sequence_packing softmax_type tokenizer_metadata trust_remote_code "
                "use_te_activation_func wandb_entity window_attn_skip_freq "
            ),
            "core_v0.16.0..core_v0.17.1": (
                "inference_dynamic_batching_cuda_graph_max_tokens muon_use_nesterov "
                "tokenizer_hf_include_special_tokens tokenizer_hf_use_fast "
            ),
            "core_v0.16.0..core_v0.18.2": (
                "rl_parallel_generation_tasks "
            ),
            "core_v0.16.0..main": (
                "allow_ambiguous_pad_tokens apply_wd_to_qk_layernorm attention_output_gate batch_invariant_mode "
                "create_all_gather_group dataloader_defer_npy_index_mmap dataloader_fast_cache_load "
                "ddp_reduce_scatter_with_fp32_accumulation disable_jit_fuser dsa_indexer_head_dim "
                "dsa_indexer_loss_coeff dsa_indexer_n_heads dsa_indexer_topk dsa_indexer_use_sparse_loss "
                "dump_param_to_param_group_map enable_chunked_prefill enable_gpt_oss "
                "ep_overlap_early_attn_memory_release experimental_attention_variant export_kd_teacher_model_config "
                "fake_process_group fim_data fim_eod_token fim_fragment_rate fim_middle_token fim_no_prefix "
                "fim_pad_token fim_prefix_token fim_rate fim_split_sample fim_spm_rate fim_suffix_token "
                "fine_grained_activation_offloading fp4_quantizer_factory fp8_quantizer_factory "
                "fsdp_manual_registration ft_num_warmup_iters hybrid_context_parallel inference_coordinator_port "
                "inference_dynamic_batching_cuda_graph_mixed_prefill_count inference_dynamic_batching_max_requests "
                "inference_dynamic_batching_max_tokens inference_dynamic_batching_paused_buffer_size_gb "
                "inference_fuse_tp_communication inference_logging_step_interval inference_wandb_logging "
                "kitchen_attention_backend linear_attention_freq linear_conv_kernel_dim linear_key_head_dim "
                "linear_num_key_heads linear_num_value_heads linear_value_head_dim log_max_attention_logit "
                "max_seqlen_per_dp_cp_rank min_offloaded_tensor_size moe_enable_routing_replay "
                "moe_flex_dispatcher_backend moe_hybridep_num_sms moe_latent_size moe_router_padding_for_quantization "
                "moe_shared_expert_gate mtp_standalone muon_extra_scale_factor muon_fp32_matmul_prec muon_momentum "
                "muon_no_split_qkv muon_num_ns_steps muon_scale_mode muon_tp_mode no_weight_decay_cond_type "
                "offload_modules outer_dp_sharding_strategy per_dataset_sequences_path phase_transition_iterations "
                "qk_clip qk_clip_alpha qk_clip_threshold refit_method rl_default_temperature rl_default_top_k "
                "rl_default_top_p rl_inference_expert_model_parallel_size "
                "rl_inference_expert_tensor_model_parallel_size rl_inference_model_unified_memory_level "
                "rl_inference_pipeline_model_parallel_size rl_inference_tensor_model_parallel_size "
                "rl_offload_inference_model_weights_when_idle rl_sequence_packing_max_sequences_per_bin "
                "rl_skip_bos_token rl_training_cuda_graphs rl_verify_model_weights_swap te_precision_config_file "
                "tokenizer_sentencepiece_legacy tokenizer_special_tokens use_inference_optimized_layers "
                "use_kitchen_attention use_legacy_static_engine "
            ),
            "core_v0.17.0..core_v0.18.2": (
                "rl_generation_batch_size rl_num_parallel_generation_batches rl_num_parallel_generations "
            ),
            "core_v0.17.0..main": (
                "align_grad_reduce async_ckpt_cpu_priority async_ckpt_io_priority async_strategy "
                "check_for_nan_in_loss ckpt_fully_parallel_load_exchange_algo ckpt_fully_parallel_load_process_group "
                "ckpt_fully_parallel_save_process_group cpu_offloading_retain_pinned_cpu_buffers "
                "ddp_param_name_patterns_for_fp32_local_accumulation dist_ckpt_workers exit_signal "
                "exit_signal_handler_for_dataloader exit_signal_handler_for_training export_default_te_spec "
                "filter_warnings flight_recorder_dump_on_timeout flight_recorder_dump_path "
                "flight_recorder_extra_dump_on_exec flight_recorder_include_only_active "
                "flight_recorder_include_stack_trace flight_recorder_trace_buffer_size fully_parallel_load "
                "fully_parallel_save fused_residual_rmsnorm hybrid_layer_pattern "
                "inference_disable_triton_nvls_kernels inference_dynamic_batching_mamba_memory_ratio "
                "inference_dynamic_batching_prefix_caching "
                "inference_dynamic_batching_prefix_caching_coordinator_policy "
                "inference_dynamic_batching_prefix_caching_eviction_policy "
                "inference_dynamic_batching_prefix_caching_mamba_gb "
                "inference_dynamic_batching_prefix_caching_routing_alpha "
                "inference_dynamic_batching_track_generated_token_events inference_grouped_gemm_backend "
                "inference_moe_disable_fused_quant_kernels inference_text_gen_server_logging "
                "inference_use_synchronous_zmq_collectives lion_beta1 lion_beta2 load_optim load_rng "
                "log_device_memory_used log_l2_norm_grad_to_tensorboard log_loss_scale_to_tensorboard "
                "log_memory_interval log_runtime_to_tensorboard log_throughput_to_tensorboard lr_decay_steps "
                "lr_warmup_steps mamba_inference_conv_states_dtype mamba_inference_ssm_states_dtype manual_gc_eval "
                "megatron_fsdp_grad_comm_dtype megatron_fsdp_main_grads_dtype megatron_fsdp_main_params_dtype "
                "memory_keys mla_down_proj_fusion modules_to_filter moe_router_force_biased most_recent_k "
                "mtp_hybrid_override_pattern mtp_use_repeated_layer muon_coefficient_type muon_scalar_optimizer "
                "mup_attn_scale_power mup_base_head_dim mup_base_hidden_size mup_embedding_mult mup_output_mult "
                "mup_width_mult num_speculative_tokens nvtx_ranges optimizer_cuda_graph "
                "pytorch_profiler_collect_callstack pytorch_profiler_collect_chakra pytorch_profiler_collect_shapes "
                "record_shapes rl_inference_parsers rl_kv_cache_management_mode rl_persist_cuda_graphs "
                "runtime_time_unit save_config_filepath save_dgrads_interval save_optim save_rng "
                "save_tokenizer_assets save_wgrads_interval set_level_for_all_loggers strict_fsdp_dtensor_load "
                "throughput_window_size tokenizer_hf_no_include_special_tokens tokenizer_hf_no_use_fast "
                "use_gloo_process_groups use_mup use_nsys_profiler use_tokenizer_model_from_checkpoint_args "
                "wd_incr_steps wsd_decay_steps "
            ),
            "core_v0.17.1..main": (
                "moe_hybridep_num_blocks_permute moe_hybridep_num_blocks_unpermute moe_permute_fusion_into_hybridep "
                "verify_integrity "
            ),
            "core_v0.18.0..main": (
                "add_skipping async_ckpt_use_cpu_shm basemodel_type binary_mask bpe_kv_cache bpe_max_buffer "
                "bpe_params bpe_ssm_cache budget_list budget_probs budget_type chat_template checkpoint "
                "ckpt_load_validate_sharding_integrity cuda_graph_modules curr_iteration ddp disable_budget dist "
                "distill_coeff distill_only distillation emb_int_list emb_per_list enable_msc enable_router "
                "eval_global_batch_size eval_micro_batch_size extra_checkpoint_metadata "
                "fine_grained_offloading_max_inflight_offloads flex_hetero_ffn flex_hetero_mamba "
                "flex_hetero_moe_expert flex_strict flextron flextron_config_file force_emb force_mamba force_mlp "
                "force_router_skip fp8_output_proj freeze_model freeze_router gpu_sniff_test_interval hard_sample_th "
                "high_priority_a2a_comm_stream hybrid_stack_spec inference_cuda_graph_all_prefills "
                "inference_cuda_graph_scope inference_disable_ep_consensus "
                "inference_dynamic_batching_sampling_backend inference_moe_token_dispatcher_type is_flex_eval "
                "layer_ranking_list linear_scaler_end linear_scaler_start log_budgets logger loss_alpha "
                "lr_mult_router mamba_int_list mamba_per_list megatron_fsdp_enable_fine_grained_param_gather "
                "mem_batch_size mem_infer_seq_len memory_profile memory_profile_path metadata_path "
                "mlp_chunks_for_training mlp_int_list mlp_per_list model moe_expert_int_list moe_expert_per_list "
                "moe_expert_rank_capacity_factor moe_hybridep_num_sms_preprocessing moe_mlp_glu_interleave_size "
                "moe_paged_stash moe_paged_stash_buffer_size_factor_cpu moe_paged_stash_buffer_size_factor_cuda "
                "moe_paged_stash_page_size moe_single_grouped_bias moe_single_grouped_weight muon_nesterov "
                "no_attn_skip no_use_layer_wise_param_layout normalize_router_logits null_tokenizer_eod_id "
                "null_tokenizer_pad_id original_model_sample_prob overlap_dispatch_backward_with_experts_wgrad "
                "override_selected_budget pad_vocab_size parallel_output param_budget_target post_wrap_hooks "
                "pre_wrap_hooks prefill_chunk_size profiling rerun_state_machine restore_modelopt_state rng "
                "router_beta router_gbs router_inter_dim router_std save_activations_interval save_params_interval "
                "save_tokens_per_expert_interval scheduler seq_len_interpolation_factor "
                "share_embeddings_and_output_weights should_pad_vocab skip_num_attn_layer_constraint "
                "skip_total_layer_constraint slice soft_mask special_tokens start_eval_at_iter "
                "step_batch_size_schedule straggler tau_decay tau_init tokenizer "
                "tokenizer_sentencepiece_ignore_extra_whitespaces train transformer use_grouped_gemm_for_dense_mlp "
                "use_transformer_engine_op_fuser validation validation_set_names "
            ),
            "core_v0.19.0..core_v0.19.0": (
                "moe_ncclep_static_shape stream_ckpt_dequant "
            ),
            "core_v0.19.0..main": (
                "activation_offload_fraction dataloader_inter_document_masking delay_offload_until_cuda_graph "
                "delta_offload_bytes_across_pp_ranks dsa_indexer_k_norm_epsilon dsa_indexer_k_norm_fp32 "
                "dsa_indexer_rope_interleaved dsa_indexer_rotate_activation dsa_indexer_scoring_relu "
                "dsa_indexer_skip_topk_offset dsa_indexer_topk_freq dsa_kernel_backend "
                "experimental_attention_variant_loss_scale_func expert_gtp_weight_remat_size "
                "expert_tensor_parallel_num_weight_shards flash_attention_version freeze_all_layers "
                "freeze_base_for_mtp fsdp_db_use_persist_buf_on_alloc_fail gtp_weight_remat_size inference "
                "inference_cuda_graph_max_tokens inference_dynamic_batching_async_sched_mode "
                "inference_dynamic_batching_cuda_graph_sizing_distribution "
                "inference_dynamic_batching_enable_prefix_caching inference_dynamic_batching_logprobs_mode "
                "inference_shards logits_load_decode_threads logits_load_dir logits_load_ignore_errors "
                "logits_load_kd_loss_alpha logits_load_msc_prefetch_depth logits_load_prefetch_factor logits_save_dir "
                "logits_save_dtype logits_save_top_k logits_save_top_p logits_save_top_p_min_k "
                "mamba_training_ssm_states_dtype megatron_fsdp_max_pool_double_buffer moe_flex_dispatcher_num_sms "
                "moe_grad_scale_func moe_hybridep_pad_uneven_dispatch_inputs moe_ncclep_zero_copy "
                "moe_router_quantile_balancing_ema moe_routing_trace_capture_hidden_states "
                "moe_routing_trace_capture_logits moe_routing_trace_dump_weights moe_routing_trace_max_training_iters "
                "moe_routing_trace_path moe_shared_expert_glu_interleave_size mtp_detach_heads mtp_grad_scale_func "
                "no_yarn_correction_range_round_to_int offset_sampling_seed_by_dp_rank override_ckpt_iteration "
                "qad_train_target return_log_probs rl_consumption_granularity rl_generation_lag rl_profile "
                "rl_profile_dir rl_submission_granularity rope_scaling scatter_embedding_sequence_parallel "
                "skip_prompt_log_probs tensor_parallel_num_weight_shards transformer_layer_spec "
                "use_arbitrary_attention_mask use_flashinfer_fused_rope use_grouped_gemm_for_shared_expert "
                "use_same_sampling_seed_across_dp_ranks yarn_beta_fast yarn_beta_slow "
                "yarn_correction_range_round_to_int yarn_original_max_position_embeddings "
            ),
            "main..main": (
                "batch_invariant_backend ckpt_drop_redundant_extra_state ckpt_fully_parallel_load_per_rank_objects "
                "ckpt_pg_tensors_cache_create ckpt_pg_tensors_cache_path enable_mhc_connections finetune_data_files "
                "gdp_cutedsl_kernel gdp_num_chunk_states_to_recompute gdp_num_householder gtp_expert_remat_nccl_ub "
                "gtp_remat_nccl_ub gtp_remat_opt_in_modules gtp_remat_reduce_scatter_with_fp32_accumulation "
                "logit_dtype megatron_fsdp_version mhc_init_gating_factor mhc_num_residual_streams "
                "mhc_recompute_layer_num mhc_sinkhorn_iterations moe_combine_bwd_dtype moe_dispatch_fwd_dtype "
                "moe_use_grouped_tensor mtp_hsm muon_use_syrk otel_enabled otel_service_name otel_span_groups "
                "output_logit_dtype rl_durable_rollout_bank rl_max_inflight_requests rl_rollout_bank_dir "
                "rl_rollout_bank_max_bytes use_gigatoken "
            ),
        },
        ""
    ),
    "eole": (
        "0.0.1", "main",
        {
            "0.0.1..0.0.1": (
                "gpu max_relative_positions model_dtype override_opts precision random_sampling_temp "
                "random_sampling_topk random_sampling_topp "
            ),
            "0.0.1..0.0.2": (
                "default_specials param_init_glorot "
            ),
            "0.0.1..0.0.3": (
                "truncated_decoder "
            ),
            "0.0.1..0.1.2": (
                "apex_opt_level loss_scale "
            ),
            "0.0.1..main": (
                "aan_useffn accum_count accum_steps adagrad_accumulator_init adam_beta1 adam_beta2 add_estimator "
                "add_ffnbias add_qkvbias align_debug alignment_heads alignment_layer alpha architecture "
                "attention_dropout attn_debug average_decay average_every avg_raw_probs ban_unk_token batch_size "
                "batch_size_multiple batch_type beam_size beta bidirectional_encoder block_ngram_repeat "
                "both_embeddings bridge bucket_size bucket_size_increment bucket_size_init cnn_kernel_width "
                "context_gate coverage_attn coverage_penalty data data_type decay_method decay_steps decoder "
                "decoder_start_token decoder_type dropout dropout_steps dump_beam dump_preds dump_samples "
                "early_stopping early_stopping_criteria embeddings embeddings_type encoder encoder_type "
                "estim_loss_lambda estim_loss_lambda_steps freeze_decoder freeze_encoder freeze_word_vecs_dec "
                "freeze_word_vecs_enc full_context_alignment generator_function global_attention "
                "global_attention_function gold_align gpu_backend gpu_ranks gpu_verbose_level group_size heads "
                "heads_kv hidden_size ignore_when_blocking input_feed keep_checkpoint label_smoothing lambda_align "
                "lambda_coverage layer_norm layers learn_subwords learn_subwords_size learning_rate "
                "learning_rate_decay left_pad length_penalty lm_prior_lambda lm_prior_model lm_prior_tau log_file "
                "lora_alpha lora_dropout lora_embedding lora_layers lora_rank master_ip master_port max_grad_norm "
                "max_length max_length_ratio min_length mlp_activation_fn model model_path n_best n_positions "
                "n_sample name norm_eps normalization num_experts num_experts_per_tok num_threads num_workers optim "
                "output overwrite parallel_mode parallel_residual param_init path_align path_sco path_src path_tgt "
                "path_txt phrase_table position_encoding position_encoding_type position_shift pre_word_vecs_dec "
                "pre_word_vecs_enc prefetch_factor profile quant_layers quant_type ratio relative_positions_buckets "
                "replace_unk report_align report_every report_time reset_optim rnn_type rotary_dim rotary_interleave "
                "rotary_theta save_checkpoint_steps save_data save_format score_threshold scoring_debug seed "
                "self_attn_backend share_decoder_embeddings share_embeddings share_vocab shared_layer_norm "
                "single_pass skip_empty_level sliding_window src src_embeddings src_prefix src_subword_vocab "
                "src_suffix src_vocab src_vocab_size src_word_vec_size src_words_min_frequency start_decay_steps "
                "stepwise_penalty tensorboard tensorboard_log_dir tensorboard_log_dir_dated tgt tgt_embeddings "
                "tgt_file_prefix tgt_prefix tgt_suffix tgt_vocab tgt_vocab_size tgt_word_vec_size "
                "tgt_words_min_frequency timeout train_from train_steps training transformer_ff transforms "
                "transforms_configs update_vocab use_ckpting valid_batch_size valid_metrics valid_steps verbose "
                "vocab_sample_queue_size vocab_size_multiple w_bit warmup_steps weight with_score word_vec_size "
                "world_size zero_out_prompt_loss "
            ),
            "0.0.2..main": (
                "avg_tok_max avg_tok_min chat_template compute_dtype head_dim high_freq_factor lang_id "
                "low_freq_factor norm_numbers norm_quote_commas optional_eos original_max_position_embeddings penn "
                "post_remove_control_chars pre_replace_unicode_punct rope_config same_char same_word scaling_factor "
                "scaling_type scripts_nok scripts_ok src_eq_tgt src_lang src_tgt_ratio temperature tgt_lang top_k "
                "top_p "
            ),
            "0.0.3..0.0.3": (
                "dummy_load "
            ),
            "0.0.3..main": (
                "add_final_linear_bias bos_token engine eole_version eos_token generator_bias huggingface_model "
                "inference pad_token param_init_method torch_compile unk_token weight_decay "
            ),
            "0.1.0..main": (
                "ffn_layernorm normalize "
            ),
            "0.1.1..main": (
                "image_size image_token_id num_channels patch_size "
            ),
            "0.2.0..0.3.0": (
                "multimodal_projector_bias "
            ),
            "0.2.0..main": (
                "adam_eps adapter_bias projector_activation_fn spatial_merge_size use_amp "
            ),
            "0.3.0..main": (
                "LM_type adapter attn_scaling interleave_local key_norm layernorm_pre mm_tokens_per_image "
                "patch_conv_bias qk_norm_post_rope query_norm rotary_theta_local tmax_index "
            ),
            "0.4.0..main": (
                "attention_entropy_aggregation attention_entropy_layers attention_entropy_types encoder_sam "
                "estim_only estimator_type first_k_dense_replace fuse_gate fuse_kvq log_attention_entropy "
                "moe_softmax_after moe_transformer_ff num_shared_experts use_class_embedding "
            ),
            "0.4.1..main": (
                "interpolate_mode layernorm_post "
            ),
            "0.4.2..main": (
                "xdrope_section "
            ),
            "0.4.4..main": (
                "with_cross_attn "
            ),
            "0.5.0..main": (
                "adafactor_beta2 adafactor_d adafactor_eps image_token_id_list "
            ),
            "0.5.1..main": (
                "dynamic_shapes "
            ),
            "0.5.2..main": (
                "add_key_bias autoround_packing_format autoround_sym begin_suppress_tokens chunk_length "
                "comet_batch_size comet_model compression_ratio_threshold condition_on_previous_text "
                "fallback_temperatures hop_length initial_prompt language layer_types linear_conv_kernel_dim "
                "linear_key_head_dim linear_num_key_heads linear_num_value_heads linear_value_head_dim "
                "logprob_threshold max_source_positions median_filter_width moe_renormalize n_fft no_speech_threshold "
                "no_timestamps_token_id num_mel_bins num_position_embeddings q_gating quant_exclude_modules "
                "sample_rate shared_expert_gate suppress_tokens task temporal_patch_size timestamp_resolution "
                "timestamps wer_normalize word_timestamp_heads "
            ),
            "0.5.3..main": (
                "activations class_identifier comet_device context_length decoding_threshold embedding_layer_norm "
                "embedding_type encoder_architecture encoder_layer_style error_labels final_activation "
                "final_encoder_layer_norm global_head_dim global_heads_kv hf_token hidden_sizes input_segments "
                "input_weights_spans layer layer_transformation max_position_embeddings multidimensional_rope "
                "partial_rotary_factor pool pooling_kernel_size position_embedding_size prefill_cache_size "
                "prefill_chunk_size pretrained_model ref requires_reference rotary_dim_global score_level "
                "score_weights scoring_type standardize token_type_vocab_size trackio trackio_bucket_id "
                "trackio_project trackio_run_name trackio_space_id value_norm word_layer "
            ),
        },
        "AudioEncoderConfig BaseModelConfig BaseVocabConfig BuildVocabConfig CnnConfig CnnDecoderConfig "
        "CnnEncoderConfig CnnModelConfig CustomModelConfig DataConfig DecoderConfig DecodingConfig "
        "DistributedConfig EmbeddingsConfig EncoderConfig InferenceConfig LoRaConfig LoggingConfig "
        "MeanEncoderConfig MiscConfig OptimizerConfig PredictConfig QuantizeConfig RnnConfig RnnDecoderConfig "
        "RnnEncoderConfig RnnModelConfig RotaryPositionConfig RunningConfig TrainConfig TrainingConfig "
        "TransformerConfig TransformerDecoderConfig TransformerEncoderConfig TransformerEncoderModelConfig "
        "TransformerEncoderScorerModelConfig TransformerLMDecoderConfig TransformerLMModelConfig "
        "TransformerModelConfig VisionEncoderConfig VisionTransformerLMModelConfig VocabConfig WhisperModelConfig "
    ),
    "accelerate": (
        "v0.1.0", "main",
        {
            "v0.1.0..v0.15.0": (
                "fp16 "
            ),
            "v0.1.0..main": (
                "config_file cpu machine_rank main_process_ip main_process_port main_training_function multi_gpu "
                "num_machines num_processes tpu "
            ),
            "v0.2.0..main": (
                "aws_access_key_id aws_secret_access_key base_job_name compute_environment distributed_type "
                "ec2_instance_type iam_role_name profile pytorch_version region transformers_version "
            ),
            "v0.4.0..main": (
                "deepspeed_config gradient_accumulation_steps offload_optimizer_device use_deepspeed zero_stage "
            ),
            "v0.6.0..main": (
                "mixed_precision module no_python use_cpu "
            ),
            "v0.7.0..v0.13.2": (
                "min_num_params offload_params sharding_strategy "
            ),
            "v0.7.0..main": (
                "fsdp_config use_fsdp "
            ),
            "v0.9.0..main": (
                "num_cpu_threads_per_process "
            ),
            "v0.10.0..main": (
                "deepspeed_config_file gradient_clipping offload_param_device zero3_init_flag zero3_save_16bit_model "
            ),
            "v0.11.0..v0.13.2": (
                "transformer_layer_cls_to_wrap "
            ),
            "v0.11.0..v0.34.2": (
                "fsdp_backward_prefetch_policy "
            ),
            "v0.11.0..main": (
                "deepspeed_exclusion_filter deepspeed_hostfile deepspeed_inclusion_filter "
                "deepspeed_multinode_launcher fsdp_auto_wrap_policy image_uri py_version sagemaker_inputs_file "
                "sagemaker_metrics_file "
            ),
            "v0.12.0..v0.15.0": (
                "use_mps_device "
            ),
            "v0.12.0..main": (
                "downcast_bf16 fsdp_min_num_params fsdp_offload_params fsdp_sharding_strategy fsdp_state_dict_type "
                "fsdp_transformer_layer_cls_to_wrap "
            ),
            "v0.13.0..main": (
                "debug gpu_ids max_restarts monitor_interval rdzv_backend rdzv_conf same_network "
            ),
            "v0.14.0..v0.18.0": (
                "mps "
            ),
            "v0.14.0..main": (
                "command_file commands help megatron_lm_config megatron_lm_gradient_clipping "
                "megatron_lm_num_micro_batches megatron_lm_pp_degree megatron_lm_recompute_activations "
                "megatron_lm_sequence_parallelism megatron_lm_tp_degree megatron_lm_use_distributed_optimizer "
                "tpu_name tpu_zone use_megatron_lm "
            ),
            "v0.15.0..main": (
                "dynamo_backend "
            ),
            "v0.16.0..main": (
                "quiet "
            ),
            "v0.17.0..main": (
                "additional_args dynamo_config dynamo_mode dynamo_use_dynamic dynamo_use_fullgraph env no_tpu_cluster "
                "role tee tpu_cluster tpu_env tpu_use_cluster tpu_use_sudo tpu_vm vm "
            ),
            "v0.19.0..v0.19.0": (
                "ipex_enabled "
            ),
            "v0.19.0..v1.12.0": (
                "ipex_config "
            ),
            "v0.20.0..v1.9.0": (
                "ipex "
            ),
            "v0.20.0..v1.12.0": (
                "use_xpu "
            ),
            "v0.20.0..main": (
                "offload_optimizer_nvme_path offload_param_nvme_path "
            ),
            "v0.21.0..main": (
                "fsdp_forward_prefetch fsdp_sync_module_states fsdp_use_orig_params "
            ),
            "v0.24..main": (
                "fsdp_cpu_ram_efficient_loading "
            ),
            "v0.26.0..main": (
                "fsdp_backward_prefetch "
            ),
            "v0.28.0..v1.12.0": (
                "mpirun_ccl "
            ),
            "v0.28.0..main": (
                "mpirun_config mpirun_hostfile "
            ),
            "v0.29.0..main": (
                "enable_cpu_affinity "
            ),
            "v0.30.0..main": (
                "deepspeed_moe_layer_cls_names "
            ),
            "v0.31.0..main": (
                "fsdp_activation_checkpointing log_dir "
            ),
            "v0.34.0..main": (
                "fp8_amax_compute_algo fp8_amax_history_len fp8_backend fp8_config fp8_format fp8_interval fp8_margin "
                "fp8_opt_level fp8_override_linear_precision fp8_use_autocast_during_eval "
            ),
            "v1.4.0..v1.6.0": (
                "tp_config tp_size use_tp "
            ),
            "v1.6.0..main": (
                "fsdp_reshard_after_forward fsdp_version "
            ),
            "v1.7.0..main": (
                "dynamo_use_regional_compilation "
            ),
            "v1.10.0..main": (
                "parallelism_config parallelism_config_cp_comm_strategy parallelism_config_cp_size "
                "parallelism_config_dp_replicate_size parallelism_config_dp_shard_size parallelism_config_tp_size "
                "use_parallelism_config "
            ),
            "v1.12.0..main": (
                "parallelism_config_cp_backend parallelism_config_sp_attn_implementation "
                "parallelism_config_sp_backend parallelism_config_sp_seq_length "
                "parallelism_config_sp_seq_length_is_variable parallelism_config_sp_size "
            ),
            "v1.13.0..main": (
                "fp8_enable_fsdp_float8_all_gather fp8_pad_inner_dim megatron_lm_attention_backend "
                "megatron_lm_attention_dropout megatron_lm_attention_softmax_in_fp32 "
                "megatron_lm_calculate_per_token_loss megatron_lm_context_parallel_size "
                "megatron_lm_decoder_last_pipeline_num_layers megatron_lm_eod_mask_loss "
                "megatron_lm_expert_model_parallel_size megatron_lm_expert_tensor_parallel_size "
                "megatron_lm_hidden_dropout megatron_lm_no_load_optim megatron_lm_no_save_optim "
                "megatron_lm_optimizer_cpu_offload megatron_lm_overlap_cpu_optimizer_d2h_h2d "
                "megatron_lm_recompute_granularity megatron_lm_recompute_method megatron_lm_recompute_num_layers "
                "megatron_lm_use_custom_fsdp megatron_lm_use_precision_aware_optimizer "
                "megatron_lm_use_rotary_position_embeddings "
            ),
        },
        ""
    ),
}


# Fields of transformers' TrainingArguments (src/transformers/training_args.py) that no other runner's config uses
# under the same name: a JSON/YAML file whose keys are mostly these is a TrainingArguments file, the one
# HfArgumentParser.parse_json_file / parse_yaml_file reads (`--train_args_json FILE`, `python train.py args.json`)
TRAINING_ARGUMENTS_FIELDS = frozenset({
    "output_dir", "per_device_train_batch_size", "per_device_eval_batch_size", "gradient_accumulation_steps",
    "learning_rate", "num_train_epochs", "max_steps", "lr_scheduler_type", "warmup_ratio", "warmup_steps",
    "logging_steps", "save_strategy", "save_steps", "save_total_limit", "evaluation_strategy", "eval_strategy",
    "eval_steps", "optim", "fp16", "bf16", "tf32", "gradient_checkpointing", "deepspeed", "fsdp",
    "remove_unused_columns", "ddp_find_unused_parameters", "dataloader_num_workers", "report_to", "seed",
    "weight_decay", "max_grad_norm", "adam_beta1", "adam_beta2", "logging_dir", "overwrite_output_dir",
    "do_train", "do_eval", "group_by_length", "torch_compile", "label_names", "load_best_model_at_end",
})
TRAINING_ARGUMENTS_MIN_KEYS = 4      # keys of that list a file must have to be read as one
