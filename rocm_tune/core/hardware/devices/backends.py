"""Telemetry backends. Each one probes cheaply, samples all GPUs at once and never raises from `sample()`.

Order used by `detect()`: amdsmi (Python library), amd-smi CLI, rocm-smi, hy-smi (Hygon), sysfs,
NVML (nvidia-ml-py), nvidia-smi, torch. Tool backends run their command with a timeout; any error
(missing tool, non-zero exit, unparsable output) makes the backend "unavailable" with a reason.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rocm_tune.core.hardware.devices import parsers as P
from rocm_tune.core.hardware.devices.matching import gfx_from_target_version, match_profile, normalize_arch
from rocm_tune.core.hardware.devices.types import NA, GpuSample

Runner = Callable[[list, float], "tuple[int, str, str]"]


def run_command(argv: list, timeout: float = 5.0) -> tuple[int, str, str]:
    """Run a tool; (returncode, stdout, stderr). 127 = not found, 124 = timed out. Never raises."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, errors="replace")
        return proc.returncode, proc.stdout, proc.stderr
    except FileNotFoundError:
        return 127, "", f"{argv[0]}: not found"
    except subprocess.TimeoutExpired:
        return 124, "", f"{argv[0]}: timed out after {timeout:g} s"
    except OSError as exc:
        return 126, "", f"{argv[0]}: {exc}"


class BackendUnavailable(Exception):
    """Raised by `probe()` with a one-line reason."""


def _sample(index: int, name: str, info: dict, vendor: str | None, ts: float, processes=()) -> GpuSample:
    arch = normalize_arch(info.get("arch", NA))
    vram_total = info.get("vram_total_bytes", NA)
    return GpuSample(
        index=index, name=name or f"GPU {index}",
        profile_id=match_profile(name, arch, vram_total, vendor),
        arch=arch, vram_used_bytes=info.get("vram_used_bytes", NA), vram_total_bytes=vram_total,
        util_percent=info.get("util_percent", NA), temp_c=info.get("temp_c", NA),
        power_w=info.get("power_w", NA), power_limit_w=info.get("power_limit_w", NA),
        sclk_mhz=info.get("sclk_mhz", NA), mclk_mhz=info.get("mclk_mhz", NA),
        pcie=info.get("pcie", NA), processes=tuple(processes), timestamp=ts,
    )


class _Base:
    name = "base"
    kind = "tool"       # "library" | "tool" | "sysfs" | "synthetic"

    def probe(self) -> int:
        """Number of GPUs, or raise BackendUnavailable(reason)."""
        samples = self._read()
        if not samples:
            raise BackendUnavailable("no GPU reported")
        return len(samples)

    def sample(self) -> tuple[GpuSample, ...]:
        try:
            return tuple(self._read())
        except Exception:  # noqa: BLE001 - telemetry must never take the caller down
            return ()

    def _read(self) -> list[GpuSample]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


# --------------------------------------------------------------------------------- tool backends

class _ToolBackend(_Base):
    tool = ""
    timeout = 5.0

    def __init__(self, runner: Runner | None = None, which: Callable[[str], Any] | None = None):
        self.runner = runner or run_command
        self.which = which or shutil.which
        self._static: dict | None = None

    def _run(self, *args: str) -> str:
        path = self.which(self.tool)
        if not path:
            raise BackendUnavailable(f"{self.tool} not on PATH")
        rc, out, err = self.runner([path, *args], self.timeout)
        if rc != 0:
            msg = (err or out or "").strip().splitlines()
            raise BackendUnavailable(f"`{self.tool} {' '.join(args)}` exited {rc}"
                                     + (f": {msg[-1][:160]}" if msg else ""))
        return out


