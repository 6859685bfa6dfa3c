"""The planner: given a model, GPUs and a goal, the whole training configuration with reasons.

`plan(PlanRequest) -> PlanResult`. It searches precision, attention, gradient checkpointing,
ZeRO stage / offload, micro-batch and cutoff_len (each only where the user did not fix it), keeps
what fits with headroom (reserved <= headroom x VRAM), ranks by the priority and returns the best plan
plus up to three alternatives, each with its memory estimate, predicted throughput, reasons and
warnings (stable codes from `rocm_tune.core.warnings`). `PlanResult.to_dict()` is the plan.json
contract of docs/internals.md.

The search is pruned so that a whole `rocm-tune plan` stays well under 0.5 s:
* attention: one implementation per GPU (SDPA with a flash kernel, else eager) unless fixed;
* distribution: a ladder DDP -> ZeRO-2 -> ZeRO-3 -> +offload optimizer -> +offload all, walked in
  order and stopped once a level holds the whole per-GPU batch;
* micro-batch: binary search over the divisors of the per-GPU batch (memory grows with it);
* cutoff_len: the dataset percentile (or 1024), halved only when nothing fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from rocm_tune.core import rules, seqlen
from rocm_tune.core import throughput as tp
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan import Goal, Hardware, Memory, ModelInfo, Option, Plan, Settings, Speed, SpeedPoint
from rocm_tune.core.units import fmt_bytes_gib as _gib
from rocm_tune.core.vocabulary import (
    ATTNS,
    DEFAULT_CUTOFF,
    DEFAULT_EFFECTIVE_BATCH,
    DEFAULT_EPOCHS,
    METHODS,
    MIN_CUTOFF,
    OFFLOADS,
    PRECISIONS,
    PRIORITIES,
    STAGES,
    TIGHT_FRACTION,
)
from rocm_tune.core.vocabulary import MAX_SEARCH_MICRO_BATCH as MAX_MICRO_BATCH
from rocm_tune.core.warnings import PlanWarning, make

if TYPE_CHECKING:
    from rocm_tune.core.dataset import DatasetStats
    from rocm_tune.core.memory import MemoryEstimate, TrainConfig
    from rocm_tune.core.model import ModelSpec
    from rocm_tune.profiles.gpu_profiles import GpuProfile

# --------------------------------------------------------------------------- request


@dataclass(frozen=True)
class PlanRequest:
    model: ModelSpec
    gpu: GpuProfile
    gpus: int = 1                          # per node
    nodes: int = 1
    cpu_ram_bytes: int | None = None       # per node; None = unknown
    method: str = "lora"
    stage: str = "sft"
    effective_batch: int | None = None     # None = vocabulary.DEFAULT_EFFECTIVE_BATCH
    priority: str = "stability"
    # values the user insists on (None = the planner chooses)
    cutoff_len: int | None = None
    precision: str | None = None
    micro_batch: int | None = None
    zero_stage: int | None = None
    offload: str | None = None
    attn: str | None = None
    gradient_checkpointing: bool | None = None
    optim: str | None = None
    lora_rank: int | None = None
    lora_alpha: int | None = None
    lora_targets: tuple[str, ...] | None = None
    dora: bool = False
    quant_bits: int | None = None
    double_quant: bool | None = None
    freeze_trainable_layers: int | None = None
    # data and time
    dataset: DatasetStats | None = None
    percentile: float = V.DEFAULT_PERCENTILE
    hours: float | None = None
    epochs: float | None = None
    headroom: float = V.DEFAULT_HEADROOM
    iommu: str = "unknown"                 # doctor.iommu_state() for local GPUs, else unknown
    model_ref: str | None = None
    runner: str = V.DEFAULT_RUNNER         # what runs the training loop (vocabulary.RUNNERS)
    vram_in_use_bytes: int = 0             # used by other processes on a detected local GPU

    def validate(self) -> None:
        """UserError naming the first bad value (limits and choices from core.vocabulary)."""
        for name in ("gpus", "nodes", "effective_batch", "cutoff_len", "micro_batch", "lora_rank", "lora_alpha",
                     "freeze_trainable_layers", "hours", "epochs"):
            value = getattr(self, name)
            if value is not None:
                V.check_number(name, value)
        V.check_number("headroom", self.headroom)
        V.check_number("percentile", self.percentile)
        V.check_choice("method", self.method, METHODS)
        V.check_choice("stage", self.stage, STAGES)
        V.check_choice("priority", self.priority, PRIORITIES)
        V.check_choice("runner", self.runner, V.RUNNERS)
        for name, allowed in (("precision", PRECISIONS), ("attn", ATTNS), ("offload", OFFLOADS),
                              ("zero_stage", V.ZERO_STAGES), ("optim", V.OPTIMS), ("quant_bits", V.QUANT_BITS)):
            value = getattr(self, name)
            if value is not None:
                V.check_choice(name, value, allowed)
        problem = V.offload_problem(self.offload, self.zero_stage)
        if problem:
            raise UserError(problem)
        if self.cpu_ram_bytes is not None and self.cpu_ram_bytes <= 0:
            raise UserError(f"cpu_ram_bytes must be positive, got {self.cpu_ram_bytes}")
        if self.vram_in_use_bytes < 0:
            raise UserError(f"vram_in_use_bytes must be 0 or more, got {self.vram_in_use_bytes}")
        if self.method not in V.LORA_METHODS and (self.lora_rank is not None or self.lora_alpha is not None):
            raise UserError(f"lora_rank/lora_alpha apply to --method lora or qlora, not {self.method!r}")
        if self.micro_batch is not None and self.effective_batch is not None:
            world = self.gpus * self.nodes
            if self.micro_batch * world > self.effective_batch:
                raise UserError(
                    f"micro_batch {self.micro_batch} x {world} GPUs = {self.micro_batch * world} is more than "
                    f"effective_batch {self.effective_batch}")

    @property
    def world(self) -> int:
        return self.gpus * self.nodes


# --------------------------------------------------------------------------- options and results


@dataclass(frozen=True)
class PlanOption:
    cfg: TrainConfig
    grad_accum: int
    estimate: MemoryEstimate
    throughput: tp.Throughput
    fits: bool
    effective_batch: int
    precision_risk: int
    launcher: str
    env: dict
    learning_rate: float
    epochs: float
    reasons: tuple[str, ...] = ()
    warnings: tuple[PlanWarning, ...] = ()
    vram_bytes: int = 0

    @property
    def reserved_fraction(self) -> float:
        return self.estimate.per_gpu.reserved_bytes / self.vram_bytes if self.vram_bytes else 0.0

    def settings(self, runner: str = V.DEFAULT_RUNNER) -> Settings:
        c = self.cfg
        lora = c.method in V.LORA_METHODS
        world = c.gpus * c.nodes
        return Settings(
            method=c.method, precision=c.precision, attn=c.attn, cutoff_len=c.cutoff_len,
            micro_batch=c.micro_batch, grad_accum=self.grad_accum, zero_stage=c.zero_stage, offload=c.offload,
            gradient_checkpointing=c.gradient_checkpointing, optim=c.optim, launcher=self.launcher,
            runner=runner, env=dict(self.env),
            lora_rank=c.lora_rank if lora else None,
            lora_alpha=(c.lora_alpha or V.default_lora_alpha(c.lora_rank)) if lora else None,
            lora_targets=tuple(c.lora_targets) if lora else None,
            dora=bool(c.dora) if lora else False,
            quant_bits=c.quant_bits if c.method == "qlora" else None,
            double_quant=c.double_quant if c.method == "qlora" else None,
            freeze_trainable_layers=c.freeze_trainable_layers if c.method == "freeze" else None,
            ddp_find_unused_parameters=False if world > 1 else None,
            use_reentrant=False if c.gradient_checkpointing else None,
            learning_rate=self.learning_rate, epochs=self.epochs,
        )

    def memory(self) -> Memory:
        return memory_of(self.estimate)

    def option(self, runner: str = V.DEFAULT_RUNNER) -> Option:
        return Option(settings=self.settings(runner), fits=self.fits, memory=self.memory(),
                      throughput=speed_of(self.throughput), reasons=tuple(self.reasons),
                      warnings=tuple(self.warnings))

    def to_dict(self) -> dict:
        return self.option().to_dict()


def memory_of(estimate) -> Memory:
    """The plan's Memory of a MemoryEstimate (per-GPU items and the CPU RAM offload needs)."""
    items = [(k, int(v)) for k, v in estimate.per_gpu.to_dict().items()]
    items.append(("cpu_offload_bytes", int(estimate.cpu_offload_bytes)))
    return Memory(tuple(items))


