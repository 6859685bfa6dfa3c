"""Backends end to end: stand-in vendor tools run as real subprocesses, a fake /sys tree, library stand-ins."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from rocm_tune.core.hardware.devices import BACKEND_ORDER, NA, GpuSample, NoneBackend, detect
from rocm_tune.core.hardware.devices import backends as B
from rocm_tune.core.hardware.devices.synthetic import FakeBackend, ReplayBackend, record
from rocm_tune.core.errors import UserError

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "devices"))
import fake_sysfs
import fake_tools

MiB = 2**20


@pytest.fixture
def tools_path(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))   # only our stand-ins are visible
    return bin_dir


def test_amd_smi_cli_list_form(tools_path):
    fake_tools.install(tools_path, "amd-smi", fake_tools.AMD_SMI_LIST)
    b = detect(root="/nonexistent")
    assert b.name == "amd-smi"
    assert [t[0] for t in b.tried] == ["amdsmi"]
    s = b.sample()
    assert len(s) == 2
    g0, g1 = s
    assert g0.profile_id == "mi300x" and g0.arch == "gfx942" and g0.name == "AMD Instinct MI300X"
    assert g0.vram_used_bytes == 151230 * MiB and g0.util_percent == 97.0 and g0.power_limit_w == 750.0
    assert g0.processes == ((4121, "python3", 151000 * MiB),)
    assert g1.util_percent == 0.0 and g1.processes == ()
    assert time.time() - g0.timestamp < 60


def test_amd_smi_cli_gpu_data_form(tools_path):
    fake_tools.install(tools_path, "amd-smi", fake_tools.AMD_SMI_GPU_DATA)
    (g,) = detect("amd-smi").sample()
    assert g.profile_id == "rx7800xt" and g.vram_total_bytes == 16368 * MiB and g.temp_c == 41.0


def test_rocm_smi_two_mi50(tools_path):
    fake_tools.install(tools_path, "rocm-smi", fake_tools.ROCM_SMI_MI50)
    b = detect(root="/nonexistent")
    assert b.name == "rocm-smi"
    assert [t[0] for t in b.tried] == ["amdsmi", "amd-smi"]
    s = b.sample()
    assert [g.profile_id for g in s] == ["mi50-32gb", "mi50-32gb"]
    assert s[1].vram_used_bytes == 30970740736 and s[0].power_limit_w == 225.0 and s[0].processes == ()


def test_hy_smi_new_and_old(tools_path):
    fake_tools.install(tools_path, "hy-smi", fake_tools.HY_SMI_NEW)
    s = detect(root="/nonexistent").sample()
    assert [g.profile_id for g in s] == ["k100-ai", "k100-ai"]
    assert s[0].vram_used_bytes == 52104 * MiB
    fake_tools.install(tools_path, "hy-smi", fake_tools.HY_SMI_OLD)
    b = detect("hy-smi")
    s = b.sample()
    assert s[0].util_percent == 96.0 and s[0].vram_total_bytes == 65520 * MiB
    assert s[0].vram_used_bytes == int(65520 * MiB * 0.80)


def test_nvidia_smi(tools_path):
    fake_tools.install(tools_path, "nvidia-smi", fake_tools.NVIDIA_SMI)
    b = detect(root="/nonexistent")
    assert b.name == "nvidia-smi"
    s = b.sample()
    assert [g.profile_id for g in s] == ["h100-sxm", "h100-sxm", "v100-32gb"]
    assert s[0].processes == ((52311, "/usr/bin/python3", 73900 * MiB),) and s[1].processes == ()
    assert s[2].util_percent is NA and s[2].power_w is NA


def test_failing_tool_is_unavailable_with_reason(tools_path):
    fake_tools.install(tools_path, "amd-smi", [("static", 1, None)])
    fake_tools.install(tools_path, "rocm-smi", [("--showmeminfo", 0, "amd-smi/static_list.json")])  # wrong format
    b = detect(root="/nonexistent")
    assert isinstance(b, NoneBackend)
    reasons = dict(b.tried)
    assert list(reasons) == list(BACKEND_ORDER)
    assert "exited 1" in reasons["amd-smi"] and "unsupported option" in reasons["amd-smi"]
    assert "listed no GPU" in reasons["rocm-smi"]
    assert reasons["nvidia-smi"] == "nvidia-smi not on PATH"


def test_tool_timeout_is_unavailable(tmp_path):
    slow = tmp_path / "rocm-smi"
    slow.write_text(f"#!{sys.executable}\nimport time; time.sleep(5)\n")
    slow.chmod(0o755)
    b = B.RocmSmiBackend(which=lambda name: str(slow))
    b.timeout = 0.3
    with pytest.raises(B.BackendUnavailable, match="exited 124"):
        b.probe()
    assert b.sample() == ()


def test_sysfs_backend_fake_tree(tmp_path):
    root = fake_sysfs.build(tmp_path, [fake_sysfs.MI50, fake_sysfs.MI50, fake_sysfs.MI300X])
    b = detect("sysfs", root=str(root))
    assert b.name == "sysfs"
    s = b.sample()
    assert [g.profile_id for g in s] == ["mi50-32gb", "mi50-32gb", "mi300x"]
    g = s[0]
    assert g.arch == "gfx906" and g.vram_total_bytes == 34342961152 and g.vram_used_bytes == 31138512896
    assert g.util_percent == 100.0 and g.temp_c == 78.0 and g.power_w == 219.0 and g.power_limit_w == 225.0
    assert g.sclk_mhz == 1725.0 and g.mclk_mhz == 1000.0 and g.pcie == "16 GT/s x16"
    assert s[2].arch == "gfx942" and s[2].name == "AMD Instinct MI300X"


def test_sysfs_missing_metrics_are_na_and_no_kfd_uses_pci_table(tmp_path):
    card = dict(fake_sysfs.MI50, busy=None, temp_edge=None, temp_junction=None, power=None, cap=None,
                sclk=None, mclk=None, link_speed=None, link_width=None)
    root = fake_sysfs.build(tmp_path, [card], kfd=False)
    (g,) = B.SysfsBackend(root).sample()
    assert g.util_percent is NA and g.temp_c is NA and g.power_w is NA and g.pcie is NA
    assert g.arch == "gfx906" and g.profile_id == "mi50-32gb"   # from the PCI id table
    # garbage in a file is NA, not an exception
    (Path(root) / "sys/devices/pci0000:00/0000:03:00.0/mem_info_vram_used").write_text("garbage\n")
    (g,) = B.SysfsBackend(root).sample()
    assert g.vram_used_bytes is NA and g.vram_total_bytes == 34342961152


def test_sysfs_ignores_non_amd_cards(tmp_path):
    root = fake_sysfs.build(tmp_path, [dict(fake_sysfs.MI50, vendor="0x8086")])
    with pytest.raises(B.BackendUnavailable, match="no amdgpu device"):
        B.SysfsBackend(root).probe()


class _Enum(SimpleNamespace):
    pass


def fake_amdsmi(n=2, broken_temp=False):
    calls = []

    def temp(h, sensor, metric):
        if broken_temp:
            raise RuntimeError("AMDSMI_STATUS_NOT_SUPPORTED")
        return 65 + h

    return SimpleNamespace(
        calls=calls,
        AmdSmiMemoryType=_Enum(VRAM=0), AmdSmiTemperatureType=_Enum(EDGE=0, HOTSPOT=1),
        AmdSmiTemperatureMetric=_Enum(CURRENT=0), AmdSmiClkType=_Enum(GFX=0, MEM=1),
        amdsmi_init=lambda: calls.append("init"), amdsmi_shut_down=lambda: calls.append("shutdown"),
        amdsmi_get_processor_handles=lambda: list(range(n)),
        amdsmi_get_gpu_asic_info=lambda h: {"market_name": "AMD Instinct MI250X", "target_graphics_version": "gfx90a",
                                            "num_compute_units": 110},
        amdsmi_get_gpu_memory_total=lambda h, t: 68702699520,
        amdsmi_get_gpu_memory_usage=lambda h, t: 1000 * MiB * (h + 1),
        amdsmi_get_gpu_activity=lambda h: {"gfx_activity": 50 + h, "umc_activity": 3, "mm_activity": "N/A"},
        amdsmi_get_temp_metric=temp,
        amdsmi_get_power_info=lambda h: {"current_socket_power": "N/A", "average_socket_power": 301,
                                         "power_limit": 560, "gfx_voltage": 800},
        amdsmi_get_clock_info=lambda h, t: {"clk": 1700 if t == 0 else 1600, "min_clk": 500, "max_clk": 1700},
        amdsmi_get_pcie_info=lambda h: {"pcie_static": {"max_pcie_width": 16, "max_pcie_speed": 16000},
                                        "pcie_metric": {"pcie_width": 16, "pcie_speed": 16000}},
        amdsmi_get_gpu_process_list=lambda h: [{"name": "python3", "pid": 77, "mem": 5,
                                                "memory_usage": {"vram_mem": 123 * MiB}}] if h == 0 else [],
    )


def test_amdsmi_library_backend_and_latency():
    mod = fake_amdsmi(8)
    b = B.AmdSmiLibBackend(module=mod)
    assert b.probe() == 8
    s = b.sample()
    assert len(s) == 8 and all(g.profile_id == "mi250x" for g in s)   # one 64 GiB device per GCD
    g = s[1]
    assert g.vram_used_bytes == 2000 * MiB and g.util_percent == 51.0 and g.temp_c == 66.0
    assert g.power_w == 301.0 and g.power_limit_w == 560.0 and g.sclk_mhz == 1700.0 and g.mclk_mhz == 1600.0
    assert g.pcie == "16 GT/s x16"
    assert s[0].processes == ((77, "python3", 123 * MiB),)
    t0 = time.perf_counter()
    for _ in range(20):
        b.sample()
    assert (time.perf_counter() - t0) / 20 < 0.05     # our own overhead per poll of 8 GPUs
    b.close()
    assert mod.calls == ["init", "shutdown"]


def test_amdsmi_library_errors_become_na():
    (g, _) = B.AmdSmiLibBackend(module=fake_amdsmi(2, broken_temp=True)).sample()
    assert g.temp_c is NA and g.util_percent == 50.0
    bad = SimpleNamespace(amdsmi_init=lambda: (_ for _ in ()).throw(RuntimeError("no driver")))
    with pytest.raises(B.BackendUnavailable, match="amdsmi_init failed"):
        B.AmdSmiLibBackend(module=bad).probe()
    assert B.AmdSmiLibBackend(module=bad).sample() == ()


def test_nvml_backend_with_library_stand_in():
    mem = SimpleNamespace(total=85899345920, used=1024 * MiB, free=0)
    m = SimpleNamespace(
        nvmlInit=lambda: None, nvmlShutdown=lambda: None, nvmlDeviceGetCount=lambda: 1,
        nvmlDeviceGetHandleByIndex=lambda i: i, nvmlDeviceGetName=lambda h: b"NVIDIA A100-SXM4-80GB",
        nvmlDeviceGetCudaComputeCapability=lambda h: (8, 0), nvmlDeviceGetUUID=lambda h: "GPU-x",
        nvmlDeviceGetMemoryInfo=lambda h: mem, nvmlDeviceGetUtilizationRates=lambda h: SimpleNamespace(gpu=42, memory=7),
        nvmlDeviceGetTemperature=lambda h, s: 55, nvmlDeviceGetPowerUsage=lambda h: 250123,
        nvmlDeviceGetEnforcedPowerLimit=lambda h: 400000, nvmlDeviceGetClockInfo=lambda h, c: 1410,
        nvmlDeviceGetCurrPcieLinkGeneration=lambda h: 4, nvmlDeviceGetCurrPcieLinkWidth=lambda h: 16,
        nvmlDeviceGetComputeRunningProcesses=lambda h: [SimpleNamespace(pid=1, usedGpuMemory=None)],
    )
    (g,) = B.NvmlBackend(module=m).sample()
    assert g.profile_id == "a100-80gb" and g.arch == "sm_80" and g.util_percent == 42.0
    assert g.power_w == pytest.approx(250.123) and g.power_limit_w == 400.0 and g.pcie == "Gen4 x16"
    assert g.processes[0][0] == 1 and g.processes[0][2] is NA


def test_detect_on_this_machine_reports_every_backend(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("ROCM_TUNE_FAKE_GPUS", raising=False)
    monkeypatch.delenv("ROCM_TUNE_REPLAY", raising=False)
    b = detect(root=str(tmp_path))
    assert b.name == "none" and b.sample() == ()
    assert [n for n, _ in b.tried] == list(BACKEND_ORDER)
    assert all(reason for _, reason in b.tried)


def test_detect_env_fake_and_replay(tmp_path):
    b = detect(env={"ROCM_TUNE_FAKE_GPUS": "mi50-32gb:2"})
    assert b.name == "fake" and [g.profile_id for g in b.sample()] == ["mi50-32gb"] * 2
    for bad in ("mi50-32gb:zero", "mi50-32gb:0", "nosuchgpu:2", ":3"):
        with pytest.raises(UserError):
            detect(env={"ROCM_TUNE_FAKE_GPUS": bad})
    with pytest.raises(UserError, match="unknown backend 'cuda'"):
        detect("cuda")
    rec = record(FakeBackend("mi300x", 2, seed=1), frames=3, interval=0.5, sleep=lambda s: None)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(rec))
    b = detect(env={"ROCM_TUNE_REPLAY": str(path)})
    assert b.name == "replay" and len(b.sample()) == 2
    with pytest.raises(UserError, match="does not exist"):
        detect(env={"ROCM_TUNE_REPLAY": str(tmp_path / "missing.json")})


def test_fake_backend_values_are_sane_and_vary_over_time():
    now = [1000.0]
    b = FakeBackend("mi50-32gb", 2, seed=3, clock=lambda: now[0])
    a = b.sample()
    now[0] += 5
    c = b.sample()
    for g in a + c:
        assert 0 <= g.util_percent <= 100 and 0 < g.vram_used_bytes < g.vram_total_bytes == 32 * 2**30
        assert g.arch == "gfx906" and g.timestamp in (1000.0, 1005.0)
    assert a[0].util_percent != c[0].util_percent
    assert FakeBackend("mi50-32gb", 2, seed=3, clock=lambda: 1000.0).sample() == a


def test_replay_plays_frames_in_time_and_loops(tmp_path):
    frames = [{"t": t, "gpus": [{"index": 0, "name": "AMD Instinct MI50", "util_percent": u, "temp_c": None}]}
              for t, u in ((0, 10.0), (1, 20.0), (2, 30.0))]
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"interval_s": 1.0, "frames": frames}))
    now = [0.0]
    b = ReplayBackend(path, clock=lambda: now[0])
    seen = []
    for t in (0.0, 0.5, 1.2, 2.7, 3.1, 4.5):
        now[0] = t
        seen.append(b.sample()[0].util_percent)
    assert seen == [10.0, 10.0, 20.0, 30.0, 10.0, 20.0]
    assert b.sample()[0].temp_c is NA


@pytest.mark.parametrize("content,msg", [
    ("{not json", "malformed JSON"), ('{"frames": []}', "no frames"), ('{"frames": [{"t": 0}]}', "frame 0 is malformed"),
    ('{"frames": [{"gpus": [{"index": "x", "name": "a"}]}]}', "frame 0 is malformed"),
])
def test_replay_rejects_bad_files(tmp_path, content, msg):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(UserError, match=msg):
        ReplayBackend(p)


def test_bundled_replay_files_load():
    import rocm_tune.profiles

    d = Path(rocm_tune.profiles.__file__).resolve().parent / "replay"
    files = sorted(d.glob("*.json"))
    assert files
    for f in files:
        b = ReplayBackend(f)
        s = b.sample()
        assert s and all(isinstance(g, GpuSample) and g.profile_id is not NA for g in s)


def test_sample_round_trip_and_na_behaviour():
    g = FakeBackend("h100-sxm", 1, seed=0, clock=lambda: 5.0).sample()[0]
    d = g.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert GpuSample.from_dict(d) == g
    empty = GpuSample(index=0, name="x")
    assert empty.to_dict()["temp_c"] is None and not empty.temp_c and str(empty.temp_c) == "N/A"
    assert f"{empty.power_w:>7.1f}" == "    N/A" and empty.vram_percent is NA
    import copy
    import pickle

    assert pickle.loads(pickle.dumps(NA)) is NA and copy.deepcopy(NA) is NA
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.index = 3  # frozen
