"""Launching the plan from the app, exactly as `rocm-tune run --plan` does (no widgets here).

`preview(plan, answers)` says what will run (trainer, dataset, run directory, the launch line of the
exported run.sh) and refuses what `run --plan` would refuse, so the confirmation can name the
problem; `start(plan, answers)` then calls `rocm_tune.commands.run.start_plan`, the same function
behind `rocm-tune run --plan`: it exports the plan with `rocm_tune.core.export` into RUN_DIR/bundle
and starts `bash run.sh` detached through `rocm_tune.core.runs.launcher.start_run` (its own session,
so closing the app or losing the terminal never stops it). Both are called from thread workers.
"""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from typing import Any

from rocm_tune.core.errors import UserError


@dataclass(frozen=True)
class LaunchPreview:
    runner: str              # "llamafactory" | "builtin" (the `--with` of `rocm-tune run`)
    trainer: str             # what trains, in words
    why: str                 # why that trainer was chosen
    dataset: str             # absolute path of the dataset file / folder
    name: str                # run name
    run_root: str            # where the run directory will be created
    launch_lines: tuple[str, ...]   # environment + launch line of the exported run.sh
    cli: str                 # the same launch from a shell
    fits: bool
    warnings: tuple[str, ...] = ()


def choose_runner() -> tuple[str, str, str]:
    """(runner, trainer in words, why): LLaMA-Factory when `llamafactory-cli` is on PATH, else built-in."""
    cli = shutil.which("llamafactory-cli")
    if cli:
        return "llamafactory", "LLaMA-Factory (llamafactory-cli)", f"llamafactory-cli found at {cli}"
    return "builtin", "built-in trainer (rocm-tune train)", "llamafactory-cli is not on PATH"


def dataset_of(plan: dict | None, answers: dict[str, Any]) -> str | None:
    goal = (plan or {}).get("goal") if isinstance((plan or {}).get("goal"), dict) else {}
    data = answers.get("dataset") or goal.get("dataset")
    return str(data) if data else None


def run_name(plan: dict) -> str:
    return str((plan.get("model") or {}).get("name") or "plan")


def preview(plan: dict | None, answers: dict[str, Any]) -> LaunchPreview:
    """What launching would do; UserError (one line, with the fix) when it cannot start."""
    if not plan or not isinstance(plan.get("recommended"), dict):
        raise UserError("no plan yet: wait for the planner, or go back and fix the answers")
    runner, trainer, why = choose_runner()
    data = dataset_of(plan, answers)
    if not data:
        who = "the built-in trainer" if runner == "builtin" else "LLaMA-Factory"
        raise UserError(f"launch needs a dataset: {who} trains on a local file; set 'dataset' on the Goal "
                        "screen (esc back to it)")
    path = os.path.abspath(os.path.expanduser(data))
    if not os.path.exists(path):
        raise UserError(f"dataset {data!r} does not exist; fix it on the Goal screen")
    from rocm_tune.core.runs.registry import runs_root

    lines: tuple[str, ...] = ()
    try:
        from rocm_tune.core.export import render_bundle
        from rocm_tune.core.export.common import ExportOptions

        # the options `run --plan` exports with (commands/run.py start_plan); preview only
        opts = ExportOptions(trainer="rocm-tune" if runner == "builtin" else "llamafactory",
                             output_dir="/RUN_DIR/output", logging_steps=1)
        run_sh = render_bundle(plan, ["sh"], opts, dataset=path).get("run.sh", "")
        body = run_sh.split('cd "$(dirname "${BASH_SOURCE[0]}")"', 1)[-1]
        lines = tuple(ln for ln in body.strip().splitlines() if ln.strip() and not ln.lstrip().startswith("#"))
    except ImportError:
        lines = ("rocm-tune train train.yaml",)
    warnings = []
    if plan.get("fits") is False:
        warnings.append("the planner says this does NOT fit: expect an out-of-memory error")
    for w in plan.get("warnings") or []:
        if isinstance(w, dict) and w.get("code"):
            warnings.append(f"{w['code']}: {w.get('message', '')}")
    cli = f"rocm-tune run --plan plan.json --with {runner} --dataset {shlex.quote(data)}"
    return LaunchPreview(runner=runner, trainer=trainer, why=why, dataset=path, name=run_name(plan),
                         run_root=str(runs_root()), launch_lines=lines, cli=cli,
                         fits=plan.get("fits") is not False, warnings=tuple(warnings))


def describe(p: LaunchPreview) -> str:
    """The confirmation text (Rich markup, values escaped); short enough for 80x24."""
    from rich.markup import escape

    home = os.path.expanduser("~")
    root = p.run_root.replace(home, "~", 1) if home not in ("", "/") and p.run_root.startswith(home) else p.run_root
    data = p.dataset
    cwd = os.getcwd()
    if data.startswith(cwd.rstrip(os.sep) + os.sep):
        data = os.path.relpath(data, cwd)   # as typed on the Goal screen
    exports = [ln.split(" ", 1)[1] for ln in p.launch_lines if ln.startswith("export ")]
    run = " ".join(ln.strip().rstrip("\\").strip() for ln in p.launch_lines if not ln.startswith("export "))
    out = [f"[b]trainer[/b]  {escape(p.trainer)}: {escape(p.why)}",
           f"[b]dataset[/b]  {escape(data)}",
           f"[b]run dir[/b]  {escape(root)}/<new id>/  (bundle/, output/, stdout.log)",
           "[b]command[/b]  bash RUN_DIR/bundle/run.sh, which runs",
           f"         {escape(run)}"]
    if exports:
        env = " ".join(exports)
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


def start(plan: dict, p: LaunchPreview) -> Any:
    """Start the plan like `rocm-tune run --plan --with RUNNER --dataset PATH`; returns the RunInfo."""
    from rocm_tune.commands.run import start_plan

    return start_plan(plan, name=p.name, runner=p.runner, dataset=p.dataset)
