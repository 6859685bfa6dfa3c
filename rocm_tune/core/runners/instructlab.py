"""instructlab/training's `python -m instructlab.training.main_ds` (torchrun), read with its own defaults (pure).

Read in instructlab/training src/instructlab/training/main_ds.py at 68b4b76 (2024-10-14), the release line of the
8 x MI300X profiles:
* the model loads with torch_dtype=torch.bfloat16 and attn_implementation="flash_attention_2" unless
  --disable_flash_attn (setup_model: base_model_args); gradient checkpointing is always on
  (model.gradient_checkpointing_enable(), or apply_gradient_checkpointing for granite, LoRA or full);
* --max_batch_len (default 60000) is the token budget of one GPU's micro-batch: the multipack sampler fills each
  rank's batch up to it (find_packing_max_batch_len_and_grad_accum(max_batch_len_per_gpu=...)), so one micro-batch
  is up to max_batch_len tokens, and there is no per-sample batch size;
* a model that is not granite (no --is_granite) gets convert_loss_to_reduce_sum's reduce_sum_forward: the original
  forward runs with the labels (transformers' own loss) and a second CrossEntropyLoss(reduction="sum") is taken on
  `logits[..., :-1, :].contiguous()` (utils.py): a shifted fp32 copy and a second fp32 log-softmax per logit;
* --distributed_training_framework deepspeed|fsdp (default deepspeed); under fsdp --fsdp_sharding_strategy
  (default SHARD_GRAD_OP); --lora_r > 0 trains LoRA (default 0: full).
"""

from __future__ import annotations

import re

from rocm_tune.core.runners.common import Setting, as_int

ENTRY = re.compile(r"(?:^|[\s/])(?:-m\s+)?instructlab[./]training[./]main_ds(?:\.py)?\b")
SOURCE = "instructlab/training:src/instructlab/training/main_ds.py (68b4b76)"
MAX_BATCH_LEN = 60000
_SHARDING = {"FULL_SHARD": "full_shard", "SHARD_GRAD_OP": "shard_grad_op", "HYBRID_SHARD": "hybrid_shard",
             "_HYBRID_SHARD_ZERO2": "hybrid_shard_zero2", "NO_SHARD": None}


def _flag(text: str, name: str) -> str | None:
    m = re.search(rf"--{name}(?:=|\s+)(['\"]?)([^\s'\"\\]+)\1", text)
    return m.group(2) if m else None


def _put(job, key: str, value, file, native: str, kind: str = "flag") -> None:
    job.settings[key] = Setting(key, value, file, None, native, kind)


def apply(job, notes: list[str]) -> None:
    """The settings main_ds runs with, where the command names it."""
    file = job.entry_file
    text = str(job.files.get(file, "")) if file else ""
    if not text or not (ENTRY.search(str(job.entry or "")) or ENTRY.search(text)):
        return
    budget = as_int(_flag(text, "max_batch_len") or "") or MAX_BATCH_LEN
    _put(job, "cutoff_len", budget, file, "max_batch_len", "flag" if _flag(text, "max_batch_len") else "derived")
    _put(job, "per_device_train_batch_size", 1, file, "max_batch_len", "derived")
    _put(job, "disable_gradient_checkpointing", False, file, "main_ds gradient_checkpointing_enable", "derived")
    _put(job, "bf16", True, file, "main_ds torch_dtype=bfloat16", "derived")
    job.settings.pop("fp16", None)
    attn = "sdpa" if re.search(r"--disable_flash_attn\b", text) else "fa2"
    _put(job, "flash_attn", attn, file, "main_ds attn_implementation", "derived")
    lora_r = as_int(_flag(text, "lora_r") or "") or 0
    if lora_r > 0:
        _put(job, "finetuning_type", "lora", file, "lora_r")
        _put(job, "lora_rank", lora_r, file, "lora_r")
    if not re.search(r"--is_granite\b", text):
        _put(job, "__second_loss__", True, file, "main_ds convert_loss_to_reduce_sum", "derived")
    framework = (_flag(text, "distributed_training_framework") or "deepspeed").lower()
    if framework == "fsdp":
        strategy = (_flag(text, "fsdp_sharding_strategy") or "SHARD_GRAD_OP").upper()
        shard = _SHARDING.get(strategy, "shard_grad_op")
        if shard:
            _put(job, "fsdp", shard, file, "distributed_training_framework")
    notes.append(f"instructlab main_ds ({SOURCE}): one GPU's micro-batch is up to --max_batch_len {budget} tokens "
                 f"(multipack), bf16 weights, {'FlashAttention-2' if attn == 'fa2' else 'sdpa'}, gradient "
                 f"checkpointing always on" + ("" if re.search(r"--is_granite\b", text) else
                 ", and its reduce-sum loss taken again over the logits the model's own loss used") + (f", FSDP {job.get('fsdp')}" if job.get("fsdp") else ""))