class AmdSmiCliBackend(_ToolBackend):
    name = "amd-smi"
    tool = "amd-smi"

    def _read(self) -> list[GpuSample]:
        if self._static is None:
            static = P.parse_amdsmi_static(self._run("static", "--json"))
            if not static:
                raise BackendUnavailable("`amd-smi static --json` listed no GPU")
            self._static = static
        metric = P.parse_amdsmi_metric(self._run("metric", "--json"))
        try:
            procs = P.parse_amdsmi_process(self._run("process", "--json"))
        except BackendUnavailable:
            procs = {}
        ts = time.time()
        out = []
        for idx in sorted(set(self._static) | set(metric)):
            info = dict(self._static.get(idx, {}))
            m = metric.get(idx, {})
            for k, v in m.items():
                if v is not NA or k not in info:
                    info[k] = v
            if info.get("power_limit_w", NA) is NA:
                info["power_limit_w"] = self._static.get(idx, {}).get("power_limit_w", NA)
            out.append(_sample(idx, info.get("name", ""), info, None, ts, procs.get(idx, ())))
        return out


class RocmSmiBackend(_ToolBackend):
    name = "rocm-smi"
    tool = "rocm-smi"
    vendor: str | None = None
    dynamic_args = ("--showmeminfo", "vram", "--showuse", "--showtemp", "--showpower", "--showclocks", "--json")
    static_args: tuple[str, ...] = ("--showproductname", "--showmaxpower", "--json")

    def _static_info(self) -> dict:
        if self._static is None:
            try:
                self._static = P.parse_rocm_smi(self._run(*self.static_args))
            except BackendUnavailable:
                self._static = {}
        return self._static

    def _read(self) -> list[GpuSample]:
        dyn = P.parse_rocm_smi(self._run(*self.dynamic_args))
        if not dyn:
            raise BackendUnavailable(f"`{self.tool} --json` listed no GPU")
        cards = P.merge_cards(self._static_info(), dyn)
        ts = time.time()
        vendor = self.vendor
        if vendor is None and Path("/opt/hyhal").exists():
            vendor = "hygon"
        return [_sample(i, c.get("name", ""), c, vendor, ts) for i, c in sorted(cards.items())]


class HySmiBackend(RocmSmiBackend):
    """Hygon DCU `hy-smi`: rocm-smi-like JSON ("DCU use (%)", "DCU memory use (%)", MiB sizes)."""

    name = "hy-smi"
    tool = "hy-smi"
    vendor = "hygon"
    dynamic_args = ("--showmeminfo", "vram", "--showuse", "--showtemp", "--showpower", "--showclocks", "--json")
    static_args = ("--showproductname", "--json")

    def _read(self) -> list[GpuSample]:
        try:
            return super()._read()
        except BackendUnavailable:
            # older hy-smi: one flag per call
            parts = [P.parse_rocm_smi(self._run(flag, "--json"))
                     for flag in ("--showuse", "--showmemuse", "--showtemp", "--showpower")]
            try:
                parts.append(P.parse_rocm_smi(self._run("--showmemavailable", "--json")))
            except BackendUnavailable:
                pass
            cards = P.merge_cards(self._static_info(), *parts)
            if not cards:
                raise
            ts = time.time()
            return [_sample(i, c.get("name", ""), c, "hygon", ts) for i, c in sorted(cards.items())]


class NvidiaSmiBackend(_ToolBackend):
    name = "nvidia-smi"
    tool = "nvidia-smi"

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self._fields = P.NVSMI_FIELDS

    def _read(self) -> list[GpuSample]:
        try:
            text = self._run(f"--query-gpu={','.join(self._fields)}", "--format=csv,noheader,nounits")
        except BackendUnavailable as exc:
            if "compute_cap" in str(exc) and "compute_cap" in self._fields:  # drivers < 510
                self._fields = tuple(f for f in self._fields if f != "compute_cap")
                text = self._run(f"--query-gpu={','.join(self._fields)}", "--format=csv,noheader,nounits")
            else:
                raise
        rows = P.parse_nvidia_smi_csv(text, self._fields)
        if not rows:
            raise BackendUnavailable("nvidia-smi listed no GPU")
        try:
            apps = P.parse_nvidia_smi_apps(self._run(
                "--query-compute-apps=gpu_uuid,pid,process_name,used_memory", "--format=csv,noheader,nounits"))
        except BackendUnavailable:
            apps = {}
        ts = time.time()
        return [_sample(r["index"], r["name"], r, "nvidia", ts, apps.get(r["uuid"], ())) for r in rows]


