"""`rocm-tune plan`: the whole training configuration for a model, GPUs and goal, with reasons.

Flags are those of `estimate` (None = the planner chooses) plus the hardware and the goal.
`--json` prints the plan.json contract (docs/internals.md). Exit 1 when nothing fits.
"""

from __future__ import annotations

import argparse
import sys

from rocm_tune.commands._common import float_range, int_range, print_json
from rocm_tune.commands._flags import add_train_flags, choice_type
from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.warnings import headline_caveats
from rocm_tune.core.units import GIB, fmt_duration


def _limit(flag: str, name: str):
    lim = V.LIMITS[name]
    return int_range(flag, int(lim.lo), int(lim.hi)) if lim.integer else float_range(flag, lim.lo, lim.hi)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_train_flags(parser)  # every estimate flag, default None = the planner chooses
    g = parser.add_argument_group("hardware and goal")
    g.add_argument("--gpu", default=None,
                   help="GPU profile id or name (rocm-tune gpus --profiles); default: the detected GPUs")
    g.add_argument("--vram-gib", type=_limit("--vram-gib", "vram_gib"), default=None,
                   help="override the profile's memory (odd SKUs, e.g. a 16 GB DCU)")
    g.add_argument("--cpu-ram-gib", type=_limit("--cpu-ram-gib", "cpu_ram_gib"), default=None,
                   help="CPU RAM per node, for offload (default: this machine's when planning for its GPUs)")
    g.add_argument("--effective-batch", type=_limit("--effective-batch", "effective_batch"), default=None,
                   help=f"micro-batch x GPUs x accumulation (default {V.DEFAULT_EFFECTIVE_BATCH})")
    g.add_argument("--priority", default=V.DEFAULT_PRIORITY, choices=list(V.PRIORITIES))
    g.add_argument("--runner", type=choice_type("--runner", V.RUNNERS), default=None,
                   help=f"what runs the training loop (default {V.DEFAULT_RUNNER}; the default export target)")
    g.add_argument("--dataset", default=None,
                   help="local dataset (alpaca/sharegpt JSON/JSONL, or a dataset_info.json dir)")
    g.add_argument("--dataset-name", default=None,
                   help="LLaMA-Factory dataset name(s), NAME or NAME,NAME: entries of --dataset-dir/dataset_info.json "
                        "(or of --dataset DIR); checked, and its local file used for the statistics, when readable here")
    g.add_argument("--dataset-dir", default=None,
                   help="folder whose dataset_info.json lists --dataset-name (default data; ONLINE for the hub)")
    g.add_argument("--percentile", type=_limit("--percentile", "percentile"), default=V.DEFAULT_PERCENTILE,
                   help=f"share of samples cutoff_len must cover (default {V.DEFAULT_PERCENTILE:g})")
    g.add_argument("--hours", type=_limit("--hours", "hours"), default=None, help="time budget")
    g.add_argument("--epochs", type=_limit("--epochs", "epochs"), default=None,
                   help=f"default {V.DEFAULT_EPOCHS:g}")
    g.add_argument("--headroom", type=_limit("--headroom", "headroom"), default=V.DEFAULT_HEADROOM,
                   help=f"max reserved memory as a fraction of VRAM (default {V.DEFAULT_HEADROOM:g})")
    g.add_argument("--json", action="store_true", help="print the plan as one JSON object (plan.json)")


# argparse dest -> the request's answer name (where they differ)
_RENAMED = {"lora_target": "lora_targets", "zero": "zero_stage"}


def answers_from_args(args: argparse.Namespace) -> dict:
    """The parsed flags as answers for `core.plan.answers.request_from_answers` (None = not given)."""
    from rocm_tune.core.plan.answers import ANSWER_KEYS

    out = {}
    for dest, value in vars(args).items():
        key = _RENAMED.get(dest, dest)
        if key in ANSWER_KEYS and value is not None:
            out[key] = value
    return out


