"""Start a plan as a detached run: `launch_plan(plan, ...)` (behind `rocm-tune run --plan` and the app's ctrl+l).

1. `prepare_plan_launch` checks everything before anything is registered: the plan (every field, finite
   numbers), the runner (`--runner`, else the plan's; with neither asked for and LLaMA-Factory not
   installed, the built-in trainer when it can train the plan), the dataset, and that the command
   resolves (LLaMA-Factory's Python: `$LLAMAFACTORY_PYTHON`, else the interpreter of `llamafactory-cli` on
   PATH; the recorded Python executable of the built-in trainer). A bad plan never leaves a registered run
   behind.
2. `launch_plan` creates the run directory, exports the plan into RUN_DIR/bundle (run.sh,
   llamafactory.yaml, deepspeed.json when ZeRO, dataset_info.json; training output in RUN_DIR/output)
   and starts the bundle's `LaunchSpec` (the argv and environment run.sh would start, in the bundle
   directory) through `rocm_tune.core.runs.launch.launcher.start_run`.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from rocm_tune.core.errors import UserError
from rocm_tune.core.export.bundle import Bundle, build_bundle, write_bundle
from rocm_tune.core.export.common import BUILTIN_STAGES, LF_PYTHON_ENV, ExportOptions, check_runner
from rocm_tune.core.plan.plan import Plan
from rocm_tune.core.runs import rundir as rd

BUNDLE_DIR = "bundle"
OUTPUT_DIR = "output"
_PLACEHOLDER = "/RUN_DIR"  # the run directory before it exists (what the checks and the preview show)


@dataclass(frozen=True)
class PlanLaunch:
    """What `launch_plan` will start (the app's confirmation shows it)."""

    plan: Plan
    runner: str          # llamafactory | builtin
    why: str             # why this runner
    dataset: str         # absolute path of the dataset file / folder
    name: str            # run name
    argv: tuple[str, ...]        # the command, as started (in RUN_DIR/bundle)
    env: tuple[tuple[str, str], ...]  # set for it: the plan's variables, the launcher's, then --env
    user_env: tuple[tuple[str, str], ...]
    python: str | None
    bundle: Bundle       # rendered with RUN_DIR = /RUN_DIR (the preview); written again for the real dir


def _installed(program: str, environ: Mapping[str, str]) -> str | None:
    return shutil.which(program, path=environ.get("PATH", os.defpath))


def _check_command(argv0: str, environ: Mapping[str, str], runner: str) -> None:
    """The command must resolve before anything is started: one line naming what is missing."""
    if os.sep in argv0:
        if not (os.path.isfile(argv0) and os.access(argv0, os.X_OK)):
            raise UserError(f"cannot run the {runner} trainer: {argv0} is not an executable Python; "
                            "pass --python PATH (or set ROCM_TUNE_PYTHON)")
        return
    if _installed(argv0, environ) is None:
        fix = {"llamafactory-cli": "pip install llamafactory, or --runner builtin"}.get(argv0, "install it")
        raise UserError(f"{argv0} is not on PATH ({fix})")


def lf_python(environ: Mapping[str, str]) -> str | None:
    """The Python that has LLaMA-Factory: $LLAMAFACTORY_PYTHON, else the interpreter named by the `#!` line of
    `llamafactory-cli` on PATH (pip writes the venv's python there); None when neither is there."""
    given = environ.get(LF_PYTHON_ENV)
    if given:
        return given
    cli = _installed("llamafactory-cli", environ)
    if cli is None:
        return None
    try:
        with open(cli, "rb") as fh:
            first = fh.readline(512).decode("utf-8", "replace")
    except OSError:
        return None
    words = first[2:].split() if first.startswith("#!") else []
    if words and os.path.basename(words[0]) == "env" and len(words) > 1:
        words = [_installed(words[1], environ) or ""]
    if words and os.path.isabs(words[0]) and os.access(words[0], os.X_OK):
        return words[0]
    return _installed("python3", environ)


def _choose_runner(plan: Plan, runner: str | None, environ: Mapping[str, str]) -> tuple[str, str]:
    if runner is not None:
        return check_runner(runner), f"--runner {runner}"
    planned = plan.recommended.runner
    if planned != "llamafactory":
        return planned, f"the plan's runner is {planned}"
    lf = _installed("llamafactory-cli", environ)
    if lf:
        return "llamafactory", f"llamafactory-cli found at {lf}"
    if plan.goal.stage not in BUILTIN_STAGES:
        raise UserError(f"stage {plan.goal.stage!r} needs LLaMA-Factory, and llamafactory-cli is not on PATH "
                        "(pip install llamafactory)")
    return "builtin", "the plan's runner is llamafactory, but llamafactory-cli is not on PATH"


def _options(runner: str, run_dir: str, python: str | None) -> ExportOptions:
    return ExportOptions(runner=runner, python=python, output_dir=os.path.join(run_dir, OUTPUT_DIR), logging_steps=1)


def prepare_plan_launch(plan: Plan, *, name: str | None = None, env: Mapping[str, str] | None = None,
                        runner: str | None = None, dataset: str | None = None,
                        python: str | None = None) -> PlanLaunch:
    """Check a plan launch and say what it would start; UserError (one line) when it cannot start."""
    user_env = dict(env or {})
    environ = {**os.environ, **user_env}
    chosen, why = _choose_runner(plan, runner, environ)
    if chosen == "llamafactory":
        py = lf_python(environ)
        if py is None:
            raise UserError("llamafactory-cli is not on PATH (pip install llamafactory, or set LLAMAFACTORY_PYTHON to "
                            "the Python that has it, or --runner builtin)")
        user_env.setdefault(LF_PYTHON_ENV, py)   # the bundle's lf_launch.py runs in LLaMA-Factory's Python
        environ[LF_PYTHON_ENV] = user_env[LF_PYTHON_ENV]
    data = dataset or plan.goal.dataset
    if not data:
        raise UserError("the plan names no dataset (goal.dataset); give one with --dataset PATH")
    path = os.path.abspath(os.path.expanduser(str(data)))
    if not os.path.exists(path):
        raise UserError(f"dataset {data!r} does not exist")
    bundle = build_bundle(plan, ("sh",), _options(chosen, _PLACEHOLDER, python), dataset=path)
    spec = bundle.launch
    argv, launch_env = spec.resolve(environ)
    _check_command(argv[0], {**environ, **launch_env}, chosen)
    run_name = name or plan.model.name or "plan"
    return PlanLaunch(plan=plan, runner=chosen, why=why, dataset=path, name=run_name, argv=tuple(argv),
                      env=tuple({**launch_env, **user_env}.items()), user_env=tuple(user_env.items()),
                      python=python, bundle=bundle)


def launch_plan(plan: Plan, *, name: str | None = None, run_dir: str | None = None,
                env: Mapping[str, str] | None = None, runner: str | None = None, dataset: str | None = None,
                python: str | None = None, prepared: PlanLaunch | None = None, force: bool = False) -> rd.RunInfo:
    """Export `plan` into a new run directory and start it detached; returns the running RunInfo.
    `prepared` (from prepare_plan_launch, e.g. what the app showed) skips the checks made there.

    In an existing `run_dir`, a plan.json or a file of the bundle already there (a symlink, even a
    dangling one, included) is refused before anything is written, unless `force` (then the file or
    link itself is replaced, never a link's target). A launch that fails removes only what it made."""
    from rocm_tune.core.runs.launch.launcher import start_run
    from rocm_tune.core.runs.registry import runs_root

    p = prepared or prepare_plan_launch(plan, name=name, env=env, runner=runner, dataset=dataset, python=python)
    existed = False
    top: Path | None = None  # the highest folder create_run_dir will make for a new --dir
    bundle_before: set[str] | None = None  # names in RUN_DIR/bundle before (None: no such folder)
    if run_dir is not None:
        from rocm_tune.core.files import directory_path

        where = directory_path(run_dir, "--dir")
        existed = where.is_dir()
        bundle_before = _check_bundle_dir(where / BUNDLE_DIR, p.bundle, force) if existed else None
        if not existed:
            top = where
            while not os.path.lexists(top.parent) and top.parent != top:
                top = top.parent
    run_id, d = rd.create_run_dir(list(p.argv), name=p.name, run_dir=run_dir, cwd=None, env=dict(p.env),
                                  kind="plan", plan=p.plan.to_dict(), force=force)
    try:
        bundle = build_bundle(p.plan, ("sh",), _options(p.runner, str(d), p.python), dataset=p.dataset)
        write_bundle(bundle, str(d / BUNDLE_DIR), force=force)
        argv, launch_env = bundle.launch.resolve({**os.environ, **dict(p.user_env)})
        rd.update_run_json(d, command=argv, cwd=str(d / BUNDLE_DIR), env={**launch_env, **dict(p.user_env)})
        if p.runner != "llamafactory":
            (d / rd.METRICS_JSONL).touch()  # the built-in trainer writes it; monitors pick it from the start
    except BaseException:
        _forget(run_id, d, existed, runs_root() if run_dir is not None else None, bundle_before, p.bundle)
        if top is not None and top != d:
            rd.remove_empty_dirs(d.parent, top)
        raise
    return start_run(d)


def _check_bundle_dir(b: Path, bundle: Bundle, force: bool) -> set[str] | None:
    """The names in an existing RUN_DIR/bundle (None when there is none); UserError when it is not a
    folder, or (without force) when it holds anything (a file of the bundle first)."""
    from rocm_tune.core.files import existing

    there = existing(b)
    if there is None:
        return None
    if there != "exists" or not b.is_dir():
        raise UserError(f"{str(b)!r} {'exists and is not a directory' if there == 'exists' else there}; "
                        "choose an empty or new --dir")
    try:
        names = set(os.listdir(b))
    except OSError as exc:
        raise UserError(f"cannot read {str(b)!r}: {exc.strerror or exc}") from None
    taken = sorted(n for n in bundle.files if n in names)
    if taken and not force:
        more = f" (and {len(taken) - 1} more)" if len(taken) > 1 else ""
        raise UserError(f"{str(b / taken[0])!r} already exists{more}; pass --force to overwrite the bundle's "
                        "files, or choose an empty or new --dir")
    if names and not force:
        raise UserError(f"{str(b)!r} already holds files ({', '.join(sorted(names)[:3])}); pass --force to write "
                        "the bundle into it, or choose an empty or new --dir")
    return names


def _forget(run_id: str, d: Path, existed: bool, registry: Path | None, bundle_before: set[str] | None = None,
            bundle: Bundle | None = None) -> None:
    """Undo a run directory that was never started (nothing of it may stay registered). Only what
    this launch made goes: in a directory that existed, the run's files and the bundle's files that
    were not there before (the whole bundle folder only when this launch made it)."""
    if not existed:
        shutil.rmtree(d, ignore_errors=True)
    else:
        b = d / BUNDLE_DIR
        if bundle_before is None:
            shutil.rmtree(b, ignore_errors=True)
        else:
            for n in (bundle.files if bundle is not None else ()):
                if n not in bundle_before:
                    try:
                        (b / n).unlink()
                    except OSError:
                        pass
        rd.discard_run_dir(d, run_id, created=False, root=registry)
    if registry is not None:
        try:
            (registry / f"{run_id}.json").unlink()
        except OSError:
            pass
