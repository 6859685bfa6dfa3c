"""`rocm-tune preflight [PLAN_JSON | BUNDLE_DIR | plan flags]`: verify a plan on this machine before the long run.

Device matmul rates per dtype (bf16 emulation), collectives with a hard timeout and value checks (the
IOMMU/P2P hang), a few real optimizer steps of the exact plan at its longest sequence, one eval batch,
one checkpoint save, host RAM and disk; then re-plans and writes the adjusted plan (never over an existing
file without --force). Runs detached as a run of kind "preflight" (`rocm-tune attach ID` shows it);
`--wait` follows it to the end, `--foreground` runs it in this process.
Exit codes (with --wait/--foreground): 0 verified, 1 the plan does not hold on this box, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from rocm_tune.commands._common import float_range, int_range, print_json
from rocm_tune.core.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", nargs="?", default=None,
                        help="a plan.json (`rocm-tune plan --json > plan.json`) or an exported bundle directory; "
                             "or leave it out and give the same flags as `rocm-tune plan`")
    g = parser.add_argument_group("preflight")
    g.add_argument("--wait", action="store_true", help="start detached, follow it to the end, exit 0/1 with the verdict")
    g.add_argument("--foreground", action="store_true", help="run in this process (no detached run)")
    g.add_argument("--timeout", type=float_range("--timeout", 0.1, 3600), default=60.0,
                   help="hard timeout of the collectives check in seconds (default 60)")
    g.add_argument("--steps", type=int_range("--steps", 1, 100), default=3,
                   help="optimizer steps per tried configuration (default 3; the first is warm-up)")
    g.add_argument("--weights", metavar="DIR", default=None,
                   help="load these real weights (default: random init from the model's config, nothing downloaded)")
    g.add_argument("--cpu", action="store_true", help="do not use a GPU even when one is visible")
    g.add_argument("--collective-procs", type=int_range("--collective-procs", 1, 64), default=None,
                   help="processes for the collectives check (default: the plan's GPUs per node; 2 on CPU)")
    g.add_argument("--skip", action="append", default=[], choices=["device", "collectives", "steps"],
                   help="leave out one check (repeatable)")
    g.add_argument("--output-dir", default=None, help="where the run will write checkpoints (disk check; "
                                                      "default: the bundle's output_dir, else here)")
    g.add_argument("--save-total-limit", type=int_range("--save-total-limit", 1, 100_000), default=None,
                   help="checkpoints kept (default: the bundle's save_total_limit)")
    g.add_argument("--eval-batch", type=int_range("--eval-batch", 1, 65_536), default=None,
                   help="eval batch size (default: the bundle's per_device_eval_batch_size, else the micro-batch)")
    g.add_argument("--out", default=None,
                   help="where the adjusted plan goes (default: PLAN.preflight.json / BUNDLE.preflight/ beside the input)")
    g.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    g.add_argument("--no-replan", action="store_true", help="measure only; do not try other micro-batches")
    g.add_argument("--name", default=None, help="name of the run")
    g.add_argument("--dir", default=None, help="put the run directory here instead of the registry")
    # test hooks: constructed failures on real code paths (documented in the README)
    g.add_argument("--simulate-oom-above-micro-batch", type=int_range("--simulate-oom-above-micro-batch", 0, 65_536),
                   default=None, help=argparse.SUPPRESS)
    g.add_argument("--absent-rank", type=int_range("--absent-rank", 0, 63), default=None, help=argparse.SUPPRESS)
    from rocm_tune.commands import plan as plan_cmd

    plan_cmd.add_arguments(parser)  # the same flags as `rocm-tune plan`; its --json is ours
    parser._option_string_actions["--json"].help = (
        "one JSON object: the result (with --wait/--foreground) or the started run")


def _plan_from_flags(args) -> dict:
    from rocm_tune.commands import plan as plan_cmd

    req = plan_cmd.build_request(args)  # the plan engineer's request building (core.plan.answers)
    from rocm_tune.core.plan.planner import plan as make_plan

    return make_plan(req).to_dict()


def _options(args, source_path: str | None, bundle: str | None):
    from rocm_tune.core.check.preflight import PreflightOptions

    return PreflightOptions(
        timeout_s=args.timeout, steps=args.steps, weights=args.weights, device="cpu" if args.cpu else "auto",
        collective_procs=args.collective_procs, skip=tuple(args.skip), output_dir=args.output_dir,
        save_total_limit=args.save_total_limit, eval_batch=args.eval_batch, out=args.out, force=args.force,
        bundle=bundle, replan=not args.no_replan,
        simulate_oom_above_micro_batch=args.simulate_oom_above_micro_batch, absent_rank=args.absent_rank)


def _check_model(plan: dict, weights: str | None) -> None:
    """The model must be resolvable here (its config), before anything starts: bad input = exit 2."""
    if weights:
        if not os.path.isfile(os.path.join(os.path.expanduser(weights), "config.json")):
            raise UserError(f"--weights {weights!r} has no config.json")
        return
    from rocm_tune.core.model.architecture import load_model

    m = plan.get("model") or {}
    ref = str(m.get("ref") or m.get("name"))
    try:
        load_model(ref)
    except UserError as exc:
        raise UserError(f"the plan's model {ref!r} cannot be resolved here ({exc}); give --weights DIR") from None


def run(args: argparse.Namespace) -> int:
    from rocm_tune.core.check import preflight as core

    if args.wait and args.foreground:
        raise UserError("--wait and --foreground do not go together (--foreground already waits)")
    bundle = None
    source_path = None
    if args.source:
        if getattr(args, "model", None):
            raise UserError(f"give either a plan/bundle ({args.source!r}) or plan flags (--model ...), not both")
        plan, bundle = core.load_input(args.source)
        source_path = args.source
    else:
        if not getattr(args, "model", None):
            raise UserError("give a plan.json, a bundle directory, or the flags of `rocm-tune plan` (--model ...)")
        plan = _plan_from_flags(args)
    opts = _options(args, source_path, bundle)
    opts.validate()
    _check_model(plan, opts.weights)
    if opts.out is None and source_path is not None:
        opts = core.PreflightOptions.from_dict({**opts.to_dict(), "out": core.default_out(source_path, bundle)})
    if opts.out is not None:
        out = os.path.abspath(opts.out)
        opts = core.PreflightOptions.from_dict({**opts.to_dict(), "out": out})
        core.check_out(out, opts.force)
    if args.foreground:
        from rocm_tune.train.preflight.runner import run_preflight

        run_dir = None
        if args.dir:
            from rocm_tune.core.files import directory_path

            directory_path(args.dir, "--dir").mkdir(parents=True, exist_ok=True)  # never through a broken link
            run_dir = args.dir
        result = run_preflight(plan, opts, run_dir=run_dir, log=(lambda t: print(t, file=sys.stderr, flush=True))
                               if args.json else None)
        _show(result, args.json)
        return core.exit_code(result)
    info = core.start_preflight(plan, name=args.name, run_dir=args.dir, options=opts, source_path=source_path)
    if not args.wait:
        if args.json:
            print_json(info.to_dict())
        else:
            print(info.id)
            print(f"  dir: {info.dir}")
            print(f"  watch: rocm-tune attach {info.id}    result: {os.path.join(info.dir, core.RESULT_JSON)}")
        return 0
    return _follow(info, args.json)


def _show(result: dict, as_json: bool) -> None:
    from rocm_tune.core.check import preflight as core

    if as_json:
        print_json(result)
    else:
        sys.stdout.write(core.render(result))
        sys.stdout.flush()


def _follow(info, as_json: bool) -> int:
    """Stream the run's log (human mode) until it ends; then the verdict. Ctrl-C leaves the run running."""
    from rocm_tune.core.check import preflight as core
    from rocm_tune.core.runs import rundir as rd

    log_path = os.path.join(info.dir, rd.STDOUT_LOG)
    pos = 0
    try:
        while True:
            status = rd.load_run(info.dir).status
            if not as_json:
                try:
                    with open(log_path, "rb") as fh:
                        fh.seek(pos)
                        chunk = fh.read()
                        pos += len(chunk)
                    if chunk:
                        sys.stdout.write(chunk.decode(errors="replace"))
                        sys.stdout.flush()
                except OSError:
                    pass
            if status != "running":
                break
            time.sleep(0.3)
    except KeyboardInterrupt:
        print(f"\n(still running: rocm-tune attach {info.id})", file=sys.stderr)
        return 130
    result = core.read_result(info.dir)
    final = rd.load_run(info.dir)
    if result is None:
        if as_json:
            print_json({"status": "error", "run": final.to_dict(), "exit_code": final.returncode})
        else:
            print(f"preflight run {info.id} ended ({final.status}, exit code {final.returncode}) without a result; "
                  f"see {log_path}", file=sys.stderr)
        return 2 if final.returncode == 2 else 1
    if as_json:
        print_json({**result, "run_id": info.id, "run_dir": info.dir})
    return core.exit_code(result)

