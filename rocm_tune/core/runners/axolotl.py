"""Axolotl: its YAML -> canonical settings (`read`), and a plan -> its YAML (`write`). Pure; yaml.

Axolotl's keys (src/axolotl/utils/schemas/config.py, peft.py, training.py, datasets.py of axolotl 0.19.0, the
version `write` targets and tests/realstack/test_axolotl.py validates with Axolotl's own loader): base_model,
adapter (lora | qlora | empty = full), load_in_8bit / load_in_4bit (the base quantised by bitsandbytes), lora_r,
lora_alpha, lora_target_linear / lora_target_modules, peft_use_dora, unfrozen_parameters (regexes of the
parameters that train), sequence_len, micro_batch_size, gradient_accumulation_steps, optimizer, bf16 (true |
auto = bf16 where the GPU has it; AMP), bfloat16 (the model in bf16 without AMP), fp16, tf32,
gradient_checkpointing, attn_implementation (0.19; the older flash_attention / sdp_attention flags are read too),
deepspeed (a JSON path), fsdp / fsdp_config, rl (dpo ...), datasets, eval_batch_size, val_set_size. Axolotl runs
the transformers Trainer: runner hf."""

from __future__ import annotations

import re

import yaml

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners.common import Default, Setting, as_bool, as_number, named_data
from rocm_tune.core.runners.llamafactory import yaml_lines

AX = "axolotl-ai-cloud/axolotl:src/axolotl/utils/schemas/config.py (AxolotlInputConfig"
DEFAULTS = {
    "method": Default("full", f"{AX}.adapter: none = full fine-tuning)"),
    "cutoff_len": Default(512, f"{AX}.sequence_len)"),
    "micro_batch": Default(1, f"{AX}.micro_batch_size)"),
    "eval_batch": Default("micro_batch", f"{AX}.eval_batch_size: micro_batch_size when unset)"),
    "gradient_checkpointing": Default(False, f"{AX}.gradient_checkpointing)"),
}
VERSION = "0.19.0"   # the Axolotl whose schema `write` follows (the newest on PyPI, 2026-11)
YAML_FILE = "axolotl.yaml"
# plan attn -> attn_implementation (schemas/enums.py CANONICAL_ATTN_IMPLS)
ATTN = {"sdpa": "sdpa", "fa2": "flash_attention_2", "eager": "eager"}
# the layers regex `write` puts in unfrozen_parameters for a freeze plan (the last N decoder layers)
_LAYERS = re.compile(r"layers\\?\.\(?([0-9|]+)\)?")