def _named_dataset(args, answers: dict, notes: list[str] | None) -> None:
    """`--dataset-name NAME [--dataset-dir DIR]` without `--dataset`: the names are checked where DIR is readable
    here (core/export/datasets.py), and a single name's local file gives the token statistics."""
    import os

    from rocm_tune.core.export.datasets import resolve_named

    given_dir = getattr(args, "dataset_dir", None)
    if not answers.get("dataset_name"):
        if given_dir is not None and not answers.get("dataset"):
            raise UserError(f"--dataset-dir {given_dir!r} applies with --dataset-name (the names its "
                            "dataset_info.json lists)")
        return
    if answers.get("dataset"):
        if given_dir is not None:
            raise UserError(f"--dataset {answers['dataset']!r} and --dataset-dir {given_dir!r} both name the "
                            "dataset; give one of them")
        return  # --dataset DIR --dataset-name NAME: read as it is
    out = getattr(args, "out", None)
    named = resolve_named(answers.pop("dataset_name"), given_dir,
                          bundle_dir=os.path.abspath(os.path.expanduser(out)) if out else None)
    source = named.stats_source()
    if source:
        answers["dataset"], answers["dataset_name"] = source
    elif notes is not None:
        why = named.note(None) or f"dataset {named.text}: no single local file to read here"
        notes.append(f"{why}; cutoff_len is planned without dataset statistics")


def build_request(args, notes: list[str] | None = None):
    from rocm_tune.core.memory.checkpoint_size import with_local_disk
    from rocm_tune.core.plan.answers import request_from_answers

    if not args.model:
        raise UserError("--model is required (a preset name such as qwen2.5-7b, a model directory or config.json)")
    answers = answers_from_args(args)
    _named_dataset(args, answers, notes)
    return with_local_disk(request_from_answers(answers))


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.plan.planner import plan

    notes: list[str] = []
    result = plan(build_request(args, notes))
    for note in notes:
        print(f"rocm-tune plan: note: {note}", file=sys.stderr)
    if args.json:
        print_json(result.to_dict())
    else:
        sys.stdout.write(render(result))
        sys.stdout.flush()
    return 0 if result.fits else 1


# --------------------------------------------------------------------------- human output


def _g(n) -> str:
    return f"{(n or 0) / GIB:6.2f}"


def _eta_range(mid: float | None, fast: float | None, slow: float | None) -> str:
    """'3.4 h (2.9 h-4.1 h)'; one figure when the range reads the same, 'under a minute' for a tiny plan (not
    '0 min (0 min-0 min)')."""
    known = [v for v in (mid, fast, slow) if isinstance(v, (int, float))]
    if known and max(known) < 60:
        return "under a minute"
    a, b, c = fmt_duration(mid), fmt_duration(fast), fmt_duration(slow)
    return a if a == b == c else f"{a} ({b}-{c})"


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
    lines = _head(result, d) + _executes(result) + _memory(result, d) + _speed(result, d)
    lines += ["", "Why"] + [f"  - {reason}" for reason in d["reasons"]]
    if d["warnings"]:
        lines += ["", "Warnings"]
        for w in d["warnings"]:
            lines += [f"  [{w['code']}] {w['message']}", f"      fix: {w['fix']}"]
    if d["alternatives"]:
        lines += ["", "Alternatives"] + [f"  {i}. {_option_line(a)}" for i, a in enumerate(d["alternatives"], 1)]
    lines.append("")
    return "\n".join(lines)


