"""The typed, versioned plan: what `rocm-tune plan` decides and everything else consumes.

`Plan` is frozen and validated once, at the boundary: `Plan.from_dict(d)` (a plan.json read from a
file, or the planner's own output) checks every field — types, ranges, finite numbers, known enum
values — and raises a one-line `UserError` naming the field (`plan.json: recommended.cutoff_len
must be an integer between 1 and 1048576, got inf`). `Plan.to_dict()` is the plan.json contract of
docs/internals.md with `"version": 2`. Exporters, the trainer-config builder, the app, alerts and
the launcher take a `Plan`, never a dict.

"Fits" means one thing everywhere: reserved + VRAM already in use <= headroom x VRAM
(`Hardware.fits`), with the headroom recorded in the plan.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rocm_tune.core.memory import fitting
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.warnings import WARNINGS, PlanWarning

if TYPE_CHECKING:
    from rocm_tune.core.memory.estimate import TrainConfig

PLAN_VERSION = 2
_WHERE = "plan.json: "


# --------------------------------------------------------------------------- field readers


class _Fields:
    """Reads one JSON object; every error names the field by its dotted path."""

    def __init__(self, data: object, path: str, allowed: tuple[str, ...] | None = None):
        if not isinstance(data, Mapping):
            raise UserError(f"{_WHERE}{path or 'the plan'} must be a JSON object, got {_type(data)}")
        self.data = data
        self.path = path
        if allowed is not None:
            unknown = sorted(str(k) for k in data if k not in allowed)
            if unknown:
                raise UserError(f"{_WHERE}{self._name(unknown[0])} is not a known field; expected: "
                                f"{', '.join(allowed)}")

    def _name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def _fail(self, key: str, what: str, value: object) -> UserError:
        return UserError(f"{_WHERE}{self._name(key)} must be {what}, got {_shown(value)}")

    def has(self, key: str) -> bool:
        return key in self.data

    def raw(self, key: str) -> Any:
        if key not in self.data:
            raise UserError(f"{_WHERE}{self._name(key)} is missing")
        return self.data[key]

    def sub(self, key: str, allowed: tuple[str, ...] | None = None) -> _Fields:
        return _Fields(self.raw(key), self._name(key), allowed)

    def text(self, key: str, *, optional: bool = False, default: str | None = None) -> Any:
        if optional and self.data.get(key) is None:
            return default
        v = self.raw(key)
        if not isinstance(v, str) or not v or "\x00" in v:
            raise self._fail(key, "a non-empty string", v)
        return v

    def flag(self, key: str, *, optional: bool = False, default: bool | None = None) -> Any:
        if (optional or default is not None) and self.data.get(key) is None:
            return default
        v = self.raw(key)
        if not isinstance(v, bool):
            raise self._fail(key, "true or false", v)
        return v

    def choice(self, key: str, allowed: tuple, *, optional: bool = False, default: Any = None) -> Any:
        if (optional or default is not None) and self.data.get(key) is None:
            return default
        v = self.raw(key)
        if isinstance(v, bool) or v not in allowed:
            raise self._fail(key, "one of " + ", ".join(str(a) for a in allowed), v)
        return v

    def number(self, key: str, limit: V.Limit | str, *, optional: bool = False, default: Any = None) -> Any:
        lim = V.LIMITS[limit] if isinstance(limit, str) else limit
        if (optional or default is not None) and self.data.get(key) is None:
            return default
        v = self.raw(key)
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        if ok and lim.integer and isinstance(v, float):
            ok = v.is_integer()
            v = int(v) if ok else v
        if not ok or not lim.lo <= v <= lim.hi:
            raise self._fail(key, lim.describe(), v)
        return v if lim.integer else float(v)

    def names(self, key: str, *, optional: bool = False) -> tuple[str, ...] | None:
        if optional and self.data.get(key) is None:
            return None
        v = self.raw(key)
        if not isinstance(v, list) or not v or not all(_module_name(t) for t in v):
            raise self._fail(key, "a non-empty list of module names ('all' or names like q_proj)", v)
        return tuple(v)

    def texts(self, key: str) -> tuple[str, ...]:
        v = self.raw(key)
        if not isinstance(v, list) or not all(isinstance(t, str) for t in v):
            raise self._fail(key, "a list of strings", v)
        return tuple(v)


def _type(v: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null", bool: "a boolean"}.get(
        type(v), "a number" if isinstance(v, (int, float)) else type(v).__name__)


def _shown(v: object) -> str:
    if isinstance(v, float) and not math.isfinite(v):
        return "inf" if v > 0 else ("-inf" if v < 0 else "nan")
    text = json.dumps(v, default=str) if not isinstance(v, str) else repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _module_name(t: object) -> bool:
    return isinstance(t, str) and bool(t) and all(c.isalnum() or c in "_." for c in t)


_BYTES = V.Limit(0, 2**62)
_SECONDS = V.Limit(0, 1e12, integer=False)
_RATE = V.Limit(0, 1e15, integer=False)
_STEPS = V.Limit(0, 2**62)


# --------------------------------------------------------------------------- parts


@dataclass(frozen=True)
class ModelInfo:
    ref: str                 # what to load (preset name, path, hub id)
    name: str
    family: str
    params_total: int

    @classmethod
    def from_dict(cls, f: _Fields) -> ModelInfo:
        return cls(ref=f.text("ref"), name=f.text("name"), family=str(f.raw("family") or ""),
                   params_total=f.number("params_total", _BYTES))

    def to_dict(self) -> dict:
        return {"ref": self.ref, "name": self.name, "family": self.family, "params_total": self.params_total}


@dataclass(frozen=True)
class Hardware:
    gpu: str                           # GPU profile id
    gpus: int                          # per node
    nodes: int
    vram_bytes: int                    # per GPU
    cpu_ram_bytes: int | None          # per node; None = unknown
    headroom: float = V.DEFAULT_HEADROOM
    vram_in_use_bytes: int = 0         # already used by other processes on a detected local GPU

    @property
    def world(self) -> int:
        return self.gpus * self.nodes

    @property
    def limit_bytes(self) -> float:
        """The most this job may reserve per GPU: headroom x VRAM minus what is already in use."""
        return fitting.limit_bytes(self.vram_bytes, self.headroom, self.vram_in_use_bytes)

    def fits(self, reserved_bytes: float) -> bool:
        return fitting.fits(reserved_bytes, self.vram_bytes, self.headroom, self.vram_in_use_bytes)

    @classmethod
    def from_dict(cls, f: _Fields) -> Hardware:
        return cls(gpu=f.text("gpu"), gpus=f.number("gpus", "gpus"), nodes=f.number("nodes", "nodes"),
                   vram_bytes=f.number("vram_bytes", V.Limit(1, 2**50)),
                   cpu_ram_bytes=f.number("cpu_ram_bytes", V.Limit(1, 2**62), optional=True),
                   headroom=f.number("headroom", "headroom"),
                   vram_in_use_bytes=f.number("vram_in_use_bytes", _BYTES))

    def to_dict(self) -> dict:
        return {"gpu": self.gpu, "gpus": self.gpus, "nodes": self.nodes, "vram_bytes": self.vram_bytes,
                "cpu_ram_bytes": self.cpu_ram_bytes, "headroom": self.headroom,
                "vram_in_use_bytes": self.vram_in_use_bytes}


@dataclass(frozen=True)
class Goal:
    method: str
    stage: str
    effective_batch: int
    priority: str
    epochs: float
    hours: float | None = None
    dataset: str | None = None         # local dataset path, when given

    @classmethod
    def from_dict(cls, f: _Fields) -> Goal:
        return cls(method=f.choice("method", V.METHODS), stage=f.choice("stage", V.STAGES),
                   effective_batch=f.number("effective_batch", "effective_batch"),
                   priority=f.choice("priority", V.PRIORITIES), epochs=f.number("epochs", "epochs"),
                   hours=f.number("hours", "hours", optional=True), dataset=f.text("dataset", optional=True))

    def to_dict(self) -> dict:
        return {"method": self.method, "stage": self.stage, "effective_batch": self.effective_batch,
                "priority": self.priority, "epochs": self.epochs, "hours": self.hours, "dataset": self.dataset}


_SETTING_KEYS = ("method", "precision", "attn", "cutoff_len", "micro_batch", "grad_accum", "zero_stage", "offload",
                 "gradient_checkpointing", "optim", "launcher", "runner", "env", "lora_rank", "lora_alpha",
                 "lora_targets", "dora", "quant_bits", "double_quant", "freeze_trainable_layers",
                 "ddp_find_unused_parameters", "use_reentrant", "learning_rate", "epochs")


@dataclass(frozen=True)
class Settings:
    """One complete training configuration (the plan's `recommended`, or an alternative's)."""

    method: str
    precision: str
    attn: str
    cutoff_len: int
    micro_batch: int
    grad_accum: int
    zero_stage: int
    offload: str
    gradient_checkpointing: bool
    optim: str
    launcher: str
    learning_rate: float
    epochs: float
    runner: str = V.DEFAULT_RUNNER
    env: Mapping[str, str] = field(default_factory=dict)
    lora_rank: int | None = None                   # lora/qlora only
    lora_alpha: int | None = None
    lora_targets: tuple[str, ...] | None = None
    dora: bool = False
    quant_bits: int | None = None                  # qlora only
    double_quant: bool | None = None
    freeze_trainable_layers: int | None = None     # freeze only
    ddp_find_unused_parameters: bool | None = None  # None = not written (single GPU)
    use_reentrant: bool | None = None              # None = no gradient checkpointing

    @property
    def is_lora(self) -> bool:
        return self.method in V.LORA_METHODS

    def check(self, where: str) -> None:
        """Combinations a single field cannot express (one message each)."""
        problem = V.offload_problem(self.offload, self.zero_stage)
        if problem:
            raise UserError(f"{_WHERE}{where}.offload: {problem}")
        if self.attn == "fa2" and self.precision == "fp32":
            raise UserError(f"{_WHERE}{where}.attn: fa2 (FlashAttention-2) needs bf16, fp16 or pure_bf16, got fp32")
        if self.is_lora and (self.lora_rank is None or self.lora_targets is None):
            raise UserError(f"{_WHERE}{where}.lora_rank and lora_targets are required for method {self.method}")

    @classmethod
    def from_dict(cls, f: _Fields) -> Settings:
        method = f.choice("method", V.METHODS)
        lora = method in V.LORA_METHODS
        env = f.sub("env")
        for k, v in env.data.items():
            if not isinstance(k, str) or not k.replace("_", "a").isalnum() or k[0].isdigit():
                raise UserError(f"{_WHERE}{env.path} has an invalid variable name {k!r}")
            if not isinstance(v, str) or "\x00" in v:
                raise UserError(f"{_WHERE}{env.path}.{k} must be a string, got {_shown(v)}")
        s = cls(
            method=method, precision=f.choice("precision", V.PRECISIONS), attn=f.choice("attn", V.ATTNS),
            cutoff_len=f.number("cutoff_len", "cutoff_len"), micro_batch=f.number("micro_batch", "micro_batch"),
            grad_accum=f.number("grad_accum", "grad_accum"), zero_stage=f.choice("zero_stage", V.ZERO_STAGES),
            offload=f.choice("offload", V.OFFLOADS), gradient_checkpointing=f.flag("gradient_checkpointing"),
            optim=f.choice("optim", V.OPTIMS), launcher=f.choice("launcher", V.LAUNCHERS),
            runner=f.choice("runner", V.RUNNERS, default=V.DEFAULT_RUNNER), env=dict(env.data),
            lora_rank=f.number("lora_rank", "lora_rank", optional=True) if lora else _absent(f, "lora_rank", method),
            lora_alpha=f.number("lora_alpha", "lora_alpha", optional=True) if lora else _absent(f, "lora_alpha", method),
            lora_targets=f.names("lora_targets", optional=True) if lora else _absent(f, "lora_targets", method),
            dora=f.flag("dora", default=False),
            quant_bits=f.choice("quant_bits", V.QUANT_BITS, optional=True),
            double_quant=f.flag("double_quant", optional=True),
            freeze_trainable_layers=f.number("freeze_trainable_layers", "freeze_trainable_layers", optional=True),
            ddp_find_unused_parameters=f.flag("ddp_find_unused_parameters", optional=True),
            use_reentrant=f.flag("use_reentrant", optional=True),
            learning_rate=f.number("learning_rate", "learning_rate"), epochs=f.number("epochs", "epochs"),
        )
        s.check(f.path)
        return s

    def to_dict(self) -> dict:
        d: dict[str, Any] = {k: getattr(self, k) for k in _SETTING_KEYS}
        d["env"] = dict(self.env)
        d["lora_targets"] = None if self.lora_targets is None else list(self.lora_targets)
        return d


def _absent(f: _Fields, key: str, method: str) -> Any:
    """None: the key applies to LoRA methods only (a value there is an error)."""
    if f.data.get(key) is not None:
        raise UserError(f"{_WHERE}{f._name(key)} applies to method lora or qlora, not {method}")
    return None


@dataclass(frozen=True)
class ExecutionInfo:
    """What really executes for a configuration (core/runners): the dtype of every tensor class, how the runner
    is started, and the summary lines the plan shows. Derived by the planner; plan.json carries it so a reader
    sees what the bundle runs without re-deriving it."""

    runner: str
    requested: str
    launch: str
    compute_pin: str | None
    checkpoint: str
    frozen_weights: str
    trainable_weights: str
    gradients: str
    optimizer_state: str
    compute: str
    autocast: str | None
    ignores_request: bool = False
    summary: tuple[str, ...] = ()

    _DTYPES = ("fp32", "bf16", "fp16")
    KEYS = ("runner", "requested", "launch", "compute_pin", "checkpoint", "frozen_weights", "trainable_weights",
            "gradients", "optimizer_state", "compute", "autocast", "ignores_request", "summary")

    @classmethod
    def of(cls, ex) -> ExecutionInfo:
        """From `rocm_tune.core.runners.Execution`."""
        r = ex.regime
        return cls(runner=r.runner, requested=r.requested, launch=ex.launch, compute_pin=ex.compute_pin, checkpoint=r.checkpoint_dtype,
                   frozen_weights=r.frozen_dtype, trainable_weights=r.trainable_dtype,
                   gradients=r.trainable_dtype, optimizer_state=r.optimizer_state_dtype, compute=r.compute_dtype,
                   autocast=r.autocast, ignores_request=r.ignores_request, summary=tuple(ex.lines))

    @classmethod
    def from_dict(cls, f: _Fields) -> ExecutionInfo:
        d = cls._DTYPES
        return cls(runner=f.choice("runner", V.RUNNERS), requested=f.choice("requested", V.PRECISIONS),
                   launch=f.text("launch"),
                   compute_pin=f.choice("compute_pin", d, optional=True), checkpoint=f.choice("checkpoint", d),
                   frozen_weights=f.choice("frozen_weights", d), trainable_weights=f.choice("trainable_weights", d),
                   gradients=f.choice("gradients", d), optimizer_state=f.choice("optimizer_state", d),
                   compute=f.choice("compute", d), autocast=f.choice("autocast", d, optional=True),
                   ignores_request=f.flag("ignores_request"), summary=f.texts("summary"))

    def line(self) -> str:
        """One line: what executes, for the plan, the app and run.sh's header."""
        opt = (f"trainable weights/gradients/optimizer state {self.trainable_weights}"
               if self.optimizer_state == self.trainable_weights else
               f"trainable weights/gradients {self.trainable_weights}, optimizer state and master weights "
               f"{self.optimizer_state}")
        return (f"frozen weights {self.frozen_weights}, {opt}, compute {self.compute}, "
                + (f"autocast {self.autocast}" if self.autocast else "no autocast")
                + f" (checkpoint {self.checkpoint}); started as {self.launch}")

    def to_dict(self) -> dict:
        return {"runner": self.runner, "requested": self.requested, "launch": self.launch,
                "compute_pin": self.compute_pin,
                "checkpoint": self.checkpoint, "frozen_weights": self.frozen_weights,
                "trainable_weights": self.trainable_weights, "gradients": self.gradients,
                "optimizer_state": self.optimizer_state, "compute": self.compute, "autocast": self.autocast,
                "ignores_request": self.ignores_request, "summary": list(self.summary)}


