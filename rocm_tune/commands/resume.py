"""`rocm-tune resume RUN [--gpus N] [--nodes N] [--checkpoint DIR] [--notify URL|COMMAND] [--dry-run] [--json]`.

Finds the run's newest complete checkpoint (a checkpoint cut short by a kill is skipped, and said), checks it
against the plan it resumes with and starts the run again detached in the same run directory with
`resume_from_checkpoint=<dir>`: the step count continues, run.json's `restarts` records the restart. A DeepSpeed
ZeRO checkpoint at another world size is first converted to DeepSpeed's universal checkpoint
(core/runs/resume/zero_convert.py)."""

from __future__ import annotations

import argparse
import sys

from rocm_tune.commands._common import int_range, print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="run id, unique id prefix, run name or run directory")
    parser.add_argument("--gpus", type=int_range("--gpus", 1, 1024), default=None,
                        help="GPUs per node for the resumed run (default: the plan's); the effective batch is kept")
    parser.add_argument("--nodes", type=int_range("--nodes", 1, 4096), default=None,
                        help="nodes for the resumed run (default: the plan's)")
    parser.add_argument("--checkpoint", metavar="DIR", default=None,
                        help="resume from this checkpoint-N folder (default: the newest complete one)")
    parser.add_argument("--notify", metavar="URL|COMMAND", default=None,
                        help="tell a webhook or a command when the run finishes, fails, alerts or is retried (default: the config file's notify; none: nothing)")
    parser.add_argument("--dry-run", action="store_true", help="say what would be resumed, start nothing")
    parser.add_argument("--json", action="store_true", help="print the resumed run as one JSON object")


def run(args: argparse.Namespace) -> int:
    import contextlib

    from rocm_tune.core.runs.notify import resolve
    from rocm_tune.core.runs.registry import find_run
    from rocm_tune.core.runs.resume.resume import resume_lock

    targets = resolve(args.notify)  # --notify wins; else the config file's `notify`; `--notify none`: nothing
    info = find_run(args.run)
    # one resume of a run at a time: checked and started under RUN_DIR/.resume.lock (a second one is refused)
    with contextlib.nullcontext() if args.dry_run else resume_lock(info.dir, info.id):
        return _resume(args, targets)


def _resume(args: argparse.Namespace, targets: list[str]) -> int:
    from rocm_tune.core.runs.resume.resume import prepare_resume, resume_run

    r = prepare_resume(args.run, gpus=args.gpus, nodes=args.nodes, checkpoint=args.checkpoint)
    if not args.json:
        ck = r.checkpoint
        print(f"rocm-tune resume: {r.run_id} from {ck.path} (step {ck.global_step})", file=sys.stderr)
        for note in r.notes:
            print(f"  note: {note}", file=sys.stderr)
    if args.dry_run:
        if args.json:
            print_json(r.to_dict() | {"started": False})
        else:
            print(" ".join(r.command))
        return 0
    if args.notify is not None or targets:
        from rocm_tune.core.runs import rundir as rd

        # replaces what run.json held (the first run's --notify): an explicit choice or the config file's list
        rd.update_run_json(r.run_dir, notify=(targets[0] if len(targets) == 1 else targets) or None)
    u = r.universal
    if u is not None and not u.done and not args.json:
        print(f"rocm-tune resume: converting {u.checkpoint}/{u.tag} to DeepSpeed's universal checkpoint "
              f"(ds_to_universal, log: {r.run_dir}/zero-convert.log)", file=sys.stderr)
    info = resume_run(r)
    if args.json:
        print_json(info.to_dict() | {"resume": r.to_dict()})
    else:
        print(info.id)
        print(f"  dir: {info.dir}")
        print(f"  watch: rocm-tune attach {info.id}    stop: rocm-tune stop {info.id}")
    return 0
