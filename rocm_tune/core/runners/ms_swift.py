"""ms-swift command lines (`swift sft|pt|rlhf ...`) -> canonical settings (pure).

ms-swift's argument names (swift/llm/argument/*.py): --train_type (lora | full | ...), --max_length,
--torch_dtype, --deepspeed zero0|zero1|zero2|zero3|zero2_offload|zero3_offload or a JSON path,
--lora_rank, --lora_alpha, --target_modules, --gradient_checkpointing (default true), --attn_impl."""

from __future__ import annotations

import re

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners.common import Default, Setting, as_bool, as_int, named_data
from rocm_tune.core.runners import heads

SW = "modelscope/ms-swift:swift"
# ms-swift 3.x (swift/trainers/arguments.py TrainArgumentsMixin overrides the HF Trainer's defaults)
DEFAULTS = {
    "method": Default("lora", f"{SW}/llm/argument/tuner_args.py (TunerArguments.train_type)"),
    # max_length None = the model's max_model_len: the bound when the data is not known (a dropped --max_length
    # on long multimodal samples is a real OOM, test_check SWIFT_5199)
    "cutoff_len": Default("model", f"{SW}/llm/argument/base_args/template_args.py (TemplateArguments.max_length: "
                                   f"None = the model's max_model_len)"),
    "micro_batch": Default(1, f"{SW}/trainers/arguments.py (TrainArgumentsMixin.per_device_train_batch_size)"),
    "eval_batch": Default(1, f"{SW}/trainers/arguments.py (TrainArgumentsMixin.per_device_eval_batch_size)"),
    "gradient_checkpointing": Default(True, f"{SW}/trainers/arguments.py (TrainArgumentsMixin.gradient_checkpointing)"),
    "precision": Default("bf16", f"{SW}/llm/argument/base_args/model_args.py (ModelArguments.torch_dtype: None = "
                                 f"the checkpoint's, bf16 for the models people fine-tune)"),
}

MAP = {"model": "model_name_or_path", "model_id_or_path": "model_name_or_path", "sft_type": "finetuning_type",
       "train_type": "finetuning_type", "tuner_type": "finetuning_type", "max_length": "cutoff_len",
       "lora_rank": "lora_rank", "lora_alpha": "lora_alpha", "target_modules": "lora_target",
       "per_device_train_batch_size": "per_device_train_batch_size",
       "gradient_accumulation_steps": "gradient_accumulation_steps",
       "per_device_eval_batch_size": "per_device_eval_batch_size", "deepspeed": "deepspeed",
       "attn_impl": "flash_attn", "save_total_limit": "save_total_limit", "eval_steps": "eval_steps",
       "gradient_checkpointing": "disable_gradient_checkpointing", "quant_bits": "quantization_bit",
       "packing": "packing", "optim": "optim", "eval_strategy": "eval_strategy",
       "split_dataset_ratio": "val_size", "val_dataset": "eval_dataset", "use_liger_kernel": "enable_liger_kernel",
       "device_map": "device_map", "sequence_parallel_size": "sequence_parallel_size",
       "lisa_activated_layers": "freeze_trainable_layers", "use_galore": "use_galore",
       # `swift rlhf --rlhf_type grpo` (core/runners/rl.py)
       **{k: k for k in ("use_vllm", "vllm_mode", "vllm_gpu_memory_utilization", "sleep_level", "beta",
                         "max_completion_length", "num_generations", "offload_model", "offload_optimizer",
                         "multi_turn_scheduler", "multi_turn_func", "ds3_gather_for_generation",
                         "move_model_batches", "vllm_server_host")}}
# ms-swift's named DeepSpeed configs (swift/llm/ds_config/): stage and offload
NAMED_DS = {"zero0": (0, "none"), "zero1": (1, "none"), "zero2": (2, "none"), "zero3": (3, "none"),
            "zero2_offload": (2, "optimizer"), "zero3_offload": (3, "all")}
