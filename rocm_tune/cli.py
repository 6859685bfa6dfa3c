"""Entry point `rocm-tune`.

No subcommand opens the Textual wizard. Every other subcommand is a thin front over `core`,
implemented in `rocm_tune/commands/<name>.py` with two functions:

    def add_arguments(parser: argparse.ArgumentParser) -> None
    def run(args: argparse.Namespace) -> int      # 0 ok, 1 negative answer, 2 bad input

Only the module of the chosen subcommand is imported, so start-up stays fast.
Bad input raises `rocm_tune.core.errors.UserError`; it is printed here on one line, exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from rocm_tune import __version__
from rocm_tune.core.errors import UserError

# name -> (module under rocm_tune.commands, one-line help). Order is the order in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "estimate": ("estimate", "per-GPU training memory of one configuration, itemised"),
    "plan": ("plan", "recommend the whole configuration for a model, GPUs and goal, with reasons"),
    "models": ("models", "list or search the model presets; --show one model's shape and parameter counts"),
    "dataset": ("dataset", "token-length statistics of a local dataset and truncation per cutoff_len"),
    "export": ("export", "write a ready-to-run bundle (run.sh, LLaMA-Factory YAML, DeepSpeed JSON, ...)"),
    "run": ("run", "start a training command detached from the terminal, in its own run directory"),
    "runs": ("runs", "list known runs with status and progress"),
    "attach": ("attach", "watch any run: run id, run/output directory, log file or PID"),
    "stop": ("stop", "stop a run: SIGTERM to its whole process group, then SIGKILL"),
    "gpus": ("gpus", "detected GPUs, the backend used and a live sample; --profiles lists known GPUs"),
    "doctor": ("doctor", "system checks for ROCm/CUDA, torch, IOMMU, DeepSpeed ... with fixes"),
    "demo": ("demo", "plan, launch and watch a tiny real training on this machine (no GPU needed)"),
    "train": ("train", "the built-in trainer: transformers Trainer + PEFT from a YAML config"),
    "wizard": ("wizard", "the wizard's questions; --plain asks them without the full-screen app"),
}


class ArgParser(argparse.ArgumentParser):
    """argparse that reports errors as one-line UserErrors (exit 2, no usage dump)."""

    def error(self, message: str):  # type: ignore[override]
        raise UserError(message)

    def _get_value(self, action, arg_string):  # type: ignore[override]
        # argparse turns a ValueError from a `type=` function into a bare "invalid value"; our value
        # types raise UserError with the allowed range, which must reach the user as it is.
        type_func = self._registry_get("type", action.type, action.type)
        if callable(type_func) and type_func is not str:
            try:
                return type_func(arg_string)
            except UserError:
                raise
            except Exception:
                pass  # let argparse word its own message
        return super()._get_value(action, arg_string)


def _top_help() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = [
        f"usage: rocm-tune [COMMAND] [ARGS...]   (rocm-tune {__version__})",
        "",
        "With no command, opens the terminal wizard. Commands:",
    ]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "rocm-tune COMMAND --help shows the options of one command."]
    return "\n".join(lines)


def build_parser(name: str) -> tuple[argparse.ArgumentParser, object]:
    module_name, help_ = COMMANDS[name]
    module = importlib.import_module(f"rocm_tune.commands.{module_name}")
    parser = ArgParser(prog=f"rocm-tune {name}", description=help_)
    module.add_arguments(parser)
    return parser, module


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv:
            from rocm_tune.tui.app import run_app  # lazy: textual only when the app opens

            return run_app() or 0
        first = argv[0]
        if first in ("-h", "--help", "help"):
            print(_top_help())
            return 0
        if first in ("-V", "--version"):
            print(f"rocm-tune {__version__}")
            return 0
        if first not in COMMANDS:
            raise UserError(f"unknown command {first!r}; expected one of: {', '.join(COMMANDS)}")
        parser, module = build_parser(first)
        args = parser.parse_args(argv[1:])
        return int(module.run(args) or 0)
    except UserError as exc:
        prog = f"rocm-tune {argv[0]}" if argv and argv[0] in COMMANDS else "rocm-tune"
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
