"""What a bundle's trainer does beyond the plan's settings, for the estimator (issue 26; pure).

A plan is exported as a bundle that starts its runner; the terms that runner's own code adds must be counted the
same way by the planner's search, by Plan.train_config() and by `check` reading the exported files back: LLaMA-
Factory's DPO reference pass after the policy's logits (profiles/preference_logits.py), and the HF Trainer's default
AdamW step's square-root temporary (profiles/optimizer_steps.py)."""
from __future__ import annotations

from rocm_tune.profiles.optimizer_steps import ADAM_SQRT_TEMP, DEFAULT_TRAINER_OPTIM, FOREACH_ADAMW_RUNNERS
from rocm_tune.profiles.preference_logits import LF_DPO_REFERENCE_PASS


def trainer_terms(runner: str | None, stage: str | None, optim: str | None) -> dict:
    """TrainConfig fields for the runner's own step terms (empty where it adds none)."""
    out: dict = {}
    if runner in FOREACH_ADAMW_RUNNERS and (optim or "adamw") == "adamw":
        # the bundle's Trainer steps with its default optim (adamw_torch: torch's foreach AdamW)
        out["adam_sqrt_temp"] = ADAM_SQRT_TEMP[DEFAULT_TRAINER_OPTIM]
    if runner == "llamafactory" and stage == "dpo":
        # LLaMA-Factory's DPO step runs the reference forward after the policy's
        out["reference_pass"] = (LF_DPO_REFERENCE_PASS[0], LF_DPO_REFERENCE_PASS[1])
    return out
