"""`python -m rocm_tune.train.lf_launch`: the real LLaMA-Factory (0.9.5, the real-stack venv) trains a tiny model
on CPU with rocm-tune's rank callback, and `--compute-dtype` really changes the dtype LLaMA-Factory loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO
from tests.helpers_train import read_jsonl

pytestmark = pytest.mark.slow


def test_launcher_without_llamafactory_is_one_line_exit_2(tmp_path):
    cfg = tmp_path / "lf.yaml"
    cfg.write_text("model_name_or_path: x\nbf16: true\n")
    r = subprocess.run([sys.executable, "-m", "rocm_tune.train.lf_launch", str(cfg), "--compute-dtype", "fp32"],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "contradicts `bf16: true`" in r.stderr                         # checked before anything imports
    cfg.write_text("model_name_or_path: x\n")
    r = subprocess.run([sys.executable, "-m", "rocm_tune.train.lf_launch", str(cfg)],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        import llamafactory  # noqa: F401
    except Exception:  # noqa: BLE001 - not in rocm-tune's own environment (it pins other transformers)
        assert r.returncode == 2 and "LLaMA-Factory does not import here" in r.stderr
    r = subprocess.run([sys.executable, "-m", "rocm_tune.train.lf_launch", str(cfg), "--compute-dtype", "fp64"],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert r.returncode == 2 and "--compute-dtype 'fp64'" in r.stderr


@pytest.fixture(scope="module")
def real_lf():
    from tests.realstack.envsetup import ensure_env

    env, why = ensure_env()
    if env is None:
        pytest.skip(f"real LLaMA-Factory environment unavailable: {why}")
    return env


def _job(tmp_path_factory):
    from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model

    d = tmp_path_factory.mktemp("lf")
    data = make_tiny_dataset(d / "tiny.json", n=24)
    model = make_tiny_model(d / "model", data)
    conf = json.loads((model / "config.json").read_text())
    conf["dtype"] = "bfloat16"           # like most current checkpoints: LLaMA-Factory loads "auto" = bf16
    conf.pop("torch_dtype", None)
    (model / "config.json").write_text(json.dumps(conf))
    (d / "dataset_info.json").write_text(json.dumps({"tiny": {"file_name": "tiny.json"}}))
    cfg = {"model_name_or_path": str(model), "stage": "sft", "do_train": True, "finetuning_type": "lora",
           "lora_target": "all", "lora_rank": 4, "dataset": "tiny", "dataset_dir": str(d), "template": "qwen",
           "cutoff_len": 64, "output_dir": str(d / "out"), "overwrite_output_dir": True, "logging_steps": 1,
           "per_device_train_batch_size": 4, "max_steps": 2, "learning_rate": 1e-3, "report_to": "none",
           "save_steps": 100, "use_cpu": True, "bf16": False, "fp16": False}
    (d / "lf.yaml").write_text(yaml.safe_dump(cfg))
    return d


@pytest.mark.parametrize("pin, loaded", [(None, "torch.bfloat16"), ("fp32", "torch.float32")])
def test_real_llamafactory_run_writes_ranks_and_the_pin_sets_the_dtype(real_lf, tmp_path_factory, pin, loaded):
    d = _job(tmp_path_factory)
    run_dir = d / "run"
    run_dir.mkdir()
    argv = [real_lf.bin("python"), "-m", "rocm_tune.train.lf_launch", str(d / "lf.yaml")]
    if pin:
        argv += ["--compute-dtype", pin]
    env = dict(os.environ, PYTHONPATH=str(REPO), ROCM_TUNE_RUN_DIR=str(run_dir), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", OMP_NUM_THREADS="1")
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    log = r.stdout + r.stderr
    assert r.returncode == 0, log[-3000:]
    # LLaMA-Factory's own log line says which dtype it loaded the weights in
    assert f"Will use dtype={loaded}" in log, [ln for ln in log.splitlines() if "dtype" in ln][:5]
    recs = read_jsonl(run_dir / "ranks" / "0-0.jsonl")
    rated = [x for x in recs if x.get("tokens_per_s")]
    assert [x["step"] for x in rated] == [1, 2] and all(x["tokens_per_s"] > 0 for x in rated)
    from rocm_tune.core.runs.watch.measured import read_measured

    m = read_measured(run_dir)
    assert m.nodes == ("0",) and m.ranks[0].step == 2 and m.ranks[0].rss_bytes > 0