# --quant_method values that quantise the weights on load to --quant_bits (swift/llm/argument/base_args/
# quant_args.py get_quantization_config: BitsAndBytesConfig, HqqConfig(nbits), QuantoConfig(weights=int<bits>),
# EetqConfig("int8")): the frozen weights take quant_bits bits each (group scales aside), as bnb's do
WEIGHT_QUANT = ("bnb", "hqq", "quanto", "eetq")
MAP["bnb_4bit_use_double_quant"] = "double_quantization"   # QuantizeArguments (default True)
# TunerArguments (swift/llm/argument/tuner_args.py): freeze_vit / freeze_aligner, True by default in ms-swift 3.x
MAP.update({"freeze_vit": "freeze_vision_tower", "freeze_aligner": "freeze_multi_modal_projector",
            "max_pixels": "image_max_pixels",
            # ModelArguments.vit_gradient_checkpointing (default True): off, the tower is neither checkpointed nor
            # made to take inputs requiring grad (swift/trainers/mixin.py _prepare_gradient_checkpointing)
            "vit_gradient_checkpointing": "vit_gradient_checkpointing",
            # TemplateArguments.truncation_strategy: delete/raise drop an over-long row, left/right cut its text
            "truncation_strategy": "truncation_strategy",
            # TrainArgumentsMixin.router_aux_loss_coef (default 0): > 0 turns on an MoE model's output_router_logits
            "router_aux_loss_coef": "router_aux_loss_coef",
            # TemplateArguments.padding_free: one flat row, no attention_mask (swift/template/base.py _data_collator)
            "padding_free": "padding_free",
            # DataArguments.streaming: a streamed dataset is not split (split_dataset_ratio set to 0): no eval
            "streaming": "streaming"})
# ms-swift 2.x (swift/llm/utils/argument.py SftArguments, before the 3.0 rewrite): flags only that release has, and
# its defaults that differ from 3.x: max_length 2048 (3.x: None, the model's context)
SWIFT2_FLAGS = ("sft_type", "model_id_or_path", "lora_target_modules", "use_flash_attn", "custom_train_dataset_path",
                "model_cache_dir", "dataset_test_ratio", "train_dataset_sample")
SWIFT2_MAX_LENGTH = 2048


def _dtype_name(v: str) -> str | None:
    d = str(v).lower()
    return "bf16" if "bf" in d else "fp16" if ("16" in d or "half" in d) else "fp32" if ("32" in d or d == "float") \
        else None


def _precision(flags: dict[str, tuple[str, int]], file: str, out: dict[str, Setting]) -> None:
    """--torch_dtype (the dtype from_pretrained loads) and the mixed precision ms-swift derives from it
    (model_args.py ModelArguments._init_mixed_precision: bfloat16 -> bf16 autocast; float16 AND float32 -> fp16
    autocast), each overridden by an explicit --bf16 / --fp16."""
    dtype, line = None, None
    if "torch_dtype" in flags:
        v, line = flags["torch_dtype"]
        dtype = _dtype_name(v)
        if dtype is not None:
            out["load_dtype"] = Setting("load_dtype", dtype, file, line, "torch_dtype", "flag")
    bf = as_bool(flags["bf16"][0]) if "bf16" in flags else None
    fp = as_bool(flags["fp16"][0]) if "fp16" in flags else None
    if dtype is None and bf is None and fp is None:
        return                         # the checkpoint's dtype: DEFAULTS["precision"]
    bf = (dtype == "bf16") if bf is None else bf
    fp = (dtype in ("fp16", "fp32")) if fp is None else fp
    native = "bf16" if "bf16" in flags else "fp16" if "fp16" in flags else "torch_dtype"
    ln = flags[native][1] if native in flags else line
    if bf:
        out["bf16"] = Setting("bf16", True, file, ln, native, "flag")
    elif fp:
        out["fp16"] = Setting("fp16", True, file, ln, native, "flag")
    else:                              # `--fp16 false --bf16 false`: no autocast
        for k in ("bf16", "fp16", "pure_fp32"):
            out[k] = Setting(k, k == "pure_fp32", file, ln, native, "flag")


