"""The OLMo trainer's YAML (allenai/OLMo `scripts/train.py CONFIG.yaml`, and the trainers built on it: AMD's
Instella, AMD-OLMo): the model's own dimensions and the trainer's batch, precision and FSDP keys. Pure.

Defaults and meanings from allenai/OLMo olmo/config.py (TrainConfig, ModelConfig, FSDPConfig) and olmo/model.py:
- ModelConfig: d_model 768, n_heads 12, n_kv_heads None (= n_heads), n_layers 12, mlp_ratio 4, mlp_hidden_size None
  (= mlp_ratio * d_model), max_sequence_length 1024, vocab_size 50257, embedding_size 50304 (the padded embedding
  rows), weight_tying True; activation_type swiglu halves the MLP's hidden output (OLMoBlock: ff_proj d_model ->
  hidden, SwiGLU -> hidden // 2, ff_out hidden // 2 -> d_model), so the HF intermediate size is hidden // 2.
- TrainConfig: device_train_microbatch_size 16, global_train_batch_size 512, precision None (fp32; "amp_bf16" /
  "amp_fp16": autocast over fp32 parameters), activation_checkpointing None (off; whole_layer, one_in_two, ... on),
  fsdp.sharding_strategy FULL_SHARD (FULL_SHARD, SHARD_GRAD_OP, HYBRID_SHARD, NO_SHARD).
- Instella (AMD-AIG-AIMA/Instella instella/train.py): seq_parallel_size N splits each sequence over N GPUs, so a GPU
  holds max_sequence_length / N tokens of it.
"""

from __future__ import annotations

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners.common import Setting, as_bool, as_int

SRC = "allenai/OLMo:olmo/config.py"
MODEL_DEFAULTS = {"d_model": 768, "n_heads": 12, "n_layers": 12, "mlp_ratio": 4, "max_sequence_length": 1024,
                  "vocab_size": 50257, "embedding_size": 50304, "weight_tying": True}
TRAIN_KEYS = ("device_train_microbatch_size", "global_train_batch_size", "max_duration", "fsdp", "precision")


def is_config(data) -> bool:
    """A mapping with an OLMo `model:` (d_model, n_layers) and at least one of the trainer's keys."""
    m = data.get("model") if isinstance(data, dict) else None
    return isinstance(m, dict) and "d_model" in m and "n_layers" in m and any(k in data for k in TRAIN_KEYS)


def _dim(m: dict, *keys: str) -> int:
    """The first of `keys` set in the model block as a whole number >= 1; UserError naming it otherwise (a list,
    "x", .inf, .nan, 0, -1: the trainer could not build that model either)."""
    key = next((k for k in keys if m.get(k) not in (None, 0) or k == keys[-1]), keys[-1])
    v = as_int(m.get(key))
    if v is None or not 1 <= v <= 10**9:
        raise UserError(f"OLMo config: model.{key} is {m.get(key)!r}; a whole number between 1 and 1,000,000,000 "
                        "is needed")
    return v


def hf_config(model: dict) -> dict:
    """The model's dimensions as a config.json (model_from_config reads it)."""
    m = {**MODEL_DEFAULTS, **{k: v for k, v in model.items() if v is not None}}
    d = _dim(m, "d_model")
    hidden = _dim(m, "mlp_hidden_size") if m.get("mlp_hidden_size") is not None else _dim(m, "mlp_ratio") * d
    swiglu = str(m.get("activation_type", "swiglu")).lower() == "swiglu"
    qk_norm = bool(as_bool(m.get("attention_layer_norm")))
    return {"model_type": "olmo2" if qk_norm else "llama", "hidden_size": d,
            "num_attention_heads": _dim(m, "n_heads"),
            "num_key_value_heads": _dim(m, "n_kv_heads", "n_heads"),
            "num_hidden_layers": _dim(m, "n_layers"), "intermediate_size": hidden // 2 if swiglu else hidden,
            "vocab_size": _dim(m, "embedding_size", "vocab_size"),
            "max_position_embeddings": _dim(m, "max_sequence_length"),
            "tie_word_embeddings": bool(as_bool(m["weight_tying"])), "hidden_act": "silu"}


