"""The public names each release of a library exports from its package (e-ver3, issue 26): data, no logic.

Made by tools/build_added_names.py from the libraries' git tags: per release, the names the package's __init__.py
imports, defines, lists in `__all__` or in a lazy `_import_structure`. Shape: library -> (the releases read in order,
{"FIRST..LAST": names first exported in release FIRST and last in release LAST}). explain uses it to name the release
that has a name a log failed to import (`cannot import name 'X' from 'lib'`, `module 'lib' has no attribute 'X'`).
"""
from __future__ import annotations


RELEASE_NAMES: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "peft": (
        (
            "v0.0.1", "v0.0.2", "v0.1.0", "v0.2.0", "v0.3.0", "v0.4.0", "v0.5.0", "v0.6.0", "v0.6.1", "v0.6.2",
            "v0.7.0", "v0.7.1", "v0.8.0", "v0.8.1", "v0.8.2", "v0.9.0", "v0.10.0", "v0.11.0", "v0.11.1", "v0.12.0",
            "v0.13.0", "v0.13.1", "v0.13.2", "v0.14.0", "v0.15.0", "v0.15.1", "v0.15.2", "v0.16.0", "v0.17.0", "v0.17.1",
            "v0.18.0", "v0.18.1", "v0.19.0", "v0.19.1", "v0.20.0",
        ),
        {
            "v0.0.1..v0.0.2": (
                "peft_model_load_and_dispatch "
            ),
            "v0.0.1..v0.20.0": (
                "LoraConfig LoraModel MODEL_TYPE_TO_PEFT_MODEL_MAPPING PEFT_TYPE_TO_CONFIG_MAPPING PeftConfig PeftModel "
                "PeftModelForCausalLM PeftModelForSeq2SeqLM PeftModelForSequenceClassification PeftModelForTokenClassification PeftType PrefixEncoder "
                "PrefixTuningConfig PromptEmbedding PromptEncoder PromptEncoderConfig PromptEncoderReparameterizationType PromptLearningConfig "
                "PromptTuningConfig PromptTuningInit TaskType bloom_model_postprocess_past_key_value get_peft_config get_peft_model "
                "get_peft_model_state_dict set_peft_model_state_dict shift_tokens_right "
            ),
            "v0.1.0..v0.20.0": (
                "TRANSFORMERS_MODELS_TO_PREFIX_TUNING_POSTPROCESS_MAPPING "
            ),
            "v0.2.0..v0.9.0": (
                "prepare_model_for_int8_training "
            ),
            "v0.3.0..v0.20.0": (
                "AdaLoraConfig AdaLoraModel AdaptionPromptConfig AdaptionPromptModel "
            ),
            "v0.4.0..v0.20.0": (
                "AutoPeftModel AutoPeftModelForCausalLM AutoPeftModelForFeatureExtraction AutoPeftModelForQuestionAnswering AutoPeftModelForSeq2SeqLM AutoPeftModelForSequenceClassification "
                "AutoPeftModelForTokenClassification IA3Config IA3Model PeftModelForFeatureExtraction PeftModelForQuestionAnswering prepare_model_for_kbit_training "
            ),
            "v0.5.0..v0.20.0": (
                "inject_adapter_in_model load_peft_weights "
            ),
            "v0.6.0..v0.20.0": (
                "LoHaConfig LoHaModel LoKrConfig LoKrModel MultitaskPromptTuningConfig MultitaskPromptTuningInit "
            ),
            "v0.7.0..v0.20.0": (
                "LoftQConfig OFTConfig OFTModel PeftMixedModel "
            ),
            "v0.8.0..v0.20.0": (
                "PolyConfig PolyModel cast_mixed_precision_params "
            ),
            "v0.10.0..v0.20.0": (
                "replace_lora_weights_loftq "
            ),
            "v0.11.0..v0.20.0": (
                "BOFTConfig BOFTModel LNTuningConfig LNTuningModel VeraConfig VeraModel "
                "get_layer_status get_model_status "
            ),
            "v0.12.0..v0.20.0": (
                "FourierFTConfig FourierFTModel HRAConfig HRAModel LoraRuntimeConfig XLoraConfig "
                "XLoraModel "
            ),
            "v0.13.0..v0.20.0": (
                "VBLoRAConfig VBLoRAModel "
            ),
            "v0.14.0..v0.18.1": (
                "BoneConfig BoneModel "
            ),
            "v0.14.0..v0.20.0": (
                "CPTConfig CPTEmbedding EvaConfig get_eva_state_dict initialize_lora_eva_weights "
            ),
            "v0.15.0..v0.20.0": (
                "PEFT_TYPE_TO_MIXED_MODEL_MAPPING PEFT_TYPE_TO_TUNER_MAPPING TrainableTokensConfig TrainableTokensModel "
            ),
            "v0.16.0..v0.20.0": (
                "C3AConfig C3AModel RandLoraConfig RandLoraModel "
            ),
            "v0.17.0..v0.20.0": (
                "MissConfig MissModel ShiraConfig ShiraModel "
            ),
            "v0.18.0..v0.20.0": (
                "ArrowConfig DeloraConfig DeloraModel OSFConfig OSFModel PeftWarning "
                "RoadConfig RoadModel WaveFTConfig WaveFTModel create_arrow_model "
            ),
            "v0.19.0..v0.20.0": (
                "AdamssConfig AdamssModel BdLoraConfig CartridgeConfig CartridgeEncoder GraloraConfig "
                "GraloraModel LilyConfig LilyModel LoraGAConfig PeanutConfig PeanutModel "
                "PsoftConfig PsoftModel PveraConfig PveraModel TinyLoraConfig TinyLoraModel "
                "compose_cartridge_adapters convert_to_lora initialize_kv_prefix_from_past_key_values initialize_kv_prefix_from_text preprocess_loraga prompt_embeddings_from_past_key_values "
                "save_as_lora "
            ),
            "v0.20.0..v0.20.0": (
                "BeftConfig BeftModel DeftConfig DeftModel FrodConfig FrodModel "
                "GloraConfig GloraModel HiraConfig HiraModel MontecloraConfig UniLoraConfig "
                "UniLoraModel VeloraConfig find_kappa_target_modules get_base_model_state_dict set_base_model_state_dict "
            ),
        },
    ),
    "trl": (
        (
            "v0.2.0", "v0.2.1", "v0.3.0", "v0.3.1", "v0.4.0", "v0.4.1", "v0.4.2", "v0.4.3", "v0.4.4", "v0.4.5",
            "v0.4.6", "v0.4.7", "v0.5.0", "v0.6.0", "v0.7.0", "v0.7.1", "v0.7.2", "v0.7.3", "v0.7.4", "v0.7.5",
            "v0.7.6", "v0.7.7", "v0.7.8", "v0.7.9", "v0.7.10", "v0.7.11", "v0.8.0", "v0.8.1", "v0.8.2", "v0.8.3",
            "v0.8.4", "v0.8.5", "v0.8.6", "v0.9.3", "v0.9.4", "v0.9.6", "v0.10.1", "v0.11.0", "v0.11.1", "v0.11.2",
            "v0.11.3", "v0.11.4", "v0.12.0", "v0.12.1", "v0.12.2", "v0.13.0", "v0.14.0", "v0.15.0", "v0.15.1", "v0.15.2",
            "v0.16.0", "v0.16.1", "v0.17.0", "v0.18.0", "v0.18.1", "v0.18.2", "v0.19.0", "v0.19.1", "v0.20.0", "v0.21.0",
            "v0.22.0", "v0.22.1", "v0.22.2", "v0.23.0", "v0.23.1", "v0.24.0", "v0.25.0", "v0.25.1", "v0.26.0", "v0.26.1",
            "v0.26.2", "v0.27.0", "v0.27.1", "v0.27.2", "v0.28.0", "v0.29.0", "v0.29.1", "v1.0.0", "v1.1.0", "v1.2.0",
            "v1.3.0", "v1.4.0", "v1.5.0", "v1.5.1", "v1.6.0", "v1.7.0", "v1.7.1", "v1.8.0", "v1.9.0",
        ),
        {
            "v0.2.0..v0.28.0": (
                "AutoModelForCausalLMWithValueHead AutoModelForSeq2SeqLMWithValueHead PPOConfig PPOTrainer PreTrainedModelWrapper "
            ),
            "v0.2.0..v1.9.0": (
                "create_reference_model "
            ),
            "v0.3.0..v0.13.0": (
                "set_seed "
            ),
            "v0.4.0..v0.10.1": (
                "is_peft_available "
            ),
            "v0.4.2..v1.9.0": (
                "RewardTrainer SFTTrainer "
            ),
            "v0.4.5..v0.19.1": (
                "DataCollatorForCompletionOnlyLM "
            ),
            "v0.4.5..v0.24.0": (
                "BestOfNSampler "
            ),
            "v0.5.0..v1.9.0": (
                "DPOTrainer "
            ),
            "v0.6.0..v0.23.1": (
                "DDPOConfig DDPOPipelineOutput DDPOSchedulerOutput DDPOStableDiffusionPipeline DDPOTrainer DefaultDDPOStableDiffusionPipeline "
                "is_diffusers_available "
            ),
            "v0.7.0..v0.20.0": (
                "TextEnvironment TextHistory "
            ),
            "v0.7.2..v0.10.1": (
                "is_wandb_available "
            ),
            "v0.7.2..v1.9.0": (
                "RewardConfig "
            ),
            "v0.7.3..v0.10.1": (
                "is_xpu_available "
            ),
            "v0.7.3..v0.23.1": (
                "IterativeSFTTrainer "
            ),
            "v0.7.5..v0.10.1": (
                "is_npu_available "
            ),
            "v0.7.9..v0.10.1": (
                "is_bitsandbytes_available "
            ),
            "v0.7.10..v0.25.1": (
                "setup_chat_format "
            ),
            "v0.7.11..v1.7.1": (
                "get_kbit_device_map "
            ),
            "v0.7.11..v1.9.0": (
                "ModelConfig get_peft_config get_quantization_config "
            ),
            "v0.8.0..v0.8.2": (
                "DpoArgumentParser SftArgumentParser "
            ),
            "v0.8.0..v0.8.6": (
                "DpoScriptArguments SftScriptArguments "
            ),
            "v0.8.0..v0.11.4": (
                "MultitaskPromptEmbedding MultitaskPromptTuningConfig MultitaskPromptTuningInit "
            ),
            "v0.8.0..v0.23.1": (
                "OptionalDependencyNotAvailable "
            ),
            "v0.8.0..v0.26.2": (
                "SUPPORTED_ARCHITECTURES "
            ),
            "v0.8.0..v1.9.0": (
                "KTOConfig KTOTrainer RichProgressCallback TYPE_CHECKING TrlParser init_zero_verbose "
            ),
            "v0.8.2..v0.10.1": (
                "is_pil_available "
            ),
            "v0.8.2..v0.28.0": (
                "CPOConfig CPOTrainer ORPOConfig ORPOTrainer "
            ),
            "v0.9.3..v0.12.2": (
                "DPOScriptArguments SFTScriptArguments "
            ),
            "v0.9.3..v1.9.0": (
                "DPOConfig SFTConfig "
            ),
            "v0.9.6..v0.23.1": (
                "AlignPropConfig AlignPropTrainer "
            ),
            "v0.9.6..v0.28.0": (
                "FDivergenceConstants FDivergenceType "
            ),
            "v0.10.1..v0.10.1": (
                "is_openai_available "
            ),
            "v0.10.1..v0.11.4": (
                "is_llmblender_available "
            ),
            "v0.10.1..v0.12.2": (
                "RandomPairwiseJudge RandomRankJudge "
            ),
            "v0.10.1..v0.28.0": (
                "BCOConfig BCOTrainer BaseJudge BasePairwiseJudge BaseRankJudge HfPairwiseJudge "
                "OnlineDPOConfig OnlineDPOTrainer OpenAIPairwiseJudge PairRMJudge WinRateCallback "
            ),
            "v0.10.1..v1.9.0": (
                "SyncRefModelCallback "
            ),
            "v0.11.0..v0.11.4": (
                "is_liger_kernel_available "
            ),
            "v0.11.0..v0.12.2": (
                "PPOv2Config PPOv2Trainer "
            ),
            "v0.11.0..v0.28.0": (
                "GKDConfig GKDTrainer NashMDConfig NashMDTrainer XPOConfig XPOTrainer "
            ),
            "v0.11.0..v1.9.0": (
                "LogCompletionsCallback RLOOConfig RLOOTrainer apply_chat_template extract_prompt is_conversational "
                "maybe_apply_chat_template maybe_extract_prompt maybe_unpair_preference_dataset unpair_preference_dataset "
            ),
            "v0.12.0..v0.16.1": (
                "is_deepspeed_available is_llm_blender_available "
            ),
            "v0.12.0..v1.9.0": (
                "ScriptArguments "
            ),
            "v0.13.0..v0.26.2": (
                "MergeModelCallback "
            ),
            "v0.13.0..v0.28.0": (
                "AllTrueJudge BaseBinaryJudge PRMConfig PRMTrainer "
            ),
            "v0.14.0..v0.16.1": (
                "is_mergekit_available is_rich_available is_unsloth_available "
            ),
            "v0.14.0..v0.26.2": (
                "is_vllm_available "
            ),
            "v0.14.0..v1.9.0": (
                "GRPOConfig GRPOTrainer "
            ),
            "v0.15.0..v0.15.0": (
                "compute_token_accuracy "
            ),
            "v0.15.0..v0.19.1": (
                "pack_examples "
            ),
            "v0.15.1..v1.9.0": (
                "maybe_convert_to_chatml "
            ),
            "v0.16.0..v0.29.1": (
                "truncate_dataset "
            ),
            "v0.16.0..v1.9.0": (
                "pack_dataset "
            ),
            "v0.18.0..v0.23.1": (
                "IterativeSFTConfig "
            ),
            "v0.19.0..v1.9.0": (
                "clone_chat_template "
            ),
            "v0.22.0..v0.23.1": (
                "Path "
            ),
            "v0.22.0..v1.9.0": (
                "BEMACallback DatasetMixtureConfig get_dataset is_conversational_from_value prepare_multimodal_messages "
            ),
            "v0.22.1..v1.9.0": (
                "PackageNotFoundError version "
            ),
            "v0.24.0..v1.9.0": (
                "WeaveCallback "
            ),
            "v0.25.0..v1.9.0": (
                "prepare_multimodal_messages_vllm "
            ),
            "v0.26.0..v0.26.2": (
                "tqdm "
            ),
            "v0.27.0..v1.9.0": (
                "add_response_schema get_training_chat_template "
            ),
            "v1.1.0..v1.9.0": (
                "supports_tool_calling "
            ),
        },
    ),
    "accelerate": (
        (
            "v0.1.0", "v0.2.0", "v0.2.1", "v0.3.0", "v0.4.0", "v0.5.0", "v0.5.1", "v0.6.0", "v0.6.1", "v0.6.2",
            "v0.7.0", "v0.7.1", "v0.8.0", "v0.9.0", "v0.10.0", "v0.11.0", "v0.12.0", "v0.13.0", "v0.13.1", "v0.13.2",
            "v0.14.0", "v0.15.0", "v0.16.0", "v0.17.0", "v0.17.1", "v0.18.0", "v0.19.0", "v0.20.0", "v0.20.1", "v0.20.2",
            "v0.20.3", "v0.21.0", "v0.22.0", "v0.23.0", "v0.24.0", "v0.24.1", "v0.25.0", "v0.26.0", "v0.26.1", "v0.27.0",
            "v0.27.1", "v0.27.2", "v0.28.0", "v0.29.0", "v0.29.1", "v0.29.2", "v0.29.3", "v0.30.0", "v0.30.1", "v0.31.0",
            "v0.32.0", "v0.32.1", "v0.33.0", "v0.34.0", "v0.34.1", "v0.34.2", "v1.0.0", "v1.0.1", "v1.1.0", "v1.1.1",
            "v1.2.0", "v1.2.1", "v1.3.0", "v1.4.0", "v1.5.0", "v1.5.1", "v1.5.2", "v1.6.0", "v1.7.0", "v1.8.0",
            "v1.8.1", "v1.9.0", "v1.10.0", "v1.10.1", "v1.11.0", "v1.12.0", "v1.13.0", "v1.14.0",
        ),
        {
            "v0.1.0..v1.14.0": (
                "Accelerator DistributedType synchronize_rng_states "
            ),
            "v0.2.0..v1.14.0": (
                "DistributedDataParallelKwargs GradScalerKwargs "
            ),
            "v0.3.0..v1.14.0": (
                "notebook_launcher "
            ),
            "v0.4.0..v1.14.0": (
                "DeepSpeedPlugin "
            ),
            "v0.6.0..v1.14.0": (
                "InitProcessGroupKwargs debug_launcher "
            ),
            "v0.8.0..v1.14.0": (
                "FullyShardedDataParallelPlugin cpu_offload disk_offload dispatch_model find_executable_batch_size infer_auto_device_map "
                "init_empty_weights load_checkpoint_and_dispatch load_checkpoint_in_model "
            ),
            "v0.13.0..v1.14.0": (
                "is_rich_available rich "
            ),
            "v0.16.0..v1.14.0": (
                "init_on_device skip_first_batches "
            ),
            "v0.17.0..v1.14.0": (
                "PartialState cpu_offload_with_hook "
            ),
            "v0.22.0..v1.14.0": (
                "AutocastKwargs "
            ),
            "v0.27.0..v1.14.0": (
                "prepare_pippy "
            ),
            "v0.28.0..v1.14.0": (
                "DataLoaderConfiguration "
            ),
            "v0.32.0..v1.14.0": (
                "DDPCommunicationHookType ProfileKwargs "
            ),
            "v1.10.0..v1.14.0": (
                "ParallelismConfig "
            ),
        },
    ),
    "deepspeed": (
        (
            "v0.1.0", "v0.2.0", "v0.3.0", "v0.3.1", "v0.3.2", "v0.3.3", "v0.3.4", "v0.3.5", "v0.3.6", "v0.3.7",
            "v0.3.8", "v0.3.9", "v0.3.10", "v0.3.11", "v0.3.12", "v0.3.13", "v0.3.14", "v0.3.15", "v0.3.16", "v0.4.0",
            "v0.4.1", "v0.4.2", "v0.4.3", "v0.4.4", "v0.4.5", "v0.5.0", "v0.5.1", "v0.5.2", "v0.5.3", "v0.5.4",
            "v0.5.5", "v0.5.6", "v0.5.7", "v0.5.8", "v0.5.9", "v0.5.10", "v0.6.0", "v0.6.1", "v0.6.2", "v0.6.3",
            "v0.6.4", "v0.6.5", "v0.6.6", "v0.6.7", "v0.7.0", "v0.7.1", "v0.7.2", "v0.7.3", "v0.7.4", "v0.7.5",
            "v0.7.6", "v0.7.7", "v0.8.0", "v0.8.1", "v0.8.2", "v0.8.3", "v0.9.0", "v0.9.1", "v0.9.2", "v0.9.3",
            "v0.9.4", "v0.9.5", "v0.10.0", "v0.10.1", "v0.10.2", "v0.10.3", "v0.11.0", "v0.11.1", "v0.11.2", "v0.12.0",
            "v0.12.1", "v0.12.2", "v0.12.3", "v0.12.4", "v0.12.5", "v0.12.6", "v0.13.0", "v0.13.1", "v0.13.2", "v0.13.3",
            "v0.13.4", "v0.13.5", "v0.14.0", "v0.14.1", "v0.14.2", "v0.14.3", "v0.14.4", "v0.14.5", "v0.15.0", "v0.15.1",
            "v0.15.2", "v0.15.3", "v0.15.4", "v0.16.0", "v0.16.1", "v0.16.2", "v0.16.3", "v0.16.4", "v0.16.5", "v0.16.6",
            "v0.16.7", "v0.16.8", "v0.16.9", "v0.17.0", "v0.17.1", "v0.17.2", "v0.17.3", "v0.17.4", "v0.17.5", "v0.17.6",
            "v0.18.0", "v0.18.1", "v0.18.2", "v0.18.3", "v0.18.4", "v0.18.5", "v0.18.6", "v0.18.7", "v0.18.8", "v0.18.9",
            "v0.19.0", "v0.19.1", "v0.19.2", "v0.19.3", "v0.19.4", "v0.19.5",
        ),
        {
            "v0.1.0..v0.2.0": (
                "DeepSpeedLight "
            ),
            "v0.1.0..v0.19.5": (
                "ADAM_OPTIMIZER LAMB_OPTIMIZER add_config_arguments add_tuning_arguments git_branch git_hash "
                "initialize "
            ),
            "v0.2.0..v0.19.5": (
                "DeepSpeedConfig DeepSpeedTransformerConfig DeepSpeedTransformerLayer logger "
            ),
            "v0.3.0..v0.3.0": (
                "DEEPSPEED_ADAM "
            ),
            "v0.3.0..v0.19.5": (
                "DeepSpeedEngine PipelineEngine PipelineModule checkpointing log_dist ops "
                "version "
            ),
            "v0.3.9..v0.19.5": (
                "init_distributed "
            ),
            "v0.3.11..v0.19.5": (
                "DeepSpeedConfigError "
            ),
            "v0.3.12..v0.19.5": (
                "zero "
            ),
            "v0.4.0..v0.19.5": (
                "InferenceEngine init_inference module_inject pkg_version replace_transformer_layer revert_transformer_layer "
            ),
            "v0.5.1..v0.19.5": (
                "DeepSpeedOptimizerCallable DeepSpeedSchedulerCallable Optimizer Optional Union "
            ),
            "v0.6.5..v0.14.0": (
                "ZeROOptimizer "
            ),
            "v0.6.5..v0.19.5": (
                "DeepSpeedOptimizer "
            ),
            "v0.6.7..v0.19.5": (
                "OnDevice "
            ),
            "v0.7.6..v0.19.5": (
                "DeepSpeedInferenceConfig default_inference_config "
            ),
            "v0.9.0..v0.19.5": (
                "DeepSpeedHybridEngine "
            ),
            "v0.9.1..v0.19.5": (
                "dist get_accelerator "
            ),
            "v0.13.2..v0.19.5": (
                "is_compile_supported "
            ),
            "v0.14.1..v0.19.5": (
                "TORCH_DISTRIBUTED_DEFAULT_PORT "
            ),
            "v0.16.0..v0.19.5": (
                "domino "
            ),
            "v0.16.4..v0.18.5": (
                "TpTrainingManager "
            ),
            "v0.16.4..v0.19.5": (
                "set_autotp_mode tp_model_init "
            ),
            "v0.17.6..v0.19.5": (
                "MUON_OPTIMIZER set_optimizer_flags "
            ),
            "v0.18.6..v0.19.5": (
                "load_ds_config merge_tp_model_init_into_config record_tp_model_init_args "
            ),
            "v0.19.3..v0.19.5": (
                "Any Callable DeepSpeedDataLoader Dict Tuple "
            ),
        },
    ),
    "bitsandbytes": (
        (
            "0.32.0", "0.32.1", "0.33.0", "0.34.0", "0.35.0", "0.36.0", "0.37.0", "0.38.0", "0.39.1", "0.40.0",
            "0.41.0", "0.42.0", "0.43.0", "0.43.1", "0.43.2", "0.43.3", "0.44.0", "0.44.1", "0.45.0", "0.45.1",
            "0.45.2", "0.45.3", "0.45.4", "0.45.5", "0.46.0", "0.46.1", "0.47.0", "0.48.0", "0.48.1", "0.48.2",
            "0.49.0", "0.49.1", "0.49.2", "0.50.0", "0.50.1",
        ),
        {
            "0.32.0..0.43.0": (
                "COMPILED_WITH_CUDA cuda_setup "
            ),
            "0.32.0..0.45.5": (
                "bmm_cublas matmul_cublas mm_cublas "
            ),
            "0.32.0..0.50.1": (
                "MatmulLtState adam matmul modules "
            ),
            "0.33.0..0.50.1": (
                "utils "
            ),
            "0.39.1..0.49.2": (
                "research "
            ),
            "0.39.1..0.50.1": (
                "matmul_4bit "
            ),
            "0.46.0..0.50.1": (
                "cpu_ops cuda_ops default_ops entry_points "
            ),
            "0.48.0..0.50.1": (
                "hpu_ops xpu_ops "
            ),
            "0.50.0..0.50.1": (
                "mps_ops "
            ),
        },
    ),
    "datasets": (
        (
            "1.0.0", "1.0.1", "1.0.2", "1.1.0", "1.1.1", "1.1.2", "1.1.3", "1.2.0", "1.2.1", "1.3.0",
            "1.4.0", "1.4.1", "1.5.0", "1.6.0", "1.6.1", "1.6.2", "1.7.0", "1.8.0", "1.9.0", "1.10.0",
            "1.10.1", "1.10.2", "1.11.0", "1.12.0", "1.12.1", "1.13.0", "1.13.1", "1.13.2", "1.13.3", "1.14.0",
            "1.15.0", "1.15.1", "1.16.0", "1.16.1", "1.17.0", "1.18.0", "1.18.1", "1.18.2", "1.18.3", "1.18.4",
            "2.0.0", "2.1.0", "2.2.0", "2.2.1", "2.2.2", "2.3.0", "2.3.1", "2.3.2", "2.4.0", "2.5.0",
            "2.5.1", "2.5.2", "2.6.0", "2.6.1", "2.6.2", "2.7.0", "2.7.1", "2.8.0", "2.9.0", "2.10.0",
            "2.10.1", "2.11.0", "2.12.0", "2.13.0", "2.13.1", "2.13.2", "2.14.0", "2.14.1", "2.14.2", "2.14.3",
            "2.14.4", "2.14.5", "2.14.6", "2.14.7", "2.15.0", "2.16.0", "2.16.1", "2.17.0", "2.17.1", "2.18.0",
            "2.19.0", "2.19.1", "2.19.2", "2.20.0", "2.21.0", "3.0.0", "3.0.1", "3.0.2", "3.1.0", "3.2.0",
            "3.3.0", "3.3.1", "3.3.2", "3.4.0", "3.4.1", "3.5.0", "3.5.1", "3.6.0", "4.0.0", "4.1.0",
            "4.1.1", "4.2.0", "4.3.0", "4.4.0", "4.4.1", "4.4.2", "4.5.0", "4.6.0", "4.6.1", "4.7.0",
            "4.8.0", "4.8.1", "4.8.2", "4.8.3", "4.8.4", "4.8.5", "5.0.0", "5.0.1",
        ),
        {
            "1.0.0..1.1.2": (
                "datasets "
            ),
            "1.0.0..1.9.0": (
                "disable_progress_bar "
            ),
            "1.0.0..1.18.4": (
                "Array2D Array3D Array4D Array5D ArrowReader ArrowWriter "
                "ClassLabel Features Sequence Translation TranslationVariableLanguages Value "
                "import_main_class prepare_module total_allocated_bytes "
            ),
            "1.0.0..2.21.0": (
                "BeamBasedBuilder Metric MetricInfo inspect_dataset inspect_metric list_datasets "
                "list_metrics load_metric "
            ),
            "1.0.0..5.0.1": (
                "ArrowBasedBuilder BuilderConfig Dataset DatasetBuilder DatasetDict DatasetInfo "
                "GeneratorBasedBuilder NamedSplit ReadInstruction Split SplitBase SplitDict "
                "SplitGenerator SplitInfo SubSplitInfo concatenate_datasets load_dataset load_from_disk "
                "percent "
            ),
            "1.2.0..5.0.1": (
                "get_dataset_config_names get_dataset_infos "
            ),
            "1.3.0..2.21.0": (
                "set_caching_enabled "
            ),
            "1.3.0..5.0.1": (
                "is_caching_enabled "
            ),
            "1.7.0..1.18.4": (
                "KeyHasher "
            ),
            "1.9.0..5.0.1": (
                "IterableDataset IterableDatasetDict NamedSplitAll interleave_datasets load_dataset_builder "
            ),
            "1.13.0..1.18.4": (
                "Audio "
            ),
            "1.13.0..5.0.1": (
                "get_dataset_split_names "
            ),
            "1.17.0..1.18.4": (
                "Image "
            ),
            "2.0.0..2.13.2": (
                "version "
            ),
            "2.0.0..5.0.1": (
                "disable_caching enable_caching get_dataset_config_info logging "
            ),
            "2.16.0..5.0.1": (
                "get_dataset_default_config_name "
            ),
            "2.20.0..2.21.0": (
                "ExpectedMoreDownloadedFiles ExpectedMoreSplits UnexpectedDownloadedFile UnexpectedSplits "
            ),
            "4.0.0..5.0.1": (
                "Column IterableColumn "
            ),
        },
    ),
}
