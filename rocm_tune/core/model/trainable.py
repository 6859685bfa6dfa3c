"""Which parameters of a model train under a TrainConfig (full, freeze, LoRA/DoRA).

Its own module so that both the memory estimate and the DeepSpeed runner's bucket sizes can ask it
without importing each other (``cfg`` is a ``rocm_tune.core.memory.estimate.TrainConfig``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rocm_tune.core.model import lora as model_lora
from rocm_tune.core.errors import UserError

_DECODER_KINDS = ("attn", "mlp", "shared_expert")


def _lora_wrapped(model, cfg):
    """LinearGroups that PEFT wraps for these targets (routed experts/routers are fused 3-D parameters
    in transformers >= 5 and are not nn.Linear, so "all" leaves them alone, as PEFT's all-linear does; under a 4.x
    release that builds them as nn.Linear modules, cfg.lora_expert_linears, "all" wraps every one of them)."""
    kinds = _DECODER_KINDS
    if getattr(cfg, "lora_expert_linears", False) and getattr(model, "experts_as_linears", False):
        kinds += ("expert", "router") if getattr(model, "router_as_linear", True) else ("expert",)
    groups = [g for g in model.linears if g.kind in kinds]
    if "all" in cfg.lora_targets:
        return groups
    # PEFT: a regular expression, a name or a module path; names that match nothing are ignored as long as
    # one matches (core/model/lora.py)
    hit, _unmatched = model_lora.wrapped_groups(model.linears, cfg.lora_targets)
    # named targets (gate_proj / up_proj / down_proj) under transformers 5 (cfg.lora_fused_experts): the routed
    # experts / router are fused 3-D parameters that PEFT's target_modules never matches (it wraps modules,
    # check_target_module_exists), so the names wrap the dense / shared MLPs only. Names that would then match
    # nothing were written for a release where they match (PEFT refuses targets that match nothing): kept.
    if getattr(cfg, "lora_fused_experts", False):
        hit = [g for g in hit if g.kind not in ("expert", "router")] or hit
    if not hit:
        names = {g.name for g in model.linears}
        raise UserError(
            f"lora target {cfg.lora_targets[0]!r} is not a linear layer of {model.name}; "
            f"allowed: all, {', '.join(sorted(names))}")
    return hit


@dataclass(frozen=True)
class _Training:
    """Which parameters train."""

    count: int
    wrapped: tuple                 # LoRA-wrapped LinearGroups
    layer_trains: tuple[bool, ...]  # per decoder layer: do its own weights train (freeze / full)
    largest: int                   # elements of the largest trainable parameter


def full_module_params(model, cfg) -> list[int]:
    """Elements of each module LoRA trains whole (PEFT modules_to_save): ModulesToSaveWrapper.update keeps the
    original frozen and trains ``copy.deepcopy(self.original_module)`` (huggingface/peft src/peft/utils/other.py), so
    a tied lm_head becomes a vocab x hidden parameter of its own."""
    if not cfg.is_lora:
        return []
    params = model.params
    vocab_matrix = int(model.vocab_size) * int(model.hidden_size)
    sizes = {"embed": int(params.embed or vocab_matrix), "lm_head": int(params.lm_head or params.embed or vocab_matrix)}
    return [sizes[m] for m in getattr(cfg, "lora_full_modules", ())]


def trainable_params(model, cfg) -> int:
    """Trainable parameters of ``cfg`` on ``model`` (what the optimizer and DeepSpeed see)."""
    return _training(model, cfg).count


def _training(model, cfg) -> _Training:
    num_layers = max(1, int(model.num_layers))
    params = model.params
    wrapped = tuple(_lora_wrapped(model, cfg)) if cfg.is_lora else ()
    layer_trains = (True,) * num_layers
    if cfg.method == "full":
        count = int(params.total)
        largest = max([g.in_features * g.out_features for g in model.linears] + [params.embed, params.lm_head])
    elif cfg.method == "freeze":
        n = cfg.freeze_trainable_layers
        if n > num_layers:
            raise UserError(f"freeze_trainable_layers {n} is more than the {num_layers} layers of {model.name}")
        count = sum(params.per_layer[num_layers - n:]) if params.per_layer else params.total * n // num_layers
        layer_trains = tuple(i >= num_layers - n for i in range(num_layers))
        largest = max((g.in_features * g.out_features for g in model.linears), default=0)
    else:
        if not wrapped:
            raise UserError(f"no LoRA target found in {model.name}")
        useful = max(min(g.in_features, g.out_features) for g in wrapped)
        if cfg.lora_rank > useful:
            # an adapter's update has rank <= min(in, out): a larger rank only adds parameters
            raise UserError(f"lora_rank {cfg.lora_rank} is more than {model.name}'s LoRA-wrapped layers can use "
                            f"(their widest has min(in, out) = {useful}); use a rank <= {useful}")
        rank = cfg.lora_rank
        count = sum((g.in_features + g.out_features) * rank * g.count * g.layers for g in wrapped)
        if cfg.dora:
            count += sum(g.out_features * g.count * g.layers for g in wrapped)
        largest = max(max(g.in_features, g.out_features) * rank for g in wrapped)
        for whole in full_module_params(model, cfg):
            count += whole
            largest = max(largest, whole)
    return _Training(count=int(count), wrapped=wrapped, layer_trains=layer_trains, largest=int(largest))