# ------------------------------------------------------------------------------------------ sysfs

AMD_VENDOR_IDS = {"0x1002": "amd", "0x1d94": "hygon"}

# PCI device id -> (name, gfx) for cards whose product_name is empty (pci.ids / ROCm spec tables)
PCI_DEVICE_NAMES = {
    "0x66a0": ("AMD Instinct MI60 / MI50", "gfx906"), "0x66a1": ("AMD Instinct MI50", "gfx906"),
    "0x66af": ("AMD Radeon VII", "gfx906"), "0x738c": ("AMD Instinct MI100", "gfx908"),
    "0x740f": ("AMD Instinct MI210", "gfx90a"), "0x7408": ("AMD Instinct MI250X", "gfx90a"),
    "0x740c": ("AMD Instinct MI250X / MI250", "gfx90a"), "0x74a1": ("AMD Instinct MI300X", "gfx942"),
    "0x74a5": ("AMD Instinct MI325X", "gfx942"), "0x744c": ("AMD Radeon RX 7900 XT / 7900 XTX", "gfx1100"),
    "0x7448": ("AMD Radeon PRO W7900", "gfx1100"), "0x73bf": ("AMD Radeon RX 6800 / 6800 XT / 6900 XT", "gfx1030"),
    "0x73a3": ("AMD Radeon PRO W6800", "gfx1030"), "0x73df": ("AMD Radeon RX 6700 XT", "gfx1031"),
    "0x747e": ("AMD Radeon RX 7800 XT", "gfx1101"),
}


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace").strip()
    except (OSError, ValueError):
        return None


def _read_int(path: Path) -> Any:
    text = _read_text(path)
    if text is None:
        return NA
    try:
        return int(text.split()[0])
    except (ValueError, IndexError):
        return NA