def read(data: dict, text: str, file: str) -> tuple[dict[str, Setting], list[str]]:
    lines = yaml_lines(text)
    out: dict[str, Setting] = {}
    notes: list[str] = []

    def put(key, value, native):
        out[key] = Setting(key, value, file, lines.get(native), native, "yaml")

    put("model_name_or_path", data.get("base_model"), "base_model")
    _read_method(data, put, notes)
    for src, key in (("sequence_len", "cutoff_len"), ("micro_batch_size", "per_device_train_batch_size"),
                     ("gradient_accumulation_steps", "gradient_accumulation_steps"), ("optimizer", "optim"),
                     ("eval_batch_size", "per_device_eval_batch_size"), ("deepspeed", "deepspeed"),
                     ("warmup_steps", "warmup_steps"), ("val_set_size", "val_size"), ("eval_steps", "eval_steps")):
        if data.get(src) not in (None, ""):
            put(key, data[src], src)
    _read_precision(data, put, notes)
    gcv = data.get("gradient_checkpointing")
    # "offload" / "offload_disk": checkpointing with the checkpoints moved to host memory (on, and less on the GPU)
    gc = True if str(gcv).lower() in ("offload", "offload_disk", "unsloth") else as_bool(gcv)
    out["disable_gradient_checkpointing"] = Setting("disable_gradient_checkpointing", not bool(gc), file,
                                                    lines.get("gradient_checkpointing"), "gradient_checkpointing",
                                                    "yaml", invert=True)
    if data.get("gradient_checkpointing_kwargs"):
        put("gradient_checkpointing_kwargs", data["gradient_checkpointing_kwargs"], "gradient_checkpointing_kwargs")
    if data.get("attn_implementation"):                   # 0.19: the one key; sdpa | flash_attention_2 | eager ...
        put("flash_attn", str(data["attn_implementation"]), "attn_implementation")
    elif as_bool(data.get("flash_attention")):
        put("flash_attn", "fa2", "flash_attention")
    elif as_bool(data.get("sdp_attention")):
        put("flash_attn", "sdpa", "sdp_attention")
    elif as_bool(data.get("eager_attention")):
        put("flash_attn", "eager", "eager_attention")
    _read_stage(data, put)
    if as_bool(data.get("sample_packing")):      # packed rows are filled to sequence_len (check keeps the cap)
        put("sample_packing", True, "sample_packing")
    ds = data.get("datasets")
    if isinstance(ds, list) and ds and all(isinstance(d, dict) for d in ds):   # datasets[].path: hub ids (issue 26)
        names = [f"{d['path']}:{d['name']}" if d.get("path") and d.get("name") else d.get("path") for d in ds]
        out.update(named_data(names, file, lines.get("datasets"), "datasets"))     # `name:` is the subset
    if data.get("fsdp") or data.get("fsdp_config"):
        # read by core.runners.fsdp.spec_from: `fsdp:` is a word list (full_shard, offload, ...), `fsdp_config:`
        # a mapping (fsdp_version, fsdp_offload_params, reshard_after_forward / fsdp_sharding_strategy, ...)
        put("fsdp", data.get("fsdp") or "", "fsdp" if data.get("fsdp") else "fsdp_config")
        fc = dict(data["fsdp_config"]) if isinstance(data.get("fsdp_config"), dict) else {}
        if data.get("fsdp_version") is not None:          # axolotl >= 0.12: a top-level key
            fc.setdefault("fsdp_version", data["fsdp_version"])
        if fc:
            put("fsdp_config", fc, "fsdp_config")
    if as_bool(data.get("dpo_use_liger_kernel")):
        put("dpo_use_liger_kernel", True, "dpo_use_liger_kernel")
    if as_bool(data.get("torch_compile")):
        # core/builders/base.py _configure_torch_compile: TrainingArguments torch_compile (+ its backend), so the
        # Trainer compiles the model's forward (core/runners/config.py _compiled)
        put("torch_compile", True, "torch_compile")
        if data.get("torch_compile_backend"):
            put("torch_compile_backend", str(data["torch_compile_backend"]), "torch_compile_backend")
    if as_bool(data.get("activation_offloading")):
        put("activation_offloading", True, "activation_offloading")
    plugins = " ".join(map(str, data.get("plugins") or [])) if isinstance(data.get("plugins"), list) else ""
    if "cut_cross_entropy" in plugins or as_bool(data.get("cut_cross_entropy")):
        put("cut_cross_entropy", True, "plugins" if "cut_cross_entropy" in plugins else "cut_cross_entropy")
    if "liger" in plugins.lower():
        put("enable_liger_kernel", True, "plugins")
        # axolotl's LigerPlugin (src/axolotl/integrations/liger/plugin.py) passes each kernel's own flag to
        # apply_liger_kernel_to_<model> (rms_norm=cfg.liger_rms_norm, swiglu=cfg.liger_glu_activation): unset = off
        for key in ("liger_rms_norm", "liger_glu_activation", "liger_fused_linear_cross_entropy"):
            put(key, bool(as_bool(data.get(key))), key)
    if (as_number(data.get("val_set_size")) or 0) > 0:   # "x", a list, .nan: not a split
        put("do_eval", True, "val_set_size")
    return out, notes


def _read_method(data: dict, put, notes: list[str]) -> None:
    """adapter / load_in_* / lora_* / peft_use_dora / unfrozen_parameters -> finetuning_type and its settings."""
    adapter = str(data.get("adapter") or "").lower()
    q4, q8 = as_bool(data.get("load_in_4bit")), as_bool(data.get("load_in_8bit"))
    unfrozen = data.get("unfrozen_parameters")
    layers = _unfrozen_layers(unfrozen) if adapter not in ("lora", "qlora") else None
    put("finetuning_type", "lora" if adapter in ("lora", "qlora") else "freeze" if layers else "full",
        "unfrozen_parameters" if layers and adapter not in ("lora", "qlora") else "adapter")
    if layers:
        put("freeze_trainable_layers", layers, "unfrozen_parameters")
    if adapter == "qlora" or (adapter == "lora" and q4):
        put("quantization_bit", 4, "load_in_4bit")
        kw = data.get("bnb_config_kwargs")
        if isinstance(kw, dict) and "bnb_4bit_use_double_quant" in kw:
            put("double_quantization", as_bool(kw["bnb_4bit_use_double_quant"]), "bnb_config_kwargs")
    elif adapter == "lora" and q8:
        put("quantization_bit", 8, "load_in_8bit")
        notes.append("axolotl load_in_8bit: the base is an 8-bit bitsandbytes model under LoRA")
    if data.get("lora_r"):
        put("lora_rank", data.get("lora_r"), "lora_r")
    if data.get("lora_alpha"):
        put("lora_alpha", data.get("lora_alpha"), "lora_alpha")
    if as_bool(data.get("lora_target_linear")):
        put("lora_target", "all", "lora_target_linear")
    elif data.get("lora_target_modules"):
        mods = data["lora_target_modules"]
        put("lora_target", ",".join(mods) if isinstance(mods, list) else str(mods), "lora_target_modules")
    if as_bool(data.get("peft_use_dora")):
        put("use_dora", True, "peft_use_dora")
    if data.get("lora_modules_to_save"):
        # axolotl passes lora_modules_to_save to LoraConfig(modules_to_save=...) (src/axolotl/loaders/adapter.py)
        mods = data["lora_modules_to_save"]
        put("additional_target", ",".join(map(str, mods)) if isinstance(mods, list) else str(mods),
            "lora_modules_to_save")


