"""torchtune (`tune run [--nproc_per_node N] RECIPE --config CFG key=value ...`): recipes, their YAML configs and
overrides -> canonical settings (pure).

What torchtune executes, read in pytorch/torchtune (recipes/*.py, v0.6):
* the model is built in ``dtype`` (``training.get_dtype(cfg.dtype)``; absent = fp32) and trained in it: weights,
  gradients and optimizer state all in that dtype, no autocast (rocm-tune's pure_bf16 regime for bf16);
* ``*_distributed`` recipes shard with FSDP2 (``fully_shard``, FULL_SHARD; ``fsdp_cpu_offload`` puts parameters,
  gradients and optimizer state in host memory); ``*_single_device`` run one process;
* ``enable_activation_checkpointing`` (default False), ``batch_size`` (per device), ``gradient_accumulation_steps``,
  ``tokenizer.max_seq_len`` (None = no truncation; before v0.3 ``dataset.max_seq_len``), ``dataset.packed`` (packs
  to max_seq_len);
* ``lora_*``/``qlora_*`` model builders: LoRA on ``lora_attn_modules`` (+ MLP with ``apply_lora_to_mlp``), QLoRA =
  4-bit NF4 base."""

from __future__ import annotations

import re

from rocm_tune.core.runners import values
from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int, named_data, yaml_lines
from rocm_tune.profiles.value_forms import FALLBACK

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
# the setting that says the loss is torchtune's CEWithChunkedOutputLoss, its value the number of chunks
CHUNKED_CE_KEY = "__tt_chunked_ce__"
# the numbers read below: one written as a template the file does not fill is said (values.unread), not dropped silently
UNREAD_KEYS = ("batch_size", "gradient_accumulation_steps", "tokenizer.max_seq_len", "dataset.max_seq_len",
               "model.lora_rank", "model.lora_alpha")
# model builder -> a name the model resolver understands
_FAMILIES = (("llama3_3", "Llama-3.3"), ("llama3_2", "Llama-3.2"), ("llama3_1", "Llama-3.1"), ("llama3", "Llama-3"),
             ("llama2", "Llama-2"), ("qwen3", "Qwen3"), ("qwen2_5", "Qwen2.5"), ("qwen2", "Qwen2"),
             ("gemma2", "gemma-2"), ("gemma", "gemma"), ("mistral", "Mistral"), ("phi4", "phi-4"),
             ("phi3", "Phi-3"), ("smollm2", "SmolLM2"))
_ATTN_TO_HF = {"q_proj": "q_proj", "k_proj": "k_proj", "v_proj": "v_proj", "output_proj": "o_proj"}


def _sub(d: dict, key: str) -> dict:
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def is_torchtune_mapping(d) -> bool:
    """A torchtune config: `model:` (and usually tokenizer/optimizer/checkpointer) built from `_component_`s."""
    if not isinstance(d, dict):
        return False
    comps = [v for v in d.values() if isinstance(v, dict) and "_component_" in v]
    model = d.get("model") or d.get("policy_model")     # ppo_full_finetune_*: policy_model + reward_and_value_model
    if not comps or not isinstance(model, dict):
        return False
    comp = str(model.get("_component_", ""))
    # a fork of torchtune (MiroTrain's `mirotrain.models.qwen3.qwen3_32b`) keeps its own copy of a torchtune model
    # builder (same name, same shape) beside torchtune's own components (checkpointer, datasets, optimizer)
    fork = ".models." in comp and model_name(comp) is not None and any(
        "torchtune." in str(v.get("_component_", "")) for v in comps if v is not model)
    return "torchtune" in comp or fork


def model_name(builder: str) -> str | None:
    """`torchtune.models.llama3_1.lora_llama3_1_8b` -> `Llama-3.1-8B` (None when not recognised)."""
    last = builder.rsplit(".", 1)[-1]
    last = re.sub(r"^(q?lora_)", "", last)
    for key, name in _FAMILIES:
        m = re.match(rf"^{key}_(\d+(?:_\d+)?)b(_instruct|_it)?", last)
        if m:
            size = m.group(1).replace("_", ".")
            return f"{name}-{size}B" + ("-Instruct" if m.group(2) else "")
        # a size said as a word or in millions (torchtune/models/phi3/_model_builders.py phi3_mini,
        # models/smollm2/_model_builders.py smollm2_135m / smollm2_360m)
        m = re.match(rf"^{key}_(mini|small|medium|\d+m)$", last)
        if m:
            return f"{name}-{m.group(1).upper() if m.group(1)[0].isdigit() else m.group(1)}"
    return None


def recipe_facts(recipe: str) -> dict:
    """What a recipe name says: distributed (FSDP2) or one device, LoRA or full, DPO."""
    r = recipe.rsplit("/", 1)[-1].removesuffix(".py")
    return {"distributed": "distributed" in r, "lora": r.startswith(("lora", "qlora")) or "_lora" in r,
            "dpo": "dpo" in r, "recipe": r}


