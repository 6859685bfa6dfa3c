"""`rocm-tune explain TARGET [--json]`: why a run failed or hangs — the root cause, the fix, with numbers.

TARGET: a log file, `-` (pasted text on stdin), a run id / run directory, a LLaMA-Factory or HF output
directory, or a PID. The config beside the log (plan.json, training_args.yaml, trainer_state.json, the
YAML on the log's command line, DeepSpeed JSON and launch scripts in the same folder) or `--config FILE`
gives the numbers and the settings already on (a fix never suggests those again). Exit 0: healthy or finished (or nothing found);
1: a failure or hang is diagnosed; 2: bad input. Logic: rocm_tune.core.runs.diagnose.diagnose.
"""

from __future__ import annotations

import argparse
import sys

from rocm_tune.commands._common import float_range, print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", help="log file, - (stdin), run id/directory, LLaMA-Factory/HF output directory "
                                       "or PID")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout (status, root, diagnoses, "
                                                            "config)")
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--stacks", action="store_true", default=None,
                   help="dump each live rank's Python stack now (py-spy, or a faulthandler on SIGUSR2)")
    g.add_argument("--no-stacks", dest="stacks", action="store_false",
                   help="never signal or inspect the live processes")
    parser.add_argument("--config", metavar="FILE",
                        help="the run's config (training YAML, DeepSpeed JSON, launch script) when it is not beside "
                             "the log")
    parser.add_argument("--stall-s", type=float_range("--stall-s", 1, 7 * 86400), default=300.0,
                        help="a live run whose logs have not grown this long is a hang (default 300)")


def run(args: argparse.Namespace) -> int:
    import os

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.runs.diagnose.diagnose import explain_target, render_text

    if args.config is not None:
        from rocm_tune.core.files import open_regular

        if not os.path.lexists(args.config):
            raise UserError(f"--config {args.config!r}: no such file")
        # a directory, a FIFO (never opened blocking), a device, a dangling link or a loop: said as what it is
        os.close(open_regular(args.config, "--config"))
    exp = explain_target(args.target, stdin=sys.stdin.buffer if args.target == "-" else None, stacks=args.stacks,
                         stall_s=args.stall_s, config_path=args.config)
    if args.json:
        print_json(exp.to_dict())
    else:
        print(render_text(exp))
    return exp.exit_code
