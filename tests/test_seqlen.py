"""Real sequence lengths (core/data/seqlen.py): padding to the batch's longest sample, multiple of 8."""

from __future__ import annotations

import pytest

from rocm_tune.core.data import seqlen
from rocm_tune.core.plan import throughput as tp
from rocm_tune.core.memory.estimate import TrainConfig, estimate
from rocm_tune.core.model.architecture import load_model
from rocm_tune.profiles.gpu_profiles import get_gpu_profile

LENGTHS = (100, 200, 300, 1500, 3000)   # sorted token lengths of five samples


def test_padding_is_to_the_longest_sample_rounded_to_8():
    assert seqlen.padded(1) == 8 and seqlen.padded(8) == 8 and seqlen.padded(1001) == 1008
    # truncated at cutoff 1024 first: the longest batch is 1024 tokens, not 3000
    assert seqlen.longest_batch_tokens(LENGTHS, 1024) == 1024
    assert seqlen.longest_batch_tokens((100, 201), 4096) == 208
    # one sample per batch: the mean padded length; 4 per batch: the expected longest of 4 draws
    one = seqlen.typical_batch_tokens(LENGTHS, 1, 1024)
    assert one == pytest.approx((104 + 200 + 304 + 1024 + 1024) / 5)
    four = seqlen.typical_batch_tokens(LENGTHS, 4, 1024)
    p = [(i / 5) ** 4 - ((i - 1) / 5) ** 4 for i in range(1, 6)]
    assert four == pytest.approx(sum(w * x for w, x in zip(p, (104, 200, 304, 1024, 1024))))
    assert seqlen.real_tokens_per_sample(LENGTHS, 1024) == pytest.approx((100 + 200 + 300 + 1024 + 1024) / 5)


def test_memory_at_the_longest_and_a_typical_batch():
    model = load_model("qwen2.5-0.5b")
    cfg = TrainConfig(method="lora", cutoff_len=4096, micro_batch=4)
    short = (50, 60, 70, 80, 900)
    m = seqlen.memory_at_data_lengths(model, cfg, short)
    assert m.longest_tokens == 904
    assert m.peak.per_gpu.peak_allocated_bytes == estimate(model, TrainConfig(
        method="lora", cutoff_len=904, micro_batch=4)).per_gpu.peak_allocated_bytes
    at_cutoff = estimate(model, cfg).per_gpu.peak_allocated_bytes
    assert m.typical.per_gpu.peak_allocated_bytes < m.peak.per_gpu.peak_allocated_bytes < at_cutoff
    assert set(m.to_dict()) >= {"longest_batch_tokens", "typical_batch_tokens", "peak_allocated_bytes"}


def test_tokens_per_second_counts_real_tokens():
    model = load_model("qwen2.5-7b")
    cfg = TrainConfig(method="lora", cutoff_len=1024, micro_batch=4)
    gpu = get_gpu_profile("mi300x")
    padded = tp.predict(model, cfg, gpu, trainable_params=20_000_000, tokens_per_sample=800.0)
    real = tp.predict(model, cfg, gpu, trainable_params=20_000_000, tokens_per_sample=800.0,
                      real_tokens_per_sample=500.0, samples=1000, epochs=1)
    assert real.seconds_per_step == padded.seconds_per_step          # compute is on the padded tokens
    assert real.tokens_per_s == pytest.approx(padded.tokens_per_s * 500 / 800)
    assert any("500 real tokens" in n for n in real.notes)
    assert real.eta_seconds == pytest.approx(real.steps * real.seconds_per_step)
