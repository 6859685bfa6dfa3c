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
import os
import re
import sys
from types import ModuleType

from rocm_tune import __version__
from rocm_tune.core.errors import UserError

# name -> (module under rocm_tune.commands, one-line help). Order is the order in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "estimate": ("estimate", "per-GPU training memory of one configuration, itemised"),
    "check": ("check", "read the configs you already have (LLaMA-Factory, scripts, DeepSpeed JSON): fits? minimal fix"),
    "plan": ("plan", "recommend the whole configuration for a model, GPUs and goal, with reasons"),
    "models": ("models", "list or search the model presets; --show one model's shape and parameter counts"),
    "dataset": ("dataset", "token-length statistics of a local dataset and truncation per cutoff_len"),
    "export": ("export", "write a ready-to-run bundle (run.sh, LLaMA-Factory YAML, DeepSpeed JSON, ...)"),
    "run": ("run", "start a training command detached from the terminal, in its own run directory"),
    "runs": ("runs", "list known runs with status and progress"),
    "attach": ("attach", "watch any run: run id, run/output directory, log file or PID"),
    "explain": ("explain", "why a run failed or hangs: root cause, evidence, fix with numbers (log, run, PID)"),
    "stop": ("stop", "stop a run: SIGTERM to its whole process group, then SIGKILL"),
    "resume": ("resume", "resume a run from its newest complete checkpoint, in the same run (--gpus N: another size)"),
    "gpus": ("gpus", "detected GPUs, the backend used and a live sample; --profiles lists known GPUs"),
    "doctor": ("doctor", "system checks for ROCm/CUDA, torch, IOMMU, DeepSpeed ... with fixes"),
    "preflight": ("preflight", "verify a plan on this machine: dtypes, collectives, real steps, memory; re-plan"),
    "demo": ("demo", "plan, launch and watch a tiny real training on this machine (no GPU needed)"),
    "train": ("train", "the built-in trainer: transformers Trainer + PEFT from a YAML config"),
    "wizard": ("wizard", "the wizard's questions; --plain asks them without the full-screen app"),
}


# argparse only takes "-5" / "-.5" as a value; "-inf", "-nan" and "-1e9" would be read as unknown flags and
# reported as "expected one argument" without naming the value. Every such string is a value here (no
# rocm-tune flag looks like a number), so the value types can name and reject it.
_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE)


def _flag_name(action: argparse.Action) -> str:
    if action.option_strings:
        return max(action.option_strings, key=len)
    return action.metavar if isinstance(action.metavar, str) else action.dest


def check_empty_values(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """An empty or blank string given to any option or positional is bad input, never "not given"."""
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        if isinstance(value, str) and not value.strip() and value != action.default:
            raise UserError(f"{_flag_name(action)} {value!r} is empty; give a value "
                            f"(`rocm-tune {parser.prog.split()[-1]} --help` lists what each option takes)")


class ArgParser(argparse.ArgumentParser):
    """argparse that reports errors as one-line UserErrors (exit 2, no usage dump)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self._negative_number_matcher = _NEGATIVE_NUMBER

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


def build_parser(name: str) -> tuple[argparse.ArgumentParser, ModuleType]:
    module_name, help_ = COMMANDS[name]
    module = importlib.import_module(f"rocm_tune.commands.{module_name}")
    parser = ArgParser(prog=f"rocm-tune {name}", description=help_)
    module.add_arguments(parser)
    return parser, module


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        # architectures core.model.architecture does not know: counted exactly through transformers on the meta device
        # when it is installed (torch is imported only when such a model is met)
        from rocm_tune.train.meta_count import install as install_exact_counter

        install_exact_counter()
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
        check_empty_values(parser, args)
        return int(module.run(args) or 0)
    except UserError as exc:
        prog = f"rocm-tune {argv[0]}" if argv and argv[0] in COMMANDS else "rocm-tune"
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # a path the user gave that cannot be read or written (a directory where a file belongs, no
        # permission, disk full): one line naming it, not a traceback. ROCM_TUNE_DEBUG=1 shows the traceback.
        if exc.filename is None or os.environ.get("ROCM_TUNE_DEBUG"):
            raise
        prog = f"rocm-tune {argv[0]}" if argv and argv[0] in COMMANDS else "rocm-tune"
        where = repr(os.fsdecode(exc.filename)) if not isinstance(exc.filename, int) else str(exc.filename)
        if exc.filename2 is not None:
            where += f" -> {os.fsdecode(exc.filename2)!r}"
        print(f"{prog}: error: {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
