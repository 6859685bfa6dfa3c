"""`rocm-tune check`: the configs users already have -> will it fit, and the smallest change that does.

    rocm-tune check train.yaml ds_z3.json launch.sh --gpu rtx3090 [--gpus 4] [--json] [--fix DIR [--force]]
                    [--preflight]

In a terminal (no --json/--fix/--no-app) the answer opens in the app's Plan screen (tui/screens/check.py).
Exit 0: fits and no error finding; 1: a problem found (OOM, unknown, an error finding); 2: bad input.
With --preflight: 1 also when the preflight of the (fixed) config does not hold on this machine.
The --json object is documented field by field in docs/internals.md ("check --json").
"""

from __future__ import annotations

import argparse

from rocm_tune.commands._common import float_range, int_range, print_json

GIB = 2**30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="the job's files: LLaMA-Factory YAML, launch script, DeepSpeed JSON, accelerate config")
    parser.add_argument("--gpu", default=None, help="GPU profile id or its name as nvidia-smi / rocm-smi print it")
    parser.add_argument("--vram-gib", type=float_range("--vram-gib", 0.5, 4096), default=None,
                        help="memory per GPU, for a card whose SKU differs from its profile")
    parser.add_argument("--gpus", type=int_range("--gpus", 1, 1024), default=None,
                        help="GPUs per node (default: from the script)")
    parser.add_argument("--nodes", type=int_range("--nodes", 1, 100_000), default=None, help="nodes")
    parser.add_argument("--model", default=None, help="the model, when the path in the config is not here")
    parser.add_argument("--host-ram-gib", type=float_range("--host-ram-gib", 1, 1 << 20), default=None,
                        help="host RAM per node: an offload that needs more is not a fix (default: not stated)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--fix", metavar="DIR", default=None, help="write the fixed files into DIR")
    parser.add_argument("--force", action="store_true", help="with --fix: overwrite files already in DIR")
    parser.add_argument("--preflight", action="store_true",
                        help="then run the (fixed) config through `rocm-tune preflight` on this machine (its files "
                             "are copied into a new temporary directory, never over yours)")
    parser.add_argument("--no-app", action="store_true",
                        help="print the answer even in a terminal (default there: the app's Plan screen)")


def _gib(n) -> str:
    return "-" if n is None else f"{n / GIB:.2f} GiB"


def render(rep) -> str:
    from rocm_tune.core.check.check import shard_words

    lines = []
    j = rep.job
    lines.append(f"Read       {', '.join(f'{p} ({f})' for p, f in j.formats.items())}")
    lines.append(f"Runner     {rep.runner}" + (f" via {j.launcher}" if j.launcher else "")
                 + (f", entry {j.entry}" if j.entry else ""))
    if rep.cfg is not None:
        c = rep.cfg
        shard = shard_words(rep)
        lines.append(f"Understood {rep.model.name}: {c.method}, {c.precision}, cutoff_len {c.cutoff_len}, "
                     f"micro-batch {c.micro_batch} x {c.gpus} GPU(s) x {c.nodes} node(s), {shard}, "
                     f"checkpointing {'on' if c.gradient_checkpointing else 'off'}, attn {c.attn}")
    if rep.execution:
        lines.append(f"Runs as    {(rep.execution.get('summary') or [''])[0]}")
        if rep.execution.get("warning"):
            w = rep.execution["warning"]
            if isinstance(w, dict):
                lines.append(f"Warning    [{w.get('code')}] {w.get('message')}; fix: {w.get('fix')}")
            else:
                lines.append(f"Warning    {w}")
    if rep.memory:
        lines.append("")
        lines.append("Per GPU    phase   peak allocated   reserved")
        for ph in ("load", "step", "generate", "eval", "save"):   # generate: GRPO's own vLLM GPU
            p = rep.memory.get(ph)
            if p:
                lines.append(f"           {ph:6s}  {_gib(p['peak_allocated_bytes']):>14s}   {_gib(p['reserved_bytes'])}")
        if rep.cpu_ram_bytes:
            lines.append(f"           host RAM for offload (per node): {_gib(rep.cpu_ram_bytes)}")
    lines.append("")
    if rep.verdict == "fits":
        lines.append(f"Verdict    fits {rep.gpu.id} ({_gib(rep.vram_bytes)}), margin {_gib(rep.margin_bytes)}")
    elif rep.verdict == "oom":
        lines.append(f"Verdict    OOM likely at {rep.oom_phase} on {rep.gpu.id} ({_gib(rep.vram_bytes)}), "
                     f"short by {_gib(-rep.margin_bytes)}")
    else:
        lines.append(f"Verdict    cannot tell: {rep.reason}")
        q = question(rep)
        if q:
            lines.append(f"Question   {q['ask']} Give {q['flag']} ({q['give']})")
    if rep.findings:
        lines.append("")
        for f in rep.findings:
            where = f" {f.file}:{f.line}" if f.file and f.line else (f" {f.file}" if f.file else "")
            lines.append(f"{f.severity.upper():7s} [{f.code}]{where}: {f.message}" + (f"; fix: {f.fix}" if f.fix else ""))
    notes = list(j.notes) + list(rep.est_notes)
    if notes or rep.assumptions:
        lines.append("")
        lines += [f"Note       {n}" for n in notes]
        lines += [f"Assumed    {a}" for a in rep.assumptions]
    if rep.fix:
        lines.append("")
        where = ("under the planner's 85 % headroom" if rep.fix.get("target") == "headroom" else
                 "inside the card, but above the planner's 85 % headroom" if rep.fix.get("target") == "vram" else
                 "the command as its author wrote it")
        lines.append(f"Minimal fix (same effective batch; {where}):")
        lines.append(rep.fix["diff"].rstrip("\n"))
        if rep.fix.get("manual"):
            lines.append(f"By hand: add {', '.join(rep.fix['manual'])} to "
                         f"{rep.fix.get('manual_where') or 'the program' + chr(39) + 's TrainingArguments(...)'}")
    return "\n".join(lines)