def _dataset_bound(flags: dict[str, tuple[str, int]], lists: dict[str, list[str]] | None, file: str,
                   out: dict[str, Setting]) -> None:
    """--dataset naming only public sets with a sourced longest sample (profiles/dataset_lengths.py; `name#N`
    samples N of them, `name:subset` a subset): with no --max_length it bounds the sequence (config.py), and with
    one, check counts each batch at the shorter of the two (ms-swift pads a batch to its longest sample)."""
    if "dataset" not in flags:
        return
    v, line = flags["dataset"]
    out.update(named_data((lists or {}).get("dataset") or [v], file, line, "dataset", "flag"))


def read_flags(flags: dict[str, tuple[str, int]], file: str, entry: str = "",
               lists: dict[str, list[str]] | None = None) -> dict[str, Setting]:
    """`swift sft|pt|rlhf` flags -> canonical settings. `entry` is the command (`swift pt` is stage pt); `lists`
    holds every value of a multi-value flag (`--target_modules q_proj v_proj`, a List[str] field)."""
    out: dict[str, Setting] = {}
    if entry.endswith(" pt"):
        out["stage"] = Setting("stage", "pt", file, None, "swift pt", "flag")
    _precision(flags, file, out)
    for k, (v, line) in flags.items():
        if k == "rlhf_type":
            out["stage"] = Setting("stage", v.lower(), file, line, k, "flag")   # orpo/cpo/simpo: runners/config.py
        elif k == "target_modules" and lists and len(lists.get(k) or ()) > 1:
            out["lora_target"] = Setting("lora_target", ",".join(lists[k]), file, line, k, "flag")
        elif k == "modules_to_save":
            # TunerArguments.modules_to_save (List[str], swift/llm/argument/tuner_args.py) -> LoraConfig's
            out["additional_target"] = Setting("additional_target", ",".join((lists or {}).get(k) or [v]), file, line,
                                               k, "flag")
        elif k in ("task_type", "num_labels"):
            out.update(heads.swift_task(k, v, file, line))
        elif k == "use_dora":
            out["use_dora"] = Setting("use_dora", as_bool(v), file, line, k, "flag")
        elif k == "quant_bits" and str(flags.get("quant_method", ("", 0))[0]).lower() not in WEIGHT_QUANT:
            # no --quant_method: nothing is quantised (QuantizeArguments.get_quantization_config returns None)
            continue
        elif k == "quant_method" and v.lower() == "eetq" and "quant_bits" not in flags:
            out["quantization_bit"] = Setting("quantization_bit", "8", file, line, k, "flag")   # EetqConfig int8
        elif k in MAP:
            key = MAP[k]
            value: object = v
            invert = False
            if key == "disable_gradient_checkpointing":
                b = as_bool(v)
                value, invert = ((not b) if b is not None else v), True
            elif key == "finetuning_type":
                value = {"lora": "lora", "full": "full", "longlora": "lora", "adalora": "lora"}.get(v.lower(), v)
            out[key] = Setting(key, value, file, line, k, "flag", invert)
    _dataset_bound(flags, lists, file, out)
    _swift2(flags, file, out)
    if "model_name_or_path" not in out and "model_type" in flags:
        # ms-swift 2.x: --model_type alone names the model (`qwen2_5-7b-instruct`: family, size, variant)
        v, line = flags["model_type"]
        out["model_name_or_path"] = Setting("model_name_or_path", v, file, line, "model_type", "flag")
    _model_type_names_model(flags, file, out)
    lisa = out.get("freeze_trainable_layers")
    if lisa is not None and as_int(lisa.value) and str(out.get("finetuning_type", lisa).value) in ("full", str(lisa.value)):
        # LISA trains N randomly chosen layers at a time (swift/trainers/callback.py DynamicLayerActivation): the
        # memory of a freeze fine-tune of N layers
        out["finetuning_type"] = Setting("finetuning_type", "freeze", file, lisa.line, "lisa_activated_layers", "flag")
    galore = out.pop("use_galore", None)
    if galore is not None and as_bool(galore.value) and "optim" not in out:
        # GaLore keeps the Adam moments of rank-r projections (swift/trainers/optimizers/galore): far below full
        # AdamW; estimated as a factored (Adafactor-sized) state
        out["optim"] = Setting("optim", "adafactor", file, galore.line, "use_galore", "flag")
    return out


