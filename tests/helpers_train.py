"""Shared setup of the tests that train a real tiny model or wait on real processes."""

from __future__ import annotations

import json
import time
from pathlib import Path


def tiny_assets(tmp_path_factory, n: int) -> tuple[Path, Path]:
    """(model dir, dataset file): a random-weight tiny Qwen2 with a tokenizer fitted to n tiny records."""
    from rocm_tune.train.tiny import make_tiny_dataset, make_tiny_model

    d = tmp_path_factory.mktemp("tiny")
    data = make_tiny_dataset(d / "data.json", n=n)
    model = make_tiny_model(d / "model", data)
    return model, data


def train_dict(assets, output_dir, **kw) -> dict:
    """A training config for the tiny model that learns fast on CPU; kw replace keys."""
    model, data = assets
    d = {"model_name_or_path": str(model), "train_file": str(data), "output_dir": str(output_dir), "cutoff_len": 64,
         "per_device_train_batch_size": 8, "learning_rate": 3e-3, "disable_gradient_checkpointing": True,
         "report_to": "none"}
    d.update(kw)
    return d


def read_jsonl(path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def wait_for(pred, timeout: float = 15.0, every: float = 0.05):
    """Poll pred() until it is truthy or timeout seconds pass; its last value."""
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(every)
    return pred()
