"""Shared pieces of the exporters: the plan validator, export options, the launch spec, quoting helpers.

`resolve(plan, opts)` turns a plan (the plan.json dict of docs/internals.md) and the export options
into `Resolved`: the numbers every exporter reads. `launch_spec(r, opts)` is the command that starts
the training (`LaunchSpec`: argv, environment, working directory): run.sh renders it, and
`rocm_tune.core.runs.plan_launch.launch_plan` starts it, so the two cannot disagree.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import sys
from dataclasses import dataclass, field, replace

from rocm_tune.core.errors import UserError
from rocm_tune.core.files import read_json

# file names inside the bundle
RUN_SH = "run.sh"
LF_YAML = "llamafactory.yaml"
DS_JSON = "deepspeed.json"
ACCEL_YAML = "accelerate.yaml"
SLURM = "slurm.sbatch"
PLAN_JSON = "plan.json"
DATASET_INFO = "dataset_info.json"
HOSTFILE = "hostfile"  # multi-node `--launcher deepspeed` only

LAUNCHERS = ("llamafactory-cli", "torchrun", "deepspeed", "accelerate", "rocm-tune")
# what trains (the plan's `recommended.runner`, `--runner`): LLaMA-Factory, or a transformers Trainer.
# `hf` and `builtin` both run rocm-tune's built-in trainer (a transformers Trainer + PEFT):
# `<python> -m rocm_tune train llamafactory.yaml`.
RUNNERS = ("llamafactory", "hf", "builtin")
DEFAULT_RUNNER = "llamafactory"
# stages the built-in trainer implements (rocm_tune/train/config.py STAGES)
BUILTIN_STAGES = ("sft", "pt")
PYTHON_ENV = "ROCM_TUNE_PYTHON"  # overrides the interpreter recorded in run.sh when it runs
_LAUNCHER_ALIASES = {
    "llamafactory-cli": "llamafactory-cli",
    "llamafactory-cli train": "llamafactory-cli",
    "llamafactory": "llamafactory-cli",
    "llama-factory": "llamafactory-cli",
    "torchrun": "torchrun",
    "ddp": "torchrun",
    "deepspeed": "deepspeed",
    "accelerate": "accelerate",
    "accelerate launch": "accelerate",
    "rocm-tune": "rocm-tune",
    "rocm-tune train": "rocm-tune",
    "builtin": "rocm-tune",
    "train": "rocm-tune",
    # the planner's "one process" launcher: the trainer's own command
    "python": "single",
    "single": "single",
}

PRECISIONS = ("fp32", "fp16", "bf16", "pure_bf16")
ATTN = {"eager": "disabled", "disabled": "disabled", "sdpa": "sdpa", "fa2": "fa2", "auto": "auto"}
METHODS = ("lora", "qlora", "full", "freeze")
STAGES = ("sft", "dpo", "pt")
OFFLOADS = ("none", "optimizer", "all")
# plan optim -> HF TrainingArguments `optim` (transformers OptimizerNames)
OPTIM = {
    "adamw": "adamw_torch",
    "adamw_torch": "adamw_torch",
    "adamw_8bit": "adamw_8bit",
    "paged_adamw": "paged_adamw_32bit",
    "paged_adamw_8bit": "paged_adamw_8bit",
    "sgd": "sgd",
    "sgd_momentum": "sgd",
    "adafactor": "adafactor",
}


@dataclass(frozen=True)
class ExportOptions:
    """Values the plan does not decide (dataset, paths, schedule); CLI flags of `rocm-tune export`."""

    model: str | None = None  # model_name_or_path; default plan["model"]["ref"]
    dataset_name: str | None = None  # LLaMA-Factory `dataset:` (name in dataset_info.json)
    dataset_dir: str | None = None  # folder with dataset_info.json
    dataset_file: str | None = None  # a local file: the bundle gets a dataset_info.json entry for it
    dataset_format: dict | None = None  # formatting/columns/tags for that entry (from core.dataset)
    output_dir: str = "output"
    template: str | None = None  # None = from the model family (llamafactory.guess_template)
    launcher: str | None = None  # override plan["recommended"]["launcher"]
    runner: str | None = None  # what trains (RUNNERS); None = the plan's recommended.runner, else llamafactory
    python: str | None = None  # interpreter of the built-in trainer; None = default_python()
    lora_dropout: float = 0.05
    lr_scheduler_type: str = "cosine"
    warmup_ratio: float = 0.1
    warmup_key: str = "warmup_ratio"  # "warmup_steps" (a float < 1 is a ratio only from transformers 5)
    max_grad_norm: float = 1.0
    logging_steps: int = 10
    save_steps: int = 500
    seed: int = 42
    master_port: int = 29500
    ddp_timeout: int = 180000000
    resume: bool = False
    report_to: str = "none"
    # slurm
    partition: str | None = None
    account: str | None = None
    time_limit: str = "24:00:00"
    gres: str = "gpu"  # "dcu" on Hygon clusters
    cpus_per_task: int = 16
    job_name: str = "rocm-tune"
    tool_version: str = field(default_factory=lambda: _tool_version())
    # the bundle's absolute directory (set by write_bundle / `export -o`): the YAML's deepspeed/output_dir
    # and slurm.sbatch name files there, so they work from any working directory
    bundle_dir: str | None = None

    def with_(self, **kw) -> ExportOptions:
        return replace(self, **kw)


def _tool_version() -> str:
    from rocm_tune import __version__

    return str(__version__)


def default_python() -> str:
    """The interpreter a bundle starts the built-in trainer with: $ROCM_TUNE_PYTHON, else the one running
    now (never a bare `rocm-tune`, which may not be on PATH in cron, Slurm or a systemd unit)."""
    return os.environ.get(PYTHON_ENV) or sys.executable or "python3"


def check_python(path: str, flag: str = "--python") -> str:
    """An interpreter path for the bundle: absolute (run.sh changes directory), no newline."""
    text = str(path).strip()
    if not text or any(ch in text for ch in "\n\r\x00"):
        raise UserError(f"{flag} {path!r} is not a path to a Python interpreter")
    return os.path.abspath(os.path.expanduser(text)) if os.sep in text else text


@dataclass(frozen=True)
class Resolved:
    """The plan's numbers after validation, in the names the exporters use."""

    model_ref: str
    model_name: str
    family: str
    method: str
    stage: str
    precision: str
    attn: str
    cutoff_len: int
    micro_batch: int
    grad_accum: int
    zero_stage: int
    offload: str
    gradient_checkpointing: bool
    optim: str
    launcher: str
    runner: str
    python: str
    env: dict
    lora_rank: int
    lora_alpha: int
    lora_targets: tuple[str, ...]
    dora: bool
    quant_bits: int | None
    freeze_trainable_layers: int
    ddp_find_unused_parameters: bool | None
    use_reentrant: bool | None
    learning_rate: float
    epochs: float
    gpus: int
    nodes: int
    gpu_name: str
    notes: tuple[str, ...] = field(default=())

    @property
    def world_size(self) -> int:
        return self.gpus * self.nodes

    @property
    def uses_deepspeed(self) -> bool:
        return self.zero_stage > 0


