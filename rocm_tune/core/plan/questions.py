"""The wizard's questions, declared once.

Pure data: the Textual wizard renders each `Question` as a field, `rocm-tune wizard --plain`
asks it with questionary, and `--answers FILE.yaml` fills it from a file. Nothing here imports
textual, rich or questionary.

Answer names match the `plan` CLI flags and the `goal`/`hardware` blocks of plan.json:
`--gpu --gpus --nodes --cpu-ram-gib --method --stage --effective-batch --priority --lora-rank
--dataset --hours --epochs`; `core.plan.answers.request_from_answers` turns them into the planner's
request, as it does for the CLI flags. Defaults and limits come from `core.vocabulary`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError

KINDS = ("choice", "int", "float", "text", "path", "bool")


@dataclass(frozen=True)
class Question:
    name: str                      # answer key (and plan flag without the dashes)
    kind: str                      # one of KINDS
    label: str                     # short prompt
    help: str                      # one line shown under the field
    group: str                     # wizard step: "hardware" | "model" | "goal"
    default: Any = None            # None = no value (optional questions) / "let the planner choose"
    choices: tuple[str, ...] = ()  # for kind == "choice" (static)
    choices_from: str | None = None  # dynamic choices: "gpu_profiles" | "presets"
    minimum: float | None = None
    maximum: float | None = None
    optional: bool = False         # blank answer allowed (means "not given")
    # ask only when another answer has one of these values: (name, (values...))
    when: tuple[str, tuple[Any, ...]] | None = None
    choice_help: dict[str, str] = field(default_factory=dict)

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def applies(self, answers: dict[str, Any]) -> bool:
        if self.when is None:
            return True
        other, values = self.when
        return answers.get(other) in values

    def parse(self, raw: Any, choices: tuple[str, ...] | None = None) -> Any:
        """Turn a raw answer (text from a field/prompt, or a YAML value) into a typed value.

        Blank -> None for optional questions, the default otherwise. Bad values raise a
        UserError that names the question and what is allowed.
        """
        allowed = tuple(choices) if choices is not None else self.choices
        if raw is None or (isinstance(raw, str) and raw.strip() == ""):
            if self.optional:
                return None
            if self.default is None:
                raise UserError(f"{self.name} is required: {self.help}")
            return self.default
        if self.kind == "choice":
            value = str(raw).strip()
            if allowed and value not in allowed:
                shown = ", ".join(allowed[:12]) + (" ..." if len(allowed) > 12 else "")
                raise UserError(f"{self.name} must be one of {shown}; got {value!r}")
            return value
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("y", "yes", "true", "1", "on"):
                return True
            if text in ("n", "no", "false", "0", "off"):
                return False
            raise UserError(f"{self.name} must be yes or no, got {raw!r}")
        if self.kind in ("int", "float"):
            if isinstance(raw, bool):
                raise UserError(f"{self.name} must be a number, got {raw!r}")
            if isinstance(raw, float) and not math.isfinite(raw):  # YAML .inf / .nan
                raise UserError(f"{self.name} must be a finite number, got {raw!r}")
            try:
                num = float(str(raw).strip()) if self.kind == "float" else _as_int(raw)
            except (TypeError, ValueError, OverflowError):
                what = "an integer" if self.kind == "int" else "a number"
                raise UserError(f"{self.name} must be {what}, got {str(raw)[:40]!r}") from None
            if isinstance(num, float) and not math.isfinite(num):
                raise UserError(f"{self.name} must be a finite number, got {str(raw)[:40]!r}")
            lo, hi = self.minimum, self.maximum
            if (lo is not None and num < lo) or (hi is not None and num > hi):
                raise UserError(f"{self.name} must be between {_g(lo)} and {_g(hi)}, got {_g(num)}")
            return num
        if self.kind == "path":
            text = os.path.expanduser(str(raw).strip())
            if not os.path.exists(text):
                raise UserError(f"{self.name}: no such file or directory {text!r}")
            return text
        text = str(raw).strip()
        if len(text) > 4096 or "\x00" in text:
            raise UserError(f"{self.name} is not a usable value: {text[:40]!r}...")
        return text


def _as_int(raw: Any) -> int:
    """An integer answer: an int, a float without a fraction, or text of digits. ValueError otherwise
    (inf/nan, a fraction, more than 4300 digits), TypeError for a list, mapping or date."""
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        if not math.isfinite(raw) or raw != int(raw):
            raise ValueError(raw)
        return int(raw)
    if not isinstance(raw, str):  # a YAML list, mapping or date is not a number
        raise TypeError(raw)
    text = raw.strip().replace("_", "")
    return int(text)


def _g(x: float | None) -> str:
    if x is None:
        return "any"
    return f"{x:g}" if isinstance(x, float) else str(x)


def _lo(name: str) -> float:
    lim = V.LIMITS[name]
    return int(lim.lo) if lim.integer else lim.lo


def _hi(name: str) -> float:
    lim = V.LIMITS[name]
    return int(lim.hi) if lim.integer else lim.hi


QUESTIONS: tuple[Question, ...] = (
    # --- hardware ---
    Question(
        "gpu", "choice", "GPU", "GPU profile to plan for; 'auto' uses the GPUs detected on this machine",
        group="hardware", default="auto", choices=("auto",), choices_from="gpu_profiles",
    ),
    Question("gpus", "int", "GPUs per node", "how many GPUs of that kind each node has (auto: detected)",
             group="hardware", default=None, minimum=_lo("gpus"), maximum=_hi("gpus"), optional=True),
    Question("nodes", "int", "Nodes", "machines in the job (1 = this machine)", group="hardware",
             default=1, minimum=_lo("nodes"), maximum=_hi("nodes")),
    Question("cpu_ram_gib", "float", "CPU RAM (GiB)", "host memory per node, for offload (blank: detect)",
             group="hardware", default=None, minimum=_lo("cpu_ram_gib"), maximum=_hi("cpu_ram_gib"), optional=True),
    # --- model ---
    Question(
        "model", "text", "Model",
        "preset name (e.g. qwen2.5-7b), a local dir / config.json, or a hub id in the local cache",
        group="model", default=None, choices_from="presets",
    ),
    # --- goal ---
    Question(
        "method", "choice", "Method", "how many weights train: LoRA adapters, QLoRA (4-bit base), all, or last layers",
        group="goal", default=V.DEFAULT_METHOD, choices=("lora", "qlora", "full", "freeze"),
        choice_help={"lora": "low-rank adapters on a bf16/fp16/fp32 base", "qlora": "adapters on a 4-bit base",
                     "full": "every weight trains", "freeze": "only the last N layers train"},
    ),
    Question("stage", "choice", "Stage", "supervised fine-tuning, preference (DPO) or continued pre-training",
             group="goal", default=V.DEFAULT_STAGE, choices=V.STAGES),
    Question("effective_batch", "int", "Effective batch", "samples per optimizer step across all GPUs",
             group="goal", default=V.DEFAULT_EFFECTIVE_BATCH, minimum=_lo("effective_batch"),
             maximum=_hi("effective_batch")),
    Question(
        "priority", "choice", "Priority", "what the planner optimises when several configurations fit",
        group="goal", default=V.DEFAULT_PRIORITY, choices=V.PRIORITIES,
        choice_help={"stability": "most headroom, safest precision", "speed": "highest tokens/s",
                     "context": "longest cutoff_len"},
    ),
    Question("lora_rank", "int", "LoRA rank", "adapter rank (8-64 typical)", group="goal",
             default=V.DEFAULT_LORA_RANK, minimum=_lo("lora_rank"), maximum=_hi("lora_rank"),
             when=("method", V.LORA_METHODS)),
    Question("dataset", "path", "Dataset", "optional local alpaca/sharegpt JSON or JSONL; sets cutoff_len from real lengths",
             group="goal", default=None, optional=True),
    Question("epochs", "float", "Epochs", "passes over the dataset", group="goal", default=V.DEFAULT_EPOCHS,
             minimum=_lo("epochs"), maximum=_hi("epochs")),
    Question("hours", "float", "Time budget (h)", "optional wall-clock budget; the plan warns when the ETA exceeds it",
             group="goal", default=None, minimum=_lo("hours"), maximum=_hi("hours"), optional=True),
)

GROUPS = ("hardware", "model", "goal")
BY_NAME: dict[str, Question] = {q.name: q for q in QUESTIONS}


def questions_for(group: str) -> tuple[Question, ...]:
    return tuple(q for q in QUESTIONS if q.group == group)


def dynamic_choices(question: Question) -> tuple[str, ...]:
    """Choices of a question, including the ones loaded from data (GPU profiles, model presets)."""
    base = tuple(question.choices)
    if question.choices_from == "gpu_profiles":
        from rocm_tune.profiles.gpu_profiles import load_gpu_profiles

        return base + tuple(sorted(load_gpu_profiles()))
    if question.choices_from == "presets":
        from rocm_tune.core.model.architecture import list_presets

        return base + tuple(list_presets())
    return base


def defaults() -> dict[str, Any]:
    return {q.name: q.default for q in QUESTIONS}


def parse_answers(raw: dict[str, Any], *, check_choices: bool = True) -> dict[str, Any]:
    """Validate a whole answers mapping (from YAML or the wizard). Unknown keys are an error."""
    if not isinstance(raw, dict):
        raise UserError(f"answers must be a mapping of question name to value, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(BY_NAME))
    if unknown:
        raise UserError(f"unknown answer {unknown[0]!r}; known: {', '.join(BY_NAME)}")
    out: dict[str, Any] = {}
    for q in QUESTIONS:
        if not q.applies(out):
            given = raw.get(q.name) is not None and not (isinstance(raw[q.name], str) and not raw[q.name].strip())
            if given and q.when is not None:  # an answer that would be silently ignored
                other, values = q.when
                raise UserError(f"{q.name} only applies to {other} {' or '.join(map(str, values))}, "
                                f"not {other} {out.get(other)}")
            continue
        choices = None
        if q.kind == "choice" and q.choices_from and check_choices:
            choices = dynamic_choices(q)
            if choices == q.choices:   # data not available: accept any value
                choices = None
        elif q.kind == "choice" and q.choices_from:
            choices = ()
        out[q.name] = q.parse(raw.get(q.name), choices)
    return out