def _optimizer_and_loss(data: dict, put, notes: list[str]) -> None:
    """The recipe's optimizer (its component; optimizer_in_bwd) and loss (chunked / linear cross-entropy)."""
    opt = _sub(data, "optimizer")
    comp = str(opt.get("_component_", ""))
    if comp:
        put("optim", _optim_name(comp), "optimizer")
    if as_bool(data.get("optimizer_in_bwd")):
        put("optimizer_in_bwd", True, "optimizer_in_bwd")
        notes.append("torchtune optimizer_in_bwd: each parameter steps as its gradient is ready; the gradients of "
                     "the whole model are never held at once")
    loss = _sub(data, "loss")
    if any(w in str(loss.get("_component_", "")) for w in ("Chunked", "LinearCrossEntropy")):
        put("cut_cross_entropy", True, "loss")
    if "CEWithChunkedOutputLoss" in str(loss.get("_component_", "")):
        # its chunks (num_output_chunks, default 8): core/runners/config.py counts what its loss holds per logit
        put(CHUNKED_CE_KEY, as_int(loss.get("num_output_chunks")) or 8, "loss")


def read(data: dict, text: str, file: str, recipe: str | None = None) -> tuple[dict[str, Setting], list[str]]:
    """A torchtune config (its mapping; `text` for the lines) -> canonical settings, notes."""
    lines = yaml_lines(text)
    out: dict[str, Setting] = {}
    notes: list[str] = []
    data = values.omegaconf_resolve(data, notes)      # OmegaConf interpolations of the file's own keys
    for native in UNREAD_KEYS:
        node = _sub(data, native.split(".")[0]) if "." in native else data
        written = node.get(native.split(".")[-1])
        note = values.unread_note(native, written, FALLBACK) if isinstance(written, str) else None
        if note:
            notes.append(note)

    def put(key, value, native):
        leaf, line = native, lines.get(native)
        if "." in native:                  # a nested key: its own line, below its parent's
            parent, leaf = native.split(".", 1)
            start = lines.get(parent) or 0
            line = next((n for n, t in enumerate(text.splitlines(), 1) if n > start
                         and t.strip().startswith(leaf + ":")), None)
        out[key] = Setting(key, value, file, line, leaf, "yaml")

    _model_settings(data, put, notes)
    _sequence_length(data, put, notes, out, file)
    for src, key in (("batch_size", "per_device_train_batch_size"),
                     ("gradient_accumulation_steps", "gradient_accumulation_steps")):
        if as_int(data.get(src)):
            put(key, as_int(data[src]), src)
    if "enable_activation_checkpointing" in data:
        on = bool(as_bool(data.get("enable_activation_checkpointing")))
        out["disable_gradient_checkpointing"] = Setting("disable_gradient_checkpointing", not on, file,
                                                        lines.get("enable_activation_checkpointing"),
                                                        "enable_activation_checkpointing", "yaml", invert=True)
    if as_bool(data.get("enable_activation_offloading")):
        # torchtune OffloadActivations: the saved activations go to host memory between forward and backward
        put("activation_offloading", True, "enable_activation_offloading")
    dtype = str(data.get("dtype") or "fp32").lower()
    if dtype in ("bf16", "bfloat16"):
        put("pure_bf16", True, "dtype")
        notes.append("torchtune dtype bf16: weights, gradients and optimizer state in bf16, no autocast")
    elif dtype in ("fp16", "float16"):
        put("fp16", True, "dtype")
    elif "dtype" in data:              # dtype fp32 stated: no mixed precision (not an assumption)
        put("bf16", False, "dtype")
    _optimizer_and_loss(data, put, notes)
    ds = _sub(data, "dataset")
    if as_bool(ds.get("packed")):
        put("packing", True, "dataset")
    # the data it names: each entry's `source` (a hub id; the builder's default without one), a list of entries
    # is torchtune's ConcatDataset (issue 26: the batch pads to its longest sample, check bounds it by the data's)
    entries = data["dataset"] if isinstance(data.get("dataset"), list) else [ds]
    names = [e.get("source") or e.get("_component_") for e in entries if isinstance(e, dict)]
    if names and all(names):
        out.update(named_data(names, file, lines.get("dataset"), "dataset"))
    facts = recipe_facts(recipe or "")
    if facts["distributed"]:
        words = "full_shard" + (" offload" if as_bool(data.get("fsdp_cpu_offload")) else "")
        put("fsdp", words, "fsdp_cpu_offload" if "fsdp_cpu_offload" in data else "model")
        put("fsdp_config", {"fsdp_version": 2, "reshard_after_forward": as_bool(data.get(
            "fsdp_reshard_after_forward", True)) is not False,
            "offload_params": bool(as_bool(data.get("fsdp_cpu_offload"))),
            # custom_sharded_layers (recipes' _setup_model -> training.get_shard_conditions(names_to_match=...)):
            # `output` sharded as its own unit, its gradient reduce-scattered as soon as its backward ends
            "head_own_unit": "output" in (data.get("custom_sharded_layers") or ())}, "model")
        notes.append(f"torchtune {facts['recipe']}: FSDP2 over the GPUs (fully_shard)"
                     + (", parameters/gradients/optimizer state in host memory (fsdp_cpu_offload)"
                        if as_bool(data.get("fsdp_cpu_offload")) else ""))
    if as_bool(data.get("compile")):
        # training.compile_model: every layer's torch.compile (backend TORCH_COMPILE_BACKEND, default inductor):
        # counted by core/runners/config.py _compiled
        put("compile", True, "compile")
    return out, notes


