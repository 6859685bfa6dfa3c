"""Parsers for the vendor tools' real output formats. Pure functions; garbage in -> [] or NA, never raise.

Field names come from the vendors' code and documentation (see shared/knowledge/hardware.md section 4):
* `amd-smi static|metric|process --json`: a list of per-GPU objects (ROCm 6.x) or, in newer CLIs,
  `{"gpu_data": [...], "cpu_data": [...], ...}`; values are `{"value": x, "unit": "MB"}` or "N/A".
* `rocm-smi ... --json` / `hy-smi ... --json`: `{"card0": {"VRAM Total Memory (B)": "...", ...}, "system": {...}}`,
  all values strings; hy-smi uses "DCU use (%)" and may print non-JSON lines around the object.
* `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`; "[N/A]" / "[Not Supported]" for missing values.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rocm_tune.core.hardware.devices.types import NA

_UNIT_BYTES = {
    "b": 1, "byte": 1, "bytes": 1,
    "kb": 1000, "mb": 1000**2, "gb": 1000**3, "tb": 1000**4,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
}

_NA_STRINGS = {"", "n/a", "na", "none", "null", "[n/a]", "[not supported]", "not supported", "unknown",
               "[unknown error]", "[insufficient permissions]", "nan", "-"}


def num(value: Any) -> Any:
    """'42', '42.0 %', '(1700Mhz)', {"value": 42, "unit": "%"} -> float; anything else -> NA."""
    if value is None or value is NA or isinstance(value, bool):
        return NA
    if isinstance(value, dict):
        return num(value.get("value"))
    if isinstance(value, (int, float)):
        if value != value or value in (float("inf"), float("-inf")):
            return NA
        # amdsmi marks unsupported 16/32-bit fields with all-ones sentinels
        if value in (0xFFFF, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF):
            return NA
        return float(value)
    text = str(value).strip()
    if text.lower() in _NA_STRINGS:
        return NA
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    if not m:
        return NA
    try:
        return float(m.group(0))
    except ValueError:
        return NA


def to_bytes(value: Any, default_unit: str = "b") -> Any:
    """{"value": 16368, "unit": "MB"} / "16368 MB" / 34342961152 -> int bytes (amd-smi 'MB' means MiB)."""
    if value is None or value is NA:
        return NA
    unit = default_unit
    if isinstance(value, dict):
        unit = str(value.get("unit") or default_unit)
        value = value.get("value")
    elif isinstance(value, str):
        m = re.match(r"^\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z]+)?\s*$", value)
        if m and m.group(2):
            unit = m.group(2)
            value = m.group(1)
    n = num(value)
    if n is NA or n < 0:
        return NA
    u = unit.strip().lower()
    # amd-smi prints MiB and calls them "MB" (amd_smi.cc divides by 1024*1024)
    if u == "mb" and default_unit.lower() != "mb_decimal":
        u = "mib"
    if u == "gb" and default_unit.lower() != "mb_decimal":
        u = "gib"
    factor = _UNIT_BYTES.get(u)
    if factor is None:
        return NA
    return int(round(n * factor))


def extract_json(text: str) -> Any:
    """The first JSON object/array in `text` (tools sometimes print warnings around it); None if none."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text):
        try:
            obj, _end = decoder.raw_decode(text[m.start():])
        except ValueError:
            continue
        if isinstance(obj, (dict, list)):
            return obj
    return None


# ----------------------------------------------------------------------------------------- amd-smi

def amdsmi_gpu_list(doc: Any) -> list[dict]:
    """Both shapes: [{"gpu": 0, ...}, ...] and {"gpu_data": [...]} -> list of per-GPU dicts."""
    if isinstance(doc, dict):
        if isinstance(doc.get("gpu_data"), list):
            doc = doc["gpu_data"]
        elif "gpu" in doc:
            doc = [doc]
        else:
            return []
    if not isinstance(doc, list):
        return []
    return [d for d in doc if isinstance(d, dict)]


