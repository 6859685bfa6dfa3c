"""`--format axolotl`: axolotl.yaml (written by `rocm_tune.core.runners.axolotl.write`, the runner's home, which
reads the same keys back) and axolotl.sh, the launch: `accelerate launch ... -m axolotl.cli.train axolotl.yaml`
from the bundle directory (Axolotl's own documented multi-GPU command; one GPU is `--num_processes 1`).

The dataset is the export's (`--dataset FILE`, or `--dataset-name` in a dataset_info.json folder readable here,
or names on the hub with `--dataset-dir ONLINE`): its LLaMA-Factory entry (columns, sharegpt tags) becomes an
Axolotl `datasets:` item. ZeRO plans name the bundle's deepspeed.json (the estimate's own buckets and offload).
What Axolotl cannot express is refused in one line (exit 2), never written wrong."""

from __future__ import annotations

import json
import os

from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import DATASET_INFO, DS_JSON, ExportOptions, Resolved, comment, q
from rocm_tune.core.export.datasets import is_hub_dir, resolve_named
from rocm_tune.core.export.llamafactory import in_bundle
from rocm_tune.core.runners import axolotl as runner

YAML_FILE = runner.YAML_FILE
SCRIPT = "axolotl.sh"


def _datasets(r: Resolved, opts: ExportOptions, extra_files: dict) -> list[dict]:
    """The Axolotl `datasets:` items of the export's dataset(s)."""
    if not opts.dataset_name:
        raise UserError(f"{YAML_FILE} needs a dataset: pass --dataset FILE, or --dataset-name NAME with "
                        "--dataset-dir DIR (a dataset_info.json folder) or --dataset-dir ONLINE (hub ids)")
    names = [n.strip() for n in opts.dataset_name.split(",")]
    if opts.dataset_dir and is_hub_dir(opts.dataset_dir):
        return [runner.dataset(n, {}, r.stage) for n in names]
    if opts.dataset_dir == "." and DATASET_INFO in extra_files:     # --dataset FILE: its entry in this bundle
        entries, folder = json.loads(extra_files[DATASET_INFO]), opts.bundle_dir or "."
    else:
        nd = resolve_named(opts.dataset_name, opts.dataset_dir, bundle_dir=opts.bundle_dir)
        if not nd.checked:
            raise UserError(f"{YAML_FILE}: dataset {opts.dataset_name!r}: its dataset_info.json is not readable here, "
                            "and Axolotl needs the data file and its columns; pass --dataset FILE, or --dataset-dir "
                            "with the folder")
        entries, folder = nd.entries, os.path.dirname(str(nd.info))
    out = []
    for n in names:
        e = entries[n]
        if not e.get("file_name"):
            raise UserError(f"{YAML_FILE}: dataset {n!r} has no file_name (a hub or script entry): pass --dataset "
                            "FILE, or --dataset-dir ONLINE with its hub id")
        path = os.path.join(folder, str(e["file_name"]))
        out.append(runner.dataset(path if os.path.isabs(path) else os.path.abspath(path), e, r.stage))
    return out


def _num_layers(ref: str) -> int | None:
    from rocm_tune.core.model.architecture import load_model

    try:
        return int(load_model(ref).num_layers)
    except (UserError, TypeError, ValueError):
        return None


def _head(r: Resolved) -> list[str]:
    lines = ["# " + comment(f"model {r.model_name}: {r.method} ({r.stage}), {r.precision}, sequence_len "
                            f"{r.cutoff_len}, micro-batch {r.micro_batch} x accumulation {r.grad_accum} on "
                            f"{r.gpus} x {r.gpu_name}" + (f" x {r.nodes} nodes" if r.nodes > 1 else ""))]
    lines += [f"# warning [{comment(c)}]: {comment(m)}" + (f" Fix: {comment(f)}" if f else "") for c, m, f in r.warnings]
    return lines


def script(r: Resolved, opts: ExportOptions) -> str:
    """axolotl.sh: the plan's environment, then accelerate starting Axolotl's trainer on every GPU (and node)."""
    ver = f" {opts.tool_version}" if opts.tool_version else ""
    lines = ["#!/usr/bin/env bash", f"# Axolotl {runner.VERSION} launcher, written by rocm-tune{ver} export from "
             "plan.json", *_head(r),
             "# Usage: bash axolotl.sh" + ("  (on every node, with NODE_RANK and MASTER_ADDR set)" if r.nodes > 1 else ""),
             "set -euo pipefail", 'cd "$(dirname "${BASH_SOURCE[0]}")"', ""]
    for k in sorted(r.env):
        if "$" in r.env[k] or "`" in r.env[k]:
            lines.append("# shellcheck disable=SC2016  # a literal value: nothing in it is expanded")
        lines.append(f"export {k}={q(r.env[k])}")
    argv = ["accelerate launch", f"--num_processes {r.world_size}"]
    if r.nodes > 1:
        argv += [f"--num_machines {r.nodes}", '--machine_rank "${NODE_RANK:?set NODE_RANK (0 on the main node)}"',
                 '--main_process_ip "${MASTER_ADDR:?set MASTER_ADDR (the main node)}"',
                 f"--main_process_port {opts.master_port}"]
    elif r.world_size > 1:
        argv.append("--multi_gpu")
    argv.append(f"-m axolotl.cli.train {YAML_FILE}")
    lines.append("exec " + " \\\n  ".join(argv))
    return "\n".join(lines) + "\n"


def render(r: Resolved, opts: ExportOptions, plan_ref: str, extra_files: dict) -> dict[str, str]:
    """{axolotl.yaml, axolotl.sh} of a plan (`plan_ref`: its model, whose layer count a freeze plan needs)."""
    paths = {"deepspeed": in_bundle(opts, DS_JSON), "output_dir": in_bundle(opts, opts.output_dir),
             "prepared": in_bundle(opts, "last_run_prepared")}
    layers = _num_layers(plan_ref) if r.method == "freeze" else None
    files = runner.write(r, opts, _datasets(r, opts, extra_files), layers, paths, _head(r))
    files[SCRIPT] = script(r, opts)
    return files