SHELL_VAR = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/?")


def _model_type_names_model(flags: dict[str, tuple[str, int]], file: str, out: dict[str, Setting]) -> None:
    """ms-swift 2.x: --model_type is one registered checkpoint (swift/llm/utils/model.py MODEL_MAPPING:
    'qwen2-vl-7b-instruct' -> qwen/Qwen2-VL-7B-Instruct, its architecture and size), and --model_id_or_path only
    says where that checkpoint's files are (SftArguments: the model_type's loader reads them). Where the path is a
    shell variable no file given sets, the model_type is the model; the native name says which flag named it.
    3.x's --model_type is an architecture family (`qwen2_vl`), no size: not used there."""
    m = out.get("model_name_or_path")
    major = out.get("swift_major")
    if m is None or "model_type" not in flags or major is None or str(major.value) != "2" \
            or not SHELL_VAR.fullmatch(str(m.value).strip()):
        return
    v, line = flags["model_type"]
    out["model_name_or_path"] = Setting(
        "model_name_or_path", v, file, line,
        f"model_type ({m.native} is {str(m.value).strip()}, a shell variable the files do not set; ms-swift 2.x's "
        f"--model_type names the checkpoint it loads)", "flag")


def _swift2(flags: dict[str, tuple[str, int]], file: str, out: dict[str, Setting]) -> None:
    """ms-swift 2.x flags (SWIFT2_FLAGS mark the release): --max_length unset is 2048 there (SftArguments.max_length);
    --batch_size / --eval_batch_size are the per-device batches; --use_flash_attn false loads the model with
    _attn_implementation 'eager' (swift/llm/utils/model.py), true with flash_attention_2; --lora_target_modules
    ALL takes every linear layer of the model, DEFAULT the model type's own list."""
    if "tuner_type" in flags:
        # --tuner_type is ms-swift 4.x's name of --train_type: a release after the max_length fix of 2025-05-12
        out["swift_major"] = Setting("swift_major", 4, file, flags["tuner_type"][1], "--tuner_type (ms-swift 4.x)",
                                     "flag")
    mark = next((k for k in SWIFT2_FLAGS if k in flags), None)
    if mark is None:
        return
    line = flags[mark][1]
    out["swift_major"] = Setting("swift_major", 2, file, line, f"--{mark} (an ms-swift 2.x flag)", "flag")
    if "max_length" not in flags:
        out["cutoff_len"] = Setting("cutoff_len", SWIFT2_MAX_LENGTH, file, line,
                                    f"max_length (ms-swift 2.x default {SWIFT2_MAX_LENGTH}, --{mark} marks 2.x)", "flag")
    for k, key in (("batch_size", "per_device_train_batch_size"), ("eval_batch_size", "per_device_eval_batch_size")):
        if k in flags and key not in out:
            out[key] = Setting(key, flags[k][0], file, flags[k][1], k, "flag")
    if "use_flash_attn" in flags and as_bool(flags["use_flash_attn"][0]) is not None:
        v, ln = flags["use_flash_attn"]
        out["flash_attn"] = Setting("flash_attn", "flash_attn" if as_bool(v) else "eager", file, ln, "use_flash_attn",
                                    "flag")
    if "lora_target_modules" in flags and "lora_target" not in out:
        v, ln = flags["lora_target_modules"]
        out["lora_target"] = Setting("lora_target", "all" if v.strip("'\"").upper() == "ALL" else v, file, ln,
                                     "lora_target_modules", "flag")


# ---------------------------------------------------------------------------------------------------- writer
# `rocm-tune export --format swift`: the plan as the `swift sft|pt|rlhf` command line ms-swift's docs show (a shell
# script: the argument names above work from 3.x on; the config-file spelling changed between releases, `--config
# FILE` in 3.x/4.0-4.4, a positional FILE from 4.5). Names as ms-swift >= 4.0 spells them (swift/arguments/*.py;
# 3.x called --tuner_type --train_type). What ms-swift cannot express is refused, never approximated.
SWIFT_SH = "swift_sft.sh"
# plan attention -> ModelArguments.attn_impl (swift/model/utils.py AttnImpl: flash_attn = flash_attention_2)
ATTN_IMPL = {"eager": "eager", "sdpa": "sdpa", "fa2": "flash_attn"}
_DS_NAME = {v: k for k, v in NAMED_DS.items()}