def _unfrozen_layers(patterns) -> int | None:
    """How many decoder layers `unfrozen_parameters` trains when it names whole layers by number
    (`^model\\.layers\\.(26|27)\\.`), else None (a list of other parameters is not a layer count)."""
    if not isinstance(patterns, list) or not patterns:
        return None
    found: set[int] = set()
    for p in patterns:
        m = _LAYERS.search(str(p))
        if m is None:
            return None
        found |= {int(n) for n in m.group(1).split("|") if n}
    return len(found) or None


def _read_precision(data: dict, put, notes: list[str]) -> None:
    """bf16 (AMP; `auto`), bfloat16 (bf16 without AMP), fp16; `bf16: false` + `fp16: false` states fp32."""
    bf = data.get("bf16")
    if as_bool(data.get("bfloat16")) and not as_bool(bf):
        put("pure_bf16", True, "bfloat16")
        put("load_dtype", "bf16", "bfloat16")
    elif str(bf).lower() == "auto" or as_bool(bf):
        put("bf16", True, "bf16")
        put("load_dtype", "bf16", "bf16")     # axolotl normalize_config: bf16 -> cfg.torch_dtype = torch.bfloat16
        if str(bf).lower() == "auto":
            notes.append("axolotl bf16: auto read as bf16 (the GPU's support is checked below)")
    elif as_bool(data.get("fp16")):
        put("fp16", True, "fp16")
        put("load_dtype", "fp16", "fp16")
    else:
        for key in ("bf16", "fp16"):          # said false: stated, not a guess
            if as_bool(data.get(key)) is False:
                put(key, False, key)


def _read_stage(data: dict, put) -> None:
    """rl: dpo -> stage dpo; a `completion` dataset (raw text) or pretraining_dataset -> stage pt."""
    rl = str(data.get("rl") or "").lower()
    if rl:
        put("stage", rl, "rl")
        return
    ds = data.get("datasets")
    first = ds[0] if isinstance(ds, list) and ds and isinstance(ds[0], dict) else {}
    if data.get("pretraining_dataset"):
        put("stage", "pt", "pretraining_dataset")
    elif str(first.get("type") or "") == "completion":
        put("stage", "pt", "datasets")


# ------------------------------------------------------------------------------------------------ write
def _refuse(what: str, why: str) -> UserError:
    return UserError(f"{YAML_FILE}: {what}: {why}")


def method_keys(r, num_layers: int | None) -> list[tuple[str, object]]:
    """adapter / quantisation / LoRA / freeze keys of a plan (`r`: core.export.common.Resolved)."""
    out: list[tuple[str, object]] = []
    if r.method in ("lora", "qlora"):
        if r.method == "qlora":
            if r.quant_bits == 8:   # schemas/peft.py validate_qlora: "Can't load qlora in 8bit"
                out += [("adapter", "lora"), ("load_in_8bit", True)]
            else:
                out += [("adapter", "qlora"), ("load_in_4bit", True),
                        ("bnb_config_kwargs", {"bnb_4bit_use_double_quant": bool(r.double_quant)})]
        else:
            out.append(("adapter", "lora"))
        out += [("lora_r", r.lora_rank), ("lora_alpha", r.lora_alpha)]
        targets = tuple(r.lora_targets)
        if targets in (("all",), ("all-linear",)):
            out.append(("lora_target_linear", True))
        else:
            out.append(("lora_target_modules", list(targets)))
        if r.dora:
            out.append(("peft_use_dora", True))
    elif r.method == "freeze":
        if not num_layers:
            raise _refuse(f"method freeze of model {r.model_ref!r}",
                          "its layer count is not known here, and Axolotl freezes by parameter name "
                          "(unfrozen_parameters); pass a preset or a model folder with config.json")
        n = min(int(r.freeze_trainable_layers), num_layers)
        idx = "|".join(str(i) for i in range(num_layers - n, num_layers))
        out.append(("unfrozen_parameters", [rf"^model\.layers\.({idx})\."]))
    elif r.method != "full":
        raise _refuse(f"method {r.method!r}", "not one Axolotl trains (full, lora, qlora, freeze)")
    return out


