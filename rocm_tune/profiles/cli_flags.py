"""The command-line flags of torch's launchers and of `vllm serve` (e-cli9, issue 26): data, no logic.

Shape as runner_args.RUNNER_ARGS: (oldest release read, newest, {"FIRST..LAST": flags first and last declared in the
releases read ('-' written '_')}, class names). explain reads argparse's `<prog>: error: unrecognized arguments: --x`
against them: a flag another release declares is version skew, one no release read declares is a typo or another
program's flag (the configuration; the nearest valid spelling is named).

- torchrun: torch.distributed.run's get_args_parser (pytorch/pytorch torch/distributed/run.py@010929fd), read at that
  one commit only: every flag is written in both spellings there (`--nproc-per-node` / `--nproc_per_node`, folded to
  '_'); one snapshot tells a typo from a flag torchrun has, not which release added it ("main..main").
- torch-launch: torch.distributed.launch (torch/distributed/launch.py@271cacc) is run.py's parser plus `--use-env` /
  `--use_env`; torchrun refuses that one (it always passes the local rank in LOCAL_RANK).
- vllm: the EngineArgs fields behind `vllm serve` / the OpenAI api_server's engine flags, at two snapshots of
  vllm-project/vllm vllm/engine/arg_utils.py: @001999d2 (the 0.7 line: TokenizerPoolConfig, PromptAdapterConfig,
  `--use-v2-block-manager` still parsed) and @99d7eb5d (the 0.11 line: `--guided-decoding-*` "will be removed in
  v0.12.0"). "0.7..0.7" = in the 0.7 snapshot, gone from the 0.11 one (the V0 engine's flags: block manager v2,
  multi-step scheduling, prompt adapters, tokenizer pools, the per-flag speculative decoding options that
  `--speculative-config` replaced); "0.11..0.11" = only in the 0.11 one (its first release not read). `--device` is
  left out (the newer file may declare it outside EngineArgs' fields); the API server's own flags (cli_args.py:
  --host, --port, --api-key ...) are not read, so a refusal naming one is left to the generic answer.
"""
from __future__ import annotations


