"""The planner's explanations: reasons and warnings for one searched configuration (`_option`), the
alternatives, and the typed views (`PlanOption.option()`, `memory_of`, `speed_of`) of the plan.json.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rocm_tune.core.memory import checkpoint_size as cs
from rocm_tune.core.hardware import rules
from rocm_tune.core import runners
from rocm_tune.core.plan import throughput as tp
from rocm_tune.core import vocabulary as V
from rocm_tune.core.plan.plan import ExecutionInfo, Memory, Option, Settings, Speed, SpeedPoint
from rocm_tune.core.units import fmt_bytes_gib as _gib
from rocm_tune.core.vocabulary import (
    DEFAULT_EFFECTIVE_BATCH,
    TIGHT_FRACTION,
)
from rocm_tune.core.plan.warnings import PlanWarning, make

if TYPE_CHECKING:
    from rocm_tune.core.memory.estimate import MemoryEstimate, TrainConfig

from rocm_tune.core.plan.search import _Cand, _Search, _throughput

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
    execution: Any = None   # rocm_tune.core.runners.Execution: what really executes

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
            use_reentrant=V.use_reentrant_for(lora, c.zero_stage) if c.gradient_checkpointing else None,
            learning_rate=self.learning_rate, epochs=self.epochs,
        )

    def memory(self) -> Memory:
        return memory_of(self.estimate)

    def option(self, runner: str = V.DEFAULT_RUNNER) -> Option:
        return Option(settings=self.settings(runner), fits=self.fits, memory=self.memory(),
                      throughput=speed_of(self.throughput), reasons=tuple(self.reasons),
                      warnings=tuple(self.warnings),
                      execution=None if self.execution is None else ExecutionInfo.of(self.execution))

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


@dataclass
class _Notes:
    """What the explanation of one configuration reads, and the reasons / warnings it writes."""

    s: _Search
    c: _Cand
    epochs: float
    cutoff_why: str
    target_cutoff: int
    thr: tp.Throughput
    reasons: list[str] = field(default_factory=list)
    warns: list[PlanWarning] = field(default_factory=list)
    launcher: str = "python"
    env: dict = field(default_factory=dict)
    lr: float = 0.0
    execution: Any = None


def _unpack(n: _Notes):
    req = n.s.req
    cfg = n.c.cfg
    return (n.s, n.c, req, req.gpu, req.model, cfg, cfg.gpus * cfg.nodes, n.c.est, n.thr, n.epochs, n.reasons,
            n.warns)


def _option(s: _Search, c: _Cand, epochs: float, cutoff_why: str, target_cutoff: int) -> PlanOption:
    """The searched configuration `c` with its reasons and warnings, section by section."""
    n = _Notes(s, c, epochs, cutoff_why, target_cutoff, c.thr or _throughput(s, c, epochs))
    for section in (_precision, _execution, _attention, _checkpointing, _distribution, _multi_gpu, _batch, _cutoff_and_dataset,
                    _memory, _platform, _launch, _speed, _disk):
        section(n)
    cfg, thr, est, reasons, warns, env, launcher, lr = (c.cfg, n.thr, c.est, n.reasons, n.warns, n.env, n.launcher,
                                                       n.lr)
    eff = cfg.micro_batch * cfg.gpus * cfg.nodes * c.grad_accum
    return PlanOption(cfg=cfg, grad_accum=c.grad_accum, estimate=est, throughput=thr, fits=c.fits,
                      effective_batch=eff, precision_risk=c.risk, launcher=launcher, env=env,
                      learning_rate=lr, epochs=epochs, reasons=tuple(reasons), warnings=tuple(warns),
                      vram_bytes=s.vram, execution=n.execution)




def _precision(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
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



def _execution(n: _Notes) -> None:
    """What really executes (core/runners), with the warning `estimate` gives when the runner does not run the
    requested precision, and why LLaMA-Factory is started through lf_launch when fp32 is pinned."""
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    ex = runners.execution(model, cfg, gpu)
    n.execution = ex
    r = ex.regime
    if ex.compute_pin and r.checkpoint_dtype != ex.compute_pin:
        total = model.params.total * runners.DTYPE_BYTES[ex.compute_pin]
        stock = model.params.total * runners.DTYPE_BYTES[r.checkpoint_dtype]
        reasons.append(f"runs in real {ex.compute_pin}: LLaMA-Factory is started through the bundle's "
                       f"{runners.LF_LAUNCH_FILE} --compute-dtype {ex.compute_pin}, because stock llamafactory-cli "
                       f"would keep this {r.checkpoint_dtype} checkpoint in {r.checkpoint_dtype} with bf16/fp16 off "
                       f"(field report 000's 'fp32' run); planned for {_gib(total)} of {ex.compute_pin} weights in "
                       f"all, not {_gib(stock)}")
    if ex.warning:
        code, msg, fix = ex.warning
        warns.append(make(code, msg, fix))


def _attention(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
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



def _checkpointing(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    # gradient checkpointing
    if cfg.gradient_checkpointing:
        reasons.append("gradient checkpointing on: activations of each decoder layer are recomputed in backward "
                       "(~+33% compute) to fit the memory" if req.gradient_checkpointing is None else
                       "gradient checkpointing on (fixed by you)")
    else:
        reasons.append("gradient checkpointing off: the activations fit, so no recomputation (faster)")



def _distribution(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
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
            f"~{thr.comm_seconds_per_step:.1f} s of {thr.seconds_per_step:.1f} s per step",
            _zero3_slow_fix(s, gpu, cfg)))
    if cfg.zero_stage > 0:
        if gpu.platform == "dtk":
            warns.append(make("dtk-deepspeed-cuda-check"))
        elif gpu.platform == "rocm":
            warns.append(make("deepspeed-rocm-build"))



def _zero3_slow_fix(s, gpu, cfg) -> str:
    """Only the ways out of ZeRO-3's gathers that this plan can take: plain DDP when it fits, LoRA when the plan is
    a full or freeze fine-tune, and always a bigger micro-batch."""
    ways = []
    ddp = s.estimate(replace(cfg, zero_stage=0, offload="none", micro_batch=1), rules.memory_attn(gpu, cfg.attn))
    if s.fits(ddp):
        ways.append("plain DDP (it fits at micro-batch 1)")
    if cfg.method in ("full", "freeze"):
        ways.append("LoRA")
    ways.append("fewer GPUs per job")
    text = "prefer " + ", ".join(ways) + " when they fit" if len(ways) > 1 else "use fewer GPUs per job if it fits"
    return text + "; raise the micro-batch to amortise the gathers"


def _multi_gpu(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    # multi-GPU
    # the DDP reducer's error: DeepSpeed ZeRO (any stage) and FSDP do not use torch's DDP reducer
    if world > 1 and cfg.zero_stage == 0 and cfg.method in ("lora", "qlora") and cfg.gradient_checkpointing:
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



def _batch(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
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



def _cutoff_and_dataset(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    cutoff_why, target_cutoff = n.cutoff_why, n.target_cutoff
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
    reasons.extend(f"model {model.name}: {note}" for note in getattr(model, "notes", ()))  # e.g. a VLM's language model



def _memory(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    # memory
    frac = est.per_gpu.reserved_bytes / s.vram
    reasons.append(f"memory: {_gib(est.per_gpu.reserved_bytes)} reserved per GPU = {frac:.0%} of {_gib(s.vram)} "
                   f"(limit {req.headroom:.0%})")
    if c.fits and frac > TIGHT_FRACTION:
        warns.append(make("memory-tight", f"{frac:.0%} of VRAM reserved: a longer-than-usual sample or "
                          "fragmentation can still OOM"))



def _platform(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    # platform
    if gpu.platform_status in ("deprecated", "unsupported"):
        warns.append(make("platform-unsupported",
                          f"{gpu.display_name} ({gpu.arch}) is {gpu.platform_status} in current "
                          f"{'ROCm' if gpu.platform == 'rocm' else gpu.platform.upper()} releases"))
    if gpu.platform == "rocm" and not gpu.hipblaslt:
        # the registry's (explain's) text; the fix says what this plan does about it
        warns.append(make("hipblaslt-unsupported", fix="harmless; TORCH_BLAS_PREFER_HIPBLASLT=0 (set in this plan) "
                                                        "silences it"))
    if gpu.hsa_override:
        warns.append(make("hsa-override-needed",
                          f"{gpu.arch} needs HSA_OVERRIDE_GFX_VERSION={gpu.hsa_override} for ROCm libraries to load",
                          f"export HSA_OVERRIDE_GFX_VERSION={gpu.hsa_override} (in this plan's env)"))



def _launch(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    env, env_why = rules.env_for(gpu, cfg.gpus, cfg.nodes)
    reasons.extend(env_why)
    launcher = rules.launcher_for(world, cfg.zero_stage)
    reasons.append("launcher torchrun: one process per GPU" + (
        "; DeepSpeed through its JSON config" if cfg.zero_stage else "") if launcher == "torchrun"
        else "launcher: a single process")
    lr = V.learning_rate_for(cfg.method, cfg.stage)
    reasons.append(f"learning rate {lr:g}: the usual start for {cfg.stage} {cfg.method}")

    n.env, n.launcher, n.lr = env, launcher, lr


def _speed(n: _Notes) -> None:
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    eff = cfg.micro_batch * world * c.grad_accum
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

def _disk(n: _Notes) -> None:
    """Checkpoint hygiene: one checkpoint of this configuration x how many are kept (every save: the plan sets no
    save_total_limit; save_steps 500 as exported), and disk-will-fill against the free space where the run writes
    when the request carries it (the `plan` command measures its current directory: LLaMA-Factory's output_dir is
    relative). A plan made for another machine says nothing: that machine's disk is not known here."""
    s, c, req, gpu, model, cfg, world, est, thr, epochs, reasons, warns = _unpack(n)
    size = cs.checkpoint_size(est.params_total, est.params_trainable, method=cfg.method, precision=cfg.precision,
                              zero_stage=cfg.zero_stage, optim=cfg.optim)
    if req.disk_free is None:
        return
    path, free = req.disk_free
    chk = cs.disk_check(size, path, total_steps=thr.steps, free=free)
    if chk.fits is False:  # only then: the free space and the path are this machine's, not the plan's
        warns.append(make("disk-will-fill", chk.message))


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


