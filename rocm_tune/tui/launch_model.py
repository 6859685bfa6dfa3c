"""Launching the plan from the app, exactly as `rocm-tune run --plan` does (no widgets here).

`preview(plan, answers)` calls `rocm_tune.core.runs.launch.plan_launch.prepare_plan_launch`, the checks behind
`rocm-tune run --plan`: it refuses what that would refuse (so the confirmation can name the problem) and
says what will run: the runner and why, the dataset, the run directory, and the command with its
environment, taken from the bundle's launch spec (the argv run.sh starts). `start(plan, preview)` then
calls `launch_plan` with that preparation: it exports the plan into RUN_DIR/bundle and starts the command
detached through `rocm_tune.core.runs.launch.launcher.start_run` (its own session, so closing the app or losing
the terminal never stops it). Both are called from thread workers.
"""

from __future__ import annotations

import os
import shlex
import threading
from dataclasses import dataclass
from typing import Any

from rocm_tune.core.errors import UserError

_RUNNER_WORDS = {
    "llamafactory": "LLaMA-Factory (llamafactory-cli)",
    "builtin": "built-in trainer (rocm-tune train)",
}


@dataclass(frozen=True)
class LaunchPreview:
    runner: str              # "llamafactory" | "builtin" (the `--runner` of `rocm-tune run`)
    trainer: str             # what trains, in words
    why: str                 # why that trainer was chosen
    dataset: str             # absolute path of the dataset file / folder
    name: str                # run name
    run_root: str            # where the run directory will be created
    command: str             # the command as started in RUN_DIR/bundle (shell-quoted)
    env: tuple[str, ...]     # K=V set for it (the plan's variables and the launcher's)
    cli: str                 # the same launch from a shell
    fits: bool
    warnings: tuple[str, ...] = ()
    prepared: Any = None     # the PlanLaunch that `start` launches


def dataset_of(plan: dict | None, answers: dict[str, Any]) -> str | None:
    raw_goal = (plan or {}).get("goal")
    goal = raw_goal if isinstance(raw_goal, dict) else {}
    data = answers.get("dataset") or goal.get("dataset")
    return str(data) if data else None


def preview(plan_dict: dict | None, answers: dict[str, Any]) -> LaunchPreview:
    """What launching would do; UserError (one line, with the fix) when it cannot start."""
    from rocm_tune.core.plan.plan import Plan
    from rocm_tune.core.runs.launch.plan_launch import prepare_plan_launch
    from rocm_tune.core.runs.registry import runs_root

    if not plan_dict:
        raise UserError("no plan yet: wait for the planner, or go back and fix the answers")
    plan = Plan.from_dict(plan_dict)  # the app keeps plan.json's dict; validated as `run --plan` validates it
    data = dataset_of(plan_dict, answers)
    if not data:
        raise UserError("launch needs a dataset: the trainer trains on a local file; set 'dataset' on the Goal "
                        "screen (esc back to it)")
    if not os.path.exists(os.path.abspath(os.path.expanduser(data))):
        raise UserError(f"dataset {data!r} does not exist; fix it on the Goal screen")
    p = prepare_plan_launch(plan, dataset=data)
    home = os.path.expanduser("~")
    argv = [a.replace(home, "~", 1) if home not in ("", "/") and a.startswith(home + os.sep) else a for a in p.argv]
    if p.argv and p.argv[0] == p.bundle.resolved.python:
        argv[0] = "python"  # the interpreter running this app (its path is in run.sh)
    warnings = []
    if not plan.fits:
        warnings.append("the planner says this does NOT fit: expect an out-of-memory error")
    warnings += [f"{w.code}: {w.message}" for w in plan.warnings]
    return LaunchPreview(runner=p.runner, trainer=_RUNNER_WORDS[p.runner], why=p.why, dataset=p.dataset,
                         name=p.name, run_root=str(runs_root()), command=" ".join(shlex.quote(a) for a in argv),
                         env=tuple(f"{k}={v}" for k, v in p.env),
                         cli=f"rocm-tune run --plan plan.json --runner {p.runner} --dataset {shlex.quote(data)}",
                         fits=plan.fits, warnings=tuple(warnings), prepared=p)


def describe(p: LaunchPreview) -> str:
    """The confirmation text (Rich markup, values escaped); short enough for 80x24."""
    from rich.markup import escape

    home = os.path.expanduser("~")
    root = p.run_root.replace(home, "~", 1) if home not in ("", "/") and p.run_root.startswith(home) else p.run_root
    data = p.dataset
    cwd = os.getcwd()
    if data.startswith(cwd.rstrip(os.sep) + os.sep):
        data = os.path.relpath(data, cwd)   # as typed on the Goal screen
    out = [f"[b]trainer[/b]  {escape(p.trainer)}: {escape(p.why)}",
           f"[b]dataset[/b]  {escape(data)}",
           f"[b]run dir[/b]  {escape(root)}/<new id>/  (bundle/, output/, stdout.log)",
           "[b]command[/b]  in RUN_DIR/bundle (what its run.sh runs):",
           f"         {escape(p.command)}"]
    if p.env:
        env = " ".join(p.env)
        env = env if len(env) <= 150 else env[:147].rsplit(" ", 1)[0] + " ..."
        out.append(f"         [dim]with {escape(env)}[/dim]")
    out.append(f"[b]same as[/b]  {escape(p.cli)}")
    if not p.fits:
        out.append("[b reverse] ! [/b reverse] [b]the planner says this does NOT fit: expect out-of-memory[/b]")
    n = len(p.warnings) - (0 if p.fits else 1)
    if n > 0:
        out.append(f"[b]![/b] {n} plan warning(s): see the Plan screen")
    out.append("Detached: quitting this app or losing the terminal leaves the run going.")
    return "\n".join(out)


_SUPERVISOR_ENV = threading.Lock()   # one launch at a time hands its options to its supervisor


def start(plan_dict: dict, p: LaunchPreview, retry_oom: int = 0, notify: str | None = None) -> Any:
    """Start the plan like `rocm-tune run --plan --runner RUNNER --dataset PATH [--retry-oom N] [--notify T]`
    (the plan `preview` checked and showed); returns the RunInfo. The options reach the run's supervisor the way
    `rocm-tune run` hands them over (its environment at start; it records them in run.json and never passes them
    to the training)."""
    from rocm_tune.core.runs.launch.plan_launch import launch_plan
    from rocm_tune.core.runs.launch.supervisor import NOTIFY_ENV, RETRY_ENV

    if notify:
        from rocm_tune.core.runs.notify import parse_target

        notify = parse_target(notify).spec
    with _SUPERVISOR_ENV:
        if notify:
            os.environ[NOTIFY_ENV] = notify
        if retry_oom:
            os.environ[RETRY_ENV] = str(int(retry_oom))
        try:
            return launch_plan(p.prepared.plan, prepared=p.prepared)
        finally:
            os.environ.pop(NOTIFY_ENV, None)
            os.environ.pop(RETRY_ENV, None)


def start_demo() -> Any:
    """`rocm-tune demo` started as the command starts it (`train.demo`: the tiny model and data in the demo folder,
    planned, a `rocm-tune train` run started detached); the started run's RunInfo. Call from a worker."""
    from rocm_tune.train.demo import start_demo as start
    from rocm_tune.train.demo import work_dir

    return start(work_dir(None), quiet=True).info
