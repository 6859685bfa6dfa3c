"""Resume from the app's checkpoint list, exactly as `rocm-tune resume RUN [--checkpoint DIR]` (no widgets here).

`checkpoints(ref)` lists a run's checkpoint-N folders with `core.runs.resume.resume.find_checkpoints` (each checked for
completeness: a checkpoint cut short by a kill is marked and why); `prepare(ref, checkpoint)` is
`core.runs.resume.resume.prepare_resume` (its checks and refusals, word for word); `start(r)` is `resume_run` (the run
starts again detached in its own directory: one history, the step count continued). Called from thread workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CheckpointList:
    run_id: str
    output_dir: str | None
    checkpoints: tuple        # core.runs.resume.resume.Checkpoint, newest first
    problem: str | None = None   # why the run's checkpoints cannot be found (the UserError's line)


def checkpoints(ref: str) -> CheckpointList:
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runs import rundir as rd
    from rocm_tune.core.runs.registry import find_run
    from rocm_tune.core.runs.resume.resume import find_checkpoints, run_target

    info = find_run(ref)
    d = Path(info.dir)
    meta = rd.read_json(d / rd.RUN_JSON, {}) or {}
    try:
        target = run_target(meta, d)
    except UserError as exc:
        return CheckpointList(info.id, None, (), str(exc))
    return CheckpointList(info.id, target.output_dir, tuple(find_checkpoints(target.output_dir)))


def prepare(ref: str, checkpoint: str | None = None, *, gpus: int | None = None, nodes: int | None = None) -> Any:
    """`rocm-tune resume REF [--checkpoint DIR] [--gpus N] [--nodes N] --dry-run`: the Resume, or the UserError
    saying why not."""
    from rocm_tune.core.runs.resume.resume import prepare_resume

    return prepare_resume(ref, checkpoint=checkpoint, gpus=gpus, nodes=nodes)


def describe(r: Any, gpus: int | None = None, nodes: int | None = None) -> str:
    """The confirmation text (Rich markup, values escaped)."""
    from rich.markup import escape

    ck = r.checkpoint
    out = [f"[b]from[/b]     {escape(ck.path)}  (step {ck.global_step if ck.global_step is not None else ck.step})",
           f"[b]run dir[/b]  {escape(r.run_dir)}  (the same run: one history, the step count continues)"]
    if r.micro_batch and r.grad_accum:
        out.append(f"[b]batch[/b]    micro-batch {r.micro_batch} x accumulation {r.grad_accum}"
                   + (f" x {r.world_after} GPU(s) = {r.effective_batch}" if r.effective_batch else ""))
    out.append(f"[b]command[/b]  {escape(' '.join(r.command))}")
    out += [f"[b]note[/b]     {escape(n)}" for n in r.notes]
    size = (f" --gpus {gpus}" if gpus else "") + (f" --nodes {nodes}" if nodes else "")
    out.append(f"[b]same as[/b]  rocm-tune resume {escape(r.run_id)} --checkpoint {escape(ck.path)}{escape(size)}")
    out.append("Detached: quitting this app leaves the run going.")
    return "\n".join(out)


def start(r: Any) -> Any:
    """Start it (`resume_run`) under the run's resume lock, as `rocm-tune resume` does; returns the RunInfo.
    UserError (one line) when another resume holds the lock or has started the run meanwhile."""
    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runs.registry import find_run
    from rocm_tune.core.runs.resume.resume import resume_lock, resume_run

    with resume_lock(r.run_dir, r.run_id):
        now = find_run(r.run_id)
        if now.status == "running" or now.processes:
            raise UserError(f"run {r.run_id} is running again (another resume started it); nothing was started")
        return resume_run(r)
