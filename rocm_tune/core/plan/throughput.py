"""Predicted training speed: FLOPs per token, tokens/s, seconds per optimizer step and ETA.

Model (documented in the README, calibrated by `benchmarks/throughput_calibration.py`):

* FLOPs per trained token. Forward = 2 x N_matmul (active parameters of the matmuls, lm_head included,
  embeddings excluded, MoE routed experts counted top-k/E) + attention (4 x layers x heads*head_dim x
  context; half of that for causal flash/SDPA kernels, the full square for eager/math attention).
  Backward = 2 x forward for full fine-tuning (activation and weight gradients); for LoRA/QLoRA only
  the activation gradients (about 1 x forward) plus the adapters' own 6 FLOPs per adapter parameter; for
  freeze only the trainable top layers and lm_head. Gradient checkpointing recomputes the decoder
  layers' forward once more. DPO trains on a (chosen, rejected) pair and runs the reference model's
  forward on both.
* Achievable rate = the profile's peak for the precision (fp32 / fp16 / bf16 — emulated bf16 uses the
  profile's effective bf16 rate on the fp32 units) x an efficiency (MFU) factor per architecture class
  that grows with the tokens one GPU processes per micro-step: eff = eff_max x T / (T + T_half).
  QLoRA pays ~25% for on-the-fly dequantisation.
* Communication per optimizer step over the profile's interconnect (assumed 12.5 GB/s between nodes):
  DDP all-reduces the trainable gradients once per step (no_sync while accumulating); ZeRO-1/2 reduce-
  scatter gradients on every micro-step and all-gather updated parameters; ZeRO-3 also all-gathers every
  parameter twice per micro-step (forward, backward/recompute); CPU offload moves gradients/parameters
  over PCIe and runs Adam on the CPU. Part of it overlaps with compute.
* Uncertainty: the gcn class (MI50/MI60/Radeon VII/Z100) is calibrated on field report 000 (band
  x0.8..x1.25); every other class is a published-MFU prior (band x0.6..x1.6), wider across nodes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rocm_tune.core.hardware import rules

# arch class -> (eff_max for 16-bit, eff_max for fp32, T_half tokens per micro-step, calibrated?)
# gcn: fitted to field report 000 (MI50, Qwen2.5-7B LoRA): fp32 mb1 GC 340 s/it, fp16 mb1 GC 253 s/it,
#      fp16 mb8 no-GC 24 s/it, assuming samples fill the 1024-token cutoff.
EFFICIENCY: dict[str, tuple[float, float, float, bool]] = {
    "gcn": (0.44, 0.66, 1000.0, True),
    "cdna12": (0.42, 0.55, 2048.0, False),
    "cdna3": (0.36, 0.50, 4096.0, False),
    "rdna3": (0.35, 0.50, 2048.0, False),
    "dcu": (0.35, 0.55, 2048.0, False),
    "nv-volta-turing": (0.45, 0.65, 1024.0, False),
    "nv-ampere-ada": (0.45, 0.60, 2048.0, False),
    "nv-hopper-blackwell": (0.40, 0.55, 4096.0, False),
    "generic": (0.35, 0.50, 2048.0, False),
}

INTER_NODE_GBS = 12.5       # assumed node-to-node bandwidth (100 Gb/s) when nothing better is known
HOST_LINK_GBS = 12.0        # effective GPU<->CPU copy bandwidth for offload
CPU_ADAM_PARAMS_PER_S = 1.0e9   # DeepSpeed CPUAdam on one node (all cores), parameters per second
COMM_OVERLAP = {"ddp": 0.3, "zero12": 0.5, "zero3": 0.5}
QLORA_SLOWDOWN = 0.75
STEP_OVERHEAD_S = 0.05      # per optimizer step: scheduler, logging, synchronisation


@dataclass(frozen=True)
class Throughput:
    tokens_per_s: float
    seconds_per_step: float
    eta_seconds: float | None
    steps: int | None                 # optimizer steps of the run (when the sample count is known)
    tokens_per_step: float
    flops_per_token: float
    compute_seconds_per_step: float
    comm_seconds_per_step: float
    offload_seconds_per_step: float
    optimizer_seconds_per_step: float
    peak_tflops: float
    efficiency: float                 # achieved fraction of peak in the compute part
    band: tuple[float, float]         # multiplicative band on the step time (fast, slow)
    calibrated: bool
    notes: tuple[str, ...] = field(default=())

    def _at(self, factor: float) -> dict:
        sec = self.seconds_per_step * factor
        return {
            "tokens_per_s": round(self.tokens_per_step / sec, 3) if sec > 0 else 0.0,
            "seconds_per_step": round(sec, 3),
            "eta_seconds": None if self.eta_seconds is None else round(self.eta_seconds * factor, 1),
        }

    @property
    def low(self) -> dict:
        """Pessimistic case: slowest step time in the band."""
        return self._at(self.band[1])

    @property
    def high(self) -> dict:
        """Optimistic case: fastest step time in the band."""
        return self._at(self.band[0])

    def to_dict(self) -> dict:
        return {
            "tokens_per_s": round(self.tokens_per_s, 3),
            "seconds_per_step": round(self.seconds_per_step, 3),
            "eta_seconds": None if self.eta_seconds is None else round(self.eta_seconds, 1),
            "low": self.low,
            "high": self.high,
        }


def matmul_params(model) -> float:
    """Parameters that take part in a matmul per token (active experts only; lm_head, not embeddings)."""
    p = model.params
    return float(model.active_params - p.embed + model.vocab_size * model.hidden_size)


def attention_flops_fwd(model, context: float, causal_kernel: bool) -> float:
    """Attention score + weighted-sum FLOPs per token, forward."""
    d_attn = model.num_attention_heads * model.head_dim
    full = 4.0 * model.num_layers * d_attn * context
    return full / 2.0 if causal_kernel else full


def flops_per_token(model, cfg, trainable_params: int, gpu=None, context: float | None = None) -> float:
    """Training FLOPs per token of one sequence (see the module docstring)."""
    context = float(context if context is not None else cfg.cutoff_len)
    causal = cfg.attn in ("fa2",) or (cfg.attn == "sdpa" and (gpu is None or rules.sdpa_efficient(gpu)))
    n_mm = matmul_params(model)
    lm_head_mm = float(model.vocab_size * model.hidden_size)
    attn = attention_flops_fwd(model, context, causal)
    fwd = 2.0 * n_mm + attn
    if cfg.method == "full":
        bwd = 2.0 * fwd
    elif cfg.method == "freeze":
        k = max(0, min(model.num_layers, int(getattr(cfg, "freeze_trainable_layers", 2))))
        frac = k / max(1, model.num_layers)
        layers_mm = n_mm - lm_head_mm
        bwd = 4.0 * (layers_mm * frac + lm_head_mm) + 2.0 * attn * frac
    else:  # lora / qlora: activation gradients everywhere, weight gradients for the adapters only
        adapters = float(trainable_params)
        bwd = 2.0 * n_mm + 2.0 * attn + 4.0 * adapters
        fwd += 2.0 * adapters
    total = fwd + bwd
    if cfg.gradient_checkpointing:
        total += 2.0 * (n_mm - lm_head_mm) + attn
    if getattr(cfg, "stage", "sft") == "dpo":
        total += 2.0 * n_mm + attn   # reference model forward
    return total


def peak_tflops(gpu, precision: str) -> tuple[float, bool]:
    """(peak TFLOPS for the precision, runs on the fp32 units?)"""
    if precision == "fp32":
        return float(gpu.fp32_tflops), True
    if precision == "fp16":
        return float(gpu.fp16_tflops), False
    # bf16 / pure_bf16
    if gpu.bf16 in ("emulated", "none"):
        return float(gpu.bf16_tflops), True
    return float(gpu.bf16_tflops), False


def predict(
    model,
    cfg,
    gpu,
    *,
    trainable_params: int,
    grad_accum: int = 1,
    tokens_per_sample: float | None = None,
    real_tokens_per_sample: float | None = None,
    samples: int | None = None,
    epochs: float | None = None,
    inter_node_gbs: float = INTER_NODE_GBS,
) -> Throughput:
    """Speed of one configuration. `tokens_per_sample`: padded tokens of one sample as the collator feeds
    them (default cutoff_len; see core/data/seqlen.py), which set the compute time; `real_tokens_per_sample`:
    the real (unpadded) tokens, which are what tokens/s counts (default: the padded count). A DPO sample
    is a pair and counts both sequences. `samples` x `epochs` gives the ETA."""
    world = max(1, int(cfg.gpus) * int(cfg.nodes))
    accum = max(1, int(grad_accum))
    seq = float(tokens_per_sample if tokens_per_sample is not None else cfg.cutoff_len)
    seqs_per_sample = 2 if getattr(cfg, "stage", "sft") == "dpo" else 1
    tokens_per_micro = max(1, int(cfg.micro_batch)) * seq * seqs_per_sample       # per GPU, padded
    compute, fpt, peak, eff, calibrated, klass = _compute_seconds(model, cfg, gpu, trainable_params, seq,
                                                                  tokens_per_micro, accum)
    notes: list[str] = []
    comm = _comm_seconds(model, cfg, gpu, float(trainable_params), world, accum, inter_node_gbs, notes)
    offload_s = _offload_seconds(model, cfg, float(trainable_params), world, accum)
    optim_s = _optimizer_seconds(cfg, gpu, float(trainable_params), world)
    step = compute + comm + offload_s + optim_s + STEP_OVERHEAD_S
    real = float(real_tokens_per_sample) if real_tokens_per_sample is not None else seq
    tokens_per_step = max(1, int(cfg.micro_batch)) * real * seqs_per_sample * accum * world
    if real_tokens_per_sample is not None and real < seq:
        notes.append(f"tokens/s counts the {real:,.0f} real tokens per sample, not the {seq:,.0f} padded ones")
    steps = eta = None
    if samples is not None and samples > 0:
        ep = float(epochs if epochs is not None else 1.0)
        steps = max(1, math.ceil(samples * ep / (max(1, int(cfg.micro_batch)) * accum * world)))
        eta = steps * step
    if calibrated:
        band = (0.8, 1.25)
    else:
        band = (0.6, 1.6)
        notes.append(f"efficiency for {klass} GPUs is a prior, not calibrated on this hardware")
    if cfg.nodes > 1:
        band = (band[0], band[1] * 1.2)
    return Throughput(
        tokens_per_s=tokens_per_step / step, seconds_per_step=step, eta_seconds=eta, steps=steps,
        tokens_per_step=tokens_per_step, flops_per_token=fpt,
        compute_seconds_per_step=compute, comm_seconds_per_step=comm,
        offload_seconds_per_step=offload_s, optimizer_seconds_per_step=optim_s,
        peak_tflops=peak, efficiency=eff, band=band, calibrated=calibrated, notes=tuple(notes),
    )


def _compute_seconds(model, cfg, gpu, trainable_params: int, seq: float, tokens_per_micro: float, accum: int):
    """(compute seconds per step, FLOPs per token, peak TFLOPS, efficiency, calibrated?, arch class)."""
    # attention context: the padded sequence length inside the micro-batch
    fpt = flops_per_token(model, cfg, trainable_params, gpu, context=seq)
    klass = rules.arch_class(gpu)
    eff16, eff32, t_half, calibrated = EFFICIENCY.get(klass, EFFICIENCY["generic"])
    peak, on_fp32_units = peak_tflops(gpu, cfg.precision)
    eff = (eff32 if on_fp32_units else eff16) * tokens_per_micro / (tokens_per_micro + t_half)
    if cfg.method == "qlora":
        eff *= QLORA_SLOWDOWN
    rate = max(peak, 1e-3) * 1e12 * eff
    return fpt * tokens_per_micro / rate * accum, fpt, peak, eff, calibrated, klass


def _comm_seconds(model, cfg, gpu, trainable: float, world: int, accum: int, inter_node_gbs: float,
                  notes: list[str]) -> float:
    """Gradient/parameter communication per optimizer step, after the overlap with compute."""
    if world <= 1:
        return 0.0
    grad_bytes = 2.0 if cfg.precision == "pure_bf16" else 4.0
    weight_bytes = 4.0 if cfg.precision == "fp32" else 2.0
    bw = float(gpu.interconnect_gbs) if cfg.nodes == 1 else min(float(gpu.interconnect_gbs), inter_node_gbs)
    bw *= 1e9
    ring = (world - 1) / world
    if cfg.nodes > 1:
        notes.append(f"inter-node bandwidth assumed {inter_node_gbs:g} GB/s")
    zero = int(cfg.zero_stage)
    if zero == 0:
        return (trainable * grad_bytes * 2 * ring / bw) * (1 - COMM_OVERLAP["ddp"])
    per_micro = trainable * grad_bytes * ring / bw                 # reduce-scatter
    per_step = trainable * weight_bytes * ring / bw                # all-gather updated params
    if zero == 3:
        wb = cfg.quant_bits / 8.0 if cfg.method == "qlora" else weight_bytes
        per_micro += 2.0 * float(model.params.total) * wb * ring / bw
        return (per_micro * accum + per_step) * (1 - COMM_OVERLAP["zero3"])
    return (per_micro * accum + per_step) * (1 - COMM_OVERLAP["zero12"])


def _offload_seconds(model, cfg, trainable: float, world: int, accum: int) -> float:
    """CPU offload: gradients/parameters over PCIe and CPU Adam."""
    grad_bytes = 2.0 if cfg.precision == "pure_bf16" else 4.0
    weight_bytes = 4.0 if cfg.precision == "fp32" else 2.0
    host = HOST_LINK_GBS * 1e9
    seconds = 0.0
    if cfg.offload in ("optimizer", "all") and cfg.zero_stage > 0:
        seconds += trainable / world * (grad_bytes + weight_bytes) / host
        seconds += trainable * (cfg.gpus / world) / CPU_ADAM_PARAMS_PER_S
    if cfg.offload == "all" and cfg.zero_stage == 3:
        seconds += accum * 2.0 * float(model.params.total) * weight_bytes / world / host
    return seconds


def _optimizer_seconds(cfg, gpu, trainable: float, world: int) -> float:
    """The optimizer update on the GPU (memory-bound): param + grad + 2 states, read and written."""
    if cfg.offload in ("optimizer", "all") and cfg.zero_stage > 0:
        return 0.0
    shard = trainable / (world if cfg.zero_stage > 0 else 1)
    return shard * 16.0 * 2.0 / (float(gpu.mem_bandwidth_gbs) * 1e9)