def _need(d: dict, key: str, where: str):
    if not isinstance(d, dict) or key not in d or d[key] is None:
        raise UserError(f"plan is missing {where}{key} (see the plan.json contract in docs/internals.md)")
    return d[key]


def _int(v, what: str, lo: int, hi: int) -> int:
    if (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or int(v) != v
            or not lo <= int(v) <= hi):
        raise UserError(f"plan {what} must be an integer between {lo} and {hi}, got {v!r}")
    return int(v)


def _num(v, what: str, lo: float, hi: float) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not lo <= float(v) <= hi:
        raise UserError(f"plan {what} must be a number between {lo:g} and {hi:g}, got {v!r}")
    return float(v)


def _choice(v, what: str, allowed) -> str:
    if v not in allowed:
        raise UserError(f"plan {what} is {v!r}; expected one of: {', '.join(allowed)}")
    return v


def normalize_launcher(name: str) -> str:
    key = str(name).strip().lower()
    if key not in _LAUNCHER_ALIASES:
        raise UserError(f"launcher {name!r} is not known; expected one of: {', '.join(LAUNCHERS)}, python")
    return _LAUNCHER_ALIASES[key]


def check_runner(name: object, where: str = "--runner") -> str:
    """A runner name (RUNNERS), else a one-line UserError naming `where` and the allowed values."""
    if not isinstance(name, str) or name not in RUNNERS:
        raise UserError(f"{where} {name!r} is not known; expected one of: {', '.join(RUNNERS)}")
    return name


