"""`rocm-tune export [plan flags | --plan plan.json] --format ... -o DIR [--force]`: a ready-to-run bundle."""

from __future__ import annotations

import argparse
import re
import sys

from rocm_tune.commands._common import float_range, int_range, print_json
from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import ExportOptions, check_python, check_runner


def _runner(text: str) -> str:
    return check_runner(text.strip())


def add_runner_arguments(group, *, legacy_trainer: bool = True) -> None:
    """`--runner` (what trains) and `--python` (the interpreter of the built-in trainer); for export, the
    deprecated `--trainer` (hidden) too."""
    _add(group, "--runner", type=_runner, default=None, metavar="{llamafactory,hf,builtin}",
         help="what trains: LLaMA-Factory or rocm-tune's built-in trainer (hf, your own transformers Trainer "
              "script, can be planned but not exported) "
              "(default: the plan's runner)")
    _add(group, "--python", type=lambda t: check_python(t), default=None, metavar="PATH",
         help="Python that runs the built-in trainer (default: $ROCM_TUNE_PYTHON, else this one)")
    if legacy_trainer:
        _add(group, "--trainer", dest="legacy_trainer", default=None, help=argparse.SUPPRESS)


_LEGACY_TRAINER = {"llamafactory": "llamafactory", "rocm-tune": "builtin"}


def runner_from_args(args: argparse.Namespace) -> str | None:
    """--runner, or the deprecated --trainer mapped to it (a note on stderr)."""
    legacy = args.legacy_trainer
    if legacy is None:
        return args.runner
    if legacy not in _LEGACY_TRAINER:
        raise UserError(f"--trainer {legacy!r} is not known; use --runner {{llamafactory,hf,builtin}}")
    mapped = _LEGACY_TRAINER[legacy]
    if args.runner is not None and args.runner != mapped:
        raise UserError(f"--trainer {legacy} contradicts --runner {args.runner}; use --runner only")
    print(f"rocm-tune export: note: --trainer is deprecated; use --runner {mapped}", file=sys.stderr)
    return mapped

_D = ExportOptions()  # the defaults of every export option: the app exports with exactly these
_PLAN_DESTS: set[str] = set()  # dests registered by `rocm-tune plan`'s add_arguments
_DEFAULTS: dict = {}  # their defaults


def _has(parser: argparse.ArgumentParser, flag: str) -> bool:
    return flag in parser._option_string_actions


def _add(parser, *flags, **kw) -> None:
    """Add an export flag unless the plan flags already registered it (then that one is shared)."""
    names = [f for f in flags if not _has(parser, f)]
    if names and len(names) == len(flags):
        parser.add_argument(*names, **kw)


_SLURM_TIME = re.compile(r"^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+|\d+-\d+:\d{1,2}|\d+-\d+:\d{1,2}:\d{1,2}"
                         r"|unlimited|infinite)$", re.IGNORECASE)
_TEMPLATE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


def _slurm_time(text: str) -> str:
    value = text.strip()
    if not _SLURM_TIME.match(value) or (value.isdigit() and int(value) == 0):
        raise UserError(f"--time {text!r} is not a Slurm time limit; use minutes, HH:MM:SS or D-HH:MM:SS "
                        "(e.g. 24:00:00, 2-00:00:00)")
    return value


def _scheduler(text: str) -> str:
    from rocm_tune.train.config import SCHEDULERS  # the names transformers' Trainer (and LLaMA-Factory) take

    value = text.strip()
    if value not in SCHEDULERS:
        raise UserError(f"--lr-scheduler {text!r} is not known; expected one of: {', '.join(SCHEDULERS)}")
    return value


