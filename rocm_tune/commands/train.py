"""`rocm-tune train CONFIG.yaml [--output-dir DIR] [--resume]`: the built-in trainer (foreground).

Use `rocm-tune run --config CONFIG.yaml` (or `rocm-tune run -- rocm-tune train ...`) to run it
detached; several GPUs: `torchrun --nproc_per_node N -m rocm_tune train CONFIG.yaml`.
"""

from __future__ import annotations

import argparse

from rocm_tune.commands._common import int_range


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG_YAML",
                        help="training config with LLaMA-Factory key names (+ train_file, nan_policy)")
    parser.add_argument("--output-dir", metavar="DIR", help="override output_dir of the config")
    parser.add_argument("--resume", nargs="?", const=True, default=False, metavar="CHECKPOINT",
                        help="resume from the latest checkpoint-* in output_dir (error if there is none), or from "
                             "CHECKPOINT")
    parser.add_argument("--max-steps", type=int_range("--max-steps", 1, 10**12), default=None,
                        help="override max_steps of the config")
    parser.add_argument("--check", action="store_true", help="validate the config and exit")


def run(args: argparse.Namespace) -> int:
    import os

    from rocm_tune.core.errors import UserError

    if os.path.isdir(os.path.expanduser(args.config)):
        raise UserError(f"CONFIG_YAML {args.config!r} is a directory; give the training config file (.yaml)")
    if args.check:
        from rocm_tune.train.config import load_config

        cfg = load_config(args.config)
        print(f"config ok: {cfg.finetuning_type} {cfg.precision} on {cfg.model_name_or_path}")
        for k in cfg.ignored:
            print(f"  note: {k!r} is ignored by the built-in trainer")
        return 0
    from rocm_tune.train.callbacks import leave
    from rocm_tune.train.trainer import main_from_args

    code = main_from_args(args.config, output_dir=args.output_dir, resume=args.resume, max_steps=args.max_steps)
    leave(int(code or 0))  # a rank of a multi-process job: without the interpreter's teardown (gloo can abort there)
    return int(code or 0)
