"""PyTorch FSDP / FSDP2 as it allocates, per rank (pure: no torch). Used by `check` for accelerate configs
(``distributed_type: FSDP``, ``fsdp_config``) and Axolotl's ``fsdp:`` / ``fsdp_config:`` keys.

Read in pytorch/pytorch (torch/distributed/fsdp) and huggingface/accelerate:

* Sharding strategy (``_init_utils.py`` / FSDP2 ``fully_shard``): FULL_SHARD shards parameters, gradients and
  the optimizer state over the shard group; SHARD_GRAD_OP keeps the parameters unsharded from forward to
  backward (no reshard after forward), only gradients and optimizer state are sharded at the step;
  HYBRID_SHARD / _HYBRID_SHARD_ZERO2 shard inside a node and replicate across nodes; NO_SHARD is DDP.
  FSDP2 shards every parameter (``reshard_after_forward`` True = FULL_SHARD, False = SHARD_GRAD_OP).
* Unsharded at once: the running wrapped unit (one decoder layer under transformer auto-wrap) plus the one
  prefetched (``limit_all_gathers`` / FSDP2's default forward and backward prefetch of one unit), each in the
  mixed-precision ``param_dtype``; during its backward the unit's unsharded gradient in the same dtype before the
  reduce-scatter. The root unit (embedding, final norm, lm_head) is not resharded after forward (FSDP1
  ``_runtime_utils._reshard`` skips the root; FSDP2 ``fully_shard(model)`` at the root keeps it for backward).
* ``fsdp_offload_params`` / ``CPUOffload(offload_params=True)`` / FSDP2 ``CPUOffloadPolicy``: the sharded
  parameters, their gradients and the optimizer state live in pinned host memory and the optimizer steps on the
  CPU; the GPU holds only the unsharded units and the activations.
* QLoRA under FSDP (bitsandbytes ``bnb_4bit_quant_storage``): the 4-bit base is sharded like any parameter.
"""

from __future__ import annotations

from dataclasses import dataclass

from rocm_tune.core.runners import Fact
from rocm_tune.core.runners.common import as_bool, as_int

FACTS = (
    Fact("FULL_SHARD shards params/grads/optimizer; SHARD_GRAD_OP keeps params unsharded forward->backward; "
         "HYBRID_SHARD shards within a node", "pytorch/pytorch:torch/distributed/fsdp/api.py (ShardingStrategy)",
         "v2.7.0"),
    Fact("the root FSDP unit is not resharded after forward; one unit is prefetched (limit_all_gathers)",
         "pytorch/pytorch:torch/distributed/fsdp/_runtime_utils.py", "v2.7.0"),
    Fact("CPU offload keeps sharded params, grads and the optimizer step on the host",
         "pytorch/pytorch:torch/distributed/fsdp/api.py (CPUOffload)", "v2.7.0"),
    Fact("accelerate fsdp_config keys: fsdp_sharding_strategy, fsdp_offload_params, fsdp_version, "
         "fsdp_reshard_after_forward", "huggingface/accelerate:src/accelerate/utils/dataclasses.py "
         "(FullyShardedDataParallelPlugin)", "v1.10.0"),
)

STRATEGIES = ("FULL_SHARD", "SHARD_GRAD_OP", "HYBRID_SHARD", "_HYBRID_SHARD_ZERO2", "NO_SHARD")
# accelerate writes the strategy as a name or as its enum number (1-based, as ShardingStrategy)
_BY_NUMBER = {"1": "FULL_SHARD", "2": "SHARD_GRAD_OP", "3": "NO_SHARD", "4": "HYBRID_SHARD",
              "5": "_HYBRID_SHARD_ZERO2"}


@dataclass(frozen=True)
class FsdpSpec:
    strategy: str                 # one of STRATEGIES
    version: int                  # 1 or 2
    offload_params: bool
    source: str                   # where it was read, for the answer
    activation_checkpointing: bool = False   # accelerate fsdp_activation_checkpointing: FSDP checkpoints each unit
    # the output projection is an FSDP unit of its own (torchtune's custom_sharded_layers: [.., output]), not part of
    # the root: its gradient is reduce-scattered right after its own backward, the first of the step's
    head_own_unit: bool = False

    def describe(self) -> str:
        return (f"FSDP{self.version if self.version == 2 else ''} {self.strategy}"
                + (" + CPU offload of parameters" if self.offload_params else ""))


def _strategy(v, reshard: bool | None) -> str | None:
    if v is None:
        return None
    s = str(v).strip().upper().replace("-", "_")
    s = _BY_NUMBER.get(s, s)
    return s if s in STRATEGIES else None


