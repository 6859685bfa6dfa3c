"""torchtitan's job config (pytorch/torchtitan torchtitan/config/job_config.py) and AMD Primus' torchtitan module
(AMD-AGI/Primus primus/configs/modules/torchtitan/pre_trainer.yaml): the defaults a TOML / an experiment YAML leaves.

- [model] name + flavor pick the model (torchtitan/models/<name>: llama3 flavors 8B / 70B / 405B are the Llama 3.1
  shapes; qwen3 0.6B .. 235B-A22B). hf_assets_path only names the tokenizer / checkpoint files.
- [training] local_batch_size 8 (per device), seq_len 2048, mixed_precision_param bfloat16 (FSDP2 keeps the sharded
  parameters fp32 and computes in bfloat16), enable_cpu_offload false.
- [parallelism] data_parallel_shard_degree -1 (the ranks left after the others: FSDP2 fully_shard of weights,
  gradients and optimizer state), data_parallel_replicate_degree 1, tensor / pipeline / context / expert 1.
- [activation_checkpoint] mode "selective" in torchtitan (selective_ac_option "2": every second layer), "none" in
  Primus' pre_trainer.yaml; "full" recomputes every layer.
"""

from __future__ import annotations

TORCHTITAN_SOURCE = "pytorch/torchtitan torchtitan/config/job_config.py"
PRIMUS_TORCHTITAN_SOURCE = "AMD-AGI/Primus primus/configs/modules/torchtitan/pre_trainer.yaml"
TRAINING_DEFAULTS: dict[str, object] = {"local_batch_size": 8, "seq_len": 2048, "mixed_precision_param": "bfloat16",
                                        "enable_cpu_offload": False}
PARALLEL_DEFAULTS: dict[str, int] = {"data_parallel_shard_degree": -1, "data_parallel_replicate_degree": 1,
                                     "tensor_parallel_degree": 1, "pipeline_parallel_degree": 1,
                                     "context_parallel_degree": 1, "expert_parallel_degree": 1}
AC_DEFAULT = {"torchtitan": "selective", "primus": "none"}
# [compile] enable: torchtitan's JobConfig Compile.enable False (torchtitan/config/job_config.py @ v0.1.0-v0.2.2);
# Primus' torchtitan pre_trainer.yaml `compile: enable: true` (since 72e8439a, 2025-07-04). components defaults to
# ["model", "loss"] in both
COMPILE_DEFAULT = {"torchtitan": False, "primus": True}
COMPILE_COMPONENTS_DEFAULT = ("model", "loss")
# torchtitan [parallelism] key -> the Megatron flag with the same split (core/runners/megatron.py)
PARALLEL_FLAGS: dict[str, str] = {"tensor_parallel_degree": "tensor_model_parallel_size",
                                  "pipeline_parallel_degree": "pipeline_model_parallel_size",
                                  "context_parallel_degree": "context_parallel_size",
                                  "expert_parallel_degree": "expert_model_parallel_size"}
# [model] name -> the preset name pattern its flavors fill ({flavor} lower case)
MODEL_NAMES: dict[str, str] = {"llama3": "llama-3.1-{flavor}", "qwen3": "qwen3-{flavor}", "llama4": "llama-4-{flavor}",
                               "gpt_oss": "gpt-oss-{flavor}", "deepseek_v3": "deepseek-v3-{flavor}"}

