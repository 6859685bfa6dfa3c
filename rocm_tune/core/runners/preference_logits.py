"""TRL's DPO under DeepSpeed: the loss takes the log-softmax of the 16-bit logits, never an fp32 copy (pure; the
copies each TRL release holds are profiles/preference_logits.py, read there for the sources)."""

from __future__ import annotations

import re

from rocm_tune.profiles.preference_logits import AFTER_4_45, TRL_DPO_16BIT

# a pinned TRL / transformers release in the files given: `pip install trl==0.17.0`, `transformers==4.47.1`, a
# requirements line `trl[peft] == 0.19.1` (a floor or range such as `trl>=0.12`, `trl~=0.19` is not the release that runs)
_PIN = re.compile(r"(?<![\w.\-/])(trl|transformers)(?:\[[\w,\s-]*\])?\s*==\s*v?(\d+)\.(\d+)", re.IGNORECASE)
SIXTEEN_BIT = ("bf16", "fp16", "pure_bf16")
# set on the job when the copies counted are the most any TRL release holds (no release pinned in the files): check
# then counts the fewest any release holds too, and where only the release decides the verdict says so
UNPINNED_KEY = "__trl_dpo_release_unpinned__"


def pinned_release(files: dict[str, str], package: str = "trl") -> tuple[int, int] | None:
    """(major, minor) of the one release of `package` (trl | transformers) the files pin; None where they pin none,
    or several."""
    found = {(int(m.group(2)), int(m.group(3))) for text in files.values() for m in _PIN.finditer(text or "")
             if m.group(1).lower() == package}
    return next(iter(found)) if len(found) == 1 else None


def copies(release: tuple[int, int] | None, family: str = "", transformers: tuple[int, int] | None = None
           ) -> tuple[float, float, str] | None:
    """(copies of the 16-bit logits at the forward's peak, at the loss backward's, the source) for a TRL release;
    None before v0.12 (transformers 4.40-4.45 may upcast the logits in the model's forward). Release not known: the
    most any release holds where transformers is newer than 4.45 (a model type it added later, or a pinned release),
    else None (an old stack may upcast)."""
    if release is None:
        if family in AFTER_4_45:
            why = f"{family} is newer than transformers 4.45"
        elif transformers is not None and transformers >= (4, 46):
            why = f"transformers {transformers[0]}.{transformers[1]} pinned"
        else:
            return None
        return (max(r[2] for r in TRL_DPO_16BIT), max(r[3] for r in TRL_DPO_16BIT),
                f"TRL release not pinned in the files: the most any release holds; {why}, no upcast in the forward")
    for first, after, forward, backward, source in TRL_DPO_16BIT:
        if release >= first and (after is None or release < after):
            return forward, backward, source
    return None


def fewest_copies() -> tuple[float, float, str]:
    """(forward copies, backward copies, the source) of the TRL release whose DPO loss holds the fewest 16-bit logits
    (one real release's pair, not a mix of rows)."""
    row = min(TRL_DPO_16BIT, key=lambda r: (r[2] + r[3], r[0]))
    return row[2], row[3], row[4]


def trl_dpo_16bit(job, precision: str, fused_loss: bool, family: str = "") -> tuple[float, float, str] | None:
    """The copies where TRL's DPOTrainer runs under DeepSpeed in 16 bit: a TRL program or TRL CLI (runner hf, stage
    dpo from DPOTrainer / DPOConfig) or axolotl's `rl: dpo` (AxolotlDPOTrainer subclasses TRL's DPOTrainer and keeps its
    forward and loss: src/axolotl/core/trainers/dpo/trainer.py). Not LLaMA-Factory (its CustomDPOTrainer upcasts:
    `model(**batch).logits.to(torch.float32)`), ms-swift, OpenRLHF or verl (their own forwards), TRL's Liger loss (no
    logits at all), nor without DeepSpeed (accelerate's autocast and convert_outputs_to_fp32 make the logits fp32)."""
    deepspeed = job.ds is not None or bool(getattr(job, "ds_from_accelerate", False))
    if str(job.get("stage", "") or "").lower() != "dpo" or not deepspeed or fused_loss:
        return None
    if job.runner not in ("hf", "axolotl") or str(job.entry or "").startswith(("verl ", "openrlhf")):
        return None
    if precision not in SIXTEEN_BIT or str(job.get("__upper_bound__") or "").startswith("unsloth"):
        return None
    files = getattr(job, "files", None) or {}
    return copies(pinned_release(files), family, pinned_release(files, "transformers"))
