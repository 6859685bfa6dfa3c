"""accelerate config YAML (`accelerate config` output) -> processes, DeepSpeed plugin, FSDP (pure; yaml).

Keys as accelerate writes them (accelerate/commands/config/config_args.py): num_processes, num_machines,
distributed_type (MULTI_GPU | DEEPSPEED | FSDP), mixed_precision, deepspeed_config.{zero_stage,
offload_optimizer_device, offload_param_device, zero3_init_flag, deepspeed_config_file}, fsdp_config."""

from __future__ import annotations

from rocm_tune.core.runners.common import as_bool, as_int
from rocm_tune.core.runners.llamafactory import yaml_lines


def is_accelerate_mapping(d) -> bool:
    return isinstance(d, dict) and ("distributed_type" in d or "compute_environment" in d)


def read(data: dict, text: str, file: str) -> dict:
    raw = data.get("deepspeed_config")
    ds: dict = raw if isinstance(raw, dict) else {}
    dist = str(data.get("distributed_type", "")).upper()
    lines = yaml_lines(text)
    for no, line in enumerate(text.splitlines(), 1):     # nested keys of deepspeed_config, by their own line
        key = line.strip().split(":", 1)[0]
        if key in ("zero3_init_flag", "zero_stage", "offload_param_device", "offload_optimizer_device") \
                and line.startswith((" ", "\t")):
            lines.setdefault(key, no)
    out = {"file": file, "lines": lines, "distributed_type": dist,
           "num_processes": as_int(data.get("num_processes")), "num_machines": as_int(data.get("num_machines")),
           "mixed_precision": data.get("mixed_precision"), "fsdp": dist == "FSDP" or bool(data.get("fsdp_config")),
           "zero_stage": None, "zero3_init_flag": None, "offload_param": None, "offload_optimizer": None,
           "deepspeed_config_file": ds.get("deepspeed_config_file"),
           "fsdp_config": data.get("fsdp_config") if isinstance(data.get("fsdp_config"), dict) else None}
    if dist == "DEEPSPEED" or ds:
        out["zero_stage"] = as_int(ds.get("zero_stage"))
        out["zero3_init_flag"] = as_bool(ds.get("zero3_init_flag")) if "zero3_init_flag" in ds else None
        out["offload_param"] = ds.get("offload_param_device")
        out["offload_optimizer"] = ds.get("offload_optimizer_device")
    return out
