"""Every choice, limit and default of a training plan, in one place.

argparse flags (`commands/_flags.py`, `commands/plan.py`), the wizard's questions
(`core/plan/questions.py`), the app's editable fields (`tui/plan_model.py`), the planner's request
validation, the plan.json reader (`core/plan/plan.py`) and the exporters read these names; nothing
else spells an allowed value, a bound or a default. Pure data plus two small checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from rocm_tune.core.errors import UserError

# --------------------------------------------------------------------------- enums

METHODS: Final = ("full", "freeze", "lora", "qlora")
LORA_METHODS: Final = ("lora", "qlora")
STAGES: Final = ("sft", "dpo", "pt")
PRECISIONS: Final = ("fp32", "bf16", "fp16", "pure_bf16")
ATTNS: Final = ("eager", "sdpa", "fa2")
OFFLOADS: Final = ("none", "optimizer", "all")
ZERO_STAGES: Final = (0, 1, 2, 3)
OPTIMS: Final = ("adamw", "adamw_8bit", "paged_adamw", "paged_adamw_8bit", "sgd", "sgd_momentum", "adafactor")
SCHEDULERS: Final = ("cosine", "linear", "constant", "constant_with_warmup", "cosine_with_restarts", "polynomial")
PRIORITIES: Final = ("stability", "speed", "context")
# how the plan starts its processes: one Python process, or torchrun (one per GPU; DeepSpeed via its JSON)
LAUNCHERS: Final = ("python", "torchrun")
# what runs the training loop (the plan's `recommended.runner`; the default export target)
RUNNERS: Final = ("llamafactory", "hf", "builtin")
QUANT_BITS: Final = (4, 8)

# plan optimizer name -> transformers TrainingArguments `optim` (OptimizerNames); the one map
HF_OPTIM: Final = {
    "adamw": "adamw_torch",
    "adamw_8bit": "adamw_8bit",
    "paged_adamw": "paged_adamw_32bit",
    "paged_adamw_8bit": "paged_adamw_8bit",
    "sgd": "sgd",
    "sgd_momentum": "sgd",
    "adafactor": "adafactor",
}
# plan attention -> LLaMA-Factory `flash_attn`
LLAMAFACTORY_ATTN: Final = {"eager": "disabled", "sdpa": "sdpa", "fa2": "fa2"}

# --------------------------------------------------------------------------- defaults

DEFAULT_METHOD: Final = "lora"
DEFAULT_STAGE: Final = "sft"
DEFAULT_PRIORITY: Final = "stability"
DEFAULT_RUNNER: Final = "llamafactory"
DEFAULT_OPTIM: Final = "adamw"
DEFAULT_SCHEDULER: Final = "cosine"
DEFAULT_EFFECTIVE_BATCH: Final = 64       # samples per optimizer step, all GPUs together
DEFAULT_EPOCHS: Final = 3.0
DEFAULT_CUTOFF: Final = 1024              # tokens, when no dataset sizes it
MIN_CUTOFF: Final = 128                   # the planner never shortens below this
MAX_SEARCH_MICRO_BATCH: Final = 64        # largest micro-batch the planner tries on its own
DEFAULT_PERCENTILE: Final = 95.0          # share of samples cutoff_len covers
DEFAULT_HEADROOM: Final = 0.85            # reserved + in use <= headroom x VRAM
TIGHT_FRACTION: Final = 0.80              # above this share of VRAM a plan is "tight"
CPU_RAM_USABLE: Final = 0.9               # offload may use this share of the CPU RAM
DEFAULT_LORA_RANK: Final = 8
DEFAULT_LORA_TARGETS: Final = ("all",)
DEFAULT_QUANT_BITS: Final = 4
DEFAULT_DOUBLE_QUANT: Final = True
DEFAULT_FREEZE_LAYERS: Final = 2
DEFAULT_LORA_DROPOUT: Final = 0.05
DEFAULT_WARMUP_RATIO: Final = 0.1
DEFAULT_MAX_GRAD_NORM: Final = 1.0


def default_lora_alpha(rank: int) -> int:
    """LoRA alpha when none is given: twice the rank (LLaMA-Factory's examples)."""
    return 2 * rank


def learning_rate_for(method: str, stage: str) -> float:
    """The usual starting learning rate (LLaMA-Factory examples): DPO 5e-6, full/freeze 1e-5, LoRA 1e-4."""
    if stage == "dpo":
        return 5e-6
    if method in ("full", "freeze"):
        return 1e-5
    return 1e-4


def use_reentrant_for(lora: bool, zero_stage: int) -> bool:
    """Gradient checkpointing's mode for a plan: non-reentrant (DDP + LoRA's reducer needs it: "Expected to mark a
    variable ready only once", field report 004), except LoRA under ZeRO-3: there the recomputation finds the layer's
    parameters partitioned again (shape [0]) and torch raises CheckpointError (deepspeedai/DeepSpeed#8148; TRL forces
    reentrant for PEFT + ZeRO-3 since, trl#2514)."""
    return bool(lora and zero_stage == 3)


# --------------------------------------------------------------------------- limits


@dataclass(frozen=True)
class Limit:
    """Inclusive bounds of one number; `integer` says whether fractions are allowed."""

    lo: float
    hi: float
    integer: bool = True

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a number"
        return f"{kind} between {_g(self.lo)} and {_g(self.hi)}"


LIMITS: Final = {
    "gpus": Limit(1, 1024),                 # per node
    "nodes": Limit(1, 4096),
    "effective_batch": Limit(1, 1_000_000),
    "micro_batch": Limit(1, 65_536),
    "grad_accum": Limit(1, 1_048_576),
    "cutoff_len": Limit(1, 1_048_576),
    "lora_rank": Limit(1, 65_536),
    "lora_alpha": Limit(1, 1_048_576),
    "freeze_trainable_layers": Limit(1, 100_000),
    "epochs": Limit(0.01, 10_000, integer=False),
    "hours": Limit(0.01, 100_000, integer=False),
    "headroom": Limit(0.1, 1.0, integer=False),
    "percentile": Limit(1, 100, integer=False),
    "cpu_ram_gib": Limit(1, 1_048_576, integer=False),
    "vram_gib": Limit(0.5, 4096, integer=False),
    "learning_rate": Limit(1e-12, 10.0, integer=False),
}


def _g(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def check_number(name: str, value: object, limit: Limit | None = None, *, where: str = "") -> float | int:
    """`value` if it is a finite number within the limits of `name`, else a one-line UserError."""
    lim = limit or LIMITS[name]
    label = f"{where}{name}"
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok and lim.integer and not isinstance(value, int):
        ok = False
    if ok and not math.isfinite(float(value)):  # type: ignore[arg-type]
        ok = False
    if not ok or not lim.lo <= float(value) <= lim.hi:  # type: ignore[arg-type]
        raise UserError(f"{label} must be {lim.describe()}, got {_shown(value)}")
    return value  # type: ignore[return-value]


def check_choice(name: str, value: object, allowed: tuple, *, where: str = "") -> object:
    """`value` if it is one of `allowed`, else a one-line UserError naming them."""
    if isinstance(value, bool) or value not in allowed:
        raise UserError(f"{where}{name} must be one of {', '.join(str(a) for a in allowed)}, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)             # inf, -inf, nan
    return repr(value)


# --------------------------------------------------------------------------- combinations


def offload_problem(offload: str | None, zero_stage: int | None) -> str | None:
    """Why this offload cannot run with this ZeRO stage, or None. The one check and message.

    DeepSpeed builds the same optimizer for ZeRO-1 and ZeRO-2 (`DeepSpeedZeroOptimizer`, given
    `offload_optimizer_config` in both stages: deepspeed/runtime/engine.py
    `_configure_zero_optimizer`), so optimizer offload works from ZeRO-1 up; parameters can only be
    offloaded where they are partitioned, ZeRO-3.
    """
    if offload in (None, "none") or zero_stage is None:
        return None
    if offload == "optimizer" and zero_stage == 0:
        return "offload 'optimizer' needs DeepSpeed ZeRO (zero stage 1, 2 or 3), got zero stage 0"
    if offload == "all" and zero_stage != 3:
        return f"offload 'all' (parameters too) needs ZeRO-3, got zero stage {zero_stage}"
    return None
