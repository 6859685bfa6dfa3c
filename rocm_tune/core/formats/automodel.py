"""NeMo Automodel recipe YAML (NVIDIA-NeMo/Automodel: `automodel finetune llm -c X.yaml`, examples/llm_finetune/*):
a `recipe:` / `model:` mapping of `_target_` objects. Pure.

Keys and defaults read from the source (nemo_automodel/recipes/llm/train_ft.py TrainFinetuneRecipeForNextTokenPrediction
and the components it builds):
- model.pretrained_model_name_or_path (NeMoAutoModelForCausalLM.from_pretrained), model.torch_dtype (the weights'
  dtype; bf16 in every example), model.attn_implementation;
- step_scheduler.local_batch_size (the per-GPU micro batch; StepScheduler default 1) and global_batch_size;
- distributed.strategy fsdp2 (FSDP2Manager: every parameter sharded over dp_size, reshard after forward),
  tp_size / cp_size (default 1), sequence_parallel, activation_checkpointing (default False);
- peft: (PeftConfig: dim 8, alpha 32, match_all_linear / target_modules, wildcards as module_matcher.py reads them): LoRA;
- dataset.seq_length / packed_sequence.packed_sequence_size: the longest sequence; neither set: samples padded to the
  longest of each batch, no cap but the model's context.
"""

from __future__ import annotations

from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int

SRC = "NVIDIA-NeMo/Automodel:nemo_automodel/recipes/llm/train_ft.py"
DEFAULTS = {
    "cutoff_len": Default("model", f"{SRC} (no dataset.seq_length: padded to the longest sample, no cap)"),
    "micro_batch": Default(1, f"{SRC} (step_scheduler.local_batch_size, StepScheduler default 1)"),
    "gradient_checkpointing": Default(False, f"{SRC} (distributed.activation_checkpointing default False)"),
}


# LoRA on the routed experts (`*.mlp.experts`): Automodel's GroupedExpertsLoRA adapts each expert's gate/up and
# down projections (nemo_automodel/components/_peft/lora_moe.py)
EXPERT_LINEARS = ("gate_proj", "up_proj", "down_proj")


def _targets(patterns: list) -> str:
    """PeftConfig.target_modules as LLaMA-Factory-style module names: a plain name as is, a wildcard path
    (`*.self_attn.q_proj`; nemo_automodel/components/_peft/module_matcher.py wildcard_match, `*` any run of
    characters) by the module it ends in - the experts' container by the experts' projections."""
    names: list[str] = []
    for p in map(str, patterns):
        last = p.rstrip("*. ").rsplit(".", 1)[-1] if "*" in p else p
        for n in (EXPERT_LINEARS if last == "experts" else (last,)):
            if n and n not in names:
                names.append(n)
    return ",".join(names)


# Automodel's device mesh (nemo_automodel/components/distributed/mesh.py, parallelizer.py): FSDP2 fully_shard over
# "dp_shard_cp" (the data-parallel and context-parallel ranks), the routed experts split over ep_size ranks
# (ep_size, with its own FSDP over the rest), pp_size pipeline stages, tp_size tensor parallel - the layout
# torchtitan runs (core/runners/torchtitan.py), read through the same Megatron flags
MESH_SRC = "NVIDIA-NeMo/Automodel:nemo_automodel/components/distributed/mesh.py"
MESH_FLAGS = {"tp_size": "tensor_model_parallel_size", "pp_size": "pipeline_model_parallel_size",
              "cp_size": "context_parallel_size", "ep_size": "expert_model_parallel_size",
              "sequence_parallel": "sequence_parallel"}


