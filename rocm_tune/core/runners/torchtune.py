"""torchtune (`tune run [--nproc_per_node N] RECIPE --config CFG key=value ...`): recipes, their YAML configs and
overrides -> canonical settings (pure).

What torchtune executes, read in pytorch/torchtune (recipes/*.py, v0.6):
* the model is built in ``dtype`` (``training.get_dtype(cfg.dtype)``; absent = fp32) and trained in it: weights,
  gradients and optimizer state all in that dtype, no autocast (rocm-tune's pure_bf16 regime for bf16);
* ``*_distributed`` recipes shard with FSDP2 (``fully_shard``, FULL_SHARD; ``fsdp_cpu_offload`` puts parameters,
  gradients and optimizer state in host memory); ``*_single_device`` run one process;
* ``enable_activation_checkpointing`` (default False), ``batch_size`` (per device), ``gradient_accumulation_steps``,
  ``tokenizer.max_seq_len`` (None = no truncation), ``dataset.packed`` (packs to max_seq_len);
* ``lora_*``/``qlora_*`` model builders: LoRA on ``lora_attn_modules`` (+ MLP with ``apply_lora_to_mlp``), QLoRA =
  4-bit NF4 base."""

from __future__ import annotations

import re

from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int, yaml_lines

TT = "pytorch/torchtune:recipes"
DEFAULTS = {
    "method": Default("full", "pytorch/torchtune:torchtune/models (a builder without lora_/qlora_ trains every "
                              "weight)"),
    # max_seq_len None = no truncation: the longest sample of a batch decides (batches pad to their longest, the
    # padded_collate_sft collator); the model's whole context would be far above what instruction data reaches
    "cutoff_len": Default(2048, "pytorch/torchtune:torchtune/data/_collate.py (padded_collate_sft pads to the "
                                "longest sample; tokenizer max_seq_len None = no truncation, 2048-token samples "
                                "assumed: set tokenizer.max_seq_len to bound it)"),
    "micro_batch": Default(1, f"{TT}/configs (batch_size is required; 1 assumed when a fragment omits it)"),
    "gradient_checkpointing": Default(False, f"{TT}/full_finetune_distributed.py (cfg.get("
                                             f"'enable_activation_checkpointing', False))"),
    "eval_batch": Default(1, f"{TT}/lora_finetune_single_device.py (no evaluation loop by default)"),
    "executes": Default("builtin", f"{TT}/full_finetune_distributed.py (training.get_dtype: the model in dtype, "
                                   f"no autocast)"),
}
MARKERS = ("_component_",)
# model builder -> a name the model resolver understands
_FAMILIES = (("llama3_3", "Llama-3.3"), ("llama3_2", "Llama-3.2"), ("llama3_1", "Llama-3.1"), ("llama3", "Llama-3"),
             ("llama2", "Llama-2"), ("qwen3", "Qwen3"), ("qwen2_5", "Qwen2.5"), ("qwen2", "Qwen2"),
             ("gemma2", "gemma-2"), ("gemma", "gemma"), ("mistral", "Mistral"), ("phi4", "phi-4"),
             ("phi3", "Phi-3"))
_ATTN_TO_HF = {"q_proj": "q_proj", "k_proj": "k_proj", "v_proj": "v_proj", "output_proj": "o_proj"}


def _sub(d: dict, key: str) -> dict:
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def is_torchtune_mapping(d) -> bool:
    """A torchtune config: `model:` (and usually tokenizer/optimizer/checkpointer) built from `_component_`s."""
    if not isinstance(d, dict):
        return False
    comps = [v for v in d.values() if isinstance(v, dict) and "_component_" in v]
    model = d.get("model")
    return bool(comps) and isinstance(model, dict) and "torchtune" in str(model.get("_component_", ""))


def model_name(builder: str) -> str | None:
    """`torchtune.models.llama3_1.lora_llama3_1_8b` -> `Llama-3.1-8B` (None when not recognised)."""
    last = builder.rsplit(".", 1)[-1]
    last = re.sub(r"^(q?lora_)", "", last)
    for key, name in _FAMILIES:
        m = re.match(rf"^{key}_(\d+(?:_\d+)?)b(_instruct|_it)?", last)
        if m:
            size = m.group(1).replace("_", ".")
            return f"{name}-{size}B" + ("-Instruct" if m.group(2) else "")
    return None


