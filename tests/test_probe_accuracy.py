"""The fake-tensor probe against the analytic estimator on tiny real transformers models (CPU, seconds)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import model_from_config
from rocm_tune.train.probe import probe, unsupported_reason

LLAMA = dict(model_type="llama", hidden_size=512, intermediate_size=1536, num_hidden_layers=2,
             num_attention_heads=8, num_key_value_heads=2, vocab_size=8000, tie_word_embeddings=False)
QWEN3 = dict(model_type="qwen3", hidden_size=256, intermediate_size=768, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, head_dim=64, vocab_size=6000,
             tie_word_embeddings=True)

CASES = [
    (LLAMA, TrainConfig(method="lora", cutoff_len=512)),
    (LLAMA, TrainConfig(method="lora", cutoff_len=256, micro_batch=2, gradient_checkpointing=False, attn="eager")),
    (LLAMA, TrainConfig(method="full", precision="bf16", cutoff_len=256, gradient_checkpointing=False)),
    (LLAMA, TrainConfig(method="full", precision="fp32", cutoff_len=256)),
    (LLAMA, TrainConfig(method="freeze", freeze_trainable_layers=1, cutoff_len=512)),
    (QWEN3, TrainConfig(method="full", precision="pure_bf16", cutoff_len=512, micro_batch=2)),
    (QWEN3, TrainConfig(method="lora", stage="dpo", cutoff_len=256)),
]


@pytest.mark.slow
@pytest.mark.parametrize("conf, cfg", CASES)
def test_analytic_within_10_percent_of_probe(conf, cfg):
    res = probe(conf, cfg)
    assert res.reason is None and res.peak_allocated_bytes
    est = estimate(model_from_config(conf), cfg)
    # the static parts are exact
    adapters = res.params_trainable if cfg.is_lora else 0
    assert res.params_total - adapters == est.params_total
    assert res.params_trainable == est.params_trainable
    assert abs(res.optimizer_bytes - est.per_gpu.optimizer_bytes) <= 512 * 64
    err = est.per_gpu.peak_allocated_bytes / res.peak_allocated_bytes - 1
    assert abs(err) < 0.10, f"analytic {est.per_gpu.peak_allocated_bytes} vs probe {res.peak_allocated_bytes}"


def test_probe_measures_real_growth():
    """The probe is a measurement: longer sequences must cost more, and fp32 weights twice bf16 ones."""
    a = probe(LLAMA, TrainConfig(method="lora", cutoff_len=128))
    b = probe(LLAMA, TrainConfig(method="lora", cutoff_len=512))
    assert b.peak_allocated_bytes > a.peak_allocated_bytes
    full32 = probe(LLAMA, TrainConfig(method="full", precision="fp32", cutoff_len=64))
    n = full32.params_total
    assert full32.weights_bytes == pytest.approx(4 * n, rel=0.001)
    assert full32.optimizer_bytes == pytest.approx(8 * n, rel=0.001)   # AdamW exp_avg + exp_avg_sq


@pytest.mark.parametrize("cfg, needle", [
    (TrainConfig(method="qlora"), "bitsandbytes"),
    (TrainConfig(optim="paged_adamw_8bit"), "bitsandbytes"),
    (TrainConfig(zero_stage=3, gpus=2), "ZeRO"),
    (TrainConfig(attn="fa2"), "fa2"),
])
def test_unsupported_configurations_say_why(cfg, needle):
    assert needle in unsupported_reason(cfg)
    res = probe(LLAMA, cfg)
    assert res.peak_allocated_bytes is None and needle in res.reason