# torchtune <= 0.2 truncates in the dataset builders, with their own defaults when the config sets none
# (pytorch/torchtune v0.1.0..v0.2.1: torchtune/datasets/_alpaca.py alpaca_dataset(max_seq_len: int = 512),
# alpaca_cleaned_dataset = partial(alpaca_dataset, source="yahma/alpaca-cleaned"); _slimorca.py slimorca_dataset and
# _stack_exchanged_paired.py stack_exchanged_paired_dataset(max_seq_len: int = 1024)); v0.3.0 moved the cut to
# tokenizer.max_seq_len (None = none) and these builders lost the argument
V02_BUILDER_LEN = {"alpaca_dataset": 512, "alpaca_cleaned_dataset": 512, "slimorca_dataset": 1024,
                   "stack_exchanged_paired_dataset": 1024}


def is_v02(data: dict) -> bool:
    """A config written for torchtune <= 0.2: its checkpointer is `torchtune.utils.<X>Checkpointer` (v0.3.0 moved
    the checkpointers to torchtune.training; torchtune/utils/__init__.py of v0.3.0 exports none, so such a config
    runs only on <= 0.2)."""
    comp = str(_sub(data, "checkpointer").get("_component_", ""))
    return comp.startswith("torchtune.utils.") and comp.endswith("Checkpointer")


def _sequence_length(data: dict, put, notes: list[str], out: dict, file: str) -> None:
    """The sequence length: tokenizer.max_seq_len (>= 0.3), dataset.max_seq_len (<= 0.2), or a <= 0.2 dataset
    builder's own default (a default: no line of the file says it, so a fix adds the key rather than rewriting one)."""
    tok, ds = _sub(data, "tokenizer"), _sub(data, "dataset")
    if as_int(tok.get("max_seq_len")):
        put("cutoff_len", as_int(tok["max_seq_len"]), "tokenizer.max_seq_len")
    elif as_int(ds.get("max_seq_len")):
        # torchtune <= 0.2: the dataset builders truncate (alpaca_dataset(..., max_seq_len=512) hands it to
        # InstructDataset, pytorch/torchtune torchtune/datasets/_alpaca.py); 0.3 moved it to the tokenizer
        put("cutoff_len", as_int(ds["max_seq_len"]), "dataset.max_seq_len")
    elif is_v02(data):
        builder = str(ds.get("_component_", "")).rsplit(".", 1)[-1]
        if builder in V02_BUILDER_LEN:
            out["cutoff_len"] = Setting("cutoff_len", V02_BUILDER_LEN[builder], file, None, "dataset.max_seq_len",
                                        "default")
            notes.append(f"torchtune <= 0.2 (checkpointer under torchtune.utils): {builder} truncates at its own "
                         f"default max_seq_len {V02_BUILDER_LEN[builder]} (torchtune/datasets of v0.1-v0.2)")


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
        if last.startswith("qlora_") or as_bool(model.get("quantize_base")):
            put("quantization_bit", 4, "model")
        if as_bool(model.get("use_dora")):
            put("use_dora", True, "model")
        for k, key in (("lora_rank", "lora_rank"), ("lora_alpha", "lora_alpha")):
            if as_int(model.get(k)):
                put(key, as_int(model[k]), "model")
        mods = [_ATTN_TO_HF.get(str(m), str(m)) for m in (model.get("lora_attn_modules") or [])]
        if as_bool(model.get("apply_lora_to_mlp")):
            mods += ["gate_proj", "up_proj", "down_proj"]
        if sorted(mods) == sorted([*_ATTN_TO_HF.values(), "gate_proj", "up_proj", "down_proj"]) \
                and not as_bool(model.get("apply_lora_to_output")):
            put("lora_target", "all", "model")      # every linear layer of the decoder: LLaMA-Factory's `all`
        elif mods:
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
# every shipped LLM config (llama3*, qwen2*, gemma2, mistral ...) since torchtune 0.3 computes the loss in chunks:
# `loss: _component_: torchtune.modules.loss.CEWithChunkedOutputLoss` (recipes/configs/llama3_1/8B_lora_single_device.yaml)
for _kind in list(_BUILTIN):
    _BUILTIN[_kind] = {**_BUILTIN[_kind], "loss": {"_component_": "torchtune.modules.loss.CEWithChunkedOutputLoss"}}


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