def _template(text: str) -> str:
    value = text.strip()
    if not _TEMPLATE.match(value):
        raise UserError(f"--template {text!r} is not a LLaMA-Factory template name (letters, digits, _ . -, "
                        "e.g. qwen, llama3, default)")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rocm_tune.commands import plan as plan_cmd

    before = list(parser._actions)
    plan_cmd.add_arguments(parser)  # the same flags as `rocm-tune plan` (not needed with --plan)
    for action in parser._actions:
        if action in before:
            continue
        _PLAN_DESTS.add(action.dest)
        _DEFAULTS[action.dest] = action.default
        if action.option_strings:
            action.required = False  # --plan replaces them
        elif action.nargs is None:
            action.nargs = "?"  # a positional MODEL becomes optional for --plan
            action.default = None
    ex = parser.add_argument_group("export")
    _add(ex, "--plan", metavar="PLAN_JSON", help="export this plan.json (from `rocm-tune plan --json`) instead of planning")
    _add(ex, "--format", default="all",
         help="comma list of sh, llamafactory, deepspeed, accelerate, slurm, or all (default: all); other runners' "
         "files only when named: torchtune (torchtune.yaml + tune_run.sh), swift (ms-swift's `swift sft` command, "
         "swift_sft.sh), axolotl (axolotl.yaml + axolotl.sh)")
    _add(ex, "-o", "--out", dest="out", metavar="DIR", help="bundle directory (created if missing)")
    _add(ex, "--force", action="store_true", help="overwrite files that already exist in DIR")
    _add(ex, "--dataset", help="a local dataset file (gets a dataset_info.json entry in the bundle) "
         "or a folder with dataset_info.json")
    _add(ex, "--dataset-name", help="LLaMA-Factory dataset name(s), NAME or NAME,NAME (entries of "
         "--dataset-dir/dataset_info.json)")
    _add(ex, "--dataset-dir", help="folder whose dataset_info.json lists --dataset-name (default data, in the bundle "
         "directory where run.sh runs LLaMA-Factory; ONLINE for the hub)")
    _add(ex, "--output-dir", default="output", help="where training writes checkpoints (default: output/ in the bundle)")
    _add(ex, "--template", type=_template, default=None,
         help="LLaMA-Factory chat template, e.g. qwen, llama3 (default: from the model family, else default)")
    _add(ex, "--model-path", help="model_name_or_path to write (default: the plan's model ref)")
    _add(ex, "--launcher", help="override the plan's launcher: llamafactory-cli, torchrun, deepspeed, accelerate, rocm-tune")
    add_runner_arguments(ex)
    _add(ex, "--lora-dropout", type=float_range("--lora-dropout", 0.0, 0.9), default=_D.lora_dropout)
    _add(ex, "--lr-scheduler", type=_scheduler, default=_D.lr_scheduler_type,
         help=f"lr_scheduler_type (default {_D.lr_scheduler_type})")
    _add(ex, "--warmup-ratio", type=float_range("--warmup-ratio", 0.0, 0.99), default=_D.warmup_ratio)
    _add(ex, "--warmup-key", choices=("warmup_ratio", "warmup_steps"), default=_D.warmup_key,
         help="how the warmup ratio is spelled: warmup_ratio (default; every transformers LLaMA-Factory 0.9.5 "
         "allows reads it) or warmup_steps (a fraction there is a ratio only from transformers 5)")
    _add(ex, "--max-grad-norm", type=float_range("--max-grad-norm", 0.0, 1000.0), default=_D.max_grad_norm,
         help=f"gradient clipping, written to the YAML and the DeepSpeed JSON (default {_D.max_grad_norm:g})")
    _add(ex, "--logging-steps", type=int_range("--logging-steps", 1, 1_000_000), default=_D.logging_steps)
    _add(ex, "--save-steps", type=int_range("--save-steps", 1, 100_000_000), default=_D.save_steps)
    _add(ex, "--seed", type=int_range("--seed", 0, 2**31 - 1), default=_D.seed)
    _add(ex, "--master-port", type=int_range("--master-port", 1024, 65535), default=_D.master_port)
    _add(ex, "--resume", action="store_true", help="resume_from_checkpoint: true and keep output_dir")
    sl = parser.add_argument_group("slurm")
    _add(sl, "--partition", help="#SBATCH --partition")
    _add(sl, "--account", help="#SBATCH --account")
    _add(sl, "--time", dest="time_limit", type=_slurm_time, default=_D.time_limit,
         help=f"#SBATCH --time (default {_D.time_limit})")
    _add(sl, "--gres", default=_D.gres, help="generic resource name: gpu, or dcu on Hygon clusters (default gpu)")
    _add(sl, "--cpus-per-task", type=int_range("--cpus-per-task", 1, 4096), default=_D.cpus_per_task)
    _add(sl, "--job-name", default=_D.job_name)
    _add(parser, "--allow-unfit", action="store_true", help="export even when the plan does not fit")
    _add(parser, "--json", action="store_true", help="print the written files as one JSON object")


def _plan_from_flags(args: argparse.Namespace):
    """The plan `rocm-tune plan` makes from the same flags (typed)."""
    from rocm_tune.commands import plan as plan_cmd
    from rocm_tune.core.plan.planner import plan as run_plan

    return run_plan(plan_cmd.build_request(args)).plan


