"""The keys DeepSpeed's pydantic-validated config sections declare, per release (e-skew2, issue 26): data, no logic.

Made by tools/build_deepspeed_config_keys.py from deepspeedai/DeepSpeed's source at every release tag (v0.1.0 ..
the default branch's head, 'main'): the fields of the DeepSpeedConfigModel classes (extra="forbid") in
deepspeed/**/*config*.py, each under the spelling the JSON uses (its alias="..." when it has one). Shape as
runner_args.RUNNER_ARGS: (oldest release read, newest, {"FIRST..LAST": keys}, the config class names). explain uses it
to tell a key the installed DeepSpeed refuses but another release declares (version skew) from one no release
declares (a typo or another program's key: the configuration).
"""
from __future__ import annotations

DEEPSPEED_CONFIG_KEYS: tuple[str, str, dict[str, str], str] = (
    "0.7.0", "main",
    {
        "0.7.0..main": (
            "allgather_bucket_size allgather_partitions buffer_count buffer_size contiguous_gradients cpu_offload "
            "cpu_offload_param cpu_offload_use_pin_memory device elastic_checkpoint fast_init "
            "ignore_unused_parameters legacy_stage1 load_from_fp32_weights max_in_cpu nvme_path offload_optimizer "
            "offload_param overlap_comm pin_memory pipeline_read pipeline_write reduce_bucket_size reduce_scatter "
            "round_robin_gradients stage stage3_gather_16bit_weights_on_model_save "
            "stage3_gather_fp16_weights_on_model_save stage3_max_live_parameters stage3_max_reuse_distance "
            "stage3_model_persistence_threshold stage3_param_persistence_threshold stage3_prefetch_bucket_size "
            "sub_group_size "
        ),
        "0.7.6..main": (
            "activation args base_dir checkpoint checkpoint_dir ckpt_config dtype enable_cuda_graph enabled "
            "ep_mp_group ep_size expert_group expert_mp_group injection_dict injection_policy_tuple kernel_inject "
            "max_tokens moe moe_experts moe_type mp_size mpu num_experts q_groups q_type qkv quant replace_method "
            "return_tuple save_mp_checkpoint_path tm tp tp_group tp_size training_mp_size type weight zero "
        ),
        "0.8.1..main": (
            "csv_monitor group job_name output_path project team tensorboard wandb "
        ),
        "0.9.0..main": (
            "inference_tp_size max_out_tokens memory_efficient_linear min_tokens pin_parameters "
            "release_inference_cache set_empty_params tp_gather_partition_size transposed_mode "
        ),
        "0.9.2..main": (
            "mics_hierarchical_params_gather mics_shard_size "
        ),
        "0.10.0..main": (
            "triton_autotune use_triton zero_hpz_partition_size zero_quantized_gradients zero_quantized_weights "
        ),
        "0.10.1..main": (
            "override_module_apply pipeline_loading_checkpoint "
        ),
        "0.10.2..main": (
            "zero_quantized_nontrainable_weights "
        ),
        "0.10.3..main": (
            "post_init_quant quantized_initialization "
        ),
        "0.12.0..main": (
            "block_size cache_dtype cache_shape manager max_blocks_per_allocation_group max_context "
            "max_ragged_batch_size max_ragged_sequence_count max_tracked_sequences memory_config mode "
            "num_allocation_groups offload size "
        ),
        "0.12.3..main": (
            "ratio "
        ),
        "0.12.4..main": (
            "use_multi_rank_bucket_allreduce "
        ),
        "0.12.6..main": (
            "head_size input_dtype masking_args masking_type max_sequences n_heads_kv n_heads_q output_dtype "
            "positional_embedding_config positional_embedding_type scale_factor theta_base use_trained_freqs "
        ),
        "0.13.0..main": (
            "rotate_dim "
        ),
        "0.14.0..main": (
            "quantization quantization_mode "
        ),
        "0.14.3..main": (
            "api_key comet experiment_key experiment_name online samples_log_interval "
            "stage3_use_all_reduce_for_fetch_params synchronized workspace "
        ),
        "0.15.0..main": (
            "debug num_bits prof_all prof_ops verbose "
        ),
        "0.16.0..main": (
            "stage3_module_granularity_threshold "
        ),
        "0.16.2..main": (
            "tp_grain_size zeropp_loco_param "
        ),
        "0.16.3..main": (
            "keep_module_on_host "
        ),
        "0.16.4..main": (
            "autotp_size log_trace_cache_warnings "
        ),
        "0.16.6..main": (
            "debug_log deepcompile double_buffer free_activation offload_activation offload_opt_states "
            "offload_parameters symmetric_memory sync_after_allgather sync_after_reduce sync_before_allgather "
            "sync_before_reduce tp_overlap_comm "
        ),
        "0.17.1..main": (
            "auto_cast check_grad_overflow consecutive_hysteresis fp16_master_weights_and_grads hysteresis "
            "immediate_grad_update initial_scale_power loss_scale loss_scale_window min_loss_scale "
        ),
        "0.17.2..main": (
            "keep_all_input_tensors keep_int_input_tensors "
        ),
        "0.17.5..main": (
            "auto_ratio full_warm_up_rounds overlap_step select_interval select_strategy steps_per_epoch "
            "topk_ratio update_interval zenflow "
        ),
        "0.17.6..main": (
            "enable_sanity_checks pt_reserved_cores_perc "
        ),
        "0.18.0..main": (
            "classes cpuadam_cores_perc free_activation_threshold leaf_module name_suffixes names super_offload "
        ),
        "0.18.3..main": (
            "bf16_master_weights_and_grads bf16_optimizer_states "
        ),
        "0.18.5..main": (
            "stage3_allgather_sequential "
        ),
        "0.18.6..main": (
            "partition_config preset_model "
        ),
        "0.18.9..main": (
            "passes save_muon_momentum_buffer_in_memory "
        ),
        "main..main": (
            "offload_activation_pin_memory "
        ),
    },
    "ActivationQuantConfig BaseQuantConfig CSVConfig CometConfig CommsLoggerConfig CompileConfig "
    "DSSelfAttentionConfig DSStateManagerConfig DeepSpeedBF16Config DeepSpeedFP16Config DeepSpeedInferenceConfig "
    "DeepSpeedMoEConfig DeepSpeedMonitorConfig DeepSpeedTPConfig DeepSpeedThroughputTimerConfig "
    "DeepSpeedZeroConfig DeepSpeedZeroLeafModuleConfig DeepSpeedZeroOffloadOptimizerConfig "
    "DeepSpeedZeroOffloadParamConfig HybridEngineConfig InferenceCheckpointConfig KVCacheConfig MemoryConfig "
    "QKVQuantConfig QuantizationConfig RaggedInferenceEngineConfig RotateHalfConfig TPConfig TPTrainingConfig "
    "TensorBoardConfig WandbConfig WeightQuantConfig ZenFlowConfig "
)
