"""What each runner really executes: the dtypes of every tensor class, read from the runners' source.

`regime(model, cfg)` returns the `Regime` the memory estimator uses (frozen weights, trainable weights,
gradients, optimizer state, compute dtype, autocast) for ``cfg.runner``; `execution(model, cfg, gpu)`
states it in words for the plan's explanation and `estimate`/`plan` output, with a warning when the
runner does not run the precision that was asked for. Each runner's facts live in its own module with
the source file and commit they were read from (``Fact``). Pure: standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rocm_tune.core.errors import UserError
from rocm_tune.core.vocabulary import RUNNERS

DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
_HF_NAMES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16", "float": "fp32", "half": "fp16"}


@dataclass(frozen=True)
class Fact:
    """One behaviour of a runner, with where it was read."""

    claim: str
    source: str   # repository:path (function)
    commit: str   # the commit (or release) it was read at


@dataclass(frozen=True)
class Regime:
    """The dtypes one training step really uses under a runner."""

    runner: str
    requested: str            # the precision the plan asked for (fp32 | bf16 | fp16 | pure_bf16)
    frozen_dtype: str         # storage of frozen weights (fp32 | bf16 | fp16)
    trainable_dtype: str      # storage of trainable weights; their gradients and optimizer moments too
    compute_dtype: str        # dtype of the activations the decoder layers produce
    autocast: str | None      # torch.autocast dtype, or None when no autocast runs
    checkpoint_dtype: str     # the dtype config.json names (what torch_dtype="auto" loads)
    ignores_request: bool = False   # what runs is not the precision that was asked for
    notes: tuple[str, ...] = ()
    optimizer_dtype: str | None = None  # optimizer moments (and master weights) when not trainable_dtype

    @property
    def optimizer_state_dtype(self) -> str:
        return self.optimizer_dtype or self.trainable_dtype

    def dtypes_words(self) -> str:
        """"trainable weights/gradients/optimizer state X", or the two apart when DeepSpeed keeps fp32 masters."""
        if self.optimizer_state_dtype == self.trainable_dtype:
            return f"trainable weights/gradients/optimizer state {self.trainable_dtype}"
        return (f"trainable weights/gradients {self.trainable_dtype}, optimizer state and master weights "
                f"{self.optimizer_state_dtype}")

    @property
    def frozen_bytes(self) -> int:
        return DTYPE_BYTES[self.frozen_dtype]

    @property
    def trainable_bytes(self) -> int:
        return DTYPE_BYTES[self.trainable_dtype]

    @property
    def compute_bytes(self) -> int:
        return DTYPE_BYTES[self.compute_dtype]

    @property
    def mixed(self) -> bool:
        """Autocast over fp32 trainable weights (the classic AMP regime)."""
        return self.autocast is not None

    def to_dict(self) -> dict:
        return {"runner": self.runner, "requested": self.requested, "frozen_weights": self.frozen_dtype,
                "trainable_weights": self.trainable_dtype, "gradients": self.trainable_dtype,
                "optimizer_state": self.optimizer_state_dtype, "compute": self.compute_dtype,
                "autocast": self.autocast, "ignores_request": self.ignores_request}


def checkpoint_dtype(model) -> str:
    """The dtype ``torch_dtype="auto"`` loads: config.json's torch_dtype (fp32 when it names none)."""
    return _HF_NAMES.get(str(getattr(model, "torch_dtype", None) or "float32"), "fp32")


def check_runner(runner) -> None:
    if runner not in RUNNERS:
        raise UserError(f"runner {runner!r} is not known; expected one of: {', '.join(RUNNERS)}")


# How rocm-tune's bundles start LLaMA-Factory: always through `lf_launch` (the bundle's own copy of
# rocm_tune/train/lf_launch.py), which records measured memory and dtypes per rank and, for fp32, pins the
# dtype before the model loads. Stock `llamafactory-cli train` with bf16 and fp16 off keeps a bf16 checkpoint
# in bf16 on every ROCm GPU (see llamafactory.py); the pin makes "fp32" mean fp32.
LF_LAUNCH_FILE = "lf_launch.py"


def compute_pin(runner: str, precision: str) -> str | None:
    """The dtype a rocm-tune bundle pins for (runner, precision): fp32 under LLaMA-Factory, else None (the
    YAML's bf16/fp16/pure_bf16 switches already set LLaMA-Factory's compute dtype)."""
    return "fp32" if runner == "llamafactory" and precision == "fp32" else None


def cfg_pin(cfg) -> str | None:
    """The pinned dtype of a TrainConfig: only LLaMA-Factory started through lf_launch (``cfg.lf_launch``)."""
    if getattr(cfg, "runner", None) != "llamafactory" or not getattr(cfg, "lf_launch", False):
        return None
    return compute_pin(cfg.runner, cfg.precision)