# ------------------------------------------------------------------------------------------------ the writer
# `rocm-tune export --format torchtune`: a plan -> torchtune.yaml (a recipe config) + tune_run.sh. Every value below
# was read in pytorch/torchtune v0.6.1 (the release on PyPI): recipes/{full,lora}_finetune_{single_device,
# distributed}.py, recipes/configs/*/*.yaml, torchtune/models/*/_model_builders.py, torchtune/training/
# checkpointing/_utils.py (ModelType). What torchtune cannot run is refused in one line (UserError), never written.
CONFIG_FILE = "torchtune.yaml"
SCRIPT_FILE = "tune_run.sh"
VERSION = "0.6.1"
# family key -> (the HF model_type its builders build, model name prefix in a hub id / preset name, sizes with a
# builder (b = base/instruct variants), tokenizer builder and its files in the checkpoint folder, checkpointer
# model_type)
_HF_TOKENIZER = ("path", "vocab.json", "merges_file", "merges.txt")
_BUILDERS: dict[str, dict] = {
    "qwen2_5": {"hf": "qwen2", "name": r"qwen2\.5-", "sizes": ("0_5", "1_5b", "3", "7b", "14b", "32b", "72b"),
                "tokenizer": ("torchtune.models.qwen2_5.qwen2_5_tokenizer", *_HF_TOKENIZER), "type": "QWEN2"},
    "qwen2": {"hf": "qwen2", "name": r"qwen2-", "sizes": ("0_5", "1_5", "7"),
              "tokenizer": ("torchtune.models.qwen2.qwen2_tokenizer", *_HF_TOKENIZER), "type": "QWEN2"},
    "llama3_3": {"hf": "llama", "name": r"llama-3\.3-", "sizes": ("70",), "type": "LLAMA3",
                 "tokenizer": ("torchtune.models.llama3.llama3_tokenizer", "path", "original/tokenizer.model")},
    "llama3_2": {"hf": "llama", "name": r"llama-3\.2-", "sizes": ("1", "3"), "type": "LLAMA3_2",
                 "tokenizer": ("torchtune.models.llama3.llama3_tokenizer", "path", "original/tokenizer.model")},
    "llama3_1": {"hf": "llama", "name": r"llama-3\.1-", "sizes": ("8", "70", "405"), "type": "LLAMA3",
                 "tokenizer": ("torchtune.models.llama3.llama3_tokenizer", "path", "original/tokenizer.model")},
    "llama3": {"hf": "llama", "name": r"(?:meta-)?llama-3-", "sizes": ("8", "70"), "type": "LLAMA3",
               "tokenizer": ("torchtune.models.llama3.llama3_tokenizer", "path", "original/tokenizer.model")},
    "llama2": {"hf": "llama", "name": r"llama-2-", "sizes": ("7", "13", "70"), "type": "LLAMA2",
               "tokenizer": ("torchtune.models.llama2.llama2_tokenizer", "path", "tokenizer.model")},
    "gemma2": {"hf": "gemma2", "name": r"gemma-2-", "sizes": ("2", "9", "27"), "type": "GEMMA2",
               "tokenizer": ("torchtune.models.gemma.gemma_tokenizer", "path", "tokenizer.model")},
    # after gemma2: gemma-2-9b is gemma2, gemma-2b/gemma-7b are gemma
    "gemma": {"hf": "gemma", "name": r"gemma-", "sizes": ("2", "7"), "type": "GEMMA",
              "tokenizer": ("torchtune.models.gemma.gemma_tokenizer", "path", "tokenizer.model")},
    # mistral_7b is v0.1/v0.2 (vocab 32000); v0.3 (32768) has no builder: the vocabulary check below refuses it
    "mistral": {"hf": "mistral", "name": r"mistral-", "sizes": ("7",), "type": "MISTRAL", "vocab": 32000,
                "tokenizer": ("torchtune.models.mistral.mistral_tokenizer", "path", "tokenizer.model")},
}
# plan optimizer -> torchtune `optimizer._component_` (+ its arguments); read back by `_optim_name`
OPTIMIZERS = {"adamw": ("torch.optim.AdamW", {}), "adamw_8bit": ("bitsandbytes.optim.AdamW8bit", {}),
              "paged_adamw": ("bitsandbytes.optim.PagedAdamW", {}),
              "paged_adamw_8bit": ("bitsandbytes.optim.PagedAdamW8bit", {}),
              "sgd": ("torch.optim.SGD", {}), "sgd_momentum": ("torch.optim.SGD", {"momentum": 0.9}),
              "adafactor": ("torch.optim.Adafactor", {})}
