"""LLaMA-Factory YAML files, `key=value` overrides and command-line flags -> settings (pure; yaml).

LLaMA-Factory's own argument names are the canonical keys of `check`, so this reader maps 1:1; the
old names (`evaluation_strategy`) are kept as written."""

from __future__ import annotations

import yaml

from rocm_tune.core.formats.common import Setting

# keys that mark a mapping as a LLaMA-Factory config (hparams/model_args.py, finetuning_args.py, data_args.py)
MARKERS = ("finetuning_type", "cutoff_len", "template", "lora_target", "model_name_or_path", "stage",
           "freeze_trainable_layers", "quantization_bit")


def is_lf_mapping(d) -> bool:
    return isinstance(d, dict) and sum(k in d for k in MARKERS) >= 2


def _scalar(v):
    if isinstance(v, str):
        return v.strip()
    return v


def yaml_lines(text: str) -> dict[str, int]:
    """Top-level key -> 1-based line, from the YAML node marks."""
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    out: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for k, _v in node.value:
            if isinstance(k, yaml.ScalarNode):
                out[str(k.value)] = k.start_mark.line + 1
    return out


def read_yaml(data: dict, text: str, file: str) -> dict[str, Setting]:
    lines = yaml_lines(text)
    return {str(k): Setting(str(k), _scalar(v), file, lines.get(str(k)), str(k), "yaml") for k, v in data.items()}


def read_overrides(words: list[tuple[str, int]], file: str) -> dict[str, Setting]:
    """`llamafactory-cli train cfg.yaml key=value ...` (OmegaConf dotlist)."""
    out: dict[str, Setting] = {}
    for w, line in words:
        k, v = w.split("=", 1)
        out[k] = Setting(k, _override_value(v, file) if v else "", file, line, k, "override")
    return out


def _override_value(v: str, file: str):
    """An override's value as YAML (files.load_yaml's limits); the text itself when it is not YAML."""
    from rocm_tune.core.files import load_yaml

    try:
        return load_yaml(v, file, "override", syntax_errors=True)
    except yaml.YAMLError:
        return v


def read_flags(flags: dict[str, tuple[str, int]], file: str) -> dict[str, Setting]:
    """`src/train_bash.py --stage sft --fp16 ...` (HfArgumentParser: bare --flag = true)."""
    return {k: Setting(k, v, file, line, k, "flag") for k, (v, line) in flags.items()}
