"""`rocm-tune plan`: the whole training configuration for a model, GPUs and goal, with reasons.

Flags are those of `estimate` (None = the planner chooses) plus the hardware and the goal.
`--json` prints the plan.json contract (docs/internals.md). Exit 1 when nothing fits.
"""

from __future__ import annotations

import argparse
import sys

from rocm_tune.commands._common import float_range, int_range, print_json
from rocm_tune.core.errors import UserError

GIB = 2**30


def _add_if_missing(parser: argparse.ArgumentParser, flag: str, *aliases: str, **kw) -> None:
    if flag in parser._option_string_actions:
        return
    parser.add_argument(flag, *[a for a in aliases if a not in parser._option_string_actions], **kw)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from rocm_tune.commands._flags import add_train_flags

    add_train_flags(parser)  # every estimate flag, default None = the planner chooses
    # the ones below only register what add_train_flags does not already provide
    add = lambda flag, *a, **kw: _add_if_missing(parser, flag, *a, **kw)
    add("--model", "-m", default=None, help="preset name, model directory, config.json or cached hub id")
    add("--method", default=None, choices=["full", "freeze", "lora", "qlora"])
    add("--lora-rank", type=int_range("--lora-rank", 1, 65536), default=None)
    add("--lora-alpha", type=int_range("--lora-alpha", 1, 1_000_000), default=None)
    add("--lora-target", default=None, help="all, or a comma list of module names")
    add("--precision", default=None, choices=["fp32", "bf16", "fp16", "pure_bf16"])
    add("--cutoff-len", type=int_range("--cutoff-len", 1, 1_048_576), default=None)
    add("--micro-batch", type=int_range("--micro-batch", 1, 4096), default=None)
    if "--gradient-checkpointing" not in parser._option_string_actions:
        parser.add_argument("--gradient-checkpointing", dest="gradient_checkpointing",
                            action=argparse.BooleanOptionalAction, default=None)
    add("--attn", default=None, choices=["eager", "sdpa", "fa2"])
    add("--optim", default=None)
    add("--zero", type=int, choices=[0, 1, 2, 3], default=None)
    add("--offload", default=None, choices=["none", "optimizer", "all"])
    add("--gpus", type=int_range("--gpus", 1, 1024), default=None, help="GPUs per node (default: detected, or 1)")
    add("--nodes", type=int_range("--nodes", 1, 4096), default=None)
    add("--stage", default=None, choices=["sft", "dpo", "pt"])
    # the planner's own
    add("--gpu", default=None, help="GPU profile id or name (rocm-tune gpus --profiles); default: the detected GPUs")
    add("--vram-gib", type=float_range("--vram-gib", 0.5, 4096), default=None,
        help="override the profile's memory (odd SKUs, e.g. a 16 GB DCU)")
    add("--cpu-ram-gib", type=float_range("--cpu-ram-gib", 1, 1_048_576), default=None,
        help="CPU RAM per node, for offload (default: this machine's when planning for its GPUs)")
    add("--effective-batch", type=int_range("--effective-batch", 1, 1_000_000), default=None,
        help="micro-batch x GPUs x accumulation (default 64)")
    add("--priority", default="stability", choices=["stability", "speed", "context"])
    add("--dataset", default=None, help="local dataset (alpaca/sharegpt JSON/JSONL, or a dataset_info.json dir)")
    add("--dataset-name", default=None, help="entry of dataset_info.json when --dataset is a directory")
    add("--percentile", type=float_range("--percentile", 1, 100), default=95.0,
        help="share of samples cutoff_len must cover (default 95)")
    add("--hours", type=float_range("--hours", 0.01, 100_000), default=None, help="time budget")
    add("--epochs", type=float_range("--epochs", 0.01, 10_000), default=None, help="default 3")
    add("--headroom", type=float_range("--headroom", 0.1, 1.0), default=0.85,
        help="max reserved memory as a fraction of VRAM (default 0.85)")
    add("--json", action="store_true", help="print the plan as one JSON object (plan.json)")


def _arg(args, *names, default=None):
    for n in names:
        v = getattr(args, n, None)
        if v is not None:
            return v
    return default


def _meminfo_bytes(field: str = "MemTotal") -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _local_iommu() -> str:
    try:
        from rocm_tune.core import doctor
    except Exception:  # noqa: BLE001 - doctor not available: unknown
        return "unknown"
    fn = getattr(doctor, "iommu_state", None)
    if fn is None:
        return "unknown"
    try:
        from rocm_tune.core.rules import normalize_iommu

        return normalize_iommu(fn())
    except Exception:  # noqa: BLE001 - a check that cannot run means unknown, never a crash
        return "unknown"