def read(data: dict, lines: dict[str, int], file: str) -> tuple[dict[str, Setting], list[str]]:
    """An OLMo trainer YAML -> canonical settings and notes (every default said with its source)."""
    out: dict[str, Setting] = {}
    notes: list[str] = []

    def put(key, value, native, kind="yaml"):
        out[key] = Setting(key, value, file, lines.get(native.split(".")[-1]), native, kind)

    model = data.get("model") or {}
    cfg = hf_config(model)
    put("model_name_or_path", cfg, "model")
    put("finetuning_type", "full", "model")
    notes.append(f"{file}: an OLMo trainer config: the model built from its own dimensions (d_model {cfg['hidden_size']}, "
                 f"{cfg['num_hidden_layers']} layers, MLP {cfg['intermediate_size']}, vocabulary "
                 f"{cfg['vocab_size']}), every weight trained ({SRC})")
    mb = as_int(data.get("device_train_microbatch_size"))
    put("per_device_train_batch_size", mb or 16, "device_train_microbatch_size", "yaml" if mb else "default")
    if not mb:
        notes.append(f"device_train_microbatch_size not set: 16 ({SRC} TrainConfig)")
    seq = int(cfg["max_position_embeddings"])
    sp = as_int(data.get("seq_parallel_size")) or 1
    put("cutoff_len", max(1, seq // sp), "model.max_sequence_length")
    if sp > 1:
        notes.append(f"seq_parallel_size {sp}: each sequence of {seq} tokens split over {sp} GPUs, {seq // sp} per "
                     f"GPU (AMD-AIG-AIMA/Instella instella/train.py)")
    if as_bool(model.get("flash_attention")):
        put("flash_attn", "fa2", "model.flash_attention")     # OLMoSequentialBlock: flash_attn_func
    d = data["data"] if isinstance(data.get("data"), dict) else {}
    if d.get("paths") or d.get("datasets"):
        # olmo/data/memmap_dataset.py MemMapDataset: token arrays cut into instances of max_sequence_length tokens
        put("packing", True, "data.paths")
        notes.append("data.paths: OLMo's MemMapDataset cuts the token arrays into instances of exactly "
                     "max_sequence_length tokens (olmo/data/memmap_dataset.py): every sequence is full length")
    prec = str(data.get("precision") or "")
    if "bf16" in prec or "fp16" in prec:
        put("bf16" if "bf16" in prec else "fp16", True, "precision")
        put("load_dtype", "fp32", "precision")
        notes.append(f"precision {prec}: autocast over fp32 parameters ({SRC} TrainConfig.autocast_precision)")
    else:
        put("pure_fp32", True, "precision", "default")
    fsdp = data["fsdp"] if isinstance(data.get("fsdp"), dict) else {}
    strategy = str(fsdp.get("sharding_strategy") or "FULL_SHARD").upper()
    if strategy != "NO_SHARD":
        put("fsdp", f"{strategy.lower()} auto_wrap", "fsdp.sharding_strategy",
            "yaml" if fsdp.get("sharding_strategy") else "default")
    comp = data.get("compile")
    if comp is not None and comp is not False and str(comp).lower() not in ("none", "null", "false"):
        # scripts/train.py: `if cfg.compile is not None: trainer.train_batch = torch.compile(trainer.train_batch,
        # **cfg.compile.asdict())` (CompilerConfig backend default "inductor")
        put("torch_compile", True, "compile")
        backend = comp.get("backend") if isinstance(comp, dict) else None
        if backend:
            put("torch_compile_backend", str(backend), "compile.backend")
    ac = data.get("activation_checkpointing")
    on = ac not in (None, False) and str(ac).lower() not in ("none", "false", "null")
    put("disable_gradient_checkpointing", not on, "activation_checkpointing", "yaml" if ac is not None else "default")
    out["disable_gradient_checkpointing"].invert = True
    return out, notes
