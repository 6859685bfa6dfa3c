"""DeepSpeed ZeRO as its source allocates it, per rank, and the numbers the exported deepspeed.json sets.

`zero_settings(model, cfg)` returns the concrete ``zero_optimization`` values (no "auto"): the exporter
writes exactly these and `allocations()` sizes every buffer from them. Read in deepspeedai/DeepSpeed at
``COMMIT`` (2026-08-22):

* ``runtime/zero/stage_1_and_2.py`` ``__init__``: each rank keeps an fp32 copy of its partition of the
  trainable weights (``single_partition_of_fp32_groups``, ``.clone().to(master_weights_and_grads_dtype)``,
  even when the weights are fp32 already); the wrapped optimizer's state lives on that copy (fp32).
* ``setup_buckets``: with ``contiguous_gradients`` one IPG buffer of ``reduce_bucket_size`` elements in the
  optimizer's 16-bit dtype, two with ``overlap_comm`` - allocated in full whatever the trainable size.
* ``step()``: per parameter group ``flat_grad_partition = flatten(averaged_gradients)`` then
  ``single_grad_partition = flat_grad_partition.to(fp32)``: partition x (2 + 4) bytes live at once (the
  cast is a no-op on fp32 gradients: partition x 4).
* CPU offload: ``temp_grad_buffer_for_gpu_offload`` (largest parameter, 16-bit) stays on the GPU; the fp32
  partition, its gradient, the optimizer state and a 16-bit staging copy are pinned host memory.
* ``runtime/zero/stage3.py``: one IPG buffer of ``reduce_bucket_size``; ``grad_partitions_flat_buffer``
  (the rank's gradient partition); fp32 partitions (shared with the weights when those are fp32 on the
  GPU); the step converts each sub-group's flattened gradients to fp32 (``_prepare_fp32_grad_for_sub_group``,
  at most ``sub_group_size`` elements); parameters under ``stage3_param_persistence_threshold`` elements
  stay whole on every rank; gathered parameters: the running module plus up to
  ``stage3_prefetch_bucket_size`` prefetched elements.
* transformers fills "auto" with ``reduce_bucket_size = hidden_size**2``, ZeRO-3
  ``stage3_prefetch_bucket_size = 0.9 * hidden_size**2`` and ``stage3_param_persistence_threshold =
  10 * hidden_size`` (``integrations/deepspeed.py`` ``trainer_config_finalize``); we write the same numbers,
  except that the reduce bucket is never larger than what trains (a LoRA run no longer gets 2 x 5e8-element
  buffers, ~2 GB per GPU, for a few million adapter weights).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from rocm_tune.core.runners import Fact
from rocm_tune.core.runners.common import as_bool

REPO = "deepspeedai/DeepSpeed"
COMMIT = "edaa7221267243c7be7fb49c5d5f5c4fb97b4641"
FACTS = (
    Fact("ZeRO-1/2 keep an fp32 clone of the rank's partition of the trainable weights",
         f"{REPO}:deepspeed/runtime/zero/stage_1_and_2.py (DeepSpeedZeroOptimizer.__init__)", COMMIT),
    Fact("IPG buffers: reduce_bucket_size elements each, two when overlap_comm, in the optimizer's dtype",
         f"{REPO}:deepspeed/runtime/zero/stage_1_and_2.py (setup_buckets)", COMMIT),
    Fact("step(): flat 16-bit gradient partition + its fp32 copy live together",
         f"{REPO}:deepspeed/runtime/zero/stage_1_and_2.py (step)", COMMIT),
    Fact("offload: temp_grad_buffer_for_gpu_offload of the largest parameter stays on the GPU",
         f"{REPO}:deepspeed/runtime/zero/stage_1_and_2.py (__init__, cpu_offload)", COMMIT),
    Fact("ZeRO-3: one IPG buffer, grad_partitions_flat_buffer, fp32 sub-group gradient in the step",
         f"{REPO}:deepspeed/runtime/zero/stage3.py (_create_fp16_sub_groups, _prepare_fp32_grad_for_sub_group)",
         COMMIT),
    Fact('"auto": reduce_bucket_size = hidden**2; ZeRO-3 prefetch 0.9 hidden**2, persistence 10 hidden',
         "huggingface/transformers:src/transformers/integrations/deepspeed.py (trainer_config_finalize)", "v5.23.0"),
)

MAX_BUCKET = 500_000_000          # DeepSpeed's own default reduce/allgather bucket
MIN_BUCKET = 4096
MAX_LIVE_PARAMETERS = 1_000_000_000
SUB_GROUP_SIZE = 1_000_000_000


def _round_up(n: int, to: int) -> int:
    return -(-int(n) // to) * to


def reduce_bucket(hidden: int, trainable: int) -> int:
    """hidden**2 (transformers' "auto"), never more than the trainable elements (rounded up) nor 5e8."""
    return max(MIN_BUCKET, min(MAX_BUCKET, hidden * hidden, _round_up(max(1, trainable), MIN_BUCKET)))


def zero_settings(model, cfg) -> dict:
    """The ``zero_optimization`` block for ``cfg`` (empty dict for zero stage 0)."""
    from rocm_tune.core.model.trainable import trainable_params

    stage = int(cfg.zero_stage)
    if stage == 0:
        return {}
    hidden = int(model.hidden_size)
    bucket = reduce_bucket(hidden, trainable_params(model, cfg))
    zero: dict = {"stage": stage, "overlap_comm": cfg.offload == "none", "contiguous_gradients": True,
                  "reduce_bucket_size": bucket}
    if stage in (1, 2):
        zero.update(allgather_partitions=True, allgather_bucket_size=bucket, reduce_scatter=True)
    else:
        zero.update(
            sub_group_size=SUB_GROUP_SIZE,
            stage3_prefetch_bucket_size=int(0.9 * hidden * hidden),
            stage3_param_persistence_threshold=10 * hidden,
            stage3_max_live_parameters=MAX_LIVE_PARAMETERS,
            stage3_max_reuse_distance=MAX_LIVE_PARAMETERS,
            stage3_gather_16bit_weights_on_model_save=True,
        )
    if cfg.offload in ("optimizer", "all"):
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if cfg.offload == "all":
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    return zero


@dataclass(frozen=True)
class ZeroAllocations:
    """Per-rank bytes DeepSpeed holds (GPU unless named host)."""

    weights: float            # the module's parameters left on this GPU
    gradients: float          # gradient partition (ZeRO-2/3) or full gradients (ZeRO-1)
    optimizer: float          # fp32 master partition + optimizer state on the GPU
    buffers: float            # IPG buckets, offload staging buffer, gathered ZeRO-3 parameters
    step_transient: float     # flattened gradient partition + its fp32 copy in step()
    host_pinned: float        # pinned host memory of this rank (offload)
    grad_bytes: int           # bytes per gradient element
    param_bytes: int          # bytes per trainable weight element in the module


def allocations(model, cfg, regime, *, trainable: int, largest_trainable: int, frozen_bytes: float,
                reference_bytes: float, optimizer_fp32_state: float) -> ZeroAllocations:
    """Everything ZeRO allocates on one rank. ``frozen_bytes``/``reference_bytes``: the frozen weights as
    the runner loads them; ``optimizer_fp32_state``: the optimizer's state over fp32 master weights;
    ``largest_trainable``: elements of the largest trainable parameter."""
    z = zero_settings(model, cfg)
    stage, world = z["stage"], cfg.world_size
    sixteen = cfg.precision in ("bf16", "fp16")    # the JSON's fp16/bf16 block: DeepSpeed casts the module
    param_bytes = 2 if sixteen else regime.trainable_bytes
    grad_bytes = param_bytes
    if sixteen and regime.frozen_bytes == 4 and cfg.method != "qlora":
        frozen_bytes /= 2
        reference_bytes /= 2
    weights = frozen_bytes + reference_bytes + trainable * param_bytes
    master = 0.0 if (stage == 3 and param_bytes == 4) else trainable * 4.0
    optimizer = (optimizer_fp32_state + master) / world
    gradients = trainable * grad_bytes / (world if stage >= 2 else 1)
    bucket = z["reduce_bucket_size"]
    partition = trainable / world
    host = 0.0
    if stage < 3:
        buffers = bucket * grad_bytes * (2 if z["overlap_comm"] else 1)
        transient = partition * (grad_bytes + (4 if grad_bytes != 4 else 0))
        z12 = zero12_step(model, cfg, ds_optimizer_block=False)     # the exported JSON has no optimizer block
        if z12 is not None:
            transient += z12.extra
    else:
        weights /= world
        params = model.params
        biggest_layer = max(params.per_layer) if params.per_layer else params.total / max(1, model.num_layers)
        gathered = biggest_layer + min(z["stage3_prefetch_bucket_size"], biggest_layer) + max(params.embed,
                                                                                              params.lm_head)
        buffers = bucket * grad_bytes + (gathered + params.norms) * param_bytes
        sub_group = min(z["sub_group_size"], partition)
        transient = sub_group * (grad_bytes + (4 if grad_bytes != 4 else 0))
    if cfg.offload in ("optimizer", "all"):
        staging = 2.0 if stage < 3 else 0.0        # ZeRO-1/2: pinned 16-bit copy of the partition
        host += optimizer + partition * (4 + staging)
        if stage < 3:
            buffers += largest_trainable * grad_bytes
        optimizer, gradients, transient = 0.0, 0.0, 0.0
    if cfg.offload == "all":
        host += weights
        weights = 0.0
    return ZeroAllocations(weights=weights, gradients=gradients, optimizer=optimizer, buffers=buffers,
                           step_transient=transient, host_pinned=host, grad_bytes=grad_bytes,
                           param_bytes=param_bytes)


# ----------------------------------------------------------------------------------------------------
# ZeRO stage 0 (a DeepSpeed JSON without ZeRO): no torch DDP. The engine reduces the gradients itself
# (engine.py allreduce_gradients -> buffered_allreduce_fallback -> allreduce_no_retain: flattened buckets of
# MEMORY_OPT_ALLREDUCE_SIZE = 5e8 elements, a transient copy after backward; a single flat tensor flattens to a
# view). The wrapper around the optimizer, read in v0.9.0 .. v0.18.0 engine.py _do_optimizer_sanity_check /
# get_data_types and the wrappers:
# * bf16, v0.9-v0.17: get_data_types makes grad_accum_dtype fp32 without ZeRO -> BF16_Optimizer
#   (bf16_optimizer.py _setup_for_real_optimizer): fp32 gradient accumulators of EVERY trainable element
#   (fp32_groups_gradients_flat = zeros_like(bf16_groups_flat, dtype=grad_acc_dtype)) beside the module's bf16
#   gradients, and an fp32 master copy of this rank's 1/W PARTITION only (fp32_groups_flat_partition), the
#   optimizer stepping that partition (its state 1/W too). The allreduce reduces the flat fp32 buffers in place.
# * fp16 (and bf16 from v0.18, where grad_accum_dtype defaults to the model's dtype -> DDP_BFLOAT16):
#   _configure_fp16_optimizer: FP16_UnfusedOptimizer for the HF Trainer's torch AdamW (fp32_groups = p.clone().
#   float(), full), FP16_Optimizer for FusedAdam (fp32_groups_flat, full); step() makes the fp32 gradients of every
#   element (grad.to(fp32) per parameter, or the list plus its flattened copy): 8 B x trainable at the step.
# * fp32 (no fp16/bf16 block): no wrapper, the client optimizer steps the module's own fp32 parameters.
# ----------------------------------------------------------------------------------------------------

MEMORY_OPT_ALLREDUCE_SIZE = 500_000_000    # engine.py: allreduce_gradients(bucket_size=MEMORY_OPT_ALLREDUCE_SIZE)
STAGE0_FACT = Fact(
    "ZeRO-0: the engine's own bucketed allreduce (no DDP reducer); bf16 -> BF16_Optimizer (fp32 gradient "
    "accumulators of all, fp32 master + state of a 1/W partition), fp16 -> FP16_(Unfused)Optimizer (full fp32 "
    "master + state, fp32 gradients at the step)",
    f"{REPO}:deepspeed/runtime/engine.py (get_data_types, _do_optimizer_sanity_check, allreduce_no_retain), "
    "runtime/bf16_optimizer.py, runtime/fp16/unfused_optimizer.py", "v0.14.0")


@dataclass(frozen=True)
class Stage0:
    """Per-rank bytes of DeepSpeed at ZeRO stage 0 beside the module and its (module-dtype) gradients."""

    optimizer: float          # fp32 master + optimizer state + BF16_Optimizer's fp32 gradient accumulators
    step_transient: float     # the step's fp32 gradients / AdamW temporary, or the allreduce bucket's copy
    note: str


def stage0(cfg, *, trainable: int, largest: int, fp32_state: float, native_state: float,
           grad_bytes: int) -> Stage0:
    """DeepSpeed ZeRO-0 as the engine and its optimizer wrapper allocate it (above). `fp32_state`: the optimizer's
    state over fp32 weights; `native_state`: over the module's own; `grad_bytes`: the module's gradient dtype."""
    world = max(1, int(cfg.world_size))
    t = float(trainable)
    foreach = cfg.optim == "adamw" and cfg.adam_sqrt_temp == "foreach"
    # the allreduce copies the per-parameter gradients into buckets of at most 5e8 (+ one tensor) elements
    bucket = min(t, MEMORY_OPT_ALLREDUCE_SIZE + float(largest)) * grad_bytes if world > 1 else 0.0
    if cfg.precision == "bf16":
        part = t / world
        # the Trainer's two parameter groups (decay / no decay) flatten together while both are under 5e8
        flat_copy = t * 4 if world > 1 and cfg.method == "full" and t <= MEMORY_OPT_ALLREDUCE_SIZE else 0.0
        return Stage0(optimizer=t * 4 + part * 4 + fp32_state / world,
                      step_transient=max(flat_copy, part * 4 if foreach else 0.0),
                      note=f"DeepSpeed ZeRO-0 bf16 (BF16_Optimizer, v0.9-v0.17): fp32 gradient accumulators of all "
                           f"{t / 1e6:.0f}M trainable, fp32 master and optimizer state of a 1/{world} partition; "
                           f"the engine's own allreduce, no DDP reducer (v0.18+ runs bf16 as fp16 below: full fp32 "
                           f"master and state)")
    if cfg.precision == "fp16":
        return Stage0(optimizer=t * 4 + fp32_state, step_transient=max(bucket, t * 8),
                      note="DeepSpeed ZeRO-0 fp16 (FP16_Optimizer / FP16_UnfusedOptimizer): full fp32 master and "
                           "optimizer state; the step's fp32 gradients (8 B x trainable); no DDP reducer")
    return Stage0(optimizer=native_state, step_transient=max(bucket, t * grad_bytes if foreach else 0.0),
                  note="DeepSpeed ZeRO-0 without fp16/bf16: the client optimizer on the module's weights; the "
                       "engine's allreduce copies gradients into 5e8-element buckets (no DDP reducer)")


# ----------------------------------------------------------------------------------------------------
# ZeRO-3 terms the steady-state `allocations()` above does not count (additive: `estimate` adds them to the step
# and uses the reserved factor, so the planner and `check` count them alike). From ../shared/knowledge/zero3-memory.md sections 2.3-2.5 and runners.md "ZeRO-3 on a rank",
# read in DeepSpeed at COMMIT (0.15.3 where the reports ran it):
# * full fine-tuning: the embedding / lm_head gradient is dense, vocab x hidden, and is reduced alone (it
#   never fits the IPG bucket): b x P_V live next to the retained lm_head and the fp32 logits
#   (stage3.py __add_grad_to_ipg_bucket, reduce_independent_p_g_buckets_and_remove_grads);
# * with offload_optimizer its partition comes back to the GPU (grad_buffer.to(device)) and the norm makes a
#   float64 copy (_constant_buffered_norm2), master also an fp32 copy: P_V / W x (b + 8 + 4)
#   (partition_grads, _offload_grad_partition_at_boundary);
# * a coalesced prefetch all-gather holds one flat buffer of the group (up to the prefetch bucket) while each
#   parameter gets its own copy (partition_parameters.py _all_gather_dtype, AllGatherCoalescedHandle.wait);
# * the ZeRO-3 step never calls empty_cache: reserved sits 15-35 % above peak allocated (the note's toy
#   allocator model gives 1.08-1.48), not the 8 % of other regimes.
# Known to be incomplete: with these the 8 x 3090 Llama-3-8B and 8 x H200 70B offload reports are still
# about half explained (zero3-memory.md section 4).
# ----------------------------------------------------------------------------------------------------

ZERO3_RESERVED_FACTOR = 1.15
NORM_CHUNK = 250_000_000   # stage3.py _constant_buffered_norm2(buffer_size=250000000)
ZERO3_TERMS_FACT = Fact(
    "ZeRO-3: dense vocab x hidden gradient reduced alone; offload brings the partition back with fp64 norm "
    "temporaries; coalesced gathers hold a flat buffer; the step never calls empty_cache",
    f"{REPO}:deepspeed/runtime/zero/stage3.py, partition_parameters.py, partitioned_param_coordinator.py", COMMIT)


@dataclass(frozen=True)
class Zero3Terms:
    """Bytes per rank beyond `allocations()`, named so the answer can say which terms it counted."""

    vocab_grad: float          # full fine-tuning: dense embedding/lm_head gradient
    offload_grad_temps: float  # offload_optimizer: partition back on the GPU + fp64 norm + fp32 copy
    coalesced_gather: float    # one prefetch group's flat all-gather buffer
    reserved_factor: float     # reserved / peak allocated for a ZeRO-3 run

    @property
    def step_extra(self) -> float:
        """On top of every phase of the step (the offload temporaries are not: they live at the end of backward,
        when the embedding's gradient is partitioned, and `estimate` counts them there)."""
        return self.vocab_grad + self.coalesced_gather

    def to_dict(self) -> dict:
        return {"vocab_grad_bytes": int(self.vocab_grad), "offload_grad_temps_bytes": int(self.offload_grad_temps),
                "coalesced_gather_bytes": int(self.coalesced_gather), "reserved_factor": self.reserved_factor}


def zero3_terms(model, cfg, prefetch_bucket: int | None = None) -> Zero3Terms | None:
    """The ZeRO-3 terms above for `cfg` (None unless ZeRO-3). `prefetch_bucket`: elements, as the user's JSON
    sets stage3_prefetch_bucket_size (default: what zero_settings writes)."""
    if int(cfg.zero_stage) != 3:
        return None
    b = 2 if cfg.precision in ("bf16", "fp16", "pure_bf16") else 4
    params = model.params
    p_v = max(params.embed, params.lm_head)
    full = cfg.method == "full"
    vocab_grad = float(b * p_v) if full else 0.0
    temps = 0.0
    if full and cfg.offload in ("optimizer", "all"):
        # DeepSpeed 0.19.8 stage3.py partition_grads / _offload_grad_partition_at_boundary: the partition back on
        # the GPU (b), then the norm in float64 chunks of at most 250M elements (_constant_buffered_norm2), freed
        # before the fp32 copy (4) is made
        part = p_v / max(1, cfg.world_size)
        temps = part * b + max(8 * min(part, NORM_CHUNK), 4 * part)
    if prefetch_bucket is None:
        prefetch_bucket = zero_settings(model, cfg)["stage3_prefetch_bucket_size"]
    return Zero3Terms(vocab_grad=vocab_grad, offload_grad_temps=temps, coalesced_gather=float(b * prefetch_bucket),
                      reserved_factor=ZERO3_RESERVED_FACTOR)


def zero3_init_residue(model, cfg) -> float:
    """Bytes a ZeRO-3 rank moves whole onto the GPU when the model was not built under ``zero.Init``
    (accelerate ``zero3_init_flag: false``, a raw DeepSpeed script): ``DeepSpeedEngine._configure_distributed_model``
    casts and calls ``module.to(device)`` on the whole model before the optimizer partitions it (engine.py), and
    the caching allocator keeps those blocks reserved afterwards (the ZeRO-3 step never calls empty_cache).
    0 unless ZeRO-3 without parameter offload."""
    if int(cfg.zero_stage) != 3:
        return 0.0
    b = 2 if cfg.precision in ("bf16", "fp16", "pure_bf16") else 4
    return float(model.params.total * b)


# ----------------------------------------------------------------------------------------------------
# ZeRO-1/2 step temporaries `allocations()` does not count (it counts the flattened 16-bit partition plus its
# fp32 copy, partition x (b + 4)). Read in DeepSpeed at COMMIT and v0.14.0 (stage_1_and_2.py), each one live
# on top of everything resident, one after the other in step():
# * fp16 (dynamic loss scaling) check_overflow -> has_overflow_partitioned_grads_serial -> _has_inf_or_nan on
#   each gradient piece of the rank's partition: x.float(), isnan(), isinf(), logical_or(), .float() all live
#   at once: 4 + 1 + 1 + 1 + 4 = 11 bytes per element of the largest piece (bf16/fp32 skip the check);
# * scaled_global_norm -> get_grad_norm_direct: vector_norm(g.data.double()): 8 bytes per element of the
#   largest piece;
# * _optimizer_step: the fp32 gradient of the partition (4 B/element) stays attached while the optimizer
#   steps; the HF Trainer's default optimizer (torch.optim.AdamW, foreach on GPU tensors, when the JSON has
#   no "optimizer" block) makes one more partition-sized fp32 temporary (_foreach_sqrt of exp_avg_sq):
#   partition x 8; DeepSpeed's own FusedAdam (an "optimizer" block in the JSON) steps in place: partition x 4.
# ----------------------------------------------------------------------------------------------------

ZERO12_STEP_FACT = Fact(
    "ZeRO-1/2 step: fp16 overflow check 11 B x largest gradient piece, fp64 norm 8 B x piece, fp32 gradient "
    "partition + torch AdamW foreach temporary 8 B x partition",
    f"{REPO}:deepspeed/runtime/zero/stage_1_and_2.py (step, _has_inf_or_nan, get_grad_norm_direct)", COMMIT)


@dataclass(frozen=True)
class Zero12Step:
    overflow_check: float
    grad_norm: float
    optimizer_step: float
    counted: float            # what allocations() already has as step_transient

    @property
    def extra(self) -> float:
        return max(0.0, max(self.overflow_check, self.grad_norm, self.optimizer_step, self.counted) - self.counted)


def zero12_step(model, cfg, *, ds_optimizer_block: bool) -> Zero12Step | None:
    """The ZeRO-1/2 step temporaries above for `cfg` (None unless ZeRO-1/2 without optimizer offload).
    `ds_optimizer_block`: the user's JSON has an "optimizer" block (DeepSpeed's FusedAdam steps in place)."""
    from rocm_tune.core.model.trainable import trainable_params

    if int(cfg.zero_stage) not in (1, 2) or cfg.offload != "none":
        return None
    trainable = float(trainable_params(model, cfg))
    partition = trainable / max(1, cfg.world_size)
    gb = 2 if cfg.precision in ("bf16", "fp16") else 4
    p = model.params
    linear = float(model.hidden_size) * float(model.config.get("intermediate_size") or 4 * model.hidden_size)
    largest = max(float(p.embed), float(p.lm_head), linear) if cfg.method == "full" else linear
    piece = min(partition, largest, trainable)
    torch_adam = not ds_optimizer_block and cfg.optim == "adamw"
    return Zero12Step(overflow_check=11.0 * piece if cfg.precision == "fp16" else 0.0,
                      grad_norm=8.0 * piece,
                      optimizer_step=partition * (8.0 if torch_adam else 4.0),
                      counted=partition * (gb + 4 if gb != 4 else 4))


# ---------------------------------------------------------------------------------------------------- reader
# (moved from core/formats/deepspeed_json.py)
# DeepSpeed JSON -> the settings that drive memory, with "auto" filled as transformers fills it (pure).
#
# transformers integrations/deepspeed.py (HfTrainerDeepSpeedConfig.trainer_config_finalize): "auto"
# reduce_bucket_size = hidden_size**2, stage3_prefetch_bucket_size = 0.9 * hidden_size**2,
# stage3_param_persistence_threshold = 10 * hidden_size; fp16/bf16 "auto" follow the Trainer's --fp16/--bf16.
# DeepSpeed's own defaults when a key is absent (runtime/zero/config.py): reduce_bucket_size 5e8,
# allgather_bucket_size 5e8, overlap_comm False (True for stage 3), contiguous_gradients True.


MARKERS = ("zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size", "fp16", "bf16",
           "gradient_accumulation_steps", "optimizer", "zero_allow_untested_optimizer")


def is_ds_mapping(d) -> bool:
    if not isinstance(d, dict):
        return False
    return "zero_optimization" in d or "train_micro_batch_size_per_gpu" in d or \
        isinstance(d.get("fp16"), dict) or isinstance(d.get("bf16"), dict)


@dataclass
class DsConfig:
    file: str | None
    data: dict
    stage: int = 0
    offload: str = "none"        # none | optimizer | all (TrainConfig vocabulary)
    offload_device: str = "cpu"
    fp16: object = None          # True | False | "auto" | None (absent)
    bf16: object = None
    values: dict = field(default_factory=dict)   # zero key -> value as written (numbers, "auto")
    lines: dict = field(default_factory=dict)    # key -> line

    def bucket(self, key: str, hidden: int) -> int:
        """Elements of a bucket as DeepSpeed will use it (the "auto" fill of transformers)."""
        v = self.values.get(key)
        if v == "auto":
            return {"reduce_bucket_size": hidden * hidden, "stage3_prefetch_bucket_size": int(0.9 * hidden * hidden),
                    "stage3_param_persistence_threshold": 10 * hidden}.get(key, 500_000_000)
        if v is None:
            return {"reduce_bucket_size": 500_000_000, "allgather_bucket_size": 500_000_000,
                    "stage3_prefetch_bucket_size": 50_000_000, "stage3_param_persistence_threshold": 100_000,
                    "stage3_max_live_parameters": 1_000_000_000}.get(key, 500_000_000)
        try:
            # 1e308 elements is absurd but a number: kept, within what a float holds exactly (2^53), so the byte
            # arithmetic after it never overflows
            return min(int(float(v)), 2**53)
        except (TypeError, ValueError, OverflowError):  # "x", [1], NaN, Infinity (json reads it)
            return 500_000_000

    @property
    def overlap_comm(self) -> bool:
        v = self.values.get("overlap_comm")
        if v is None:
            return self.stage == 3
        b = as_bool(v)
        return bool(b)


def _lines(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith('"') and '":' in s:
            out.setdefault(s[1:s.index('"', 1)], no)
    return out


def _enabled(block) -> object:
    if not isinstance(block, dict):
        return None
    v = block.get("enabled", False)
    return "auto" if v == "auto" else as_bool(v)


def read(data: dict, text: str, file: str | None) -> DsConfig:
    z = data.get("zero_optimization") or {}
    if not isinstance(z, dict):
        z = {}
    try:
        stage = int(z.get("stage", 0))
    except (TypeError, ValueError, OverflowError):  # "x", [1], NaN, Infinity (json reads it)
        stage = 0
    off_opt = (z.get("offload_optimizer") or {}).get("device", "none") if isinstance(z.get("offload_optimizer"), dict) else "none"
    off_par = (z.get("offload_param") or {}).get("device", "none") if isinstance(z.get("offload_param"), dict) else "none"
    if z.get("cpu_offload") is True:      # the old (<0.3.16) spelling
        off_opt = "cpu"
    offload = "none"
    if off_opt in ("cpu", "nvme"):
        offload = "optimizer"
    if off_par in ("cpu", "nvme") and stage == 3:
        offload = "all"
    return DsConfig(file=file, data=data, stage=stage, offload=offload,
                    offload_device=off_par if off_par != "none" else off_opt,
                    fp16=_enabled(data.get("fp16")), bf16=_enabled(data.get("bf16")),
                    values={k: v for k, v in z.items() if not isinstance(v, dict)}, lines=_lines(text))


def parse_text(text: str, path: str = "DeepSpeed JSON"):
    """The JSON object of `text`, None when it does not parse; UserError past the limits of files.load_json."""
    from rocm_tune.core.files import load_json

    return load_json(text, path, "DeepSpeed JSON", lenient=True)


def with_zero(data: dict, stage: int, offload: str) -> dict:
    """A copy of the user's JSON with the ZeRO stage / offload changed and nothing else."""
    out = json.loads(json.dumps(data))
    z = out.setdefault("zero_optimization", {})
    z["stage"] = stage
    if offload in ("optimizer", "all"):
        z["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    else:
        z.pop("offload_optimizer", None)
    if offload == "all":
        z["offload_param"] = {"device": "cpu", "pin_memory": True}
    else:
        z.pop("offload_param", None)
    return out


# the LLaMA-Factory examples/deepspeed/ files, for a YAML that names one we were not given
def lf_example(name: str) -> dict | None:
    base = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
            "gradient_accumulation_steps": "auto", "gradient_clipping": "auto",
            "zero_allow_untested_optimizer": True,
            "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                     "hysteresis": 2, "min_loss_scale": 1}, "bf16": {"enabled": "auto"}}
    z2 = {"allgather_partitions": True, "allgather_bucket_size": 5e8, "overlap_comm": False, "reduce_scatter": True,
          "reduce_bucket_size": 5e8, "contiguous_gradients": True, "round_robin_gradients": True}
    z3 = {"overlap_comm": False, "contiguous_gradients": True, "sub_group_size": 1e9, "reduce_bucket_size": "auto",
          "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
          "stage3_max_live_parameters": 1e9, "stage3_max_reuse_distance": 1e9,
          "stage3_gather_16bit_weights_on_model_save": True}
    cpu = {"device": "cpu", "pin_memory": True}
    table = {
        "ds_z0_config.json": {"stage": 0, **z2},
        "ds_z2_config.json": {"stage": 2, **z2},
        "ds_z2_offload_config.json": {"stage": 2, **z2, "offload_optimizer": cpu},
        "ds_z3_config.json": {"stage": 3, **z3},
        "ds_z3_offload_config.json": {"stage": 3, **z3, "offload_optimizer": cpu, "offload_param": cpu},
    }
    if name not in table:
        return None
    return {**base, "zero_optimization": table[name]}


def _switch_config(job) -> None:
    """A bare `--deepspeed` (deepspeed.add_config_arguments' switch, as in DeepSpeed-Chat's main.py): the script
    builds its config in code from its own flags -- --zero_stage N (default 0), --offload."""
    from rocm_tune.core.runners.common import as_bool, as_int
    from rocm_tune.profiles import ds_chat

    stage = as_int(job.get("zero_stage", 0)) or 0
    off = "all" if as_bool(job.get("offload")) and stage == 3 else ("optimizer" if as_bool(job.get("offload"))
                                                                      else "none")
    extra = ds_chat.ZERO_EXTRA if job.get("__ds_chat__") is not None else {}
    data = {"zero_optimization": {"stage": stage, **extra}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}
    job.ds = read(with_zero(data, stage, off) if off != "none" else data, "", None)
    job.notes.append(f"--deepspeed (a switch): the script builds its DeepSpeed config from --zero_stage {stage}"
                     + (" and --offload" if off != "none" else "")
                     + (f" (DeepSpeed-Chat's get_train_ds_config: overlap_comm on, {ds_chat.DS_CHAT_SOURCE})"
                        if extra else ""))


def attach_reference(job, texts: dict) -> None:
    """The DeepSpeed JSON a job's `deepspeed` setting names -> job.ds: the file given beside it (`texts`) or on disk
    beside the config; ms-swift's named configs (zero2, zero3_offload ...); LLaMA-Factory's examples/deepspeed file
    of that name; else the stage read from the name (a finding says so)."""
    import os
    import re
    from pathlib import Path

    from rocm_tune.core.runners.common import Finding, resolve_ref
    from rocm_tune.core.runners.ms_swift import NAMED_DS

    dsref = job.settings.get("deepspeed")
    if dsref is None or str(dsref.value).strip() in ("", "None", "null"):
        return
    if str(dsref.value).strip().lower() in ("true", "1", "yes"):
        _switch_config(job)
        return
    def is_ds_file(path) -> bool:
        # `--deepspeed zero3` beside a script named zero3.sh: only a DeepSpeed JSON answers the reference
        return path in texts and isinstance(parse_text(texts[path]), dict) and is_ds_mapping(parse_text(texts[path]))

    named_given = is_ds_file(resolve_ref(str(dsref.value), Path("."), texts)[0])
    if job.runner == "ms-swift" and str(dsref.value) in NAMED_DS and not named_given:
        stage, off = NAMED_DS[str(dsref.value)]
        data = {"zero_optimization": {"stage": stage}, "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}
        if off != "none":
            data = with_zero(data, stage, off)
        job.ds = read(data, "", None)
        job.notes.append(f"--deepspeed {dsref.value}: ms-swift's built-in ZeRO-{stage} config")
        return
    hit, how = resolve_ref(str(dsref.value), Path(dsref.file or ".").parent, texts)
    if hit is not None and hit in texts and not is_ds_file(hit):
        hit = None                     # a given file of a similar name that is no DeepSpeed JSON
    if hit is not None and hit not in texts:
        from rocm_tune.core.files import read_text

        try:
            texts[hit] = read_text(hit, "DeepSpeed config")
        except Exception:  # noqa: BLE001 - an unreadable JSON is reported as not given
            hit = None
    parsed = parse_text(texts[hit]) if hit else None
    if hit and isinstance(parsed, dict) and is_ds_mapping(parsed):
        job.ds = read(parsed, texts[hit], hit)
        if how:
            job.notes.append(how)
        return
    if hit is not None:
        return
    name = os.path.basename(str(dsref.value))
    ex = lf_example(name)
    guess = re.search(r"(?:^|[_\-.])z(?:ero)?[_\-]?([0-3])(?![0-9])", name.lower())
    if ex is not None and job.runner == "llamafactory":
        job.ds = read(ex, "", None)
        job.notes.append(f"{dsref.value}: not given; read as LLaMA-Factory's own examples/deepspeed file of that name")
    elif guess:
        stage = int(guess.group(1))
        off = ("all" if stage == 3 else "optimizer") if "offload" in name.lower() else "none"
        base = lf_example("ds_z3_config.json" if stage == 3 else "ds_z2_config.json") or {}
        job.ds = read(with_zero(base, stage, off), "", None)
        job.findings.append(Finding.of(
            "reference-missing", dsref.file, dsref.line,
            f"DeepSpeed config {dsref.value} is not here and was not given: ZeRO-{stage}"
            f"{' + offload' if off != 'none' else ''} assumed from its name, buckets \"auto\"", "give the JSON file too"))
    else:
        job.findings.append(Finding.of("reference-missing", dsref.file, dsref.line,
                                       f"DeepSpeed config {dsref.value} is not here and was not given beside the config; "
                                       f"its ZeRO stage is unknown", "give the JSON file too"))