def _options(args: argparse.Namespace) -> ExportOptions:
    import os

    return ExportOptions(
        # the bundle's directory, known before rendering: a relative --dataset-dir is looked for there too
        bundle_dir=os.path.abspath(os.path.expanduser(args.out)),
        model=args.model_path,
        dataset_name=args.dataset_name,
        dataset_dir=args.dataset_dir,
        output_dir=args.output_dir,
        template=args.template,
        launcher=args.launcher,
        runner=runner_from_args(args),
        python=args.python,
        lora_dropout=args.lora_dropout,
        lr_scheduler_type=args.lr_scheduler,
        warmup_ratio=args.warmup_ratio,
        warmup_key=args.warmup_key,
        max_grad_norm=args.max_grad_norm,
        logging_steps=args.logging_steps,
        save_steps=args.save_steps,
        seed=args.seed,
        master_port=args.master_port,
        resume=args.resume,
        partition=args.partition,
        account=args.account,
        time_limit=args.time_limit,
        gres=args.gres,
        cpus_per_task=args.cpus_per_task,
        job_name=args.job_name,
    )


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.export.bundle import build_bundle, parse_formats, write_bundle
    from rocm_tune.core.export.common import load_plan
    from rocm_tune.core.export.datasets import for_export

    if not args.out:
        raise UserError("-o DIR is required: the directory to write the bundle into")
    formats = parse_formats(args.format)
    if args.dataset_dir is not None and not args.dataset_name:
        raise UserError(f"--dataset-dir {args.dataset_dir!r} applies with --dataset-name (the names its "
                        "dataset_info.json lists)")
    if args.plan:
        given = sorted(
            d for d in _PLAN_DESTS
            if d not in ("json", "dataset", "dataset_name", "dataset_dir", "runner", "python") and getattr(args, d, None) not in (None, False, [], ())
            and getattr(args, d, None) != _default_of(args, d)
        )
        if given:
            raise UserError(f"--plan cannot be combined with plan flags ({', '.join('--' + g.replace('_', '-') for g in given)})")
        plan = load_plan(args.plan)
    else:
        plan = _plan_from_flags(args)
    if not plan.fits and not args.allow_unfit:
        print("rocm-tune export: the plan does not fit in GPU memory (does-not-fit); nothing written. "
              "Pick an alternative from `rocm-tune plan`, or pass --allow-unfit.", file=sys.stderr)
        return 1
    opts = _options(args)
    bundle = build_bundle(plan, formats, opts, dataset=args.dataset)
    written = write_bundle(bundle, args.out, force=args.force)
    named = for_export(opts, args.dataset)  # checked already by build_bundle: the same answer again
    dataset_note = named.note(opts.bundle_dir) if named is not None else None
    if args.json:
        print_json({
            "out": str(args.out),
            "files": [str(p) for p in written],
            "formats": list(bundle.formats),
            "launcher": bundle.resolved.launcher,
            "runner": bundle.resolved.runner,
            "command": [a if isinstance(a, str) else a.shell() for a in bundle.launch.argv],
            "notes": list(bundle.notes),
            "dataset": named.as_json(opts.bundle_dir) if named is not None else None,
            "compute_pin": bundle.resolved.compute_pin,
            "execution": list(bundle.resolved.execution),
        })
        return 0
    print(f"wrote {len(written)} files to {args.out}:")
    for p in written:
        print(f"  {p.name}")
    for note in bundle.notes:
        if note != dataset_note:
            print(f"note: {note}")
    others_only = not {"sh", "llamafactory", "accelerate", "slurm"} & set(bundle.formats)
    if bundle.resolved.execution and not others_only:   # what the plan's runner executes, not another runner's
        print(f"executes: {bundle.resolved.execution[0]}")
    if dataset_note:
        print(f"rocm-tune export: note: {dataset_note}", file=sys.stderr)
    import shlex

    out_dir = args.out.rstrip("/") or "/"
    if out_dir.startswith("-"):   # `bash -dash/run.sh` would read it as an option: the printed commands say ./-dash
        out_dir = "./" + out_dir
    if "sh" in bundle.formats:
        print(f"start: bash {shlex.quote(out_dir + '/run.sh')}")
    if "slurm" in bundle.formats:
        print(f"submit: sbatch {shlex.quote(out_dir + '/slurm.sbatch')}")
    if "torchtune" in bundle.formats:
        print(f"start with torchtune: bash {shlex.quote(out_dir + '/tune_run.sh')}")
    if "swift" in bundle.formats:
        print(f"start (ms-swift): bash {shlex.quote(out_dir + '/swift_sft.sh')}")
    if "axolotl" in bundle.formats:
        print(f"start (Axolotl): bash {shlex.quote(out_dir + '/axolotl.sh')}")
    return 0


def _default_of(args: argparse.Namespace, dest: str):
    return _DEFAULTS.get(dest)