def _execution(f: _Fields) -> ExecutionInfo | None:
    """The optional execution block (absent in plans written before it existed)."""
    if f.data.get("execution") is None:
        return None
    return ExecutionInfo.from_dict(f.sub("execution", ExecutionInfo.KEYS))


@dataclass(frozen=True)
class Memory:
    """Per-GPU bytes of one configuration (the estimator's itemisation) and the CPU RAM offload needs."""

    items: tuple[tuple[str, int], ...]     # ("weights_bytes", n), ... in the estimator's order

    REQUIRED = ("peak_allocated_bytes", "reserved_bytes", "cpu_offload_bytes")

    def get(self, name: str, default: int = 0) -> int:
        return dict(self.items).get(name, default)

    @property
    def reserved_bytes(self) -> int:
        return self.get("reserved_bytes")

    @property
    def peak_allocated_bytes(self) -> int:
        return self.get("peak_allocated_bytes")

    @property
    def cpu_offload_bytes(self) -> int:
        return self.get("cpu_offload_bytes")

    @classmethod
    def from_dict(cls, f: _Fields) -> Memory:
        for key in cls.REQUIRED:
            f.raw(key)
        items = []
        for key in f.data:
            if not isinstance(key, str) or not key.endswith("_bytes"):
                raise UserError(f"{_WHERE}{f._name(str(key))} is not a memory field (names end in _bytes)")
            items.append((key, f.number(key, _BYTES)))
        return cls(tuple(items))

    def to_dict(self) -> dict:
        return dict(self.items)


