"""`rocm-tune estimate`: per-GPU training memory of one configuration, itemised.

    rocm-tune estimate --model qwen2.5-7b --method lora --cutoff-len 2048 [--json] [--probe]

`--probe` also traces one steady-state step of the real transformers model on fake tensors (needs the
`train` extra) and prints its measured peak beside the analytic one.
"""

from __future__ import annotations

import argparse

from rocm_tune.commands._common import print_json
from rocm_tune.commands._flags import add_train_flags, choice_type, train_config_from_args
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.units import GIB


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_train_flags(parser)
    parser.add_argument("--runner", type=choice_type("--runner", V.RUNNERS), default=None,
                        help="who runs the training: the dtypes are the ones it really uses "
                             "(default builtin = exactly the requested precision)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (bytes as integers)")
    parser.add_argument("--probe", action="store_true",
                        help="also measure one step of the real model on fake tensors (needs rocm-tune[train])")


def _gib(n: int) -> str:
    return f"{n / GIB:8.2f}"


def render(est, probe_result=None) -> str:
    m = est.model
    cfg = est.config
    g = est.per_gpu
    lines = [
        f"Model      {m.name} ({m.family}, {m.source}{', ' + m.location if m.location else ''})",
        f"Params     {est.params_total:,} total, {est.params_trainable:,} trainable "
        f"({100 * est.params_trainable / max(1, est.params_total):.2f}%)",
        f"Config     {cfg.method}"
        + (f" r{cfg.lora_rank}{' dora' if cfg.dora else ''} targets {','.join(cfg.lora_targets)}" if cfg.is_lora else "")
        + (f" {cfg.quant_bits}-bit" if cfg.method == "qlora" else "")
        + (f" last {cfg.freeze_trainable_layers} layers" if cfg.method == "freeze" else "")
        + f", {cfg.precision}, cutoff_len {cfg.cutoff_len}, micro_batch {cfg.micro_batch}, "
        f"{'checkpointing' if cfg.gradient_checkpointing else 'no checkpointing'}, attn {cfg.attn}, "
        f"optim {cfg.optim}, stage {cfg.stage}",
        f"GPUs       {cfg.gpus} x {cfg.nodes} node(s)"
        + (f", ZeRO-{cfg.zero_stage}" if cfg.zero_stage else (", DDP" if cfg.world_size > 1 else ""))
        + (f", offload {cfg.offload}" if cfg.offload != "none" else ""),
        "",
        "Per GPU                               GiB",
        f"  frozen weights                 {_gib(g.frozen_weights_bytes)}",
        f"  trainable weights              {_gib(g.trainable_weights_bytes)}",
        f"  gradients                      {_gib(g.gradients_bytes)}",
        f"  optimizer state                {_gib(g.optimizer_bytes)}",
        f"  activations kept for backward  {_gib(g.activations_bytes)}",
        f"  transient peak (fwd/bwd/loss)  {_gib(g.transient_bytes)}",
        f"  autocast weight copies         {_gib(g.autocast_copies_bytes)}",
        f"  communication buffers          {_gib(g.comm_buffers_bytes)}",
        "  ------------------------------ --------",
        f"  peak allocated                 {_gib(g.peak_allocated_bytes)}   (torch.cuda.max_memory_allocated)",
        f"  reserved                       {_gib(g.reserved_bytes)}   (what rocm-smi / nvidia-smi shows)",
    ]
    if est.cpu_offload_bytes:
        lines.append(f"  CPU RAM for offload (per node) {_gib(est.cpu_offload_bytes)}")
    if probe_result is not None:
        lines.append("")
        if probe_result.peak_allocated_bytes is None:
            lines.append(f"Probe      not run: {probe_result.reason}")
        else:
            err = g.peak_allocated_bytes / probe_result.peak_allocated_bytes - 1
            lines.append(f"Probe      measured peak {probe_result.peak_allocated_bytes / GIB:.2f} GiB on fake tensors "
                         f"(analytic {err * 100:+.1f}%), traced in {probe_result.seconds:.1f} s")
            for n in probe_result.notes:
                lines.append(f"           {n}")
    from rocm_tune.core.runners import execution

    ex = execution(m, cfg)
    lines += ["", f"Runs as    {ex.lines[0]}"]
    if ex.warning:
        lines.append(f"Warning    [{ex.warning[0]}] {ex.warning[1]}; fix: {ex.warning[2]}")
    if est.notes:
        lines.append("")
        lines += [f"Note       {n}" for n in est.notes]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if not args.model:
        raise UserError("--model is required (a preset name, a model directory, a config.json or a cached hub id)")
    cfg = train_config_from_args(args, runner=args.runner)
    from rocm_tune.core.memory.estimate import estimate
    from rocm_tune.core.model.architecture import load_model

    model = load_model(args.model)
    est = estimate(model, cfg)
    probe_result = None
    if args.probe:
        from rocm_tune.train.probe import probe

        probe_result = probe(dict(model.config), cfg)
    if args.json:
        from rocm_tune.core.runners import execution

        out = est.to_dict()
        out["execution"] = execution(model, cfg).to_dict()
        out["model"] = {"ref": args.model, "name": model.name, "family": model.family, "source": model.source,
                        "location": model.location}
        if probe_result is not None:  # set exactly when --probe
            out["probe"] = probe_result.to_dict()
        print_json(out)
    else:
        print(render(est, probe_result))
    return 0
