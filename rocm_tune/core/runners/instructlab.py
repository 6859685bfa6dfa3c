"""instructlab/training's main_ds program from the flags of the torchrun line that starts it: the settings its own
source fixes (profiles/instructlab_training.py), each said."""

from __future__ import annotations

import re

from rocm_tune.core.runners.common import Setting, as_bool, as_int
from rocm_tune.profiles import instructlab_training as il


def is_main_ds(entry: str) -> bool:
    return bool(entry) and re.search(il.ENTRY, entry.strip()) is not None


def read_main_ds(entry: str, flags: dict[str, tuple[str, int]], out: dict[str, Setting], file: str,
                 notes: list[str]) -> dict | None:
    """main_ds's packed token budget, load dtype, forced checkpointing, flash attention and FSDP (said); the DeepSpeed
    config its get_ds_plugin writes where DeepSpeed is the backend, else None."""
    if not is_main_ds(entry):
        return None
    f = {k.replace("-", "_"): v for k, v in flags.items()}
    line = f.get("model_name_or_path", ("", None))[1]
    tokens = as_int(f["max_batch_len"][0]) if "max_batch_len" in f else None
    budget = tokens or il.MAX_BATCH_LEN
    flash = not ("disable_flash_attn" in f and as_bool(f["disable_flash_attn"][0]) is not False)
    framework = str(f.get("distributed_training_framework", (il.FRAMEWORK, line))[0]).strip("'\"").lower()
    put: dict[str, object] = {"load_dtype": il.LOAD_DTYPE, "bf16": True, "disable_gradient_checkpointing": False,
           "flash_attn": "fa2" if flash else "sdpa", "cutoff_len": budget, "per_device_train_batch_size": 1,
           "packing": True}
    ds: dict | None = None
    fsdp = ""
    offload = False
    if framework != "fsdp":
        offload = "cpu_offload_optimizer" in f and as_bool(f["cpu_offload_optimizer"][0]) is not False
        ds = {"zero_optimization": {"stage": il.DS_ZERO_STAGE,
                                    **({"offload_optimizer": {"device": "cpu"}} if offload else {})},
              "bf16": {"enabled": True}}
    else:
        strategy = str(f.get("fsdp_sharding_strategy", (il.FSDP_STRATEGY, line))[0]).strip("'\"")
        fsdp = put["fsdp"] = f"{strategy.lower()} auto_wrap"
    for k, v in put.items():
        if k not in out:
            where = f["max_batch_len"][1] if k == "cutoff_len" and tokens else line
            out[k] = Setting(k, v, file, where, "max_batch_len" if k == "cutoff_len" else "main_ds", "assumed")
    notes.append(f"instructlab main_ds: samples packed padding-free into one row of up to {budget} tokens per GPU "
                 f"(--max_batch_len{'' if tokens else ', its default'}), weights loaded in {il.LOAD_DTYPE} (releases up to "
                 f"v0.11; v0.12+ loads fp32, twice the weights, gradients and moments under FSDP) under bf16 mixed "
                 f"precision, gradient checkpointing always on, {'flash attention 2' if flash else 'SDPA'}"
                 + (f", FSDP {fsdp.split()[0].upper()}" if fsdp else
                    f", DeepSpeed ZeRO-{il.DS_ZERO_STAGE} (bf16{', optimizer offloaded to the CPU' if offload else ''})")
                 + f" ({il.SOURCE})")
    return ds