CLI_FLAGS: dict[str, tuple[str, str, dict[str, str], str]] = {
    "torchrun": (
        "main", "main",
        {
            "main..main": (
                "event_log_handler help local_addr local_ranks_filter log_dir logs_specs m master_addr master_port "
                "max_restarts module monitor_interval nnodes no_python node_rank nproc_per_node numa_binding r "
                "rdzv_backend rdzv_conf rdzv_endpoint rdzv_id redirects role run_path signals_to_handle standalone "
                "start_method t tee"
            ),
        },
        "",
    ),
    "torch-launch": (
        "main", "main",
        {
            "main..main": (
                "event_log_handler help local_addr local_ranks_filter log_dir logs_specs m master_addr master_port "
                "max_restarts module monitor_interval nnodes no_python node_rank nproc_per_node numa_binding r "
                "rdzv_backend rdzv_conf rdzv_endpoint rdzv_id redirects role run_path signals_to_handle standalone "
                "start_method t tee use_env"
            ),
        },
        "",
    ),
    "vllm": (
        "0.7", "0.11",
        {
            "0.7..0.7": (
                "disable_async_output_proc disable_logprobs_during_spec_decoding enable_lora_bias "
                "enable_prompt_adapter intial_incremental_detokenization_offset long_lora_scaling_factors "
                "max_prompt_adapter_token max_prompt_adapters max_seq_len_to_capture multi_step_stream_outputs "
                "ngram_prompt_lookup_max ngram_prompt_lookup_min num_scheduler_steps num_speculative_tokens "
                "override_neuron_config preemption_mode qlora_adapter_name_or_path scheduler_delay_factor "
                "spec_decoding_acceptance_method speculative_disable_by_batch_size speculative_disable_mqa_scorer "
                "speculative_draft_tensor_parallel_size speculative_max_model_len speculative_model "
                "speculative_model_quantization tokenizer_pool_extra_config tokenizer_pool_size tokenizer_pool_type "
                "typical_acceptance_sampler_posterior_alpha typical_acceptance_sampler_posterior_threshold "
                "use_v2_block_manager "
            ),
            "0.7..0.11": (
                "disable_log_requests "
                "allowed_local_media_path block_size calculate_kv_scales code_revision collect_detailed_traces "
                "compilation_config config_format cpu_offload_gb disable_custom_all_reduce disable_log_stats "
                "disable_mm_preprocessor_cache disable_sliding_window distributed_executor_backend download_dir dtype "
                "enable_chunked_prefill enable_lora enable_prefix_caching enable_sleep_mode enforce_eager "
                "fully_sharded_loras generation_config gpu_memory_utilization guided_decoding_backend hf_overrides "
                "ignore_patterns kv_cache_dtype kv_transfer_config limit_mm_per_prompt load_format "
                "logits_processor_pattern lora_dtype lora_extra_vocab_size max_cpu_loras max_logprobs max_lora_rank "
                "max_loras max_model_len max_num_batched_tokens max_num_seqs max_parallel_loading_workers "
                "mm_processor_kwargs model model_impl model_loader_extra_config num_gpu_blocks_override "
                "num_lookahead_slots otlp_traces_endpoint override_generation_config override_pooler_config "
                "pipeline_parallel_size quantization ray_workers_use_nsight revision rope_scaling rope_theta "
                "scheduling_policy seed served_model_name skip_tokenizer_init swap_space task tensor_parallel_size "
                "tokenizer tokenizer_mode tokenizer_revision trust_remote_code worker_cls "
            ),
            "0.11..0.11": (
                "enable_log_requests "
                "additional_config aggregate_engine_logging all2all_backend allowed_media_domains async_scheduling "
                "convert cuda_graph_sizes cudagraph_capture_sizes data_parallel_address data_parallel_backend "
                "data_parallel_hybrid_lb data_parallel_rank data_parallel_rpc_port data_parallel_size "
                "data_parallel_size_local data_parallel_start_rank dbo_decode_token_threshold "
                "dbo_prefill_token_threshold decode_context_parallel_size default_mm_loras disable_cascade_attn "
                "disable_chunked_mm_input disable_hybrid_kv_cache_manager disable_nccl_for_dp_synchronization "
                "enable_dbo enable_eplb enable_expert_parallel enable_mm_embeds "
                "enable_multimodal_encoder_data_parallel enable_prompt_embeds eplb_config eplb_log_balancedness "
                "eplb_step_interval eplb_window_size expert_placement_strategy external_parameters "
                "guided_decoding_disable_additional_properties guided_decoding_disable_any_whitespace "
                "guided_decoding_disable_fallback hf_config_path hf_token interleave_mm_strings io_processor_plugin "
                "kv_cache_memory_bytes kv_events_config kv_sharing_fast_prefill logits_processors logprobs_mode "
                "long_prefill_token_threshold mamba_block_size mamba_cache_dtype mamba_ssm_cache_dtype "
                "max_cudagraph_capture_size max_long_partial_prefills max_num_partial_prefills media_io_kwargs "
                "mm_encoder_attn_backend mm_encoder_tp_mode mm_processor_cache_gb mm_processor_cache_type "
                "mm_shm_cache_max_object_size_mb num_redundant_experts override_attention_dtype pooler_config "
                "prefix_caching_hash_algo pt_load_map_location reasoning_parser runner safetensors_load_strategy "
                "scheduler_cls show_hidden_metrics_for_version skip_mm_profiling speculative_config "
                "structured_outputs_config use_tqdm_on_load video_pruning_rate worker_extension_cls "
            ),
        },
        "",
    ),
}
# what else in a log shows `vllm serve`'s parser refused the flags (argparse's prog: `vllm serve`, `api_server.py`)
VLLM_SIGN = r"\bvllm[/\\. ]|\bvLLM\b"
# a flag the newer snapshot dropped whose setting it takes under another name (vllm: arg_utils.py@001999d2 built
# SpeculativeConfig from the per-flag options; @99d7eb5d takes them as one `--speculative-config` JSON dict)
CLI_RENAMES: dict[str, dict[str, str]] = {
    "vllm": {n: "speculative_config" for n in (
        "speculative_model speculative_model_quantization speculative_draft_tensor_parallel_size num_speculative_tokens "
        "speculative_disable_mqa_scorer speculative_max_model_len speculative_disable_by_batch_size "
        "ngram_prompt_lookup_max ngram_prompt_lookup_min").split()},
}
# flags the newest snapshot read still parses but its own source says a named release removes (vllm
# arg_utils.py@99d7eb5d: `--guided-decoding-*`: "[DEPRECATED] {arg} will be removed in v0.12.0."; AsyncEngineArgs'
# `--disable-log-requests`: "replaced with `enable_log_requests`. This will be removed in v0.12.0"): refused, the
# installed release is that one or later -> (the first release without it, the new name or "")
CLI_ANNOUNCED_REMOVALS: dict[str, dict[str, tuple[str, str]]] = {
    "vllm": {
        "disable_log_requests": ("0.12", "enable_log_requests (off by default: drop the flag)"),
        "guided_decoding_backend": ("0.12", "structured_outputs_config (--structured-outputs-config.backend)"),
        "guided_decoding_disable_fallback": ("0.12", "structured_outputs_config"),
        "guided_decoding_disable_any_whitespace": ("0.12", "structured_outputs_config"),
        "guided_decoding_disable_additional_properties": ("0.12", "structured_outputs_config"),
    },
}
