"""`rocm-tune export --format torchtune` accepted by the real torchtune 0.6.1 (its own venv: torchtune_env.py).

The bundle of a tiny random Qwen2 (rocm_tune.train.tiny, a Hugging Face folder torchtune's FullModelHFCheckpointer
reads) is checked as torchtune checks a config: `tune validate` (torchtune's own CLI entry, the three configs in one
process: config.validate, every `_component_` resolves and takes the arguments given), the components the recipe
builds instantiated from it (model, tokenizer, dataset, optimizer, loss), a 2-node x 4-GPU bundle's `tune run`
arguments (expanded by its tune_run.sh) taken by torchtune's own parser, and one optimizer step of
`tune run lora_finetune_single_device` on the CPU started by the bundle's tune_run.sh with the config as written
(`device=cpu max_steps_per_epoch=1` as key=value overrides, torchtune's own way to override a config)."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from tests.conftest import run_cli
from tests.realstack.conftest import note

# in the venv, one torchtune import for all of it: `tune validate CONFIG` through torchtune's own CLI entry
# (TuneCLIParser, what the `tune` script runs), then the components the recipe builds from each config
CHECK = r'''
import json, os, sys
from omegaconf import OmegaConf
from torchtune import config
from torchtune._cli.tune import TuneCLIParser
from torchtune.modules.peft import get_adapter_params
out = {}
for path in sys.argv[1:]:
    sys.argv = ["tune", "validate", path]
    parser = TuneCLIParser()
    parser.run(parser.parse_args())
    cfg = OmegaConf.load(path)
    model = config.instantiate(cfg.model)
    tok = config.instantiate(cfg.tokenizer)
    ds = config.instantiate(cfg.dataset, tok)
    adapters = get_adapter_params(model)      # what the LoRA recipe trains (set_trainable_params)
    opt = config.instantiate(cfg.optimizer, list(adapters.values()) or model.parameters())
    loss = config.instantiate(cfg.loss)
    labels = [l for l in ds[0]["labels"] if l != loss.ignore_index]
    out[path] = {"model": type(model).__name__, "params": sum(p.numel() for p in model.parameters()),
                 "adapters": sum(p.numel() for p in adapters.values()),
                 "samples": len(ds), "labels": len(labels), "optimizer": type(opt).__name__,
                 "tokens": len(ds[0]["tokens"])}
# `tune run ARGS` as tune_run.sh of the 2-node bundle calls it: torchtune's parser takes them (torchrun's
# arguments), the recipe is its built-in distributed one
argv = json.loads(os.environ["TT_RUN_ARGV"])
sys.argv = ["tune", *argv]
parser = TuneCLIParser()
a = parser.parse_args()
from torchtune._recipe_registry import get_all_recipes
recipe = next(r for r in get_all_recipes() if r.name == a.recipe)
out["run"] = {"recipe": a.recipe, "distributed": recipe.supports_distributed, "nproc_per_node": a.nproc_per_node,
              "nnodes": a.nnodes, "node_rank": a.node_rank, "master_addr": a.master_addr,
              "config": a.recipe_args[a.recipe_args.index("--config") + 1]}
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def tune_env():
    from tests.realstack.torchtune_env import ensure_env

    env, why = ensure_env()
    if env is None:
        note(f"torchtune skipped: {why}")
        pytest.skip(f"torchtune venv not available: {why}")
    note(f"torchtune venv {why}")
    return env


@pytest.fixture(scope="module")
def tt_model(tiny, tmp_path_factory):
    """A copy of the tiny model with vocab.json and merges.txt beside tokenizer.json, as a Qwen checkpoint folder
    has them (torchtune's qwen2_tokenizer reads those two)."""
    import shutil

    from tokenizers import Tokenizer

    d = tmp_path_factory.mktemp("tt") / "model"
    shutil.copytree(tiny, d)
    Tokenizer.from_file(str(d / "tokenizer.json")).model.save(str(d))
    return d


def _export(tmp_path, model, data_file, method: str, *more: str) -> str:
    out = tmp_path / (method + "".join(more))
    # cutoff 512: torchtune's alpaca_dataset adds the Alpaca prompt, longer than the tiny word-level vocabulary's
    # 128-token samples (a sample truncated before its answer has no label to learn)
    r = run_cli("export", "--model", str(model), "--gpu", "mi300x", "--method", method, "--precision", "fp32",
                "--cutoff-len", "512", "--micro-batch", "2", "--effective-batch", "4", "--dataset", str(data_file),
                "--format", "torchtune", "-o", str(out), *more)
    assert r.returncode == 0, r.stderr
    return str(out)


def test_torchtune_accepts_and_trains_the_exported_config(tmp_path, tune_env, tt_model, data_file):
    t0 = time.monotonic()
    full, lora = _export(tmp_path, tt_model, data_file, "full"), _export(tmp_path, tt_model, data_file, "lora")
    dist = _export(tmp_path, tt_model, data_file, "full", "--gpus", "4", "--nodes", "2", "--zero", "3",
                   "--effective-batch", "16", "--runner", "builtin")
    env = dict(os.environ, PYTHONPATH="")
    # the 2-node script's `tune run` arguments, expanded by bash itself (a stand-in `tune` records them)
    shim = tmp_path / "tune-args"
    shim.write_text(f'#!/bin/sh\nprintf "%s\\0" "$@" > {tmp_path}/argv\n', encoding="utf-8")
    shim.chmod(0o755)
    r = subprocess.run(["bash", f"{dist}/tune_run.sh"], capture_output=True, text=True, timeout=60,
                       env=dict(env, TUNE=str(shim), NODE_RANK="1", MASTER_ADDR="10.0.0.1"))
    assert r.returncode == 0, r.stderr
    argv = (tmp_path / "argv").read_text(encoding="utf-8").split("\0")[:-1]
    assert argv[0] == "run"
    r = subprocess.run([tune_env.python, "-c", CHECK, *(f"{d}/torchtune.yaml" for d in (full, lora, dist))],
                       capture_output=True, text=True, env=dict(env, TT_RUN_ARGV=json.dumps(argv)), timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.count("Config is well-formed!") == 3, r.stdout
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["run"] == {"recipe": "full_finetune_distributed", "distributed": True, "nproc_per_node": "4",
                          "nnodes": "2", "node_rank": 1, "master_addr": "10.0.0.1", "config": "torchtune.yaml"}
    f, lo = got[f"{full}/torchtune.yaml"], got[f"{lora}/torchtune.yaml"]
    assert f["model"] == lo["model"] == "TransformerDecoder"
    assert f["adapters"] == 0 and 0 < lo["adapters"] < lo["params"] / 4   # full fine-tuning; LoRA adapters
    assert f["samples"] == 48 and f["labels"] > 0 and f["optimizer"] == "AdamW"
    # one optimizer step of the LoRA recipe, started as tune_run.sh starts it (from the bundle's folder)
    script = open(f"{lora}/tune_run.sh", encoding="utf-8").read()
    assert "run lora_finetune_single_device --config torchtune.yaml" in script
    r = subprocess.run(["bash", f"{lora}/tune_run.sh", "device=cpu", "max_steps_per_epoch=1", "epochs=1",
                        "log_every_n_steps=1"], capture_output=True, text=True, timeout=400,
                       env=dict(env, TUNE=tune_env.tune, HIP_VISIBLE_DEVICES="", CUDA_VISIBLE_DEVICES=""))
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    logs = os.listdir(f"{lora}/output/logs")
    text = open(f"{lora}/output/logs/{logs[0]}", encoding="utf-8").read()
    import re

    m = re.search(r"loss:\s*(\S+)", text)
    assert m, text
    loss = float(m.group(1))
    assert loss == loss and loss > 0, text                  # a real number: the step had labels to learn
    assert os.path.isfile(f"{lora}/output/epoch_0/adapter_model.safetensors")
    note(f"torchtune test {time.monotonic() - t0:.0f} s")