_HF_TO_ATTN = {v: k for k, v in _ATTN_TO_HF.items()}
_MLP = ("gate_proj", "up_proj", "down_proj")


def _optim_name(component: str) -> str:
    """`optimizer._component_` -> the HF `optim` name the canonical settings use."""
    c = component.lower()
    if "paged" in c:
        return "paged_adamw_8bit" if "8bit" in c else "paged_adamw_32bit"
    if "8bit" in c:
        return "adamw_8bit"
    return "sgd" if c.endswith(".sgd") else "adafactor" if c.endswith("adafactor") else "adamw_torch"


def refuse(what: str, why: str):
    from rocm_tune.core.errors import UserError

    raise UserError(f"--format torchtune: {what}: {why}")


def builder(model_id: str, spec, local_dir: str | None) -> tuple[str, dict, dict]:
    """(model builder, its architecture arguments (component builders only), family facts) for a model: the
    sized builder torchtune ships for its name (hub id or folder name), else, for a local Qwen2 folder, the
    component builder with the shape of its config.json."""
    text = model_id.rstrip("/").rsplit("/", 1)[-1].lower()
    why = f"torchtune {VERSION} has no model builder for it (families: {', '.join(_BUILDERS)})"
    for fam, facts in _BUILDERS.items():
        m = re.match(facts["name"] + r"(\d+(?:\.\d+)?)b(?:-|$)", text)     # the size right after the family name
        if m is None:
            continue
        size = m.group(1).replace(".", "_")
        sized = [s for s in facts["sizes"] if s.rstrip("b") == size]
        if spec is not None and spec.family != facts["hf"]:      # Qwen2-VL, Mistral's Mixtral...: another shape
            why = f"model type {spec.family}: torchtune's {fam} builders are {facts['hf']} models"
            break
        if sized and ("vocab" not in facts or spec is None or spec.vocab_size == facts["vocab"]):
            tuned = re.search(r"-(instruct|chat|it)(?:-|$)", text) is not None
            suffix = ("_instruct" if tuned else "_base") if sized[0].endswith("b") else ""
            return f"torchtune.models.{fam}.{fam}_{size}b{suffix}", {}, facts
        why = (f"vocabulary {getattr(spec, 'vocab_size', '?')}, torchtune's {fam} builder has {facts.get('vocab')}"
               if sized else f"torchtune {VERSION} builds {fam} in sizes "
               f"{', '.join(s.rstrip('b').replace('_', '.') + 'B' for s in facts['sizes'])}")
        break
    if local_dir and spec is not None and spec.family == "qwen2":
        return "torchtune.models.qwen2.{lora}qwen2", _arch_args(spec), _BUILDERS["qwen2"]
    refuse(f"model {model_id}", why + " (a local Qwen2 folder of any size is built from its config.json)")
    raise AssertionError("unreachable")


def _arch_args(spec) -> dict:
    """torchtune.models.qwen2.qwen2's arguments from the model's config.json."""
    c = spec.config
    return {"vocab_size": spec.vocab_size, "num_layers": spec.num_layers, "num_heads": spec.num_attention_heads,
            "num_kv_heads": spec.num_kv_heads, "embed_dim": spec.hidden_size,
            "intermediate_dim": spec.intermediate_size, "max_seq_len": spec.max_position_embeddings,
            # transformers 5 writes rope_theta inside rope_parameters
            "norm_eps": float(c.get("rms_norm_eps", 1e-6)),
            "rope_base": float(c.get("rope_theta") or (c.get("rope_parameters") or {}).get("rope_theta") or 1e6),
            "tie_word_embeddings": bool(spec.tie_word_embeddings)}


def _lora_args(r) -> dict:
    """lora_attn_modules / apply_lora_to_mlp from the plan's targets (all = every linear layer of the decoder)."""
    targets = [t.strip() for t in r.lora_targets]
    if targets in (["all"], ["all-linear"]):
        attn, mlp = list(_ATTN_TO_HF), True
    else:
        bad = [t for t in targets if t not in _HF_TO_ATTN and t not in _MLP]
        if bad:
            refuse(f"lora_targets {','.join(targets)}", f"torchtune puts LoRA on q_proj/k_proj/v_proj/o_proj "
                    f"and the whole MLP only, not {', '.join(bad)}")
        mlp_given = [t for t in targets if t in _MLP]
        if mlp_given and len(set(mlp_given)) != len(_MLP):
            refuse(f"lora_targets {','.join(targets)}", "torchtune's apply_lora_to_mlp puts LoRA on "
                    "gate_proj, up_proj and down_proj together")
        attn, mlp = [_HF_TO_ATTN[t] for t in targets if t in _HF_TO_ATTN], bool(mlp_given)
    out: dict = {"lora_attn_modules": attn, "apply_lora_to_mlp": mlp, "apply_lora_to_output": False,
                 "lora_rank": r.lora_rank, "lora_alpha": r.lora_alpha, "lora_dropout": 0.0}
    if r.dora:
        out["use_dora"] = True
    if r.method == "qlora":
        out["quantize_base"] = True
    return out


