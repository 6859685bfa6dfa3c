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
dynamic loss scaling (``loss_scale: 0``); the ZeRO stage, the offload targets (CPU, pinned) and the
bucket sizes, which the memory estimate uses as written.
"""

from __future__ import annotations

import json

from rocm_tune.core.errors import UserError

from rocm_tune.core.export.common import ExportOptions, Resolved



def zero_block(r: Resolved) -> dict:
    """The ``zero_optimization`` block: exactly `rocm_tune.core.runners.deepspeed.zero_settings`, the numbers
    the memory estimate sizes DeepSpeed's buckets from. The model is read as the planner read it (preset,
    directory or cached hub id); if it cannot be read, DeepSpeed's own defaults and a note."""
    from rocm_tune.core.memory import TrainConfig
    from rocm_tune.core.runners.deepspeed import MAX_BUCKET, zero_settings

    cfg = TrainConfig(method=r.method, lora_rank=r.lora_rank, lora_alpha=r.lora_alpha,
                      lora_targets=tuple(r.lora_targets), dora=r.dora, quant_bits=r.quant_bits or 4,
                      freeze_trainable_layers=r.freeze_trainable_layers, precision=r.precision,
                      cutoff_len=r.cutoff_len, micro_batch=r.micro_batch, zero_stage=r.zero_stage,
                      offload=r.offload, gpus=r.gpus, nodes=r.nodes)
    if r.zero_stage == 0:
        return {"stage": 0}  # deepspeed.json asked for by a plan without ZeRO
    model = None
    for ref in (r.model_ref, r.model_name):
        try:
            from rocm_tune.core.model import load_model

            model = load_model(ref)
            break
        except (UserError, OSError, ValueError, KeyError):
            continue
    if model is not None:
        return zero_settings(model, cfg)
    zero: dict = {"stage": r.zero_stage, "overlap_comm": r.offload == "none", "contiguous_gradients": True,
                  "reduce_bucket_size": MAX_BUCKET}
    if r.zero_stage in (1, 2):
        zero.update(allgather_partitions=True, allgather_bucket_size=MAX_BUCKET, reduce_scatter=True)
    else:
        zero.update(sub_group_size=1_000_000_000, stage3_prefetch_bucket_size=MAX_BUCKET,
                    stage3_param_persistence_threshold=1_000_000, stage3_max_live_parameters=1_000_000_000,
                    stage3_max_reuse_distance=1_000_000_000, stage3_gather_16bit_weights_on_model_save=True)
    if r.offload in ("optimizer", "all"):
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    if r.offload == "all":
        zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    return zero


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
    zero = zero_block(r)
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
