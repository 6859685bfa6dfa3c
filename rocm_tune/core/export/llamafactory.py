"""The training YAML read by `llamafactory-cli train` (LLaMA-Factory 0.9.x) and by `rocm-tune train`.

LLaMA-Factory parses the YAML with HfArgumentParser over its dataclasses and rejects keys that none
of them declares, so only known names are written. `KNOWN_KEYS` says where each name is declared:

* ``model_args``: ``src/llamafactory/hparams/model_args.py`` (BaseModelArguments,
  QuantizationArguments) — model_name_or_path, trust_remote_code, flash_attn
  (``AttentionFunction``: auto | disabled | sdpa | fa2), disable_gradient_checkpointing,
  use_reentrant_gc, quantization_bit, double_quantization.
* ``data_args``: ``hparams/data_args.py`` (DataArguments) — dataset, dataset_dir, template,
  cutoff_len, packing, max_samples.
* ``finetuning_args``: ``hparams/finetuning_args.py`` (FinetuningArguments, LoraArguments,
  FreezeArguments) — stage, finetuning_type, lora_rank, lora_alpha, lora_dropout, lora_target,
  use_dora, freeze_trainable_layers, pure_bf16.
* ``training_args``: ``hparams/training_args.py`` TrainingArguments = transformers
  ``Seq2SeqTrainingArguments`` (+ LLaMA-Factory's own ``overwrite_output_dir``) — do_train, output_dir,
  logging_steps, save_steps, per_device_train_batch_size, gradient_accumulation_steps, learning_rate,
  num_train_epochs, max_steps, lr_scheduler_type, warmup_ratio, max_grad_norm, bf16, fp16, optim,
  deepspeed, ddp_find_unused_parameters, ddp_timeout, resume_from_checkpoint, seed, report_to.

Checked against hiyouga/LLaMA-Factory (hparams/*.py, v0.9.x) and a real 0.9.5 run
(shared/fixtures/llamafactory-0.9.5-lora-cpu/train.yaml). The same names are what rocm-tune's
built-in trainer reads ("Training config YAML" in docs/internals.md).
"""

from __future__ import annotations

import yaml

from rocm_tune.core.errors import UserError
from rocm_tune.core.export.common import DS_JSON, ExportOptions, Resolved, comment

KNOWN_KEYS: dict[str, str] = {
    # model_args (BaseModelArguments / QuantizationArguments)
    "model_name_or_path": "model_args",
    "trust_remote_code": "model_args",
    "flash_attn": "model_args",
    "disable_gradient_checkpointing": "model_args",
    "use_reentrant_gc": "model_args",
    "quantization_bit": "model_args",
    "double_quantization": "model_args",
    # data_args
    "dataset": "data_args",
    "dataset_dir": "data_args",
    "template": "data_args",
    "cutoff_len": "data_args",
    "packing": "data_args",
    "max_samples": "data_args",
    # finetuning_args
    "stage": "finetuning_args",
    "finetuning_type": "finetuning_args",
    "lora_rank": "finetuning_args",
    "lora_alpha": "finetuning_args",
    "lora_dropout": "finetuning_args",
    "lora_target": "finetuning_args",
    "use_dora": "finetuning_args",
    "freeze_trainable_layers": "finetuning_args",
    "pure_bf16": "finetuning_args",
    # training_args (transformers Seq2SeqTrainingArguments + overwrite_output_dir)
    "do_train": "training_args",
    "output_dir": "training_args",
    "overwrite_output_dir": "training_args",
    "logging_steps": "training_args",
    "save_steps": "training_args",
    "per_device_train_batch_size": "training_args",
    "gradient_accumulation_steps": "training_args",
    "learning_rate": "training_args",
    "num_train_epochs": "training_args",
    "max_steps": "training_args",
    "lr_scheduler_type": "training_args",
    "warmup_ratio": "training_args",  # transformers < 5.2 (removed there)
    "warmup_steps": "training_args",  # transformers >= 5: a float in [0, 1) is a ratio
    "max_grad_norm": "training_args",
    "bf16": "training_args",
    "fp16": "training_args",
    "optim": "training_args",
    "deepspeed": "training_args",
    "ddp_find_unused_parameters": "training_args",
    "ddp_timeout": "training_args",
    "resume_from_checkpoint": "training_args",
    "seed": "training_args",
    "report_to": "training_args",
}