def _head(result, d: dict) -> list[str]:
    """The headline (verdict with the caveats that change it) and the recommended settings."""
    r, rec, m, hw = result.request, d["recommended"], d["model"], d["hardware"]
    nodes = f" x {hw['nodes']} nodes" if hw["nodes"] > 1 else ""
    lines = [f"Plan: {m['name']} ({m['family']}, {m['params_total'] / 1e9:.2f} B params), "
             f"{d['goal']['method']} {d['goal']['stage']} on {hw['gpus']} x {r.gpu.display_name} "
             f"({r.gpu.vram_gib:g} GiB){nodes}, priority {d['goal']['priority']}"]
    caveats = headline_caveats(d.get("warnings"), rec.get("precision"))
    if d["fits"]:
        lines.append("FITS" + (" — but " + "; ".join(caveats) if caveats else ""))
    else:
        lines.append("DOES NOT FIT — closest configuration shown; see warnings and alternatives")
    gc = "on" if rec["gradient_checkpointing"] else "off"
    eff = rec["micro_batch"] * hw["gpus"] * hw["nodes"] * rec["grad_accum"]
    lines += ["", "Recommended",
              f"  method {rec['method']}  precision {rec['precision']}  attn {rec['attn']}  "
              f"cutoff_len {rec['cutoff_len']}",
              f"  micro_batch {rec['micro_batch']}  grad_accum {rec['grad_accum']}  (effective batch {eff})  "
              f"gradient_checkpointing {gc}",
              f"  zero_stage {rec['zero_stage']}  offload {rec['offload']}  optim {rec['optim']}  "
              f"learning_rate {rec['learning_rate']:g}  epochs {rec['epochs']:g}  launcher {rec['launcher']}"]
    if rec["lora_rank"] is not None:
        lines.append(f"  lora_rank {rec['lora_rank']}  lora_alpha {rec['lora_alpha']}  "
                     f"lora_targets {','.join(rec['lora_targets'])}")
    if rec["ddp_find_unused_parameters"] is not None or rec["use_reentrant"] is not None:
        lines.append(f"  ddp_find_unused_parameters {rec['ddp_find_unused_parameters']}  "
                     f"use_reentrant {rec['use_reentrant']}")
    if rec["env"]:
        lines.append("  env: " + " ".join(f"{k}={v}" for k, v in rec["env"].items()))
    return lines


def _executes(result) -> list[str]:
    ex = result.plan.execution
    if ex is None:
        return []
    return ["", "Executes", f"  {ex.line()}"] + [f"  {note}" for note in ex.summary[1:]]


def _memory(result, d: dict) -> list[str]:
    mem, hw = d["memory"], d["hardware"]
    lines = ["", "Memory per GPU (GiB)"]
    for key, value in mem.items():
        if key.endswith("_bytes") and key not in ("peak_allocated_bytes", "reserved_bytes", "cpu_offload_bytes"):
            lines.append(f"  {key[:-6].replace('_', ' '):<24}{_g(value)}")
    lines.append(f"  {'peak allocated':<24}{_g(mem.get('peak_allocated_bytes'))}")
    vram = hw["vram_bytes"]
    res = mem.get("reserved_bytes", 0)
    lines.append(f"  {'reserved':<24}{_g(res)}   = {res / vram:.0%} of {vram / GIB:g} GiB "
                 f"(limit {result.request.headroom:.0%})")
    if mem.get("cpu_offload_bytes"):
        lines.append(f"  {'CPU RAM for offload':<24}{_g(mem['cpu_offload_bytes'])}   per node")
    return lines


def _speed(result, d: dict) -> list[str]:
    t, rec = d["throughput"], d["recommended"]
    lo, hi = t["low"], t["high"]
    lines = ["", "Speed",
             f"  ~{t['tokens_per_s']:,.0f} tokens/s ({lo['tokens_per_s']:,.0f}-{hi['tokens_per_s']:,.0f}), "
             f"{t['seconds_per_step']:.1f} s per optimizer step ({hi['seconds_per_step']:.1f}-"
             f"{lo['seconds_per_step']:.1f})"]
    if t["eta_seconds"] is not None:
        lines.append(f"  ETA {_eta_range(t['eta_seconds'], hi['eta_seconds'], lo['eta_seconds'])} "
                     f"for {rec['epochs']:g} epoch(s), {result.recommended.throughput.steps} steps")
    else:
        lines.append("  ETA: pass --dataset to know the number of steps")
    return lines