@dataclass(frozen=True)
class SpeedPoint:
    tokens_per_s: float
    seconds_per_step: float
    eta_seconds: float | None

    @classmethod
    def from_dict(cls, f: _Fields) -> SpeedPoint:
        return cls(tokens_per_s=f.number("tokens_per_s", _RATE), seconds_per_step=f.number("seconds_per_step", _SECONDS),
                   eta_seconds=f.number("eta_seconds", _SECONDS, optional=True))

    def to_dict(self) -> dict:
        return {"tokens_per_s": self.tokens_per_s, "seconds_per_step": self.seconds_per_step,
                "eta_seconds": self.eta_seconds}


@dataclass(frozen=True)
class Speed:
    """Predicted throughput: the central value and the fast (`high`) / slow (`low`) ends of its band."""

    tokens_per_s: float
    seconds_per_step: float
    eta_seconds: float | None
    steps: int | None
    low: SpeedPoint
    high: SpeedPoint

    @classmethod
    def from_dict(cls, f: _Fields) -> Speed:
        return cls(tokens_per_s=f.number("tokens_per_s", _RATE), seconds_per_step=f.number("seconds_per_step", _SECONDS),
                   eta_seconds=f.number("eta_seconds", _SECONDS, optional=True),
                   steps=f.number("steps", _STEPS, optional=True),
                   low=SpeedPoint.from_dict(f.sub("low")), high=SpeedPoint.from_dict(f.sub("high")))

    def to_dict(self) -> dict:
        return {"tokens_per_s": self.tokens_per_s, "seconds_per_step": self.seconds_per_step,
                "eta_seconds": self.eta_seconds, "steps": self.steps, "low": self.low.to_dict(),
                "high": self.high.to_dict()}


