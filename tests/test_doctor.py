"""doctor checks on fake machines (fake /proc, /sys, /opt/rocm, torch and module probes), and the CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rocm_tune.core.hardware import doctor as D

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "doctor"))
import fake_system
from tests.conftest import run_cli
from fake_system import fake_sysfs

TORCH_ROCM61 = {"version": "2.3.0+rocm6.1", "hip": "6.1.40091-a8dbc0c19", "cuda": None, "available": True,
                "devices": [{"name": "AMD Instinct MI50", "gcnArchName": "gfx906:sramecc+:xnack-",
                             "capability": [9, 0], "total_memory": 34342961152}] * 2,
                "arch_list": ["gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030", "gfx1100"]}


def view(root, env=None, torch=TORCH_ROCM61, modules=None, paths=None, free=500 * 2**30, cwd=None):
    modules = modules or {}
    paths = paths or {}
    return D.SystemView(
        root=root, env=dict(env or {"HOME": str(root)}), which=lambda name: None,
        module_version=lambda n: modules.get(n), module_path=lambda n: paths.get(n),
        torch_info=lambda: torch, disk_free=lambda p: free, cwd=cwd or root, detect_order=("sysfs",))


def by_id(results):
    return {r.id: r for r in results}


@pytest.fixture
def report000(tmp_path):
    """Field report 000: 2x MI50 32GB, Intel host with the IOMMU on, ROCm 6.4 driver, torch rocm6.1 wheel."""
    return fake_system.machine(tmp_path / "m", [fake_sysfs.MI50, fake_sysfs.MI50])


def test_report000_machine(report000, tmp_path):
    env = {"HOME": str(tmp_path), "HSA_OVERRIDE_GFX_VERSION": "9.0.6", "HIP_VISIBLE_DEVICES": "0,1",
           "PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True"}
    pkg = fake_system.deepspeed_pkg(tmp_path, {"cpu_adam": False, "fused_adam": False, "transformer_inference": False})
    r = by_id(D.run_checks(view(report000, env, modules={"deepspeed": "0.18.3", "bitsandbytes": "0.38.1"},
                                paths={"deepspeed": pkg})))
    assert r["gpu-detected"].status == "pass" and "2 GPU(s) via sysfs" in r["gpu-detected"].summary
    assert any("mi50-32gb" in e for e in r["gpu-detected"].evidence)
    assert r["platform-version"].status == "pass"            # rocm6.1 torch on a 6.4 driver works
    assert r["torch-build"].status == "pass" and r["torch-gpus"].status == "pass"
    assert r["hsa-override"].status == "pass" and "no-op" in r["hsa-override"].summary
    assert r["bf16"].status == "warn" and r["bf16"].code == "bf16-emulated"
    assert r["iommu-p2p"].status == "warn" and r["iommu-p2p"].code == "iommu-p2p-hang-risk"
    assert "intel_iommu=on iommu=pt" in r["iommu-p2p"].fix and "CPU vendor: intel" in r["iommu-p2p"].evidence
    assert r["expandable-segments"].status == "warn" and "ignored" in r["expandable-segments"].summary
    ds = r["deepspeed"]
    assert ds.status == "warn" and "0.16.9" in ds.summary and "DISABLE_VERSION_CHECK=1" in ds.fix
    assert "DS_BUILD_CPU_ADAM=1" in ds.fix and ds.code == "deepspeed-rocm-build"
    assert any("pre-built ops: none" in e for e in ds.evidence)
    assert r["bitsandbytes"].status == "warn" and r["bitsandbytes"].code == "qlora-unsupported"
    assert r["flash-attn"].status == "pass" and "square" in r["flash-attn"].summary
    assert r["pcie-link"].status == "pass" and r["cpu-ram"].status == "pass"
    assert D.summarize(list(r.values()))["ok"] is True
    assert D.iommu_state(view(report000, env)) == "on"


@pytest.mark.parametrize("cmdline,state", [
    ("ro quiet intel_iommu=off", "off"), ("ro quiet iommu=pt", "passthrough"),
    ("ro quiet amd_iommu=on iommu=pt", "passthrough"), ("ro quiet", "on"),
])
def test_iommu_states_and_p2p_check(tmp_path, cmdline, state):
    root = fake_system.machine(tmp_path, [fake_sysfs.MI50, fake_sysfs.MI50], cmdline=cmdline)
    v = view(root)
    assert D.iommu_state(v) == state
    res = D.check_iommu(v)
    assert res.status == ("warn" if state == "on" else "pass")


def test_iommu_identity_groups_and_no_units(tmp_path):
    root = fake_system.machine(tmp_path / "a", [fake_sysfs.MI50] * 2, group_types=("identity",))
    assert D.iommu_state(view(root)) == "passthrough"
    root = fake_system.machine(tmp_path / "b", [fake_sysfs.MI50] * 2, iommu_units=(), group_types=())
    assert D.iommu_state(view(root)) == "off"
    assert D.iommu_state(view(tmp_path / "nothing-here")) == "unknown"


def test_single_gpu_skips_iommu(tmp_path):
    root = fake_system.machine(tmp_path, [fake_sysfs.MI50])
    assert D.check_iommu(view(root)).status == "skip"
    assert D.check_fine_grain_pcie(view(root)).status == "skip"


def test_gfx906_with_torch_for_rocm64_fails(report000):
    t = dict(TORCH_ROCM61, version="2.7.1+rocm6.4", hip="6.4.43482")
    res = D.check_platform(view(report000, torch=t))
    assert res.status == "fail" and "gfx906" in res.summary and res.code == "platform-unsupported"
    # no ROCm torch at all, but ROCm 6.4 installed: warn
    res = D.check_platform(view(report000, torch=None))
    assert res.status == "warn"


def test_torch_build_mismatch_and_invisible_gpus(report000):
    cpu = {"version": "2.13.0+cpu", "hip": None, "cuda": None, "available": False, "devices": [], "arch_list": []}
    assert D.check_torch(view(report000, torch=cpu)).status == "fail"
    assert D.check_torch_devices(view(report000, torch=cpu)).status == "fail"
    one = dict(TORCH_ROCM61, devices=TORCH_ROCM61["devices"][:1])
    assert D.check_torch_devices(view(report000, torch=one)).status == "warn"
    no_kernels = dict(TORCH_ROCM61, arch_list=["gfx90a", "gfx942"])
    res = D.check_torch_devices(view(report000, torch=no_kernels))
    assert res.status == "fail" and "gfx906" in res.summary
    assert D.check_torch(view(report000, torch=None)).status == "warn"


def test_hsa_override_needed_for_gfx1031(tmp_path):
    rx = dict(fake_sysfs.MI50, device="0x73df", product_name="AMD Radeon RX 6700 XT", vram_total=12 * 2**30,
              vram_used=2**30, gfx_target_version=100301)
    root = fake_system.machine(tmp_path, [rx])
    res = D.check_hsa_override(view(root))
    assert res.status == "fail" and "10.3.0" in res.fix and res.code == "hsa-override-needed"
    assert D.check_hsa_override(view(root, {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})).status == "pass"
    wrong = D.check_hsa_override(view(root, {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}))
    assert wrong.status == "fail" and "need" in wrong.summary
    bad = D.check_hsa_override(view(root, {"HSA_OVERRIDE_GFX_VERSION": "gfx1030"}))
    assert bad.status == "fail" and "malformed" in bad.summary


def test_hsa_override_wrong_on_supported_gpu(report000):
    res = D.check_hsa_override(view(report000, {"HSA_OVERRIDE_GFX_VERSION": "9.4.2"}))
    assert res.status == "fail" and "gfx942" in res.summary


@pytest.mark.parametrize("env,status,words", [
    ({}, "pass", "every GPU"),
    ({"HIP_VISIBLE_DEVICES": "0,1"}, "pass", "Consistent"),
    ({"HIP_VISIBLE_DEVICES": "0,1", "CUDA_VISIBLE_DEVICES": "1"}, "warn", "HIP_VISIBLE_DEVICES wins"),
    ({"HIP_VISIBLE_DEVICES": "0,1", "ROCR_VISIBLE_DEVICES": "0"}, "fail", "more devices than ROCR"),
    ({"HIP_VISIBLE_DEVICES": "0,5"}, "fail", "device 5 but only 2"),
    ({"CUDA_VISIBLE_DEVICES": ""}, "fail", "hides every GPU"),
])
def test_visible_devices(report000, env, status, words):
    res = D.check_visible_devices(view(report000, env))
    assert res.status == status and words in res.summary


def test_pcie_narrow_link_and_fine_grain(tmp_path):
    narrow = dict(fake_sysfs.MI50, link_width="8")
    root = fake_system.machine(tmp_path, [fake_sysfs.MI50, narrow], rocm="5.6.0")
    res = D.check_pcie(view(root))
    assert res.status == "warn" and "card1 runs x8 of x16" in res.summary
    t = dict(TORCH_ROCM61, hip="5.6.31061")
    assert D.check_fine_grain_pcie(view(root, torch=t)).status == "warn"
    assert D.check_fine_grain_pcie(view(root, {"HSA_FORCE_FINE_GRAIN_PCIE": "1"}, torch=t)).status == "pass"
    # the installed ROCm (5.6) is what counts; from 5.7 on the flag is not required
    newer = fake_system.machine(tmp_path / "new", [fake_sysfs.MI50] * 2, rocm="6.2.0")
    assert D.check_fine_grain_pcie(view(newer)).status == "pass"


def test_mi300x_new_stack(tmp_path):
    root = fake_system.machine(tmp_path, [fake_sysfs.MI300X] * 8, cmdline="ro amd_iommu=on iommu=pt",
                               cpu="AuthenticAMD", rocm="7.0.2")
    t = {"version": "2.11.0+rocm7.0", "hip": "7.0.51831", "cuda": None, "available": True,
         "devices": [{"name": "AMD Instinct MI300X", "gcnArchName": "gfx942:sramecc+:xnack-"}] * 8,
         "arch_list": ["gfx942", "gfx950"]}
    env = {"PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True"}
    r = by_id(D.run_checks(view(root, env, torch=t, modules={"flash_attn": "2.8.3", "bitsandbytes": "0.49.1"})))
    assert r["bf16"].status == "pass" and r["iommu-p2p"].status == "pass"
    assert r["expandable-segments"].status == "pass" and "effective" in r["expandable-segments"].summary
    assert r["flash-attn"].status == "pass" and r["bitsandbytes"].status == "pass"
    assert r["platform-version"].status == "pass" and "7.0.2" in r["platform-version"].summary
    both = D.check_alloc_conf(view(root, dict(env, PYTORCH_CUDA_ALLOC_CONF="max_split_size_mb:128"), torch=t))
    assert both.status == "warn" and "ignored" in both.summary


def test_low_resources(tmp_path):
    root = fake_system.machine(tmp_path, [fake_sysfs.MI50], meminfo="MemTotal: 8000000 kB\nMemAvailable: 4000000 kB\n")
    assert D.check_cpu_ram(view(root)).status == "warn"
    assert D.check_disk(view(root, free=2 * 2**30)).status == "fail"
    assert D.check_disk(view(root, free=20 * 2**30)).status == "warn"
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        res = D.check_hf_cache(view(root, {"HF_HOME": str(ro / "hf")}))
        import os

        assert res.status == ("pass" if os.geteuid() == 0 else "fail")   # root can write anywhere
    finally:
        ro.chmod(0o700)


def test_no_gpu_machine(tmp_path):
    root = fake_system.machine(tmp_path, [])
    r = by_id(D.run_checks(view(root, torch={"version": "2.13.0+cpu", "hip": None, "cuda": None,
                                             "available": False, "devices": [], "arch_list": []})))
    assert r["gpu-detected"].status == "warn" and "No GPU found" in r["gpu-detected"].summary
    assert {r[k].status for k in ("hsa-override", "bf16", "iommu-p2p", "torch-gpus")} == {"skip"}
    assert D.summarize(list(r.values()))["ok"] is True


def test_crashing_check_is_reported_not_raised(tmp_path, monkeypatch):
    def boom(view):
        raise RuntimeError("kaput")

    monkeypatch.setattr(D, "CHECKS", (boom,))
    (res,) = D.run_checks(view(tmp_path))
    assert res.status == "fail" and "kaput" in res.summary


def test_doctor_cli_on_this_machine():
    p = run_cli("doctor", "--json")
    assert p.returncode in (0, 1), p.stderr
    d = json.loads(p.stdout)
    ids = [c["id"] for c in d["checks"]]
    assert len(ids) == len(set(ids)) and "iommu-p2p" in ids and "gpu-detected" in ids
    assert all(c["status"] in D.STATUSES for c in d["checks"])
    assert d["ok"] == (p.returncode == 0)


def test_doctor_cli_exit_code_1_on_failure_and_plain_text():
    env = {"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2", "HSA_OVERRIDE_GFX_VERSION": "banana"}
    p = run_cli("doctor", env=env)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "[FAIL] hsa-override" in p.stdout and "malformed" in p.stdout
    assert "[WARN] bf16" in p.stdout and "failed" in p.stdout.splitlines()[-1]