def _check_expressible(r, opts) -> None:
    """Refuse, naming the value, what torchtune's recipes cannot run."""
    if r.stage != "sft":
        refuse(f"stage {r.stage}", "the torchtune format writes the SFT recipes ({full,lora}_finetune_*)")
    if r.method == "freeze":
        refuse("method freeze", "torchtune trains every weight (full) or LoRA adapters, no last-N-layers freeze")
    if r.precision in ("bf16", "fp16"):
        refuse(f"precision {r.precision}", "torchtune has no mixed precision (autocast): its recipes train in one "
                "dtype (and refuse fp16); plan with --precision pure_bf16 (dtype bf16) or fp32")
    if r.method == "qlora" and (r.quant_bits != 4 or r.double_quant is False):
        refuse(f"quant_bits {r.quant_bits}" + (", double_quant false" if r.double_quant is False else ""),
                "torchtune's QLoRA is torchao NF4 (4-bit, its scales quantized too)")
    if r.zero_stage and r.world_size == 1:
        refuse(f"zero_stage {r.zero_stage} on one GPU", "torchtune has no DeepSpeed ZeRO; plan with --zero 0")
    if r.world_size > 1 and r.zero_stage != 3:
        refuse(f"zero_stage {r.zero_stage} on {r.world_size} GPUs", "torchtune's distributed recipes shard "
                "parameters, gradients and optimizer state with FSDP2 (ZeRO-3's layout), no DDP or ZeRO-1/2; plan "
                "with --zero 3")
    if r.offload == "optimizer" or (r.offload == "all" and r.world_size == 1):
        refuse(f"offload {r.offload}" + (" on one GPU" if r.world_size == 1 else ""),
                "torchtune offloads only under FSDP2 (fsdp_cpu_offload: parameters, gradients and optimizer state "
                "together)")
    if float(r.epochs) != int(r.epochs) or r.epochs < 1:
        refuse(f"epochs {r.epochs:g}", "torchtune trains whole epochs")
    if opts.lr_scheduler_type != "cosine":
        refuse(f"lr scheduler {opts.lr_scheduler_type}", "torchtune's recipes take its own "
                "get_cosine_schedule_with_warmup only")


def recipe(r) -> str:
    """The recipe `tune run` starts: LoRA or full, one device or FSDP2 over the GPUs."""
    kind = "lora" if r.method in ("lora", "qlora") else "full"
    return f"{kind}_finetune_{'distributed' if r.world_size > 1 else 'single_device'}"


def _checkpoint(model_ref: str, spec, out_model: str) -> tuple[str, list[str], str | None]:
    """(checkpoint_dir, checkpoint_files, hub id to download) for FullModelHFCheckpointer: a local folder as it
    is (its *.safetensors, else pytorch_model*.bin), else `out_model` that tune_run.sh fills by `tune download`."""
    import glob
    import os

    local = os.path.expanduser(model_ref)
    if os.path.isdir(local):
        d = os.path.abspath(local)
        files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "*.safetensors")))
        files = files or sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "pytorch_model*.bin")))
        if not files:
            refuse(f"model folder {d}", "has no *.safetensors or pytorch_model*.bin for torchtune's HF checkpointer")
        return d, files, None
    hub = model_ref if "/" in model_ref else (getattr(spec, "hub_id", None) or model_ref)
    return out_model, ["model.safetensors"], hub


