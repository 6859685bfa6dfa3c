"""Per-GPU memory of a vision-language model's vision tower in one training step (pure, standard library only).

The language model's share of the image tokens is already in the estimate: they are tokens of the sequence that
cutoff_len / max_length caps (LLaMA-Factory's mm_plugin and ms-swift's templates expand each image placeholder to
its tokens before truncating). What this adds is the tower itself: its weights (frozen by default in LLaMA-Factory,
freeze_vision_tower, and ms-swift 3.x, freeze_vit), its gradients and optimizer state when it is trained, and its
activations over the image's patches (merge^2 patches per language token).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VisionMemory:
    weights: float       # per GPU
    gradients: float
    optimizer: float
    kept: float          # activations autograd keeps through the step (trained tower)
    transient: float     # alive while one block runs forward (a frozen tower keeps nothing)
    patches: int         # per micro-batch
    note: str

    @property
    def resident(self) -> float:
        return self.weights + self.gradients + self.optimizer


def vision_memory(model, cfg, regime, optimizer_state) -> VisionMemory | None:
    """The tower's bytes per GPU under `cfg` (image_tokens: the language tokens of a sample's images;
    vision_trainable; vision_input_grads);
    `optimizer_state(trainable, weight_bytes)` is the estimator's. None for a model without a known tower."""
    tower = getattr(model, "vision", None)
    if tower is None:
        return None
    params = tower.params
    world = cfg.world_size
    # full fine-tuning, or a program that trains the tower beside LoRA (MiniCPM-V's --tune_vision)
    trained = bool(cfg.vision_trainable)
    shard_params = world if cfg.zero_stage == 3 else 1
    shard_grads = world if cfg.zero_stage >= 2 else 1
    shard_optim = world if cfg.zero_stage >= 1 else 1
    if trained:
        held = 2 if cfg.zero_stage and cfg.precision in ("bf16", "fp16") else regime.trainable_bytes
        weights = params * held / shard_params
        grads = params * (4 if cfg.zero_stage else regime.trainable_bytes) / shard_grads
        # DeepSpeed: an fp32 gradient partition and fp32 master weights beside the optimizer's state
        master = 4 * params if cfg.zero_stage else 0
        optim = (optimizer_state(params, 4 if cfg.zero_stage else regime.trainable_bytes) + master) / shard_optim
    else:
        frozen_bytes = 2 if cfg.zero_stage >= 1 and cfg.precision in ("bf16", "fp16") else regime.frozen_bytes
        weights, grads, optim = params * frozen_bytes / shard_params, 0.0, 0.0
    rows = cfg.micro_batch * (2 if cfg.stage == "dpo" else 1)
    tokens = int(cfg.image_tokens)   # the caller caps it where the runner drops over-long samples
    per_token = tower.patches_per_token
    patches = rows * tokens * per_token
    graph = trained or bool(cfg.vision_input_grads)
    kept, transient, scores = _activations(tower, cfg, regime.compute_bytes, patches, tokens * per_token,
                                           graph)
    state = "trained" if trained else "frozen, inputs requiring grad" if graph else "frozen"
    audio = bool(getattr(tower, "positions", None))     # an audio encoder in the tower's place (vision.AudioTower)
    note = (f"{'audio encoder' if audio else 'vision tower'} ({state}): {params / 1e6:.0f}M params, "
            f"{weights / 2**30:.2f} GiB weights per GPU"
            + (f" + {(grads + optim) / 2**30:.2f} GiB gradients and optimizer state" if trained else "")
            + (f"; {tokens} audio tokens per sample = {patches} encoder positions per micro-batch, activations "
               if audio else f"; {tokens} image tokens per sample = {patches} ViT patches per micro-batch, activations ")
            + f"{kept / 2**30:.2f} GiB kept, {transient / 2**30:.2f} GiB while a block runs"
            + (f" (attention scores materialised over the micro-batch's patches: {scores / 2**30:.2f} GiB)"
               if scores and getattr(cfg, "vision_scores", False) else
               f" (eager attention scores over one image: {scores / 2**30:.2f} GiB)" if scores else ""))
    return VisionMemory(weights, grads, optim, kept, transient, patches, note)


def _activations(tower, cfg, compute: int, patches: int, image_patches: int,
                 graph: bool) -> tuple[float, float, float]:
    """(kept, transient, eager scores) of the tower's pass over a micro-batch of `patches` patches. `graph`: autograd
    records the pass (a trained tower, or a frozen one whose input was made to require grad: ms-swift's
    vision_tower.enable_input_require_grads() under gradient checkpointing). With checkpointing each block keeps
    its input and one block is recomputed in full in backward; without it every block keeps its activations.
    Eager attention adds one full-attention block's scores over one image (transformers splits the pass per
    image by cu_seqlens; the softmax output is kept when the block is recorded)."""
    transient = tower.block_transient_per_patch(compute) * patches
    eager = cfg.attn == "eager" or bool(getattr(cfg, "vision_scores", False))
    if getattr(cfg, "vision_scores", False):
        # transformers 4.45-4.51: one [1, n, n] mask over every patch of the micro-batch (cu_seqlens only masks
        # across images), so the math backend's scores span the micro-batch, not one image
        image_patches = patches
    if hasattr(tower, "attention_span"):      # a tiled tower attends within one tile
        image_patches = tower.attention_span(image_patches)
    scores = tower.eager_scores(image_patches, compute) if eager and image_patches else 0.0
    transient += scores
    if not graph:
        return 0.0, transient, scores
    images = max(1, patches // max(1, image_patches))
    kept_scores = tower.heads * image_patches ** 2 * compute * images   # softmax output, per full-attention block
    per_block = tower.block_kept_per_patch(compute) * patches
    if cfg.gradient_checkpointing and getattr(tower, "checkpointing", True):
        kept = tower.depth * patches * tower.hidden * compute
        transient = max(transient, per_block + (kept_scores if scores else 0.0) + scores)
    else:
        kept = tower.depth * per_block + (tower.attention_blocks_over_image * kept_scores if scores else 0.0)
    return kept, transient, scores
