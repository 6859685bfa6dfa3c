"""`run.sh`: the environment the plan needs and the launcher, every value shell-quoted.

The script changes into its own directory first, so the bundle's relative file names
(llamafactory.yaml, deepspeed.json, accelerate.yaml, dataset_info.json) resolve wherever it is
started from; extra arguments are passed on to the trainer (`bash run.sh learning_rate=5.0e-5` for
LLaMA-Factory). Passes `bash -n` and shellcheck.
"""

from __future__ import annotations

from rocm_tune.core.export.common import (
    ACCEL_YAML,
    HOSTFILE,
    LF_YAML,
    ExportOptions,
    Resolved,
    comment,
    q,
    trainer_module,
    visible_devices,
)

MASTER_ADDR_REQUIRED = '"${MASTER_ADDR:?set MASTER_ADDR to the address of node 0}"'


def header(r: Resolved, plan: dict, opts: ExportOptions, what: str) -> list[str]:
    ver = f" {opts.tool_version}" if opts.tool_version else ""
    lines = [
        f"# {what}, written by rocm-tune{ver} export from plan.json",
        "# " + comment(
            f"model {r.model_name}: {r.method} ({r.stage}), {r.precision}, cutoff_len {r.cutoff_len}, "
            f"micro-batch {r.micro_batch} x accumulation {r.grad_accum} on {r.gpus} x {r.gpu_name}"
            + (f" x {r.nodes} nodes" if r.nodes > 1 else "")
        ),
    ]
    warnings = plan.get("warnings") if isinstance(plan.get("warnings"), list) else []
    for w in warnings:
        if isinstance(w, dict):
            code = comment(w.get("code", "warning"))
            msg = comment(w.get("message", ""))
            fix = comment(w.get("fix", ""))
            lines.append(f"# warning [{code}]: {msg}" + (f" Fix: {fix}" if fix else ""))
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


def launch_command(r: Resolved, opts: ExportOptions) -> list[str]:
    """The launcher as lines of one shell command (joined with ` \\`)."""
    port = q(opts.master_port)
    mod = trainer_module(opts)
    module_args = " ".join(q(a) for a in mod)
    if r.launcher == "llamafactory-cli":
        return [f"llamafactory-cli train {q(LF_YAML)} \"$@\""]
    if r.launcher == "rocm-tune" and r.world_size == 1:
        return [f"rocm-tune train {q(LF_YAML)} \"$@\""]
    if r.launcher in ("torchrun", "rocm-tune"):
        if r.launcher == "rocm-tune":
            module_args = " ".join(q(a) for a in ["rocm_tune", "train", LF_YAML])
        if r.nodes == 1:
            return [f"torchrun --standalone --nnodes 1 --nproc_per_node {r.gpus}", f"-m {module_args} \"$@\""]
        return [
            f"torchrun --nnodes {r.nodes} --nproc_per_node {r.gpus} --node_rank \"${{NODE_RANK:-0}}\"",
            f"--master_addr {MASTER_ADDR_REQUIRED} --master_port {port}",
            f"-m {module_args} \"$@\"",
        ]
    if r.launcher == "deepspeed":
        devices = visible_devices(r.env)
        if r.nodes > 1:
            # --no_ssh: every node starts only its own processes (node NODE_RANK), as with torchrun; the
            # shipped hostfile gives DeepSpeed the node count and slots per node (names are not used)
            first = [
                f"deepspeed --hostfile {q(HOSTFILE)} --no_ssh --node_rank \"${{NODE_RANK:-0}}\" "
                f"--num_nodes {r.nodes} --num_gpus {r.gpus}",
                f"--master_addr {MASTER_ADDR_REQUIRED} --master_port {port}",
            ]
        elif devices:
            # the deepspeed launcher ignores *_VISIBLE_DEVICES; --include picks the same GPUs
            first = [f"deepspeed --include {q('localhost:' + devices)} --master_port {port}"]
        else:
            first = [f"deepspeed --num_gpus {r.gpus} --master_port {port}"]
        # --no_local_rank: without it the launcher passes --local_rank=N before the YAML and LLaMA-Factory
        # parses argv instead of the YAML ("Some specified arguments are not used by the HfArgumentParser")
        return first + [f"--no_local_rank --module {module_args} \"$@\""]
    if r.launcher == "accelerate":
        first = [f"accelerate launch --config_file {q(ACCEL_YAML)}"]
        if r.nodes > 1:
            first.append(
                f"--machine_rank \"${{NODE_RANK:-0}}\" --main_process_ip {MASTER_ADDR_REQUIRED} "
                f"--main_process_port {port}"
            )
        return first + [f"-m {module_args} \"$@\""]
    raise AssertionError(r.launcher)


def render(r: Resolved, plan: dict, opts: ExportOptions) -> str:
    lines = ["#!/usr/bin/env bash"]
    lines += header(r, plan, opts, "Training launcher")
    lines += [
        "# Usage: bash run.sh [extra trainer arguments]" + ("  (on every node, with NODE_RANK and MASTER_ADDR set)"
                                                          if r.nodes > 1 else ""),
        "set -euo pipefail",
        'cd "$(dirname "${BASH_SOURCE[0]}")"',
        "",
    ]
    env = env_lines(r.env)
    if env:
        lines.append("# environment from the plan")
        lines += env
        lines.append("")
    if r.launcher == "llamafactory-cli" and (r.world_size > 1 or r.uses_deepspeed):
        lines.append("# llamafactory-cli starts torchrun itself when FORCE_TORCHRUN=1 (needed for DeepSpeed too)")
        lines.append("export FORCE_TORCHRUN=1")
        lines.append(f"export NNODES={r.nodes}")
        lines.append(f"export NPROC_PER_NODE={r.gpus}")
        if r.nodes > 1:
            lines.append('export NODE_RANK="${NODE_RANK:-0}"')
            lines.append(f"export MASTER_ADDR={MASTER_ADDR_REQUIRED}")
            lines.append(f'export MASTER_PORT="${{MASTER_PORT:-{opts.master_port}}}"')
        lines.append("")
    if r.launcher == "deepspeed" and r.nodes > 1:
        lines.append(f"# deepspeed --no_ssh: run this on every node with its NODE_RANK (0-{r.nodes - 1}); each node "
                     f"starts its {r.gpus} local process(es). {HOSTFILE} only tells DeepSpeed the node and slot counts")
    cmd = launch_command(r, opts)
    lines.append("exec " + " \\\n  ".join(cmd))
    return "\n".join(lines) + "\n"