# The transformers that the runner imports, not rocm-tune's own, decides how a warmup ratio is spelled.
# LLaMA-Factory 0.9.5 (the version the bundle targets, setup.py/requirements) allows transformers
# >=4.55.0,<=5.6.0 (!=4.57.0): there `warmup_ratio` is a ratio on every version (5.x only warns that it
# is deprecated), while `warmup_steps: 0.1` is refused below 5.0 ("warmup_steps must be of type int").
# Checked with the real parser under 4.55.4 and 5.6.0 in tests/realstack.
RUNNER_TRANSFORMERS = {"llamafactory": ("4.55.0", "5.6.0")}  # hence ExportOptions.warmup_key = warmup_ratio


def guess_template(family: str, name: str) -> str:
    """LLaMA-Factory `template` for a model (names from its data/template.py); "default" if unknown."""
    n = (name or "").lower()
    f = (family or "").lower()
    if "deepseek-r1" in n:
        return "deepseekr1"
    if f in ("qwen2", "qwen2_moe"):
        return "qwen"
    if f in ("qwen3", "qwen3_moe"):
        return "qwen3"
    if f == "llama":
        if "yi-" in n or n.startswith("yi"):
            return "yi"
        return "llama3" if ("llama-3" in n or "llama3" in n) else "llama2"
    if f in ("mistral", "mixtral"):
        return "mistral"
    if f in ("gemma", "gemma2"):
        return f
    if f in ("gemma3", "gemma3_text"):
        return "gemma3"
    if f in ("chatglm", "glm", "glm4"):
        return "glm4" if ("glm-4" in n or "glm4" in n) else "chatglm3"
    if f in ("baichuan",):
        return "baichuan2"
    if f in ("internlm2",):
        return "intern2"
    if f in ("phi3",):
        return "phi4" if "phi-4" in n else "phi"
    if f in ("deepseek_v2", "deepseek_v3"):
        return "deepseek3"
    return "default"


def in_bundle(opts: ExportOptions, name: str) -> str:
    """A file name of the bundle as an absolute path when the bundle's directory is known, so the YAML
    means the same from any working directory (`llamafactory-cli train DIR/llamafactory.yaml`, sbatch)."""
    import os

    if opts.bundle_dir and name != "ONLINE" and not os.path.isabs(name):
        return os.path.normpath(os.path.join(opts.bundle_dir, name))
    return name


