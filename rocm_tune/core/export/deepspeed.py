"""DeepSpeed config JSON with explicit values.

transformers' DeepSpeed integration (``HfTrainerDeepSpeedConfig.trainer_config_process``) checks that
explicit values equal the trainer's arguments and refuses to start otherwise, so the numbers here are
the same ones written into llamafactory.yaml:

* ``train_micro_batch_size_per_gpu`` = per_device_train_batch_size,
  ``gradient_accumulation_steps`` = gradient_accumulation_steps,
  ``train_batch_size`` = micro x accumulation x world size, ``gradient_clipping`` = max_grad_norm;
* ``fp16.enabled`` = yaml ``fp16``, ``bf16.enabled`` = yaml ``bf16`` (pure_bf16 trains a bf16 model
  without AMP, so both are false there); fp16 uses dynamic loss scaling (``loss_scale: 0``);
* ZeRO ``stage``; ``offload_optimizer`` / ``offload_param`` to CPU with pinned memory. With optimizer
  offload an explicit ``optimizer`` block (AdamW with the trainer's lr/betas/eps/weight decay) makes
  DeepSpeed use its CPU Adam: recent DeepSpeed refuses a client (torch) optimizer under ZeRO-Offload
  unless ``zero_force_ds_cpu_optimizer`` is false, and CPU Adam is the fast path anyway.
"""

from __future__ import annotations

import json

from rocm_tune.core.export.common import ExportOptions, Resolved

BUCKET = 500_000_000


def config(r: Resolved, opts: ExportOptions) -> dict:
    cfg: dict = {
        "train_batch_size": r.micro_batch * r.grad_accum * r.world_size,
        "train_micro_batch_size_per_gpu": r.micro_batch,
        "gradient_accumulation_steps": r.grad_accum,
        "gradient_clipping": float(opts.max_grad_norm),
        "steps_per_print": opts.logging_steps,
        "wall_clock_breakdown": False,
        "zero_allow_untested_optimizer": True,
        "fp16": {
            "enabled": r.precision == "fp16",
            "loss_scale": 0,
            "loss_scale_window": 1000,
            "initial_scale_power": 16,
            "hysteresis": 2,
            "min_loss_scale": 1,
        },
        "bf16": {"enabled": r.precision == "bf16"},
    }
    zero: dict = {"stage": r.zero_stage}
    if r.zero_stage in (1, 2):
        zero.update(
            allgather_partitions=True,
            allgather_bucket_size=BUCKET,
            overlap_comm=r.offload == "none",
            reduce_scatter=True,
            reduce_bucket_size=BUCKET,
            contiguous_gradients=True,
        )
    elif r.zero_stage == 3:
        zero.update(
            overlap_comm=r.offload == "none",
            contiguous_gradients=True,
            sub_group_size=1_000_000_000,
            reduce_bucket_size=BUCKET,
            stage3_prefetch_bucket_size=BUCKET,
            stage3_param_persistence_threshold=1_000_000,
            stage3_max_live_parameters=1_000_000_000,
            stage3_max_reuse_distance=1_000_000_000,
            stage3_gather_16bit_weights_on_model_save=True,
        )
    if r.offload in ("optimizer", "all"):
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
        cfg["optimizer"] = {
            "type": "AdamW",
            "params": {
                "lr": float(r.learning_rate),
                "betas": [0.9, 0.999],
                "eps": 1e-8,
                "weight_decay": 0.0,
            },
        }
    if r.offload == "all":
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    cfg["zero_optimization"] = zero
    return cfg


def render(r: Resolved, opts: ExportOptions) -> str:
    return json.dumps(config(r, opts), indent=2) + "\n"
