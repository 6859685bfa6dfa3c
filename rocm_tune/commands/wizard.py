"""`rocm-tune wizard`: the wizard's questions (declared once in `rocm_tune.core.plan.questions`).

    rocm-tune wizard                 the full-screen wizard (same as `rocm-tune` with no command)
    rocm-tune wizard --plain         ask the questions line by line (questionary), print the plan
    rocm-tune wizard --answers a.yaml [--json] [-o plan.json] [--force]
                                     no questions: answers from a YAML file (for scripts / CI)

Without a terminal, `--plain` asks nothing: unanswered questions take their defaults and a
missing required answer (the model) is an error naming it. Exit 0 when the plan fits, 1 when
nothing fits, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from rocm_tune.core.errors import UserError
from rocm_tune.core.plan.questions import BY_NAME, QUESTIONS, dynamic_choices, parse_answers


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--plain", action="store_true",
                        help="ask the questions line by line instead of opening the full-screen app")
    parser.add_argument("--answers", metavar="FILE.yaml",
                        help="answers from a YAML mapping (keys: " + ", ".join(BY_NAME) + "); asks nothing")
    parser.add_argument("--json", action="store_true", help="print the plan as one JSON object (plan.json)")
    parser.add_argument("-o", "--output", metavar="PLAN.json", help="also write the plan to this file")
    parser.add_argument("--force", action="store_true", help="overwrite --output if it exists")
    parser.add_argument("--list", action="store_true", help="list the questions (name, kind, default, help)")


def load_answers_file(path: str) -> dict[str, Any]:
    """The answers mapping of a YAML file (the shared reader: a regular file only, so a FIFO never
    blocks and /dev/zero is never read; bounded size and nesting; one-line errors)."""
    from rocm_tune.core.files import read_yaml

    data = read_yaml(path, "--answers file")
    # accept dashes too (flag spelling): effective-batch -> effective_batch
    return {str(k).replace("-", "_"): v for k, v in data.items()}


def ask_plain(preset: dict[str, Any]) -> dict[str, Any]:
    """Ask every applicable question with questionary; `preset` answers become the defaults."""
    import questionary

    answers: dict[str, Any] = {}
    for q in QUESTIONS:
        if not q.applies(answers):
            continue
        default = preset.get(q.name, q.default)
        choices = dynamic_choices(q) if q.kind == "choice" else ()

        def validate(text: str, q=q, choices=choices) -> bool | str:
            try:
                q.parse(text, choices if len(choices) > 1 else None)
            except UserError as exc:
                return str(exc)
            return True

        label = f"{q.label} ({q.help})"
        if q.kind == "choice" and choices:
            prompt = questionary.select(label, choices=list(choices),
                                        default=default if default in choices else None)
        elif q.kind == "choice" or q.name == "model":
            prompt = questionary.autocomplete(label, choices=list(dynamic_choices(q)) or [""],
                                              default="" if default is None else str(default), validate=validate)
        elif q.kind == "bool":
            prompt = questionary.confirm(label, default=bool(default))
        elif q.kind == "path":
            prompt = questionary.path(label, default="" if default is None else str(default), validate=validate)
        else:
            shown = "" if default is None else (f"{default:g}" if isinstance(default, float) else str(default))
            prompt = questionary.text(label, default=shown, validate=validate)
        raw = prompt.ask()
        if raw is None:  # Ctrl-C
            raise KeyboardInterrupt
        answers[q.name] = q.parse(raw, choices if len(choices) > 1 else None)
    return answers


def run(args: argparse.Namespace) -> int:
    if args.list and args.json:
        from rocm_tune.commands._common import print_json

        print_json({"questions": [
            {"name": q.name, "kind": q.kind, "label": q.label, "help": q.help, "group": q.group,
             "default": q.default, "choices": list(q.choices), "choices_from": q.choices_from,
             "minimum": q.minimum, "maximum": q.maximum, "optional": q.optional, "flag": q.flag}
            for q in QUESTIONS]})
        return 0
    if args.list:
        for q in QUESTIONS:
            extra = f" choices: {', '.join(q.choices)}" if q.choices and len(q.choices) > 1 else ""
            print(f"{q.name:<16} {q.kind:<7} default={q.default!r:<12} {q.help}{extra}")
        return 0
    if args.force and not args.output:
        raise UserError("--force only applies to -o/--output PLAN.json (overwrite that file)")
    if args.output:
        from rocm_tune.core.files import existing

        there = existing(args.output)  # a dangling symlink or a symlink loop counts as existing
        if os.path.isdir(args.output):
            raise UserError(f"--output {args.output!r} is a directory; give a file path")
        if there is not None and not args.force:
            raise UserError(f"--output {args.output!r} {'exists' if there == 'exists' else there}; "
                            "add --force to overwrite it")
        if there == "is under a symlink loop":
            raise UserError(f"--output {args.output!r} is under a symlink loop; give another path")
    preset = load_answers_file(args.answers) if args.answers else {}
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if not args.plain and not args.answers and interactive:
        from rocm_tune.tui.app import run_app

        return run_app()
    if args.answers or not interactive:
        if "model" not in preset:
            raise UserError("model is required: give it in --answers FILE.yaml (e.g. `model: qwen2.5-7b`)")
        answers = parse_answers(preset)
    else:
        answers = ask_plain(preset)

    from rocm_tune.core.plan.planner import plan
    from rocm_tune.core.plan.answers import request_from_answers

    from rocm_tune.core.memory.checkpoint_size import with_local_disk

    result = plan(with_local_disk(request_from_answers(answers)))
    d = result.to_dict()
    if args.output:
        from rocm_tune.core.files import atomic_write_text

        atomic_write_text(args.output, json.dumps(d, indent=2) + "\n", force=args.force, flag="--output")
    if args.json:
        from rocm_tune.commands._common import print_json

        print_json(d)
    else:
        from rocm_tune.commands.plan import render

        print(render(result))  # the same text as `rocm-tune plan`, execution block included
        if args.output:
            print(f"plan written to {args.output}")
    return 0 if d.get("fits") else 1
