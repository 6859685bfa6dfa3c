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


# `accelerate launch`'s own arguments (accelerate/commands/launch.py launch_command_parser): the same settings as the
# config file's, and they win over it (launch.py _validate_launch_command: "the command line arguments take
# precedence"). --use_fsdp/--use_deepspeed/--multi_gpu name the distributed type; --fsdp_* the FSDP plugin's keys
# (fsdp_sharding_strategy 1 = FULL_SHARD ...); --zero_stage/--offload_*_device/--zero3_init_flag the DeepSpeed
# plugin's.
CLI_FSDP_KEYS = ("fsdp_sharding_strategy", "fsdp_offload_params", "fsdp_auto_wrap_policy", "fsdp_version",
                 "fsdp_activation_checkpointing", "fsdp_state_dict_type", "fsdp_cpu_ram_efficient_loading",
                 "fsdp_reshard_after_forward", "fsdp_transformer_layer_cls_to_wrap", "fsdp_min_num_params",
                 "fsdp_backward_prefetch", "fsdp_use_orig_params", "fsdp_sync_module_states")
CLI_KEYS = ("use_fsdp", "use_deepspeed", "multi_gpu", "mixed_precision", "num_processes", "num_machines",
            "zero_stage", "offload_optimizer_device", "offload_param_device", "zero3_init_flag",
            "deepspeed_config_file", *CLI_FSDP_KEYS)


def states_config(flags: dict[str, tuple[str, int]]) -> bool:
    """Whether `accelerate launch`'s own flags state any of its config's settings."""
    return any(k.replace("-", "_") in CLI_KEYS for k in flags)


def read_cli(flags: dict[str, tuple[str, int]], file: str, base: dict | None = None) -> dict | None:
    """The accelerate config that `accelerate launch`'s own flags state, over `base` (the config file's); None when
    they state nothing."""
    f = {k.replace("-", "_"): v for k, v in flags.items()}
    if not states_config(flags):
        return None
    out = dict(base) if base else {"file": file, "lines": {}, "distributed_type": "", "num_processes": None,
                                   "num_machines": None, "mixed_precision": None, "fsdp": False, "zero_stage": None,
                                   "zero3_init_flag": None, "offload_param": None, "offload_optimizer": None,
                                   "deepspeed_config_file": None, "fsdp_config": None}
    out["lines"] = {**out.get("lines", {}), **{k: v[1] for k, v in f.items() if k in CLI_KEYS}}
    if not base:
        out["file"] = file
    for key in ("num_processes", "num_machines"):
        if key in f and as_int(f[key][0]):
            out[key] = as_int(f[key][0])
    if "mixed_precision" in f:
        out["mixed_precision"] = f["mixed_precision"][0]
    fsdp_given = {k: f[k][0] for k in CLI_FSDP_KEYS if k in f}
    if ("use_fsdp" in f and as_bool(f["use_fsdp"][0]) is not False) or (fsdp_given and "use_deepspeed" not in f):
        out["distributed_type"], out["fsdp"] = "FSDP", True
        out["fsdp_config"] = {**(out.get("fsdp_config") or {}), **fsdp_given}
    if "use_deepspeed" in f or "zero_stage" in f or "deepspeed_config_file" in f:
        out["distributed_type"] = "DEEPSPEED"
        out["zero_stage"] = as_int(f["zero_stage"][0]) if "zero_stage" in f else out.get("zero_stage")
        if out["zero_stage"] is None and "deepspeed_config_file" not in f:
            out["zero_stage"] = 2          # launch.py: --zero_stage defaults to 2 under --use_deepspeed
        for key, name in (("offload_param_device", "offload_param"), ("offload_optimizer_device", "offload_optimizer")):
            if key in f:
                out[name] = f[key][0]
        if "zero3_init_flag" in f:
            out["zero3_init_flag"] = as_bool(f["zero3_init_flag"][0])
        if "deepspeed_config_file" in f:
            out["deepspeed_config_file"] = f["deepspeed_config_file"][0]
    elif "multi_gpu" in f and not out.get("distributed_type"):
        out["distributed_type"] = "MULTI_GPU"
    return out
