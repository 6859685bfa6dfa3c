"""The planner's search: the numbers (which configurations fit, how fast), no explanations.

`_Search` memoises memory estimates for one request; `_search_method` walks precision x attention x
gradient checkpointing x the ZeRO/offload ladder and binary-searches the micro-batch; `_what_would_fit`
finds concrete changes that would fit when nothing does. The explanations live in `plan_explain`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rocm_tune.core.plan.trainer_terms import trainer_terms
from rocm_tune.core.memory import fitting
from rocm_tune.core.hardware import rules
from rocm_tune.core.data import seqlen
from rocm_tune.core.plan import throughput as tp
from rocm_tune.core.errors import UserError
from rocm_tune.core.units import fmt_bytes_gib as _gib
from rocm_tune.core.vocabulary import (
    DEFAULT_CUTOFF,
    DEFAULT_EFFECTIVE_BATCH,
    MIN_CUTOFF,
    TIGHT_FRACTION,
)
from rocm_tune.core.vocabulary import MAX_SEARCH_MICRO_BATCH as MAX_MICRO_BATCH

if TYPE_CHECKING:
    from rocm_tune.core.memory.estimate import MemoryEstimate, TrainConfig
    from rocm_tune.core.plan.request import PlanRequest


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
        from rocm_tune.core.memory.estimate import TrainConfig, estimate

        self.req = req
        self.TrainConfig = TrainConfig
        self._estimate = estimate
        self.cache: dict = {}
        self.vram = int(req.gpu.vram_bytes)
        self.limit = fitting.limit_bytes(self.vram, req.headroom, req.vram_in_use_bytes)
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
            # a plan is exported as a bundle, and every bundle starts LLaMA-Factory through lf_launch
            "lf_launch": r.runner == "llamafactory",
        }
        # the bundle's runner's own step terms, as check counts the exported config (core/plan/trainer_terms.py)
        base.update(trainer_terms(r.runner, r.stage, base["optim"]))
        base.update(kw)
        return self.TrainConfig(**base)

    def estimate(self, cfg, attn_for_memory: str | None = None):
        mcfg = replace(cfg, attn=attn_for_memory) if attn_for_memory and attn_for_memory != cfg.attn else cfg
        hit = self.cache.get(mcfg)
        if hit is None:
            mcfg.validate()
            hit = self._estimate(self.req.model, mcfg, self.req.gpu)   # its interconnect: the communicators
            self.cache[mcfg] = hit
        return hit

    def fits(self, est) -> bool:
        return fitting.fits(est.per_gpu.reserved_bytes, self.vram, self.req.headroom, self.req.vram_in_use_bytes,
                            est.cpu_offload_bytes, self.req.cpu_ram_bytes)

    def padded_tokens(self, mb: int, cutoff: int) -> float:
        """Expected padded length of a micro-batch of `mb` dataset samples, truncated at cutoff and padded
        to a multiple of 8 as the collators do (core/data/seqlen.py)."""
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


def _largest_fitting(s: _Search, mbs: list[int], make_cfg, mem_attn: str) -> tuple[int, tuple | None]:
    """Binary search: index of the largest fitting micro-batch among `mbs` (-1: none fits), and the
    (cfg, estimate) of mbs[0] when it was computed on the way."""
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
    return best, first_est


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
                    if zero == 3 and pc.precision == "pure_bf16" and req.runner == "llamafactory":
                        continue    # LLaMA-Factory refuses pure_bf16 with ZeRO-3 (hparams/parser.py)
                    def make_cfg(mb, pc=pc, attn=attn, cutoff=cutoff, gc=gc, zero=zero, offload=offload):
                        return s.cfg(method=method, precision=pc.precision, attn=attn, cutoff_len=cutoff,
                                     micro_batch=mb, gradient_checkpointing=gc, zero_stage=zero, offload=offload)
                    best, first_est = _largest_fitting(s, mbs, make_cfg, mem_attn)
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


