"""Architecture rules read from the GPU profiles, and the warning-code table."""

from __future__ import annotations

import re

import pytest

from rocm_tune.core.hardware import rules
from rocm_tune.core.model.architecture import load_model, model_from_config
from rocm_tune.core.plan.warnings import WARNINGS, make
from rocm_tune.profiles.gpu_profiles import get_gpu_profile, load_gpu_profiles

REQUIRED_CODES = {
    "bf16-emulated", "fp16-overflow-risk", "flash-attn-unsupported", "qlora-unsupported",
    "iommu-p2p-hang-risk", "ddp-lora-gc-reentrant", "does-not-fit", "offload-needs-cpu-ram",
    "hipblaslt-unsupported", "hsa-override-needed", "effective-batch-inexact", "eta-exceeds-budget",
}


def _tiny(model_type: str, name: str = "tiny"):
    return model_from_config({
        "model_type": model_type, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000,
        "max_position_embeddings": 2048,
    }, name=name)


def test_warning_table_codes_are_stable_kebab_case_with_text():
    assert REQUIRED_CODES <= set(WARNINGS)
    for code, (summary, fix) in WARNINGS.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", code), code
        assert len(summary) > 20 and len(fix) > 10, code
    w = make("does-not-fit", "specific message")
    assert w.to_dict() == {"code": "does-not-fit", "message": "specific message", "fix": WARNINGS["does-not-fit"][1]}
    with pytest.raises(KeyError):
        make("no-such-code")


@pytest.mark.parametrize("gpu_id", ["mi50-32gb", "mi60", "radeon-vii", "z100", "v100-32gb", "t4"])
def test_no_bf16_where_it_is_emulated(gpu_id):
    gpu = get_gpu_profile(gpu_id)
    assert not rules.bf16_usable(gpu)
    model = load_model("qwen2.5-7b")
    choices = rules.precision_choices(gpu, model)
    usable = [c.precision for c in choices if c.risk < 3]
    assert "bf16" not in usable and "pure_bf16" not in usable
    assert usable[0] == "fp32"          # Qwen2.5 overflows in fp16, so fp32 comes first


@pytest.mark.parametrize("gpu_id", ["mi210", "mi300x", "h100-sxm", "a100-80gb", "rx7900xtx"])
def test_bf16_first_where_native(gpu_id):
    gpu = get_gpu_profile(gpu_id)
    choices = rules.precision_choices(gpu, load_model("qwen2.5-7b"))
    assert choices[0].precision == "bf16" and choices[0].risk == 0
    fp16 = next(c for c in choices if c.precision == "fp16")
    assert fp16.risk == 2


def test_fp16_overflow_families_and_safe_family_on_mi50():
    for family in ("qwen2", "gemma", "gemma2", "gemma3_text", "qwen3_moe"):
        assert rules.fp16_overflow_risk(_tiny_family(family)), family
    assert rules.fp16_overflow_risk(_tiny("llama")) is None
    # a family that does not overflow gets fp16 first on a GPU without bf16
    choices = rules.precision_choices(get_gpu_profile("mi50-32gb"), _tiny("llama"))
    assert choices[0].precision == "fp16" and choices[0].risk == 0


def _tiny_family(family):
    m = _tiny("llama")
    from dataclasses import replace
    return replace(m, family=family)


def test_attention_rules_follow_the_profile():
    llama = _tiny("llama")
    mi50 = get_gpu_profile("mi50-32gb")
    h100 = get_gpu_profile("h100-sxm")
    assert rules.attn_choices(mi50, llama, "fp32")[0][0] == "eager"
    assert rules.attn_choices(h100, llama, "bf16")[0][0] == "sdpa"     # SDPA, FA2 not required
    assert rules.attn_allowed(mi50, llama, "fa2", "fp16")              # no FA2 kernels for gfx906
    assert rules.attn_allowed(h100, llama, "fa2", "fp32")              # FA2 needs 16-bit
    assert rules.attn_allowed(h100, llama, "fa2", "bf16") is None
    # SDPA without a flash kernel is the math path: memory counted as eager
    assert rules.memory_attn(mi50, "sdpa") == "eager"
    assert rules.memory_attn(h100, "sdpa") == "sdpa"


def test_qlora_support_follows_bitsandbytes():
    assert not rules.qlora_supported(get_gpu_profile("mi50-32gb"))
    assert rules.qlora_supported(get_gpu_profile("mi300x"))
    assert rules.qlora_supported(get_gpu_profile("h100-sxm"))


def test_iommu_risk_only_for_several_amd_gpus_without_passthrough():
    mi50 = get_gpu_profile("mi50-32gb")
    assert rules.iommu_hang_risk(mi50, 2, "unknown")
    assert rules.iommu_hang_risk(mi50, 2, "translated")
    assert not rules.iommu_hang_risk(mi50, 2, "pt")
    assert not rules.iommu_hang_risk(mi50, 2, "off")
    assert not rules.iommu_hang_risk(mi50, 1, "unknown")
    assert not rules.iommu_hang_risk(get_gpu_profile("h100-sxm"), 8, "unknown")
    assert rules.normalize_iommu("DMA-FQ") == "translated"
    assert rules.normalize_iommu("passthrough") == "pt"
    assert rules.normalize_iommu(None) == "unknown"


def test_env_vars_only_where_they_do_something():
    env, why = rules.env_for(get_gpu_profile("mi50-32gb"), 2, 1)
    assert env["HIP_VISIBLE_DEVICES"] == "0,1"
    # issue 25 item 9: gfx906 stays on ROCm <= 6.3, which has no expandable segments: not set, and why says so
    assert "PYTORCH_HIP_ALLOC_CONF" not in env
    assert any("PYTORCH_HIP_ALLOC_CONF not set" in w and "ROCm <= 6.3" in w for w in why)
    assert "HSA_OVERRIDE_GFX_VERSION" not in env           # a no-op on gfx906
    assert env["TORCH_BLAS_PREFER_HIPBLASLT"] == "0"        # no hipBLASLt kernels for gfx906
    assert env["TORCH_NCCL_ASYNC_ERROR_HANDLING"] == "1"
    assert "CUDA_VISIBLE_DEVICES" not in env
    assert len(why) >= len(env)

    env, _ = rules.env_for(get_gpu_profile("rx6700xt"), 1, 1)
    assert env["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0"
    assert "TORCH_NCCL_ASYNC_ERROR_HANDLING" not in env     # one GPU: no collectives

    env, _ = rules.env_for(get_gpu_profile("h100-sxm"), 4, 1)
    assert env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3"
    assert not any(k.startswith(("HIP_", "HSA_", "PYTORCH_HIP", "TORCH_BLAS")) for k in env)

    env, _ = rules.env_for(get_gpu_profile("mi300x"), 8, 1)
    assert "TORCH_BLAS_PREFER_HIPBLASLT" not in env          # gfx942 has hipBLASLt
    assert env["PYTORCH_HIP_ALLOC_CONF"] == "expandable_segments:True"  # ROCm 7 runs on gfx942


def test_every_profile_has_an_arch_class_and_precision_choice():
    for gpu in load_gpu_profiles().values():
        assert rules.arch_class(gpu) != "generic", gpu.id
        choices = rules.precision_choices(gpu, _tiny("llama"))
        assert choices and choices[0].risk == 0
        assert rules.launcher_for(1, 0) == "python" and rules.launcher_for(2, 0) == "torchrun"