def speed_of(thr: tp.Throughput) -> Speed:
    d = thr.to_dict()

    def point(x: dict) -> SpeedPoint:
        return SpeedPoint(float(x["tokens_per_s"]), float(x["seconds_per_step"]),
                          None if x["eta_seconds"] is None else float(x["eta_seconds"]))

    return Speed(tokens_per_s=float(d["tokens_per_s"]), seconds_per_step=float(d["seconds_per_step"]),
                 eta_seconds=None if d["eta_seconds"] is None else float(d["eta_seconds"]),
                 steps=thr.steps, low=point(d["low"]), high=point(d["high"]))


@dataclass(frozen=True)
class PlanResult:
    """The plan (`.plan`, typed) plus what made it (`.request`, the search's own options)."""

    request: PlanRequest
    fits: bool
    recommended: PlanOption
    alternatives: tuple[PlanOption, ...]
    warnings: tuple[PlanWarning, ...]
    reasons: tuple[str, ...]
    suggestions: tuple[str, ...] = field(default=())
    searched: int = 0               # memory estimates computed

    @property
    def plan(self) -> Plan:
        r = self.request
        m = r.model
        rec = self.recommended
        ds = r.dataset
        return Plan(
            model=ModelInfo(ref=r.model_ref or m.name, name=m.name, family=m.family or "",
                            params_total=int(m.params.total)),
            hardware=Hardware(gpu=r.gpu.id, gpus=r.gpus, nodes=r.nodes, vram_bytes=int(r.gpu.vram_bytes),
                              cpu_ram_bytes=None if r.cpu_ram_bytes is None else int(r.cpu_ram_bytes),
                              headroom=float(r.headroom), vram_in_use_bytes=int(r.vram_in_use_bytes)),
            goal=Goal(method=r.method, stage=r.stage, effective_batch=r.effective_batch or DEFAULT_EFFECTIVE_BATCH,
                      priority=r.priority, epochs=rec.epochs, hours=None if r.hours is None else float(r.hours),
                      dataset=ds.path if ds is not None else None),
            fits=self.fits,
            recommended=rec.settings(r.runner),
            memory=rec.memory(),
            throughput=speed_of(rec.throughput),
            warnings=self.warnings,
            reasons=self.reasons,
            alternatives=tuple(a.option(r.runner) for a in self.alternatives),
        )

    def to_dict(self) -> dict:
        return self.plan.to_dict()


# --------------------------------------------------------------------------- helpers


def _ladder(world: int, fixed_zero: int | None, fixed_offload: str | None) -> list[tuple[int, str]]:
    """(zero_stage, offload) in order of complexity; the first that fits is the simplest."""
    if world == 1:
        levels = [(0, "none"), (2, "optimizer"), (3, "optimizer"), (3, "all")]
    else:
        levels = [(0, "none"), (2, "none"), (3, "none"), (2, "optimizer"), (3, "optimizer"), (3, "all")]
    if fixed_zero is not None and fixed_zero == 1:
        levels = [(1, "none"), (1, "optimizer")]
    out = []
    for z, o in levels:
        if fixed_zero is not None and z != fixed_zero:
            continue
        if fixed_offload is not None and o != fixed_offload:
            continue
        out.append((z, o))
    if not out and fixed_zero is not None:
        out.append((fixed_zero, fixed_offload or "none"))
    return out