def recipe_facts(recipe: str) -> dict:
    """What a recipe name says: distributed (FSDP2) or one device, LoRA or full, DPO."""
    r = recipe.rsplit("/", 1)[-1].removesuffix(".py")
    return {"distributed": "distributed" in r, "lora": r.startswith(("lora", "qlora")) or "_lora" in r,
            "dpo": "dpo" in r, "recipe": r}


def read(data: dict, text: str, file: str, recipe: str | None = None) -> tuple[dict[str, Setting], list[str]]:
    """A torchtune config (its mapping; `text` for the lines) -> canonical settings, notes."""
    lines = yaml_lines(text)
    out: dict[str, Setting] = {}
    notes: list[str] = []

    def put(key, value, native):
        leaf, line = native, lines.get(native)
        if "." in native:                  # a nested key: its own line, below its parent's
            parent, leaf = native.split(".", 1)
            start = lines.get(parent) or 0
            line = next((n for n, t in enumerate(text.splitlines(), 1) if n > start
                         and t.strip().startswith(leaf + ":")), None)
        out[key] = Setting(key, value, file, line, leaf, "yaml")

    _model_settings(data, put, notes)
    tok = _sub(data, "tokenizer")
    if as_int(tok.get("max_seq_len")):
        put("cutoff_len", as_int(tok["max_seq_len"]), "tokenizer.max_seq_len")
    for src, key in (("batch_size", "per_device_train_batch_size"),
                     ("gradient_accumulation_steps", "gradient_accumulation_steps")):
        if as_int(data.get(src)):
            put(key, as_int(data[src]), src)
    if "enable_activation_checkpointing" in data:
        on = bool(as_bool(data.get("enable_activation_checkpointing")))
        out["disable_gradient_checkpointing"] = Setting("disable_gradient_checkpointing", not on, file,
                                                        lines.get("enable_activation_checkpointing"),
                                                        "enable_activation_checkpointing", "yaml", invert=True)
    dtype = str(data.get("dtype") or "fp32").lower()
    if dtype in ("bf16", "bfloat16"):
        put("pure_bf16", True, "dtype")
        notes.append("torchtune dtype bf16: weights, gradients and optimizer state in bf16, no autocast")
    elif dtype in ("fp16", "float16"):
        put("fp16", True, "dtype")
    opt = _sub(data, "optimizer")
    comp = str(opt.get("_component_", "")).lower()
    if comp:
        put("optim", "paged_adamw_8bit" if "paged" in comp and "8bit" in comp else "paged_adamw_32bit"
            if "paged" in comp else "adamw_8bit" if "8bit" in comp else "adamw_torch", "optimizer")
    if as_bool(data.get("optimizer_in_bwd")):
        put("optimizer_in_bwd", True, "optimizer_in_bwd")
        notes.append("torchtune optimizer_in_bwd: each parameter steps as its gradient is ready; the gradients of "
                     "the whole model are never held at once")
    loss = _sub(data, "loss")
    if any(w in str(loss.get("_component_", "")) for w in ("Chunked", "LinearCrossEntropy")):
        put("cut_cross_entropy", True, "loss")
    ds = _sub(data, "dataset")
    if as_bool(ds.get("packed")):
        put("packing", True, "dataset")
    facts = recipe_facts(recipe or "")
    if facts["distributed"]:
        words = "full_shard" + (" offload" if as_bool(data.get("fsdp_cpu_offload")) else "")
        put("fsdp", words, "fsdp_cpu_offload" if "fsdp_cpu_offload" in data else "model")
        put("fsdp_config", {"fsdp_version": 2, "reshard_after_forward": as_bool(data.get(
            "fsdp_reshard_after_forward", True)) is not False,
            "offload_params": bool(as_bool(data.get("fsdp_cpu_offload")))}, "model")
        notes.append(f"torchtune {facts['recipe']}: FSDP2 over the GPUs (fully_shard)"
                     + (", parameters/gradients/optimizer state in host memory (fsdp_cpu_offload)"
                        if as_bool(data.get("fsdp_cpu_offload")) else ""))
    if as_bool(data.get("compile")):
        notes.append("torchtune compile: true (torch.compile) uses less activation memory than estimated here")
    return out, notes


