"""Schema and lookup tests for the GPU profiles (rocm_tune/profiles/gpus/*.yaml)."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
import yaml

from rocm_tune.core.errors import UserError
from rocm_tune.profiles import gpu_profiles as gp

REQUIRED_IDS = ["mi50-16gb", "mi50-32gb", "mi60", "mi100", "mi210", "mi250", "mi250x", "mi300x", "mi325x", "mi355x", "radeon-vii", "rx6800", "rx6900xt", "rx7900xt", "rx7900xtx", "w6800", "w7900", "z100", "k100", "k100-ai", "bw1000", "v100-16gb", "v100-32gb", "t4", "a10", "a100-40gb", "a100-80gb", "l4", "l40s", "h100-pcie", "h100-sxm", "h200", "rtx3090", "rtx4090", "rtx5090"]

CONTRACT_FIELDS = [
    "id", "vendor", "names", "arch", "vram_gib", "vram_bytes", "mem_bandwidth_gbs", "fp32_tflops",
    "fp16_tflops", "bf16_tflops", "bf16", "fp8", "interconnect", "interconnect_gbs", "fa2", "sdpa_flash",
    "sdpa_mem_efficient", "hipblaslt", "bitsandbytes", "platform", "platform_status", "hsa_override", "sources",
]


def test_contract_fields_in_order():
    names = [f.name for f in dataclasses.fields(gp.GpuProfile)]
    assert names[: len(CONTRACT_FIELDS)] == CONTRACT_FIELDS
    assert gp.GpuProfile.__dataclass_params__.frozen


def test_every_required_id_present_and_files_match_ids():
    profiles = gp.load_gpu_profiles()
    missing = [i for i in REQUIRED_IDS if i not in profiles]
    assert missing == []
    for pid, prof in profiles.items():
        assert (gp.GPU_DIR / f"{pid}.yaml").is_file()
        assert prof.id == pid


def test_schema_types_ranges_and_sources():
    profiles = gp.load_gpu_profiles()
    all_names: dict[str, str] = {}
    for prof in profiles.values():
        assert prof.vendor in gp.VENDORS
        assert prof.bf16 in gp.BF16_KINDS
        assert prof.fa2 in gp.FA2_KINDS
        assert prof.platform in gp.PLATFORMS
        assert prof.platform_status in gp.PLATFORM_STATUSES
        assert prof.vram_bytes == int(round(prof.vram_gib * 2**30))
        assert 4 <= prof.vram_gib <= 512
        assert 100 <= prof.mem_bandwidth_gbs <= 10_000
        assert 1 <= prof.fp32_tflops <= prof.fp16_tflops * 1.01 or prof.vendor == "nvidia" and prof.fp16_tflops > 0
        # emulated bf16 must be slower than fp32; native bf16 close to fp16
        if prof.bf16 in ("emulated", "none"):
            assert prof.bf16_tflops < prof.fp32_tflops
        if prof.bf16 == "native":
            assert prof.bf16_tflops == pytest.approx(prof.fp16_tflops, rel=0.05)
        if prof.bf16 == "half-rate":
            assert prof.bf16_tflops == pytest.approx(prof.fp16_tflops / 2, rel=0.05)
        for fact in gp.SOURCED_FACTS:
            assert prof.sources.get(fact), (prof.id, fact)
        # platform coherence
        assert (prof.platform == "cuda") == (prof.vendor == "nvidia")
        assert (prof.platform == "dtk") == (prof.vendor == "hygon")
        assert prof.arch.startswith("sm_") == (prof.vendor == "nvidia")
        if prof.platform == "cuda":
            assert not prof.hipblaslt and prof.hsa_override is None
        for name in (prof.id, *prof.names):
            key = gp._norm(name)
            assert all_names.setdefault(key, prof.id) == prof.id, f"{name} used by {all_names[key]} and {prof.id}"


def test_known_facts_from_hardware_notes():
    p = gp.get_gpu_profile
    assert p("mi50-32gb").arch == "gfx906" and p("mi50-32gb").bf16 == "emulated"
    assert p("mi50-32gb").fa2 is None and not p("mi50-32gb").sdpa_flash and not p("mi50-32gb").bitsandbytes
    assert p("mi100").bf16 == "half-rate" and p("mi100").arch == "gfx908"
    assert p("mi250x").devices_per_card == 2 and p("mi250x").vram_gib == 64
    assert p("mi300x").nominal_gib == 192 and p("mi300x").vram_gib == 191.98 and p("mi300x").fp8 and p("mi300x").fa2 == "ck"
    assert p("mi355x").arch == "gfx950"
    assert p("z100").vendor == "hygon" and p("z100").arch == "gfx906" and p("z100").platform == "dtk"
    assert p("k100-ai").arch == "gfx928" and p("bw1000").arch == "gfx936"
    assert p("rx6700xt").hsa_override == "10.3.0" and p("rx7800xt").hsa_override == "11.0.0"
    assert p("rx7900xtx").hsa_override is None
    assert p("v100-32gb").bf16 != "native" and p("v100-32gb").fa2 is None
    assert p("rtx5090").arch == "sm_120"
    assert p("h100-sxm").fa2 == "cuda" and p("h100-sxm").nominal_gib == 80 and p("h100-sxm").vram_gib == 79.11


@pytest.mark.parametrize("query,expected", [
    ("MI50", "mi50-32gb"), ("AMD Instinct MI50 32GB", "mi50-32gb"), ("amd instinct mi50 16gb", "mi50-16gb"),
    ("Instinct MI250X", "mi250x"), ("NVIDIA GeForce RTX 4090", "rtx4090"), ("rtx-4090", "rtx4090"),
    ("K100_AI", "k100-ai"), ("k100 ai", "k100-ai"), ("H100", "h100-sxm"), ("NVIDIA A100-SXM4-40GB", "a100-40gb"),
    ("Radeon VII", "radeon-vii"), ("  MI300X  ", "mi300x"),
])
def test_lookup_by_id_and_marketing_name(query, expected):
    assert gp.get_gpu_profile(query).id == expected


def test_vram_override_keeps_everything_else():
    base = gp.get_gpu_profile("z100")
    odd = gp.get_gpu_profile("z100", vram_gib=16)
    assert odd.vram_gib == 16 and odd.vram_bytes == 16 * 2**30
    assert odd.sources["vram"].startswith("user override")
    assert odd.arch == base.arch and odd.fp16_tflops == base.fp16_tflops
    assert base.vram_gib == 32  # the cached profile is untouched
    for bad in (-1, 0, 1e9, "lots", float("nan")):
        with pytest.raises(UserError, match="--vram-gib"):
            gp.get_gpu_profile("z100", vram_gib=bad)


def test_unknown_gpu_suggests_close_matches():
    with pytest.raises(UserError) as exc:
        gp.get_gpu_profile("mi5O")
    assert "mi50-32gb" in str(exc.value) and "'mi5O'" in str(exc.value)
    with pytest.raises(UserError, match="unknown GPU 'quantum-9000'"):
        gp.get_gpu_profile("quantum-9000")
    with pytest.raises(UserError):
        gp.get_gpu_profile("")


def _copy_profiles(tmp_path):
    d = tmp_path / "gpus"
    shutil.copytree(gp.GPU_DIR, d)
    return d


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d.pop("arch"), "missing field 'arch'"),
    (lambda d: d.__setitem__("bf16", "sometimes"), "bf16 'sometimes'"),
    (lambda d: d.__setitem__("vram_gib", -3), "vram_gib must be a positive"),
    (lambda d: d.__setitem__("vram_gib", "32GB"), "must be a number"),
    (lambda d: d["sources"].pop("fp16"), "sources.fp16 is missing"),
    (lambda d: d.__setitem__("fa2", "magic"), "fa2 'magic'"),
    (lambda d: d.__setitem__("hsa_override", "gfx906"), "hsa_override"),
    (lambda d: d.__setitem__("sdpa_flash", "yes"), "sdpa_flash"),
])
def test_schema_check_rejects_bad_profiles(tmp_path, mutate, message):
    d = _copy_profiles(tmp_path)
    path = d / "mi50-32gb.yaml"
    data = yaml.safe_load(path.read_text())
    mutate(data)
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(UserError, match=message):
        gp.load_profiles_from(d)


def test_schema_check_rejects_duplicate_names_and_garbage(tmp_path):
    d = _copy_profiles(tmp_path)
    data = yaml.safe_load((d / "mi60.yaml").read_text())
    data["names"].append("MI50")
    (d / "mi60.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(UserError, match="also used by"):
        gp.load_profiles_from(d)
    d2 = _copy_profiles(tmp_path / "b")
    (d2 / "broken.yaml").write_text("id: [unclosed\n")
    with pytest.raises(UserError, match="broken.yaml"):
        gp.load_profiles_from(d2)
    with pytest.raises(UserError, match="does not exist"):
        gp.load_profiles_from(tmp_path / "nope")


def test_to_dict_is_json_ready():
    import json
    d = gp.get_gpu_profile("mi300x").to_dict()
    assert json.loads(json.dumps(d))["vram_bytes"] == round(191.98 * 2**30)
    assert d["vram_nominal_gib"] == 192 and d["sources"]["vram"] and "https://" in d["sources"]["vram_torch"]


def test_vram_override_prefers_the_sibling_sku_with_that_memory():
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    assert get_gpu_profile("MI50").id == "mi50-32gb"
    p16 = get_gpu_profile("MI50", vram_gib=16)
    assert p16.id == "mi50-16gb" and p16.sources.get("vram") != "user override (--vram-gib)"
    odd = get_gpu_profile("z100", vram_gib=16)      # no 16 GiB sibling: the profile is patched
    assert odd.id == "z100" and odd.vram_bytes == 16 * 2**30


# ------------------------------------------------------------------ cards real configs use (issue 19)
NVIDIA_SMI_NAMES = [  # the name as `nvidia-smi --query-gpu=name` prints it -> profile
    ("NVIDIA A800-SXM4-80GB", "a800-80gb"), ("NVIDIA A800 80GB PCIe", "a800-pcie-80gb"),
    ("NVIDIA A800 40GB PCIe", "a800-40gb"), ("NVIDIA H800", "h800-sxm"), ("NVIDIA H800 PCIe", "h800-pcie"),
    ("NVIDIA H20", "h20"), ("NVIDIA L20", "l20"), ("NVIDIA RTX A6000", "rtx-a6000"),
    ("NVIDIA RTX 6000 Ada Generation", "rtx6000-ada"), ("NVIDIA GeForce RTX 4090 D", "rtx4090d"),
    ("Quadro RTX 6000", "quadro-rtx6000"), ("NVIDIA A40", "a40"), ("NVIDIA A30", "a30"),
]


@pytest.mark.parametrize("smi_name,expected", NVIDIA_SMI_NAMES)
def test_nvidia_smi_names_of_cards_in_real_configs_resolve(smi_name, expected):
    from rocm_tune.core.hardware.devices.matching import match_profile

    prof = gp.get_gpu_profile(smi_name)
    assert prof.id == expected
    # telemetry path: the same name with its compute capability and the memory the driver reports
    reported = int(prof.vram_bytes * 0.98)
    assert match_profile(smi_name, prof.arch.replace("sm_", "")[0] + "." + prof.arch[-1], reported) == expected


def test_new_card_facts():
    p = gp.get_gpu_profile
    a800, a100 = p("a800-80gb"), p("a100-80gb")
    assert (a800.arch, a800.nominal_gib, a800.bf16_tflops) == (a100.arch, a100.nominal_gib, a100.bf16_tflops)
    assert a800.interconnect_gbs < a100.interconnect_gbs      # NVLink 400 vs 600 GB/s
    assert p("h800-sxm").fp16_tflops == p("h100-sxm").fp16_tflops and p("h800-sxm").interconnect_gbs == 200
    h20 = p("h20")
    assert h20.nominal_gib == 96 and h20.arch == "sm_90" and h20.fp16_tflops < p("a100-80gb").fp16_tflops
    assert p("l20").arch == p("rtx6000-ada").arch == p("rtx4090d").arch == "sm_89"
    assert p("rtx4090d").fp16_tflops < p("rtx4090").fp16_tflops and p("rtx4090d").nominal_gib == 24
    q = p("quadro-rtx6000")
    assert q.arch == "sm_75" and q.bf16 == "emulated" and q.fa2 is None and not q.sdpa_flash
    assert p("rtx-a6000").arch == p("a40").arch == "sm_86" and p("a30").arch == "sm_80"
    assert {p(i).nominal_gib for i in ("rtx-a6000", "a40", "l20", "rtx6000-ada")} == {48}


def test_memory_suffix_does_not_eat_model_digits():
    """'NVIDIA A800-SXM4-40GB' must not match the A100 via 'NVIDIA A100 40GB' stripped to 'nvidiaa'."""
    from rocm_tune.core.hardware.devices.matching import match_profile

    assert match_profile("NVIDIA A800-SXM4-40GB", "8.0", 40 * 2**30) == "a800-40gb"
    assert match_profile("NVIDIA A100-SXM4-40GB", "8.0", 40 * 2**30) == "a100-40gb"
    assert match_profile("AMD Instinct MI50", "gfx906", 16 * 2**30) == "mi50-16gb"


def test_plan_and_check_resolve_nvidia_smi_names(tmp_path, capsys):
    """`rocm-tune plan --gpu "NVIDIA RTX A6000"` and `rocm-tune check ... --gpu "NVIDIA A800-SXM4-80GB"`."""
    import json

    from rocm_tune.cli import main

    rc = main(["plan", "--model", "qwen2.5-7b", "--gpu", "NVIDIA RTX A6000", "--gpus", "2", "--json"])
    out = capsys.readouterr().out
    assert rc in (0, 1) and '"rtx-a6000"' in out
    cfg = tmp_path / "train.yaml"
    cfg.write_text("model_name_or_path: /root/data3/Qwen2.5-7B-Instruct\nstage: sft\ndo_train: true\n"
                   "finetuning_type: lora\ntemplate: qwen\ncutoff_len: 1024\nper_device_train_batch_size: 2\n"
                   "gradient_accumulation_steps: 4\nbf16: true\noutput_dir: out\n")
    rc = main(["check", str(cfg), "--gpu", "NVIDIA A800-SXM4-80GB", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["gpu"] == {"id": "a800-80gb", "vram_gib": 79.35}      # what torch sees on an A800 80GB
    assert not any("no GPU profile" in n for n in report["notes"])


# ------------------------------------------------------------------ memory torch sees vs marketed size
def test_every_profile_says_where_its_torch_figure_comes_from():
    """vram_gib is total_memory as torch reports it; where it differs from the marketed size a public URL says so."""
    cited = 0
    for prof in gp.load_gpu_profiles().values():
        src = prof.sources.get("vram_torch", "")
        assert src, prof.id
        assert prof.vram_gib <= prof.nominal_gib <= prof.vram_gib / 0.85
        if prof.vram_gib != prof.nominal_gib:
            cited += 1
            assert "https://" in src and f"{prof.vram_gib:.2f}" in src, (prof.id, src)
        else:
            assert "nominal" in src, (prof.id, src)
    assert cited >= 20


def test_vram_gib_flag_the_sku_size_picks_the_card_any_other_number_is_used_as_typed():
    a100 = gp.get_gpu_profile("a100-40gb")
    assert (a100.nominal_gib, a100.vram_gib) == (40, 39.39)
    assert gp.get_gpu_profile("a100-40gb", vram_gib=40) == a100      # its own SKU size: the card, torch figure
    typed = gp.get_gpu_profile("a100-40gb", vram_gib=38.5)            # any other number: as typed
    assert typed.vram_gib == 38.5 and typed.nominal_gib == 38.5 and typed.vram_bytes == round(38.5 * 2**30)
    assert typed.sources["vram_torch"].startswith("user override")
    p16 = gp.get_gpu_profile("MI50", vram_gib=16)
    assert p16.id == "mi50-16gb" and p16.vram_gib == 15.98


def test_nominal_outside_the_torch_range_is_rejected():
    import copy

    import yaml
    data = yaml.safe_load((gp.GPU_DIR / "a100-40gb.yaml").read_text())
    bad = copy.deepcopy(data)
    bad["vram_nominal_gib"] = 30                      # torch cannot see more than the card has
    with pytest.raises(UserError, match="vram_nominal_gib"):
        gp.profile_from_dict(bad)
    bad = copy.deepcopy(data)
    del bad["sources"]["vram_torch"]
    with pytest.raises(UserError, match="vram_torch"):
        gp.profile_from_dict(bad)
    assert gp.profile_from_dict(data).vram_gib == 39.39