class SysfsBackend(_Base):
    """amdgpu sysfs: /sys/class/drm/cardN/device/{mem_info_vram_*, gpu_busy_percent, hwmon/...}."""

    name = "sysfs"
    kind = "sysfs"

    def __init__(self, root: str | os.PathLike = "/", sys_root: str | os.PathLike | None = None):
        self.root = Path(root)
        self.sys_root = Path(sys_root) if sys_root is not None else self.root / "sys"
        self._cards: list | None = None
        self._arch_map: dict | None = None

    def _discover(self) -> list[tuple[Path, str]]:
        drm = self.sys_root / "class/drm"
        found = []
        try:
            entries = sorted(drm.iterdir(), key=lambda p: (len(p.name), p.name))
        except FileNotFoundError:
            raise BackendUnavailable(f"{drm} does not exist (no GPU driver loaded)") from None
        except OSError:
            raise BackendUnavailable(f"{drm} not readable") from None
        for card in entries:
            if not re.fullmatch(r"card\d+", card.name):
                continue
            dev = card / "device"
            vendor = (_read_text(dev / "vendor") or "").lower()
            if vendor not in AMD_VENDOR_IDS or not (dev / "mem_info_vram_total").exists():
                continue
            found.append((dev, AMD_VENDOR_IDS[vendor]))
        if not found:
            raise BackendUnavailable(f"no amdgpu device with mem_info_vram_total under {drm}")
        return found

    def _kfd_arch(self) -> dict[str, str]:
        """realpath(device dir) -> gfx, from KFD topology gfx_target_version + drm_render_minor."""
        out: dict[str, str] = {}
        nodes = self.sys_root / "class/kfd/kfd/topology/nodes"
        try:
            node_dirs = list(nodes.iterdir())
        except OSError:
            return out
        for node in node_dirs:
            props = _read_text(node / "properties") or ""
            kv = dict(line.split(None, 1) for line in props.splitlines() if len(line.split(None, 1)) == 2)
            gfx = gfx_from_target_version(kv.get("gfx_target_version", "0"))
            minor = kv.get("drm_render_minor")
            if gfx is NA or not minor:
                continue
            dev = self.sys_root / f"class/drm/renderD{minor.strip()}/device"
            try:
                out[os.path.realpath(dev)] = gfx
            except OSError:
                continue
        return out

    def probe(self) -> int:
        self._cards = self._discover()
        return len(self._cards)

    def _read(self) -> list[GpuSample]:
        if self._cards is None:
            self._cards = self._discover()
        if self._arch_map is None:
            self._arch_map = self._kfd_arch()
        if self._static is None:
            self._static = [self._static_card(dev, vendor) for dev, vendor in self._cards]
        ts = time.time()
        out = []
        for idx, st in enumerate(self._static):
            d = st["dir"]
            info = {
                "arch": st["arch"],
                "vram_total_bytes": st["vram_total"],
                "vram_used_bytes": _fast_int(d + "mem_info_vram_used"),
                "util_percent": _f(_fast_int(d + "gpu_busy_percent")),
                "temp_c": _scaled(_fast_int(st["temp"]), 1e3) if st["temp"] else NA,
                "power_w": _scaled(_fast_int(st["power"]), 1e6) if st["power"] else NA,
                "power_limit_w": st["power_limit"],
                "sclk_mhz": _scaled(_fast_int(st["sclk"]), 1e6) if st["sclk"] else NA,
                "mclk_mhz": _scaled(_fast_int(st["mclk"]), 1e6) if st["mclk"] else NA,
                "pcie": pcie_link_text(Path(d)),
            }
            out.append(_sample(idx, st["name"], info, st["vendor"], ts))
        return out

    _static: list | None = None

    def _static_card(self, dev: Path, vendor: str) -> dict:
        """What does not change while the machine runs: names, arch, total VRAM, which hwmon files exist."""
        name = _read_text(dev / "product_name") or ""
        pci_id = (_read_text(dev / "device") or "").lower()
        table_name, table_arch = PCI_DEVICE_NAMES.get(pci_id, ("", NA))
        if not name:
            name = table_name or (f"AMD GPU {pci_id}" if vendor == "amd" else f"Hygon DCU {pci_id}")
        st = {"dir": str(dev) + os.sep, "name": name, "vendor": vendor,
              "arch": self._arch_map.get(os.path.realpath(dev), table_arch) if self._arch_map else table_arch,
              "vram_total": _read_int(dev / "mem_info_vram_total"),
              "temp": None, "power": None, "power_limit": NA, "sclk": None, "mclk": None}
        try:
            hwmons = sorted((dev / "hwmon").iterdir())
        except OSError:
            hwmons = []
        for hw in hwmons:
            temps = {}
            for i in (1, 2, 3):
                if (hw / f"temp{i}_input").exists():
                    temps[(_read_text(hw / f"temp{i}_label") or f"temp{i}").lower()] = str(hw / f"temp{i}_input")
            for label in ("junction", "edge", "temp1", "mem"):
                if label in temps:
                    st["temp"] = temps[label]
                    break
            for fname in ("power1_average", "power1_input"):
                if (hw / fname).exists():
                    st["power"] = str(hw / fname)
                    break
            cap = _read_int(hw / "power1_cap")
            if cap is not NA and cap > 0:
                st["power_limit"] = cap / 1e6
            for i, key in ((1, "sclk"), (2, "mclk")):
                if (hw / f"freq{i}_input").exists():
                    st[key] = str(hw / f"freq{i}_input")
            if st["temp"]:
                break
        return st


