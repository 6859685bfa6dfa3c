"""`rocm-tune run --plan plan.json | --script run.sh | -- CMD ...`: start detached, print the run id."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rocm_tune.commands._common import print_json
from rocm_tune.core.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--plan", metavar="PLAN_JSON",
                     help="run a plan from `rocm-tune plan --json` (its exported run.sh, or the built-in trainer)")
    src.add_argument("--script", metavar="SCRIPT", help="run a shell script (e.g. an exported run.sh)")
    src.add_argument("--config", metavar="CONFIG_YAML", help="run `rocm-tune train CONFIG_YAML` (the built-in trainer)")
    parser.add_argument("--name", help="name of the run (default: from the command)")
    parser.add_argument("--dir", metavar="DIR", help="put the run directory here instead of the registry")
    parser.add_argument("--env", action="append", metavar="K=V", default=[],
                        help="set an environment variable for the command (repeatable)")
    parser.add_argument("--cwd", metavar="DIR", help="working directory of the command (default: current)")
    parser.add_argument("--with", dest="runner", choices=("auto", "builtin", "llamafactory"), default="auto",
                        help="for --plan: what trains: the built-in trainer (rocm-tune train) or LLaMA-Factory "
                             "(default: LLaMA-Factory when llamafactory-cli is installed, else built-in)")
    parser.add_argument("--dataset", metavar="PATH",
                        help="for --plan: local dataset file (default: the plan's goal.dataset)")
    parser.add_argument("--json", action="store_true", help="print the started run as one JSON object")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD ARGS...: any command")


def _load_plan(path: str) -> dict:
    p = Path(path).expanduser()
    if p.is_dir():
        raise UserError(f"--plan {path!r} is a directory; give the plan.json file (`rocm-tune plan --json > plan.json`)")
    if not p.is_file():
        raise UserError(f"--plan {path!r} does not exist")
    try:
        plan = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"--plan {path!r} is not valid JSON: {exc}") from None
    if not isinstance(plan, dict) or not isinstance(plan.get("recommended"), dict):
        raise UserError(f"--plan {path!r} is not a rocm-tune plan (no \"recommended\" object)")
    return plan


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.runs.launcher import launch, parse_env_pairs

    env = parse_env_pairs(args.env)
    command = list(args.command or [])
    if command and command[0] == "--":
        command = command[1:]
    given = [x for x in (args.plan, args.script, args.config) if x] + ([1] if command else [])
    if len(given) != 1:
        raise UserError("give exactly one of --plan PLAN_JSON, --script SCRIPT, --config CONFIG_YAML or -- CMD ...")
    if not args.plan:
        # options that only shape a --plan run would be silently ignored otherwise
        if args.dataset is not None:
            raise UserError(f"--dataset {args.dataset!r} only applies to --plan (a command or script reads its own data)")
        if args.runner != "auto":
            raise UserError(f"--with {args.runner} only applies to --plan")
    for flag, path in (("--script", args.script), ("--config", args.config)):
        if path and Path(path).expanduser().is_dir():
            raise UserError(f"{flag} {path!r} is a directory; give the file")
    cwd = args.cwd
    if cwd is not None and not os.path.isdir(cwd):
        raise UserError(f"--cwd {cwd!r} is not a directory")
    plan = None
    total_steps = None
    kind = "command"
    name = args.name
    if args.script:
        script = Path(args.script).expanduser()
        if not script.is_file():
            raise UserError(f"--script {args.script!r} does not exist")
        command = ["bash", str(script.resolve())]
        kind = "script"
        name = name or script.stem
    elif args.config:
        from rocm_tune.train.config import load_config

        cfg = load_config(args.config)  # validates before anything starts
        command = [sys.executable, "-m", "rocm_tune", "train", str(Path(args.config).resolve())]
        kind = "train"
        name = name or Path(cfg.output_dir or args.config).name
    elif args.plan:
        plan = _load_plan(args.plan)
        name = name or str((plan.get("model") or {}).get("name") or "plan")
        info = start_plan(plan, name=name, run_dir=args.dir, cwd=cwd, env=env, runner=args.runner,
                          dataset=args.dataset)
        _print_started(info, args.json)
        return 0
    if kind == "train":
        from rocm_tune.core.runs import rundir as rd
        from rocm_tune.core.runs.launcher import start_run

        _, d = rd.create_run_dir(command, name=name, run_dir=args.dir, cwd=cwd, env=env, kind=kind)
        (d / rd.METRICS_JSONL).touch()  # the built-in trainer writes it; monitors pick it from the start
        info = start_run(d)
    else:
        info = launch(command, name=name, run_dir=args.dir, cwd=cwd, env=env, kind=kind, plan=plan,
                      total_steps=total_steps)
    _print_started(info, args.json)
    return 0


def _print_started(info, as_json: bool) -> None:
    if as_json:
        print_json(info.to_dict())
    else:
        print(info.id)
        print(f"  dir: {info.dir}")
        print(f"  watch: rocm-tune attach {info.id}    stop: rocm-tune stop {info.id}")


def start_plan(plan: dict, *, name: str | None = None, run_dir: str | None = None, cwd: str | None = None,
               env: dict | None = None, runner: str = "auto", dataset: str | None = None):
    """Create a run for a plan, write what runs it into the run directory, start it detached.

    The plan is exported with `rocm_tune.core.export` (run.sh + llamafactory.yaml, trainer
    LLaMA-Factory or the built-in one) into RUN_DIR/bundle/; the training output goes to RUN_DIR/output."""
    import shutil

    from rocm_tune.core.runs import rundir as rd
    from rocm_tune.core.runs.launcher import start_run

    if runner == "auto":
        runner = "llamafactory" if shutil.which("llamafactory-cli") else "builtin"
    if runner == "llamafactory" and not shutil.which("llamafactory-cli"):
        raise UserError("--with llamafactory: llamafactory-cli is not on PATH (pip install llamafactory, "
                        "or --with builtin)")
    goal = plan.get("goal") if isinstance(plan.get("goal"), dict) else {}
    data = dataset or goal.get("dataset")
    if not data:
        raise UserError("the plan names no dataset (goal.dataset); give one with --dataset PATH")
    if not os.path.exists(os.path.expanduser(str(data))):
        raise UserError(f"dataset {data!r} does not exist")
    _, d = rd.create_run_dir(["bash", "run.sh"], name=name, run_dir=run_dir, cwd=cwd, env=env, kind="plan",
                             plan=plan)
    try:
        from rocm_tune.core.export.bundle import build_bundle, write_bundle
        from rocm_tune.core.export.common import ExportOptions
    except ImportError:
        build_bundle = None
    try:
        if build_bundle is not None:
            opts = ExportOptions(trainer="rocm-tune" if runner == "builtin" else "llamafactory",
                                 output_dir=str(d / "output"), logging_steps=1)
            bundle = build_bundle(plan, ("sh",), opts, dataset=os.path.abspath(os.path.expanduser(str(data))))
            write_bundle(bundle, str(d / "bundle"))
            command = ["bash", str(d / "bundle" / "run.sh")]
        else:  # no exporter: the built-in trainer straight from the plan
            from rocm_tune.train.config import config_dict_from_plan, config_to_yaml

            cfg = config_dict_from_plan(plan, dataset=os.path.abspath(str(data)), output_dir=str(d / "output"))
            (d / "train.yaml").write_text(config_to_yaml(cfg), encoding="utf-8")
            command = [sys.executable, "-m", "rocm_tune", "train", str(d / "train.yaml")]
    except BaseException:
        shutil.rmtree(d, ignore_errors=True) if run_dir is None else None
        raise
    rd.update_run_json(d, command=command)
    if runner == "builtin":
        (d / rd.METRICS_JSONL).touch()  # the built-in trainer writes it; monitors pick it from the start
    return start_run(d)