def spec_from(fsdp_value, fsdp_config: dict | None, source: str) -> FsdpSpec | None:
    """The FSDP setup of Axolotl's ``fsdp:`` (a list such as ``[full_shard, auto_wrap, offload]``) and/or an
    ``fsdp_config`` mapping (accelerate's or Axolotl's; keys with or without the ``fsdp_`` prefix). None when
    neither says FSDP."""
    cfg = {str(k).removeprefix("fsdp_"): v for k, v in (fsdp_config or {}).items()} \
        if isinstance(fsdp_config, dict) else {}
    words: list[str] = []
    if isinstance(fsdp_value, (list, tuple)):
        words = [str(w).lower() for w in fsdp_value]
    elif isinstance(fsdp_value, str):
        words = fsdp_value.lower().split()
    if not words and not cfg and not fsdp_value:
        return None
    version = as_int(cfg.get("version")) or 1
    reshard = cfg.get("reshard_after_forward")
    strategy = _strategy(cfg.get("sharding_strategy"), None)
    if strategy is None and reshard is not None and version == 2:
        strategy = "FULL_SHARD" if as_bool(reshard) else "SHARD_GRAD_OP"
    if strategy is None and isinstance(reshard, str):
        strategy = _strategy(reshard, None)          # accelerate >= 1.x writes the strategy under this key
    for w in words:
        if strategy is None and _strategy(w, None):
            strategy = _strategy(w, None)
    offload = bool(as_bool(cfg.get("offload_params"))) or "offload" in words
    return FsdpSpec(strategy or "FULL_SHARD", 2 if version == 2 else 1, offload, source,
                    bool(as_bool(cfg.get("activation_checkpointing"))), bool(as_bool(cfg.get("head_own_unit"))))


@dataclass(frozen=True)
class FsdpMemory:
    weights: float          # sharded (or whole) parameters resident on this GPU
    gradients: float
    optimizer: float
    gathered: float         # unsharded units live at once (+ the unit's unsharded gradient in backward)
    host: float             # pinned host memory of this rank (offload)
    # the root unit's unsharded gradient held through the backward: lm_head's (or the tied embedding's) gradient is
    # made first and the root's flat parameter is reduce-scattered only when all its parameters' gradients are in,
    # after the embedding's backward, the last (torch/distributed/fsdp/_runtime_utils.py _post_backward_hook runs
    # per FlatParameter once its gradient is accumulated)
    root_grad: float = 0.0

    @property
    def resident(self) -> float:
        return self.weights + self.gradients + self.optimizer


def shard_group(cfg, spec: FsdpSpec, gpus_per_node: int) -> int:
    """The ranks one shard group spans: the world (FULL_SHARD, SHARD_GRAD_OP), one node (HYBRID_SHARD), 1 (NO_SHARD).
    Every strategy but NO_SHARD reduce-scatters a unit's gradient as soon as its backward ends and frees the
    unsharded one (torch/distributed/fsdp/_runtime_utils.py _post_backward_hook -> _reduce_grad: the sharded
    gradient is kept, `_free_storage` of the unsharded flat gradient), so the backward holds 1/shard of the
    gradients finished so far."""
    world = max(1, int(cfg.world_size))
    if spec.strategy in ("HYBRID_SHARD", "_HYBRID_SHARD_ZERO2"):
        return max(1, min(world, int(gpus_per_node)))
    return 1 if spec.strategy == "NO_SHARD" else world


def allocations(model, cfg, spec: FsdpSpec, single, gpus_per_node: int) -> FsdpMemory:
    """Per-rank bytes under `spec`. `single`: the estimator's one-GPU PerGpuMemory for the same config
    (weights, gradients, optimizer state as the runner holds them without sharding)."""
    shard = shard_group(cfg, spec, gpus_per_node)
    w, g, o = float(single.weights_bytes), float(single.gradients_bytes), float(single.optimizer_bytes)
    keep_params = spec.strategy in ("SHARD_GRAD_OP", "_HYBRID_SHARD_ZERO2", "NO_SHARD")
    weights = w / shard
    grads, opt = g / shard, o / shard
    p = model.params
    layer = max(p.per_layer) if p.per_layer else p.total / max(1, model.num_layers)
    root = p.embed + p.lm_head + p.norms
    compute = 2 if cfg.precision in ("bf16", "fp16", "pure_bf16") else 4
    unit_bytes = float(compute)
    if cfg.method == "qlora":                        # 4-bit decoder linears; embedding, norms, lm_head 16-bit
        unit_bytes = min(float(compute), max(0.5, (w - root * compute) / max(1, p.total - root)))
    trains_layers = cfg.method in ("full", "freeze")
    gathered = 0.0
    if shard > 1:
        if keep_params:
            gathered = w - weights                   # every unit stays unsharded from forward to backward
        else:
            gathered = 2 * layer * unit_bytes + root * compute
        if trains_layers:
            gathered += layer * compute              # the running unit's unsharded gradient
    root_grad = float((p.lm_head or p.embed) * compute) if shard > 1 and trains_layers else 0.0
    if spec.head_own_unit and p.lm_head:
        # its own unit: the full gradient lives only through the loss's backward, before any layer's unsharded
        # gradient exists (the running unit's, counted in `gathered`): what it adds at the peak is the excess
        root_grad = max(0.0, root_grad - layer * compute)
    host = 0.0
    if spec.offload_params:
        host = weights + grads + opt
        weights = grads = opt = 0.0
    return FsdpMemory(weights=weights, gradients=grads, optimizer=opt, gathered=gathered, host=host,
                      root_grad=root_grad)