def _fast_int(path: str) -> Any:
    try:
        with open(path, "rb") as fh:
            return int(fh.read(64).split()[0])
    except (OSError, ValueError, IndexError):
        return NA


def _scaled(v: Any, div: float) -> Any:
    return NA if v is NA else v / div


def _f(v: Any) -> Any:
    return NA if v is NA else float(v)


def link_text(speed: str, width: Any) -> Any:
    """"16 GT/s x16" / "Gen4 x16" from a speed text ("" = unknown) and a lane count (NA = unknown)."""
    return " ".join(x for x in (speed, f"x{int(width)}" if width is not NA else "") if x) or NA


def pcie_link_text(dev: Path) -> Any:
    speed = P.num(_read_text(dev / "current_link_speed") or "")
    width = P.num(_read_text(dev / "current_link_width") or "")
    return link_text(f"{speed:g} GT/s" if speed is not NA else "", width)


# ------------------------------------------------------------------------------ library backends

class _LibraryBackend(_Base):
    """A GPU library imported lazily (tests pass a fake `module`): import, init -> handles, shut down."""

    kind = "library"
    module_name = ""      # import name
    package = ""          # what to install, for the "not installed" reason
    init_name = ""        # the init call, for the "failed" reason

    def __init__(self, module: Any = None):
        self._mod = module
        self._handles: list | None = None
        self._static: dict[int, dict] = {}

    def _init_handles(self, m) -> list:
        raise NotImplementedError

    def _shut_down(self, m) -> None:
        raise NotImplementedError

    def _load(self):
        if self._mod is None:
            if importlib.util.find_spec(self.module_name) is None:
                raise BackendUnavailable(f"python module {self.package} not installed")
            try:
                self._mod = importlib.import_module(self.module_name)
            except Exception as exc:  # noqa: BLE001 - KeyError('libamd_smi.so') etc.
                raise BackendUnavailable(f"import {self.module_name} failed: {type(exc).__name__}: {exc}") from None
        if self._handles is None:
            try:
                self._handles = list(self._init_handles(self._mod))
            except Exception as exc:  # noqa: BLE001
                raise BackendUnavailable(f"{self.init_name} failed: {exc}") from None
        return self._mod

    def probe(self) -> int:
        self._load()
        if not self._handles:
            raise BackendUnavailable(f"{self.name} found no GPU")
        return len(self._handles)

    def close(self) -> None:
        if self._mod is not None and self._handles is not None:
            _try(self._shut_down, self._mod)
            self._handles = None


