"""One reader per runner format (issue 24 item 1): no module outside core/runners parses a runner's files, and
every path that reads a LLaMA-Factory YAML (check, explain's OOM fix, retry) gets the same settings from it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import rocm_tune
from rocm_tune.core.check.check import check
from rocm_tune.core.runners import llamafactory
from rocm_tune.core.runners.config import read_llamafactory
from rocm_tune.core.runs.diagnose.oom_advice import lf_train_config

PKG = Path(rocm_tune.__file__).parent
YAML_PARSERS = {"safe_load", "load", "full_load", "unsafe_load", "compose", "safe_load_all", "load_all",
                "full_load_all", "unsafe_load_all", "parse", "compose_all"}
# where a YAML parse is allowed, and why
ALLOWED = {
    "core/runners/": "the runner modules: the one home of each runner's reader",
    "core/files.py": "the safe loaders every reader goes through (size, nesting and FIFO checks)",
    "profiles/": "rocm-tune's own data files (GPU and model presets), not a runner's config",
    "core/model/architecture.py": "rocm-tune's own model-preset index, not a runner's config",
}
# functions allowed outside those files: (file, function) -> why
ALLOWED_FUNCTIONS = {
    ("train/lf_launch.py", "_read_config_standalone"):
        "a bundle's copy of lf_launch.py runs on a machine without rocm-tune and cannot import the reader",
}


def _yaml_calls(tree: ast.AST):
    """(function name or '', line) of every yaml.<parser>(...) call and `from yaml import <parser>`."""
    out = []

    def visit(node, func: str):
        for child in ast.iter_child_nodes(node):
            f = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr in YAML_PARSERS and isinstance(child.func.value, ast.Name) \
                    and child.func.value.id == "yaml":
                out.append((func, child.lineno))
            if isinstance(child, ast.ImportFrom) and child.module == "yaml" and \
                    any(a.name in YAML_PARSERS for a in child.names):
                out.append((func, child.lineno))
            visit(child, f)

    visit(tree, "")
    return out


def test_no_module_outside_the_runners_parses_yaml():
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if any(rel == a or (a.endswith("/") and rel.startswith(a)) for a in ALLOWED):
            continue
        for func, line in _yaml_calls(ast.parse(path.read_text(encoding="utf-8"))):
            if (rel, func) not in ALLOWED_FUNCTIONS:
                offenders.append(f"rocm_tune/{rel}:{line} ({func or 'module level'})")
    assert offenders == [], ("a runner's files are parsed outside core/runners (use runners.<runner>.read / "
                             "runners.llamafactory.parse_text / load_file): " + ", ".join(offenders))


def test_the_guard_sees_a_parse_in_a_function():
    """The scan finds the calls it must refuse (so the test above can fail)."""
    tree = ast.parse("import yaml\ndef f(t):\n    return yaml.safe_load(t)\nfrom yaml import load\n")
    assert _yaml_calls(tree) == [("f", 3), ("", 4)]


def _files(tmp_path: Path, yaml_text: str, ds: dict | None, ds_name: str = "my_deepspeed.json") -> tuple[Path, dict]:
    y = tmp_path / "train.yaml"
    y.write_text(yaml_text, encoding="utf-8")
    if ds is not None:
        (tmp_path / ds_name).write_text(json.dumps(ds), encoding="utf-8")
    return y, llamafactory.load_file(y)


CASES = [
    # no cutoff_len, no micro-batch: LLaMA-Factory's own defaults for both paths
    ("model_name_or_path: qwen2.5-0.5b\nstage: sft\nfinetuning_type: lora\nbf16: true\n", None),
    # a DeepSpeed JSON whose name does not say its stage (ZeRO-3 + offload inside)
    (("model_name_or_path: qwen2.5-0.5b\nstage: sft\nfinetuning_type: full\nbf16: true\ncutoff_len: 4096\n"
      "per_device_train_batch_size: 2\ndeepspeed: my_deepspeed.json\n"),
     {"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}},
      "bf16": {"enabled": "auto"}}),
    # the name says ZeRO-2 but the file says stage 1
    (("model_name_or_path: qwen2.5-0.5b\nfinetuning_type: lora\nfp16: true\ncutoff_len: 1024\n"
      "disable_gradient_checkpointing: true\ndeepspeed: ds_z2_config.json\n"),
     {"zero_optimization": {"stage": 1}, "fp16": {"enabled": "auto"}}),
]
KEYS = ("method", "precision", "cutoff_len", "micro_batch", "zero_stage", "offload", "gradient_checkpointing")


@pytest.mark.parametrize("yaml_text,ds", CASES)
def test_check_and_explains_oom_fix_read_the_same_settings(tmp_path, monkeypatch, yaml_text, ds):
    name = "ds_z2_config.json" if "ds_z2_config" in yaml_text else "my_deepspeed.json"
    y, data = _files(tmp_path, yaml_text, ds, name)
    monkeypatch.chdir(tmp_path)
    given = [str(y)] + ([str(tmp_path / name)] if ds is not None else [])
    rep = check(given, gpus=2)
    assert rep.cfg is not None, rep.reason
    built = lf_train_config(data, world=2, path=str(y))
    assert built is not None
    _model, cfg, _ga = built
    got = {k: getattr(cfg, k) for k in KEYS}
    assert got == {k: getattr(rep.cfg, k) for k in KEYS}
    # and the one reader's read(files) agrees with both
    cfg2, _job, _f, _a = read_llamafactory(given, gpus=2)
    assert {k: getattr(cfg2, k) for k in KEYS} == got
    if ds is not None:
        assert got["zero_stage"] == ds["zero_optimization"]["stage"]      # read from the file, not its name
    if "cutoff_len" not in yaml_text:
        assert (got["cutoff_len"], got["micro_batch"]) == (llamafactory.DEFAULTS["cutoff_len"].value,
                                                           llamafactory.DEFAULTS["micro_batch"].value) == (2048, 8)


def test_every_runner_default_names_its_source():
    from rocm_tune.core.runners import axolotl, builtin, hf, ms_swift, torchtune

    for mod in (llamafactory, builtin, hf, axolotl, ms_swift, torchtune):
        assert mod.DEFAULTS, mod.__name__
        for key, d in mod.DEFAULTS.items():
            assert ":" in d.source and "(" in d.source, (mod.__name__, key, d.source)
