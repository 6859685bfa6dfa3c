"""GPU profiles for cards users name that had none (p-gpus): each name as users write it resolves in
`rocm-tune check --gpu NAME`, with the memory its YAML file gives, and the facts that decide verdicts
(bf16, FlashAttention-2, SDPA, hipBLASLt, HSA override, platform status) are those of that architecture."""

from __future__ import annotations

import json

import pytest
import yaml

from rocm_tune.cli import main
from rocm_tune.core.hardware.devices.matching import match_profile
from rocm_tune.profiles import gpu_profiles as gp
from rocm_tune.profiles.errors import UserError

# (name as users / nvidia-smi / rocminfo write it, profile id, the memory torch sees that the file must give)
NAMES = [
    ("AMD Radeon 8060S Graphics", "strix-halo", 64), ("Ryzen AI Max+ 395", "strix-halo", 64),
    ("AMD Instinct MI350X", "mi350x", 288), ("MI308X", "mi308x", 192),
    ("AMD Radeon AI PRO R9700", "r9700", 32), ("RX 9070 XT", "rx9070xt", 16), ("AMD Radeon RX 9070", "rx9070", 16),
    ("RX 7900 GRE", "rx7900gre", 16), ("Radeon PRO W7800", "w7800", 32), ("AMD Radeon RX 7600 XT", "rx7600xt", 16),
    ("NVIDIA L40", "l40", 48), ("NVIDIA H100 NVL", "h100-nvl", 93.0), ("NVIDIA B200", "b200", 180),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "rtx-pro-6000", 96), ("RTX PRO 6000", "rtx-pro-6000", 96),
    ("NVIDIA GeForce RTX 4080", "rtx4080", 15.99), ("RTX 4080 SUPER", "rtx4080-super", 16),
    ("NVIDIA GeForce RTX 4070 Ti SUPER", "rtx4070ti-super", 16), ("RTX 4060 Ti 16GB", "rtx4060ti-16gb", 16),
    ("NVIDIA GeForce RTX 3060", "rtx3060-12gb", 11.76), ("RTX 3080", "rtx3080", 9.78),
    ("RTX 3080 12GB", "rtx3080-12gb", 12), ("NVIDIA GeForce RTX 2080 Ti", "rtx2080ti", 10.76),
    ("NVIDIA RTX A5000", "rtx-a5000", 23.68), ("RTX A4000", "rtx-a4000", 15.61), ("Tesla P40", "p40", 23.87),
    ("Tesla P100-PCIE-16GB", "p100", 16), ("NVIDIA GH200 480GB", "gh200", 96),
]

CONFIG = ("model_name_or_path: Qwen/Qwen2.5-0.5B-Instruct\nstage: sft\ndo_train: true\nfinetuning_type: lora\n"
          "template: qwen\ncutoff_len: 512\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 4\n"
          "fp16: true\noutput_dir: out\n")


def _file_vram(pid: str) -> float:
    return float(yaml.safe_load((gp.GPU_DIR / f"{pid}.yaml").read_text(encoding="utf-8"))["vram_gib"])


