"""The built-in trainer on a real tiny Qwen2 on CPU: methods, precisions, metrics.jsonl, NaN policy."""

from __future__ import annotations

import math

import pytest

from rocm_tune.core.errors import UserError
from rocm_tune.train.config import config_from_dict
from tests.helpers_train import read_jsonl, tiny_assets, train_dict

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def assets(tmp_path_factory):
    return tiny_assets(tmp_path_factory, n=96)


def cfg_for(assets, out, **kw):
    return config_from_dict(train_dict(assets, out, **{"max_steps": 4, "logging_steps": 1, "save_steps": 1000, **kw}))


records = read_jsonl


def test_full_finetune_writes_the_metrics_schema_and_loss_falls(assets, tmp_path):
    from rocm_tune.train.trainer import train

    out = tmp_path / "out"
    code = train(cfg_for(assets, out, finetuning_type="full", max_steps=16, logging_steps=4, save_steps=8))
    assert code == 0
    recs = records(out / "metrics.jsonl")
    kinds = [r["type"] for r in recs]
    assert kinds[0] == "start" and kinds[-1] == "end"
    assert recs[0]["total_steps"] == 16 and recs[0]["config"]["finetuning_type"] == "full"
    steps = [r for r in recs if r["type"] == "step"]
    assert [r["step"] for r in steps] == [4, 8, 12, 16]
    for r in steps:
        for key in ("time", "epoch", "loss", "grad_norm", "learning_rate", "tokens_per_s", "samples_per_s",
                    "step_time_s", "mem"):
            assert key in r
        assert r["tokens_per_s"] > 0 and r["samples_per_s"] > 0 and r["step_time_s"] > 0
        assert r["mem"] == []  # CPU: no GPU memory to report
    assert steps[-1]["loss"] < steps[0]["loss"] - 0.5, [s["loss"] for s in steps]
    ck = [r for r in recs if r["type"] == "checkpoint"]
    assert [c["step"] for c in ck] == [8, 16] and all((out / f"checkpoint-{c['step']}").is_dir() for c in ck)
    assert recs[-1]["status"] == "finished" and recs[-1]["step"] == 16 and recs[-1]["train_loss"] > 0
    assert (out / "model.safetensors").exists() and (out / "tokenizer.json").exists()


def _is_dora(names):
    return (any("lora_magnitude" in n for n in names)
            and all(("q_proj" in n or "v_proj" in n) and "lora_" in n for n in names))


@pytest.mark.parametrize("kw,trainable_kind", [
    ({"finetuning_type": "lora", "lora_rank": 4}, "lora_"),
    ({"finetuning_type": "lora", "lora_rank": 4, "use_dora": True, "lora_target": "q_proj,v_proj"}, _is_dora),
    ({"finetuning_type": "freeze", "freeze_trainable_layers": 1}, "layers.1."),
    ({"finetuning_type": "lora", "bf16": True, "disable_gradient_checkpointing": False}, "lora_"),
    ({"finetuning_type": "lora", "pure_bf16": True}, "lora_"),
])
def test_methods_and_precisions(assets, tmp_path, kw, trainable_kind):
    import torch

    from rocm_tune.train import trainer as T

    cfg = cfg_for(assets, tmp_path / "o", **kw)
    model, _tok = T.load_model_and_tokenizer(cfg, use_cpu=True)
    model = T.apply_method(model, cfg)
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    if callable(trainable_kind):
        assert trainable_kind(names), names
    else:
        assert names and all(trainable_kind in n for n in names), names[:5]
    frozen = [p for p in model.parameters() if not p.requires_grad]
    trainable = [p for p in model.parameters() if p.requires_grad]
    if cfg.precision == "bf16":  # mixed: 16-bit frozen weights, fp32 trainable
        assert {p.dtype for p in frozen} == {torch.bfloat16} and {p.dtype for p in trainable} == {torch.float32}
    elif cfg.precision == "pure_bf16":
        assert {p.dtype for p in trainable} == {torch.bfloat16}
    else:
        assert {p.dtype for p in trainable} == {torch.float32}
    if kw.get("finetuning_type") == "freeze":
        assert not any("layers.0." in n for n in names)
    code = T.train(cfg)
    assert code == 0
    steps = [r for r in records(tmp_path / "o" / "metrics.jsonl") if r["type"] == "step"]
    assert len(steps) == 4 and all(math.isfinite(s["loss"]) for s in steps)
    if kw.get("finetuning_type") == "lora":
        assert (tmp_path / "o" / "adapter_model.safetensors").exists()