def config(r: Resolved, opts: ExportOptions) -> list[tuple[str, list[tuple[str, object]]]]:
    """The YAML content as ordered sections of (key, value)."""
    model = [
        ("model_name_or_path", opts.model or r.model_ref),
        ("trust_remote_code", r.trust_remote_code),
        ("flash_attn", r.attn),
    ]
    method: list[tuple[str, object]] = [
        ("stage", r.stage),
        ("do_train", True),
        ("finetuning_type", "lora" if r.method in ("lora", "qlora") else r.method),
    ]
    if r.method in ("lora", "qlora"):
        method += [
            ("lora_rank", r.lora_rank),
            ("lora_alpha", r.lora_alpha),
            ("lora_dropout", float(opts.lora_dropout)),
            ("lora_target", ",".join(r.lora_targets)),
        ]
        if r.dora:
            method.append(("use_dora", True))
    if r.method == "qlora":
        method += [("quantization_bit", r.quant_bits or 4), ("double_quantization", r.double_quant)]
    if r.method == "freeze":
        method.append(("freeze_trainable_layers", r.freeze_trainable_layers))
    if not r.gradient_checkpointing:
        method.append(("disable_gradient_checkpointing", True))
    elif r.use_reentrant is False and r.world_size > 1:
        # DDP + gradient checkpointing (+ LoRA): non-reentrant checkpointing avoids
        # "Expected to mark a variable ready only once" (field notes, report 004)
        method.append(("use_reentrant_gc", False))
    elif r.use_reentrant is True:
        # LoRA + ZeRO-3: reentrant, said aloud (LLaMA-Factory's default, not `rocm-tune train`'s)
        method.append(("use_reentrant_gc", True))
    if r.uses_deepspeed:
        method.append(("deepspeed", in_bundle(opts, DS_JSON)))
    data: list[tuple[str, object]] = []
    if opts.dataset_name:
        # LLaMA-Factory resolves the name(s) in dataset_dir (default `data`, relative to the bundle directory
        # where run.sh runs it); core/export/datasets.py checked them when that folder is readable here
        data.append(("dataset", opts.dataset_name))
        data.append(("dataset_dir", in_bundle(opts, opts.dataset_dir or "data")))
    data += [("template", opts.template or guess_template(r.family, r.model_name)), ("cutoff_len", r.cutoff_len)]
    if r.stage == "pt":
        data.append(("packing", True))
    output = [
        ("output_dir", in_bundle(opts, opts.output_dir)),
        ("logging_steps", opts.logging_steps),
        ("save_steps", opts.save_steps),
        ("overwrite_output_dir", not opts.resume),
        ("report_to", opts.report_to),
    ]
    train: list[tuple[str, object]] = [
        ("per_device_train_batch_size", r.micro_batch),
        ("gradient_accumulation_steps", r.grad_accum),
        ("learning_rate", float(r.learning_rate)),
        ("num_train_epochs", float(r.epochs)),
        ("lr_scheduler_type", opts.lr_scheduler_type),
        (opts.warmup_key if r.runner == "llamafactory" else "warmup_ratio", float(opts.warmup_ratio)),
        ("max_grad_norm", float(opts.max_grad_norm)),
        ("bf16", r.precision == "bf16"),
        ("fp16", r.precision == "fp16"),
    ]
    if r.precision == "pure_bf16":
        train.append(("pure_bf16", True))
    train.append(("optim", r.optim))
    if r.world_size > 1:
        if r.ddp_find_unused_parameters is not None:
            train.append(("ddp_find_unused_parameters", r.ddp_find_unused_parameters))
        train.append(("ddp_timeout", opts.ddp_timeout))
    if opts.resume:
        train.append(("resume_from_checkpoint", True))
    train.append(("seed", opts.seed))
    return [("model", model), ("method", method), ("dataset", data), ("output", output), ("train", train)]


def as_dict(r: Resolved, opts: ExportOptions) -> dict:
    out: dict = {}
    for _, items in config(r, opts):
        for k, v in items:
            out[k] = v
    unknown = [k for k in out if k not in KNOWN_KEYS]
    if unknown:  # a programming error, never user input
        raise AssertionError(f"unknown LLaMA-Factory keys: {unknown}")
    return out


def _scalar(v: object) -> str:
    text = yaml.safe_dump(v, default_flow_style=True, allow_unicode=True, width=10**9)
    text = text.strip()
    if text.endswith("\n...") or text.endswith("..."):
        text = text[: text.rfind("...")].strip()
    return text


def render(r: Resolved, opts: ExportOptions) -> str:
    if not opts.dataset_name:
        raise UserError("llamafactory.yaml needs a dataset: pass --dataset FILE, or --dataset-name NAME (and --dataset-dir DIR)")
    as_dict(r, opts)  # validates the keys
    lines = [
        f"# LLaMA-Factory 0.9.x training config (also runs with `rocm-tune train {'llamafactory.yaml'}`)",
        f"# {comment(f'model {r.model_name}, {r.method} on {r.gpus} x {r.gpu_name} x {r.nodes} node(s), {r.precision}')}",
        f"# effective batch = {r.micro_batch} x {r.grad_accum} accumulation x {r.world_size} GPU(s)"
        f" = {r.micro_batch * r.grad_accum * r.world_size}",
    ]
    for title, items in config(r, opts):
        if not items:
            continue
        lines.append("")
        lines.append(f"### {title}")
        for k, v in items:
            lines.append(f"{k}: {_scalar(v)}")
    return "\n".join(lines) + "\n"
