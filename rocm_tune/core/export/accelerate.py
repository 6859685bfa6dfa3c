"""`accelerate launch --config_file accelerate.yaml` config.

Key names are accelerate's ``ClusterConfig`` fields (accelerate/commands/config/config_args.py):
compute_environment, distributed_type (NO | MULTI_GPU | DEEPSPEED), num_processes (all GPUs of all
machines), num_machines, machine_rank, main_process_ip/port, rdzv_backend, same_network, gpu_ids,
mixed_precision (no | fp16 | bf16), use_cpu, deepspeed_config. With DeepSpeed the config names the
JSON file (``deepspeed_config_file``) and leaves ``mixed_precision`` out: accelerate refuses a
config that sets both ("When using `deepspeed_config_file`, the following accelerate config variables
will be ignored ..."); precision then comes from the JSON.
"""

from __future__ import annotations

from rocm_tune.core.export.common import DS_JSON, ExportOptions, Resolved, trainer_argv
from rocm_tune.core.export.llamafactory import _scalar


def config(r: Resolved, opts: ExportOptions) -> dict:
    cfg: dict = {"compute_environment": "LOCAL_MACHINE", "debug": False}
    if r.uses_deepspeed:
        cfg["distributed_type"] = "DEEPSPEED"
        cfg["deepspeed_config"] = {
            "deepspeed_config_file": DS_JSON,
            "zero3_init_flag": r.zero_stage == 3,
        }
        if r.nodes > 1:
            cfg["deepspeed_config"]["deepspeed_multinode_launcher"] = "standard"
    elif r.world_size > 1:
        cfg["distributed_type"] = "MULTI_GPU"
    else:
        cfg["distributed_type"] = "NO"
    if not r.uses_deepspeed:
        cfg["mixed_precision"] = {"fp16": "fp16", "bf16": "bf16"}.get(r.precision, "no")
    cfg.update(
        num_machines=r.nodes,
        num_processes=r.world_size,
        machine_rank=0,
        gpu_ids="all",  # devices are chosen by the *_VISIBLE_DEVICES that run.sh exports
        rdzv_backend="static" if r.nodes == 1 else "c10d",
        same_network=True,
        main_training_function="main",
        use_cpu=False,
    )
    if r.nodes > 1:
        cfg["main_process_port"] = opts.master_port
    return cfg


def render(r: Resolved, opts: ExportOptions) -> str:
    cfg = config(r, opts)
    if r.launcher == "accelerate":
        lines = ["# accelerate config: run.sh starts `accelerate launch --config_file accelerate.yaml ...`"]
        if r.nodes > 1:
            lines.append('# multi-node: run.sh adds --machine_rank "$NODE_RANK" --main_process_ip "$MASTER_ADDR" '
                         f"--main_process_port {opts.master_port} on each node")
    else:
        lines = [f"# accelerate config; run.sh does not use it (launcher {r.launcher}). To use it instead: "
                 "accelerate launch --config_file accelerate.yaml " + " ".join(trainer_argv(r))]
        if r.nodes > 1:
            lines.append("# multi-node: add --machine_rank N --main_process_ip ADDR_OF_NODE_0 on each node")
    for k, v in cfg.items():
        if isinstance(v, dict):
            lines.append(f"{k}:")
            for k2, v2 in v.items():
                lines.append(f"  {k2}: {_scalar(v2)}")
        else:
            lines.append(f"{k}: {_scalar(v)}")
    return "\n".join(lines) + "\n"
