"""DeepSpeed JSON -> the settings that drive memory, with "auto" filled as transformers fills it (pure).

transformers integrations/deepspeed.py (HfTrainerDeepSpeedConfig.trainer_config_finalize): "auto"
reduce_bucket_size = hidden_size**2, stage3_prefetch_bucket_size = 0.9 * hidden_size**2,
stage3_param_persistence_threshold = 10 * hidden_size; fp16/bf16 "auto" follow the Trainer's --fp16/--bf16.
DeepSpeed's own defaults when a key is absent (runtime/zero/config.py): reduce_bucket_size 5e8,
allgather_bucket_size 5e8, overlap_comm False (True for stage 3), contiguous_gradients True."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from rocm_tune.core.formats.common import as_bool

MARKERS = ("zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size", "fp16", "bf16",
           "gradient_accumulation_steps", "optimizer", "zero_allow_untested_optimizer")


def is_ds_mapping(d) -> bool:
    if not isinstance(d, dict):
        return False
    return "zero_optimization" in d or "train_micro_batch_size_per_gpu" in d or \
        isinstance(d.get("fp16"), dict) or isinstance(d.get("bf16"), dict)


@dataclass
class DsConfig:
    file: str | None
    data: dict
    stage: int = 0
    offload: str = "none"        # none | optimizer | all (TrainConfig vocabulary)
    offload_device: str = "cpu"
    fp16: object = None          # True | False | "auto" | None (absent)
    bf16: object = None
    values: dict = field(default_factory=dict)   # zero key -> value as written (numbers, "auto")
    lines: dict = field(default_factory=dict)    # key -> line

    def bucket(self, key: str, hidden: int) -> int:
        """Elements of a bucket as DeepSpeed will use it (the "auto" fill of transformers)."""
        v = self.values.get(key)
        if v == "auto":
            return {"reduce_bucket_size": hidden * hidden, "stage3_prefetch_bucket_size": int(0.9 * hidden * hidden),
                    "stage3_param_persistence_threshold": 10 * hidden}.get(key, 500_000_000)
        if v is None:
            return {"reduce_bucket_size": 500_000_000, "allgather_bucket_size": 500_000_000,
                    "stage3_prefetch_bucket_size": 50_000_000, "stage3_param_persistence_threshold": 100_000,
                    "stage3_max_live_parameters": 1_000_000_000}.get(key, 500_000_000)
        try:
            return int(float(v))
        except (TypeError, ValueError):
            return 500_000_000

    @property
    def overlap_comm(self) -> bool:
        v = self.values.get("overlap_comm")
        if v is None:
            return self.stage == 3
        b = as_bool(v)
        return bool(b)


def _lines(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for no, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if s.startswith('"') and '":' in s:
            out.setdefault(s[1:s.index('"', 1)], no)
    return out


def _enabled(block) -> object:
    if not isinstance(block, dict):
        return None
    v = block.get("enabled", False)
    return "auto" if v == "auto" else as_bool(v)


def read(data: dict, text: str, file: str | None) -> DsConfig:
    z = data.get("zero_optimization") or {}
    if not isinstance(z, dict):
        z = {}
    try:
        stage = int(z.get("stage", 0))
    except (TypeError, ValueError):
        stage = 0
    off_opt = (z.get("offload_optimizer") or {}).get("device", "none") if isinstance(z.get("offload_optimizer"), dict) else "none"
    off_par = (z.get("offload_param") or {}).get("device", "none") if isinstance(z.get("offload_param"), dict) else "none"
    if z.get("cpu_offload") is True:      # the old (<0.3.16) spelling
        off_opt = "cpu"
    offload = "none"
    if off_opt in ("cpu", "nvme"):
        offload = "optimizer"
    if off_par in ("cpu", "nvme") and stage == 3:
        offload = "all"
    return DsConfig(file=file, data=data, stage=stage, offload=offload,
                    offload_device=off_par if off_par != "none" else off_opt,
                    fp16=_enabled(data.get("fp16")), bf16=_enabled(data.get("bf16")),
                    values={k: v for k, v in z.items() if not isinstance(v, dict)}, lines=_lines(text))


def parse_text(text: str, path: str = "DeepSpeed JSON"):
    """The JSON object of `text`, None when it does not parse; UserError past the limits of files.load_json."""
    from rocm_tune.core.files import load_json

    return load_json(text, path, "DeepSpeed JSON", lenient=True)


def with_zero(data: dict, stage: int, offload: str) -> dict:
    """A copy of the user's JSON with the ZeRO stage / offload changed and nothing else."""
    out = json.loads(json.dumps(data))
    z = out.setdefault("zero_optimization", {})
    z["stage"] = stage
    if offload in ("optimizer", "all"):
        z["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    else:
        z.pop("offload_optimizer", None)
    if offload == "all":
        z["offload_param"] = {"device": "cpu", "pin_memory": True}
    else:
        z.pop("offload_param", None)
    return out


# the LLaMA-Factory examples/deepspeed/ files, for a YAML that names one we were not given
def lf_example(name: str) -> dict | None:
    base = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
            "gradient_accumulation_steps": "auto", "gradient_clipping": "auto",
            "zero_allow_untested_optimizer": True,
            "fp16": {"enabled": "auto", "loss_scale": 0, "loss_scale_window": 1000, "initial_scale_power": 16,
                     "hysteresis": 2, "min_loss_scale": 1}, "bf16": {"enabled": "auto"}}
    z2 = {"allgather_partitions": True, "allgather_bucket_size": 5e8, "overlap_comm": False, "reduce_scatter": True,
          "reduce_bucket_size": 5e8, "contiguous_gradients": True, "round_robin_gradients": True}
    z3 = {"overlap_comm": False, "contiguous_gradients": True, "sub_group_size": 1e9, "reduce_bucket_size": "auto",
          "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto",
          "stage3_max_live_parameters": 1e9, "stage3_max_reuse_distance": 1e9,
          "stage3_gather_16bit_weights_on_model_save": True}
    cpu = {"device": "cpu", "pin_memory": True}
    table = {
        "ds_z0_config.json": {"stage": 0, **z2},
        "ds_z2_config.json": {"stage": 2, **z2},
        "ds_z2_offload_config.json": {"stage": 2, **z2, "offload_optimizer": cpu},
        "ds_z3_config.json": {"stage": 3, **z3},
        "ds_z3_offload_config.json": {"stage": 3, **z3, "offload_optimizer": cpu, "offload_param": cpu},
    }
    if name not in table:
        return None
    return {**base, "zero_optimization": table[name]}