def _dataset(entry: dict | None, notes: list[str]) -> dict:
    """torchtune's dataset for LLaMA-Factory's dataset_info entry of a local file (alpaca columns ->
    alpaca_dataset's column_map; sharegpt -> chat_dataset); none: torchtune's alpaca_cleaned_dataset."""
    if entry is None:
        notes.append("torchtune.yaml: no dataset file given, torchtune's alpaca_cleaned_dataset (yahma/alpaca-cleaned "
                     "from the hub); pass --dataset FILE for your own")
        return {"_component_": "torchtune.datasets.alpaca_cleaned_dataset", "packed": False}
    path = str(entry.get("file_name") or "")
    source = "json" if path.endswith((".json", ".jsonl")) else "parquet" if path.endswith(".parquet") else \
        "csv" if path.endswith(".csv") else None
    if source is None or entry.get("ranking"):
        refuse(f"dataset {path}", "torchtune's SFT datasets read json, jsonl, parquet or csv files of "
                "instructions or conversations (no preference pairs)")
    cols = entry.get("columns") or {}
    base = {"source": source, "data_files": path, "split": "train", "packed": False}
    if entry.get("formatting") == "sharegpt":
        style = "openai" if (entry.get("tags") or {}).get("role_tag") == "role" else "sharegpt"
        return {"_component_": "torchtune.datasets.chat_dataset", **base,
                "conversation_column": cols.get("messages", "conversations"), "conversation_style": style}
    notes.append("torchtune's alpaca_dataset wraps each sample in the Alpaca prompt (\"Below is an instruction "
                 "that describes a task...\", some 40 tokens LLaMA-Factory's template does not add): "
                 "tokenizer.max_seq_len cuts the longest samples that much sooner")
    return {"_component_": "torchtune.datasets.alpaca_dataset", **base, "train_on_input": False,
            "column_map": {"instruction": cols.get("prompt", "instruction"), "input": cols.get("query", "input"),
                           "output": cols.get("response", "output")}}


def config(r, opts, spec, dataset_entry: dict | None, notes: list[str]) -> dict:
    """The torchtune recipe config of a resolved plan (`rocm_tune.core.export.common.Resolved`)."""
    _check_expressible(r, opts)
    import os

    base = opts.bundle_dir or "."           # absolute once write_bundle knows the folder (any working directory)
    ckpt_dir, files, hub = _checkpoint(r.model_ref, spec, os.path.join(base, "model"))
    name, arch, facts = builder(hub or ckpt_dir, spec, None if hub else ckpt_dir)
    lora = r.method in ("lora", "qlora")
    last = name.rsplit(".", 1)
    comp = name.format(lora="lora_" if lora else "") if "{lora}" in name else \
        f"{last[0]}.lora_{last[1]}" if lora else name
    model: dict = {"_component_": comp, **(_lora_args(r) if lora else {}), **arch}
    tok_comp, *tok_files = facts["tokenizer"]
    tokenizer: dict = {"_component_": tok_comp}
    for key, fname in zip(tok_files[::2], tok_files[1::2]):
        tokenizer[key] = f"{ckpt_dir}/{fname}"
    if tok_files[1] == "vocab.json":        # a Hugging Face BPE tokenizer: its special tokens from tokenizer.json
        tokenizer["special_tokens_path"] = f"{ckpt_dir}/tokenizer.json"
    if hub is None:
        missing = [f for f in [*tok_files[1::2], *(["tokenizer.json"] if "special_tokens_path" in tokenizer else [])]
                   if not os.path.isfile(os.path.join(ckpt_dir, f))]
        if missing:
            refuse(f"model folder {ckpt_dir}", f"has no {', '.join(missing)} (what torchtune's "
                   f"{tok_comp.rsplit('.', 1)[-1]} reads)")
    tokenizer["max_seq_len"] = r.cutoff_len
    optim_comp, optim_args = OPTIMIZERS[_plan_optim(r)]
    if r.attn == "disabled":          # the plan's eager attention (LLaMA-Factory's flash_attn: disabled)
        notes.append("torchtune has no eager attention: it runs SDPA (less activation memory than planned)")
    cfg: dict = {
        "output_dir": os.path.join(base, opts.output_dir) if opts.bundle_dir else opts.output_dir,
        "model": model, "tokenizer": tokenizer,
        "checkpointer": {"_component_": "torchtune.training.FullModelHFCheckpointer", "checkpoint_dir": ckpt_dir,
                         "checkpoint_files": files, "recipe_checkpoint": None, "output_dir": "${output_dir}",
                         "model_type": facts["type"]},
        "resume_from_checkpoint": bool(opts.resume),
        "dataset": _dataset(dataset_entry, notes), "seed": opts.seed, "shuffle": True,
        "epochs": int(r.epochs), "max_steps_per_epoch": None,
        "batch_size": r.micro_batch, "gradient_accumulation_steps": r.grad_accum,
        "optimizer": {"_component_": optim_comp, "lr": r.learning_rate, **optim_args},
        "lr_scheduler": {"_component_": "torchtune.training.lr_schedulers.get_cosine_schedule_with_warmup",
                         "num_warmup_steps": 100},
        # plain cross-entropy: the chunked one (CEWithChunkedOutputLoss) holds less than the plan estimated
        "loss": {"_component_": "torch.nn.CrossEntropyLoss", "ignore_index": -100},
        "clip_grad_norm": opts.max_grad_norm,
        "device": "cuda",                   # torch's name for ROCm GPUs too
        "dtype": "bf16" if r.precision == "pure_bf16" else "fp32",
        "enable_activation_checkpointing": bool(r.gradient_checkpointing),
        "enable_activation_offloading": False,
        "compile": False,
        "metric_logger": {"_component_": "torchtune.training.metric_logging.DiskLogger",
                          "log_dir": "${output_dir}/logs"},
        "log_every_n_steps": opts.logging_steps, "log_peak_memory_stats": True,
        "profiler": {"_component_": "torchtune.training.setup_torch_profiler", "enabled": False},
    }
    if recipe(r) == "full_finetune_single_device":
        cfg["optimizer_in_bwd"] = False     # required by the recipe (cfg.optimizer_in_bwd)
    if r.world_size > 1:
        cfg["fsdp_cpu_offload"] = r.offload == "all"
        # the embedding and the output projection as FSDP units of their own, as torchtune's large-model configs
        # do (the recipes' custom_sharded_layers): the output's gradient is reduce-scattered after its own backward
        # instead of living through the whole backward in the root unit
        cfg["custom_sharded_layers"] = ["tok_embeddings", "output"]
        cfg["fsdp_reshard_after_forward"] = True
    if lora:
        cfg["save_adapter_weights_only"] = False
    return cfg


