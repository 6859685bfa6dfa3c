"""`rocm-tune run --plan plan.json | --script run.sh | -- CMD ...`: start detached, print the run id."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rocm_tune.commands._common import int_range, print_json
from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import check_python, check_runner

_LEGACY_WITH = {"auto": None, "builtin": "builtin", "llamafactory": "llamafactory"}


def _runner(text: str) -> str:
    return check_runner(text.strip())


def _runner_from_args(args: argparse.Namespace) -> str | None:
    """--runner, or the deprecated --with mapped to it (a note on stderr)."""
    if args.legacy_with is None:
        return args.runner
    if args.legacy_with not in _LEGACY_WITH:
        raise UserError(f"--with {args.legacy_with!r} is not known; use --runner {{llamafactory,hf,builtin}}")
    mapped = _LEGACY_WITH[args.legacy_with]
    if args.runner is not None and mapped is not None and args.runner != mapped:
        raise UserError(f"--with {args.legacy_with} contradicts --runner {args.runner}; use --runner only")
    hint = f"--runner {mapped}" if mapped else "no --runner (the default)"
    print(f"rocm-tune run: note: --with is deprecated; use {hint}", file=sys.stderr)
    return args.runner or mapped


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group()
    src.add_argument("--plan", metavar="PLAN_JSON",
                     help="run a plan from `rocm-tune plan --json` (its exported run.sh, or the built-in trainer)")
    src.add_argument("--script", metavar="SCRIPT", help="run a shell script (e.g. an exported run.sh)")
    src.add_argument("--config", metavar="CONFIG_YAML", help="run `rocm-tune train CONFIG_YAML` (the built-in trainer)")
    parser.add_argument("--name", help="name of the run (default: from the command)")
    parser.add_argument("--dir", metavar="DIR", help="put the run directory here instead of the registry")
    parser.add_argument("--force", action="store_true",
                        help="for --plan --dir DIR: replace a plan.json and the bundle's files already in DIR "
                             "(a symlink is replaced itself, never its target)")
    parser.add_argument("--env", action="append", metavar="K=V", default=[],
                        help="set an environment variable for the command (repeatable)")
    parser.add_argument("--cwd", metavar="DIR", help="working directory of the command (default: current)")
    parser.add_argument("--runner", type=_runner, default=None, metavar="{llamafactory,hf,builtin}",
                        help="for --plan: what trains: LLaMA-Factory or rocm-tune's built-in trainer (hf, your own "
                             "transformers Trainer script, cannot be started) (default: the plan's runner; the built-in trainer when llamafactory-cli "
                             "is not installed)")
    parser.add_argument("--python", type=lambda t: check_python(t), default=None, metavar="PATH",
                        help="for --plan: Python that runs the built-in trainer (default: $ROCM_TUNE_PYTHON, else this one)")
    parser.add_argument("--with", dest="legacy_with", default=None, help=argparse.SUPPRESS)  # deprecated: --runner
    parser.add_argument("--dataset", metavar="PATH",
                        help="for --plan: local dataset file (default: the plan's goal.dataset)")
    parser.add_argument("--notify", metavar="URL|COMMAND", default=None,
                        help="on finish, failure, each alert and each retry POST one JSON object to a webhook (Slack, Feishu/Lark, "
                             "DingTalk, WeCom, ntfy by host or a slack:/feishu:/... prefix; else generic JSON) or run "
                             "COMMAND with it on stdin; default: notify in ~/.config/rocm-tune/config.toml; none: nothing")
    parser.add_argument("--retry-oom", type=int_range("--retry-oom", 0, 100), default=0, metavar="N",
                        help="for --plan and --script of a bundle: after a GPU OOM, step the plan down (micro-batch "
                             "halved, accumulation doubled, then checkpointing, then the next ZeRO stage) and resume "
                             "from the last checkpoint, at most N times")
    parser.add_argument("--json", action="store_true", help="print the started run as one JSON object")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD ARGS...: any command")


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.runs.launch.launcher import launch, parse_env_pairs

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
        for flag, value in (("--runner", args.runner), ("--with", args.legacy_with), ("--python", args.python)):
            if value is not None:
                raise UserError(f"{flag} {value} only applies to --plan")
        if args.force:
            raise UserError("--force only applies to --plan --dir DIR (it replaces a plan.json and bundle files there)")
    elif args.force and args.dir is None:
        raise UserError("--force only applies with --dir DIR (a new run in the registry replaces nothing)")
    for flag, path in (("--script", args.script), ("--config", args.config)):
        if path and Path(path).expanduser().is_dir():
            raise UserError(f"{flag} {path!r} is a directory; give the file")
    _supervisor_options(args)
    cwd = args.cwd
    if args.plan and cwd is not None:
        raise UserError(f"--cwd {cwd!r} does not apply to --plan: a planned run starts in RUN_DIR/bundle")
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
        plan = _bundle_plan(script.resolve().parent)
    elif args.config:
        from rocm_tune.train.config import load_config

        cfg = load_config(args.config)  # validates before anything starts
        command = [sys.executable, "-m", "rocm_tune", "train", str(Path(args.config).resolve())]
        kind = "train"
        name = name or Path(cfg.output_dir or args.config).name
    elif args.plan:
        from rocm_tune.core.export.common import load_plan
        from rocm_tune.core.runs.launch.plan_launch import launch_plan, prepare_plan_launch

        prepared = prepare_plan_launch(load_plan(args.plan), name=name, env=env, runner=_runner_from_args(args),
                                       dataset=args.dataset, python=args.python)
        info = launch_plan(prepared.plan, run_dir=args.dir, prepared=prepared, force=args.force)
        if not args.json:  # after the start: a refusal is the one line on stderr
            print(f"rocm-tune run: runner {prepared.runner} ({prepared.why})", file=sys.stderr)
        _print_started(info, args.json)
        return 0
    if kind == "train":
        from rocm_tune.core.runs import rundir as rd
        from rocm_tune.core.runs.launch.launcher import start_run

        _, d = rd.create_run_dir(command, name=name, run_dir=args.dir, cwd=cwd, env=env, kind=kind)
        (d / rd.METRICS_JSONL).touch()  # the built-in trainer writes it; monitors pick it from the start
        info = start_run(d)
    else:
        info = launch(command, name=name, run_dir=args.dir, cwd=cwd, env=env, kind=kind, plan=plan,
                      total_steps=total_steps)
    _print_started(info, args.json)
    return 0


def _supervisor_options(args: argparse.Namespace) -> None:
    """--notify and --retry-oom reach the run's supervisor through its environment (it records them in run.json
    and never passes them to the command)."""
    from rocm_tune.core.runs.launch.supervisor import NOTIFY_ENV, RETRY_ENV

    from rocm_tune.core.runs.notify import encode, resolve

    targets = resolve(args.notify)  # --notify wins; without it the config file's `notify`; `--notify none`: nothing
    os.environ.pop(NOTIFY_ENV, None)
    if targets:
        os.environ[NOTIFY_ENV] = encode(targets)
    if args.retry_oom:
        if not (args.plan or (args.script and _bundle_plan(Path(args.script).expanduser().resolve().parent))):
            raise UserError(f"--retry-oom {args.retry_oom} needs --plan or --script of an exported bundle (its "
                            "plan.json is what is stepped down)")
        os.environ[RETRY_ENV] = str(args.retry_oom)


def _bundle_plan(folder: Path) -> dict | None:
    """The plan.json of an exported bundle beside the script (the run then shows measured vs predicted memory);
    None when there is none or it is not a valid rocm-tune plan (a script of your own is run as it is)."""
    if not (folder / "plan.json").is_file():
        return None
    from rocm_tune.core.export.common import load_plan

    try:
        return load_plan(str(folder / "plan.json")).to_dict()
    except UserError:
        return None


def _print_started(info, as_json: bool) -> None:
    if as_json:
        print_json(info.to_dict())
    else:
        print(info.id)
        print(f"  dir: {info.dir}")
        print(f"  watch: rocm-tune attach {info.id}    stop: rocm-tune stop {info.id}")
