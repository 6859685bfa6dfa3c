"""A Python program that reads its settings from a YAML/JSON file (helper c-read14): `yaml.safe_load(open(path))`,
`with open(P) as f: cfg = yaml.safe_load(f)`, `json.load`, `OmegaConf.load`, the program's own helper that returns
one of them (PyYAML yaml/__init__.py, omegaconf/omegaconf.py); then `cfg["model"]["name"]`, `cfg.model.name`,
`cfg["t"].get("bs", 4)`. A torchtune fork's model builder (a copy of torchtune/models/<family>/_model_builders.py
beside torchtune's own components) and a recipe program torchrun starts with `--config` (torchtune/_cli/run.py
hands recipes to torchrun). A `#!/bin/bash` script with `python -c "import torch"` is no Python program. Every file
is written for the test from those sources; none is a corpus case."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from rocm_tune.cli import main
from rocm_tune.core.runners.program_config import bind_configs
from rocm_tune.core.runners.values import program_names, py_value

SFT_PY = '''import argparse
import yaml
from unsloth import FastLanguageModel
from trl import SFTConfig, SFTTrainer

def load_yaml(path):
    with open(path) as f:
        return yaml.safe_load(f)

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/train.yaml")
    args = p.parse_args()
    cfg = load_yaml(args.config)
    mcfg = cfg["model"]
    tcfg = cfg.get("train", {})
    model, tok = FastLanguageModel.from_pretrained(model_name=mcfg["name"], max_seq_length=mcfg["max_len"],
                                                   load_in_4bit=False)
    model = FastLanguageModel.get_peft_model(model, r=cfg["lora"]["r"], lora_alpha=32,
                                             use_gradient_checkpointing="unsloth")
    conf = SFTConfig(output_dir="out", per_device_train_batch_size=tcfg["bs"],
                     gradient_accumulation_steps=tcfg.get("ga", 1), max_seq_length=mcfg["max_len"], bf16=True)
    SFTTrainer(model=model, tokenizer=tok, train_dataset=None, args=conf).train()

main()
'''
SFT_YAML = """model:
  name: {model}
  max_len: {max_len}
lora:
  r: 16
train:
  bs: {bs}