def _warnings(f: _Fields, key: str) -> tuple[PlanWarning, ...]:
    raw = f.raw(key)
    if not isinstance(raw, list):
        raise f._fail(key, "a list of {code, message, fix}", raw)
    out = []
    for i, item in enumerate(raw):
        w = _Fields(item, f"{f._name(key)}[{i}]", ("code", "message", "fix"))
        code = w.choice("code", tuple(WARNINGS))
        fix = w.raw("fix")
        if not isinstance(fix, str):
            raise w._fail("fix", "a string", fix)
        out.append(PlanWarning(code, w.text("message"), fix))
    return tuple(out)


@dataclass(frozen=True)
class Option:
    """One configuration with its own memory, speed, verdict and explanation."""

    settings: Settings
    fits: bool
    memory: Memory
    throughput: Speed
    reasons: tuple[str, ...] = ()
    warnings: tuple[PlanWarning, ...] = ()
    execution: ExecutionInfo | None = None

    @classmethod
    def from_dict(cls, f: _Fields) -> Option:
        return cls(settings=Settings.from_dict(f), fits=f.flag("fits"), memory=Memory.from_dict(f.sub("memory")),
                   throughput=Speed.from_dict(f.sub("throughput")), reasons=f.texts("reasons"),
                   warnings=_warnings(f, "warnings"), execution=_execution(f))

    def to_dict(self) -> dict:
        d = self.settings.to_dict()
        d.update({"fits": self.fits, "memory": self.memory.to_dict(), "throughput": self.throughput.to_dict(),
                  "reasons": list(self.reasons), "warnings": [w.to_dict() for w in self.warnings]})
        if self.execution is not None:
            d["execution"] = self.execution.to_dict()
        return d