def _pinned(model, cfg, pin: str) -> Regime:
    """LLaMA-Factory under `lf_launch --compute-dtype PIN`: infer_optim_dtype answers PIN and the config's dtype
    is set to PIN before from_pretrained, so frozen weights load and compute in PIN; trainable parameters are
    cast to fp32 (init_adapter) or, under ZeRO-3, kept as loaded (PIN); no autocast (bf16/fp16 off)."""
    ckpt = checkpoint_dtype(model)
    trainable = "fp32" if pin == "fp32" or not (cfg.zero_stage == 3 and cfg.method != "qlora") else pin
    note = (f"LLaMA-Factory is started through {LF_LAUNCH_FILE} --compute-dtype {pin}: the {ckpt} checkpoint is "
            f"loaded and computed in {pin} (stock llamafactory-cli would keep it in {ckpt})") if ckpt != pin else (
            f"LLaMA-Factory is started through {LF_LAUNCH_FILE} --compute-dtype {pin}")
    return Regime("llamafactory", cfg.precision, pin, trainable, pin, None, ckpt, cfg.precision != pin, (note,))


def regime(model, cfg) -> Regime:
    """The regime ``cfg.runner`` really runs for ``cfg`` on ``model`` (``cfg.lf_launch``: LLaMA-Factory started
    through rocm-tune's lf_launch, as every bundle does, which pins fp32; else stock ``llamafactory-cli``)."""
    runner = getattr(cfg, "runner", "builtin")
    check_runner(runner)
    pin = cfg_pin(cfg)
    if runner == "llamafactory" and pin:
        return _with_zero_masters(_pinned(model, cfg, pin), cfg)
    if runner == "llamafactory":
        from rocm_tune.core.runners import llamafactory
        return _with_zero_masters(llamafactory.regime(model, cfg), cfg)
    if runner == "hf":
        from rocm_tune.core.runners import hf
        return _with_zero_masters(hf.regime(model, cfg), cfg)
    from rocm_tune.core.runners import builtin
    return _with_zero_masters(builtin.regime(model, cfg), cfg)


def _with_zero_masters(r: Regime, cfg) -> Regime:
    """DeepSpeed ZeRO with bf16/fp16 trainable weights keeps an fp32 master copy and fp32 Adam moments
    (deepspeed/runtime/zero/stage_1_and_2.py and stage3.py: `single_partition_of_fp32_groups`,
    `fp32_partitioned_groups_flat`): the optimizer state is fp32 whatever the weights are. So does DeepSpeed at
    stage 0 (fp16/fused_optimizer.py FP16_Optimizer `fp32_groups_flat`, bf16_optimizer.py BF16_Optimizer)."""
    zero = int(getattr(cfg, "zero_stage", 0) or 0) > 0 or bool(getattr(cfg, "deepspeed", False))
    if zero and r.trainable_dtype in ("bf16", "fp16"):
        return replace(r, optimizer_dtype="fp32")
    return r


@dataclass(frozen=True)
class Execution:
    """What will really execute, in words, for the plan's explanation and the CLI."""

    regime: Regime
    lines: tuple[str, ...]
    warning: tuple[str, str, str] | None   # (code, message, fix) when the runner ignores the request
    launch: str = ""                       # how the runner is started, in words
    compute_pin: str | None = None         # the dtype lf_launch pins (None: not pinned)

    def to_dict(self) -> dict:
        d = self.regime.to_dict()
        d["checkpoint"] = self.regime.checkpoint_dtype
        d["launch"] = self.launch
        d["compute_pin"] = self.compute_pin
        d["summary"] = list(self.lines)
        d["warning"] = None if self.warning is None else {"code": self.warning[0], "message": self.warning[1],
                                                          "fix": self.warning[2]}
        return d


def execution(model, cfg, gpu=None) -> Execution:
    """State per runner what really executes for ``cfg`` (and on ``gpu`` when given)."""
    from rocm_tune.core.plan.warnings import LF_FP32_LAUNCHER

    r = regime(model, cfg)
    pin = cfg_pin(cfg)
    lines = [f"runner {r.runner}: frozen weights {r.frozen_dtype}, {r.dtypes_words()}, compute {r.compute_dtype}, "
             + (f"autocast {r.autocast}" if r.autocast else "no autocast")]
    lines.extend(r.notes)
    emulated = gpu is not None and getattr(gpu, "bf16", "native") in ("emulated", "none")
    if emulated and "bf16" in (r.compute_dtype, r.autocast, r.frozen_dtype):
        lines.append(f"bf16 has no hardware on {getattr(gpu, 'arch', 'this GPU')}: this run computes in emulated bf16")
    warning = None
    if r.ignores_request:
        what = (f"{r.runner} does not run the requested {cfg.precision}: it runs frozen weights in "
                f"{r.frozen_dtype}, compute in {r.compute_dtype}"
                + (f" under {r.autocast} autocast" if r.autocast else " without autocast"))
        if cfg.precision == "fp32":
            fix = ("for real fp32 use --runner builtin, or LLaMA-Factory started through "
                   f"`python -m {LF_FP32_LAUNCHER} CONFIG.yaml --compute-dtype fp32`, which pins the dtype to fp32 "
                   "before the model loads")
        else:
            fix = "use --runner builtin, or a precision this runner honours"
        warning = ("runner-ignores-precision", what, fix)
    launch = (f"LLaMA-Factory through {LF_LAUNCH_FILE}" + (f" --compute-dtype {pin}" if pin else "")
              if r.runner == "llamafactory" and getattr(cfg, "lf_launch", False) else
              "stock llamafactory-cli" if r.runner == "llamafactory" else
              "your own transformers Trainer script" if r.runner == "hf" else "rocm-tune's built-in trainer")
    return Execution(regime=r, lines=tuple(lines), warning=warning, launch=launch, compute_pin=pin)