"""
LAUNCH = """#!/usr/bin/env bash
CONFIG="${1:-configs/train.yaml}"
cd "$(dirname "$0")/.."
python scripts/train.py --config "$CONFIG"
"""


def _check(tmp_path: Path, capsys, files: dict[str, str], *extra: str) -> dict:
    paths = []
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        paths.append(str(p))
    rc = main(["check", *paths, *extra, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), out
    return out


def _cutoff(out: dict) -> int:
    return int(out["understood"]["cutoff_len"])


def _names(src: str, files: dict[str, dict], program: str = "/nowhere/train.py") -> dict:
    return program_names(ast.parse(src), {"files": files, "program": program, "read": lambda p: None,
                                           "bind": bind_configs})


def test_py_value_reads_subscripts_get_and_attributes_of_a_loaded_config():
    names = {"cfg": {"model": {"name": "Qwen/Qwen2.5-7B", "len": 2048}, "t": {"bs": 8}}}
    v = lambda s: py_value(ast.parse(s, mode="eval").body, names)   # noqa: E731
    assert v('cfg["model"]["name"]') == "Qwen/Qwen2.5-7B"
    assert v("cfg.model.len") == 2048                                    # OmegaConf's attribute access
    assert v('cfg["t"].get("bs", 4)') == 8
    assert v('cfg["t"].get("ga", 4)') == 4                               # the default where the key is missing
    assert v('cfg["t"].get("ga")') is None
    assert v('cfg["nope"]["name"]') is None
    assert v('other["model"]') is None                                   # a name no load binds


def test_the_load_forms_bind_the_file_they_read():
    data = {"model": {"base_model": "meta-llama/Llama-3.1-8B"}, "training": {"batch_size": 4}}
    files = {"proj/configs/ft.yaml": data}
    forms = [
        'CONFIG_PATH = "configs/ft.yaml"\nwith open(CONFIG_PATH, "r") as f: cfg = yaml.safe_load(f)\n',
        'cfg = yaml.load(open("configs/ft.yaml"), Loader=yaml.SafeLoader)\n',
        'import json\ncfg = json.load(open("configs/ft.yaml"))\n',
        'cfg = OmegaConf.load("configs/ft.yaml")\n',
        'def read_cfg(p):\n    with open(p) as fh:\n        c = yaml.full_load(fh)\n    return c\n'
        'cfg = read_cfg("configs/ft.yaml")\n',
    ]
    for src in forms:
        names = _names(src + 'm = cfg["model"]\nbs = cfg["training"]["batch_size"]\n', files)
        assert names.get("cfg") == data, src
        assert names.get("m") == data["model"], src
        assert names.get("bs") == 4, src


def test_which_file_a_load_reads():
    a, b = {"model": {"name": "a"}}, {"model": {"name": "b"}}
    # the path it computes picks the given file whose path ends with it
    assert _names('cfg = yaml.safe_load(open("conf/b.yaml"))\n', {"x/conf/a.yaml": a, "x/conf/b.yaml": b})["cfg"] == b
    # a path not computed: the only settings file given; with two given, none (not a guess)
    assert _names("cfg = yaml.safe_load(open(sys.argv[1]))\n", {"a.yaml": a})["cfg"] == a
    assert "cfg" not in _names("cfg = yaml.safe_load(open(sys.argv[1]))\n", {"a.yaml": a, "b.yaml": b})
    # a computed path that no given file ends with: not the other file
    assert "cfg" not in _names('cfg = yaml.safe_load(open("conf/c.yaml"))\n', {"conf/a.yaml": a})
    # a load that is no config loader binds nothing
    assert "cfg" not in _names('cfg = pickle.load(open("conf/a.yaml", "rb"))\n', {"conf/a.yaml": a})


def test_a_file_beside_the_program_is_read_when_not_given(tmp_path: Path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "configs" / "run.yaml").write_text("model:\n  name: Qwen/Qwen3-8B\n")
    prog = tmp_path / "scripts" / "train.py"
    from rocm_tune.core.formats import _read_beside
    names = program_names(ast.parse('cfg = yaml.safe_load(open("configs/run.yaml"))\nm = cfg["model"]["name"]\n'),
                          {"files": {}, "program": str(prog), "read": _read_beside,
                           "bind": bind_configs})
    assert names["m"] == "Qwen/Qwen3-8B"


def test_a_program_that_loads_its_yaml_is_checked_with_the_yaml_values(tmp_path: Path, capsys):
    files = {"scripts/train.py": SFT_PY, "launch/train.sh": LAUNCH,
             "configs/train.yaml": SFT_YAML.format(model="Qwen/Qwen2.5-7B-Instruct", max_len=3072, bs=4)}
    out = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    assert out["model"]["name"] == "qwen2.5-7b"
    assert _cutoff(out) == 3072
    assert int(out["understood"]["micro_batch"]) == 4
    assert any("the settings file train.yaml the program loads" in str(n) for n in out["notes"])
    # the same program with a bigger model and batch in its YAML: the estimate follows the file
    files["configs/train.yaml"] = SFT_YAML.format(model="Qwen/Qwen2.5-14B-Instruct", max_len=3072, bs=8)
    big = _check(tmp_path, capsys, files, "--gpu", "mi300x")
    assert big["model"]["name"] == "qwen2.5-14b"
    assert int(big["memory"]["step"]["peak_allocated_bytes"]) > int(out["memory"]["step"]["peak_allocated_bytes"])


def test_without_its_yaml_the_model_stays_unknown(tmp_path: Path, capsys):
    out = _check(tmp_path, capsys, {"scripts/train.py": SFT_PY, "launch/train.sh": LAUNCH}, "--gpu", "mi300x")
    assert out["verdict"] == "unknown"


# torchtune recipes/configs/qwen3/32B_full.yaml-like config whose builder is a fork's copy of torchtune's
TUNE_FORK = """output_dir: /tmp/out
tokenizer:
  _component_: myfork.models.qwen3.qwen3_tokenizer
  path: /models/Qwen3-{size}/vocab.json
  max_seq_len: 4096
dataset:
  _component_: torchtune.datasets.alpaca_cleaned_dataset
  packed: False
model:
  _component_: myfork.models.qwen3.qwen3_{size_l}
checkpointer:
  _component_: torchtune.training.FullModelHFCheckpointer
  checkpoint_dir: /models/Qwen3-{size}
  model_type: QWEN3
batch_size: 2
gradient_accumulation_steps: 1
optimizer:
  _component_: torch.optim.AdamW
  lr: 2e-5