def _hardware(args):
    """(profile, gpus per node, cpu_ram_bytes, iommu state, source text)."""
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    gpus = _arg(args, "gpus")
    if args.gpu:
        prof = get_gpu_profile(args.gpu, args.vram_gib)
        ram = None if args.cpu_ram_gib is None else int(args.cpu_ram_gib * GIB)
        return prof, gpus or 1, ram, "unknown", f"--gpu {args.gpu}"
    from rocm_tune.core.devices import detect

    backend = detect()
    samples = backend.sample() if backend is not None else ()
    if not samples:
        raise UserError("no GPU detected on this machine; pass --gpu ID (e.g. --gpu mi50-32gb, --gpus 2) to plan "
                        "for other hardware (`rocm-tune gpus --profiles` lists the ids)")
    first = samples[0]
    pid = getattr(first, "profile_id", None)
    if not pid:
        raise UserError(f"detected GPU {getattr(first, 'name', '?')!r} matches no known profile; pass --gpu ID "
                        "(and --vram-gib) for the closest one (`rocm-tune gpus --profiles`)")
    same = [s for s in samples if getattr(s, "profile_id", None) == pid]
    prof = get_gpu_profile(pid, args.vram_gib)
    if gpus is not None and gpus > len(same):
        raise UserError(f"--gpus {gpus}: only {len(same)} {prof.display_name} detected on this machine")
    ram = int(args.cpu_ram_gib * GIB) if args.cpu_ram_gib is not None else _meminfo_bytes("MemAvailable")
    iommu = _local_iommu() if prof.vendor in ("amd", "hygon") else "unknown"
    return prof, gpus or len(same), ram, iommu, f"detected ({getattr(backend, 'name', 'backend')})"


def build_request(args):
    from rocm_tune.core.model import load_model
    from rocm_tune.core.planner import PlanRequest

    ref = _arg(args, "model")
    if not ref:
        raise UserError("--model is required (a preset name such as qwen2.5-7b, a model directory or config.json)")
    from rocm_tune.commands._flags import check_method_flags

    check_method_flags(args, _arg(args, "method", default="lora"))
    model = load_model(ref)
    prof, gpus, ram, iommu, _src = _hardware(args)
    dataset = None
    if args.dataset:
        from rocm_tune.core.dataset import analyze_dataset

        dataset = analyze_dataset(args.dataset, model, getattr(args, "dataset_name", None))
    targets = _arg(args, "lora_target", "lora_targets")
    if isinstance(targets, str):
        targets = tuple(t.strip() for t in targets.split(",") if t.strip())
    elif targets is not None:
        targets = tuple(targets)
    zero = _arg(args, "zero", "zero_stage")
    return PlanRequest(
        model=model, gpu=prof, gpus=gpus, nodes=_arg(args, "nodes", default=1), cpu_ram_bytes=ram,
        method=_arg(args, "method", default="lora"), stage=_arg(args, "stage", default="sft"),
        effective_batch=args.effective_batch, priority=args.priority,
        cutoff_len=_arg(args, "cutoff_len"), precision=_arg(args, "precision"),
        micro_batch=_arg(args, "micro_batch"), zero_stage=None if zero is None else int(zero),
        offload=_arg(args, "offload"), attn=_arg(args, "attn"),
        gradient_checkpointing=_arg(args, "gradient_checkpointing"), optim=_arg(args, "optim"),
        lora_rank=_arg(args, "lora_rank"), lora_alpha=_arg(args, "lora_alpha"), lora_targets=targets,
        dora=bool(_arg(args, "dora", default=False)), quant_bits=_arg(args, "quant_bits", "quantization_bit"),
        double_quant=_arg(args, "double_quant"),
        freeze_trainable_layers=_arg(args, "freeze_trainable_layers"),
        dataset=dataset, percentile=args.percentile, hours=args.hours, epochs=args.epochs,
        headroom=args.headroom, iommu=iommu, model_ref=ref,
    )


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.planner import plan

    if getattr(args, "dataset_name", None) and not getattr(args, "dataset", None):
        raise UserError(f"--dataset-name {args.dataset_name!r} needs --dataset DIR (a folder with dataset_info.json)")
    req = build_request(args)
    result = plan(req)
    if args.json:
        print_json(result.to_dict())
    else:
        sys.stdout.write(render(result))
        sys.stdout.flush()
    return 0 if result.fits else 1


# --------------------------------------------------------------------------- human output


def _g(n) -> str:
    return f"{(n or 0) / GIB:6.2f}"


def _hours(sec: float | None) -> str:
    if sec is None:
        return "n/a"
    if sec < 3600:
        return f"{sec / 60:.0f} min"
    return f"{sec / 3600:.1f} h"


def _option_line(d: dict) -> str:
    z = "DDP" if d["zero_stage"] == 0 else f"ZeRO-{d['zero_stage']}"
    off = "" if d["offload"] == "none" else f"+offload {d['offload']}"
    gc = "GC" if d["gradient_checkpointing"] else "no-GC"
    mem = d["memory"]["reserved_bytes"] / GIB
    t = d["throughput"]
    return (f"{d['method']} {d['precision']} {d['attn']} cutoff {d['cutoff_len']} mb {d['micro_batch']} "
            f"x accum {d['grad_accum']} {gc} {z}{off}: {mem:.1f} GiB/GPU, {t['seconds_per_step']:.1f} s/step, "
            f"{t['tokens_per_s']:,.0f} tok/s" + ("" if d.get("fits", True) else " (does not fit)"))


