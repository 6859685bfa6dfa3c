"""DeepSpeed config JSON.

transformers' DeepSpeed integration (``HfTrainerDeepSpeedConfig.trainer_config_process``) fills every
``"auto"`` value from the trainer's arguments and refuses to start when an explicit value differs from
them. The values that a user may override on the command line (``bash run.sh learning_rate=5e-5
per_device_train_batch_size=2``) are therefore ``"auto"``: the integration fills them with exactly the
YAML's numbers (checked by tests/realstack against the real transformers and DeepSpeed), so the
estimate, made from the same plan numbers, describes the same run:

* ``train_micro_batch_size_per_gpu`` <- per_device_train_batch_size,
  ``gradient_accumulation_steps`` <- gradient_accumulation_steps,
  ``train_batch_size`` <- micro x accumulation x world size, ``gradient_clipping`` <- max_grad_norm;
* with optimizer offload, the ``optimizer`` block (AdamW: DeepSpeed's CPU Adam, the fast path; recent
  DeepSpeed refuses a client torch optimizer under ZeRO-Offload unless ``zero_force_ds_cpu_optimizer``
  is false) takes ``lr``/``betas``/``eps``/``weight_decay`` from learning_rate, adam_beta1/2,
  adam_epsilon and weight_decay (all ``"auto"``).

Explicit: ``fp16.enabled`` = yaml ``fp16``, ``bf16.enabled`` = yaml ``bf16`` (pure_bf16 trains a bf16
model without AMP, so both are false there; the integration checks them against the YAML); fp16 uses
dynamic loss scaling (``loss_scale: 0``); the whole ``zero_optimization`` block (stage, offload targets,
bucket sizes) is `rocm_tune.core.runners.deepspeed.zero_settings`, the numbers the memory estimate uses.
"""

from __future__ import annotations

import json

from rocm_tune.core.export.common import ExportOptions, Resolved


def config(r: Resolved, opts: ExportOptions) -> dict:
    cfg: dict = {
        "train_batch_size": "auto",
        "train_micro_batch_size_per_gpu": "auto",
        "gradient_accumulation_steps": "auto",
        "gradient_clipping": "auto",
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
    # the estimate's own numbers (rocm_tune.core.runners.deepspeed.zero_settings): buckets sized from the
    # model's hidden size and trainable parameters, offload targets, ZeRO-3 prefetch/persistence/live limits
    zero: dict = dict(r.zero) or {"stage": 0}
    if r.offload in ("optimizer", "all"):
        cfg["optimizer"] = {
            "type": "AdamW",
            "params": {"lr": "auto", "betas": "auto", "eps": "auto", "weight_decay": "auto"},
        }
    cfg["zero_optimization"] = zero
    return cfg


def render(r: Resolved, opts: ExportOptions) -> str:
    return json.dumps(config(r, opts), indent=2) + "\n"


def hostfile(r: Resolved) -> str:
    """DeepSpeed hostfile for run.sh's `deepspeed --no_ssh --node_rank N`: one line per node. With --no_ssh
    the launcher reads only the number of nodes and the slots of each (runner.py: world_info), so the
    names are placeholders; nothing is started over ssh."""
    lines = [
        f"# {r.nodes} nodes x {r.gpus} GPUs for `deepspeed --no_ssh` (run.sh): only the counts are read;",
        "# every node runs run.sh itself with its NODE_RANK, nothing is started over ssh.",
    ]
    lines += [f"node{i} slots={r.gpus}" for i in range(r.nodes)]
    return "\n".join(lines) + "\n"