def _precision_args(r) -> list[tuple[str, object]]:
    """torch_dtype (+ --bf16/--fp16) that run the plan's precision. ms-swift autocasts in the dtype it loads
    (bfloat16 -> bf16, float16 and float32 -> fp16: _init_mixed_precision): LoRA loads the frozen weights in the
    16-bit dtype (PEFT keeps the adapters fp32); full fine-tuning loads fp32 weights under autocast, so weights,
    gradients and AdamW moments stay fp32 as the plan counts them (a bfloat16 load would train them in bf16)."""
    p, lora = r.precision, r.method in ("lora", "qlora")
    if p == "pure_bf16":
        raise UserError("plan recommended.precision pure_bf16: ms-swift has no pure_bf16 switch (fp32 adapters or "
                        "fp32 masters under autocast); export with precision bf16, or use --format llamafactory")
    if p == "fp32":
        return [("torch_dtype", "float32"), ("bf16", False), ("fp16", False)]
    if lora:
        return [("torch_dtype", "bfloat16" if p == "bf16" else "float16")]
    return [("torch_dtype", "float32"), (p, True), ("fp16" if p == "bf16" else "bf16", False)]


def _method_args(r, lora_dropout: float) -> list[tuple[str, object]]:
    if r.method == "freeze":
        raise UserError(f"plan recommended.method freeze (the last {r.freeze_trainable_layers} layers): ms-swift has "
                        "no last-N-layers tuner; export a lora or full plan, or use --format llamafactory")
    if r.method == "full":
        return [("tuner_type", "full")]
    out: list[tuple[str, object]] = [("tuner_type", "lora"), ("lora_rank", r.lora_rank), ("lora_alpha", r.lora_alpha),
                                     ("lora_dropout", float(lora_dropout)),
                                     ("target_modules", ["all-linear"] if tuple(r.lora_targets) in (("all",), ())
                                      else list(r.lora_targets))]
    if r.dora:
        out.append(("use_dora", True))
    if r.method == "qlora":
        out += [("quant_method", "bnb"), ("quant_bits", r.quant_bits or 4)]
        if (r.quant_bits or 4) == 4:
            out.append(("bnb_4bit_use_double_quant", bool(r.double_quant)))
    return out


def _deepspeed_arg(r, ds_json: str | None) -> list[tuple[str, object]]:
    """ms-swift's own named config for (stage, offload) when it has one, else the bundle's deepspeed.json."""
    if r.zero_stage <= 0:
        return []
    name = _DS_NAME.get((r.zero_stage, r.offload))
    if name is None and ds_json is None:
        raise UserError(f"plan zero_stage {r.zero_stage} with offload {r.offload!r}: ms-swift has no named config for "
                        "it; export it together with --format deepspeed")
    return [("deepspeed", name or ds_json)]


def needs_ds_json(r) -> bool:
    """Whether the swift script refers to the bundle's deepspeed.json (no named ms-swift config for the plan's ZeRO)."""
    return r.zero_stage > 0 and (r.zero_stage, r.offload) not in _DS_NAME