_TOP = ("version", "model", "hardware", "goal", "fits", "recommended", "memory", "throughput", "warnings",
        "reasons", "alternatives", "execution")
_OPTION_KEYS = _SETTING_KEYS + ("fits", "memory", "throughput", "reasons", "warnings", "execution")


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Plan:
    model: ModelInfo
    hardware: Hardware
    goal: Goal
    fits: bool
    recommended: Settings
    memory: Memory
    throughput: Speed
    warnings: tuple[PlanWarning, ...] = ()
    reasons: tuple[str, ...] = ()
    alternatives: tuple[Option, ...] = ()
    version: int = PLAN_VERSION
    execution: ExecutionInfo | None = None   # what the recommendation really executes (None: an older plan.json)

    # ---- views

    @property
    def option(self) -> Option:
        """The recommended configuration as an Option (same shape as the alternatives)."""
        return Option(self.recommended, self.fits, self.memory, self.throughput, self.reasons, self.warnings,
                      self.execution)

    def options(self) -> tuple[Option, ...]:
        """(recommended, *alternatives)."""
        return (self.option, *self.alternatives)

    def choose(self, index: int) -> Plan:
        """This plan with option `index` of `options()` as the recommendation (0 = unchanged)."""
        if index == 0:
            return self
        opt = self.options()[index]
        return replace(self, recommended=opt.settings, fits=opt.fits, memory=opt.memory, throughput=opt.throughput,
                       warnings=opt.warnings, reasons=opt.reasons, execution=opt.execution)

    def fits_reserved(self, reserved_bytes: float) -> bool:
        """The one meaning of "fits": reserved + in use <= headroom x VRAM."""
        return self.hardware.fits(reserved_bytes)

    @property
    def effective_batch(self) -> int:
        r = self.recommended
        return r.micro_batch * r.grad_accum * self.hardware.world

    def train_config(self, option: int | Option | Settings | None = None) -> TrainConfig:
        """The estimator's TrainConfig for the recommendation (or an option / edited settings)."""
        from rocm_tune.core.memory.estimate import TrainConfig
        from rocm_tune.core.plan.trainer_terms import trainer_terms

        s = self.recommended if option is None else (
            option.settings if isinstance(option, Option) else
            option if isinstance(option, Settings) else self.options()[option].settings)
        lora = s.is_lora
        cfg = TrainConfig(
            method=s.method, precision=s.precision, attn=s.attn, cutoff_len=s.cutoff_len, micro_batch=s.micro_batch,
            gradient_checkpointing=s.gradient_checkpointing, optim=s.optim, zero_stage=s.zero_stage,
            offload=s.offload, stage=self.goal.stage, gpus=self.hardware.gpus, nodes=self.hardware.nodes,
            runner=s.runner, lf_launch=s.runner == "llamafactory",   # every bundle starts LF through lf_launch
            lora_rank=(s.lora_rank or V.DEFAULT_LORA_RANK) if lora else V.DEFAULT_LORA_RANK,
            lora_alpha=s.lora_alpha if lora else None,
            lora_targets=(s.lora_targets or V.DEFAULT_LORA_TARGETS) if lora else V.DEFAULT_LORA_TARGETS,
            dora=bool(s.dora) if lora else False,
            quant_bits=s.quant_bits or V.DEFAULT_QUANT_BITS,
            double_quant=V.DEFAULT_DOUBLE_QUANT if s.double_quant is None else s.double_quant,
            freeze_trainable_layers=s.freeze_trainable_layers or V.DEFAULT_FREEZE_LAYERS,
            **trainer_terms(s.runner, self.goal.stage, s.optim),   # the runner's own step terms, as the search
        )
        cfg.validate()
        return cfg

    # ---- plan.json

    @classmethod
    def from_dict(cls, d: object) -> Plan:
        """Validate a plan.json object; a one-line UserError names the first bad field."""
        if not isinstance(d, Mapping):
            raise UserError(f"{_WHERE}the plan must be a JSON object (the output of `rocm-tune plan --json`), "
                            f"got {_type(d)}")
        _check_version(d)
        f = _Fields(d, "", _TOP)
        alts = f.raw("alternatives")
        if not isinstance(alts, list):
            raise f._fail("alternatives", "a list", alts)
        recommended = Settings.from_dict(f.sub("recommended", _SETTING_KEYS))
        return cls(
            model=ModelInfo.from_dict(f.sub("model", ("ref", "name", "family", "params_total"))),
            hardware=Hardware.from_dict(f.sub("hardware", ("gpu", "gpus", "nodes", "vram_bytes", "cpu_ram_bytes",
                                                           "headroom", "vram_in_use_bytes"))),
            goal=Goal.from_dict(f.sub("goal", ("method", "stage", "effective_batch", "priority", "epochs", "hours",
                                               "dataset"))),
            fits=f.flag("fits"), recommended=recommended,
            memory=Memory.from_dict(f.sub("memory")), throughput=Speed.from_dict(f.sub("throughput")),
            warnings=_warnings(f, "warnings"), reasons=f.texts("reasons"),
            alternatives=tuple(Option.from_dict(_Fields(a, f"alternatives[{i}]", _OPTION_KEYS))
                               for i, a in enumerate(alts)),
            execution=_execution(f),
        )

    def to_dict(self) -> dict:
        return {
            "version": self.version,
            "model": self.model.to_dict(),
            "hardware": self.hardware.to_dict(),
            "goal": self.goal.to_dict(),
            "fits": self.fits,
            "recommended": self.recommended.to_dict(),
            "memory": self.memory.to_dict(),
            "throughput": self.throughput.to_dict(),
            "warnings": [w.to_dict() for w in self.warnings],
            "reasons": list(self.reasons),
            "alternatives": [a.to_dict() for a in self.alternatives],
            **({"execution": self.execution.to_dict()} if self.execution is not None else {}),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"


def _check_version(d: Mapping) -> None:
    if "version" not in d:
        raise UserError(f"{_WHERE}version is missing: not a rocm-tune plan (version {PLAN_VERSION}); make one with "
                        "`rocm-tune plan ... --json > plan.json`")
    v = d["version"]
    if v == 1:
        raise UserError(f"{_WHERE}version 1 is an older plan format; this rocm-tune reads version {PLAN_VERSION}: "
                        "make the plan again with `rocm-tune plan ... --json`")
    if isinstance(v, bool) or v != PLAN_VERSION:
        raise UserError(f"{_WHERE}version must be {PLAN_VERSION}, got {_shown(v)} (a plan from another tool or a "
                        "newer rocm-tune)")


def load_plan(path: str) -> Plan:
    """Read and validate a plan.json (UserError for unreadable / not JSON / not an object / bad field)."""
    from rocm_tune.core.files import MAX_STATE_BYTES, read_json

    data = read_json(path, "plan file", hint=" (the output of `rocm-tune plan --json`)", max_bytes=MAX_STATE_BYTES)
    return Plan.from_dict(data)
