"""`check --preflight`: the (fixed) config a `check` answered, as a plan `rocm-tune preflight` verifies on this
machine (pure: planner + check, no torch).

The user's files -- with the minimal fix applied when there is one -- are copied into a new temporary directory
(never over theirs), `check` reads that copy back, and the training config it understands becomes the plan's
`recommended` (every knob fixed, so the planner decides nothing). The plan.json written beside the copy is what
the preflight run verifies; its adjusted plan lands there too."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners.common import as_int

# the training config `recommended` must carry over from check's `understood` exactly
CARRIED = ("method", "precision", "cutoff_len", "micro_batch", "zero_stage", "offload", "gradient_checkpointing",
           "attn", "optim", "runner")


@dataclass
class PreflightJob:
    dir: str                   # the temporary directory with the (fixed) files and plan.json
    files: list[str]           # the (fixed) files in it, as check read them back
    plan: dict                 # the plan preflight verifies
    plan_path: str
    options: object            # core.check.preflight.PreflightOptions
    what: str                  # "your config" | "the fixed config"
    notes: list[str] = field(default_factory=list)


def _model_ref(model) -> str:
    """A reference `load_model` resolves again on this machine (preflight loads the model's config by it)."""
    if getattr(model, "source", "") == "path" and getattr(model, "location", None):
        return os.path.dirname(str(model.location))
    return str(model.name)


def preflight_job(rep, *, gpu_id: str | None, vram_gib: float | None, gpus: int | None, nodes: int | None,
                  model_ref: str | None) -> PreflightJob:
    """The plan of the config `rep` answered (its fix applied). UserError (exit 2) when there is nothing to
    verify: no --gpu, a card without a profile, a config check could not read."""
    from rocm_tune.core.check.check import check
    from rocm_tune.core.plan.planner import PlanRequest, plan
    from rocm_tune.core.check.preflight import PreflightOptions

    if not gpu_id:
        raise UserError("--preflight needs --gpu: the card of this machine (its profile makes the plan)")
    if rep.cfg is None or rep.model is None:
        raise UserError(f"--preflight: nothing to verify ({rep.reason or 'the config was not understood'})")
    if getattr(rep.gpu, "vendor", "") == "unknown":
        raise UserError(f"--preflight needs a GPU profile; {gpu_id!r} has none (give a profile id with --gpu)")
    texts = {os.path.basename(p): t for p, t in rep.job.files.items()}
    if len(texts) != len(rep.job.files):
        raise UserError("--preflight: two of the files given have the same name; give them under distinct names")
    fixed = bool(rep.fix and rep.fix.get("files"))
    if fixed:
        texts.update(rep.fix["files"])
    d = tempfile.mkdtemp(prefix="rocm-tune-check-")
    for name, text in texts.items():
        with open(os.path.join(d, name), "w", encoding="utf-8") as fh:
            fh.write(text)
    paths = [os.path.join(d, n) for n in texts]
    back = check(paths, gpu_id=gpu_id, vram_gib=vram_gib, gpus=gpus, nodes=nodes, model_ref=model_ref)
    if back.cfg is None or back.model is None:
        raise UserError(f"--preflight: the {'fixed ' if fixed else ''}files in {d} do not read back as a training "
                        f"config ({back.reason})")
    c = back.cfg
    ga = as_int(back.job.get("gradient_accumulation_steps")) or 1
    lora = c.method in ("lora", "qlora")
    req = PlanRequest(
        model=back.model, gpu=back.gpu, gpus=c.gpus, nodes=c.nodes, method=c.method, stage=c.stage,
        effective_batch=c.micro_batch * ga * c.world_size, cutoff_len=c.cutoff_len, precision=c.precision,
        micro_batch=c.micro_batch, zero_stage=c.zero_stage, offload=c.offload, attn=c.attn,
        gradient_checkpointing=c.gradient_checkpointing, optim=c.optim,
        lora_rank=c.lora_rank if lora else None, lora_alpha=c.lora_alpha if lora else None,
        lora_targets=c.lora_targets if lora else None, dora=c.dora if lora else False,
        quant_bits=c.quant_bits if c.method == "qlora" else None,
        double_quant=c.double_quant if c.method == "qlora" else None,
        freeze_trainable_layers=c.freeze_trainable_layers if c.method == "freeze" else None,
        model_ref=_model_ref(back.model), runner=c.runner)
    p = plan(req).to_dict()
    rec, u = p["recommended"], c.to_dict()
    moved = [f"{k} {u[k]} -> {rec.get(k)}" for k in CARRIED if rec.get(k) != u[k]]
    notes = []
    if moved:       # the planner keeps a value the user fixed; say so rather than verify another config
        notes.append("the plan differs from the config in: " + ", ".join(moved))
    if ga != rec.get("grad_accum"):
        notes.append(f"gradient_accumulation_steps {ga} -> {rec.get('grad_accum')}")
    plan_path = os.path.join(d, "plan.json")
    with open(plan_path, "w", encoding="utf-8") as fh:
        json.dump(p, fh, indent=2)
        fh.write("\n")
    eb = as_int(back.job.get("per_device_eval_batch_size"))
    opts = PreflightOptions(eval_batch=eb, out=os.path.join(d, "plan.preflight.json"))
    return PreflightJob(dir=d, files=list(texts), plan=p, plan_path=plan_path, options=opts,
                        what="the fixed config" if fixed else "your config", notes=notes)
