"""The training config YAML of `rocm-tune train` (LLaMA-Factory 0.9.x key names).

One file runs under `llamafactory-cli train` and `rocm-tune train`. Additionally accepted here:
`train_file: PATH` (a local alpaca/sharegpt/messages JSON/JSONL) and `nan_policy: stop|skip`.
Unknown keys are refused (as LLaMA-Factory does); LLaMA-Factory keys that the built-in trainer does
not implement are accepted and reported in `ignored`. No heavy imports here.
"""

from __future__ import annotations

import difflib
import math
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.runners import llamafactory

# LLaMA-Factory keys accepted but not acted on by the built-in trainer (reported as ignored)
IGNORED_KEYS = frozenset("""
preprocessing_num_workers overwrite_cache plot_loss tokenized_path streaming buffer_size mix_strategy
interleave_probs image_max_pixels image_min_pixels video_max_pixels video_fps cache_dir use_fast_tokenizer
resize_vocab split_special_tokens new_special_tokens model_revision low_cpu_mem_usage rope_scaling shift_attn
enable_liger_kernel use_unsloth infer_backend print_param_status logging_dir run_name upcast_layernorm
quantization_method quantization_type use_rslora pissa_init create_new_adapter enable_thinking mask_history
freeze_trainable_modules freeze_extra_modules additional_target neat_packing tf32 include_num_input_tokens_seen
ignore_data_skip dataloader_pin_memory ddp_backend lr_scheduler_kwargs hub_model_id push_to_hub
disable_shuffling flash_attn_impl moe_aux_loss_coef do_eval do_predict predict_with_generate
""".split())

STAGES = ("sft", "pt")
FINETUNING = ("lora", "full", "freeze")
NAN_POLICIES = ("stop", "skip")
FLASH_ATTN = ("auto", "disabled", "sdpa", "fa2")
SCHEDULERS = ("linear", "cosine", "cosine_with_restarts", "polynomial", "constant", "constant_with_warmup",
              "inverse_sqrt", "reduce_lr_on_plateau", "cosine_with_min_lr", "warmup_stable_decay")


@dataclass(frozen=True)
class TrainerConfig:
    model_name_or_path: str
    output_dir: str = "output"
    trust_remote_code: bool = False
    stage: str = "sft"
    do_train: bool = True
    finetuning_type: str = "lora"
    lora_rank: int = 8
    lora_alpha: int | None = None
    lora_dropout: float = 0.0
    lora_target: str = "all"
    use_dora: bool = False
    freeze_trainable_layers: int = 2
    quantization_bit: int | None = None
    double_quantization: bool = True
    dataset: str | None = None
    dataset_dir: str = "data"
    train_file: str | None = None
    template: str | None = None
    cutoff_len: int = 2048
    packing: bool = False
    train_on_prompt: bool = False
    max_samples: int | None = None
    val_size: float = 0.0
    overwrite_output_dir: bool = False
    logging_steps: int = 10
    save_steps: int = 500
    save_total_limit: int | None = None
    save_only_model: bool = False
    eval_steps: int | None = None
    eval_strategy: str = "no"
    per_device_train_batch_size: int = 1
    per_device_eval_batch_size: int = 1
    gradient_accumulation_steps: int = 1
    learning_rate: float = 5e-5
    weight_decay: float = 0.0
    num_train_epochs: float = 3.0
    max_steps: int = -1
    lr_scheduler_type: str = "linear"
    warmup_ratio: float = 0.0
    warmup_steps: float = 0  # >= 1: steps; 0 < x < 1: a ratio (transformers >= 5.2 reads it so)
    max_grad_norm: float = 1.0
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_epsilon: float = 1e-8
    bf16: bool = False
    fp16: bool = False
    pure_bf16: bool = False
    gradient_checkpointing: bool = True
    use_reentrant_gc: bool = False  # LLaMA-Factory's name; DDP + LoRA needs False
    flash_attn: str = "auto"
    optim: str = "adamw_torch"
    deepspeed: str | None = None
    ddp_find_unused_parameters: bool | None = False
    ddp_timeout: int = 7200  # until the Trainer is built; then ROCM_TUNE_HANG_TIMEOUT (train.callbacks)
    resume_from_checkpoint: Any = None      # None | True | "path"
    seed: int = 42
    report_to: str = "none"
    dataloader_num_workers: int = 0
    nan_policy: str = "stop"
    use_cpu: bool = False
    ignored: tuple[str, ...] = field(default=(), compare=False)
    source: str | None = field(default=None, compare=False)

    @property
    def precision(self) -> str:
        """fp32 | bf16 | fp16 | pure_bf16 (the estimator's regimes)."""
        if self.pure_bf16:
            return "pure_bf16"
        if self.bf16:
            return "bf16"
        if self.fp16:
            return "fp16"
        return "fp32"

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("ignored", "source")}
        return d


