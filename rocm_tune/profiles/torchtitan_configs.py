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