def question(rep) -> dict | None:
    """An `unknown` verdict names the one fact that decides it, as one question: the flag that answers it."""
    if rep.verdict != "unknown":
        return None
    f = next((f for f in rep.findings if f.code in ("model-unknown", "model-missing")), None)
    if f is not None:
        return {"flag": "--model", "ask": f.message, "give": "a preset, a hub id or a directory holding config.json"}
    if rep.cfg is not None and rep.gpu is None:
        return {"flag": "--gpu", "ask": "which GPU runs it?",
                "give": "a profile id or the name nvidia-smi / rocm-smi print (or only its memory: --vram-gib N)"}
    return None


def _wants_app(args: argparse.Namespace, rep) -> bool:
    """In a terminal (stdin and stdout), without --json / --fix / --preflight / --no-app, and when the files were
    understood (a training config to show): the app's Plan screen; else the text answer."""
    import sys

    if args.json or args.fix or getattr(args, "preflight", False) or getattr(args, "no_app", False):
        return False
    return rep.cfg is not None and sys.stdin.isatty() and sys.stdout.isatty()


def _open_app(args: argparse.Namespace, rep) -> int:
    from rocm_tune.tui.app import run_check_app
    from rocm_tune.tui.check_model import CheckSession

    return run_check_app(CheckSession(list(args.paths), rep, {
        "gpu_id": args.gpu, "vram_gib": args.vram_gib, "gpus": args.gpus, "nodes": args.nodes,
        "model_ref": args.model}))


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.check.check import check, write_fix

    rep = check(args.paths, gpu_id=args.gpu, vram_gib=args.vram_gib, gpus=args.gpus, nodes=args.nodes,
                model_ref=args.model, host_ram_gib=args.host_ram_gib)
    if _wants_app(args, rep):
        return _open_app(args, rep)
    written: list[str] = []
    if args.fix and rep.fix is not None:
        written = write_fix(rep.fix, args.fix, args.force)
    pf = None
    if args.preflight:
        from rocm_tune.core.check.preflight_plan import preflight_job

        # bad input (no --gpu, nothing understood) is refused before anything prints or starts
        pf = preflight_job(rep, gpu_id=args.gpu, vram_gib=args.vram_gib, gpus=args.gpus, nodes=args.nodes,
                           model_ref=args.model)
    if args.json:
        out = rep.to_dict()
        out["question"] = question(rep)
        out["written"] = written
        if pf is not None:
            out["preflight"] = run_preflight(pf, quiet=True)
        print_json(out)
        return _exit(rep, out.get("preflight"))
    print(render(rep))
    for w in written:
        print(f"Wrote      {w}")
    if args.fix and rep.fix is None:
        print(f"Nothing written to {args.fix}: no change is needed (or none was found)")
    if pf is None:
        return rep.exit_code
    return _exit(rep, run_preflight(pf, quiet=False))


def _exit(rep, preflight: dict | None) -> int:
    if preflight is None:
        return rep.exit_code
    return max(rep.exit_code, int(preflight["exit_code"]))


def run_preflight(pf, quiet: bool) -> dict:
    """`check --preflight`: start `rocm-tune preflight` on the plan of the (fixed) config as a detached run of
    kind "preflight", follow it to the end (streaming its log unless quiet), and return what the --json
    object's `preflight` holds."""
    import time

    from rocm_tune.core.check import preflight as core
    from rocm_tune.core.runs import rundir as rd

    if not quiet:
        print()
        print(f"Preflight  {pf.what} in {pf.dir} (your files are not touched)")
        for n in pf.notes:
            print(f"Note       {n}")
    info = core.start_preflight(pf.plan, name=f"check-{pf.plan['model']['name']}", options=pf.options,
                                source_path=pf.plan_path)
    if quiet:
        while rd.load_run(info.dir).status == "running":
            time.sleep(0.3)
        rc = None
    else:
        from rocm_tune.commands.preflight import _follow

        rc = _follow(info, False)
    result = core.read_result(info.dir)
    final = rd.load_run(info.dir)
    code = core.exit_code(result) if result is not None else (2 if final.returncode == 2 else 1)
    return {"dir": pf.dir, "files": sorted(pf.files), "config": pf.what, "plan": pf.plan_path,
            "run_id": info.id, "run_dir": str(info.dir), "status": (result or {}).get("status", final.status),
            "exit_code": code if rc is None else rc, "result": result, "notes": list(pf.notes)}
