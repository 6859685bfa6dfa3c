"""instructlab/training's ``python -m instructlab.training.main_ds`` (torchrun): what its own source fixes that its
flags do not say (issue 26). Pure data; read by core/runners/instructlab.py.

* model.py Model.__init__: from_pretrained without torch_dtype ("we do not specify the default dtype so mixed
  precision training works correctly"; only GPT-OSS is loaded in bfloat16): fp32 weights, the Accelerator's
  mixed_precision="bf16" computes in bf16;
* model.py _enable_gradient_checkpointing_if_supported: gradient checkpointing is always turned on;
* main_ds.py: flash_attention_2 unless --disable_flash_attn; the data loader packs samples, padding-free, into
  micro-batches of up to --max_batch_len tokens per GPU (default 60000): one packed row of that many tokens;
* --distributed_training_framework fsdp (accelerator.py get_fsdp_config: transformer auto-wrap,
  limit_all_gathers=True) with --fsdp_sharding_strategy (default HYBRID_SHARD: sharded inside a node), or deepspeed
  (get_ds_plugin: ZeRO stage 2, the main_ds default).
"""

from __future__ import annotations

ENTRY = r"(?:^|[\s/.])instructlab[./]training[./]main_ds(?:\.py)?$"
SOURCE = "instructlab/training src/instructlab/training/main_ds.py, model.py, accelerator.py"
MAX_BATCH_LEN = 60000                   # main_ds.py: parser.add_argument("--max_batch_len", type=int, default=60000)
FSDP_STRATEGY = "HYBRID_SHARD"          # main_ds.py --fsdp_sharding_strategy default
FRAMEWORK = "deepspeed"                 # main_ds.py --distributed_training_framework default
DS_ZERO_STAGE = 2                       # accelerator.py get_ds_plugin: "zero_optimization": {"stage": 2}
