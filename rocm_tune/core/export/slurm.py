"""Slurm batch script: one task per node (``srun``) running ``torchrun`` with c10d rendezvous.

``MASTER_ADDR`` is the first host of the allocation (``scontrol show hostnames``); every node's
torchrun joins the rendezvous at ``MASTER_ADDR:MASTER_PORT`` with the job id as rendezvous id, so
node ranks are assigned automatically. Slurm runs a spooled copy of the script, so its own location
says nothing: the script changes into the bundle's absolute directory (known at export), and
``sbatch DIR/slurm.sbatch`` works from any directory (``SLURM_SUBMIT_DIR`` only when the bundle's
directory was not known). The first host is taken with ``sed -n 1p``, which reads all of
``scontrol``'s output (``head -n 1`` exits early and, under pipefail, the SIGPIPE of a long node list
ends the script with 141). Devices come from ``--gres``; the plan's *_VISIBLE_DEVICES are
left to Slurm.

Time limits and preemption (issue 21): ``--signal=B:USR1@LEAD`` makes Slurm warn the batch script LEAD seconds
before the time limit (LEAD = 3 x a measured checkpoint save of this plan + one step, at least 120 s; the saves are
timed by the save-on-signal callback into rocm-tune-saves.jsonl of the run dir or the bundle's output dir; without
one, 3 x the planned checkpoint size at 200 MB/s + one planned step: `core.memory.checkpoint_size.signal_lead`); the script's trap (also on SIGTERM, what a preempting scheduler sends) writes
OUTPUT_DIR/.rocm-tune-save-now, which the save-on-signal callback of every rank reads at each step end
(`rocm_tune/train/callbacks.py`; a file reaches every rank of every node, a signal to srun/torchrun does not): the
training saves a checkpoint at the end of that step and stops. The script waits for it, then ``scontrol requeue``
(``--requeue``); the restarted job (``SLURM_RESTART_COUNT`` > 0) passes ``overwrite_output_dir=false`` so
LLaMA-Factory resumes from the newest checkpoint (the built-in trainer: ``--resume``). ``--open-mode=append``
keeps every attempt in one log.
"""

from __future__ import annotations

import re

from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import HANG_ENV, LF_YAML, ExportOptions, Resolved, comment, q, trainer_argv
from rocm_tune.core.export.launch import lf_python_ref, python_ref
from rocm_tune.core.export.shell import env_lines, header

SAVE_NOW_FILE = ".rocm-tune-save-now"  # rocm_tune.train.callbacks.SAVE_NOW_FILE (train imports no core, and back)
_SBATCH_VALUE = re.compile(r"^[A-Za-z0-9_.:,+@/=%-]+$")


def _sbatch(flag: str, value) -> str:
    text = str(value)
    if not _SBATCH_VALUE.match(text):
        raise UserError(f"slurm {flag} value {text!r} has characters sbatch would misread; use letters, digits and _.:,+@/=-")
    return f"#SBATCH --{flag}={text}"


def _torchrun(r: Resolved) -> str:
    """LLaMA-Factory: its torchrun; the built-in trainer: torchrun of the interpreter that made the bundle."""
    if r.runner == "llamafactory":
        return f"{lf_python_ref().shell()} -m torch.distributed.run"
    return f"{python_ref(r).shell()} -m torch.distributed.run"


def render(r: Resolved, opts: ExportOptions, plan: dict | None = None) -> str:
    from rocm_tune.core.memory.checkpoint_size import signal_lead
    from rocm_tune.core.export.llamafactory import in_bundle

    out_dir = in_bundle(opts, opts.output_dir)
    # the warning's lead: from a measured save of this plan (the bundle's output dir, or a run of the same plan)
    lead, lead_why = signal_lead(plan, (out_dir,) if opts.bundle_dir else ())
    lines = _directives(r, opts, lead) + header(r, opts, "Slurm batch script") + _cd(opts) + _environment(r, opts)
    lines += _trap(r, lead, lead_why, out_dir) + _launch(r)
    return "\n".join(lines) + "\n"


def _directives(r: Resolved, opts: ExportOptions, lead: int) -> list[str]:
    lines = ["#!/usr/bin/env bash"]
    lines.append(_sbatch("job-name", opts.job_name))
    lines.append(_sbatch("nodes", r.nodes))
    lines.append(_sbatch("ntasks-per-node", 1))
    lines.append(_sbatch("gres", f"{opts.gres}:{r.gpus}"))
    lines.append(_sbatch("cpus-per-task", opts.cpus_per_task))
    lines.append(_sbatch("time", opts.time_limit))
    if opts.partition:
        lines.append(_sbatch("partition", opts.partition))
    if opts.account:
        lines.append(_sbatch("account", opts.account))
    lines.append(_sbatch("output", "slurm-%x-%j.out"))
    lines.append(_sbatch("open-mode", "append"))
    lines.append(_sbatch("signal", f"B:USR1@{lead}"))
    lines.append("#SBATCH --requeue")
    return lines