def arguments(r, opts, model: str, dataset: str, output_dir: str, ds_json: str | None = None
              ) -> list[tuple[str, object]]:
    """The `swift` arguments for a resolved plan (core.export.common.Resolved) and its ExportOptions, in order."""
    if opts.resume:
        raise UserError("--resume: ms-swift resumes from a checkpoint folder; run the script with "
                        "--resume_from_checkpoint DIR instead")
    args: list[tuple[str, object]] = [("model", model)]
    if r.stage == "dpo":
        args.insert(0, ("rlhf_type", "dpo"))
    args += _method_args(r, opts.lora_dropout) + _precision_args(r)
    args += [("attn_impl", ATTN_IMPL[_attn_key(r.attn)]), ("max_length", r.cutoff_len),
             ("per_device_train_batch_size", r.micro_batch), ("gradient_accumulation_steps", r.grad_accum),
             ("gradient_checkpointing", bool(r.gradient_checkpointing))]
    if r.gradient_checkpointing and r.use_reentrant is False and r.world_size > 1:
        args.append(("gradient_checkpointing_kwargs", '{"use_reentrant": false}'))
    elif r.gradient_checkpointing and r.use_reentrant is True:      # LoRA + ZeRO-3 (DeepSpeed#8148)
        args.append(("gradient_checkpointing_kwargs", '{"use_reentrant": true}'))
    args += _deepspeed_arg(r, ds_json)
    args += [("optim", r.optim), ("dataset", dataset), ("learning_rate", float(r.learning_rate)),
             ("num_train_epochs", float(r.epochs)), ("lr_scheduler_type", opts.lr_scheduler_type),
             ("warmup_ratio", float(opts.warmup_ratio)), ("max_grad_norm", float(opts.max_grad_norm)),
             ("output_dir", output_dir), ("logging_steps", opts.logging_steps), ("save_steps", opts.save_steps),
             ("seed", opts.seed), ("report_to", opts.report_to)]
    if r.world_size > 1:
        if r.ddp_find_unused_parameters is not None:
            args.append(("ddp_find_unused_parameters", r.ddp_find_unused_parameters))
        args.append(("ddp_timeout", opts.ddp_timeout))
    return args


def _attn_key(attn: str) -> str:
    """Resolved.attn is LLaMA-Factory's flash_attn name (disabled | sdpa | fa2): back to the plan's."""
    return {"disabled": "eager"}.get(attn, attn)


def _word(v: object) -> list[str]:
    if isinstance(v, bool):
        return ["true" if v else "false"]
    if isinstance(v, list):
        return [str(x) for x in v]
    return [str(v)]


def command(r) -> list[str]:
    return ["swift", "rlhf" if r.stage == "dpo" else r.stage]


def write(r, opts, model: str, dataset: str, output_dir: str, header: list[str], env: dict,
          ds_json: str | None = None) -> dict[str, str]:
    """{SWIFT_SH: text}: the plan's environment, NPROC_PER_NODE (and NNODES for several nodes), then `swift ...`
    with every argument; extra arguments given to the script are passed on (`bash swift_sft.sh --model_type qwen2`)."""
    import shlex

    args = arguments(r, opts, model, dataset, output_dir, ds_json)
    lines = ["#!/usr/bin/env bash", *header,
             "# ms-swift >= 4.0 (`pip install ms-swift`); 3.x spells --tuner_type as --train_type",
             "# Usage: bash " + SWIFT_SH + " [extra swift arguments, e.g. --model_type NAME --template NAME]"
             + ("  (on every node, with NODE_RANK and MASTER_ADDR set)" if r.nodes > 1 else ""),
             "set -euo pipefail", ""]
    for k in sorted(env):
        lines.append(f"export {k}={shlex.quote(str(env[k]))}")
    # swift/cli/main.py starts torchrun with these: one process per GPU (without NPROC_PER_NODE a single process
    # spreads the model over every visible GPU, device_map)
    lines.append(f"export NPROC_PER_NODE={r.gpus}")
    if r.nodes > 1:
        lines += [f"export NNODES={r.nodes}", 'export NODE_RANK="${NODE_RANK:?set NODE_RANK (0 on the first node)}"',
                  'export MASTER_ADDR="${MASTER_ADDR:?set MASTER_ADDR (the first node)}"',
                  f'export MASTER_PORT="${{MASTER_PORT:-{opts.master_port}}}"']
    lines.append("")
    body = [" ".join(command(r))]
    for k, v in args:
        body.append(" ".join([f"--{k}", *(shlex.quote(w) for w in _word(v))]))
    body.append('"$@"')
    lines.append("exec " + " \\\n  ".join(body))
    return {SWIFT_SH: "\n".join(lines) + "\n"}