def _runner_and_launcher(rec: dict, opts: ExportOptions, stage: str) -> tuple[str, str]:
    """(runner, launcher): --runner beats the plan's runner; the one-process launcher is the runner's
    own command (`llamafactory-cli train` or the built-in trainer, shown as `rocm-tune`)."""
    if opts.runner is not None:
        runner, where = check_runner(opts.runner), "--runner"
    elif rec.get("runner") is not None:
        runner, where = check_runner(rec.get("runner"), "plan recommended.runner"), "the plan's runner"
    else:
        runner, where = DEFAULT_RUNNER, "the default runner"
    launcher = normalize_launcher(opts.launcher or rec.get("launcher") or "python")
    if launcher in ("rocm-tune", "llamafactory-cli"):  # a launcher that names its runner
        wanted = "llamafactory" if launcher == "llamafactory-cli" else ("hf" if runner == "hf" else "builtin")
        if opts.runner is not None and (opts.runner == "llamafactory") != (wanted == "llamafactory"):
            raise UserError(f"--launcher {launcher} starts the {'LLaMA-Factory' if wanted == 'llamafactory' else 'built-in'}"
                            f" trainer, but --runner is {opts.runner}; drop one of them")
        runner, where = wanted, f"--launcher {launcher}"
    elif launcher == "single":
        launcher = "llamafactory-cli" if runner == "llamafactory" else "rocm-tune"
    if runner != "llamafactory" and stage not in BUILTIN_STAGES:
        raise UserError(f"runner {runner} ({where}) cannot train stage {stage!r}: the built-in trainer does "
                        f"{', '.join(BUILTIN_STAGES)}; use --runner llamafactory")
    return runner, launcher