def _cd(opts: ExportOptions) -> list[str]:
    lines: list[str] = []
    if opts.bundle_dir:
        lines += [
            f"# Submit from any directory: sbatch {comment(opts.bundle_dir)}/slurm.sbatch",
            "set -euo pipefail",
        ]
        if "$" in opts.bundle_dir or "`" in opts.bundle_dir:
            lines.append("# shellcheck disable=SC2016  # a literal path: nothing in it is expanded")
        lines.append(f"cd {q(opts.bundle_dir)}")
    else:
        lines += [
            "# Submit from the bundle directory: sbatch slurm.sbatch",
            "set -euo pipefail",
            'cd "${SLURM_SUBMIT_DIR:-.}"',
        ]
    lines += [
        f"if [ ! -f {q(LF_YAML)} ]; then",
        f"  echo \"slurm.sbatch: {LF_YAML} not found in $PWD; submit from the bundle directory\" >&2",
        "  exit 2",
        "fi",
        "",
    ]
    return lines


def _environment(r: Resolved, opts: ExportOptions) -> list[str]:
    lines: list[str] = []
    env = env_lines(r.env, skip_devices=True)
    if env:
        lines.append("# environment from the plan (devices come from --gres)")
        lines += env
        lines.append("")
    if r.world_size > 1:
        lines.append(f"# a hung collective ends the job: ddp_timeout ({opts.ddp_timeout} s) covers preprocessing and "
                     f"model load, then {HANG_ENV} once the Trainer is built")
        lines.append(f"# ({comment(r.hang_why)})")
        lines.append(f"export {HANG_ENV}={r.hang_timeout}")
        lines.append("")
    lines += [
        'MASTER_ADDR="$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)"',
        "export MASTER_ADDR",
        f'export MASTER_PORT="${{MASTER_PORT:-{opts.master_port}}}"',
        'echo "rocm-tune: $SLURM_JOB_NUM_NODES node(s), rendezvous at $MASTER_ADDR:$MASTER_PORT"',
        "",
    ]
    return lines


def _trap(r: Resolved, lead: int, lead_why: str, out_dir: str) -> list[str]:
    lines: list[str] = []
    resume_arg = "overwrite_output_dir=false" if r.runner == "llamafactory" else "--resume"
    lines += [
        f"# time limit / preemption: Slurm sends USR1 {lead} s before the limit (--signal), a preempting",
        "# scheduler SIGTERM; the trap asks every rank to save at the end of its step and stop, then requeues the job",
        f"# --signal lead {lead} s: {comment(lead_why)}",
        f"OUTPUT_DIR={q(out_dir)}",
        f'SAVE_NOW="$OUTPUT_DIR/{SAVE_NOW_FILE}"',
        'rm -f "$SAVE_NOW"',
        "requeue=0",
        "# shellcheck disable=SC2317  # run by the trap",
        "on_warning() {",
        '  echo "rocm-tune: time limit or preemption: saving a checkpoint at the next step, then requeue"',
        '  requeue=1',
        '  mkdir -p "$OUTPUT_DIR" && touch "$SAVE_NOW"',
        "}",
        "trap on_warning USR1 TERM",
        "resume=()",
        'if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then',
        f'  resume=({resume_arg})',
        '  echo "rocm-tune: restart $SLURM_RESTART_COUNT: resuming from the newest checkpoint in $OUTPUT_DIR"',
        "fi",
        "",
    ]
    return lines


def _launch(r: Resolved) -> list[str]:
    lines: list[str] = []
    prog = trainer_argv(r)
    cmd = [
        "srun --kill-on-bad-exit=1 --ntasks-per-node=1",
        f'{_torchrun(r)} --nnodes "$SLURM_JOB_NUM_NODES" --nproc_per_node {r.gpus}',
        '--rdzv_id "$SLURM_JOB_ID" --rdzv_backend c10d --rdzv_endpoint "$MASTER_ADDR:$MASTER_PORT"',
        " ".join(q(a) for a in prog) + ' ${resume[@]+"${resume[@]}"} &',
    ]
    lines.append(" \\\n  ".join(cmd))
    lines += [
        'train_pid=$!',
        "rc=0",
        "while :; do",
        '  wait "$train_pid" && rc=0 || rc=$?',
        '  kill -0 "$train_pid" 2>/dev/null || break  # a trap interrupted the wait: the training still saves',
        "done",
        'rm -f "$SAVE_NOW"',
        'if [ "$requeue" = 1 ]; then',
        '  echo "rocm-tune: requeueing job $SLURM_JOB_ID (training exit code $rc)"',
        '  scontrol requeue "$SLURM_JOB_ID"',
        "  exit 0",
        "fi",
        'exit "$rc"',
    ]
    return lines