def render(result) -> str:
    d = result.to_dict()
    r = result.request
    rec = d["recommended"]
    mem = d["memory"]
    t = d["throughput"]
    lines: list[str] = []
    m = d["model"]
    hw = d["hardware"]
    nodes = f" x {hw['nodes']} nodes" if hw["nodes"] > 1 else ""
    lines.append(f"Plan: {m['name']} ({m['family']}, {m['params_total'] / 1e9:.2f} B params), "
                 f"{d['goal']['method']} {d['goal']['stage']} on {hw['gpus']} x {r.gpu.display_name} "
                 f"({r.gpu.vram_gib:g} GiB){nodes}, priority {d['goal']['priority']}")
    lines.append("FITS" if d["fits"] else "DOES NOT FIT — closest configuration shown; see warnings and alternatives")
    lines.append("")
    lines.append("Recommended")
    gc = "on" if rec["gradient_checkpointing"] else "off"
    lines.append(f"  method {rec['method']}  precision {rec['precision']}  attn {rec['attn']}  "
                 f"cutoff_len {rec['cutoff_len']}")
    eff = rec["micro_batch"] * hw["gpus"] * hw["nodes"] * rec["grad_accum"]
    lines.append(f"  micro_batch {rec['micro_batch']}  grad_accum {rec['grad_accum']}  (effective batch {eff})  "
                 f"gradient_checkpointing {gc}")
    lines.append(f"  zero_stage {rec['zero_stage']}  offload {rec['offload']}  optim {rec['optim']}  "
                 f"learning_rate {rec['learning_rate']:g}  epochs {rec['epochs']:g}  launcher {rec['launcher']}")
    if rec["lora_rank"] is not None:
        lines.append(f"  lora_rank {rec['lora_rank']}  lora_alpha {rec['lora_alpha']}  "
                     f"lora_targets {','.join(rec['lora_targets'])}")
    if rec["ddp_find_unused_parameters"] is not None or rec["use_reentrant"] is not None:
        lines.append(f"  ddp_find_unused_parameters {rec['ddp_find_unused_parameters']}  "
                     f"use_reentrant {rec['use_reentrant']}")
    if rec["env"]:
        lines.append("  env: " + " ".join(f"{k}={v}" for k, v in rec["env"].items()))
    lines.append("")
    lines.append("Memory per GPU (GiB)")
    for key, value in mem.items():
        if key.endswith("_bytes") and key not in ("peak_allocated_bytes", "reserved_bytes", "cpu_offload_bytes"):
            lines.append(f"  {key[:-6].replace('_', ' '):<24}{_g(value)}")
    lines.append(f"  {'peak allocated':<24}{_g(mem.get('peak_allocated_bytes'))}")
    vram = hw["vram_bytes"]
    res = mem.get("reserved_bytes", 0)
    lines.append(f"  {'reserved':<24}{_g(res)}   = {res / vram:.0%} of {vram / GIB:g} GiB "
                 f"(limit {r.headroom:.0%})")
    if mem.get("cpu_offload_bytes"):
        lines.append(f"  {'CPU RAM for offload':<24}{_g(mem['cpu_offload_bytes'])}   per node")
    lines.append("")
    lines.append("Speed")
    lo, hi = t["low"], t["high"]
    lines.append(f"  ~{t['tokens_per_s']:,.0f} tokens/s ({lo['tokens_per_s']:,.0f}-{hi['tokens_per_s']:,.0f}), "
                 f"{t['seconds_per_step']:.1f} s per optimizer step ({hi['seconds_per_step']:.1f}-"
                 f"{lo['seconds_per_step']:.1f})")
    if t["eta_seconds"] is not None:
        lines.append(f"  ETA {_hours(t['eta_seconds'])} ({_hours(hi['eta_seconds'])}-{_hours(lo['eta_seconds'])}) "
                     f"for {rec['epochs']:g} epoch(s), {result.recommended.throughput.steps} steps")
    else:
        lines.append("  ETA: pass --dataset to know the number of steps")
    lines.append("")
    lines.append("Why")
    for reason in d["reasons"]:
        lines.append(f"  - {reason}")
    if d["warnings"]:
        lines.append("")
        lines.append("Warnings")
        for w in d["warnings"]:
            lines.append(f"  [{w['code']}] {w['message']}")
            lines.append(f"      fix: {w['fix']}")
    if d["alternatives"]:
        lines.append("")
        lines.append("Alternatives")
        for i, a in enumerate(d["alternatives"], 1):
            lines.append(f"  {i}. {_option_line(a)}")
    lines.append("")
    return "\n".join(lines)