# Where each setting has lived across torchtitan's releases (pytorch/torchtitan torchtitan/config_manager.py, later
# torchtitan/config/job_config.py), newest first: `--training.batch_size` became `local_batch_size` (5990fa301,
# 2025-06); the degrees moved from [training] / [experimental] to [parallelism] (5078e92e4, 2025-04);
# `data_parallel_degree` split into shard + replicate (HSDP, c9b17cca0, 2024-10); pipeline and context parallel
# began in [experimental] (pipeline in [training] before 2024-05-20).
SPELLINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "local_batch_size": (("training", "local_batch_size"), ("training", "batch_size")),
    "global_batch_size": (("training", "global_batch_size"),),
    "seq_len": (("training", "seq_len"),),
    "mixed_precision_param": (("training", "mixed_precision_param"),),
    "enable_cpu_offload": (("training", "enable_cpu_offload"),),
    "data_parallel_shard_degree": (("parallelism", "data_parallel_shard_degree"),
                                   ("training", "data_parallel_shard_degree"), ("training", "data_parallel_degree")),
    "data_parallel_replicate_degree": (("parallelism", "data_parallel_replicate_degree"),
                                       ("training", "data_parallel_replicate_degree")),
    "tensor_parallel_degree": (("parallelism", "tensor_parallel_degree"), ("training", "tensor_parallel_degree")),
    "pipeline_parallel_degree": (("parallelism", "pipeline_parallel_degree"),
                                 ("experimental", "pipeline_parallel_degree"),
                                 ("training", "pipeline_parallel_degree")),
    "context_parallel_degree": (("parallelism", "context_parallel_degree"),
                                ("experimental", "context_parallel_degree")),
    "expert_parallel_degree": (("parallelism", "expert_parallel_degree"),),
    "disable_loss_parallel": (("parallelism", "disable_loss_parallel"), ("training", "disable_loss_parallel")),
    "data_parallel_type": (("training", "data_parallel_type"),),
}

# The launchers torchtitan ships: ./run_train.sh (./run_llama_train.sh before 2025-01) runs
# `torchrun --nproc_per_node=${NGPU} ... -m torchtitan.train --job.config_file ${CONFIG_FILE} "$@"` (train.py before
# 2025-02), NGPU 8 and the debug model's TOML when unset
LAUNCH_SCRIPTS = ("run_train.sh", "run_llama_train.sh")
TRAIN_MODULES = ("torchtitan.train",)
LAUNCH_DEFAULTS = {"NGPU": 8, "CONFIG_FILE": "./torchtitan/models/llama3/train_configs/debug_model.toml"}
CONFIG_FLAGS = ("--job.config_file", "--job.config-file")