def precision_keys(precision: str) -> list[tuple[str, object]]:
    """bf16: AMP over a bf16-loaded model (normalize_config: bf16 -> torch_dtype bfloat16); fp16: AMP; fp32:
    everything off, tf32 too (its default `auto` would turn TF32 matmuls on); pure_bf16: refused."""
    if precision == "bf16":
        return [("bf16", True), ("fp16", False)]
    if precision == "pure_bf16":
        # Axolotl has it (`bfloat16: true`, bf16 false: the model in bf16, no AMP), but the memory estimate of a
        # Trainer-based runner has no such regime (core/runners/hf.py), so check could not read the file back
        raise _refuse("precision pure_bf16", "rocm-tune cannot estimate Axolotl's `bfloat16` (no AMP) run; "
                      "plan with --precision bf16 (Axolotl's bf16 loads the model in bf16 too)")
    if precision == "fp16":
        return [("bf16", False), ("fp16", True)]
    if precision == "fp32":
        return [("bf16", False), ("fp16", False), ("tf32", False)]
    raise _refuse(f"precision {precision!r}", "not one Axolotl runs (bf16, pure_bf16, fp16, fp32)")


def stage_keys(stage: str) -> list[tuple[str, object]]:
    if stage == "dpo":
        return [("rl", "dpo")]
    if stage in ("sft", "pt"):
        return []
    raise _refuse(f"stage {stage!r}", "not written for Axolotl (sft, pt, dpo)")


# LLaMA-Factory's sharegpt tags (data/parser.py DatasetAttr defaults) -> Axolotl's chat roles
_LF_TAGS = {"role_tag": "from", "content_tag": "value", "user_tag": "human", "assistant_tag": "gpt",
            "system_tag": "system", "observation_tag": "observation"}


def dataset(path: str, entry: dict, stage: str) -> dict:
    """One `datasets:` item from a LLaMA-Factory dataset_info.json entry (its columns and tags), for `stage`:
    pt = raw text (`completion`), sft = `alpaca` (or a user-defined type for other column names) or
    `chat_template` for sharegpt, dpo = `chat_template.default` / a user-defined DPO type. `path` is the data
    file (or a hub id)."""
    cols = entry.get("columns") or {}
    out: dict = {"path": path}
    if path.endswith((".json", ".jsonl")):
        out["ds_type"] = "json"
    if entry.get("formatting") == "sharegpt":
        tags = {**_LF_TAGS, **(entry.get("tags") or {})}
        roles = {"user": [tags["user_tag"]], "assistant": [tags["assistant_tag"]], "system": [tags["system_tag"]],
                 "tool": [tags["observation_tag"]]}
        out["type"] = "chat_template.default" if stage == "dpo" else "chat_template"
        out["field_messages"] = cols.get("messages", "conversations")
        out["message_property_mappings"] = {"role": tags["role_tag"], "content": tags["content_tag"]}
        out["roles"] = roles
        if stage == "dpo":
            out["field_chosen"], out["field_rejected"] = cols.get("chosen", "chosen"), cols.get("rejected", "rejected")
        return out
    if stage == "pt":
        out["type"] = "completion"
        out["field"] = cols.get("prompt", "text")
        return out
    if stage == "dpo":
        out["type"] = {"field_prompt": cols.get("prompt", "instruction"), "field_chosen": cols.get("chosen", "chosen"),
                       "field_rejected": cols.get("rejected", "rejected")}
        return out
    names = (cols.get("prompt", "instruction"), cols.get("query", "input"), cols.get("response", "output"))
    if names == ("instruction", "input", "output") and not cols.get("system"):
        out["type"] = "alpaca"
    else:       # other column names: Axolotl's user-defined prompt type with alpaca's layout
        out["type"] = {"field_instruction": names[0], "field_input": names[1], "field_output": names[2],
                       "format": "{instruction}\n{input}\n", "no_input_format": "{instruction}\n",
                       **({"field_system": cols["system"]} if cols.get("system") else {})}
    return out