COMPLEXITY = {(0, "none"): 0, (1, "none"): 1, (2, "none"): 1, (3, "none"): 2, (1, "optimizer"): 3,
              (2, "optimizer"): 3, (3, "optimizer"): 4, (3, "all"): 5}


def _divisors_upto(n: int, cap: int) -> list[int]:
    return [d for d in range(1, min(n, cap) + 1) if n % d == 0]


def _round_up(n: int, to: int) -> int:
    return int(math.ceil(n / to) * to)


class _Search:
    """Memoised estimates for one request."""

    def __init__(self, req: PlanRequest):
        from rocm_tune.core.memory import TrainConfig, estimate

        self.req = req
        self.TrainConfig = TrainConfig
        self._estimate = estimate
        self.cache: dict = {}
        self.vram = int(req.gpu.vram_bytes)
        self.limit = req.headroom * self.vram - req.vram_in_use_bytes
        self._pad_cache: dict = {}

    def cfg(self, **kw):
        r = self.req
        method = kw.get("method", r.method)
        lora = method in ("lora", "qlora")
        base = {
            "method": method,
            "lora_rank": (r.lora_rank or 8) if lora else 8,
            "lora_alpha": r.lora_alpha if lora else None,
            "lora_targets": tuple(r.lora_targets) if (lora and r.lora_targets) else ("all",),
            "dora": bool(r.dora) if lora else False,
            "quant_bits": r.quant_bits or 4,
            "double_quant": True if r.double_quant is None else bool(r.double_quant),
            "freeze_trainable_layers": r.freeze_trainable_layers or 2,
            "optim": r.optim or "adamw",
            "gpus": r.gpus, "nodes": r.nodes, "stage": r.stage, "runner": r.runner,
        }
        base.update(kw)
        return self.TrainConfig(**base)

    def estimate(self, cfg, attn_for_memory: str | None = None):
        mcfg = replace(cfg, attn=attn_for_memory) if attn_for_memory and attn_for_memory != cfg.attn else cfg
        hit = self.cache.get(mcfg)
        if hit is None:
            mcfg.validate()
            hit = self._estimate(self.req.model, mcfg)
            self.cache[mcfg] = hit
        return hit

    def fits(self, est) -> bool:
        if est.per_gpu.reserved_bytes > self.limit:
            return False
        ram = self.req.cpu_ram_bytes
        return not (ram is not None and est.cpu_offload_bytes > V.CPU_RAM_USABLE * ram)

    def padded_tokens(self, mb: int, cutoff: int) -> float:
        """Expected padded length of a micro-batch of `mb` dataset samples, truncated at cutoff and padded
        to a multiple of 8 as the collators do (core/seqlen.py)."""
        ds = self.req.dataset
        if ds is None or not ds.lengths:
            return float(cutoff)
        key = (mb, cutoff)
        if key not in self._pad_cache:
            self._pad_cache[key] = max(1.0, seqlen.typical_batch_tokens(ds.lengths, mb, cutoff))
        return self._pad_cache[key]

    def real_tokens(self, cutoff: int) -> float | None:
        """Mean real (unpadded) tokens per sample after truncation: what tokens/s counts."""
        ds = self.req.dataset
        if ds is None or not ds.lengths:
            return None
        return seqlen.real_tokens_per_sample(ds.lengths, cutoff)


def _dataset_cutoff(req: PlanRequest) -> tuple[int, str]:
    model_max = int(req.model.max_position_embeddings or 0) or 131072
    ds = req.dataset
    if req.cutoff_len is not None:
        return req.cutoff_len, f"cutoff_len {req.cutoff_len} (fixed by you)"
    if ds is not None and ds.count:
        if req.priority == "context":
            want = int(ds.lengths[-1]) if ds.lengths else ds.percentile(100)
            label = "the longest sample"
        else:
            want = int(ds.percentile(req.percentile))
            label = f"the {req.percentile:g}th percentile of the dataset's token lengths ({want})"
        rounded = ds.suggested_cutoff(req.percentile) if want == \
            int(ds.percentile(req.percentile)) and req.priority != "context" else _round_up(max(want, 1), 128)
        target = min(max(MIN_CUTOFF, int(rounded)), model_max)
        return target, f"cutoff_len {target} covers {label}"
    if req.priority == "context":
        target = min(model_max, 32768)
        return target, f"cutoff_len: the longest that fits, up to {target} (priority context)"
    target = min(DEFAULT_CUTOFF, model_max)
    return target, f"cutoff_len {target} (no dataset given: pass --dataset to size it to your samples)"


# --------------------------------------------------------------------------- core search


@dataclass
class _Cand:
    cfg: TrainConfig
    est: MemoryEstimate
    grad_accum: int
    eff_batch: int
    risk: int
    precision_why: str
    attn_why: str
    fits: bool
    thr: tp.Throughput | None = None