enable_activation_checkpointing: True
dtype: bf16
"""
TORCHRUN = "torchrun --nproc_per_node 8 recipes/my_sft.py --config ./configs/{name}\n"


def test_a_torchtune_fork_builder_under_a_recipe_torchrun_starts(tmp_path: Path, capsys):
    files = {"configs/q.yaml": TUNE_FORK.format(size="14B", size_l="14b"), "run.sh": TORCHRUN.format(name="q.yaml")}
    out = _check(tmp_path, capsys, files, "--gpu", "mi300x", "--gpus", "8")
    assert out["runner"] == "torchtune"
    assert out["model"]["name"] == "qwen3-14b"
    assert any("FSDP2 over the GPUs" in str(n) for n in out["notes"])     # a distributed recipe: sharded
    assert _cutoff(out) == 4096
    files["configs/q.yaml"] = TUNE_FORK.format(size="32B", size_l="32b")
    assert _check(tmp_path, capsys, files, "--gpu", "mi300x", "--gpus", "8")["model"]["name"] == "qwen3-32b"
    # the command passes another file: the config is not read as this program's
    files["run.sh"] = TORCHRUN.format(name="other.yaml")
    assert _check(tmp_path, capsys, files, "--gpu", "mi300x", "--gpus", "8")["runner"] != "torchtune"


def test_a_fork_builder_alone_is_no_torchtune_config():
    from rocm_tune.core.runners.torchtune import is_torchtune_mapping
    assert is_torchtune_mapping({"model": {"_component_": "myfork.models.qwen3.qwen3_8b"},
                                 "checkpointer": {"_component_": "torchtune.training.FullModelHFCheckpointer"}})
    # no torchtune component beside it: a Hydra/other `_component_` config, not torchtune's
    assert not is_torchtune_mapping({"model": {"_component_": "myfork.models.qwen3.qwen3_8b"},
                                     "optim": {"_component_": "torch.optim.AdamW"}})
    # a component that is no model builder torchtune names
    assert not is_torchtune_mapping({"model": {"_component_": "myfork.models.mynet"},
                                     "checkpointer": {"_component_": "torchtune.training.FullModelHFCheckpointer"}})


def test_a_bash_script_with_python_c_is_a_script():
    from rocm_tune.core.formats import detect
    sh = '#!/bin/bash\npython -c "import torch; print(torch.cuda.is_available())"\npython train.py --config c.yaml\n'
    assert detect(sh, "run.sh") == "script"
    py = "#!/usr/bin/env python3\nimport torch\nprint(torch.__version__)\n"
    assert detect(py, "tool") == "python"


# a torchtune launch script of the AMD benchmark kind: its settings are `${VAR:-default}` the caller may set
TUNE_SH = """#!/bin/bash
CONFIG="${CONFIG:-./full.yaml}"
MBS="${MBS:-4}"
CPU_OFFLOAD="${CPU_OFFLOAD:-True}"
tune run --nproc_per_node 8 full_finetune_distributed --config $CONFIG batch_size=$MBS fsdp_cpu_offload=$CPU_OFFLOAD
"""
TUNE_FULL = """tokenizer:
  _component_: torchtune.models.llama3.llama3_tokenizer
  path: /m/original/tokenizer.model
  max_seq_len: 1024
dataset:
  _component_: torchtune.datasets.alpaca_dataset
model:
  _component_: torchtune.models.llama3_1.llama3_1_8b
checkpointer:
  _component_: torchtune.training.FullModelHFCheckpointer
  checkpoint_dir: /m
  model_type: LLAMA3
batch_size: 2
optimizer:
  _component_: torch.optim.AdamW
  lr: 2e-5
enable_activation_checkpointing: True
dtype: bf16
"""


def _offloaded(out: dict) -> bool:
    return any("in host memory (fsdp_cpu_offload)" in str(n) for n in out["notes"])


def test_the_caller_sets_the_variables_of_the_script_it_runs(tmp_path: Path, capsys):
    files = {"full.yaml": TUNE_FULL, "tune.sh": TUNE_SH}
    alone = _check(tmp_path, capsys, files, "--gpu", "mi300x", "--gpus", "8")
    assert int(alone["understood"]["micro_batch"]) == 4 and _offloaded(alone)
    files["run.sh"] = "MBS=16 CPU_OFFLOAD=False bash tune.sh\n"
    called = _check(tmp_path, capsys, files, "--gpu", "mi300x", "--gpus", "8")
    assert int(called["understood"]["micro_batch"]) == 16
    assert not _offloaded(called)
    assert any("run by run.sh:1 with MBS, CPU_OFFLOAD set" in str(n) for n in called["notes"])
    # two callers that disagree: neither is read (which one ran is not known)
    files["run2.sh"] = "MBS=32 bash ./tune.sh\n"
    both = _check(tmp_path, capsys, files, "--gpu", "mi300x", "--gpus", "8")
    assert int(both["understood"]["micro_batch"]) == 4
