"""The training-configuration flags shared by `rocm-tune estimate` and `rocm-tune plan`.

Every flag defaults to None: `estimate` fills TrainConfig's defaults, `plan` lets the planner choose.
"""

from __future__ import annotations

import argparse

from rocm_tune.commands._common import int_range
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.memory.estimate import TrainConfig
from rocm_tune.core.vocabulary import ATTNS, METHODS, OFFLOADS, OPTIMS, PRECISIONS, STAGES


def _int_limit(flag: str, name: str):
    lim = V.LIMITS[name]
    return int_range(flag, int(lim.lo), int(lim.hi))


def choice_type(flag: str, allowed: tuple[str, ...]):
    def parse(text: str) -> str:
        value = text.strip().lower().replace("-", "_") if flag in ("--precision", "--optim") else text.strip().lower()
        if value not in allowed:
            raise UserError(f"{flag} {text!r} is not known; expected one of: {', '.join(allowed)}")
        return value

    parse.__name__ = flag
    return parse


def _zero(text: str) -> int:
    if text.strip() not in tuple(str(z) for z in V.ZERO_STAGES):
        raise UserError(f"--zero {text!r} is not a ZeRO stage; expected 0, 1, 2 or 3")
    return int(text)


def _targets(text: str) -> str:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise UserError(f"--lora-target {text!r} is empty; use 'all' or names like q_proj,v_proj")
    for n in names:
        if not all(ch.isalnum() or ch in "_." for ch in n):
            raise UserError(f"--lora-target {n!r} is not a module name; use 'all' or names like q_proj,v_proj")
    return ",".join(names)


def add_train_flags(parser: argparse.ArgumentParser) -> None:
    """Register the training-configuration flags (all default None)."""
    g = parser.add_argument_group("training configuration")
    g.add_argument("--model", "-m", default=None,
                   help="preset name, model directory, config.json, or a hub id in the local HF/ModelScope cache")
    g.add_argument("--method", type=choice_type("--method", METHODS), default=None,
                   help="full | freeze | lora | qlora (default lora)")
    g.add_argument("--lora-rank", type=_int_limit("--lora-rank", "lora_rank"), default=None, help="LoRA rank (default 8)")
    g.add_argument("--lora-alpha", type=_int_limit("--lora-alpha", "lora_alpha"), default=None,
                   help="LoRA alpha (default 2 x rank)")
    g.add_argument("--lora-target", type=_targets, default=None,
                   help="all (every linear of the decoder layers) or a comma list, e.g. q_proj,v_proj")
    g.add_argument("--dora", action="store_true", default=None, help="DoRA (weight-decomposed LoRA)")
    g.add_argument("--quant-bits", type=int_range("--quant-bits", 1, 64), choices=list(V.QUANT_BITS), default=None, help="qlora: 4 (NF4) or 8 bit (default 4)")
    g.add_argument("--double-quant", action=argparse.BooleanOptionalAction, default=None,
                   help="qlora 4-bit: quantise the quantisation constants too (default on)")
    g.add_argument("--freeze-layers", dest="freeze_trainable_layers",
                   type=_int_limit("--freeze-layers", "freeze_trainable_layers"), default=None,
                   help="freeze: the last N decoder layers train (default 2)")
    g.add_argument("--precision", type=choice_type("--precision", PRECISIONS), default=None,
                   help="fp32 | bf16 | fp16 | pure_bf16 (default bf16)")
    g.add_argument("--cutoff-len", type=_int_limit("--cutoff-len", "cutoff_len"), default=None,
                   help="sequence length in tokens (default 1024)")
    g.add_argument("--micro-batch", type=_int_limit("--micro-batch", "micro_batch"), default=None,
                   help="per-device batch size (default 1)")
    g.add_argument("--gradient-checkpointing", dest="gradient_checkpointing",
                   action=argparse.BooleanOptionalAction, default=None,
                   help="recompute each decoder layer in backward (default on)")
    g.add_argument("--attn", type=choice_type("--attn", ATTNS), default=None, help="eager | sdpa | fa2 (default sdpa)")
    g.add_argument("--optim", type=choice_type("--optim", OPTIMS), default=None,
                   help=f"{' | '.join(OPTIMS)} (default adamw)")
    g.add_argument("--gpus", type=_int_limit("--gpus", "gpus"), default=None, help="GPUs per node (default 1)")
    g.add_argument("--nodes", type=_int_limit("--nodes", "nodes"), default=None, help="nodes (default 1)")
    g.add_argument("--zero", type=_zero, default=None, help="DeepSpeed ZeRO stage 0-3 (0 = DDP / single GPU)")
    g.add_argument("--offload", type=choice_type("--offload", OFFLOADS), default=None,
                   help="none | optimizer | all (DeepSpeed CPU offload)")
    g.add_argument("--stage", type=choice_type("--stage", STAGES), default=None, help="sft | dpo | pt (default sft)")


_FIELDS = {
    "method": "method", "lora_rank": "lora_rank", "lora_alpha": "lora_alpha", "dora": "dora",
    "quant_bits": "quant_bits", "double_quant": "double_quant",
    "freeze_trainable_layers": "freeze_trainable_layers", "precision": "precision", "cutoff_len": "cutoff_len",
    "micro_batch": "micro_batch", "gradient_checkpointing": "gradient_checkpointing", "attn": "attn",
    "optim": "optim", "gpus": "gpus", "nodes": "nodes", "zero": "zero_stage", "offload": "offload",
    "stage": "stage",
}


def check_method_flags(args: argparse.Namespace, method: str) -> None:
    """UserError when a flag of one fine-tuning method is given with another (it would be ignored)."""
    if method in ("full", "freeze"):
        for dest, flag in (("lora_rank", "--lora-rank"), ("lora_alpha", "--lora-alpha"),
                           ("lora_target", "--lora-target"), ("dora", "--dora")):
            if getattr(args, dest, None) is not None:
                raise UserError(f"{flag} only applies to --method lora or qlora, not --method {method}")
    if method != "qlora":
        for dest, flag in (("quant_bits", "--quant-bits"), ("double_quant", "--double-quant/--no-double-quant")):
            if getattr(args, dest, None) is not None:
                raise UserError(f"{flag} only applies to --method qlora, not --method {method}")
    elif getattr(args, "double_quant", None) is not None and getattr(args, "quant_bits", None) == 8:
        raise UserError("--double-quant/--no-double-quant only applies to 4-bit QLoRA, not --quant-bits 8")
    if method != "freeze" and getattr(args, "freeze_trainable_layers", None) is not None:
        raise UserError(f"--freeze-layers only applies to --method freeze, not --method {method}")


def train_config_from_args(args: argparse.Namespace, **overrides) -> TrainConfig:
    """TrainConfig from parsed flags (None = default), then `overrides` (TrainConfig field names)."""
    values: dict = {}
    for dest, fld in _FIELDS.items():
        v = getattr(args, dest, None)
        if v is not None:
            values[fld] = v
    target = getattr(args, "lora_target", None)
    if target is not None:
        values["lora_targets"] = tuple(t for t in str(target).split(",") if t)
    values.update({k: v for k, v in overrides.items() if v is not None})
    method = values.get("method", "lora")
    check_method_flags(args, method)
    cfg = TrainConfig(**values)
    cfg.validate()
    return cfg
