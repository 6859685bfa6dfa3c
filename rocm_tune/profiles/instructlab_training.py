"""instructlab/training's ``python -m instructlab.training.main_ds`` (torchrun): what its own source fixes that its
flags do not say (issue 26). Pure data; read by core/runners/instructlab.py.

* the load dtype: main_ds.py passed `"torch_dtype": torch.bfloat16` to from_pretrained from 0ff1ba4 (2024-07) through
  v0.11.x (model.py after c9737ff, 2025-05); v0.12.0 (4934f4c, 2025-09-17, "Adding GPT OSS Support") drops it ("we
  do not specify the default dtype so mixed precision training works correctly"): fp32 weights from then on. The
  instructlab CLI (instructlab/instructlab requirements.txt: instructlab-training>=0.10.1, last release 2025-07)
  installs the bf16 releases, so bf16 is counted and the fp32 of v0.12+ is said; the Accelerator computes in bf16
  (mixed_precision="bf16") either way;
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
LOAD_DTYPE = "bf16"                     # releases up to v0.11 (above); "fp32" from v0.12.0
DS_ZERO_STAGE = 2                       # accelerator.py get_ds_plugin: "zero_optimization": {"stage": 2}