def _plan_optim(r) -> str:
    """The plan's optimizer name back from Resolved.optim (its HF name; sgd_momentum is written as sgd there)."""
    from rocm_tune.core.vocabulary import HF_OPTIM

    return next(k for k, v in HF_OPTIM.items() if v == r.optim)


def script(r, cfg: dict, hub: str | None, master_port: int) -> str:
    """tune_run.sh: `tune run [--nproc_per_node N --nnodes M ...] RECIPE --config torchtune.yaml "$@"` from the
    bundle's folder; a hub model is downloaded into ./model first, and its weight files named on the command line."""
    from shlex import quote as q

    lines = ["#!/usr/bin/env bash", f"# torchtune {VERSION}: {recipe(r)} with torchtune.yaml (rocm-tune export)",
             "# pass overrides as key=value, e.g.: bash tune_run.sh batch_size=1", "set -euo pipefail",
             'cd "$(dirname "$0")"', 'TUNE="${TUNE:-tune}"']
    for k, v in sorted(r.env.items()):
        lines.append(f"export {k}={q(v)}")
    extra = ""
    if hub:
        # the consolidated Meta checkpoint under original/ is a second copy of the weights (torchtune's own configs
        # download with this pattern); original/tokenizer.model, which the Llama 3 tokenizer reads, still comes
        lines += [f"if [ ! -d model ]; then \"$TUNE\" download {q(hub)} --output-dir model "
                  "--ignore-patterns 'original/consolidated*'; fi",
                  "FILES=$(cd model && printf '%s\\n' ./*.safetensors | sed 's|^\\./||' | paste -sd, -)"]
        extra = ' checkpointer.checkpoint_files="[$FILES]"'
    dist = ""
    if r.world_size > 1:
        dist = f"--nproc_per_node {r.gpus} "
        if r.nodes > 1:
            dist += (f'--nnodes {r.nodes} --node_rank "${{NODE_RANK:?set NODE_RANK on each node}}" '
                     f'--master_addr "${{MASTER_ADDR:?set MASTER_ADDR}}" --master_port {master_port} ')
    lines.append(f'exec "$TUNE" run {dist}{recipe(r)} --config {CONFIG_FILE}{extra} "$@"')
    return "\n".join(lines) + "\n"


def write(r, opts, dataset_entry: dict | None = None) -> tuple[dict[str, str], list[str]]:
    """({torchtune.yaml, tune_run.sh: text}, notes) of a resolved plan; UserError for what torchtune cannot run."""
    import yaml

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.model.architecture import load_model

    notes: list[str] = []
    try:
        spec = load_model(r.model_ref)
    except UserError:
        spec = None
    cfg = config(r, opts, spec, dataset_entry, notes)
    hub = _checkpoint(r.model_ref, spec, "model")[2]
    head = [f"# torchtune {VERSION} config for `tune run {recipe(r)} --config {CONFIG_FILE}` (tune_run.sh starts it)",
            f"# model {r.model_name}, {r.method} on {r.gpus} x {r.gpu_name} x {r.nodes} node(s), dtype {cfg['dtype']}"
            f" (weights, gradients and optimizer state; torchtune has no autocast)",
            f"# effective batch = {r.micro_batch} x {r.grad_accum} accumulation x {r.world_size} GPU(s) = "
            f"{r.micro_batch * r.grad_accum * r.world_size}; attention: torchtune's SDPA",
            "# lr_scheduler: torchtune counts warmup in optimizer steps (num_warmup_steps), not as a ratio"]
    if hub:
        head.append(f"# checkpointer: tune_run.sh downloads {hub} into model/ and names its *.safetensors")
    text = "\n".join(head) + "\n" + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True, width=10**9)
    return {CONFIG_FILE: text, SCRIPT_FILE: script(r, cfg, hub, opts.master_port)}, notes
