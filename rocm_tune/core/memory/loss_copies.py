"""The logits a model's own loss holds beyond transformers' loss (pure; the families are profiles/model_losses.py)."""

from __future__ import annotations

from rocm_tune.profiles.model_losses import OWN_LOSS_BYTES_16BIT, TRANSFORMERS_LOSS_BYTES_16BIT


def model_computes_loss(cfg) -> bool:
    """Whether the trainer hands the model its labels, so the model's own forward computes the loss: supervised
    fine-tuning and pre-training (the Trainer's compute_loss). Preference and RL trainers call the model without
    labels and take log-probabilities from its logits themselves (TRL DPOTrainer/GRPOTrainer, LLaMA-Factory's DPO/
    ORPO/KTO/PPO/RM: stage "dpo", or "sft" with a reference decision of the runner's, core/runners/llamafactory.
    stage_of). OpenRLHF never passes labels either (openrlhf/models/actor.py); its SFT is not told apart here, so a
    ChatGLM-family OpenRLHF SFT is counted with the remote loss (2 B per logit too many at the step's peak)."""
    return cfg.stage in ("sft", "pt") and cfg.reference_model is None and not getattr(cfg, "fused_ce", False)


def extra_bytes_per_logit(model, compute_bytes: int, training: bool = True,
                          hf_loss: tuple[int, int] | None = None, rows: int = 2) -> int:
    """Bytes per [token, vocab] element that the model's own forward holds at the loss's peak on top of what
    transformers' loss holds (16-bit logits + fp32 upcast + fp32 log-softmax); `training`: under autograd (the step),
    else evaluation's no_grad forward. 0 for families that use transformers' loss, and in fp32 compute, where the
    remote code's casts return the tensor itself. `hf_loss`: (training, evaluation) bytes per logit of transformers'
    own loss at the release the user's files show (TrainConfig.hf_loss_bytes; core/runners/hf_loss.py), where it
    is not today's 10: (with two rows or more in the batch, with one row); `rows`: the batch's rows. Negative where
    that release holds less (one row: no shifted copy)."""
    entry = OWN_LOSS_BYTES_16BIT.get(str(getattr(model, "family", "")))
    if compute_bytes != 2:
        return 0
    if entry is None:
        return 0 if hf_loss is None else (hf_loss[0] if rows > 1 else hf_loss[1]) - TRANSFORMERS_LOSS_BYTES_16BIT
    return (entry[0] if training else entry[1]) - TRANSFORMERS_LOSS_BYTES_16BIT


def note(model, logits: int, compute_bytes: int) -> str | None:
    """The line check prints where the extra applies: the family, the source, the phase and the bytes."""
    extra = extra_bytes_per_logit(model, compute_bytes)
    if not extra or logits <= 0:
        return None
    train, evaluation, source = OWN_LOSS_BYTES_16BIT[str(model.family)]
    return (f"{model.family} remote code computes its own loss ({source}): {train} B per logit at the end of the "
            f"forward, {extra} B more than transformers' loss = {extra * logits / 2**30:.2f} GiB more there, in the "
            f"step ({logits:,} logits per GPU; the loss's backward holds 12 B per logit either way; {evaluation} B per "
            f"logit in an evaluation forward)")