class AmdSmiLibBackend(_LibraryBackend):
    """The amdsmi Python package (ROCm's libamd_smi). PyPI wheels <= 7.0.2 raise at import without ROCm."""

    name = "amdsmi"
    module_name = package = "amdsmi"
    init_name = "amdsmi_init"

    def _init_handles(self, m) -> list:
        m.amdsmi_init()
        return m.amdsmi_get_processor_handles()

    def _shut_down(self, m) -> None:
        m.amdsmi_shut_down()

    def _static_for(self, i: int, h) -> dict:
        if i in self._static:
            return self._static[i]
        m = self._mod
        info = {"name": "", "arch": NA, "vram_total_bytes": NA}
        asic = _try(m.amdsmi_get_gpu_asic_info, h) or {}
        info["name"] = str(asic.get("market_name") or "")
        info["arch"] = asic.get("target_graphics_version") or NA
        vt = NA
        if hasattr(m, "AmdSmiMemoryType"):
            vt = _try(m.amdsmi_get_gpu_memory_total, h, m.AmdSmiMemoryType.VRAM)
        info["vram_total_bytes"] = int(vt) if isinstance(vt, (int, float)) and vt > 0 else NA
        enum = _try(m.amdsmi_get_gpu_enumeration_info, h) if hasattr(m, "amdsmi_get_gpu_enumeration_info") else None
        info["hip_id"] = (enum or {}).get("hip_id", i)
        self._static[i] = info
        return info

    def _read(self) -> list[GpuSample]:
        m = self._load()
        ts = time.time()
        out = []
        for i, h in enumerate(self._handles or []):
            info = dict(self._static_for(i, h))
            used = NA
            if hasattr(m, "AmdSmiMemoryType"):
                used = _try(m.amdsmi_get_gpu_memory_usage, h, m.AmdSmiMemoryType.VRAM)
            info["vram_used_bytes"] = int(used) if isinstance(used, (int, float)) and used >= 0 else NA
            act = _try(m.amdsmi_get_gpu_activity, h) or {}
            info["util_percent"] = P.num(act.get("gfx_activity"))
            temp = NA
            if hasattr(m, "AmdSmiTemperatureType"):
                for sensor in ("HOTSPOT", "JUNCTION", "EDGE"):
                    st = getattr(m.AmdSmiTemperatureType, sensor, None)
                    if st is None:
                        continue
                    temp = P.num(_try(m.amdsmi_get_temp_metric, h, st, m.AmdSmiTemperatureMetric.CURRENT))
                    if temp is not NA and temp > 0:
                        break
            info["temp_c"] = temp
            pw = _try(m.amdsmi_get_power_info, h) or {}
            p = NA
            for key in ("current_socket_power", "average_socket_power", "socket_power"):
                p = P.num(pw.get(key))
                if p is not NA and p > 0:
                    break
            info["power_w"] = p
            info["power_limit_w"] = P.num(pw.get("power_limit"))
            if hasattr(m, "AmdSmiClkType"):
                for key, ct in (("sclk_mhz", "GFX"), ("mclk_mhz", "MEM")):
                    c = _try(m.amdsmi_get_clock_info, h, getattr(m.AmdSmiClkType, ct))
                    info[key] = P.num((c or {}).get("clk"))
            pcie = _try(m.amdsmi_get_pcie_info, h) or {}
            met = pcie.get("pcie_metric") or {}
            sp = P.num(met.get("pcie_speed"))
            if sp is not NA and sp > 100:   # MT/s -> GT/s
                sp = sp / 1000
            wd = P.num(met.get("pcie_width"))
            info["pcie"] = link_text(f"{sp:g} GT/s" if sp is not NA else "", wd)
            procs = []
            for pr in _try(m.amdsmi_get_gpu_process_list, h) or []:
                if not isinstance(pr, dict):
                    continue
                pid = P.num(pr.get("pid"))
                if pid is NA:
                    continue
                vram = P.num((pr.get("memory_usage") or {}).get("vram_mem"))
                procs.append((int(pid), str(pr.get("name") or "?"), int(vram) if vram is not NA else NA))
            out.append(_sample(i, info["name"], info, None, ts, procs))
        return out