# [model] name + flavor -> (preset, layers, dim) from torchtitan/models/<name>/__init__.py (v0.2.2); the preset is
# the published config.json of the same shape (tests/test_check_c_titan.py compares layers and width). Flavors
# with no preset are given as config.json keys (FLAVOR_SHAPES)
FLAVORS: dict[tuple[str, str], tuple[str, int, int]] = {
    ("llama3", "8b"): ("llama-3.1-8b", 32, 4096), ("llama3", "70b"): ("llama-3.1-70b", 80, 8192),
    ("llama3", "405b"): ("", 126, 16384), ("llama3", "debugmodel"): ("", 6, 256),
    ("deepseek_v3", "236b"): ("", 60, 5120),
    ("llama4", "17bx16e"): ("llama-4-scout-17b-16e", 48, 5120),
    ("llama4", "17bx128e"): ("llama-4-maverick-17b-128e", 48, 5120),
    ("qwen3", "0.6b"): ("qwen3-0.6b", 28, 1024), ("qwen3", "1.7b"): ("qwen3-1.7b", 28, 2048),
    ("qwen3", "4b"): ("qwen3-4b", 36, 2560), ("qwen3", "8b"): ("qwen3-8b", 36, 4096),
    ("qwen3", "14b"): ("qwen3-14b", 40, 5120), ("qwen3", "32b"): ("qwen3-32b", 64, 5120),
    ("qwen3", "30b-a3b"): ("qwen3-30b-a3b", 48, 2048), ("qwen3", "235b-a22b"): ("qwen3-235b-a22b", 94, 4096),
    ("deepseek_v3", "16b"): ("deepseek-v2-lite", 27, 2048), ("deepseek_v3", "671b"): ("deepseek-v3", 61, 7168),
    ("gpt_oss", "20b"): ("gpt-oss-20b", 24, 2880), ("gpt_oss", "120b"): ("gpt-oss-120b", 36, 2880),
}
# flavor suffixes that change only the attention kernel (torchtitan llama3 "8B_flex", "8B_varlen", llama4 "_irope")
FLAVOR_SUFFIXES = ("_flex", "_varlen", "_irope", "_flex_attn")
# llama3 "405B": TransformerModelArgs(dim=16384, n_layers=126, n_heads=128, n_kv_heads=8, ffn_dim_multiplier=1.2,
# multiple_of=4096): FeedForward hidden = 4096 * ceil(1.2 * int(2 * 4 * 16384 / 3) / 4096) = 53248; vocab 128256
FLAVOR_SHAPES: dict[tuple[str, str], dict] = {
    ("llama3", "405b"): {"model_type": "llama", "hidden_act": "silu", "tie_word_embeddings": False,
                         "num_hidden_layers": 126, "hidden_size": 16384, "num_attention_heads": 128,
                         "num_key_value_heads": 8, "intermediate_size": 53248, "vocab_size": 128256,
                         "max_position_embeddings": 131072},
    # llama3 "debugmodel" (run_train.sh's default): dim 256, 6 layers, 16 heads, vocab 2048, FeedForward hidden
    # 256 * ceil(int(2 * 4 * 256 / 3) / 256) = 768 (6.16M parameters as transformers' LlamaForCausalLM builds it)
    ("llama3", "debugmodel"): {"model_type": "llama", "hidden_act": "silu", "tie_word_embeddings": False,
                               "num_hidden_layers": 6, "hidden_size": 256, "num_attention_heads": 16,
                               "num_key_value_heads": 16, "intermediate_size": 768, "vocab_size": 2048,
                               "max_position_embeddings": 2048},
    # deepseek_v3 "236B": DeepSeek-V2's shape (160 routed + 2 shared experts, top 6 of 8 groups limited to 3, MLA
    # q_lora_rank 1536 / kv_lora_rank 512): 235.74B parameters as transformers' DeepseekV2ForCausalLM builds it
    ("deepseek_v3", "236b"): {"model_type": "deepseek_v2", "architectures": ["DeepseekV2ForCausalLM"],
                              "hidden_act": "silu", "tie_word_embeddings": False, "vocab_size": 102400,
                              "hidden_size": 5120, "intermediate_size": 12288, "moe_intermediate_size": 1536,
                              "num_hidden_layers": 60, "first_k_dense_replace": 1, "moe_layer_freq": 1,
                              "num_attention_heads": 128, "num_key_value_heads": 128, "n_routed_experts": 160,
                              "n_shared_experts": 2, "num_experts_per_tok": 6, "n_group": 8, "topk_group": 3,
                              "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                              "qk_rope_head_dim": 64, "v_head_dim": 128, "max_position_embeddings": 163840},
}
# the Megatron flag a torchtitan key is read through -> that key (its release's spelling: SPELLINGS), so a setting
# names the key the user wrote
NATIVE_KEYS: dict[str, str] = {"micro_batch_size": "local_batch_size", "seq_length": "seq_len",
                               "tensor_model_parallel_size": "tensor_parallel_degree",
                               "pipeline_model_parallel_size": "pipeline_parallel_degree",
                               "context_parallel_size": "context_parallel_degree",
                               "expert_model_parallel_size": "expert_parallel_degree",
                               "use_torch_fsdp2": "data_parallel_shard_degree", "recompute_granularity": "mode"}

# torchtitan's own train_configs (pytorch/torchtitan v0.2.2 torchtitan/models/<model>/train_configs/*.toml, the keys
# that size a run): read when a command names one by its place in the repository and the file is not given
SHIPPED_CONFIGS: dict[str, dict] = {
    "llama3/train_configs/debug_model.toml": {
        "model": {"name": "llama3", "flavor": "debugmodel"}, "training": {"local_batch_size": 8, "seq_len": 2048},
        "parallelism": {"data_parallel_shard_degree": -1},
        "activation_checkpoint": {"mode": "selective", "selective_ac_option": "2"}, "compile": {"enable": False}},
    "deepseek_v3/train_configs/deepseek_v3_16b.toml": {
        "model": {"name": "deepseek_v3", "flavor": "16B"}, "training": {"local_batch_size": 4, "seq_len": 4096},
        "parallelism": {"data_parallel_shard_degree": -1, "expert_parallel_degree": 8},
        "activation_checkpoint": {"mode": "selective", "selective_ac_option": "op"},
        "compile": {"enable": True, "components": ["loss"]}},
    "deepseek_v3/train_configs/deepseek_v3_671b.toml": {
        "model": {"name": "deepseek_v3", "flavor": "671B"}, "training": {"local_batch_size": 4, "seq_len": 4096},
        "parallelism": {"data_parallel_shard_degree": -1},
        "activation_checkpoint": {"mode": "selective", "selective_ac_option": "op"},
        "compile": {"enable": True, "components": ["loss"]}},
    "llama3/train_configs/llama3_405b.toml": {
        "model": {"name": "llama3", "flavor": "405B"}, "training": {"local_batch_size": 2, "seq_len": 8192},
        "parallelism": {"data_parallel_shard_degree": -1, "tensor_parallel_degree": 8},
        "activation_checkpoint": {"mode": "full"}, "compile": {"enable": True, "components": ["model", "loss"]}},
    "llama3/train_configs/llama3_70b.toml": {
        "model": {"name": "llama3", "flavor": "70B"}, "training": {"local_batch_size": 8, "seq_len": 8192},
        "parallelism": {"data_parallel_shard_degree": -1, "tensor_parallel_degree": 8},
        "activation_checkpoint": {"mode": "full"}, "compile": {"enable": False}},
    "llama3/train_configs/llama3_8b.toml": {
        "model": {"name": "llama3", "flavor": "8B"}, "training": {"local_batch_size": 1, "seq_len": 8192},
        "parallelism": {"data_parallel_shard_degree": -1},
        "activation_checkpoint": {"mode": "selective", "selective_ac_option": "op"}, "compile": {"enable": False}},
    "llama4/train_configs/llama4_17bx128e.toml": {
        "model": {"name": "llama4", "flavor": "17bx128e"}, "training": {"local_batch_size": 1, "seq_len": 8192},
        "parallelism": {"data_parallel_shard_degree": -1, "tensor_parallel_degree": 8, "pipeline_parallel_degree": 4},
        "activation_checkpoint": {"mode": "full"}, "compile": {"enable": False}},
    "llama4/train_configs/llama4_17bx16e.toml": {
        "model": {"name": "llama4", "flavor": "17bx16e"}, "training": {"local_batch_size": 8, "seq_len": 8192},
        "parallelism": {"data_parallel_shard_degree": -1, "tensor_parallel_degree": 8},
        "activation_checkpoint": {"mode": "full"}, "compile": {"enable": False}},
    "qwen3/train_configs/qwen3_0.6b.toml": {
        "model": {"name": "qwen3", "flavor": "0.6B"}, "training": {"local_batch_size": 4, "seq_len": 4096},
        "parallelism": {"data_parallel_shard_degree": -1},
        "activation_checkpoint": {"mode": "selective", "selective_ac_option": "op"}, "compile": {"enable": False}},
    "qwen3/train_configs/qwen3_1.7b.toml": {
        "model": {"name": "qwen3", "flavor": "1.7B"}, "training": {"local_batch_size": 4, "seq_len": 4096},
        "parallelism": {"data_parallel_shard_degree": -1},
        "activation_checkpoint": {"mode": "selective", "selective_ac_option": "op"}, "compile": {"enable": False}},
    "qwen3/train_configs/qwen3_32b.toml": {
        "model": {"name": "qwen3", "flavor": "32B"}, "training": {"local_batch_size": 2, "seq_len": 4096},
        "parallelism": {"data_parallel_shard_degree": -1},
        "activation_checkpoint": {"mode": "full"}, "compile": {"enable": False}},
}
SHIPPED_SOURCE = "pytorch/torchtitan v0.2.2 torchtitan/models/"