def _nan_model(assets, dest):
    """A copy of the tiny model whose final norm weights are NaN: every logit, and so every loss, is NaN by
    construction (not by hoping an optimizer diverges, which depends on the CPU's floating-point path)."""
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    model_dir, data = assets
    shutil.copytree(model_dir, dest)
    weights = dest / "model.safetensors"
    tensors = load_file(str(weights))
    norm = "model.norm.weight"
    assert norm in tensors, sorted(tensors)
    tensors[norm] = torch.full_like(tensors[norm], float("nan"))
    save_file(tensors, str(weights), metadata={"format": "pt"})
    return dest, data


def test_nan_loss_stops_with_an_error_record(assets, tmp_path):
    from rocm_tune.train.trainer import train

    out = tmp_path / "nan"
    poisoned = _nan_model(assets, tmp_path / "nan-model")
    cfg = cfg_for(poisoned, out, finetuning_type="full", max_steps=12, logging_steps=1)
    assert train(cfg) == 1
    recs = records(out / "metrics.jsonl")
    errs = [r for r in recs if r["type"] == "error"]
    assert errs and errs[0]["kind"] in ("nan_loss", "nan_grad") and "NaN/Inf" in errs[0]["message"]
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "failed"
    assert recs[-1]["step"] < 12 and errs[0]["step"] == 1   # the first step is already NaN
    # nan_policy: skip keeps going to the end and counts the skipped steps
    out2 = tmp_path / "skip"
    cfg2 = cfg_for(poisoned, out2, finetuning_type="full", max_steps=12, logging_steps=1, nan_policy="skip")
    assert train(cfg2) == 0
    recs2 = records(out2 / "metrics.jsonl")
    assert recs2[-1]["status"] == "finished" and recs2[-1]["step"] == 12
    skipped = [r for r in recs2 if r["type"] == "error"]
    assert skipped and all("skipped" in r["message"] for r in skipped)
    assert max(r.get("skipped_steps", 0) for r in recs2 if r["type"] == "step") == len(skipped)


def test_qlora_without_bitsandbytes_is_a_clear_error(assets, tmp_path):
    from rocm_tune.train.trainer import train

    try:
        import bitsandbytes  # noqa: F401
        import torch

        if torch.cuda.is_available():
            pytest.skip("bitsandbytes works here")
    except ImportError:
        pass
    with pytest.raises(UserError, match="needs a working bitsandbytes"):
        train(cfg_for(assets, tmp_path / "q", quantization_bit=4))
    recs = records(tmp_path / "q" / "metrics.jsonl")
    assert recs[-2]["type"] == "error" and recs[-1]["status"] == "failed"


def test_output_dir_with_a_model_is_not_overwritten(assets, tmp_path):
    from rocm_tune.train.trainer import train

    out = tmp_path / "keep"
    out.mkdir()
    (out / "adapter_model.safetensors").write_bytes(b"mine")
    with pytest.raises(UserError, match="already holds a trained model"):
        train(cfg_for(assets, out))
    assert (out / "adapter_model.safetensors").read_bytes() == b"mine"
    with pytest.raises(UserError, match="holds no checkpoint"):
        train(cfg_for(assets, tmp_path / "empty", resume_from_checkpoint=True))