def _mesh_layout(dist: dict, file: str, lines: dict[str, int]) -> dict[str, Setting]:
    """distributed.{tp,pp,cp,ep}_size under FSDP2 as the Megatron layout settings (`__fsdp__` 3, `__ep__` ...)."""
    from rocm_tune.core.runners import megatron

    flags = {"use_torch_fsdp2": ("true", lines.get("strategy", 0))}
    for native, flag in MESH_FLAGS.items():
        if dist.get(native) is not None:
            flags[flag] = (str(dist[native]), lines.get(native, 0))
    st, _ = megatron.read_flags(flags, file)
    out = {k: Setting(k, v.value, file, v.line or None, f"distributed.{next((n for n, f in MESH_FLAGS.items() if f == v.native), 'strategy')}", "yaml")
           for k, v in st.items() if k.startswith("__")}
    out["__fsdp_cp__"] = Setting("__fsdp_cp__", True, file, None, "dp_shard_cp", "default")
    return out


CHAT_SRC = "NVIDIA-NeMo/Automodel:nemo_automodel/components/datasets/llm/chat_dataset.py, formatting_utils.py"


def _caps(ds: dict, packed: dict) -> bool:
    """Whether dataset.seq_length bounds a sample: a packed size does; ChatDataset's seq_length only with truncation
    on (its default "do_not_truncate"; False / "do_not_truncate" = off; CHAT_SRC); other datasets' as read before."""
    if as_int(packed.get("packed_sequence_size")):
        return True
    if not str(ds.get("_target_") or "").endswith("ChatDataset"):
        return True
    t = ds.get("truncation", "do_not_truncate")
    return not (t is None or as_bool(t) is False or str(t).lower() == "do_not_truncate")


# no model.torch_dtype (or "auto"): NeMoAutoModelForCausalLM.from_pretrained(torch_dtype="auto") loads the
# checkpoint's config.torch_dtype, bf16 where it has none (nemo_automodel/_transformers/model_init.py:
# `getattr(hf_config, "torch_dtype", torch.bfloat16)`; from_config: "auto" -> torch.bfloat16, auto_model.py), and
# FSDP2's default MixedPrecisionPolicy computes in bf16 with fp32 gradient reduction
# (nemo_automodel/components/distributed/config.py FSDP2Config.mp_policy: param_dtype=torch.bfloat16)
DTYPE_SRC = ("NVIDIA-NeMo/Automodel:nemo_automodel/_transformers/model_init.py (torch_dtype \"auto\": the checkpoint's, "
             "else bfloat16), components/distributed/config.py (mp_policy param_dtype bfloat16)")


def _default_dtype(out: dict[str, Setting], file: str) -> None:
    """Automodel's dtype when the recipe sets none: bf16 weights and bf16 compute (DTYPE_SRC)."""
    out["load_dtype"] = Setting("load_dtype", "bf16", file, None, DTYPE_SRC, "default")
    out["bf16"] = Setting("bf16", True, file, None, DTYPE_SRC, "default")


def is_config(data) -> bool:
    """A NeMo Automodel recipe: a recipe or model `_target_` in nemo_automodel."""
    if not isinstance(data, dict):
        return False
    return any(isinstance(data.get(k), dict) and "nemo_automodel" in str(data[k].get("_target_", ""))
               for k in ("recipe", "model"))