def config(r, opts, datasets: list[dict], num_layers: int | None, paths: dict) -> list[tuple[str, list]]:
    """The YAML as ordered sections of (key, value). `r`: core.export.common.Resolved, `opts`: ExportOptions,
    `paths`: {"deepspeed": JSON path, "output_dir": ..., "prepared": ...} as the YAML names them."""
    model: list[tuple[str, object]] = [("base_model", opts.model or r.model_ref),
                                       ("trust_remote_code", r.trust_remote_code)]
    method = method_keys(r, num_layers) + stage_keys(r.stage)
    sharegpt = any(str(d.get("type", "")).startswith("chat_template") for d in datasets)
    data: list[tuple[str, object]] = [("datasets", datasets), ("dataset_prepared_path", paths["prepared"]),
                                      ("val_set_size", 0.0), ("sequence_len", r.cutoff_len),
                                      # the plan's cutoff_len truncates (LLaMA-Factory's); Axolotl drops longer rows
                                      # unless told (schemas/config.py excess_length_strategy, default drop)
                                      ("excess_length_strategy", "truncate")]
    if sharegpt:
        data.append(("chat_template", "tokenizer_default"))
    if r.stage == "pt":     # as the LLaMA-Factory YAML's `packing: true`
        data.append(("sample_packing", True))
    train: list[tuple[str, object]] = [
        ("micro_batch_size", r.micro_batch), ("gradient_accumulation_steps", r.grad_accum),
        ("num_epochs", float(r.epochs)), ("learning_rate", float(r.learning_rate)), ("optimizer", r.optim),
        ("lr_scheduler", opts.lr_scheduler_type), ("warmup_ratio", float(opts.warmup_ratio)),
        ("max_grad_norm", float(opts.max_grad_norm)), *precision_keys(r.precision),
        ("gradient_checkpointing", bool(r.gradient_checkpointing))]
    if r.gradient_checkpointing and r.use_reentrant is not None:     # True: LoRA + ZeRO-3 (DeepSpeed#8148)
        train.append(("gradient_checkpointing_kwargs", {"use_reentrant": r.use_reentrant}))
    train.append(("attn_implementation", ATTN[_plan_attn(r.attn)]))
    if r.uses_deepspeed:
        train.append(("deepspeed", paths["deepspeed"]))
    if r.world_size > 1:
        if r.ddp_find_unused_parameters is not None:
            train.append(("ddp_find_unused_parameters", r.ddp_find_unused_parameters))
        train.append(("ddp_timeout", opts.ddp_timeout))
    output: list[tuple[str, object]] = [("output_dir", paths["output_dir"]), ("logging_steps", opts.logging_steps),
                                        ("save_steps", opts.save_steps), ("seed", opts.seed)]
    if opts.resume:
        output.append(("auto_resume_from_checkpoints", True))
    return [("model", model), ("method", method), ("dataset", data), ("train", train), ("output", output)]


def _plan_attn(attn: str) -> str:
    """Resolved.attn is LLaMA-Factory's word (disabled | sdpa | fa2); back to the plan's."""
    return {"disabled": "eager"}.get(attn, attn)


def _scalar(v: object) -> str:
    text = yaml.safe_dump(v, default_flow_style=True, allow_unicode=True, width=10**9).strip()
    return text[: -len("...")].strip() if text.endswith("...") else text


def write(r, opts, datasets: list[dict], num_layers: int | None, paths: dict, head: list[str]) -> dict[str, str]:
    """{axolotl.yaml: text} for a plan: `head` = its comment lines (what the plan is, its warnings)."""
    lines = [f"# Axolotl {VERSION} training config: `axolotl train {YAML_FILE}`"] + head
    for title, items in config(r, opts, datasets, num_layers, paths):
        lines += ["", f"### {title}"]
        for k, v in items:
            if isinstance(v, (list, dict)) and v:
                block = yaml.safe_dump({k: v}, default_flow_style=False, allow_unicode=True, sort_keys=False)
                lines += block.rstrip("\n").split("\n")
            else:
                lines.append(f"{k}: {_scalar(v)}")
    return {YAML_FILE: "\n".join(lines) + "\n"}
