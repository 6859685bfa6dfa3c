"""Unit tests of the analytic memory estimator with byte values derived by hand."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rocm_tune.core.errors import UserError
from rocm_tune.core.memory.estimate import (
    ATTNS,
    METHODS,
    OFFLOADS,
    OPTIMS,
    PRECISIONS,
    STAGES,
    TrainConfig,
    estimate,
)
from rocm_tune.core.model.architecture import model_from_config
from rocm_tune.core.runners import RUNNERS

TINY = dict(model_type="llama", hidden_size=256, intermediate_size=512, num_hidden_layers=4,
            num_attention_heads=4, num_key_value_heads=2, vocab_size=1000, tie_word_embeddings=False,
            max_position_embeddings=4096)


@pytest.fixture(scope="module")
def tiny():
    return model_from_config(TINY, name="tiny")


def _blk(n):  # the estimator rounds to 512-byte allocator blocks
    return -(-n // 512) * 512


def test_full_fp32_adamw_is_4_4_8_bytes_per_param(tiny):
    e = estimate(tiny, TrainConfig(method="full", precision="fp32"))
    p = tiny.params.total
    assert e.params_trainable == p
    assert e.per_gpu.weights_bytes == _blk(4 * p)
    assert e.per_gpu.trainable_weights_bytes == _blk(4 * p)
    assert e.per_gpu.frozen_weights_bytes == 0
    assert e.per_gpu.gradients_bytes == _blk(4 * p)
    assert e.per_gpu.optimizer_bytes == _blk(8 * p)
    assert e.per_gpu.peak_allocated_bytes > 16 * p
    assert e.per_gpu.reserved_bytes > e.per_gpu.peak_allocated_bytes


def test_pure_bf16_is_2_2_4(tiny):
    e = estimate(tiny, TrainConfig(method="full", precision="pure_bf16"))
    p = tiny.params.total
    assert (e.per_gpu.weights_bytes, e.per_gpu.gradients_bytes, e.per_gpu.optimizer_bytes) == \
        (_blk(2 * p), _blk(2 * p), _blk(4 * p))


def test_lora_counts_adapter_params_by_hand(tiny):
    e = estimate(tiny, TrainConfig(method="lora", lora_rank=8, precision="bf16"))
    H, inter, kv = 256, 512, 2 * 64
    per_layer = 8 * ((H + H) + (H + kv) + (H + kv) + (H + H) + (H + inter) + (H + inter) + (inter + H))
    assert e.params_trainable == 4 * per_layer
    assert e.per_gpu.frozen_weights_bytes == _blk(2 * tiny.params.total)
    assert e.per_gpu.trainable_weights_bytes == _blk(4 * e.params_trainable)
    assert e.per_gpu.optimizer_bytes == _blk(8 * e.params_trainable)
    only_q = estimate(tiny, TrainConfig(method="lora", lora_rank=8, lora_targets=("q_proj",)))
    assert only_q.params_trainable == 4 * 8 * (H + H)


def test_sgd_momentum_and_plain_sgd(tiny):
    p = tiny.params.total
    assert estimate(tiny, TrainConfig(method="full", precision="fp32", optim="sgd")).per_gpu.optimizer_bytes == 0
    assert estimate(tiny, TrainConfig(method="full", precision="fp32", optim="sgd_momentum")
                    ).per_gpu.optimizer_bytes == _blk(4 * p)
    e8 = estimate(tiny, TrainConfig(method="full", precision="fp32", optim="adamw_8bit")).per_gpu.optimizer_bytes
    assert 2 * p <= e8 < 2.1 * p


def test_freeze_trains_last_layers(tiny):
    e = estimate(tiny, TrainConfig(method="freeze", freeze_trainable_layers=1))
    assert e.params_trainable == tiny.params.per_layer[-1]
    with pytest.raises(UserError, match="freeze_trainable_layers 9"):
        estimate(tiny, TrainConfig(method="freeze", freeze_trainable_layers=9))


def test_qlora_4bit_weights_smaller_than_8bit_than_lora(tiny):
    big = model_from_config({**TINY, "hidden_size": 1024, "intermediate_size": 4096, "num_attention_heads": 16})
    w4 = estimate(big, TrainConfig(method="qlora", quant_bits=4)).per_gpu.frozen_weights_bytes
    w4n = estimate(big, TrainConfig(method="qlora", quant_bits=4, double_quant=False)).per_gpu.frozen_weights_bytes
    w8 = estimate(big, TrainConfig(method="qlora", quant_bits=8)).per_gpu.frozen_weights_bytes
    w16 = estimate(big, TrainConfig(method="lora")).per_gpu.frozen_weights_bytes
    assert w4 < w4n < w8 < w16
    lin = sum(g.params for g in big.linears)
    rest = big.params.total - lin
    # NF4 with double quant: 0.5 B/param + 8-bit absmax per 64 + fp32 per 256 blocks
    assert w4 == _blk(int(lin * (0.5 + 1 / 64 + 4 / (64 * 256)) + rest * 2))


def test_zero_sharding_divides_states(tiny):
    p = tiny.params.total
    base = TrainConfig(method="full", precision="bf16", gpus=4)
    z0 = estimate(tiny, base)
    z1 = estimate(tiny, TrainConfig(**{**base.__dict__, "zero_stage": 1}))
    z2 = estimate(tiny, TrainConfig(**{**base.__dict__, "zero_stage": 2}))
    z3 = estimate(tiny, TrainConfig(**{**base.__dict__, "zero_stage": 3}))
    # DDP: fp32 trainable weights + a flat bucket copy of all gradients
    assert z0.per_gpu.comm_buffers_bytes == _blk(4 * p)
    # ZeRO-1: (adam 8 + fp32 master 4) / 4 GPUs; 16-bit model weights; full 16-bit gradients
    assert z1.per_gpu.optimizer_bytes == _blk(12 * p // 4)
    assert z1.per_gpu.weights_bytes == _blk(2 * p)
    assert z1.per_gpu.gradients_bytes == _blk(2 * p)
    assert z2.per_gpu.gradients_bytes == _blk(2 * p // 4)
    assert z3.per_gpu.weights_bytes == _blk(2 * p // 4)
    assert z3.per_gpu.peak_allocated_bytes < z2.per_gpu.peak_allocated_bytes < z0.per_gpu.peak_allocated_bytes


def test_offload_moves_states_to_cpu(tiny):
    p = tiny.params.total
    on = estimate(tiny, TrainConfig(method="full", zero_stage=2, gpus=2, offload="optimizer"))
    assert on.per_gpu.optimizer_bytes == 0
    # pinned host memory (stage_1_and_2.py): states + fp32 master (12 B), fp32 grads (4 B) and the 16-bit
    # staging copy of the partition (2 B) per param, halves on each of the node's 2 GPUs
    assert on.cpu_offload_bytes == _blk(int((12 * p / 2 + 4 * p / 2 + 2 * p / 2) * 2))
    allo = estimate(tiny, TrainConfig(method="full", zero_stage=3, gpus=2, offload="all"))
    # ZeRO-3 offload all: no 16-bit staging copy (stage3.py), but the 16-bit parameter partitions (2 B)
    assert allo.per_gpu.weights_bytes == 0
    assert allo.cpu_offload_bytes == _blk(int((12 * p / 2 + 4 * p / 2 + 2 * p / 2) * 2))
    assert estimate(tiny, TrainConfig(method="full")).cpu_offload_bytes == 0


def test_dpo_full_keeps_reference_copy_lora_does_not(tiny):
    p = tiny.params.total
    sft = estimate(tiny, TrainConfig(method="full"))
    dpo = estimate(tiny, TrainConfig(method="full", stage="dpo"))
    assert dpo.per_gpu.weights_bytes - sft.per_gpu.weights_bytes == pytest.approx(2 * p, abs=1024)
    lsft = estimate(tiny, TrainConfig(method="lora"))
    ldpo = estimate(tiny, TrainConfig(method="lora", stage="dpo"))
    assert ldpo.per_gpu.weights_bytes == lsft.per_gpu.weights_bytes
    # chosen + rejected: twice the sequences
    assert ldpo.per_gpu.activations_bytes == pytest.approx(2 * lsft.per_gpu.activations_bytes, rel=0.01)


def test_checkpointing_and_eager_change_activations(tiny):
    on = estimate(tiny, TrainConfig(cutoff_len=2048))
    off = estimate(tiny, TrainConfig(cutoff_len=2048, gradient_checkpointing=False))
    eager = estimate(tiny, TrainConfig(cutoff_len=2048, gradient_checkpointing=False, attn="eager"))
    assert on.per_gpu.activations_bytes < off.per_gpu.activations_bytes < eager.per_gpu.activations_bytes


def test_unknown_lora_target_names_allowed(tiny):
    with pytest.raises(UserError, match="'qq_proj'.*allowed: all"):
        estimate(tiny, TrainConfig(lora_targets=("qq_proj",)))


@pytest.mark.parametrize("kw, needle", [
    (dict(method="adapter"), "method 'adapter'"), (dict(precision="fp8"), "precision 'fp8'"),
    (dict(cutoff_len=0), "cutoff_len"), (dict(micro_batch=-1), "micro_batch"),
    (dict(gpus=10**6), "gpus"), (dict(zero_stage=4), "zero_stage"), (dict(optim="lion"), "optim 'lion'"),
    (dict(offload="optimizer"), "zero stage 0"), (dict(offload="all", zero_stage=2), "needs ZeRO-3"),
    (dict(attn="fa2", precision="fp32"), "fa2"), (dict(method="full", dora=True), "dora"),
    (dict(quant_bits=3), "quant_bits"), (dict(lora_rank=0), "lora_rank"),
    (dict(lora_targets=("all", "q_proj")), "all"),
])
def test_validate_names_bad_value(kw, needle):
    with pytest.raises(UserError, match=needle):
        TrainConfig(**kw).validate()


def test_to_dict_has_contract_fields(tiny):
    d = estimate(tiny, TrainConfig()).to_dict()
    assert set(d) >= {"params", "per_gpu", "cpu_offload_bytes", "config", "notes"}
    assert set(d["params"]) == {"total", "trainable"}
    for k in ("weights_bytes", "frozen_weights_bytes", "trainable_weights_bytes", "gradients_bytes",
              "optimizer_bytes", "activations_bytes", "transient_bytes", "autocast_copies_bytes",
              "comm_buffers_bytes", "peak_allocated_bytes", "reserved_bytes"):
        assert isinstance(d["per_gpu"][k], int) and d["per_gpu"][k] >= 0


configs = st.builds(
    TrainConfig,
    method=st.sampled_from(METHODS + ("bogus",)),
    lora_rank=st.integers(-2, 70000), lora_targets=st.sampled_from([("all",), ("q_proj", "v_proj"), ("nope",), ()]),
    dora=st.booleans(), quant_bits=st.sampled_from([4, 8, 2]), freeze_trainable_layers=st.integers(0, 6),
    precision=st.sampled_from(PRECISIONS), cutoff_len=st.integers(-1, 40000), micro_batch=st.integers(0, 64),
    gradient_checkpointing=st.booleans(), attn=st.sampled_from(ATTNS), optim=st.sampled_from(OPTIMS),
    gpus=st.integers(0, 16), nodes=st.integers(1, 4), zero_stage=st.integers(0, 4),
    offload=st.sampled_from(OFFLOADS), stage=st.sampled_from(STAGES),
    runner=st.sampled_from(RUNNERS + ("bogus",)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cfg=configs)
def test_property_only_user_error_and_monotonic(tiny, cfg):
    try:
        e = estimate(tiny, cfg)
    except UserError:
        return
    g = e.per_gpu
    assert g.reserved_bytes >= g.peak_allocated_bytes > 0
    longer = estimate(tiny, TrainConfig(**{**cfg.__dict__, "cutoff_len": cfg.cutoff_len + 64}))
    bigger = estimate(tiny, TrainConfig(**{**cfg.__dict__, "micro_batch": cfg.micro_batch + 1}))
    for other in (longer, bigger):
        assert other.per_gpu.peak_allocated_bytes >= g.peak_allocated_bytes
        assert other.per_gpu.reserved_bytes >= g.reserved_bytes


def test_estimate_is_fast(tiny):
    import time

    from rocm_tune.core.model.architecture import load_model

    m = load_model("qwen2.5-7b")
    cfg = TrainConfig(method="full", zero_stage=3, gpus=8)
    t = time.perf_counter()
    for _ in range(200):
        estimate(m, cfg)
    assert (time.perf_counter() - t) / 200 < 0.005   # generous here; benchmarks/estimate_speed.py shows < 1 ms
