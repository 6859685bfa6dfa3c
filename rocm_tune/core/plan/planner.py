"""The planner: given a model, GPUs and a goal, the whole training configuration with reasons.

`plan(PlanRequest) -> PlanResult`. It searches precision, attention, gradient checkpointing,
ZeRO stage / offload, micro-batch and cutoff_len (each only where the user did not fix it), keeps
what fits with headroom (reserved <= headroom x VRAM), ranks by the priority and returns the best plan
plus up to three alternatives, each with its memory estimate, predicted throughput, reasons and
warnings (stable codes from `rocm_tune.core.plan.warnings`). `PlanResult.to_dict()` is the plan.json
contract of docs/internals.md.

The search is pruned so that a whole `rocm-tune plan` stays well under 0.5 s:
* attention: one implementation per GPU (SDPA with a flash kernel, else eager) unless fixed;
* distribution: a ladder DDP -> ZeRO-2 -> ZeRO-3 -> +offload optimizer -> +offload all, walked in
  order and stopped once a level holds the whole per-GPU batch;
* micro-batch: binary search over the divisors of the per-GPU batch (memory grows with it);
* cutoff_len: the dataset percentile (or 1024), halved only when nothing fits.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rocm_tune.core.hardware import rules
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.plan import Goal, Hardware, Memory, ModelInfo, Plan, Settings
from rocm_tune.core.plan.request import PlanRequest
from rocm_tune.core.units import fmt_bytes_gib as _gib
from rocm_tune.core.vocabulary import DEFAULT_EFFECTIVE_BATCH, DEFAULT_EPOCHS
from rocm_tune.core.plan.warnings import PlanWarning, make

from rocm_tune.core.plan.explain import PlanOption, _alternatives, _option, memory_of, speed_of
from rocm_tune.core.plan.search import (
    WARNINGS_FIX_DOES_NOT_FIT,
    _Cand,
    _cutoff_ladder,
    _dataset_cutoff,
    _describe,
    _other_methods,
    _rank_key,
    _Search,
    _search_method,
    _throughput,
    _what_would_fit,
)


__all__ = ["PlanOption", "PlanRequest", "PlanResult", "estimate_settings", "memory_of", "plan", "speed_of"]

# --------------------------------------------------------------------------- request


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
            execution=rec.option(r.runner).execution,
        )

    def to_dict(self) -> dict:
        return self.plan.to_dict()


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
    _headline(s, method, best, fits, needs_offload, closest, suggestions, warnings, reasons)
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


def _headline(s: _Search, method: str, best: _Cand, fits: bool, needs_offload: bool, closest: list[_Cand],
              suggestions: list[str], warnings: list[PlanWarning], reasons: list[str]) -> None:
    """The plan's first warning (does not fit) or first reason (fits only with CPU offload), in place."""
    req = s.req
    model, gpu = req.model, req.gpu
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


def estimate_settings(model, plan: Plan, settings: Settings | None = None) -> Memory:
    """Memory of the plan's (or edited) settings, counted exactly as the search counts it: SDPA without
    a flash kernel is estimated as the eager path it runs."""
    from rocm_tune.core.memory.estimate import estimate
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    cfg = plan.train_config(settings)
    gpu = get_gpu_profile(plan.hardware.gpu)
    mem_attn = rules.memory_attn(gpu, cfg.attn)
    if mem_attn != cfg.attn:
        cfg = replace(cfg, attn=mem_attn)
    return memory_of(estimate(model, cfg, gpu))
