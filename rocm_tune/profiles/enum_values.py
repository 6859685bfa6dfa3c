"""The values of the option enums of transformers, accelerate and PEFT, per release (e-skew2, issue 26): data, no logic.

Made by tools/build_enum_values.py from the libraries' source: transformers' wheels of the releases listed in each
entry (its training_args.py, trainer_utils.py, utils/generic.py, debug_utils.py, utils/quantization_config.py),
accelerate's and PEFT's every release tag and default branch ('main'). Per enum class: (library, the releases read in
order, {"FIRST..LAST": values first declared in release FIRST and last declared in release LAST of those read}).
explain uses it to tell an option value the installed release refuses but another release declares (version skew)
from one no release declares (a typo: the configuration).
"""
from __future__ import annotations

# library -> the releases read, in order
ENUM_RELEASES: dict[str, tuple[str, ...]] = {
    "transformers": (
        "4.20.1", "4.30.2", "4.36.2", "4.38.2", "4.41.2", "4.45.2", "4.46.3", "4.51.3", "4.57.1", "4.57.6",
        "5.0.0", "5.17.0", "5.18.0", "5.24.0",
    ),
    "accelerate": (
        "0.8.0", "0.9.0", "0.10.0", "0.11.0", "0.12.0", "0.13.0", "0.13.1", "0.13.2", "0.14.0", "0.15.0",
        "0.16.0", "0.17.0", "0.17.1", "0.18.0", "0.19.0", "0.20.0", "0.20.1", "0.20.2", "0.20.3", "0.21.0",
        "0.22.0", "0.23.0", "0.24.0", "0.24.1", "0.25.0", "0.26.0", "0.26.1", "0.27.0", "0.27.1", "0.27.2",
        "0.28.0", "0.29.0", "0.29.1", "0.29.2", "0.29.3", "0.30.0", "0.30.1", "0.31.0", "0.32.0", "0.32.1",
        "0.33.0", "0.34.0", "0.34.1", "0.34.2", "1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.2.0", "1.2.1", "1.3.0",
        "1.4.0", "1.5.0", "1.5.1", "1.5.2", "1.6.0", "1.7.0", "1.8.0", "1.8.1", "1.9.0", "1.10.0", "1.10.1",
        "1.11.0", "1.12.0", "1.13.0", "1.14.0", "main",
    ),
    "peft": (
        "0.0.1", "0.0.2", "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.6.1", "0.6.2", "0.7.0",
        "0.7.1", "0.8.0", "0.8.1", "0.8.2", "0.9.0", "0.10.0", "0.11.0", "0.11.1", "0.12.0", "0.13.0", "0.13.1",
        "0.13.2", "0.14.0", "0.15.0", "0.15.1", "0.15.2", "0.16.0", "0.17.0", "0.17.1", "0.18.0", "0.18.1",
        "0.19.0", "0.19.1", "0.20.0", "main",
    ),
}
# enum class -> (library, {"FIRST..LAST": values first and last declared in those releases})
ENUM_VALUES: dict[str, tuple[str, dict[str, str]]] = {
    "AWQLinearVersion": ("transformers", {
        "4.36.2..4.57.6": "gemm gemv",
        "4.41.2..4.57.6": "exllama",
        "4.46.3..4.57.6": "ipex",
    }),
    "AwqBackend": ("transformers", {
        "5.0.0..5.24.0": (
            "auto auto_trainable autoawq exllama_v1 exllama_v2 gemm gemm_triton gemv gemv_fast machete marlin "
            "torch_awq torch_fused_awq "
        ),
    }),
    "AwqBackendPackingMethod": ("transformers", {
        "4.36.2..4.57.6": "autoawq llm-awq",
    }),
    "AwqFormat": ("transformers", {
        "5.0.0..5.24.0": "gemm gemv gemv_fast llm-awq",
    }),
    "DebugOption": ("transformers", {
        "4.20.1..5.24.0": "tpu_metrics_debug underflow_overflow",
    }),
    "EvaluationStrategy": ("transformers", {
        "4.20.1..4.57.6": "epoch no steps",
    }),
    "FSDPOption": ("transformers", {
        "4.20.1..5.24.0": "auto_wrap full_shard offload shard_grad_op",
        "4.30.2..5.24.0": "no_shard",
        "4.36.2..5.24.0": "hybrid_shard hybrid_shard_zero2",
    }),
    "HPSearchBackend": ("transformers", {
        "4.20.1..4.57.6": "sigopt",
        "4.20.1..5.24.0": "optuna ray wandb",
    }),
    "HubStrategy": ("transformers", {
        "4.20.1..5.24.0": "all_checkpoints checkpoint end every_save",
    }),
    "IntervalStrategy": ("transformers", {
        "4.20.1..5.24.0": "epoch no steps",
    }),
    "OptimizerNames": ("transformers", {
        "4.20.1..4.46.3": "adamw_hf",
        "4.20.1..5.0.0": "adamw_apex_fused",
        "4.20.1..5.24.0": "adafactor adagrad adamw_bnb_8bit adamw_torch adamw_torch_xla sgd",
        "4.30.2..5.24.0": (
            "adamw_8bit adamw_anyprecision adamw_torch_fused lion_32bit lion_8bit paged_adamw_32bit "
            "paged_adamw_8bit paged_lion_32bit paged_lion_8bit "
        ),
        "4.36.2..5.24.0": "adamw_torch_npu_fused rmsprop",
        "4.38.2..5.24.0": "rmsprop_bnb rmsprop_bnb_32bit rmsprop_bnb_8bit",
        "4.41.2..5.24.0": (
            "galore_adafactor galore_adafactor_layerwise galore_adamw galore_adamw_8bit "
            "galore_adamw_8bit_layerwise galore_adamw_layerwise "
        ),
        "4.45.2..5.24.0": (
            "adalomo adamw_torch_4bit ademamix ademamix_8bit grokadamw lomo paged_ademamix_32bit "
            "paged_ademamix_8bit schedule_free_adamw schedule_free_sgd "
        ),
        "4.51.3..5.24.0": "adamw_torch_8bit apollo_adamw apollo_adamw_layerwise schedule_free_radam",
        "4.57.1..5.24.0": "stable_adamw",
    }),
    "PaddingStrategy": ("transformers", {
        "4.20.1..5.24.0": "do_not_pad longest max_length",
    }),
    "ParallelMode": ("transformers", {
        "4.20.1..5.24.0": "distributed not_distributed not_parallel sagemaker_data_parallel sagemaker_model_parallel tpu",
    }),
    "QuantizationMethod": ("transformers", {
        "4.36.2..5.24.0": "awq bitsandbytes gptq",
        "4.38.2..5.24.0": "aqlm",
        "4.41.2..5.24.0": "eetq hqq quanto",
        "4.45.2..5.24.0": "compressed-tensors fbgemm_fp8 torchao",
        "4.46.3..5.24.0": "bitnet",
        "4.51.3..5.24.0": "fp8 higgs quark spqr vptq",
        "4.57.1..5.24.0": "auto-round fp_quant mxfp4",
        "5.17.0..5.24.0": "fouroversix gemma gguf metal mxfp8 nvfp4 sinq",
    }),
    "SaveStrategy": ("transformers", {
        "4.51.3..5.24.0": "best epoch no steps",
    }),
    "SchedulerType": ("transformers", {
        "4.20.1..5.24.0": "constant constant_with_warmup cosine cosine_with_restarts linear polynomial",
        "4.30.2..5.24.0": "inverse_sqrt reduce_lr_on_plateau",
        "4.41.2..5.24.0": "cosine_with_min_lr warmup_stable_decay",
        "4.57.1..5.24.0": "cosine_warmup_with_min_lr",
        "5.17.0..5.24.0": "greedy",
    }),
    "ShardedDDPOption": ("transformers", {
        "4.20.1..4.30.2": "auto_wrap offload simple zero_dp_2 zero_dp_3",
    }),
    "TensorType": ("transformers", {
        "4.20.1..4.57.6": "jax tf",
        "4.20.1..5.24.0": "np pt",
        "4.41.2..5.24.0": "mlx",
    }),
    "ComputeEnvironment": ("accelerate", {
        "0.8.0..main": "AMAZON_SAGEMAKER LOCAL_MACHINE",
    }),
    "CustomDtype": ("accelerate", {
        "0.21.0..main": "fp8 int4",
        "0.28.0..main": "int2",
    }),
    "DDPCommunicationHookType": ("accelerate", {
        "0.32.0..main": "batched_power_sgd bf16 fp16 no power_sgd",
    }),
    "DistributedType": ("accelerate", {
        "0.8.0..0.27.2": "TPU",
        "0.8.0..main": "DEEPSPEED FSDP MULTI_CPU MULTI_GPU NO",
        "0.12.0..0.19.0": "MPS",
        "0.14.0..main": "MEGATRON_LM",
        "0.20.0..main": "MULTI_XPU",
        "0.21.0..main": "MULTI_NPU",
        "0.28.0..main": "XLA",
        "0.29.0..main": "MULTI_MLU",
        "0.33.0..main": "MULTI_MUSA",
        "1.4.0..1.9.0": "TP",
        "1.5.0..main": "MULTI_HPU MULTI_SDAA",
        "1.13.0..main": "MULTI_NEURON",
    }),
    "DynamoBackend": ("accelerate", {
        "0.15.0..0.23.0": "AOT_CUDAGRAPHS AOT_NVFUSER NVFUSER",
        "0.15.0..1.12.0": "IPEX",
        "0.15.0..main": "AOT_EAGER EAGER FX2TRT INDUCTOR NO OFI ONNXRT",
        "0.24.0..main": "AOT_TS_NVFUSER CUDAGRAPHS NVPRIMS_NVFUSER TENSORRT TVM",
        "0.32.0..main": "AOT_TORCHXLA_TRACE_ONCE TORCHXLA_TRACE_ONCE",
        "1.5.0..main": "HPU_BACKEND",
        "main..main": "NEURON",
    }),
    "FP8BackendType": ("accelerate", {
        "0.34.0..main": "MSAMP TE",
        "1.9.0..main": "AO NO",
    }),
    "LoggerType": ("accelerate", {
        "0.8.0..main": "all comet_ml tensorboard wandb",
        "0.13.0..main": "aim",
        "0.14.0..main": "mlflow",
        "0.25.0..main": "clearml dvclive",
        "1.8.0..main": "swanlab",
        "1.9.0..main": "trackio",
    }),
    "PrecisionType": ("accelerate", {
        "0.8.0..main": "bf16 fp16 no",
        "0.17.0..main": "fp8",
    }),
    "RNGType": ("accelerate", {
        "0.8.0..main": "cuda generator torch xla",
        "0.20.0..main": "xpu",
        "0.21.0..main": "npu",
        "0.29.0..main": "mlu",
        "0.33.0..main": "musa",
        "1.5.0..main": "hpu sdaa",
        "1.13.0..main": "neuron",
    }),
    "SageMakerDistributedType": ("accelerate", {
        "0.8.0..main": "DATA_PARALLEL MODEL_PARALLEL NO",
    }),
    "PeftType": ("peft", {
        "0.0.1..main": "LORA PREFIX_TUNING PROMPT_TUNING P_TUNING",
        "0.3.0..main": "ADALORA ADAPTION_PROMPT",
        "0.4.0..main": "IA3",
        "0.6.0..main": "LOHA LOKR MULTITASK_PROMPT_TUNING",
        "0.7.0..main": "OFT",
        "0.8.0..main": "POLY",
        "0.11.0..main": "BOFT LN_TUNING VERA",
        "0.12.0..main": "FOURIERFT HRA XLORA",
        "0.13.0..main": "VBLORA",
        "0.14.0..0.18.1": "BONE",
        "0.14.0..main": "CPT",
        "0.15.0..main": "TRAINABLE_TOKENS",
        "0.16.0..main": "C3A RANDLORA",
        "0.17.0..main": "MISS SHIRA",
        "0.18.0..main": "DELORA OSF ROAD WAVEFT",
        "0.19.0..main": "ADAMSS CARTRIDGE GRALORA LILY PEANUT PSOFT PVERA TINYLORA",
        "0.20.0..main": "BEFT DEFT FROD GLORA HIRA UNILORA",
        "main..main": "SUPERTUNING",
    }),
    "TaskType": ("peft", {
        "0.0.1..main": "CAUSAL_LM SEQ_2_SEQ_LM SEQ_CLS TOKEN_CLS",
        "0.4.0..main": "FEATURE_EXTRACTION QUESTION_ANS",
    }),
}
# enum -> the enum a later release checks the same option with (transformers/training_args.py: save_strategy)
ENUM_SUCCESSORS: dict[str, tuple[str, ...]] = {"IntervalStrategy": ("SaveStrategy",)}