@pytest.mark.parametrize("name,pid,vram", NAMES)
def test_check_resolves_the_name_with_the_files_memory(tmp_path, capsys, name, pid, vram):
    cfg = tmp_path / "train.yaml"
    cfg.write_text(CONFIG)
    rc = main(["check", str(cfg), "--gpu", name, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc in (0, 1), report
    assert report["gpu"] == {"id": pid, "vram_gib": vram}
    assert _file_vram(pid) == vram
    assert not any("no GPU profile" in n for n in report["notes"])


def test_names_that_are_other_cards_still_refuse():
    for name in ("RTX 3080 Ti", "RX 7600", "RTX 4060 Ti", "MI355", "Radeon 8050S"):
        with pytest.raises(UserError, match="unknown GPU"):
            gp.get_gpu_profile(name)


def test_mi350x_is_its_own_card_not_an_alias_of_mi355x():
    mi350, mi355 = gp.get_gpu_profile("MI350X"), gp.get_gpu_profile("MI355X")
    assert (mi350.id, mi355.id) == ("mi350x", "mi355x")
    assert mi350.arch == mi355.arch == "gfx950" and mi350.vram_gib == mi355.vram_gib == 288
    assert mi350.fp16_tflops < mi355.fp16_tflops


def test_pascal_has_no_bf16_no_fa2_no_sdpa_flash():
    for pid, arch in (("p40", "sm_61"), ("p100", "sm_60")):
        p = gp.get_gpu_profile(pid)
        assert p.arch == arch and p.bf16 == "none" and p.fa2 is None
        assert not p.sdpa_flash and p.sdpa_mem_efficient and p.bitsandbytes
        assert p.platform_status == "deprecated" and not p.fp8
    assert gp.get_gpu_profile("p40").fp16_tflops < gp.get_gpu_profile("p40").fp32_tflops / 10   # 1/64-rate fp16


def test_turing_and_ampere_geforce_facts():
    ti = gp.get_gpu_profile("rtx2080ti")
    assert ti.arch == "sm_75" and ti.bf16 == "emulated" and ti.fa2 is None and not ti.sdpa_flash
    for pid in ("rtx3060-12gb", "rtx3080", "rtx3080-12gb", "rtx-a5000", "rtx-a4000"):
        p = gp.get_gpu_profile(pid)
        assert p.arch == "sm_86" and p.bf16 == "native" and p.fa2 == "cuda" and not p.fp8


def test_blackwell_and_hopper_facts():
    assert gp.get_gpu_profile("b200").arch == "sm_100"
    assert gp.get_gpu_profile("rtx-pro-6000").arch == "sm_120"
    for pid in ("h100-nvl", "gh200"):
        p = gp.get_gpu_profile(pid)
        assert p.arch == "sm_90" and p.fp8 and p.fa2 == "cuda"
    for pid in ("l40", "rtx4080", "rtx4080-super", "rtx4070ti-super", "rtx4060ti-16gb"):
        assert gp.get_gpu_profile(pid).arch == "sm_89" and gp.get_gpu_profile(pid).fp8


def test_rdna4_and_rdna3_facts():
    for pid in ("r9700", "rx9070xt", "rx9070"):
        p = gp.get_gpu_profile(pid)
        assert p.arch == "gfx1201" and p.hsa_override is None and p.hipblaslt and p.fa2 == "triton"
        assert p.bf16 == "native" and p.sdpa_flash and p.platform_status == "supported"
        assert "6.4" in p.sources["platform_status"]
    for pid in ("rx7900gre", "w7800"):
        p = gp.get_gpu_profile(pid)
        assert p.arch == "gfx1100" and p.hsa_override is None and p.platform_status == "supported"
    xt = gp.get_gpu_profile("rx7600xt")
    assert xt.arch == "gfx1102" and xt.hsa_override == "11.0.0" and not xt.hipblaslt
    assert xt.platform_status == "unofficial"


def test_strix_halo_says_what_torch_sees_depends_on_the_carve_out_and_ttm():
    p = gp.get_gpu_profile("strix-halo")
    assert p.arch == "gfx1151" and p.hsa_override is None and p.bf16 == "native" and p.fa2 == "triton"
    assert p.vram_gib == 64 and p.mem_bandwidth_gbs == 256
    text = " ".join(p.notes) + p.sources["vram"] + p.sources["platform_status"]
    for word in ("carve-out", "ttm.pages_limit", "half of", "--vram-gib", "ROCm 7"):
        assert word in text, word
    # a bigger GTT limit is typed with --vram-gib and used as typed
    big = gp.get_gpu_profile("Strix Halo", vram_gib=96)
    assert big.vram_gib == 96 and big.arch == "gfx1151"


def test_vram_gib_picks_the_sibling_sku():
    assert gp.get_gpu_profile("RTX 3080", vram_gib=12).id == "rtx3080-12gb"
    assert gp.get_gpu_profile("RTX 3080", vram_gib=10).id == "rtx3080"


@pytest.mark.parametrize("name,arch,vram_gib,expected", [
    ("NVIDIA GeForce RTX 4080 SUPER", "8.9", 16, "rtx4080-super"),
    ("NVIDIA GeForce RTX 4080", "8.9", 16, "rtx4080"),
    ("NVIDIA L40", "8.9", 48, "l40"),
    ("NVIDIA L40S", "8.9", 48, "l40s"),
    ("NVIDIA H100 NVL", "9.0", 94, "h100-nvl"),
    ("Tesla P40", "6.1", 24, "p40"),
    ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0", 96, "rtx-pro-6000"),
    ("AMD Radeon RX 9070 XT", "gfx1201", 16, "rx9070xt"),
    ("AMD Radeon 8060S Graphics", "gfx1151", 64, "strix-halo"),
    ("AMD Instinct MI308X", "gfx942:sramecc+:xnack-", 192, "mi308x"),
    ("AMD Instinct MI300X", "gfx942:sramecc+:xnack-", 192, "mi300x"),
])
def test_detected_devices_match_the_new_profiles(name, arch, vram_gib, expected):
    assert match_profile(name, arch, int(vram_gib * 0.98 * 2**30)) == expected
