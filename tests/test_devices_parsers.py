"""Vendor-tool output parsers on fixture files (real output shapes) and on garbage."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rocm_tune.core.hardware.devices import NA
from rocm_tune.core.hardware.devices import parsers as P

FIX = Path(__file__).parent / "fixtures" / "devices"
MiB = 2**20


def read(rel: str) -> str:
    return (FIX / rel).read_text()


def test_amd_smi_static_list_form():
    st_ = P.parse_amdsmi_static(read("amd-smi/static_list.json"))
    assert sorted(st_) == [0, 1]
    assert st_[0]["name"] == "AMD Instinct MI300X"
    assert st_[0]["arch"] == "gfx942"
    assert st_[0]["vram_total_bytes"] == 196592 * MiB
    assert st_[1]["power_limit_w"] == 750.0
    assert st_[0]["max_pcie"] == "32 GT/s x16"


def test_amd_smi_gpu_data_form():
    st_ = P.parse_amdsmi_static(read("amd-smi/static_gpu_data.json"))
    assert st_[0]["name"] == "AMD Radeon RX 7800 XT" and st_[0]["arch"] == "gfx1101"
    assert st_[0]["vram_total_bytes"] == 16368 * MiB
    m = P.parse_amdsmi_metric(read("amd-smi/metric_gpu_data.json"))
    assert m[0]["vram_used_bytes"] == 14569 * MiB
    assert m[0]["util_percent"] == 2.0
    assert m[0]["temp_c"] == 41.0          # hotspot preferred over edge
    assert m[0]["pcie"] == "16 GT/s x16"


def test_amd_smi_metric_list_with_na_fields():
    m = P.parse_amdsmi_metric(read("amd-smi/metric_list.json"))
    assert m[0]["util_percent"] == 97.0 and m[1]["util_percent"] == 0.0
    assert m[0]["power_w"] == 702.0 and m[0]["sclk_mhz"] == 2088.0 and m[0]["mclk_mhz"] == 1300.0
    assert m[0]["vram_total_bytes"] == 196592 * MiB and m[0]["vram_used_bytes"] == 151230 * MiB
    assert m[0]["power_limit_w"] is NA      # not in metric output; the backend takes it from static


def test_amd_smi_process_both_shapes():
    old = P.parse_amdsmi_process(read("amd-smi/process_list.json"))
    assert old[0] == ((4121, "python3", 151000 * MiB),) and old[1] == ()
    new = P.parse_amdsmi_process(read("amd-smi/process_gpu_data.json"))
    assert new[0] == ((977, "ollama", 13850 * MiB),)


def test_rocm_smi_static_and_dynamic_merge():
    cards = P.merge_cards(P.parse_rocm_smi(read("rocm-smi/mi50_static.json")),
                          P.parse_rocm_smi(read("rocm-smi/mi50_dynamic.json")))
    c0 = cards[0]
    assert c0["name"].startswith("Vega 20") and c0["arch"] == "gfx906"
    assert c0["vram_total_bytes"] == 34342961152 and c0["vram_used_bytes"] == 31138512896
    assert c0["util_percent"] == 100.0 and c0["temp_c"] == 78.0   # junction
    assert c0["power_w"] == 219.0 and c0["power_limit_w"] == 225.0
    assert c0["sclk_mhz"] == 1725.0 and c0["mclk_mhz"] == 1000.0
    assert c0["pcie"] == "16 GT/s x16"


def test_rocm_smi_apu_vram_percent_and_system_key_ignored():
    cards = P.parse_rocm_smi(read("rocm-smi/apu_624.json"))
    assert list(cards) == [0]
    c = cards[0]
    assert c["name"] == "Phoenix3" and c["power_w"] == pytest.approx(7.222)
    assert c["vram_total_bytes"] is NA and c["vram_used_bytes"] is NA   # only a percentage, no total
    assert c["util_percent"] == 19.0 and c["arch"] is NA


def test_hy_smi_json_with_banner_lines():
    cards = P.merge_cards(P.parse_rocm_smi(read("hy-smi/productname.txt")), P.parse_rocm_smi(read("hy-smi/dynamic.txt")))
    assert cards[1]["name"] == "K500SM_AI"
    assert cards[0]["util_percent"] == 96.0
    assert cards[0]["vram_total_bytes"] == 65520 * MiB and cards[0]["vram_used_bytes"] == 52104 * MiB
    assert cards[0]["temp_c"] == 55.0 and cards[0]["power_w"] == 231.0


def test_hy_smi_old_per_flag_outputs():
    cards = P.merge_cards(*(P.parse_rocm_smi(read(f"hy-smi/{f}")) for f in
                            ("showuse_only.txt", "memavailable.txt", "memuse_only.txt")))
    assert cards[0]["util_percent"] == 96.0
    assert cards[0]["vram_total_bytes"] == 65520 * MiB
    # "DCU memory use (%)" from one call and the total from another are combined into bytes
    assert cards[0]["vram_used_bytes"] == int(65520 * MiB * 0.80)
    assert P.parse_rocm_smi(read("hy-smi/memuse_only.txt"))[0]["vram_used_bytes"] is NA


def test_nvidia_smi_csv():
    rows = P.parse_nvidia_smi_csv(read("nvidia-smi/query_gpu.csv"))
    assert [r["index"] for r in rows] == [0, 1, 2]
    h = rows[0]
    assert h["name"] == "NVIDIA H100 80GB HBM3" and h["arch"] == "sm_90"
    assert h["vram_total_bytes"] == 81559 * MiB and h["vram_used_bytes"] == 74211 * MiB
    assert h["power_w"] == pytest.approx(684.31) and h["pcie"] == "Gen5 x16"
    v = rows[2]
    assert v["arch"] == "sm_70" and v["vram_used_bytes"] is NA and v["util_percent"] is NA and v["power_w"] is NA
    fields = tuple(f for f in P.NVSMI_FIELDS if f != "compute_cap")
    old = P.parse_nvidia_smi_csv(read("nvidia-smi/query_gpu_no_cc.csv"), fields)
    assert old[0]["arch"] is NA and old[0]["name"] == "NVIDIA GeForce RTX 3090"
    apps = P.parse_nvidia_smi_apps(read("nvidia-smi/apps.csv"))
    assert apps["GPU-5d5b7b3e-0f32-6c3e-1b6a-3d3d7c0b2a11"] == ((52311, "/usr/bin/python3", 73900 * MiB),)


@pytest.mark.parametrize("value,expected", [
    ("42", 42.0), ("(1725Mhz)", 1725.0), ({"value": 7, "unit": "%"}, 7.0), ("N/A", NA), ("[Not Supported]", NA),
    (None, NA), (0xFFFF, NA), (float("nan"), NA), (True, NA), ("junk", NA),
])
def test_num(value, expected):
    assert P.num(value) == expected or (expected is NA and P.num(value) is NA)


def test_to_bytes_units():
    assert P.to_bytes({"value": 2, "unit": "MB"}) == 2 * MiB   # amd-smi MB are MiB
    assert P.to_bytes("3 GiB") == 3 * 2**30
    assert P.to_bytes("1024", "mib") == 2**30
    assert P.to_bytes({"value": 1, "unit": "parsecs"}) is NA
    assert P.to_bytes(-5) is NA


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_parsers_never_crash_on_garbage(text):
    for fn in (P.parse_amdsmi_static, P.parse_amdsmi_metric, P.parse_amdsmi_process, P.parse_rocm_smi,
               P.parse_nvidia_smi_csv, P.parse_nvidia_smi_apps):
        fn(text)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.sampled_from(
                        ["gpu", "gpu_data", "asic", "usage", "mem_usage", "card0", "process_list", "value", "unit",
                         "temperature", "power", "clock", "vram", "size"]), c, max_size=5), max_leaves=20))
def test_parsers_never_crash_on_odd_json(doc):
    import json

    text = json.dumps(doc)
    P.parse_amdsmi_static(text)
    P.parse_amdsmi_metric(text)
    P.parse_amdsmi_process(text)
    P.parse_rocm_smi(text)
