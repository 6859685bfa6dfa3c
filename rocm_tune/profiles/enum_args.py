"""Which option enum an argparse option's `choices` come from (e-ver3, issue 26): data, no logic.

transformers' HfArgumentParser gives a dataclass field typed with an Enum `choices=[its values]`
(transformers/hf_argparser.py _parse_dataclass_field: `if isinstance(field.type, type) and issubclass(field.type,
Enum): kwargs["choices"] = [x.value for x in field.type]`), so a value the installed release's enum lacks is refused
on the command line by argparse, `error: argument --optim: invalid choice: 'x' (choose from ...)`, not by the enum's
ValueError. accelerate's `launch` lists the values of its own enums as choices (commands/launch.py:
`--mixed_precision choices=["no", "fp16", "bf16", "fp8"]`, `--dynamo_backend choices=["no"] + [b.lower() for b in
DYNAMO_BACKENDS]`). Option name ('-' written '_') -> the enum class of profiles/enum_values.py whose releases decide.
"""
from __future__ import annotations

ARG_ENUMS: dict[str, str] = {
    # transformers/training_args.py TrainingArguments fields (Union[<Enum>, str])
    "lr_scheduler_type": "SchedulerType",
    "optim": "OptimizerNames",
    "eval_strategy": "IntervalStrategy",
    "evaluation_strategy": "IntervalStrategy",
    "save_strategy": "IntervalStrategy",        # SaveStrategy from 4.47 (ENUM_SUCCESSORS)
    "logging_strategy": "IntervalStrategy",
    "hub_strategy": "HubStrategy",
    # accelerate/commands/launch.py
    "mixed_precision": "PrecisionType",
    "dynamo_backend": "DynamoBackend",
}
