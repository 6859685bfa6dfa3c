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
    parser.add_argument("--with", dest="runner", choices=("auto", "builtin", "export"), default="auto",
                        help="for --plan: the built-in trainer or the exported run.sh (default auto)")
    parser.add_argument("--json", action="store_true", help="print the started run as one JSON object")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD ARGS...: any command")


def _load_plan(path: str) -> dict:
    p = Path(path).expanduser()
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
        kind = "plan"
        command, env_plan = _plan_command(plan, args)
        env = {**env_plan, **env}
        name = name or str((plan.get("model") or {}).get("name") or "plan")
    info = launch(command, name=name, run_dir=args.dir, cwd=cwd, env=env, kind=kind, plan=plan,
                  total_steps=total_steps)
    if args.json:
        print_json(info.to_dict())
    else:
        print(info.id)
        print(f"  dir: {info.dir}")
        print(f"  watch: rocm-tune attach {info.id}    stop: rocm-tune stop {info.id}")
    return 0


def _plan_command(plan: dict, args: argparse.Namespace) -> tuple[list[str], dict]:
    """The command (and env) that runs a plan: the exported run.sh or the built-in trainer."""
    from rocm_tune.train.config import plan_to_command

    return plan_to_command(plan, runner=args.runner, bundle_dir=args.dir)
