"""`run.sh`: the environment the plan needs and the launcher, every value shell-quoted.

The script changes into its own directory first, so the bundle's relative file names
(llamafactory.yaml, deepspeed.json, accelerate.yaml, dataset_info.json) resolve wherever it is
started from; extra arguments are passed on to the trainer (`bash run.sh learning_rate=5.0e-5` for
LLaMA-Factory). Passes `bash -n` and shellcheck.
"""

from __future__ import annotations

from rocm_tune.core.export.common import (
    HOSTFILE,
    HANG_ENV,
    LF_LAUNCH,
    LF_PYTHON_ENV,
    PYTHON_ENV,
    ExportOptions,
    Resolved,
    comment,
    q,
)
from rocm_tune.core.export.datasets import run_sh_comment
from rocm_tune.core.export.launch import LaunchSpec, python_ref, shell_word


def header(r: Resolved, opts: ExportOptions, what: str) -> list[str]:
    ver = f" {opts.tool_version}" if opts.tool_version else ""
    lines = [
        f"# {what}, written by rocm-tune{ver} export from plan.json",
        "# " + comment(
            f"model {r.model_name}: {r.method} ({r.stage}), {r.precision}, cutoff_len {r.cutoff_len}, "
            f"micro-batch {r.micro_batch} x accumulation {r.grad_accum} on {r.gpus} x {r.gpu_name}"
            + (f" x {r.nodes} nodes" if r.nodes > 1 else "")
        ),
    ]
    for i, line in enumerate(r.execution):
        lines.append(f"# {'executes:' if i == 0 else '  '} {comment(line)}")
    for code, message, fix in r.warnings:
        lines.append(f"# warning [{comment(code)}]: {comment(message)}" + (f" Fix: {comment(fix)}" if fix else ""))
    for note in r.notes:
        lines.append(f"# note: {comment(note)}")
    return lines


def env_lines(env: dict, skip_devices: bool = False) -> list[str]:
    out = []
    for k in sorted(env):
        if skip_devices and k in ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"):
            continue
        value = q(env[k])
        if "$" in env[k] or "`" in env[k]:
            out.append("# shellcheck disable=SC2016  # a literal value: nothing in it is expanded")
        out.append(f"export {k}={value}")
    return out


def render(r: Resolved, opts: ExportOptions, spec: LaunchSpec) -> str:
    """run.sh: the plan's environment, then `spec` (the same command `rocm-tune run --plan` starts)."""
    lines = ["#!/usr/bin/env bash"]
    lines += header(r, opts, "Training launcher")
    lines += run_sh_comment(opts, r.runner)  # where `dataset:` is resolved
    lines += [
        "# Usage: bash run.sh [extra trainer arguments]" + ("  (on every node, with NODE_RANK and MASTER_ADDR set)"
                                                          if r.nodes > 1 else ""),
        "set -euo pipefail",
        'cd "$(dirname "${BASH_SOURCE[0]}")"',
        "",
    ]
    env = env_lines(dict(spec.plan_env))
    if env:
        lines.append("# environment from the plan")
        lines += env
        lines.append("")
    if spec.launcher_env:
        if any(k == HANG_ENV for k, _ in spec.launcher_env):
            lines.append(f"# a hung collective ends the job: ddp_timeout ({opts.ddp_timeout} s) covers preprocessing and "
                         f"model load, then {HANG_ENV} once the Trainer is built")
            lines.append(f"# ({comment(r.hang_why)})")
        lines += [f"export {k}={shell_word(v)}" for k, v in spec.launcher_env]
        lines.append("")
    if r.launcher == "deepspeed" and r.nodes > 1:
        lines.append(f"# deepspeed --no_ssh: run this on every node with its NODE_RANK (0-{r.nodes - 1}); each node "
                     f"starts its {r.gpus} local process(es). {HOSTFILE} only tells DeepSpeed the node and slot counts")
    if r.runner != "llamafactory":
        py = python_ref(r).shell()
        lines += [
            f"# the built-in trainer runs in the Python that wrote this bundle; {PYTHON_ENV} overrides it",
            f"if ! command -v {py} >/dev/null; then",
            f'  echo "run.sh: cannot run {py[1:-1]}; set {PYTHON_ENV} to a Python with rocm-tune installed" >&2',
            "  exit 127",
            "fi",
        ]
    if r.runner == "llamafactory":
        lines += [
            f"# LLaMA-Factory runs through {LF_LAUNCH} (beside this script): LLaMA-Factory's own training, plus",
            "# measured memory and parameter dtypes per rank in $ROCM_TUNE_RUN_DIR/ranks (else OUTPUT_DIR/ranks)"
            + (f" and the {r.compute_pin} pin" if r.compute_pin else ""),
            f"# {LF_PYTHON_ENV}: the Python that has LLaMA-Factory (default python3 of the active environment)",
        ]
    lines.append("exec " + " \\\n  ".join(spec.shell_lines()))
    return "\n".join(lines) + "\n"

