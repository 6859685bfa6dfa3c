"""Per-GPU training memory of one configuration, itemised (pure, standard library only)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from rocm_tune.core.errors import UserError

METHODS = ("full", "freeze", "lora", "qlora")
PRECISIONS = ("fp32", "bf16", "fp16", "pure_bf16")
ATTNS = ("eager", "sdpa", "fa2")
OPTIMS = ("adamw", "adamw_8bit", "paged_adamw", "paged_adamw_8bit", "sgd", "sgd_momentum", "adafactor")
OFFLOADS = ("none", "optimizer", "all")
STAGES = ("sft", "dpo", "pt")


def _check_int(name: str, value, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{name} must be an integer between {lo} and {hi}, got {value!r}")
    if not lo <= value <= hi:
        raise UserError(f"{name} must be between {lo} and {hi}, got {value}")


def _check_choice(name: str, value, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise UserError(f"{name} {value!r} is not known; expected one of: {', '.join(allowed)}")


@dataclass(frozen=True)
class TrainConfig:
    method: str = "lora"
    lora_rank: int = 8
    lora_alpha: int | None = None
    lora_targets: tuple[str, ...] = ("all",)
    dora: bool = False
    quant_bits: int = 4
    double_quant: bool = True
    freeze_trainable_layers: int = 2
    precision: str = "bf16"
    cutoff_len: int = 1024
    micro_batch: int = 1
    gradient_checkpointing: bool = True
    attn: str = "sdpa"
    optim: str = "adamw"
    gpus: int = 1
    nodes: int = 1
    zero_stage: int = 0
    offload: str = "none"
    stage: str = "sft"

    @property
    def world_size(self) -> int:
        return self.gpus * self.nodes

    @property
    def is_lora(self) -> bool:
        return self.method in ("lora", "qlora")

    def validate(self) -> None:
        """Raise UserError naming the first bad value."""
        _check_choice("method", self.method, METHODS)
        _check_choice("precision", self.precision, PRECISIONS)
        _check_choice("attn", self.attn, ATTNS)
        _check_choice("optim", self.optim, OPTIMS)
        _check_choice("offload", self.offload, OFFLOADS)
        _check_choice("stage", self.stage, STAGES)
        _check_int("lora_rank", self.lora_rank, 1, 65536)
        if self.lora_alpha is not None:
            _check_int("lora_alpha", self.lora_alpha, 1, 1_048_576)
        if not isinstance(self.lora_targets, tuple) or not self.lora_targets:
            raise UserError(f"lora_targets must be 'all' or module names, got {self.lora_targets!r}")
        for t in self.lora_targets:
            if not isinstance(t, str) or not t or not all(c.isalnum() or c in "_." for c in t):
                raise UserError(f"lora target {t!r} is not a module name; use 'all' or names like q_proj,v_proj")
        if "all" in self.lora_targets and len(self.lora_targets) > 1:
            raise UserError(f"lora targets {','.join(self.lora_targets)!r}: 'all' cannot be combined with names")
        if not isinstance(self.dora, bool) or not isinstance(self.double_quant, bool):
            raise UserError("dora and double_quant must be true or false")
        if not isinstance(self.gradient_checkpointing, bool):
            raise UserError(f"gradient_checkpointing must be true or false, got {self.gradient_checkpointing!r}")
        if self.quant_bits not in (4, 8) or isinstance(self.quant_bits, bool):
            raise UserError(f"quant_bits must be 4 or 8, got {self.quant_bits!r}")
        _check_int("freeze_trainable_layers", self.freeze_trainable_layers, 1, 100_000)
        _check_int("cutoff_len", self.cutoff_len, 1, 1_048_576)
        _check_int("micro_batch", self.micro_batch, 1, 65_536)
        _check_int("gpus", self.gpus, 1, 1024)
        _check_int("nodes", self.nodes, 1, 100_000)
        _check_int("zero_stage", self.zero_stage, 0, 3)
        if self.dora and not self.is_lora:
            raise UserError(f"dora needs method lora or qlora, got method {self.method!r}")
        if self.offload == "optimizer" and self.zero_stage == 0:
            raise UserError("offload 'optimizer' needs DeepSpeed ZeRO (zero 1, 2 or 3), got zero 0")
        if self.offload == "all" and self.zero_stage != 3:
            raise UserError(f"offload 'all' (parameters too) needs zero 3, got zero {self.zero_stage}")
        if self.attn == "fa2" and self.precision == "fp32":
            raise UserError("attn 'fa2' (FlashAttention-2) needs precision bf16, fp16 or pure_bf16, got fp32")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        return d


@dataclass(frozen=True)
class PerGpuMemory:
    """Bytes on one GPU during one steady-state training step (step 2 onwards)."""

    weights_bytes: int
    frozen_weights_bytes: int
    trainable_weights_bytes: int
    gradients_bytes: int
    optimizer_bytes: int
    activations_bytes: int
    transient_bytes: int
    autocast_copies_bytes: int
    comm_buffers_bytes: int
    peak_allocated_bytes: int
    reserved_bytes: int

    def to_dict(self) -> dict:
        return {k: int(v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class MemoryEstimate:
    model: object  # ModelSpec
    config: TrainConfig
    params_total: int
    params_trainable: int
    per_gpu: PerGpuMemory
    cpu_offload_bytes: int
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "params": {"total": int(self.params_total), "trainable": int(self.params_trainable)},
            "per_gpu": self.per_gpu.to_dict(),
            "cpu_offload_bytes": int(self.cpu_offload_bytes),
            "config": self.config.to_dict(),
            "notes": list(self.notes),
        }


# ----------------------------------------------------------------------------------------------------
# The analytic model. Every figure below is "bytes per token" (T = micro_batch x cutoff_len tokens, x2
# for DPO's chosen + rejected) of what autograd keeps, following what the transformers / PEFT code
# actually does under each precision regime; `benchmarks/estimator_accuracy.py` checks it against the
# fake-tensor probe (rocm_tune/train/probe.py), which runs the real code.
# ----------------------------------------------------------------------------------------------------

_GIB = 2**30
_BLOCK = 512
_ALLOC_CONTEXT = 500 * 2**20        # CUDA/HIP context + kernels + cuBLAS/hipBLAS workspaces
_FRAGMENTATION = 0.08              # caching-allocator blocks reserved but not allocated at the peak


def _lora_wrapped(model, cfg: TrainConfig):
    """LinearGroups that PEFT wraps for these targets (routed experts/routers are fused 3-D parameters
    in transformers >= 5 and are not nn.Linear, so "all" leaves them alone, as PEFT's all-linear does)."""
    groups = [g for g in model.linears if g.kind in ("attn", "mlp", "shared_expert")]
    if "all" in cfg.lora_targets:
        return groups
    names = {g.name for g in model.linears}
    unknown = [t for t in cfg.lora_targets if t not in names]
    if unknown:
        raise UserError(
            f"lora target {unknown[0]!r} is not a linear layer of {model.name}; "
            f"allowed: all, {', '.join(sorted(names))}")
    return [g for g in model.linears if g.name in cfg.lora_targets]


def _round(n: float) -> int:
    return int(-(-int(n) // _BLOCK) * _BLOCK) if n > 0 else 0


def estimate(model, cfg: TrainConfig) -> MemoryEstimate:
    """Per-GPU memory of one steady-state training step of `model` (a ModelSpec) under `cfg`."""
    cfg.validate()
    notes: list[str] = []
    L = max(1, int(model.num_layers))
    H = int(model.hidden_size)
    V = int(model.vocab_size)
    heads = max(1, int(model.num_attention_heads))
    hd = max(1, int(model.head_dim))
    q_dim = heads * hd
    kv_dim = max(1, int(model.num_kv_heads)) * hd
    world = cfg.world_size
    P = model.params
    total = int(P.total)
    mixed = cfg.precision in ("bf16", "fp16")
    pure = cfg.precision == "pure_bf16"
    c = 4 if cfg.precision == "fp32" else 2            # compute (activation) bytes
    half = 4 if cfg.precision == "fp32" else 2         # storage of frozen weights
    tw = 2 if pure else 4                              # storage of trainable weights / grads

    # ---------------- which parameters train ----------------
    lora = cfg.is_lora
    wrapped = _lora_wrapped(model, cfg) if lora else []
    if cfg.method == "full":
        trainable = total
    elif cfg.method == "freeze":
        n = cfg.freeze_trainable_layers
        if n > L:
            raise UserError(f"freeze_trainable_layers {n} is more than the {L} layers of {model.name}")
        trainable = sum(P.per_layer[L - n:]) if P.per_layer else total * n // L
    else:
        r = cfg.lora_rank
        trainable = sum((g.in_features + g.out_features) * r * g.count * g.layers for g in wrapped)
        if cfg.dora:
            trainable += sum(g.out_features * g.count * g.layers for g in wrapped)
    if lora and not wrapped:
        raise UserError(f"no LoRA target found in {model.name}")
    if lora:
        # an adapter's update has rank <= min(in, out): a larger rank only adds parameters (and can give
        # more "trainable" parameters than the model has)
        useful = max(min(g.in_features, g.out_features) for g in wrapped)
        if cfg.lora_rank > useful:
            raise UserError(f"lora_rank {cfg.lora_rank} is more than {model.name}'s LoRA-wrapped layers can use "
                            f"(their widest has min(in, out) = {useful}); use a rank <= {useful}")

    # ---------------- weights ----------------
    if cfg.method == "qlora":
        quant = sum(g.params for g in model.linears if g.kind in ("attn", "mlp", "shared_expert"))
        if cfg.quant_bits == 4:
            per = 0.5 + (1 / 64 + 4 / (64 * 256) if cfg.double_quant else 4 / 64)
        else:
            per = 1.0
        qbytes = quant * per
        if cfg.quant_bits == 8:
            qbytes += 4 * sum(g.out_features * g.count * g.layers for g in model.linears
                              if g.kind in ("attn", "mlp", "shared_expert"))
        frozen_bytes = qbytes + (total - quant) * (2 if cfg.precision != "fp32" else 4)
        notes.append(f"QLoRA {cfg.quant_bits}-bit: decoder linears quantised "
                     f"({'double quant' if cfg.double_quant and cfg.quant_bits == 4 else 'no double quant'}); "
                     "embeddings, norms, routed experts and lm_head stay 16-bit")
    elif lora:
        frozen_bytes = total * half
    else:
        frozen_bytes = (total - trainable) * half
    trainable_bytes = trainable * tw
    stage_dpo_full = cfg.stage == "dpo" and not lora
    ref_bytes = total * half if stage_dpo_full else 0   # DPO full: a frozen reference copy
    if stage_dpo_full:
        notes.append("DPO full: a frozen reference model copy is kept in 16-bit")
    if cfg.stage == "dpo" and lora:
        notes.append("DPO LoRA: no reference copy (the adapter is disabled for the reference pass)")

    # ---------------- ZeRO sharding and offload ----------------
    z = cfg.zero_stage
    grad_bytes_full = trainable * tw
    opt_per_param = {"adamw": 8, "paged_adamw": 8, "adamw_8bit": 2, "paged_adamw_8bit": 2,
                     "sgd": 0, "sgd_momentum": tw, "adafactor": 0}[cfg.optim]
    if cfg.optim == "adafactor":
        opt_full = _adafactor_state(model, cfg, trainable, tw)
    else:
        opt_full = trainable * opt_per_param * (1 if cfg.optim != "adamw" or not pure else 0.5)
        if pure and cfg.optim in ("adamw", "paged_adamw"):
            opt_full = trainable * 4          # pure_bf16: both moments in bf16
    if cfg.optim in ("adamw_8bit", "paged_adamw_8bit"):
        opt_full += trainable * 2 * 4 / 2048  # block-wise fp32 absmax, block 2048
    weights_gpu = frozen_bytes + trainable_bytes + ref_bytes
    grads_gpu = grad_bytes_full
    opt_gpu = opt_full
    comm = 0
    cpu_offload = 0
    if z == 0:
        if world > 1:
            comm = grad_bytes_full + 0  # DDP reducer buckets: a flat copy of every gradient
            notes.append("DDP: the reducer keeps gradient buckets as large as all gradients together")
    else:
        # DeepSpeed keeps 16-bit model weights and fp32 master weights inside the optimizer.
        if mixed and trainable:
            weights_gpu = frozen_bytes + trainable * 2 + ref_bytes
            master = trainable * 4
        else:
            master = 0
        grad_el = 2 if (mixed or pure) else 4
        sh = world
        opt_gpu = (opt_full + master) / sh
        grads_gpu = trainable * grad_el / (sh if z >= 2 else 1)
        bucket = min(trainable, 5e8 if z < 3 else H * H) * grad_el
        comm = bucket * (2 if z < 3 else 1)
        if z == 3:
            weights_gpu = weights_gpu / sh
            biggest_layer = max(P.per_layer) if P.per_layer else total / L
            comm += (2 * biggest_layer + max(P.embed, P.lm_head)) * (2 if c == 2 else 4)  # gathered + prefetch
        if cfg.offload in ("optimizer", "all"):
            cpu_offload += opt_gpu + trainable * 4 / sh   # states + fp32 grads on the host
            opt_gpu = 0
            grads_gpu = 0   # gradient partitions go to the host bucket by bucket (the bucket is in comm)
        if cfg.offload == "all":
            cpu_offload += weights_gpu
            weights_gpu = 0
        cpu_offload *= cfg.gpus   # one node holds the partitions of its own GPUs
        notes.append(f"DeepSpeed ZeRO-{z} over {world} GPU(s)" + (f", offload {cfg.offload}" if cfg.offload != "none" else ""))

    # ---------------- activations ----------------
    seq = cfg.cutoff_len
    rows = cfg.micro_batch * (2 if cfg.stage == "dpo" else 1)
    T = rows * seq
    if model.family == "gemma2" and cfg.attn == "sdpa":
        notes.append("gemma2 has no sdpa attention in transformers (logit soft-capping): estimated as eager")
        cfg_act = TrainConfig(**{**cfg.__dict__, "attn": "eager"})
    else:
        cfg_act = cfg
    act = _Acts(model, cfg_act, wrapped, c, mixed, pure, H, q_dim, kv_dim, heads, seq)
    trainable_mask = [True] * L
    if cfg.method == "freeze":
        trainable_mask = [i >= L - cfg.freeze_trainable_layers for i in range(L)]
    # layers below the first trainable one keep nothing unless checkpointing made inputs require grad
    graph_layers = [trainable_mask[i] or lora or cfg.method == "full" or cfg.gradient_checkpointing
                    for i in range(L)]
    per_layer_kept = []
    for i in range(L):
        if not graph_layers[i]:
            per_layer_kept.append(0.0)
        elif cfg.gradient_checkpointing:
            per_layer_kept.append(act.ckpt_kept(trainable_mask[i]))
        else:
            per_layer_kept.append(act.kept(trainable_mask[i]))
    acts_tok = sum(per_layer_kept) + act.embed_kept
    acts = acts_tok * T + act.eager_mask_bytes(rows)

    base = weights_gpu + opt_gpu + comm
    ckpt = cfg.gradient_checkpointing
    # autocast: bf16/fp16 copies of trainable fp32 weights, cached until autocast exits after the loss;
    # without checkpointing each linear also saves its copy for backward.
    head_params = (P.lm_head or P.embed) if cfg.method == "full" else 0
    lin_tr = 0
    if mixed and not lora:
        per_layer_lin = sum(g.params * g.count // max(1, g.count) for g in model.linears) / L
        lin_tr = per_layer_lin * sum(1 for t in trainable_mask if t)
    if z >= 1:
        lin_tr, head_params_cast = 0, 0   # DeepSpeed runs the 16-bit model itself: no autocast copies
    else:
        head_params_cast = head_params
    shard3 = world if z == 3 else 1
    cast_fwd = ((lin_tr + head_params_cast) * 2 / shard3) if mixed else 0     # alive at the end of forward
    cast_saved = ((0 if ckpt else lin_tr) + head_params_cast) * 2 / shard3 if mixed else 0

    # ---------------- phases of the step: the peak is the largest ----------------
    logits = V * T
    gemma_cap = bool(model.config.get("final_logit_softcapping")) if isinstance(model.config, dict) else False
    cap_kept = c * logits if gemma_cap else 0            # tanh output saved by the logit soft-capping
    # forward end, inside autocast: lm_head output, its fp32 upcast and the fp32 log-softmax
    phase_fwd = acts + cast_fwd + (c + 8) * logits + cap_kept
    # loss backward: fp32 log-softmax kept, the incoming gradient and the gradient of its input
    phase_loss = acts + cast_saved + 12 * logits + cap_kept
    grads_layer = [p * tw for p in P.per_layer] if P.per_layer else [0] * L
    if cfg.method == "freeze":
        grads_layer = [g if trainable_mask[i] else 0 for i, g in enumerate(grads_layer)]
    elif lora:
        grads_layer = [trainable * tw / L] * L
    if z >= 2:
        grads_layer = [g / world for g in grads_layer]
    offloaded_grads = z >= 1 and cfg.offload != "none"
    if offloaded_grads:
        grads_layer = [0.0] * L
    head_grad = 0 if offloaded_grads else head_params * tw / (world if z >= 2 else 1)
    # lm_head backward: gradient of the logits in compute dtype + the head's weight gradient
    phase_head = acts + cast_saved + c * logits + cap_kept + head_grad + (head_params * 2 if mixed else 0)
    best = max(phase_fwd, phase_loss, phase_head)
    kept_prefix = act.embed_kept * T + act.eager_mask_bytes(rows)
    prefix = [0.0] * (L + 1)
    for i in range(L):
        prefix[i + 1] = prefix[i] + per_layer_kept[i] * T
    grads_after = head_grad
    cast_layer = lin_tr / max(1, sum(1 for t in trainable_mask if t)) * 2 / shard3 if lin_tr else 0
    for i in range(L - 1, -1, -1):
        if not graph_layers[i]:
            break
        inner = act.bwd_transient(trainable_mask[i]) * T
        if ckpt:
            inner += act.kept(trainable_mask[i]) * T + (cast_layer if trainable_mask[i] else 0)
        saved_casts = 0 if ckpt else cast_layer * sum(1 for j in range(i + 1) if trainable_mask[j])
        m = kept_prefix + prefix[i + 1] + inner + grads_after + grads_layer[i] + saved_casts
        best = max(best, m)
        grads_after += grads_layer[i]
    # end of backward: every gradient; a trainable embedding adds its dense gradient (tied to lm_head:
    # the dense gradient and the out-of-place sum with the head's gradient)
    emb_grad = 0.0
    if cfg.method == "full" and not offloaded_grads:
        emb_grad = P.embed * tw / (world if z >= 2 else 1)
    all_grads = grads_after + (emb_grad if P.lm_head else 0)
    phase_end = all_grads + (0 if P.lm_head else 2 * emb_grad)
    opt_tmp = _opt_transient(model, cfg, trainable, tw)
    best = max(best, phase_end, all_grads + opt_tmp)
    if cfg.method == "qlora":
        biggest = max((g.in_features * g.out_features for g in model.linears
                       if g.kind in ("attn", "mlp", "shared_expert")), default=0)
        best += biggest * 2   # one dequantised weight at a time
    if cfg.dora:
        # PEFT's DoRA materialises the full delta weight (through an identity matrix) and the weight norm
        # of the largest wrapped linear in fp32; ~14.5 bytes per weight element measured by the probe
        best += max((14.5 * g.in_features * g.out_features for g in wrapped), default=0)
        notes.append("DoRA: the transient of its weight-norm computation is approximate (within ~10%)")
    peak = base + best
    gradients_bytes = grads_gpu
    transient = max(0.0, best - acts - cast_saved - all_grads)
    peak = _round(peak)
    cast_linear = cast_fwd
    reserved = _round(peak * (1 + _FRAGMENTATION) + _ALLOC_CONTEXT)
    per_gpu = PerGpuMemory(
        weights_bytes=_round(weights_gpu),
        frozen_weights_bytes=_round(frozen_bytes + ref_bytes if z != 3 else (frozen_bytes + ref_bytes) / world)
        if cfg.offload != "all" else 0,
        trainable_weights_bytes=_round(weights_gpu - (frozen_bytes + ref_bytes if z != 3 else (frozen_bytes + ref_bytes) / world))
        if cfg.offload != "all" else 0,
        gradients_bytes=_round(gradients_bytes),
        optimizer_bytes=_round(opt_gpu),
        activations_bytes=_round(acts),
        transient_bytes=_round(transient),
        autocast_copies_bytes=_round(cast_linear),
        comm_buffers_bytes=_round(comm),
        peak_allocated_bytes=peak,
        reserved_bytes=reserved,
    )
    return MemoryEstimate(model=model, config=cfg, params_total=total, params_trainable=int(trainable),
                          per_gpu=per_gpu, cpu_offload_bytes=_round(cpu_offload), notes=tuple(notes))


def _adafactor_state(model, cfg, trainable, tw) -> float:
    """Adafactor keeps a row and a column second-moment vector per matrix, a full one per vector."""
    if cfg.method in ("lora", "qlora"):
        return trainable / max(1, cfg.lora_rank) * 4 + 0.0  # rows/cols of thin adapter matrices
    frac = trainable / max(1, model.params.total)
    s = sum((g.in_features + g.out_features) * g.count * g.layers for g in model.linears)
    s += model.params.embed and (model.vocab_size + model.hidden_size)
    if model.params.lm_head:
        s += model.vocab_size + model.hidden_size
    s += model.params.norms
    return s * 4 * frac


def _opt_transient(model, cfg, trainable, tw) -> float:
    if cfg.optim == "adafactor":
        biggest = max([g.in_features * g.out_features for g in model.linears] +
                      ([model.params.embed] if cfg.method == "full" else []))
        if cfg.method in ("lora", "qlora"):
            biggest = max(g.in_features for g in model.linears) * cfg.lora_rank
        return biggest * 4 * 3
    return 0.0


class _Acts:
    """Bytes per token that autograd keeps in one decoder layer, module by module."""

    __slots__ = (
        "_bf",
        "_bt",
        "_c",
        "_cf",
        "_ct",
        "_eager",
        "_heads",
        "_kf",
        "_kt",
        "_seq",
        "embed_kept",
        "layer_kept",
    )

    def __init__(self, model, cfg, wrapped, c, mixed, pure, H, q, kv, heads, seq):
        lora = cfg.is_lora
        full = cfg.method == "full"
        fam = model.family
        gemma = fam.startswith("gemma")
        # residual stream dtype: the embedding output dtype (fp32 when the embedding trains in mixed)
        s = 4 if (cfg.precision == "fp32" or (mixed and full)) else 2
        mlp = [g for g in model.linears if g.kind in ("mlp", "shared_expert")]
        attn_l = [g for g in model.linears if g.kind == "attn"]
        wrapped_names = {g.name for g in wrapped}
        gated = model.gated_mlp
        o_names = {"o_proj", "dense", "out_proj", "wo", "c_proj"}
        moe = bool(model.num_experts) and model.moe_layers >= model.num_layers
        k = max(1, model.num_experts_per_tok)
        mi = model.moe_intermediate_size or model.intermediate_size
        # routed experts (transformers >= 5 loops over hit experts): per routed copy the gathered input,
        # gate_up out, act out, product and the weighted output; router logits/softmax in fp32
        moe_tok = (k * c * (H + 4 * mi + H) + 8 * model.num_experts) if moe else 0
        if moe and model.shared_expert_intermediate_size:
            moe_tok += c * model.shared_expert_intermediate_size * 3
        qk_norm = bool(model.config.get("qk_norm") or fam in ("qwen3", "qwen3_moe", "gemma3_text", "gemma3"))
        n_norms = 4 if fam in ("gemma2", "gemma3_text", "gemma3") else 2

        def layer(train: bool) -> float:
            wtrain = train and not lora             # the layer's own weights train (full / freeze)
            b = 0.0
            # RMSNorm: the fp32 input (a copy, or the fp32 residual itself) is saved by pow/mul; the
            # normalised input is saved too when the norm weight trains.
            sn = 4 if (cfg.precision == "fp32" or (mixed and wtrain)) else 2     # norm output dtype
            b += n_norms * (4 * H + (((4 if (gemma or s == 4) else s) * H) if wtrain else 0))
            if qk_norm:
                b += 4 * (q + kv) + ((4 if gemma or c == 4 or mixed else c) * (q + kv) if wtrain else 0)

            def saves(g_list, in_bytes: int, already_saved: bool) -> float:
                """Bytes saved for the inputs of the linears in g_list that read one tensor."""
                extra = 0.0
                shared = False
                for g in g_list:
                    n_in = g.in_features
                    if lora and g.name in wrapped_names:
                        extra += c * cfg.lora_rank * (2 if cfg.dora else 1)
                        if cfg.dora:
                            extra += 2 * c * g.out_features
                        if mixed:
                            extra += 2 * n_in          # PEFT casts x to fp32, autocast back: a copy each
                        else:
                            shared = True
                    elif wtrain:
                        if mixed and in_bytes == 4:
                            extra += 2 * n_in          # autocast casts the fp32 input once per linear
                        else:
                            shared = True
                if shared and not already_saved:
                    extra += in_bytes * g_list[0].in_features
                return extra

            by_input: dict[str, list] = {"n1": [], "ao": [], "n2": [], "mid": []}
            for g in attn_l:
                by_input["ao" if g.in_features == q and g.out_features == H and g.name in o_names else "n1"].append(g)
            for g in mlp:
                by_input["n2" if g.in_features == H else "mid"].append(g)
            b += saves(by_input["n1"], sn, False) if by_input["n1"] else 0
            b += saves(by_input["ao"], c, True) if by_input["ao"] else 0
            b += saves(by_input["n2"], sn, False) if by_input["n2"] else 0
            b += saves(by_input["mid"], c, False) if by_input["mid"] else 0
            # attention core (sdpa / flash): q and k after RoPE, v, the output, fp32 logsumexp
            b += c * (2 * q + 2 * kv) + 4 * heads
            # MLP intermediates: gate out (act input), act out, up out (gated); up out, act (plain)
            inter = model.intermediate_size if not moe else 0
            b += c * inter * (3 if gated else 1)
            if moe:
                b += moe_tok
            return b

        self._kt = layer(True)
        self._kf = layer(False)
        self._ct = s * H + 0.0
        self._cf = s * H + 0.0
        self._bt = 4 * s * H + 3 * c * model.intermediate_size
        self._bf = self._bt
        self._eager = cfg.attn == "eager"
        self._heads = heads
        self._c = c
        self._seq = seq
        eager_tok = 0.0
        if self._eager:
            # scores: fp32 softmax output + its 16-bit copy (both saved) + repeated k/v
            eager_tok = heads * seq * (4 + c if c == 2 else 4) + 2 * c * q
        self._kt += eager_tok
        self._kf += eager_tok
        self.layer_kept = self._kt
        self.embed_kept = s * H

    def kept(self, train: bool) -> float:
        return self._kt if train else self._kf

    def ckpt_kept(self, train: bool) -> float:
        return self._ct if train else self._cf

    def bwd_transient(self, train: bool) -> float:
        b = self._bt
        if self._eager:
            b += self._heads * self._seq * 4 * 2
        return b

    def eager_mask_bytes(self, rows: int) -> int:
        return rows * self._seq * self._seq * self._c if self._eager else 0
