"""Shared pieces of the exporters: the plan validator, export options, the launch spec, quoting helpers.

`resolve(plan, opts)` turns a typed `rocm_tune.core.plan.plan.Plan` (validated once, where it was read) and the
export options into `Resolved`: the names and numbers every exporter reads. `launch_spec(r, opts)` is the command that starts
the training (`LaunchSpec`: argv, environment, working directory): run.sh renders it, and
`rocm_tune.core.runs.launch.plan_launch.launch_plan` starts it, so the two cannot disagree.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from dataclasses import dataclass, field, replace

from rocm_tune.core import vocabulary as V
from rocm_tune.core import runners
from rocm_tune.core.errors import UserError
from rocm_tune.core.memory.checkpoint_size import MIN_HANG_TIMEOUT_S, SETUP_TIMEOUT_S, hang_timeout
from rocm_tune.core.plan.plan import Plan

# file names inside the bundle
RUN_SH = "run.sh"
LF_YAML = "llamafactory.yaml"
DS_JSON = "deepspeed.json"
ACCEL_YAML = "accelerate.yaml"
SLURM = "slurm.sbatch"
PLAN_JSON = "plan.json"
DATASET_INFO = "dataset_info.json"
HOSTFILE = "hostfile"  # multi-node `--launcher deepspeed` only
# every LLaMA-Factory bundle starts LLaMA-Factory through its own copy of rocm_tune/train/lf_launch.py, which writes
# measured memory through its own copy of rocm_tune/train/callbacks.py (the training machine needs no rocm-tune)
LF_LAUNCH = runners.LF_LAUNCH_FILE
LF_CALLBACKS = "rocm_tune_callbacks.py"
HANG_ENV = "ROCM_TUNE_HANG_TIMEOUT"  # seconds a collective may wait once the Trainer is built (train.callbacks)
LF_PYTHON_ENV = "LLAMAFACTORY_PYTHON"  # the Python with LLaMA-Factory that run.sh starts (default python3)

LAUNCHERS = ("llamafactory-cli", "torchrun", "deepspeed", "accelerate", "rocm-tune")
# what trains (the plan's `recommended.runner`, `--runner`): LLaMA-Factory, rocm-tune's built-in trainer
# (`<python> -m rocm_tune train llamafactory.yaml`), or `hf`, a plain transformers Trainer script of the
# user's own, which the planner can estimate but nothing here can start (refused in one line).
RUNNERS = V.RUNNERS
DEFAULT_RUNNER = V.DEFAULT_RUNNER
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

# plan optim -> HF TrainingArguments `optim` (transformers OptimizerNames); plan attn -> LLaMA-Factory flash_attn
OPTIM = V.HF_OPTIM
ATTN = V.LLAMAFACTORY_ATTN


@dataclass(frozen=True)
class ExportOptions:
    """Values the plan does not decide (dataset, paths, schedule); CLI flags of `rocm-tune export`."""

    model: str | None = None  # model_name_or_path; default the plan's model.ref
    dataset_name: str | None = None  # LLaMA-Factory `dataset:` (name in dataset_info.json)
    dataset_dir: str | None = None  # folder with dataset_info.json
    dataset_file: str | None = None  # a local file: the bundle gets a dataset_info.json entry for it
    dataset_format: dict | None = None  # formatting/columns/tags for that entry (from core.data.dataset)
    output_dir: str = "output"
    template: str | None = None  # None = from the model family (llamafactory.guess_template)
    launcher: str | None = None  # override the plan's launcher (python | torchrun) with any of LAUNCHERS
    runner: str | None = None  # what trains (RUNNERS); None = the plan's recommended.runner, else llamafactory
    python: str | None = None  # interpreter of the built-in trainer; None = default_python()
    lora_dropout: float = V.DEFAULT_LORA_DROPOUT
    lr_scheduler_type: str = V.DEFAULT_SCHEDULER
    warmup_ratio: float = V.DEFAULT_WARMUP_RATIO
    warmup_key: str = "warmup_ratio"  # "warmup_steps" (a float < 1 is a ratio only from transformers 5)
    max_grad_norm: float = V.DEFAULT_MAX_GRAD_NORM
    logging_steps: int = 10
    save_steps: int = 500
    seed: int = 42
    master_port: int = 29500
    # the process group's timeout until the Trainer is built (dataset preprocessing waits in a barrier); then the
    # launcher lowers it to Resolved.hang_timeout (core.memory.checkpoint_size.hang_timeout). Never "forever": a hung
    # collective must end the job.
    ddp_timeout: int = SETUP_TIMEOUT_S
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
    double_quant: bool
    freeze_trainable_layers: int
    ddp_find_unused_parameters: bool | None
    use_reentrant: bool | None
    learning_rate: float
    epochs: float
    gpus: int
    nodes: int
    gpu_name: str
    warnings: tuple[tuple[str, str, str], ...] = ()  # the plan's (code, message, fix)
    compute_pin: str | None = None  # lf_launch --compute-dtype (core/runners.compute_pin)
    execution: tuple[str, ...] = ()  # what really executes, in words (the plan's execution block)
    zero: dict = field(default_factory=dict)  # deepspeed.json's zero_optimization ({} without ZeRO)
    notes: tuple[str, ...] = field(default=())
    # once the Trainer is built: how long one collective may wait before the job ends (ROCM_TUNE_HANG_TIMEOUT)
    hang_timeout: int = MIN_HANG_TIMEOUT_S
    hang_why: str = ""
    trust_remote_code: bool = True  # the model's config.json has an auto_map (its own Python code); unknown: True

    @property
    def world_size(self) -> int:
        return self.gpus * self.nodes

    @property
    def uses_deepspeed(self) -> bool:
        return self.zero_stage > 0


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


def _runner_and_launcher(plan: Plan, opts: ExportOptions) -> tuple[str, str]:
    """(runner, launcher): --runner beats the plan's runner; the one-process launcher is the runner's
    own command (`llamafactory-cli train` or the built-in trainer, shown as `rocm-tune`)."""
    stage = plan.goal.stage
    if opts.runner is not None:
        runner, where = check_runner(opts.runner), "--runner"
    else:
        runner, where = plan.recommended.runner, "the plan's runner"
    launcher = normalize_launcher(opts.launcher or plan.recommended.launcher)
    if launcher in ("rocm-tune", "llamafactory-cli"):  # a launcher that names its runner
        wanted = "llamafactory" if launcher == "llamafactory-cli" else "builtin"
        if opts.runner is not None and (opts.runner == "llamafactory") != (wanted == "llamafactory"):
            raise UserError(f"--launcher {launcher} starts the {'LLaMA-Factory' if wanted == 'llamafactory' else 'built-in'}"
                            f" trainer, but --runner is {opts.runner}; drop one of them")
        runner, where = wanted, f"--launcher {launcher}"
    elif launcher == "single":
        launcher = "llamafactory-cli" if runner == "llamafactory" else "rocm-tune"
    if runner == "hf":
        # core/runners/hf.py: a plain transformers Trainer script of your own (dtype="auto" loading, its own
        # regime); rocm-tune has no such script to start, and its built-in trainer runs another regime
        raise UserError(f"runner hf ({where}) is your own transformers Trainer script: rocm-tune cannot export or "
                        "start it; use --runner builtin (rocm-tune's trainer) or --runner llamafactory")
    if runner != "llamafactory" and stage not in BUILTIN_STAGES:
        raise UserError(f"runner {runner} ({where}) cannot train stage {stage!r}: the built-in trainer does "
                        f"{', '.join(BUILTIN_STAGES)}; use --runner llamafactory")
    return runner, launcher


def resolve(plan: Plan, opts: ExportOptions) -> Resolved:
    """The plan's names and numbers as the exporters write them (the plan itself was validated when it was
    read: `Plan.from_dict`); UserError for a runner or launcher that cannot carry it out."""
    if not isinstance(plan, Plan):
        raise TypeError(f"resolve() takes a rocm_tune.core.plan.plan.Plan, got {type(plan).__name__}")
    s = plan.recommended
    runner, launcher = _runner_and_launcher(plan, opts)
    lora = s.is_lora
    rank = (s.lora_rank or V.DEFAULT_LORA_RANK) if lora else V.DEFAULT_LORA_RANK
    if s.precision == "pure_bf16" and s.zero_stage == 3 and runner == "llamafactory":
        # hparams/parser.py: "`pure_bf16` is incompatible with DeepSpeed ZeRO-3." (LLaMA-Factory 0.9.5)
        raise UserError("plan recommended.precision pure_bf16 with zero_stage 3: LLaMA-Factory refuses this "
                        "combination; use precision bf16 with ZeRO-3, or pure_bf16 with ZeRO-2")
    notes = []
    zero = _zero_settings(plan) if s.zero_stage else {}
    pin = runners.compute_pin(runner, s.precision)
    ex = plan.execution
    if ex is not None and ex.runner == runner and ex.requested == s.precision:
        execution = (ex.line(), *ex.summary[1:])
    else:  # an older plan.json, or --runner changed who trains: what is known without the model's checkpoint dtype
        execution = ((f"LLaMA-Factory through {LF_LAUNCH}" + (f" --compute-dtype {pin}: weights load and compute in "
                      f"{pin} whatever the checkpoint's dtype" if pin else f", precision {s.precision}"))
                     if runner == "llamafactory" else f"rocm-tune's built-in trainer, precision {s.precision}",)
    hang, hang_why = hang_timeout(plan.to_dict())
    if s.optim == "sgd_momentum":
        notes.append("optim sgd_momentum is written as HF `sgd` (no momentum argument in the shared YAML)")
    return Resolved(
        model_ref=opts.model or plan.model.ref,
        model_name=plan.model.name or plan.model.ref,
        family=plan.model.family,
        method=s.method,
        stage=plan.goal.stage,
        precision=s.precision,
        attn=ATTN[s.attn],
        cutoff_len=s.cutoff_len,
        micro_batch=s.micro_batch,
        grad_accum=s.grad_accum,
        zero_stage=s.zero_stage,
        offload=s.offload,
        gradient_checkpointing=s.gradient_checkpointing,
        optim=OPTIM[s.optim],
        launcher=launcher,
        runner=runner,
        python=check_python(opts.python) if opts.python else default_python(),
        env={str(k): str(v) for k, v in s.env.items()},
        lora_rank=rank,
        lora_alpha=(s.lora_alpha or V.default_lora_alpha(rank)) if lora else V.default_lora_alpha(rank),
        lora_targets=tuple((s.lora_targets or V.DEFAULT_LORA_TARGETS) if lora else V.DEFAULT_LORA_TARGETS),
        dora=bool(s.dora) and lora,
        quant_bits=(s.quant_bits or V.DEFAULT_QUANT_BITS) if s.method == "qlora" else None,
        double_quant=V.DEFAULT_DOUBLE_QUANT if s.double_quant is None else bool(s.double_quant),
        freeze_trainable_layers=s.freeze_trainable_layers or V.DEFAULT_FREEZE_LAYERS,
        ddp_find_unused_parameters=s.ddp_find_unused_parameters,
        use_reentrant=s.use_reentrant,
        learning_rate=float(s.learning_rate),
        epochs=float(s.epochs),
        gpus=plan.hardware.gpus,
        nodes=plan.hardware.nodes,
        gpu_name=plan.hardware.gpu,
        warnings=tuple((w.code, w.message, w.fix) for w in plan.warnings),
        zero=zero,
        notes=tuple(notes),
        compute_pin=pin,
        execution=execution,
        hang_timeout=hang,
        hang_why=hang_why,
        trust_remote_code=needs_remote_code(opts.model or plan.model.ref),
    )


def needs_remote_code(ref: str) -> bool:
    """Whether loading `ref` needs trust_remote_code: its config.json (a preset's, a local one, the cache's) names
    an `auto_map` (the model's own Python). A model whose config cannot be read keeps True, as LLaMA-Factory's
    examples do, so it still loads; a model transformers implements itself never runs downloaded code."""
    from rocm_tune.core.model.architecture import load_model

    try:
        spec = load_model(ref)
    except UserError:
        return True
    cfg = spec.config if isinstance(spec.config, dict) else {}
    return bool(cfg.get("auto_map")) or spec.family in ("chatglm", "baichuan", "internlm2", "qwen")


def _zero_settings(plan: Plan) -> dict:
    """The ZeRO block the estimate used (`rocm_tune.core.runners.deepspeed.zero_settings`): its bucket sizes
    follow the model's hidden size and trainable parameters, so the model's shape is read (a preset, a
    config.json, the local Hugging Face cache); nothing is downloaded."""
    from rocm_tune.core.model.architecture import load_model
    from rocm_tune.core.runners.deepspeed import zero_settings

    try:
        spec = load_model(plan.model.ref)
    except UserError as exc:
        raise UserError(f"deepspeed.json: the ZeRO bucket sizes follow the model's shape, and model "
                        f"{plan.model.ref!r} cannot be read here ({exc})") from None
    return zero_settings(spec, plan.train_config())


def load_plan(path: str) -> Plan:
    """plan.json read and validated; every error is one line that names the file (and the field)."""
    from rocm_tune.core.files import MAX_STATE_BYTES, read_json

    data = read_json(path, "plan file", hint=" (the output of `rocm-tune plan --json`)", max_bytes=MAX_STATE_BYTES)
    try:
        return Plan.from_dict(data)
    except UserError as exc:
        msg = str(exc)
        msg = msg[len("plan.json: "):] if msg.startswith("plan.json: ") else msg
        raise UserError(f"plan file {path}: {msg}") from None


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


def trainer_argv(r: Resolved, module_flag: str = "-m") -> list[str]:
    """What torchrun/deepspeed/accelerate/python start: the bundle's lf_launch.py for LLaMA-Factory (with the
    plan's --compute-dtype pin), `-m rocm_tune train` for the built-in trainer (`--module` for deepspeed)."""
    if r.runner == "llamafactory":
        return [LF_LAUNCH, LF_YAML] + (["--compute-dtype", r.compute_pin] if r.compute_pin else [])
    return [module_flag, "rocm_tune", "train", LF_YAML]