def _model_settings(data: dict, put, notes: list[str]) -> None:
    """The model builder (`model._component_`) -> the model, LoRA / QLoRA and their targets."""
    model = _sub(data, "model")
    builder = str(model.get("_component_", ""))
    ck = _sub(data, "checkpointer")
    ref = str(ck.get("checkpoint_dir") or "").rstrip("/")
    name = model_name(builder)
    # the builder fixes the architecture torchtune builds (the checkpoint only fills its weights)
    if name:
        put("model_name_or_path", name, "model")
        notes.append(f"torchtune model builder {builder.rsplit('.', 1)[-1]}: {name}"
                     + (f" (weights from {ref})" if ref else ""))
    elif ref:
        put("model_name_or_path", ref, "checkpointer")
    last = builder.rsplit(".", 1)[-1]
    if last.startswith(("lora_", "qlora_")):
        put("finetuning_type", "lora", "model")
        if last.startswith("qlora_"):
            put("quantization_bit", 4, "model")
        for k, key in (("lora_rank", "lora_rank"), ("lora_alpha", "lora_alpha")):
            if as_int(model.get(k)):
                put(key, as_int(model[k]), "model")
        mods = [_ATTN_TO_HF.get(str(m), str(m)) for m in (model.get("lora_attn_modules") or [])]
        if as_bool(model.get("apply_lora_to_mlp")):
            mods += ["gate_proj", "up_proj", "down_proj"]
        if mods:
            put("lora_target", ",".join(mods), "model")
    else:
        put("finetuning_type", "full", "model")


# What torchtune's built-in configs set (pytorch/torchtune recipes/configs/llama3_1/*.yaml, read at 0031bfb0 /
# 59dc1f4f): activation checkpointing, LoRA targets, batch, optimizer. A config named on `tune run --config NAME`
# without its file is read as these values (and said).
_BUILTIN: dict[str, dict] = {
    "lora": {"model": {"lora_attn_modules": ["q_proj", "v_proj"], "apply_lora_to_mlp": False, "lora_rank": 8,
                       "lora_alpha": 16},
             "batch_size": 2, "gradient_accumulation_steps": 32, "enable_activation_checkpointing": False},
    "lora_single_device": {"model": {"lora_attn_modules": ["q_proj", "v_proj", "output_proj"],
                                     "apply_lora_to_mlp": True, "lora_rank": 8, "lora_alpha": 16},
                           "batch_size": 2, "gradient_accumulation_steps": 8,
                           "enable_activation_checkpointing": True},
    "full": {"batch_size": 2, "gradient_accumulation_steps": 1, "enable_activation_checkpointing": True},
    "full_single_device": {"batch_size": 2, "gradient_accumulation_steps": 1, "optimizer_in_bwd": True,
                           "optimizer": {"_component_": "bitsandbytes.optim.PagedAdamW8bit"},
                           "enable_activation_checkpointing": True},
}
_BUILTIN["qlora_single_device"] = _BUILTIN["lora_single_device"]
_BUILTIN["qlora"] = _BUILTIN["lora"]


def config_from_name(config: str) -> dict:
    """A built-in config name (`llama3_1/8B_lora`, `qwen2_5/7B_lora_single_device`) -> its mapping as torchtune
    ships it (the values that decide memory; `_BUILTIN`)."""
    import copy

    fam, _, rest = config.partition("/")
    m = re.match(r"(\d+(?:_\d+)?)B(?:_(instruct))?_?((?:q?lora|full)(?:_single_device)?)?", rest, re.IGNORECASE)
    if not fam or m is None:
        return {}
    size = m.group(1).lower()
    kind = (m.group(3) or "full").lower()
    prefix = {"lora": "lora_", "qlora": "qlora_"}.get(kind.split("_")[0], "")
    data: dict = copy.deepcopy(_BUILTIN.get(kind, {}))
    data["model"] = {**data.get("model", {}), "_component_": f"torchtune.models.{fam}.{prefix}{fam}_{size}b"}
    data["dtype"] = "bf16"
    if int(float(size.replace("_", "."))) >= 70:
        data["enable_activation_checkpointing"] = True
        if kind == "full":
            data["fsdp_cpu_offload"] = True
    return data