_FIELD_TYPES: dict[str, str] = {}


def _kind(f) -> str:
    t = str(f.type)
    for name in ("bool", "int", "float", "str"):
        if t.startswith(name):
            return name
    return "any"


_FIELDS = {f.name: f for f in fields(TrainerConfig) if f.name not in ("ignored", "source")}
# LLaMA-Factory spells the gradient checkpointing switch as its negation
ALIASES = {"disable_gradient_checkpointing": "gradient_checkpointing"}


def _coerce(key: str, value: Any, kind: str) -> Any:
    bad = UserError(f"config key {key!r}: expected {kind}, got {value!r}")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.strip().lower() in ("true", "yes", "1")
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise bad
    if kind == "int":
        if isinstance(value, bool):
            raise bad
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(float(value)) if float(value).is_integer() else int(value)
            except ValueError:
                raise bad from None
        raise bad
    if kind == "float":
        if isinstance(value, bool):
            raise bad
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise bad from None
        if math.isnan(v) or math.isinf(v):
            raise bad
        return v
    if kind == "str":
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
            return ",".join(value)
        raise bad
    return value


def config_from_dict(data: dict, *, base_dir: str | os.PathLike | None = None, source: str | None = None) -> TrainerConfig:
    """Validate a parsed YAML mapping; relative paths are taken relative to `base_dir`."""
    if not isinstance(data, dict):
        raise UserError(f"the training config must be a mapping of keys to values, got {type(data).__name__}")
    values: dict[str, Any] = {}
    ignored: list[str] = []
    for raw_key, value in data.items():
        key = str(raw_key)
        if key in ALIASES:
            target = ALIASES[key]
            values[target] = not _coerce(key, value, "bool")
            continue
        if key in _FIELDS:
            if value is None:
                continue
            f = _FIELDS[key]
            kind = _kind(f)
            if key == "resume_from_checkpoint":
                if isinstance(value, bool) or (isinstance(value, str) and value.lower() in ("true", "false")):
                    value = _coerce(key, value, "bool")
                    values[key] = True if value else None
                else:
                    values[key] = _coerce(key, value, "str")
                continue
            if key == "ddp_find_unused_parameters":
                values[key] = _coerce(key, value, "bool")
                continue
            if key in ("lora_alpha", "quantization_bit", "max_samples", "save_total_limit", "eval_steps"):
                kind = "int"
            if key in ("dataset", "train_file", "template", "deepspeed"):
                kind = "str"
            values[key] = _coerce(key, value, kind)
            continue
        if key in IGNORED_KEYS:
            ignored.append(key)
            continue
        close = difflib.get_close_matches(key, list(_FIELDS) + list(ALIASES) + sorted(IGNORED_KEYS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UserError(f"unknown config key {key!r}{hint}; the built-in trainer reads LLaMA-Factory key names")
    if "model_name_or_path" not in values:
        raise UserError("the training config needs model_name_or_path (a local model directory)")
    base = Path(base_dir) if base_dir else Path.cwd()

    def _abs(p: str | None) -> str | None:
        if p is None:
            return None
        q = Path(os.path.expanduser(p))
        return str(q if q.is_absolute() else (base / q))

    # model path: local directory (nothing is downloaded)
    mp = Path(os.path.expanduser(values["model_name_or_path"]))
    if not mp.is_absolute() and (base / mp).exists():
        values["model_name_or_path"] = str(base / mp)
    for key in ("train_file", "deepspeed"):
        if key in values:
            values[key] = _abs(values[key])
    values["dataset_dir"] = _abs(values.get("dataset_dir", "data"))
    values["output_dir"] = _abs(values.get("output_dir", "output"))
    if isinstance(values.get("resume_from_checkpoint"), str):
        values["resume_from_checkpoint"] = _abs(values["resume_from_checkpoint"])
    cfg = TrainerConfig(**values, ignored=tuple(ignored), source=source)
    validate(cfg)
    return cfg


def _check_range(key: str, v: float, lo: float, hi: float) -> None:
    if not lo <= v <= hi:
        raise UserError(f"config key {key!r} must be between {lo:g} and {hi:g}, got {v}")


def validate(cfg: TrainerConfig) -> None:
    if cfg.stage not in STAGES:
        extra = " (DPO needs LLaMA-Factory: llamafactory-cli train)" if cfg.stage in ("dpo", "rm", "ppo", "kto") else ""
        raise UserError(f"stage {cfg.stage!r} is not supported by rocm-tune train; allowed: {', '.join(STAGES)}{extra}")
    if not cfg.do_train:
        raise UserError("do_train is false: rocm-tune train only trains (set do_train: true)")
    if cfg.finetuning_type not in FINETUNING:
        raise UserError(f"finetuning_type {cfg.finetuning_type!r} is not one of {', '.join(FINETUNING)}")
    if cfg.nan_policy not in NAN_POLICIES:
        raise UserError(f"nan_policy {cfg.nan_policy!r} is not one of {', '.join(NAN_POLICIES)}")
    if cfg.flash_attn not in FLASH_ATTN:
        raise UserError(f"flash_attn {cfg.flash_attn!r} is not one of {', '.join(FLASH_ATTN)}")
    if cfg.lr_scheduler_type not in SCHEDULERS:
        raise UserError(f"lr_scheduler_type {cfg.lr_scheduler_type!r} is not one of {', '.join(SCHEDULERS)}")
    _check_range("lora_rank", cfg.lora_rank, 1, 65536)
    if cfg.lora_alpha is not None:
        _check_range("lora_alpha", cfg.lora_alpha, 1, 1 << 20)
    _check_range("lora_dropout", cfg.lora_dropout, 0, 0.99)
    _check_range("freeze_trainable_layers", abs(cfg.freeze_trainable_layers), 1, 100_000)
    if cfg.quantization_bit is not None and cfg.quantization_bit not in (4, 8):
        raise UserError(f"quantization_bit must be 4 or 8, got {cfg.quantization_bit}")
    if cfg.quantization_bit is not None and cfg.finetuning_type != "lora":
        raise UserError("quantization_bit (QLoRA) needs finetuning_type: lora")
    _check_range("cutoff_len", cfg.cutoff_len, 8, 1_048_576)
    if cfg.max_samples is not None:
        _check_range("max_samples", cfg.max_samples, 1, 10**12)
    _check_range("val_size", cfg.val_size, 0, 0.9)
    _check_range("logging_steps", cfg.logging_steps, 1, 10**9)
    _check_range("save_steps", cfg.save_steps, 1, 10**9)
    _check_range("per_device_train_batch_size", cfg.per_device_train_batch_size, 1, 65536)
    _check_range("per_device_eval_batch_size", cfg.per_device_eval_batch_size, 1, 65536)
    _check_range("gradient_accumulation_steps", cfg.gradient_accumulation_steps, 1, 1 << 20)
    _check_range("learning_rate", cfg.learning_rate, 0, 10)
    _check_range("num_train_epochs", cfg.num_train_epochs, 0, 1e6)
    if cfg.max_steps != -1:
        _check_range("max_steps", cfg.max_steps, 1, 10**12)
    if cfg.max_steps == -1 and cfg.num_train_epochs <= 0:
        raise UserError("num_train_epochs must be > 0 when max_steps is not set")
    _check_range("warmup_ratio", cfg.warmup_ratio, 0, 1)
    _check_range("warmup_steps", cfg.warmup_steps, 0, 10**9)
    if cfg.warmup_steps >= 1 and not float(cfg.warmup_steps).is_integer():
        raise UserError(f"config key 'warmup_steps' must be a whole number of steps or a ratio below 1, got {cfg.warmup_steps}")
    _check_range("max_grad_norm", cfg.max_grad_norm, 0, 1e6)
    if sum((cfg.bf16, cfg.fp16)) > 1:
        raise UserError("bf16 and fp16 are both true; choose one precision")
    if cfg.pure_bf16 and cfg.fp16:
        raise UserError("pure_bf16 and fp16 are both true; choose one precision")
    if cfg.train_file is None and not cfg.dataset:
        raise UserError("the training config needs dataset (+ dataset_dir) or train_file (a local JSON/JSONL file)")
    if cfg.train_file is not None and not Path(cfg.train_file).is_file():
        raise UserError(f"train_file {cfg.train_file!r} does not exist")
    mp = Path(os.path.expanduser(cfg.model_name_or_path))
    if not mp.is_dir() or not (mp / "config.json").is_file():
        raise UserError(
            f"model_name_or_path {cfg.model_name_or_path!r} is not a local model directory with config.json "
            "(rocm-tune train downloads nothing; download it first or point at the local copy)"
        )
    if cfg.deepspeed is not None and not Path(cfg.deepspeed).is_file():
        raise UserError(f"deepspeed config {cfg.deepspeed!r} does not exist")
    rc = cfg.resume_from_checkpoint
    if isinstance(rc, str) and not Path(rc).is_dir():
        raise UserError(f"resume_from_checkpoint {rc!r} is not a checkpoint directory")


def load_config(path: str | os.PathLike, **overrides: Any) -> TrainerConfig:
    """Read and validate a training YAML; `overrides` (not None) replace keys."""
    p = Path(path).expanduser()
    data = llamafactory.load_file(p, "training config")    # the one LLaMA-Factory reader
    for k, v in overrides.items():
        if v is not None:
            data[k] = v
    return config_from_dict(data, base_dir=p.resolve().parent, source=str(p.resolve()))


def config_to_yaml(data: dict) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False)


# ----------------------------------------------------------------------------------------------
# plan.json -> built-in trainer config


_OPTIM_MAP = V.HF_OPTIM              # the one optimizer map (core.vocabulary)
_ATTN_MAP = V.LLAMAFACTORY_ATTN


def zero_stage_of(deepspeed: str | None) -> int | None:
    """The ZeRO stage a DeepSpeed JSON file names (None: no file, unreadable, or no stage)."""
    if not deepspeed or not os.path.isfile(deepspeed):
        return None
    from rocm_tune.core.files import load_json, read_text
    from rocm_tune.core.runners import deepspeed as ds

    try:
        data = load_json(read_text(deepspeed, "DeepSpeed config"), deepspeed, "DeepSpeed config")
    except (OSError, ValueError, UserError):
        return None
    return ds.read(data, "", deepspeed).stage if isinstance(data, dict) else None


def reentrant_needed(cfg: TrainerConfig) -> bool:
    """LoRA + DeepSpeed ZeRO-3 + gradient checkpointing must recompute reentrantly: non-reentrant recomputation
    finds the layer's parameters partitioned again (shape [0]) and torch raises CheckpointError
    (deepspeedai/DeepSpeed#8148; TRL forces the same for PEFT + ZeRO-3, trl#2514)."""
    return bool(cfg.gradient_checkpointing and not cfg.use_reentrant_gc
                and V.use_reentrant_for(cfg.finetuning_type == "lora", zero_stage_of(cfg.deepspeed) or 0))


def config_dict_from_plan(plan: dict, *, dataset: str | None = None, output_dir: str = "output") -> dict:
    """The `rocm-tune train` YAML mapping that carries out a plan.json (see docs/internals.md)."""
    if not isinstance(plan, dict) or not isinstance(plan.get("recommended"), dict):
        raise UserError("the plan has no \"recommended\" configuration")
    rec = plan["recommended"]
    model = plan.get("model") or {}
    goal = plan.get("goal") or {}
    ref = model.get("ref")
    if not ref:
        raise UserError("the plan names no model (model.ref)")
    data_path = dataset or goal.get("dataset")
    if not data_path:
        raise UserError("the plan names no dataset (goal.dataset); pass a local dataset file")
    method = rec.get("method") or goal.get("method") or "lora"
    prec = rec.get("precision") or "fp32"
    out: dict[str, Any] = {
        "model_name_or_path": ref,
        "stage": goal.get("stage") or "sft",
        "do_train": True,
        "finetuning_type": "lora" if method in ("lora", "qlora", "dora") else method,
    }
    if out["finetuning_type"] == "lora":
        out["lora_rank"] = int(rec.get("lora_rank") or goal.get("lora_rank") or 8)
        alpha = rec.get("lora_alpha") or goal.get("lora_alpha")
        if alpha:
            out["lora_alpha"] = int(alpha)
        targets = rec.get("lora_targets") or goal.get("lora_targets") or ["all"]
        out["lora_target"] = targets if isinstance(targets, str) else ",".join(targets)
        if method == "qlora":
            out["quantization_bit"] = int(rec.get("quant_bits") or 4)
        if rec.get("dora") or method == "dora":
            out["use_dora"] = True
    train_file_like = str(data_path).endswith((".json", ".jsonl")) or os.path.isfile(str(data_path))
    if train_file_like:
        out["train_file"] = str(data_path)
    else:
        out["dataset"] = str(data_path)
    out.update({
        "cutoff_len": int(rec.get("cutoff_len") or 1024),
        "output_dir": output_dir,
        "logging_steps": 1,
        "save_steps": 500,
        "per_device_train_batch_size": int(rec.get("micro_batch") or 1),
        "gradient_accumulation_steps": int(rec.get("grad_accum") or 1),
        "learning_rate": float(rec.get("learning_rate") or V.learning_rate_for(method, out["stage"])),
        "num_train_epochs": float(rec.get("epochs") or goal.get("epochs") or 3),
        "lr_scheduler_type": "cosine",
        "warmup_ratio": 0.1,
        "bf16": prec == "bf16",
        "fp16": prec == "fp16",
        "pure_bf16": prec == "pure_bf16",
        "disable_gradient_checkpointing": not bool(rec.get("gradient_checkpointing", True)),
        "use_reentrant_gc": rec.get("use_reentrant") is True,     # True only for LoRA + ZeRO-3 (DeepSpeed#8148)
        "flash_attn": _ATTN_MAP.get(rec.get("attn") or "sdpa", "auto"),
        "optim": _OPTIM_MAP.get(rec.get("optim") or "adamw", "adamw_torch"),
        "ddp_find_unused_parameters": bool(rec.get("ddp_find_unused_parameters", False)),
        "report_to": "none",
    })
    return out