def _per_gpu_plan(req: PlanRequest, world: int) -> tuple[list[int], int, bool]:
    """Micro-batch candidates, effective batch, exact?"""
    eff = req.effective_batch or DEFAULT_EFFECTIVE_BATCH
    if req.micro_batch is not None:
        return [req.micro_batch], eff, eff % (req.micro_batch * world) == 0
    if eff % world == 0:
        return _divisors_upto(eff // world, MAX_MICRO_BATCH), eff, True
    per = max(1, eff // world)
    pows = [1 << i for i in range(7) if (1 << i) <= per]
    return pows, eff, False


def _search_method(s: _Search, method: str, cutoffs: list[int], stop_at_first_cutoff: bool,
                   fixed_precision_ok: bool = True) -> tuple[list[_Cand], list[_Cand]]:
    """All fitting candidates (and the non-fitting smallest ones) for one method."""
    req = s.req
    gpu, model = req.gpu, req.model
    world = req.world
    mbs, eff_target, _exact = _per_gpu_plan(req, world)

    prec_choices = rules.precision_choices(gpu, model)
    if req.precision is not None:
        prec_choices = [c for c in prec_choices if c.precision == req.precision] or [
            rules.PrecisionChoice(req.precision, 0, f"{req.precision} (fixed by you)")]
        prec_choices = [rules.PrecisionChoice(c.precision, c.risk, f"{c.precision} (fixed by you): {c.why}")
                        for c in prec_choices]
    else:
        prec_choices = [c for c in prec_choices if c.risk < 3]
    gcs = [req.gradient_checkpointing] if req.gradient_checkpointing is not None else [True, False]
    ladder = _ladder(world, req.zero_stage, req.offload)

    fitting: list[_Cand] = []
    closest: list[_Cand] = []
    attn_refusals: list[str] = []
    for cutoff in cutoffs:
        for pc in prec_choices:
            if req.attn is not None:
                why_not = rules.attn_allowed(gpu, model, req.attn, pc.precision)
                if why_not:
                    if req.precision is not None or len(prec_choices) == 1:
                        raise UserError(f"--attn {req.attn} is not possible here: {why_not}")
                    if why_not not in attn_refusals:
                        attn_refusals.append(why_not)
                    continue
                attn, attn_why = req.attn, f"attention {req.attn} (fixed by you)"
            else:
                attn, attn_why = rules.attn_choices(gpu, model, pc.precision)[0]
            mem_attn = rules.memory_attn(gpu, attn)
            for gc in gcs:
                best_mb_so_far = 0
                for level, (zero, offload) in enumerate(ladder):
                    def make_cfg(mb, pc=pc, attn=attn, cutoff=cutoff, gc=gc, zero=zero, offload=offload):
                        return s.cfg(method=method, precision=pc.precision, attn=attn, cutoff_len=cutoff,
                                     micro_batch=mb, gradient_checkpointing=gc, zero_stage=zero, offload=offload)
                    # binary search the largest fitting micro-batch among the candidates
                    lo, hi, best = 0, len(mbs) - 1, -1
                    first_est = None
                    while lo <= hi:
                        mid = (lo + hi) // 2
                        cfg = make_cfg(mbs[mid])
                        est = s.estimate(cfg, mem_attn)
                        if mid == 0:
                            first_est = (cfg, est)
                        if s.fits(est):
                            best, lo = mid, mid + 1
                        else:
                            hi = mid - 1
                    if best < 0:
                        if first_est is None:
                            cfg = make_cfg(mbs[0])
                            first_est = (cfg, s.estimate(cfg, mem_attn))
                        acc0 = max(1, round(eff_target / (mbs[0] * world)))
                        closest.append(_Cand(first_est[0], first_est[1], acc0, mbs[0] * world * acc0, pc.risk,
                                             pc.why, attn_why, False))
                        continue
                    mb = mbs[best]
                    if mb <= best_mb_so_far:
                        continue
                    best_mb_so_far = mb
                    cfg = make_cfg(mb)
                    est = s.estimate(cfg, mem_attn)
                    accum = max(1, round(eff_target / (mb * world)))
                    fitting.append(_Cand(cfg, est, accum, mb * world * accum, pc.risk, pc.why, attn_why, True))
                    if est.per_gpu.reserved_bytes > TIGHT_FRACTION * s.vram and best > 0:
                        # also the largest micro-batch that leaves comfortable headroom
                        for j in range(best - 1, -1, -1):
                            cfg2 = make_cfg(mbs[j])
                            est2 = s.estimate(cfg2, mem_attn)
                            if est2.per_gpu.reserved_bytes <= TIGHT_FRACTION * s.vram:
                                acc2 = max(1, round(eff_target / (mbs[j] * world)))
                                fitting.append(_Cand(cfg2, est2, acc2, mbs[j] * world * acc2, pc.risk, pc.why,
                                                     attn_why, True))
                                break
                    if mb == mbs[-1] or level >= 2 and best_mb_so_far > 0:
                        break   # the whole per-GPU batch fits (or enough levels tried): no need to go further
        if fitting and stop_at_first_cutoff:
            break
    if not fitting and not closest and attn_refusals:
        # every precision this GPU can run was ruled out by the attention the user fixed
        raise UserError(f"--attn {req.attn} is not possible on {gpu.display_name} with {model.name}: "
                        + "; ".join(attn_refusals) + "; use --attn sdpa or eager")
    return fitting, closest


def _rank_key(req: PlanRequest, c: _Cand):
    z = (c.cfg.zero_stage, c.cfg.offload)
    complexity = COMPLEXITY.get(z, 3)
    tps = c.thr.tokens_per_s if c.thr else 0.0
    tight = 1 if c.est.per_gpu.reserved_bytes > TIGHT_FRACTION * req.gpu.vram_bytes else 0
    if req.priority == "speed":
        return (c.risk >= 2, -tps, complexity)
    if req.priority == "context":
        return (-c.cfg.cutoff_len, c.risk, complexity, tight, -tps)
    return (c.risk, complexity, tight, -tps)


def _throughput(s: _Search, c: _Cand, epochs: float) -> tp.Throughput:
    req = s.req
    ds = req.dataset
    tokens = s.padded_tokens(c.cfg.micro_batch, c.cfg.cutoff_len)
    samples = ds.count if ds is not None else None
    return tp.predict(req.model, c.cfg, req.gpu, trainable_params=c.est.params_trainable,
                      grad_accum=c.grad_accum, tokens_per_sample=tokens,
                      real_tokens_per_sample=s.real_tokens(c.cfg.cutoff_len), samples=samples, epochs=epochs)


def _cutoff_ladder(req: PlanRequest, target: int) -> list[int]:
    if req.cutoff_len is not None:
        return [req.cutoff_len]
    out = [target]
    c = target
    while c > MIN_CUTOFF:
        c = max(MIN_CUTOFF, c // 2)
        if c < 256 and target > 256 and c != MIN_CUTOFF:
            continue
        out.append(c)
    return out


# --------------------------------------------------------------------------- public entry


def plan(req: PlanRequest) -> PlanResult:
    req.validate()
    s = _Search(req)
    gpu, model = req.gpu, req.model
    epochs = float(req.epochs) if req.epochs is not None else DEFAULT_EPOCHS
    global_warnings: list[PlanWarning] = []
    global_reasons: list[str] = []

    method = req.method
    if method == "qlora" and not rules.qlora_supported(gpu):
        global_warnings.append(make(
            "qlora-unsupported",
            f"QLoRA needs bitsandbytes kernels, and bitsandbytes has none for {gpu.arch} ({gpu.display_name}); "
            "planned as LoRA instead",
            "LoRA in 16-bit (or fp32) with ZeRO-3 to shard the frozen weights when they do not fit "
            "(this plan); QLoRA needs a GPU bitsandbytes supports (gfx90a/gfx942/gfx950/gfx1100+ or NVIDIA)"))
        method = "lora"

    target, cutoff_why = _dataset_cutoff(req)
    cutoffs = _cutoff_ladder(req, target)
    fitting, closest = _search_method(s, method, cutoffs, stop_at_first_cutoff=True)
    for c in fitting:
        c.thr = _throughput(s, c, epochs)
    fitting.sort(key=lambda c: _rank_key(req, c))

    fits = bool(fitting)
    suggestions: list[str] = []
    method_alts: list[_Cand] = []
    needs_offload = fits and fitting[0].cfg.offload != "none"

    if fits:
        best = fitting[0]
    else:
        # the closest miss at the wanted cutoff_len (not the shortest one tried)
        if not closest:
            raise UserError(f"no configuration of {method} can be built for {model.name} on {gpu.display_name} "
                            "with the options you fixed; drop --precision/--attn/--zero/--offload and let the planner choose")
        closest.sort(key=lambda c: (-c.cfg.cutoff_len, c.est.per_gpu.reserved_bytes, c.risk))
        best = closest[0]
        best.thr = _throughput(s, best, epochs)

    # another method when the goal does not fit (or only with offload)
    if not fits or needs_offload:
        for alt_method in _other_methods(method, gpu):
            alt_fit, alt_close = _search_method(s, alt_method, cutoffs, stop_at_first_cutoff=True)
            if not alt_fit and alt_close and not fits:
                m = min(alt_close, key=lambda c: c.est.per_gpu.reserved_bytes)
                suggestions.append(f"method {alt_method} does not fit either: its smallest configuration needs "
                                   f"{_gib(m.est.per_gpu.reserved_bytes)} per GPU")
            if alt_fit:
                for c in alt_fit:
                    c.thr = _throughput(s, c, epochs)
                alt_fit.sort(key=lambda c: _rank_key(req, c))
                method_alts.append(alt_fit[0])
                a = alt_fit[0]
                suggestions.append(
                    f"method {alt_method}: fits with {_describe(a)} — {_gib(a.est.per_gpu.reserved_bytes)} "
                    f"reserved per GPU of {_gib(s.vram)}")
                break

    if not fits:
        suggestions[:0] = _what_would_fit(s, method, best)

    rec = _option(s, best, epochs, cutoff_why, target)
    alternatives = _alternatives(s, fitting, best, method_alts, epochs, cutoff_why, target)

    warnings = list(global_warnings) + list(rec.warnings)
    reasons = list(global_reasons) + list(rec.reasons)
    if not fits:
        gpu_total = _gib(s.vram)
        msg = (f"{method} of {model.name} does not fit on {req.gpus} x {gpu.display_name} "
               f"x {req.nodes} node(s) with reserved memory <= {req.headroom:.0%} of {gpu_total}: the smallest "
               f"configuration ({_describe(best)}) needs {_gib(best.est.per_gpu.reserved_bytes)} per GPU")
        if best.est.cpu_offload_bytes and req.cpu_ram_bytes is not None and \
                best.est.cpu_offload_bytes > V.CPU_RAM_USABLE * req.cpu_ram_bytes:
            msg += (f" and {_gib(best.est.cpu_offload_bytes)} of CPU RAM for offload "
                    f"(you have {_gib(req.cpu_ram_bytes)})")
        fix = "; ".join(suggestions) if suggestions else WARNINGS_FIX_DOES_NOT_FIT
        warnings.insert(0, make("does-not-fit", msg, fix))
    elif needs_offload:
        no_offload = [c for c in closest if c.cfg.offload == "none"]
        smallest = min(no_offload, key=lambda c: c.est.per_gpu.reserved_bytes) if no_offload else None
        if smallest is not None:
            reasons.insert(0, (
                f"without CPU offload nothing fits: the smallest such configuration ({_describe(smallest)}) needs "
                f"{_gib(smallest.est.per_gpu.reserved_bytes)} per GPU, more than {req.headroom:.0%} of "
                f"{_gib(s.vram)}"))
        for sug in suggestions:
            reasons.append("alternative without offload: " + sug)
    if not fits:
        reasons.extend("would fit: " + x for x in suggestions)
    # de-duplicate warnings by code (first wins)
    seen = set()
    uniq = []
    for w in warnings:
        if w.code not in seen:
            seen.add(w.code)
            uniq.append(w)
    return PlanResult(request=req, fits=fits, recommended=rec, alternatives=tuple(alternatives),
                      warnings=tuple(uniq), reasons=tuple(reasons), suggestions=tuple(suggestions),
                      searched=len(s.cache))


WARNINGS_FIX_DOES_NOT_FIT = "fewer tokens (cutoff_len), LoRA/QLoRA, more GPUs with ZeRO-3, or CPU offload"


def _other_methods(method: str, gpu) -> list[str]:
    order = {"full": ["freeze", "lora", "qlora"], "freeze": ["lora", "qlora"], "lora": ["qlora"], "qlora": []}
    out = order.get(method, [])
    if method == "full":
        out = ["lora", "qlora"]
    return [m for m in out if m != "qlora" or rules.qlora_supported(gpu)]


def _describe(c: _Cand) -> str:
    cfg = c.cfg
    z = "DDP" if cfg.zero_stage == 0 else f"ZeRO-{cfg.zero_stage}"
    if cfg.gpus * cfg.nodes == 1 and cfg.zero_stage == 0:
        z = "single GPU"
    off = "" if cfg.offload == "none" else f" + offload {cfg.offload}"
    gc = "GC on" if cfg.gradient_checkpointing else "GC off"
    return (f"{cfg.method}, {cfg.precision}, {cfg.attn}, cutoff {cfg.cutoff_len}, micro-batch {cfg.micro_batch}, "
            f"{gc}, {z}{off}")


def _what_would_fit(s: _Search, method: str, best: _Cand) -> list[str]:
    """Concrete changes that would fit, with numbers from the estimator."""
    req = s.req
    out: list[str] = []
    base = best.cfg
    mem_attn = rules.memory_attn(req.gpu, base.attn)
    # fewer tokens
    if base.cutoff_len > MIN_CUTOFF:
        c = base.cutoff_len
        while c > MIN_CUTOFF:
            c = max(MIN_CUTOFF, c // 2)
            cfg = replace(base, cutoff_len=c, micro_batch=1)
            est = s.estimate(cfg, mem_attn)
            if s.fits(est):
                out.append(f"cutoff_len {c} (from {base.cutoff_len}) fits: {_gib(est.per_gpu.reserved_bytes)} per GPU")
                break
    # offload (when it was not allowed or CPU RAM is short)
    if req.offload in (None, "none") or req.cpu_ram_bytes is not None:
        cfg = replace(base, micro_batch=1, zero_stage=3, offload="all", gradient_checkpointing=True)
        est = s.estimate(cfg, mem_attn)
        if est.per_gpu.reserved_bytes <= s.limit:
            ram = est.cpu_offload_bytes
            have = "" if req.cpu_ram_bytes is None else f" (you have {_gib(req.cpu_ram_bytes)})"
            out.append(f"ZeRO-3 with CPU offload of parameters and optimizer: {_gib(est.per_gpu.reserved_bytes)} "
                       f"per GPU, needs {_gib(ram)} CPU RAM per node{have}")
    # more GPUs
    world = req.world
    for n in (2, 4, 8, 16, 32, 64, 128, 256):
        if n <= world:
            continue
        gpus, nodes = (n, 1) if n <= 8 else (8, n // 8)
        cfg = replace(base, gpus=gpus, nodes=nodes, zero_stage=3, offload="none", micro_batch=1,
                      gradient_checkpointing=True)
        est = s.estimate(cfg, mem_attn)
        if s.fits(est):
            out.append(f"{n} GPUs ({nodes} node(s)) with ZeRO-3: {_gib(est.per_gpu.reserved_bytes)} per GPU")
            break
    # headroom
    if req.headroom < 0.95 and s.limit < best.est.per_gpu.reserved_bytes <= 0.95 * s.vram:
        frac = best.est.per_gpu.reserved_bytes / s.vram
        out.append(f"--headroom 0.95: the smallest configuration uses {frac:.0%} of VRAM (OOM risk)")
    return out


def _option(s: _Search, c: _Cand, epochs: float, cutoff_why: str, target_cutoff: int) -> PlanOption:
    req = s.req
    gpu, model = req.gpu, req.model
    cfg = c.cfg
    world = cfg.gpus * cfg.nodes
    est = c.est
    thr = c.thr or _throughput(s, c, epochs)
    reasons: list[str] = []
    warns: list[PlanWarning] = []

    # precision
    reasons.append(f"precision {c.precision_why}")
    if gpu.bf16 in ("emulated", "none"):
        kind = "emulated in software" if gpu.bf16 == "emulated" else "not supported"
        bf16_msg = (f"bf16 is {kind} on {gpu.display_name} ({gpu.arch}): it would run ~2x slower than fp32 "
                    "(field report 000: 700+ s/it vs 340 s/it); torch.cuda.is_bf16_supported() still says True on ROCm")
        if cfg.precision in ("bf16", "pure_bf16"):
            warns.append(make("bf16-emulated", bf16_msg))
        else:
            warns.append(make("bf16-emulated", bf16_msg + f"; this plan uses {cfg.precision}",
                              "keep bf16 off: --bf16 False (and fp16/bf16 'enabled': false in any DeepSpeed JSON)"))
    elif gpu.bf16 == "half-rate" and cfg.precision in ("bf16", "pure_bf16"):
        warns.append(make("bf16-half-rate", f"bf16 runs at half the fp16 rate on {gpu.arch}"))
    overflow = rules.fp16_overflow_risk(model)
    if overflow and (cfg.precision == "fp16" or not rules.bf16_usable(gpu)):
        if cfg.precision == "fp16":
            msg = (f"{model.name}: {overflow}. fp16 risks grad_norm NaN / loss 0.0 "
                   "(field report 000 hit it at 253 s/it)")
            fix = None
        else:
            msg = (f"{model.name}: {overflow}. This plan uses {cfg.precision}; do not switch to fp16 for speed "
                   "(field report 000: fp16 was ~1.3x faster than fp32 but gave grad_norm NaN, loss 0.0)")
            fix = ("stay on fp32 here (or use a GPU with native bf16); if you must use fp16: learning rate <= 1e-5, "
                   "max_grad_norm 0.5, and stop on the first NaN")
        warns.append(make("fp16-overflow-risk", msg, fix))
    if req.precision is not None and c.risk >= 2:
        warns.append(make("fixed-value-risky", f"precision {c.precision_why}"))   # why already says "(fixed by you)"

    # attention
    reasons.append(c.attn_why)
    if not rules.sdpa_efficient(gpu) and gpu.fa2 is None and cfg.attn != "fa2":
        warns.append(make(
            "flash-attn-unsupported",
            f"{gpu.display_name} ({gpu.arch}) has no FlashAttention-2 and no SDPA flash kernel: eager attention "
            f"holds a {cfg.cutoff_len}x{cfg.cutoff_len} score matrix per head (counted in the memory estimate)",
            "LLaMA-Factory: --flash_attn disabled (this plan); do not try to build flash-attn for this GPU"))
    if req.attn == "fa2" and rules.sdpa_efficient(gpu):
        warns.append(make("fa2-not-needed"))

    # gradient checkpointing
    if cfg.gradient_checkpointing:
        reasons.append("gradient checkpointing on: activations of each decoder layer are recomputed in backward "
                       "(~+33% compute) to fit the memory" if req.gradient_checkpointing is None else
                       "gradient checkpointing on (fixed by you)")
    else:
        reasons.append("gradient checkpointing off: the activations fit, so no recomputation (faster)")

    # distribution
    if world == 1:
        if cfg.zero_stage == 0:
            reasons.append("single GPU: no distributed overhead")
        else:
            reasons.append(f"single GPU with DeepSpeed ZeRO-{cfg.zero_stage} only for the CPU offload")
    elif cfg.zero_stage == 0:
        reasons.append(f"plain DDP over {world} GPUs (torchrun): everything fits per GPU, so no ZeRO overhead "
                       "(field report 000: DDP beat ZeRO-2 on old hardware)")
    else:
        ddp = s.estimate(replace(cfg, zero_stage=0, offload="none", micro_batch=1), rules.memory_attn(gpu, cfg.attn))
        ddp_res = ddp.per_gpu.reserved_bytes
        if req.zero_stage is not None:
            reasons.append(f"DeepSpeed ZeRO-{cfg.zero_stage} (fixed by you)")
        elif s.fits(ddp):
            reasons.append(f"DeepSpeed ZeRO-{cfg.zero_stage}: plain DDP fits only a smaller micro-batch "
                           f"({_gib(ddp_res)} at micro-batch 1); ZeRO lets micro-batch {cfg.micro_batch} fit")
        else:
            reasons.append(f"DeepSpeed ZeRO-{cfg.zero_stage}: plain DDP does not fit ({_gib(ddp_res)} per GPU at "
                           f"micro-batch 1 = {ddp_res / s.vram:.0%} of VRAM, limit {req.headroom:.0%})")
    if cfg.offload != "none":
        ram = est.cpu_offload_bytes
        have = "unknown (pass --cpu-ram-gib)" if req.cpu_ram_bytes is None else _gib(req.cpu_ram_bytes)
        warns.append(make(
            "offload-needs-cpu-ram",
            f"CPU offload of the {'optimizer state' if cfg.offload == 'optimizer' else 'parameters and optimizer state'} "
            f"needs {_gib(ram)} of CPU RAM per node (you have {have}), and the CPU Adam step and PCIe copies cost "
            f"{thr.offload_seconds_per_step:.1f} s per step",
            None if req.cpu_ram_bytes is not None else
            f"check `free -g` shows at least {_gib(ram * 1.1)} free and pass --cpu-ram-gib"))
    if cfg.zero_stage == 3 and world > 1 and gpu.interconnect_gbs < 100:
        warns.append(make(
            "zero3-slow-interconnect",
            f"ZeRO-3 gathers the weights over {gpu.interconnect} (~{gpu.interconnect_gbs:g} GB/s) on every micro-step: "
            f"~{thr.comm_seconds_per_step:.1f} s of {thr.seconds_per_step:.1f} s per step"))
    if cfg.zero_stage > 0:
        if gpu.platform == "dtk":
            warns.append(make("dtk-deepspeed-cuda-check"))
        elif gpu.platform == "rocm":
            warns.append(make("deepspeed-rocm-build"))

    # multi-GPU
    if world > 1 and cfg.method in ("lora", "qlora") and cfg.gradient_checkpointing:
        warns.append(make(
            "ddp-lora-gc-reentrant",
            f"{world} GPUs + LoRA + gradient checkpointing: reentrant checkpointing fails with 'Expected to mark a "
            "variable ready only once' (field report 004)",
            "this plan sets use_reentrant=False (gradient_checkpointing_kwargs) and ddp_find_unused_parameters=False; "
            "keep them in any hand-written config"))
    if rules.iommu_hang_risk(gpu, cfg.gpus, req.iommu):
        state = rules.normalize_iommu(req.iommu)
        known = ("the IOMMU translates DMA on this host" if state == "translated"
                 else "the IOMMU state of the target host is unknown")
        warns.append(make(
            "iommu-p2p-hang-risk",
            f"{cfg.gpus} AMD GPUs per node and {known}: RCCL peer-to-peer can hang at the first barrier with 0% GPU "
            "use (field report 000: fixed by intel_iommu=off; AMD recommends iommu=pt)"))
    if cfg.nodes > 1:
        warns.append(make("multi-node-network", f"{cfg.nodes} nodes: gradients cross the network each step; "
                          f"{tp.INTER_NODE_GBS:g} GB/s assumed in the speed prediction"))

    # batch
    eff_target = req.effective_batch or DEFAULT_EFFECTIVE_BATCH
    eff = cfg.micro_batch * world * c.grad_accum
    reasons.append(f"effective batch {eff} = micro-batch {cfg.micro_batch} x {world} GPU(s) x accumulation "
                   f"{c.grad_accum}" + ("" if req.effective_batch not in (None, DEFAULT_EFFECTIVE_BATCH) else f" (default {DEFAULT_EFFECTIVE_BATCH}; --effective-batch to change)"))
    if eff != eff_target:
        warns.append(make(
            "effective-batch-inexact",
            f"effective batch {eff_target} cannot be met exactly with {world} GPU(s): this plan gives {eff} "
            f"(micro-batch {cfg.micro_batch} x {world} x {c.grad_accum})",
            f"use an effective batch that is a multiple of {world}"))

    # cutoff and dataset
    reasons.append(cutoff_why if cfg.cutoff_len == target_cutoff else
                   f"cutoff_len {cfg.cutoff_len}: {target_cutoff} does not fit ({cutoff_why.split(':')[0]})")
    ds = req.dataset
    if ds is not None and ds.count:
        trunc = ds.truncated_at(cfg.cutoff_len)
        pct = 100.0 * trunc / ds.count
        if trunc:
            txt = f"{trunc} of {ds.count} samples ({pct:.1f}%) are longer than cutoff_len {cfg.cutoff_len} and get truncated"
            if cfg.cutoff_len < target_cutoff:
                warns.append(make("cutoff-truncates-dataset", txt))
            else:
                reasons.append(txt)
    if model.warnings:
        warns.append(make("model-fallback", "; ".join(model.warnings)))

    # memory
    frac = est.per_gpu.reserved_bytes / s.vram
    reasons.append(f"memory: {_gib(est.per_gpu.reserved_bytes)} reserved per GPU = {frac:.0%} of {_gib(s.vram)} "
                   f"(limit {req.headroom:.0%})")
    if c.fits and frac > TIGHT_FRACTION:
        warns.append(make("memory-tight", f"{frac:.0%} of VRAM reserved: a longer-than-usual sample or "
                          "fragmentation can still OOM"))

    # platform
    if gpu.platform_status in ("deprecated", "unsupported"):
        warns.append(make("platform-unsupported",
                          f"{gpu.display_name} ({gpu.arch}) is {gpu.platform_status} in current "
                          f"{'ROCm' if gpu.platform == 'rocm' else gpu.platform.upper()} releases"))
    if gpu.platform == "rocm" and not gpu.hipblaslt:
        warns.append(make("hipblaslt-unsupported"))
    if gpu.hsa_override:
        warns.append(make("hsa-override-needed",
                          f"{gpu.arch} needs HSA_OVERRIDE_GFX_VERSION={gpu.hsa_override} for ROCm libraries to load",
                          f"export HSA_OVERRIDE_GFX_VERSION={gpu.hsa_override} (in this plan's env)"))

    env, env_why = rules.env_for(gpu, cfg.gpus, cfg.nodes)
    reasons.extend(env_why)
    launcher = rules.launcher_for(world, cfg.zero_stage)
    reasons.append("launcher torchrun: one process per GPU" + (
        "; DeepSpeed through its JSON config" if cfg.zero_stage else "") if launcher == "torchrun"
        else "launcher: a single process")
    lr = V.learning_rate_for(cfg.method, cfg.stage)
    reasons.append(f"learning rate {lr:g}: the usual start for {cfg.stage} {cfg.method}")

    # throughput and time
    band = f"{thr.high['seconds_per_step']:.0f}-{thr.low['seconds_per_step']:.0f}" if thr.seconds_per_step >= 10 \
        else f"{thr.high['seconds_per_step']:.2f}-{thr.low['seconds_per_step']:.2f}"
    reasons.append(f"speed: ~{thr.tokens_per_s:,.0f} tokens/s, {thr.seconds_per_step:.1f} s per optimizer step "
                   f"(range {band} s; {thr.flops_per_token / 1e9:.1f} GFLOP per token at "
                   f"{thr.efficiency:.0%} of {thr.peak_tflops:g} TFLOPS)")
    if req.hours is not None:
        budget = float(req.hours) * 3600
        if thr.eta_seconds is not None and thr.eta_seconds > budget:
            ep_fit = epochs * budget / thr.eta_seconds
            warns.append(make(
                "eta-exceeds-budget",
                f"predicted {thr.eta_seconds / 3600:.1f} h ({thr.high['eta_seconds'] / 3600:.1f}-"
                f"{thr.low['eta_seconds'] / 3600:.1f} h) for {epochs:g} epoch(s) exceeds the {req.hours:g} h budget",
                f"about {ep_fit:.2f} epochs fit in {req.hours:g} h; or fewer samples, shorter cutoff_len, more GPUs"))
        elif thr.eta_seconds is None:
            steps = int(budget // thr.seconds_per_step)
            reasons.append(f"in {req.hours:g} h: about {steps} optimizer steps = {steps * eff} samples "
                           "(pass --dataset for an ETA)")
    return PlanOption(cfg=cfg, grad_accum=c.grad_accum, estimate=est, throughput=thr, fits=c.fits,
                      effective_batch=eff, precision_risk=c.risk, launcher=launcher, env=env,
                      learning_rate=lr, epochs=epochs, reasons=tuple(reasons), warnings=tuple(warns),
                      vram_bytes=s.vram)


def _signature(c: _Cand) -> tuple:
    cfg = c.cfg
    return (cfg.method, cfg.precision, cfg.zero_stage, cfg.offload, cfg.gradient_checkpointing, cfg.cutoff_len)


def _alternatives(s: _Search, fitting: list[_Cand], best: _Cand, method_alts: list[_Cand], epochs: float,
                  cutoff_why: str, target: int) -> list[PlanOption]:
    chosen: list[_Cand] = []
    seen = {_signature(best)}
    for c in method_alts:
        if _signature(c) not in seen:
            chosen.append(c)
            seen.add(_signature(c))
    # first alternatives that differ in precision or distribution and are not much slower nor need offload
    # the recommendation does without; then anything else in rank order
    best_tps = best.thr.tokens_per_s if best.thr else 0.0

    def useful(c):
        if best_tps and c.thr and c.thr.tokens_per_s < best_tps / 3:
            return False
        return not (c.cfg.offload != "none" and best.cfg.offload == "none")

    for strict in (2, 1, 0):
        for c in fitting:
            if len(chosen) >= 3:
                break
            sig = _signature(c)
            if sig in seen:
                continue
            if strict >= 1 and not useful(c):
                continue
            if strict == 2 and any(sig[1] == x[1] and sig[2:4] == x[2:4] for x in seen):
                continue
            chosen.append(c)
            seen.add(sig)
    return [_option(s, c, epochs, cutoff_why, target) for c in chosen[:3]]


def estimate_settings(model, plan: Plan, settings: Settings | None = None) -> Memory:
    """Memory of the plan's (or edited) settings, counted exactly as the search counts it: SDPA without
    a flash kernel is estimated as the eager path it runs."""
    from rocm_tune.core.memory import estimate
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    cfg = plan.train_config(settings)
    gpu = get_gpu_profile(plan.hardware.gpu)
    mem_attn = rules.memory_attn(gpu, cfg.attn)
    if mem_attn != cfg.attn:
        cfg = replace(cfg, attn=mem_attn)
    return memory_of(estimate(model, cfg))
