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
"""

from __future__ import annotations

import re

from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import LF_YAML, ExportOptions, Resolved, comment, q, trainer_argv
from rocm_tune.core.export.launch import lf_python_ref, python_ref
from rocm_tune.core.export.shell import env_lines, header

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


def render(r: Resolved, opts: ExportOptions) -> str:
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
    lines += header(r, opts, "Slurm batch script")
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
    env = env_lines(r.env, skip_devices=True)
    if env:
        lines.append("# environment from the plan (devices come from --gres)")
        lines += env
        lines.append("")
    lines += [
        'MASTER_ADDR="$(scontrol show hostnames "$SLURM_JOB_NODELIST" | sed -n 1p)"',
        "export MASTER_ADDR",
        f'export MASTER_PORT="${{MASTER_PORT:-{opts.master_port}}}"',
        'echo "rocm-tune: $SLURM_JOB_NUM_NODES node(s), rendezvous at $MASTER_ADDR:$MASTER_PORT"',
        "",
    ]
    prog = trainer_argv(r)
    cmd = [
        "srun --kill-on-bad-exit=1 --ntasks-per-node=1",
        f'{_torchrun(r)} --nnodes "$SLURM_JOB_NUM_NODES" --nproc_per_node {r.gpus}',
        '--rdzv_id "$SLURM_JOB_ID" --rdzv_backend c10d --rdzv_endpoint "$MASTER_ADDR:$MASTER_PORT"',
        " ".join(q(a) for a in prog),
    ]
    lines.append(" \\\n  ".join(cmd))
    return "\n".join(lines) + "\n"