def read(data: dict, lines: dict[str, int], file: str) -> tuple[dict[str, Setting], list[str], int | None]:
    """(settings, notes, the data-parallel size the YAML states or None)."""
    out: dict[str, Setting] = {}
    notes = [f"{file}: a NeMo Automodel recipe, read with its defaults ({SRC})"]

    def put(key, value, native, kind="yaml"):
        out[key] = Setting(key, value, file, lines.get(native.split(".")[-1]), native, kind)

    def sect(name: str) -> dict:
        v = data.get(name)
        return v if isinstance(v, dict) else {}

    model, sched, dist, ds = sect("model"), sect("step_scheduler"), sect("distributed"), sect("dataset")
    ref = model.get("pretrained_model_name_or_path") or model.get("model_name_or_path")
    if ref:
        put("model_name_or_path", str(ref), "model.pretrained_model_name_or_path")
    dt = str(model.get("torch_dtype") or "").lower().removeprefix("torch.")
    dtype = {"bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16", "fp32": "fp32",
             "float32": "fp32"}.get(dt)
    if dtype:
        put("load_dtype", dtype, "model.torch_dtype")
        if dtype in ("bf16", "fp16"):       # FSDP2's MixedPrecisionPolicy computes in the weights' dtype
            put(dtype, True, "model.torch_dtype")
    elif dt in ("", "auto"):
        _default_dtype(out, file)
    if dtype == "fp32" and str(sect("distributed").get("strategy") or "fsdp2").lower() == "fsdp2" \
            and "mp_policy" not in sect("distributed"):
        # fp32 weights as FSDP2's masters, computed in the default mp_policy's bf16 (DTYPE_SRC)
        out["bf16"] = Setting("bf16", True, file, None, DTYPE_SRC, "default")
    if model.get("attn_implementation"):
        put("flash_attn", str(model["attn_implementation"]), "model.attn_implementation")
    mb = as_int(sched.get("local_batch_size"))
    put("per_device_train_batch_size", mb or 1, "step_scheduler.local_batch_size", "yaml" if mb else "default")
    if as_int(sched.get("global_batch_size")):
        put("global_batch_size", as_int(sched["global_batch_size"]), "step_scheduler.global_batch_size")
    peft = sect("peft")
    if peft:
        put("finetuning_type", "lora", "peft")
        put("lora_rank", as_int(peft.get("dim")) or 8, "peft.dim", "yaml" if peft.get("dim") else "default")
        t = peft.get("target_modules")
        t = [t] if isinstance(t, str) else t
        put("lora_target", _targets(t) if isinstance(t, list) and t and
            as_bool(peft.get("match_all_linear")) is not True else "all", "peft.target_modules")
    else:
        put("finetuning_type", "full", "model")
    seq = as_int(ds.get("seq_length")) or as_int(sect("packed_sequence").get("packed_sequence_size"))
    if seq and not _caps(ds, sect("packed_sequence")):
        notes.append(f"dataset.seq_length {ds.get('seq_length')} with truncation {ds.get('truncation', 'unset')}: "
                     f"no cap (ChatDataset passes it to apply_chat_template as max_length, which cuts only when "
                     f"truncation is on: {CHAT_SRC}); the samples' own lengths decide")
    elif seq:
        put("cutoff_len", seq, "dataset.seq_length")
    strategy = str(dist.get("strategy") or "fsdp2").lower()
    if strategy in ("fsdp2", "fsdp"):
        put("fsdp", "full_shard auto_wrap", "distributed.strategy", "yaml" if dist.get("strategy") else "default")
        out["fsdp_config"] = Setting("fsdp_config", {"version": 2 if strategy == "fsdp2" else 1,
                                                     "sharding_strategy": "FULL_SHARD"}, file,
                                     lines.get("strategy"), "distributed.strategy", "yaml")
    if strategy in ("fsdp2", "fsdp") and ((as_int(dist.get("ep_size")) or 1) > 1 or (as_int(dist.get("pp_size")) or 1) > 1):
        out.pop("fsdp")
        out.pop("fsdp_config")
        out.update(_mesh_layout(dist, file, lines))
        notes.append("distributed: FSDP2 over the data-parallel (x context-parallel) ranks with expert / pipeline "
                     f"parallelism, read as that layout ({MESH_SRC}; core/runners/megatron.py --use-torch-fsdp2)")
    else:
        for native, short in (("tp_size", "tp"), ("cp_size", "cp")):
            if (as_int(dist.get(native)) or 1) > 1:
                put(f"__{short}__", as_int(dist[native]), f"distributed.{native}")
    ac = dist.get("activation_checkpointing")
    put("disable_gradient_checkpointing", not bool(as_bool(ac)), "distributed.activation_checkpointing",
        "yaml" if ac is not None else "default")
    out["disable_gradient_checkpointing"].invert = True
    ck = sect("checkpoint")
    if ck and as_bool(ck.get("enabled")) is False:
        put("save_strategy", "no", "checkpoint.enabled")      # no checkpoint is written
    elif ck.get("checkpoint_dir"):
        put("output_dir", str(ck["checkpoint_dir"]), "checkpoint.checkpoint_dir")
    dp = as_int(dist.get("dp_size"))
    return out, notes, dp