class NvmlBackend(_LibraryBackend):
    """nvidia-ml-py (`import pynvml`)."""

    name = "nvml"
    module_name = "pynvml"
    package = "pynvml (nvidia-ml-py)"
    init_name = "nvmlInit"

    def _init_handles(self, m) -> list:
        m.nvmlInit()
        return [m.nvmlDeviceGetHandleByIndex(i) for i in range(m.nvmlDeviceGetCount())]

    def _shut_down(self, m) -> None:
        m.nvmlShutdown()

    def _read(self) -> list[GpuSample]:
        m = self._load()
        ts = time.time()
        out = []
        for i, h in enumerate(self._handles or []):
            st = self._static.get(i)
            if st is None:
                name = _try(m.nvmlDeviceGetName, h) or f"GPU {i}"
                if isinstance(name, bytes):
                    name = name.decode(errors="replace")
                cc = _try(m.nvmlDeviceGetCudaComputeCapability, h)
                st = {"name": str(name), "arch": normalize_arch(cc) if cc else NA,
                      "uuid": _try(m.nvmlDeviceGetUUID, h)}
                self._static[i] = st
            info = dict(st)
            mem = _try(m.nvmlDeviceGetMemoryInfo, h)
            info["vram_total_bytes"] = int(mem.total) if mem is not None else NA
            info["vram_used_bytes"] = int(mem.used) if mem is not None else NA
            util = _try(m.nvmlDeviceGetUtilizationRates, h)
            info["util_percent"] = float(util.gpu) if util is not None else NA
            t = _try(m.nvmlDeviceGetTemperature, h, getattr(m, "NVML_TEMPERATURE_GPU", 0))
            info["temp_c"] = P.num(t)
            pw = _try(m.nvmlDeviceGetPowerUsage, h)
            info["power_w"] = pw / 1000.0 if isinstance(pw, (int, float)) else NA
            lim = _try(m.nvmlDeviceGetEnforcedPowerLimit, h)
            info["power_limit_w"] = lim / 1000.0 if isinstance(lim, (int, float)) else NA
            info["sclk_mhz"] = P.num(_try(m.nvmlDeviceGetClockInfo, h, getattr(m, "NVML_CLOCK_SM", 1)))
            info["mclk_mhz"] = P.num(_try(m.nvmlDeviceGetClockInfo, h, getattr(m, "NVML_CLOCK_MEM", 2)))
            gen = P.num(_try(m.nvmlDeviceGetCurrPcieLinkGeneration, h))
            wid = P.num(_try(m.nvmlDeviceGetCurrPcieLinkWidth, h))
            info["pcie"] = link_text(f"Gen{int(gen)}" if gen is not NA else "", wid)
            procs = []
            for pr in _try(m.nvmlDeviceGetComputeRunningProcesses, h) or []:
                pid = getattr(pr, "pid", None)
                if pid is None:
                    continue
                used = getattr(pr, "usedGpuMemory", None)
                procs.append((int(pid), _proc_name(int(pid)), int(used) if isinstance(used, int) else NA))
            out.append(_sample(i, info["name"], info, "nvidia", ts, procs))
        return out


def _proc_name(pid: int) -> str:
    import psutil

    try:
        return psutil.Process(pid).name() or "?"
    except (psutil.Error, ValueError):
        return "?"


def _try(fn, *args):
    try:
        return fn(*args)
    except Exception:  # noqa: BLE001
        return None


class TorchBackend(_Base):
    """Last resort: torch.cuda (works for ROCm and CUDA builds). Only names, arch and memory."""

    name = "torch"
    kind = "library"

    def __init__(self, root: str | os.PathLike = "/"):
        self.root = Path(root)

    def probe(self) -> int:
        dev = self.root / "dev"
        has_node = (dev / "kfd").exists() or any(dev.glob("nvidia[0-9]*"))
        if not has_node:
            raise BackendUnavailable("no /dev/kfd or /dev/nvidia* device node (torch could not see a GPU)")
        if importlib.util.find_spec("torch") is None:
            raise BackendUnavailable("torch not installed")
        return super().probe()

    def _read(self) -> list[GpuSample]:
        try:
            import torch
        except Exception as exc:  # noqa: BLE001
            raise BackendUnavailable(f"import torch failed: {exc}") from None
        if not torch.cuda.is_available():
            raise BackendUnavailable("torch.cuda.is_available() is False")
        ts = time.time()
        out = []
        vendor = "nvidia" if torch.version.cuda else None
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            arch = getattr(p, "gcnArchName", None) or (f"sm_{p.major}{p.minor}" if torch.version.cuda else NA)
            info = {"arch": arch, "vram_total_bytes": int(p.total_memory)}
            try:
                free, total = torch.cuda.mem_get_info(i)
                info["vram_used_bytes"] = int(total - free)
            except Exception:  # noqa: BLE001
                pass
            out.append(_sample(i, p.name, info, vendor, ts))
        return out