_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def resolve(plan: dict, opts: ExportOptions) -> Resolved:
    """Validate a plan.json dict and pull out what the exporters need (UserError naming a bad field)."""
    if not isinstance(plan, dict):
        raise UserError("plan must be a JSON object (the output of `rocm-tune plan --json`)")
    rec = _need(plan, "recommended", "")
    if not isinstance(rec, dict):
        raise UserError("plan recommended must be an object")
    model = plan.get("model") if isinstance(plan.get("model"), dict) else {}
    hw = plan.get("hardware") if isinstance(plan.get("hardware"), dict) else {}
    goal = plan.get("goal") if isinstance(plan.get("goal"), dict) else {}
    model_ref = opts.model or model.get("ref") or model.get("name")
    if not model_ref:
        raise UserError("plan has no model.ref; pass --model PATH_OR_ID")
    method = str(rec.get("method") or goal.get("method") or "lora")
    _choice(method, "recommended.method", METHODS)
    stage = str(goal.get("stage") or rec.get("stage") or "sft")
    _choice(stage, "goal.stage", STAGES)
    precision = _choice(_need(rec, "precision", "recommended."), "recommended.precision", PRECISIONS)
    attn_raw = str(_need(rec, "attn", "recommended."))
    attn = ATTN.get(attn_raw)
    if attn is None:
        raise UserError(f"plan recommended.attn is {attn_raw!r}; expected one of: eager, sdpa, fa2, auto")
    optim_raw = str(rec.get("optim") or "adamw")
    if optim_raw not in OPTIM:
        raise UserError(f"plan recommended.optim is {optim_raw!r}; expected one of: {', '.join(OPTIM)}")
    env = rec.get("env") or {}
    if not isinstance(env, dict):
        raise UserError("plan recommended.env must be an object of VAR: value")
    clean_env = {}
    for k, v in env.items():
        if not _ENV_NAME.match(str(k)):
            raise UserError(f"plan recommended.env has an invalid variable name {k!r}")
        if v is None:
            continue
        if isinstance(v, bool):
            v = "1" if v else "0"
        clean_env[str(k)] = str(v)
    offload = _choice(str(rec.get("offload") or "none"), "recommended.offload", OFFLOADS)
    zero = _int(rec.get("zero_stage", 0), "recommended.zero_stage", 0, 3)
    if offload != "none" and zero == 0:
        raise UserError("plan recommended.offload needs a ZeRO stage (zero_stage 2 or 3), got zero_stage 0")
    if offload == "all" and zero != 3:
        raise UserError(f"plan recommended.offload 'all' (parameters too) needs zero_stage 3, got {zero}")
    lora_targets = rec.get("lora_targets") or goal.get("lora_targets") or ["all"]
    if isinstance(lora_targets, str):
        lora_targets = [t.strip() for t in lora_targets.split(",") if t.strip()]
    if not isinstance(lora_targets, (list, tuple)) or not all(isinstance(t, str) and t for t in lora_targets):
        raise UserError(f"plan lora_targets must be a list of module names, got {lora_targets!r}")
    rank = _int(rec.get("lora_rank") or goal.get("lora_rank") or 8, "lora_rank", 1, 65536)
    alpha = rec.get("lora_alpha") or goal.get("lora_alpha") or rank * 2
    alpha = _int(alpha, "lora_alpha", 1, 1 << 20)
    runner, launcher = _runner_and_launcher(rec, opts, stage)
    if precision == "pure_bf16" and zero == 3 and runner == "llamafactory":
        # hparams/parser.py: "`pure_bf16` is incompatible with DeepSpeed ZeRO-3." (LLaMA-Factory 0.9.5)
        raise UserError("plan recommended.precision pure_bf16 with zero_stage 3: LLaMA-Factory refuses this "
                        "combination; use precision bf16 with ZeRO-3, or pure_bf16 with ZeRO-2")
    gpus = _int(hw.get("gpus", 1), "hardware.gpus", 1, 1024)
    nodes = _int(hw.get("nodes", 1), "hardware.nodes", 1, 4096)
    lr = _num(rec.get("learning_rate") or (1e-4 if method in ("lora", "qlora") else 1e-5),
              "recommended.learning_rate", 1e-12, 10.0)
    epochs = _num(rec.get("epochs") or goal.get("epochs") or 3.0, "recommended.epochs", 0.01, 100000)
    gc = rec.get("gradient_checkpointing", True)
    if not isinstance(gc, bool):
        raise UserError(f"plan recommended.gradient_checkpointing must be true or false, got {gc!r}")
    dfu = rec.get("ddp_find_unused_parameters")
    ure = rec.get("use_reentrant")
    quant = rec.get("quant_bits") or (4 if method == "qlora" else None)
    if quant is not None:
        quant = _int(quant, "recommended.quant_bits", 2, 8)
    notes = []
    if optim_raw == "sgd_momentum":
        notes.append("optim sgd_momentum is written as HF `sgd` (no momentum argument in the shared YAML)")
    return Resolved(
        model_ref=str(model_ref),
        model_name=str(model.get("name") or model_ref),
        family=str(model.get("family") or ""),
        method=method,
        stage=stage,
        precision=precision,
        attn=attn,
        cutoff_len=_int(_need(rec, "cutoff_len", "recommended."), "recommended.cutoff_len", 1, 1_048_576),
        micro_batch=_int(_need(rec, "micro_batch", "recommended."), "recommended.micro_batch", 1, 65536),
        grad_accum=_int(_need(rec, "grad_accum", "recommended."), "recommended.grad_accum", 1, 1 << 20),
        zero_stage=zero,
        offload=offload,
        gradient_checkpointing=gc,
        optim=OPTIM[optim_raw],
        launcher=launcher,
        runner=runner,
        python=check_python(opts.python) if opts.python else default_python(),
        env=clean_env,
        lora_rank=rank,
        lora_alpha=alpha,
        lora_targets=tuple(lora_targets),
        dora=bool(rec.get("dora") or goal.get("dora") or False),
        quant_bits=quant if method == "qlora" else None,
        freeze_trainable_layers=_int(rec.get("freeze_trainable_layers") or 2, "freeze_trainable_layers", -100000, 100000),
        ddp_find_unused_parameters=dfu if isinstance(dfu, bool) else None,
        use_reentrant=ure if isinstance(ure, bool) else None,
        learning_rate=lr,
        epochs=epochs,
        gpus=gpus,
        nodes=nodes,
        gpu_name=str(hw.get("gpu") or "gpu"),
        notes=tuple(notes),
    )


def load_plan(path: str) -> dict:
    plan = read_json(path, "plan file", hint=" (the output of `rocm-tune plan --json`)")
    if not isinstance(plan.get("recommended"), dict):
        raise UserError(f"plan file {path} has no \"recommended\" object (the output of `rocm-tune plan --json`)")
    return plan


def q(value) -> str:
    """Shell-quote one value (shlex.quote, so spaces, quotes and `$` are inert)."""
    return shlex.quote(str(value))


def comment(text: str) -> str:
    """A single-line shell/YAML comment body (newlines and control characters removed)."""
    return re.sub(r"[\x00-\x1f\x7f]+", " ", str(text)).strip()


def visible_devices(env: dict) -> str | None:
    for k in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
        if env.get(k):
            return env[k]
    return None


def trainer_module(r: Resolved) -> list[str]:
    """argv of the training program started by torchrun/deepspeed/accelerate (`-m MODULE ARGS`)."""
    if r.runner == "llamafactory":
        return ["llamafactory.launcher", LF_YAML]
    return ["rocm_tune", "train", LF_YAML]