def _gpu_id(entry: dict, fallback: int) -> int:
    g = num(entry.get("gpu"))
    return int(g) if g is not NA else fallback


def _section(entry: dict, key: str) -> dict:
    """``entry[key]`` where it is a dict, else an empty one (a tool that omits or garbles a section)."""
    value = entry.get(key)
    return value if isinstance(value, dict) else {}


def _dig(d: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


def parse_amdsmi_static(text: str) -> dict[int, dict]:
    """`amd-smi static --json` -> {gpu: {name, arch, vram_total_bytes, power_limit_w, bdf, max_pcie}}."""
    out: dict[int, dict] = {}
    for i, e in enumerate(amdsmi_gpu_list(extract_json(text))):
        asic = _section(e, "asic")
        bus = _section(e, "bus")
        vram = _section(e, "vram")
        board = _section(e, "board")
        limit = _section(e, "limit")
        name = asic.get("market_name") or board.get("product_name") or ""
        if str(name).strip().upper() == "N/A":
            name = board.get("product_name") or ""
        info = {
            "name": str(name or "").strip(),
            "arch": str(asic.get("target_graphics_version") or "").strip() or NA,
            "vram_total_bytes": to_bytes(vram.get("size")),
            "power_limit_w": num(limit.get("max_power") or limit.get("power_cap") or limit.get("socket_power")),
            "bdf": str(bus.get("bdf") or e.get("bdf") or "") or NA,
            "max_pcie": _pcie_text(bus.get("max_pcie_speed"), bus.get("max_pcie_width")),
        }
        out[_gpu_id(e, i)] = info
    return out


def _pcie_text(speed: Any, width: Any) -> Any:
    s = num(speed)
    w = num(width)
    if s is NA and w is NA:
        return NA
    # amd-smi reports speed in GT/s; amdsmi gpu_metrics report 0.1 GT/s units
    if s is not NA and s > 100:
        s = s / 10
    parts = []
    if s is not NA:
        parts.append(f"{s:g} GT/s")
    if w is not NA:
        parts.append(f"x{int(w)}")
    return " ".join(parts)


def parse_amdsmi_metric(text: str) -> dict[int, dict]:
    """`amd-smi metric --json` -> {gpu: {util_percent, vram_used_bytes, vram_total_bytes, temp_c, power_w, ...}}."""
    out: dict[int, dict] = {}
    for i, e in enumerate(amdsmi_gpu_list(extract_json(text))):
        usage = _section(e, "usage")
        power = _section(e, "power")
        temp = _section(e, "temperature")
        mem = _section(e, "mem_usage")
        clock = _section(e, "clock")
        pcie = _section(e, "pcie")
        t = NA
        for key in ("hotspot", "junction", "edge"):
            t = num(temp.get(key))
            if t is not NA:
                break
        p = NA
        for key in ("socket_power", "current_socket_power", "average_socket_power"):
            p = num(power.get(key))
            if p is not NA:
                break
        gfx_clk = NA
        mem_clk = NA
        for cname, cval in clock.items():
            c = num(_dig(cval, "clk"))
            if c is NA:
                continue
            if cname.startswith("gfx") and gfx_clk is NA:
                gfx_clk = c
            elif cname.startswith("mem") and mem_clk is NA:
                mem_clk = c
        out[_gpu_id(e, i)] = {
            "util_percent": num(usage.get("gfx_activity")),
            "vram_used_bytes": to_bytes(mem.get("used_vram")),
            "vram_total_bytes": to_bytes(mem.get("total_vram")),
            "temp_c": t,
            "power_w": p,
            "power_limit_w": num(power.get("power_limit") or power.get("max_power")),
            "sclk_mhz": gfx_clk,
            "mclk_mhz": mem_clk,
            "pcie": _pcie_text(pcie.get("speed"), pcie.get("width")),
        }
    return out


def parse_amdsmi_process(text: str) -> dict[int, tuple]:
    """`amd-smi process --json` -> {gpu: ((pid, name, vram_bytes), ...)} (old and new entry shapes)."""
    out: dict[int, tuple] = {}
    for i, e in enumerate(amdsmi_gpu_list(extract_json(text))):
        procs = []
        plist = e.get("process_list")
        if not isinstance(plist, list):
            plist = []
        for p in plist:
            if not isinstance(p, dict):
                continue
            nested = p.get("process_info")
            info = nested if isinstance(nested, dict) else p
            pid = num(info.get("pid"))
            if pid is NA:
                continue
            vram = to_bytes(_dig(info, "memory_usage", "vram_mem"))
            if vram is NA:
                vram = to_bytes(info.get("mem_usage") or info.get("mem"))
            procs.append((int(pid), str(info.get("name") or "?"), vram))
        out[_gpu_id(e, i)] = tuple(procs)
    return out


# ----------------------------------------------------------------------------------- rocm-smi / hy-smi

def _card_index(key: str) -> Any:
    m = re.fullmatch(r"(?:card|gpu|dcu|hcu)\[?(\d+)\]?", key.strip().lower())
    return int(m.group(1)) if m else NA


def _first(d: dict, *patterns: str) -> Any:
    """Value of the first key matching one of the regexes (case-insensitive)."""
    for pat in patterns:
        rx = re.compile(pat, re.IGNORECASE)
        for k, v in d.items():
            if rx.search(k):
                return v
    return None


def parse_rocm_smi(text: str) -> dict[int, dict]:
    """rocm-smi / hy-smi `--json` -> {card: {...}}. Merges several calls when given their outputs joined."""
    doc = extract_json(text)
    if not isinstance(doc, dict):
        return {}
    out: dict[int, dict] = {}
    for key, card in doc.items():
        idx = _card_index(str(key))
        if idx is NA or not isinstance(card, dict):
            continue
        name = _first(card, r"^card series$", r"^device name$", r"^card model$", r"^product name$")
        if isinstance(name, str) and re.fullmatch(r"0x[0-9a-f]+", name.strip(), re.IGNORECASE):
            name = _first(card, r"^device name$") or name
        total = _first(card, r"^vram total memory \(b\)$")
        used = _first(card, r"^vram total used memory \(b\)$")
        total_b = to_bytes(total) if total is not None else NA
        used_b = to_bytes(used) if used is not None else NA
        if total_b is NA:  # hy-smi / older spellings in MiB
            total_b = to_bytes(_first(card, r"total memory \(mib\)", r"^available memory size \(mib\)$"), "mib")
        if used_b is NA:
            used_b = to_bytes(_first(card, r"used memory \(mib\)"), "mib")
        pct = num(_first(card, r"^(gpu|dcu|hcu) memory (allocated \(vram%\)|use \(%\))$"))
        if used_b is NA and total_b is not NA and pct is not NA:
            used_b = int(total_b * pct / 100)
        temp = NA
        for pat in (r"sensor junction", r"sensor edge", r"^temperature"):
            temp = num(_first(card, pat))
            if temp is not NA:
                break
        power = num(_first(card, r"current socket graphics package power", r"average graphics package power",
                           r"^(average|current) .*power \(w\)$"))
        pcie = NA
        pcl = _first(card, r"^pcie clock level$")
        if isinstance(pcl, str):
            m = re.search(r"([\d.]+)\s*GT/s\s*x(\d+)", pcl)
            if m:
                pcie = f"{float(m.group(1)):g} GT/s x{m.group(2)}"
        out[idx] = {
            "name": str(name).strip() if name else "",
            "arch": str(_first(card, r"^gfx version$") or "").strip() or NA,
            "vram_total_bytes": total_b,
            "vram_used_bytes": used_b,
            "util_percent": num(_first(card, r"^(gpu|dcu|hcu) use \(%\)$")),
            "temp_c": temp,
            "power_w": power,
            "power_limit_w": num(_first(card, r"^max graphics package power \(w\)$")),
            "sclk_mhz": num(_first(card, r"^sclk clock speed")),
            "mclk_mhz": num(_first(card, r"^mclk clock speed")),
            "pcie": pcie,
            "bdf": _first(card, r"^pci bus$") or NA,
            "vram_percent": pct,
        }
    return out


def merge_cards(*parts: dict[int, dict]) -> dict[int, dict]:
    """Merge per-card dicts from several tool calls: later non-NA, non-empty values win.

    A used-memory percentage from one call is turned into bytes with the total from another.
    """
    out: dict[int, dict] = {}
    for part in parts:
        for idx, info in part.items():
            cur = out.setdefault(idx, {})
            for k, v in info.items():
                if v is NA or v == "" or v is None:
                    cur.setdefault(k, v)
                else:
                    cur[k] = v
    for cur in out.values():
        pct = cur.get("vram_percent", NA)
        if cur.get("vram_used_bytes", NA) is NA and cur.get("vram_total_bytes", NA) is not NA and pct is not NA:
            cur["vram_used_bytes"] = int(cur["vram_total_bytes"] * pct / 100)
    return out


# ------------------------------------------------------------------------------------------ nvidia-smi

NVSMI_FIELDS = (
    "index", "name", "uuid", "pci.bus_id", "compute_cap", "memory.total", "memory.used",
    "utilization.gpu", "temperature.gpu", "power.draw", "power.limit", "clocks.sm", "clocks.mem",
    "pcie.link.gen.current", "pcie.link.width.current",
)


def _csv_rows(text: str) -> list[list[str]]:
    import csv
    import io

    rows: list[list[str]] = []
    for line in text.splitlines():
        try:
            rows.extend(csv.reader(io.StringIO(line)))
        except csv.Error:
            continue
    return rows


def parse_nvidia_smi_csv(text: str, fields: tuple[str, ...] = NVSMI_FIELDS) -> list[dict]:
    """`nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits` -> list of dicts (MiB -> bytes)."""
    rows = []
    if not isinstance(text, str):
        return rows
    for row in _csv_rows(text):
        cells = [c.strip() for c in row]
        if len(cells) != len(fields):
            continue
        d = dict(zip(fields, cells))
        idx = num(d.get("index"))
        if idx is NA:
            continue
        cc = d.get("compute_cap", "")
        arch = NA
        m = re.fullmatch(r"(\d+)\.(\d)", cc or "")
        if m:
            arch = f"sm_{m.group(1)}{m.group(2)}"
        gen = num(d.get("pcie.link.gen.current"))
        width = num(d.get("pcie.link.width.current"))
        pcie = NA
        if gen is not NA or width is not NA:
            pcie = " ".join(x for x in (
                f"Gen{int(gen)}" if gen is not NA else "", f"x{int(width)}" if width is not NA else "") if x)
        rows.append({
            "index": int(idx),
            "name": d.get("name", ""),
            "uuid": d.get("uuid", ""),
            "arch": arch,
            "vram_total_bytes": to_bytes(d.get("memory.total"), "mib"),
            "vram_used_bytes": to_bytes(d.get("memory.used"), "mib"),
            "util_percent": num(d.get("utilization.gpu")),
            "temp_c": num(d.get("temperature.gpu")),
            "power_w": num(d.get("power.draw")),
            "power_limit_w": num(d.get("power.limit")),
            "sclk_mhz": num(d.get("clocks.sm")),
            "mclk_mhz": num(d.get("clocks.mem")),
            "pcie": pcie,
        })
    return rows


def parse_nvidia_smi_apps(text: str) -> dict[str, tuple]:
    """`--query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits`."""
    out: dict[str, list] = {}
    if not isinstance(text, str):
        return {}
    for row in _csv_rows(text):
        cells = [c.strip() for c in row]
        if len(cells) != 4:
            continue
        pid = num(cells[1])
        if pid is NA:
            continue
        out.setdefault(cells[0], []).append((int(pid), cells[2], to_bytes(cells[3], "mib")))
    return {k: tuple(v) for k, v in out.items()}
