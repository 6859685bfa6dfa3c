"""`rocm-tune doctor`: system checks for fine-tuning on ROCm / DTK / CUDA, each with evidence and a fix.

Every check is a pure function of a `SystemView` (root paths for /proc and /sys, an env dict, a
command runner, a module probe, a torch probe), so tests drive them with fake trees and outputs.
torch is imported only inside the default torch probe. Statuses: pass | warn | fail | skip.
Check ids are stable kebab-case; the IOMMU check carries the planner's warning code
`iommu-p2p-hang-risk`.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_tune.core.hardware.devices.backends import run_command
from rocm_tune.core.hardware.devices.matching import gfx_from_target_version, normalize_arch
from rocm_tune.core.hardware.devices.types import NA
from rocm_tune.core import codes as _codes
from rocm_tune.core.codes import BF16_EMULATED_COST, LF_FP32_LAUNCHER

STATUSES = ("pass", "warn", "fail", "skip")
GiB = 2**30

# LLaMA-Factory src/llamafactory/hparams/parser.py: check_version("deepspeed>=0.10.0,<=0.16.9")
# (pinned below 0.17 because of deepspeedai/DeepSpeed#7347; DISABLE_VERSION_CHECK=1 skips the check).
LLAMAFACTORY_DEEPSPEED = ((0, 10, 0), (0, 16, 9))

# DeepSpeed op builders whose pre-compilation fails on ROCm (need CUDA-only CUTLASS / deepspeed-kernels
# `dskernels`, GDS, or Triton features): BUILD_VAR = "DS_BUILD_" + op name upper-cased.
DS_ROCM_BUILD_FLAGS = ("DS_BUILD_CPU_ADAM=1 DS_BUILD_FUSED_ADAM=1 DS_BUILD_CUTLASS_OPS=0 "
                       "DS_BUILD_RAGGED_DEVICE_OPS=0 DS_BUILD_EVOFORMER_ATTN=0 DS_BUILD_FP_QUANTIZER=0 "
                       "DS_BUILD_GDS=0 DS_BUILD_SPARSE_ATTN=0")

# Variants of a supported ISA family that run with HSA_OVERRIDE_GFX_VERSION (hardware.md 3.2, [S25][S31])
HSA_OVERRIDE_FAMILY = {
    "gfx1031": "10.3.0", "gfx1032": "10.3.0", "gfx1033": "10.3.0", "gfx1034": "10.3.0", "gfx1035": "10.3.0",
    "gfx1036": "10.3.0", "gfx1101": "11.0.0", "gfx1102": "11.0.0", "gfx1103": "11.0.0",
    "gfx1010": "10.1.0", "gfx1012": "10.1.0", "gfx1013": "10.1.0",
}


@dataclass(frozen=True)
class CheckResult:
    id: str
    title: str
    status: str                      # pass | warn | fail | skip
    summary: str
    evidence: tuple[str, ...] = ()
    fix: str | None = None
    code: str | None = None          # the plan warning code (core/codes.py) this result stands for, if any

    @property
    def message(self) -> str:
        return self.summary

    @property
    def name(self) -> str:
        return self.title

    def to_dict(self) -> dict:
        return {"id": self.id, "title": self.title, "status": self.status, "summary": self.summary,
                "evidence": list(self.evidence), "fix": self.fix, "code": self.code}


def _default_module_version(name: str) -> str | None:
    for dist in (name, name.replace("_", "-"), name.replace("-", "_")):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
        except Exception:  # noqa: BLE001
            return None
    return None


def _default_module_path(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent


def probe_torch() -> dict | None:
    """What torch says about the GPUs. Imports torch (slow); None when torch is not installed."""
    if importlib.util.find_spec("torch") is None:
        return None
    try:
        import torch
    except Exception as exc:  # noqa: BLE001
        return {"error": f"import torch failed: {type(exc).__name__}: {exc}"}
    info: dict[str, Any] = {"version": str(torch.__version__), "hip": getattr(torch.version, "hip", None),
                            "cuda": getattr(torch.version, "cuda", None), "available": False, "devices": [],
                            "arch_list": []}
    try:
        info["available"] = bool(torch.cuda.is_available())
        if info["available"]:
            for i in range(torch.cuda.device_count()):
                p = torch.cuda.get_device_properties(i)
                info["devices"].append({"name": p.name, "gcnArchName": getattr(p, "gcnArchName", None),
                                        "capability": [p.major, p.minor], "total_memory": int(p.total_memory)})
            info["arch_list"] = list(torch.cuda.get_arch_list())
    except Exception as exc:  # noqa: BLE001 - e.g. HIP_VISIBLE_DEVICES contains more devices than ROCR...
        info["error"] = f"{type(exc).__name__}: {exc}"
    return info


def _default_disk_free(path: str) -> int | None:
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


@dataclass
class SystemView:
    """Everything the checks read. Defaults read the real machine; tests swap in fakes."""

    root: Path = Path("/")
    proc_root: Path | None = None
    sys_root: Path | None = None
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    run: Callable[[list, float], tuple[int, str, str]] = run_command
    which: Callable[[str], str | None] = shutil.which
    module_version: Callable[[str], str | None] = _default_module_version
    module_path: Callable[[str], Path | None] = _default_module_path
    torch_info: Callable[[], dict | None] = probe_torch
    disk_free: Callable[[str], int | None] = _default_disk_free
    cwd: Path = field(default_factory=Path.cwd)
    detect_order: tuple[str, ...] | None = None   # None = all backends (tests pass ("sysfs",))
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self.root = Path(self.root)
        self.proc_root = Path(self.proc_root) if self.proc_root is not None else self.root / "proc"
        self.sys_root = Path(self.sys_root) if self.sys_root is not None else self.root / "sys"
        self.cwd = Path(self.cwd)

    @property
    def proc_dir(self) -> Path:
        """The /proc this view reads: `proc_root`, else `root`/proc."""
        return self.proc_root if self.proc_root is not None else self.root / "proc"

    @property
    def sys_dir(self) -> Path:
        """The /sys this view reads: `sys_root`, else `root`/sys."""
        return self.sys_root if self.sys_root is not None else self.root / "sys"

    # ---- cached facts
    def gpus(self):
        """(backend name, tried, samples)."""
        if "gpus" not in self._cache:
            from rocm_tune.core.hardware.devices import detect

            try:
                b = detect(root=str(self.root), runner=self.run, which=self.which, order=self.detect_order,
                           sys_root=str(self.sys_root), env=self.env)
                samples = b.sample()
                self._cache["gpus"] = (b.name, list(getattr(b, "tried", [])), samples)
                close = getattr(b, "close", None)
                if close:
                    close()
            except Exception as exc:  # noqa: BLE001 - e.g. a bad ROCM_TUNE_FAKE_GPUS value
                self._cache["gpus"] = ("none", [("detect", str(exc))], ())
        return self._cache["gpus"]

    def torch(self) -> dict | None:
        if "torch" not in self._cache:
            try:
                self._cache["torch"] = self.torch_info()
            except Exception as exc:  # noqa: BLE001
                self._cache["torch"] = {"error": str(exc)}
        return self._cache["torch"]

    def read(self, path: Path) -> str | None:
        try:
            return Path(path).read_text(errors="replace")
        except (OSError, ValueError):
            return None


# ------------------------------------------------------------------------------------- helpers

def _profiles_of(samples) -> list:
    from rocm_tune.profiles.gpu_profiles import load_gpu_profiles

    profiles = load_gpu_profiles()
    out = []
    for s in samples:
        p = profiles.get(s.profile_id) if isinstance(s.profile_id, str) else None
        out.append(p)
    return out


def _vendor(samples, profiles) -> str | None:
    vendors = set()
    for s, p in zip(samples, profiles):
        if p is not None:
            vendors.add(p.vendor)
        elif isinstance(s.arch, str):
            vendors.add("nvidia" if s.arch.startswith("sm_") else "amd")
    if not vendors:
        return None
    if vendors == {"nvidia"}:
        return "nvidia"
    return "hygon" if "hygon" in vendors else "amd"


def _version_tuple(text: Any) -> tuple[int, ...] | None:
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", str(text or ""))
    if not m:
        return None
    return tuple(int(x) for x in m.groups() if x is not None)


def _vstr(v: tuple | None) -> str:
    return ".".join(str(x) for x in v) if v else "?"


def rocm_version(view: SystemView) -> tuple[str | None, str]:
    """(version, where) of the ROCm installation, or (None, reason)."""
    roots = []
    for var in ("ROCM_PATH", "ROCM_HOME"):
        if view.env.get(var):
            roots.append(Path(str(view.root) + "/" + view.env[var].lstrip("/")) if str(view.root) != "/" else Path(view.env[var]))
    roots.append(view.root / "opt/rocm")
    for r in roots:
        for cand in [r / ".info/version", *sorted(r.glob("core*/.info/version"))]:
            text = view.read(cand)
            if text and _version_tuple(text):
                return text.strip().split("-")[0], str(cand)
        hdr = view.read(r / "include/rocm-core/rocm_version.h")
        if hdr:
            found = [re.search(rf"ROCM_VERSION_{k}\s+(\d+)", hdr) for k in ("MAJOR", "MINOR", "PATCH")]
            parts = [m.group(1) for m in found if m]
            if len(parts) == 3:
                return ".".join(parts), str(r / "include/rocm-core/rocm_version.h")
    for cand in sorted(view.root.glob("opt/rocm-*")):
        v = _version_tuple(cand.name)
        if v:
            return _vstr(v), str(cand)
    return None, "no /opt/rocm/.info/version, rocm_version.h or /opt/rocm-* found"


def dtk_version(view: SystemView) -> tuple[str | None, str]:
    for cand in [view.root / "opt/dtk", *sorted(view.root.glob("opt/dtk-*"))]:
        try:
            name = os.path.basename(os.path.realpath(cand)) if cand.exists() else None
        except OSError:
            name = None
        if not name:
            continue
        text = view.read(cand / ".info/version")
        if text and _version_tuple(text):
            return text.strip(), str(cand / ".info/version")
        m = re.search(r"dtk-?([\d.]+)", name)
        if m:
            return m.group(1).strip("."), str(cand)
    return None, "no /opt/dtk or /opt/dtk-* found"


def cuda_version(view: SystemView) -> tuple[str | None, str]:
    import json

    for cand in (view.root / "usr/local/cuda/version.json",):
        text = view.read(cand)
        if text:
            try:
                return str(json.loads(text)["cuda"]["version"]), str(cand)
            except (ValueError, KeyError, TypeError):
                pass
    text = view.read(view.root / "usr/local/cuda/version.txt")
    if text and _version_tuple(text):
        return _vstr(_version_tuple(text)), str(view.root / "usr/local/cuda/version.txt")
    return None, "no /usr/local/cuda/version.json"


def iommu_state(view: SystemView | None = None) -> str:
    """'off' | 'passthrough' | 'on' | 'unknown' from /proc/cmdline, /sys/class/iommu and iommu_groups."""
    return _iommu(view or SystemView())[0]


def _iommu(view: SystemView) -> tuple[str, list[str]]:
    evidence = []
    cmdline = (view.read(view.proc_dir / "cmdline") or "").strip()
    if cmdline:
        evidence.append(f"/proc/cmdline: {cmdline[:300]}")
    params = dict((p.split("=", 1) + [""])[:2] for p in cmdline.split())
    if params.get("iommu") == "pt" or params.get("amd_iommu") == "pt" or params.get("intel_iommu") == "pt":
        return "passthrough", evidence
    if (params.get("iommu") == "off" or params.get("intel_iommu") == "off" or params.get("amd_iommu") == "off"):
        return "off", evidence
    units = []
    try:
        units = sorted(p.name for p in (view.sys_dir / "class/iommu").iterdir())
    except OSError:
        pass
    types = set()
    try:
        for g in (view.sys_dir / "kernel/iommu_groups").iterdir():
            t = (view.read(g / "type") or "").strip()
            if t:
                types.add(t)
    except OSError:
        pass
    if units:
        evidence.append(f"/sys/class/iommu: {', '.join(units[:8])}")
    if types:
        evidence.append(f"iommu group types: {', '.join(sorted(types))}")
    if types and types <= {"identity"}:
        return "passthrough", evidence
    if units or types:
        return "on", evidence
    if cmdline or (view.sys_dir / "class").exists():
        evidence.append("no IOMMU units in /sys/class/iommu")
        return "off", evidence
    return "unknown", evidence


def _cpu_vendor(view: SystemView) -> str | None:
    text = view.read(view.proc_dir / "cpuinfo") or ""
    if "GenuineIntel" in text:
        return "intel"
    if "AuthenticAMD" in text or "HygonGenuine" in text:
        return "amd"
    return None


def _r(cid, status, summary, evidence=(), fix=None, code=None) -> CheckResult:
    """A check's result; its title is the check's entry in the registry of codes (core/codes.py: the id is a
    code), as is the plan warning `code` it names."""
    title = _codes.own(cid).title if cid in _codes.OWN_BY_CODE else cid
    if code is not None:
        _codes.own(code)   # an unknown code is a bug
    return CheckResult(cid, title, status, summary, tuple(e for e in evidence if e), fix, code)


# ---------------------------------------------------------------------------------------- checks

def check_gpus(view: SystemView) -> CheckResult:
    backend, tried, samples = view.gpus()
    if not samples:
        return _r("gpu-detected", "warn",
                  "No GPU found on this machine: training would run on the CPU (fine for `rocm-tune demo` only).",
                  [f"{n}: {r}" for n, r in tried],
                  "Install the GPU driver (amdgpu / Hygon hyhal / NVIDIA) and a monitoring tool (amd-smi, "
                  "rocm-smi, hy-smi or nvidia-smi); in containers pass --device=/dev/kfd --device=/dev/dri "
                  "--group-add video (AMD) or --gpus all (NVIDIA).")
    profiles = _profiles_of(samples)
    ev = [f"backend {backend}"] + [
        f"GPU {s.index}: {s.name} ({s.arch}, {s.vram_total_bytes / GiB:.1f} GiB) -> profile {s.profile_id}"
        if isinstance(s.vram_total_bytes, int) else f"GPU {s.index}: {s.name} ({s.arch}) -> profile {s.profile_id}"
        for s in samples]
    unknown = [s for s, p in zip(samples, profiles) if p is None]
    if unknown:
        return _r("gpu-detected", "warn",
                  f"{len(samples)} GPU(s) via {backend}; {len(unknown)} matched no rocm-tune profile.", ev,
                  "Plan with --gpu <closest profile id> and --vram-gib (see `rocm-tune gpus --profiles`).")
    return _r("gpu-detected", "pass", f"{len(samples)} GPU(s) via {backend}.", ev)


def check_platform(view: SystemView) -> CheckResult:
    _b, _t, samples = view.gpus()
    profiles = _profiles_of(samples)
    vendor = _vendor(samples, profiles)
    rv, rwhere = rocm_version(view)
    dv, dwhere = dtk_version(view)
    cv, cwhere = cuda_version(view)
    t = view.torch() or {}
    ev = [f"ROCm {rv} ({rwhere})" if rv else f"ROCm: {rwhere}",
          f"DTK {dv} ({dwhere})" if dv else None,
          f"CUDA toolkit {cv} ({cwhere})" if cv else None,
          f"torch {t.get('version')} hip={t.get('hip')} cuda={t.get('cuda')}" if t.get("version") else None]
    if vendor is None:
        return _r("platform-version", "skip", "No GPU, nothing to match the platform against.", ev)
    hip = _version_tuple(t.get("hip"))
    rocm = _version_tuple(rv)
    if vendor == "nvidia":
        if not (cv or t.get("cuda")):
            return _r("platform-version", "warn", "NVIDIA GPU but no CUDA toolkit or CUDA torch found.",
                      ev, "pip install torch (CUDA wheel) from https://download.pytorch.org/whl/cu12x")
        return _r("platform-version", "pass", f"CUDA {t.get('cuda') or cv}.", ev)
    if vendor == "hygon":
        if not dv and not (view.root / "opt/hyhal").exists():
            return _r("platform-version", "fail", "Hygon DCU but no DTK (/opt/dtk) or hyhal driver found.",
                      ev, "Install DTK matching the driver (HYGON hcu-dcgm compatibility matrix) and `source /opt/dtk/env.sh`.")
        if "ROCM_PATH" not in view.env and dv:
            return _r("platform-version", "warn", f"DTK {dv} installed but its env.sh is not sourced.",
                      ev, "source /opt/dtk/env.sh (otherwise: libgalaxyhip.so.5: cannot open shared object file); "
                          "scripts with `set -u` must source it before enabling -u.")
        return _r("platform-version", "pass", f"DTK {dv or '(hyhal driver)'}.", ev)
    archs = {p.arch for p in profiles if p is not None} | {s.arch for s in samples if isinstance(s.arch, str)}
    problems = []
    status = "pass"
    if "gfx906" in archs:
        if hip and hip >= (6, 4):
            status = "fail"
            problems.append(f"torch is built for HIP {_vstr(hip)}: rocBLAS >= 6.4 ships no gfx906 kernels "
                            "(TensileLibrary.dat ... gfx906 error)")
        elif rocm and rocm >= (6, 4) and not hip:
            status = "warn"
            problems.append(f"ROCm {rv} dropped gfx906 from rocBLAS; use a torch wheel built for ROCm <= 6.3")
    if "gfx950" in archs and ((hip and hip < (7, 0)) or (rocm and rocm < (7, 0) and not hip)):
        status = "fail"
        problems.append("gfx950 (MI350/MI355X) needs ROCm >= 7.0")
    if not rv and not hip:
        return _r("platform-version", "warn", "AMD GPU but no ROCm installation or ROCm torch found.",
                  ev, "Install ROCm (amdgpu-install) and a ROCm torch wheel (https://download.pytorch.org/whl/rocm6.x).")
    if problems:
        return _r("platform-version", status, "; ".join(problems) + ".", ev,
                  "MI50/MI60/Radeon VII: pip install torch --index-url https://download.pytorch.org/whl/rocm6.1 "
                  "(runs on a newer driver; field report 000); MI355X: ROCm >= 7.0.", code="platform-unsupported")
    return _r("platform-version", "pass", f"ROCm {rv or _vstr(hip)}.", ev)


def check_torch(view: SystemView) -> CheckResult:
    _b, _t, samples = view.gpus()
    profiles = _profiles_of(samples)
    vendor = _vendor(samples, profiles)
    t = view.torch()
    if t is None:
        return _r("torch-build", "warn" if samples else "skip", "torch is not installed.", (),
                  "pip install torch (ROCm wheel on AMD: --index-url https://download.pytorch.org/whl/rocm6.x).")
    if "version" not in t:
        return _r("torch-build", "fail", t.get("error", "torch cannot be imported"), (),
                  "Reinstall torch for this platform.")
    build = "ROCm/HIP " + str(t["hip"]) if t.get("hip") else ("CUDA " + str(t["cuda"]) if t.get("cuda") else "CPU-only")
    if "das" in t["version"] or "dtk" in t["version"]:
        build += " (Hygon DAS)"
    ev = [f"torch {t['version']}: {build}"]
    if vendor is None:
        return _r("torch-build", "pass", f"torch {t['version']} ({build}); no GPU to use it with.", ev)
    if vendor in ("amd", "hygon") and not t.get("hip"):
        return _r("torch-build", "fail", f"AMD/Hygon GPU but torch is a {build} build.", ev,
                  "pip uninstall torch; pip install torch --index-url https://download.pytorch.org/whl/rocm6.2 "
                  "(Hygon: the DAS wheel matching your DTK).")
    if vendor == "nvidia" and not t.get("cuda"):
        return _r("torch-build", "fail", f"NVIDIA GPU but torch is a {build} build.", ev,
                  "pip install torch --index-url https://download.pytorch.org/whl/cu124")
    return _r("torch-build", "pass", f"torch {t['version']} ({build}).", ev)


def check_torch_devices(view: SystemView) -> CheckResult:
    _b, _t, samples = view.gpus()
    t = view.torch()
    if not samples:
        return _r("torch-gpus", "skip", "No GPU detected.")
    if not t or "version" not in t:
        return _r("torch-gpus", "skip", "torch is not usable (see torch-build).")
    ev = [f"{d.get('name')} gcnArchName={d.get('gcnArchName')} capability={d.get('capability')}"
          for d in t.get("devices", [])]
    if t.get("error"):
        ev.append(t["error"])
    if not t.get("available"):
        return _r("torch-gpus", "fail",
                  f"{len(samples)} GPU(s) detected but torch.cuda.is_available() is False.", ev,
                  "Add the user to the video and render groups (ls -l /dev/kfd /dev/dri), check the *_VISIBLE_DEVICES "
                  "variables, and that the torch build matches the platform; in Docker pass --device=/dev/kfd --device=/dev/dri.")
    n = len(t.get("devices", []))
    archs = {normalize_arch(d.get("gcnArchName")) for d in t.get("devices", []) if d.get("gcnArchName")}
    det = {s.arch for s in samples if isinstance(s.arch, str) and s.arch.startswith("gfx")}
    arch_list = set(normalize_arch(a) for a in t.get("arch_list", []))
    missing = sorted(a for a in archs if arch_list and a not in arch_list and a is not NA)
    if missing:
        return _r("torch-gpus", "fail",
                  f"torch has no kernels for {', '.join(missing)} (its arch list: {', '.join(sorted(map(str, arch_list)))}).",
                  ev, "Install a torch built for this GPU, or set HSA_OVERRIDE_GFX_VERSION for a compatible ISA (see hsa-override).")
    if n < len(samples):
        return _r("torch-gpus", "warn",
                  f"torch sees {n} of the {len(samples)} detected GPUs.", ev,
                  "Intended? Check HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES.")
    if det and archs and not archs <= det:
        ev.append(f"detected: {', '.join(sorted(det))}")
    return _r("torch-gpus", "pass", f"torch sees {n} GPU(s)"
              + (f" ({', '.join(sorted(map(str, archs)))})" if archs else "") + ".", ev)


def check_hsa_override(view: SystemView) -> CheckResult:
    _b, _t, samples = view.gpus()
    profiles = _profiles_of(samples)
    amd = [(s, p) for s, p in zip(samples, profiles)
           if (p is not None and p.vendor in ("amd", "hygon")) or (isinstance(s.arch, str) and s.arch.startswith("gfx"))]
    value = view.env.get("HSA_OVERRIDE_GFX_VERSION")
    if not amd:
        if value:
            return _r("hsa-override", "warn",
                      f"HSA_OVERRIDE_GFX_VERSION={value} is set but there is no AMD GPU.", (), "unset HSA_OVERRIDE_GFX_VERSION")
        return _r("hsa-override", "skip", "No AMD GPU.")
    ev = [f"HSA_OVERRIDE_GFX_VERSION={value!s}" if value else "HSA_OVERRIDE_GFX_VERSION unset"]
    needed = {}
    natives = set()
    for s, p in amd:
        arch = p.arch if p is not None else s.arch
        natives.add(arch)
        need = (p.hsa_override if p is not None else None) or HSA_OVERRIDE_FAMILY.get(str(s.arch))
        if need:
            needed[arch] = need
    if value:
        target = gfx_from_target_version(value)
        if target is NA:
            return _r("hsa-override", "fail",
                      f"HSA_OVERRIDE_GFX_VERSION={value!r} is malformed (expected major.minor.stepping, e.g. 10.3.0).",
                      ev, "export HSA_OVERRIDE_GFX_VERSION=" + (next(iter(needed.values())) if needed else "<unset it>"))
        wanted = set(needed.values())
        if wanted and value in wanted:
            return _r("hsa-override", "pass",
                      f"HSA_OVERRIDE_GFX_VERSION={value} (runs {', '.join(sorted(needed))} as {target}).", ev)
        if target in natives and not needed:
            return _r("hsa-override", "pass",
                      f"HSA_OVERRIDE_GFX_VERSION={value} names the GPU's own ISA {target}: harmless no-op.", ev,
                      "It can be removed.")
        if needed:
            return _r("hsa-override", "fail",
                      f"HSA_OVERRIDE_GFX_VERSION={value} but {', '.join(sorted(needed))} need "
                      f"{', '.join(sorted(wanted))}.", ev, f"export HSA_OVERRIDE_GFX_VERSION={sorted(wanted)[0]}",
                      code="hsa-override-needed")
        return _r("hsa-override", "fail",
                  f"HSA_OVERRIDE_GFX_VERSION={value} makes ROCm treat {', '.join(sorted(natives))} as {target}: "
                  "kernels for another ISA can crash or compute garbage.", ev, "unset HSA_OVERRIDE_GFX_VERSION")
    if needed:
        overrides = sorted(set(needed.values()))
        return _r("hsa-override", "fail",
                  f"{', '.join(sorted(needed))} is not in ROCm's prebuilt kernels; it runs as "
                  f"{overrides[0]} with HSA_OVERRIDE_GFX_VERSION (else: rocBLAS TensileLibrary.dat / invalid device function).",
                  ev, f"export HSA_OVERRIDE_GFX_VERSION={overrides[0]}", code="hsa-override-needed")
    return _r("hsa-override", "pass",
              f"Not needed for {', '.join(sorted(natives))}.", ev)


def check_bf16(view: SystemView) -> CheckResult:
    _b, _t, samples = view.gpus()
    profiles = [p for p in _profiles_of(samples) if p is not None]
    if not profiles:
        return _r("bf16", "skip", "No GPU with a known profile.")
    kinds = {p.bf16 for p in profiles}
    ev = [f"{p.id} ({p.arch}): bf16 {p.bf16}, {p.bf16_tflops:g} vs fp16 {p.fp16_tflops:g} TFLOPS [{p.sources.get('bf16', '')}]"
          for p in {p.id: p for p in profiles}.values()]
    t = view.torch() or {}
    if t.get("hip"):
        ev.append("torch.cuda.is_bf16_supported() answers True on every ROCm GPU: not used here")
    if kinds & {"emulated", "none"}:
        return _r("bf16", "warn",
                  f"bf16 is emulated on this GPU: training in bf16 is {BF16_EMULATED_COST}.",
                  ev, "Use fp16 (--fp16 True --bf16 False), or real fp32 for models that overflow in fp16 (Qwen2/2.5): "
                  "plain LLaMA-Factory keeps a bf16 checkpoint in bf16 even with --bf16 False, so use the built-in "
                  f"trainer or `python -m {LF_FP32_LAUNCHER} CONFIG.yaml --compute-dtype fp32`.",
                  code="bf16-emulated")
    if "half-rate" in kinds:
        return _r("bf16", "pass", "bf16 works at half the fp16 matrix rate.", ev,
                  code="bf16-half-rate")
    return _r("bf16", "pass", "bf16 is native.", ev)


def _parse_devices(value: str) -> list[str]:
    return [x.strip() for x in value.split(",") if x.strip()]


def check_visible_devices(view: SystemView) -> CheckResult:
    _b, _t, samples = view.gpus()
    profiles = _profiles_of(samples)
    vendor = _vendor(samples, profiles)
    env = view.env
    names = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")
    setv = {n: env[n] for n in names if n in env}
    ev = [f"{k}={v!r}" for k, v in setv.items()] or ["no *_VISIBLE_DEVICES variable set"]
    if not setv:
        return _r("visible-devices", "pass", "None set: every GPU is visible.", ev)
    problems, fails = [], []
    for k, v in setv.items():
        if v.strip() == "":
            fails.append(f"{k} is empty: it hides every GPU")
    n = len(samples)
    for k in ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"):
        if k in setv and n:
            for item in _parse_devices(setv[k]):
                if item.isdigit() and int(item) >= n:
                    fails.append(f"{k} names device {item} but only {n} GPU(s) exist")
    hip, rocr, cuda = (setv.get(k) for k in names[:3])
    if hip is not None and rocr is not None and len(_parse_devices(hip)) > len(_parse_devices(rocr)):
        fails.append("HIP_VISIBLE_DEVICES lists more devices than ROCR_VISIBLE_DEVICES (torch raises "
                     "RuntimeError: HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES)")
    if vendor in ("amd", "hygon") and hip is not None and cuda is not None and _parse_devices(hip) != _parse_devices(cuda):
        problems.append("HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES differ; on ROCm HIP_VISIBLE_DEVICES wins")
    if vendor in ("amd", "hygon") and rocr is not None and (hip is not None or cuda is not None):
        problems.append("ROCR_VISIBLE_DEVICES is applied first, then HIP/CUDA_VISIBLE_DEVICES index into what is left")
    if vendor == "nvidia" and (hip is not None or rocr is not None):
        problems.append("HIP_/ROCR_VISIBLE_DEVICES have no effect on NVIDIA GPUs")
    fix = "Set exactly one of them, e.g. export HIP_VISIBLE_DEVICES=0,1 (or CUDA_VISIBLE_DEVICES on NVIDIA)."
    if fails:
        return _r("visible-devices", "fail", "; ".join(fails) + ".", ev, fix)
    if problems:
        return _r("visible-devices", "warn", "; ".join(problems) + ".", ev, fix)
    return _r("visible-devices", "pass", "Consistent.", ev)


def check_iommu(view: SystemView) -> CheckResult:
    _b, _t, samples = view.gpus()
    profiles = _profiles_of(samples)
    amd = [s for s, p in zip(samples, profiles) if (p is not None and p.vendor in ("amd", "hygon"))
           or (p is None and isinstance(s.arch, str) and s.arch.startswith("gfx"))]
    state, ev = _iommu(view)
    if len(amd) < 2:
        return _r("iommu-p2p", "skip", f"IOMMU {state}; only relevant with several AMD GPUs "
                  f"({len(amd)} here).", ev)
    cpu = _cpu_vendor(view)
    if cpu:
        ev.append(f"CPU vendor: {cpu}")
    if state in ("passthrough", "off"):
        return _r("iommu-p2p", "pass", f"IOMMU {state}: PCIe peer-to-peer between the {len(amd)} GPUs is not translated.", ev)
    grub = ("intel_iommu=on iommu=pt" if cpu == "intel" else "iommu=pt" if cpu == "amd" else "iommu=pt")
    return _r("iommu-p2p", "warn",
              f"IOMMU {state} with {len(amd)} AMD GPUs: multi-GPU training can hang at the first NCCL/RCCL barrier "
              "(0% GPU use; field report 000).",
              ev, f"Add {grub} to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, update-grub, reboot, check "
                  "/proc/cmdline (report 000 fixed an Intel host with intel_iommu=off). Stop-gap: NCCL_P2P_DISABLE=1 (slow).",
              code="iommu-p2p-hang-risk")


def check_fine_grain_pcie(view: SystemView) -> CheckResult:
    _b, _t, samples = view.gpus()
    profiles = _profiles_of(samples)
    amd = [p for p in profiles if p is not None and p.vendor in ("amd", "hygon")]
    value = view.env.get("HSA_FORCE_FINE_GRAIN_PCIE")
    ev = [f"HSA_FORCE_FINE_GRAIN_PCIE={value}" if value is not None else "HSA_FORCE_FINE_GRAIN_PCIE unset"]
    if len(amd) < 2:
        return _r("hsa-fine-grain-pcie", "skip", "Only relevant with several AMD GPUs.", ev)
    rv, _w = rocm_version(view)
    t = view.torch() or {}
    ver = _version_tuple(rv) or _version_tuple(t.get("hip"))
    if ver:
        ev.append(f"ROCm {_vstr(ver)}")
    if value == "1":
        return _r("hsa-fine-grain-pcie", "pass", "Set to 1.", ev)
    if ver and ver >= (5, 7):
        return _r("hsa-fine-grain-pcie", "pass",
                  "Not set; RCCL maintainers: not required from ROCm 5.7 (RCCL still prints a warning about it).", ev)
    return _r("hsa-fine-grain-pcie", "warn",
              "Not set: RCCL over PCIe P2P on ROCm < 5.7 needs it (low performance or hangs otherwise).", ev,
              "export HSA_FORCE_FINE_GRAIN_PCIE=1")


def check_pcie(view: SystemView) -> CheckResult:
    drm = view.sys_dir / "class/drm"
    rows, slow = [], []
    try:
        cards = sorted((p for p in drm.iterdir() if re.fullmatch(r"card\d+", p.name)), key=lambda p: int(p.name[4:]))
    except OSError:
        cards = []
    for card in cards:
        dev = card / "device"
        vendor = (view.read(dev / "vendor") or "").strip().lower()
        if vendor not in ("0x1002", "0x1d94"):
            continue
        vals = {k: (view.read(dev / k) or "").strip() for k in
                ("current_link_speed", "current_link_width", "max_link_speed", "max_link_width")}
        if not vals["current_link_width"]:
            continue
        rows.append(f"{card.name}: {vals['current_link_speed']} x{vals['current_link_width']} "
                    f"(max {vals['max_link_speed']} x{vals['max_link_width']})")
        try:
            if vals["max_link_width"] and int(vals["current_link_width"]) < int(vals["max_link_width"]):
                slow.append(f"{card.name} runs x{vals['current_link_width']} of x{vals['max_link_width']}")
        except ValueError:
            pass
    _b, _t, samples = view.gpus()
    if not rows:
        nv = [f"GPU {s.index}: {s.pcie}" for s in samples if isinstance(s.pcie, str)]
        if nv:
            return _r("pcie-link", "pass", "Links as reported by " + _b + ".", nv)
        return _r("pcie-link", "skip", "No AMD GPU link information in sysfs.")
    if slow:
        return _r("pcie-link", "warn", "; ".join(slow) + " (narrower than the card supports).", rows,
                  "Move the card to a full x16 slot / check the riser; slower links hurt data-parallel all-reduce.")
    return _r("pcie-link", "pass",
              "Full link width (a lower current speed at idle is normal power saving).", rows)


def _installed_ops(view: SystemView) -> dict | None:
    path = view.module_path("deepspeed")
    if path is None:
        return None
    text = view.read(path / "git_version_info_installed.py")
    if not text:
        return None
    m = re.search(r"installed_ops\s*=\s*(\{.*?\})", text, re.DOTALL)
    if not m:
        return None
    try:
        ops = ast.literal_eval(m.group(1))
        return ops if isinstance(ops, dict) else None
    except (ValueError, SyntaxError):
        return None


def check_deepspeed(view: SystemView) -> CheckResult:
    ver = view.module_version("deepspeed")
    _b, _t, samples = view.gpus()
    vendor = _vendor(samples, _profiles_of(samples))
    t = view.torch() or {}
    rocm = bool(t.get("hip")) or vendor in ("amd", "hygon")
    if ver is None:
        return _r("deepspeed", "skip", "DeepSpeed is not installed (only needed for ZeRO).", (),
                  "pip install 'deepspeed>=0.10.0,<=0.16.9'" + (f" with {DS_ROCM_BUILD_FLAGS}" if rocm else ""))
    v = _version_tuple(ver)
    lo, hi = LLAMAFACTORY_DEEPSPEED
    ev = [f"deepspeed {ver}", f"LLaMA-Factory accepts deepspeed>={_vstr(lo)},<={_vstr(hi)} (hparams/parser.py)"]
    ops = _installed_ops(view)
    if ops is not None:
        built = sorted(k for k, on in ops.items() if on)
        ev.append("pre-built ops: " + (", ".join(built) if built else "none (JIT-compiled on first use: needs ninja"
                                       + (" and hipcc" if rocm else "") + ")"))
    else:
        ev.append("pre-built ops: unknown (no git_version_info_installed.py)")
    status, summary, fix, code = "pass", f"DeepSpeed {ver}.", None, None
    if v is not None and not (lo <= v[:3] + (0,) * (3 - len(v[:3])) <= hi):
        status = "warn"
        summary = f"DeepSpeed {ver} is outside LLaMA-Factory's accepted range (<= {_vstr(hi)})."
        fix = f"pip install 'deepspeed>={_vstr(lo)},<={_vstr(hi)}', or run LLaMA-Factory with DISABLE_VERSION_CHECK=1"
    if rocm:
        ev.append(f"ROCm build flags that avoid the known failures (No module named 'dskernels', CUTLASS/GDS ops): "
                  f"{DS_ROCM_BUILD_FLAGS}")
        if ops is not None and not any(ops.get(k) for k in ("cpu_adam", "fused_adam")):
            status = "warn"
            summary += " No Adam op pre-built: ZeRO offload will JIT-compile cpu_adam on first use."
            fix = (fix + "; " if fix else "") + f"{DS_ROCM_BUILD_FLAGS} pip install --no-build-isolation deepspeed"
            code = "deepspeed-rocm-build"
        if t.get("hip") and not t.get("cuda") and v is not None and v < (0, 14):
            ev.append("older DeepSpeed asserts on torch.version.cuda=None with DTK torch (field report 001)")
    return _r("deepspeed", status, summary, ev, fix, code)


def check_bitsandbytes(view: SystemView) -> CheckResult:
    ver = view.module_version("bitsandbytes")
    _b, _t, samples = view.gpus()
    profiles = {p.id: p for p in _profiles_of(samples) if p is not None}
    ev = [f"bitsandbytes {ver}" if ver else "bitsandbytes not installed"]
    ev += [f"{p.id} ({p.arch}): {'supported' if p.bitsandbytes else 'no kernels'} [{p.sources.get('bitsandbytes', '')}]"
           for p in profiles.values()]
    unsupported = [p for p in profiles.values() if not p.bitsandbytes]
    if not profiles:
        return _r("bitsandbytes", "skip",
                  f"{'bitsandbytes ' + ver if ver else 'Not installed'}; no GPU to check it against.", ev)
    if unsupported:
        names = ", ".join(f"{p.id} ({p.arch})" for p in unsupported)
        return _r("bitsandbytes", "warn" if ver else "pass",
                  (f"bitsandbytes {ver} is installed but has no kernels for {names}: QLoRA / 8-bit optimizers "
                   "will fail or silently run on the CPU." if ver else f"No bitsandbytes kernels for {names}: plan LoRA, not QLoRA."),
                  ev, "Use LoRA in fp16/fp32 instead of QLoRA and plain AdamW.", code="qlora-unsupported")
    if not ver:
        return _r("bitsandbytes", "pass",
                  "Not installed (needed only for QLoRA / 8-bit optimizers); the GPU is supported.", ev,
                  "pip install bitsandbytes (ROCm wheels on PyPI from 0.49)")
    return _r("bitsandbytes", "pass", f"bitsandbytes {ver}.", ev)


def check_flash_attn(view: SystemView) -> CheckResult:
    ver = view.module_version("flash_attn") or view.module_version("flash-attn")
    _b, _t, samples = view.gpus()
    profiles = {p.id: p for p in _profiles_of(samples) if p is not None}
    ev = [f"flash-attn {ver}" if ver else "flash-attn not installed"]
    ev += [f"{p.id} ({p.arch}): FA2 {p.fa2 or 'none'}, SDPA flash {'yes' if p.sdpa_flash else 'no (math)'}"
           for p in profiles.values()]
    if not profiles:
        return _r("flash-attn", "skip", "No GPU with a known profile.", ev)
    no_fa = [p for p in profiles.values() if p.fa2 is None]
    no_sdpa = [p for p in profiles.values() if not p.sdpa_flash]
    if ver and no_fa:
        return _r("flash-attn", "warn",
                  f"flash-attn {ver} is installed but has no kernels for {', '.join(p.arch for p in no_fa)}.", ev,
                  "Use attn sdpa (or eager: flash_attn: disabled in LLaMA-Factory, as field report 000 did).",
                  code="flash-attn-unsupported")
    if no_sdpa:
        return _r("flash-attn", "pass",
                  f"No flash/mem-efficient SDPA kernels for {', '.join(sorted({p.arch for p in no_sdpa}))}: attention memory "
                  "grows with the square of the sequence; keep cutoff_len modest.", ev)
    if not ver:
        return _r("flash-attn", "pass",
                  "flash-attn not installed; PyTorch SDPA has flash kernels here and is close in speed.", ev)
    return _r("flash-attn", "pass", f"flash-attn {ver}.", ev)


def check_alloc_conf(view: SystemView) -> CheckResult:
    t = view.torch()
    hip_conf = view.env.get("PYTORCH_HIP_ALLOC_CONF")
    cuda_conf = view.env.get("PYTORCH_CUDA_ALLOC_CONF")
    alloc = view.env.get("PYTORCH_ALLOC_CONF")
    ev = [f"{k}={v}" for k, v in (("PYTORCH_HIP_ALLOC_CONF", hip_conf), ("PYTORCH_CUDA_ALLOC_CONF", cuda_conf),
                                 ("PYTORCH_ALLOC_CONF", alloc)) if v is not None]
    if not t or "version" not in t:
        return _r("expandable-segments", "skip", "torch is not usable.", ev)
    ev.append(f"torch {t['version']} hip={t.get('hip')}")
    if not t.get("hip"):
        return _r("expandable-segments", "pass",
                  "CUDA/CPU torch: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True works on CUDA.", ev)
    tv = _version_tuple(t["version"]) or (0, 0)
    hv = _version_tuple(t.get("hip")) or (0, 0)
    effective = tv >= (2, 11) and hv >= (7, 0)
    wanted = any("expandable_segments:true" in (v or "").lower().replace(" ", "") for v in (hip_conf, cuda_conf, alloc))
    if hip_conf and cuda_conf:
        return _r("expandable-segments", "warn",
                  "PYTORCH_CUDA_ALLOC_CONF is set, so PYTORCH_HIP_ALLOC_CONF is ignored on ROCm.", ev,
                  "Put the options in one variable (unset PYTORCH_CUDA_ALLOC_CONF).")
    if wanted and not effective:
        return _r("expandable-segments", "warn",
                  f"expandable_segments is ignored on torch {_vstr(tv)} with HIP {_vstr(hv)} "
                  "(needs torch >= 2.11 and ROCm >= 7.0; warns 'expandable_segments not supported on this platform').",
                  ev, "Drop it (it does nothing here); reduce cutoff_len / micro-batch against fragmentation instead.")
    if wanted:
        return _r("expandable-segments", "pass", "expandable_segments:True is effective (torch >= 2.11, ROCm >= 7).", ev)
    return _r("expandable-segments", "pass",
              "Not set" + ("; it would be effective here (torch >= 2.11, ROCm >= 7)." if effective
                           else "; it would be ignored on this torch/ROCm anyway."), ev)


def _meminfo(view: SystemView) -> dict[str, int]:
    out = {}
    for line in (view.read(view.proc_dir / "meminfo") or "").splitlines():
        m = re.match(r"(\w+):\s+(\d+)\s*kB", line)
        if m:
            out[m.group(1)] = int(m.group(2)) * 1024
    return out


def check_cpu_ram(view: SystemView) -> CheckResult:
    mem = _meminfo(view)
    if "MemTotal" not in mem:
        return _r("cpu-ram", "skip", "/proc/meminfo not readable.")
    avail = mem.get("MemAvailable", mem.get("MemFree", 0))
    ev = [f"MemTotal {mem['MemTotal'] / GiB:.1f} GiB, MemAvailable {avail / GiB:.1f} GiB"]
    if avail < 8 * GiB:
        return _r("cpu-ram", "warn", f"Only {avail / GiB:.1f} GiB RAM available: no room for "
                  "ZeRO CPU offload and little for data loading.", ev, "Close other jobs or plan without offload.",
                  code="offload-needs-cpu-ram")
    return _r("cpu-ram", "pass",
              f"{avail / GiB:.0f} GiB available for offload (AdamW offload needs ~12 bytes per trainable parameter).", ev)


def _hf_cache(view: SystemView) -> Path:
    env = view.env
    if env.get("HF_HUB_CACHE"):
        return Path(env["HF_HUB_CACHE"])
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]) / "hub"
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME", str(Path.home())), ".cache")
    return Path(base) / "huggingface" / "hub"


def _writable(path: Path) -> tuple[bool, Path]:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return os.access(p, os.W_OK), p


def check_disk(view: SystemView) -> CheckResult:
    places = {"working directory": view.cwd, "HF cache": _hf_cache(view)}
    ev, low, tiny = [], [], []
    for what, path in places.items():
        _ok, existing = _writable(path)
        free = view.disk_free(str(existing))
        if free is None:
            continue
        ev.append(f"{what} {path}: {free / GiB:.1f} GiB free")
        if free < 5 * GiB:
            tiny.append(what)
        elif free < 50 * GiB:
            low.append(what)
    if not ev:
        return _r("disk-space", "skip", "Could not measure free space.")
    if tiny:
        return _r("disk-space", "fail", f"Under 5 GiB free for: {', '.join(tiny)}.", ev,
                  "Free space or point output_dir / HF_HOME to a larger disk (a 7B checkpoint with optimizer state is ~80 GB).")
    if low:
        return _r("disk-space", "warn", f"Under 50 GiB free for: {', '.join(low)}.", ev,
                  "A full fine-tune checkpoint of a 7B model with optimizer state takes ~80 GB; LoRA adapters are small.")
    return _r("disk-space", "pass", "Enough free space.", ev)


def check_hf_cache(view: SystemView) -> CheckResult:
    path = _hf_cache(view)
    ok, existing = _writable(path)
    ev = [f"HF cache {path}" + ("" if existing == path else f" (not created yet; nearest existing: {existing})")]
    if view.env.get("HF_HUB_OFFLINE") in ("1", "true", "True"):
        ev.append("HF_HUB_OFFLINE=1: only cached models/datasets can be used")
    if not ok:
        return _r("hf-cache", "fail", f"{existing} is not writable: downloads will fail.",
                  ev, "export HF_HOME=/a/writable/dir (field report 004: shared caches need it).")
    return _r("hf-cache", "pass", "Writable.", ev)


CHECKS: tuple[Callable[[SystemView], CheckResult], ...] = (
    check_gpus, check_platform, check_torch, check_torch_devices, check_hsa_override, check_bf16,
    check_visible_devices, check_iommu, check_fine_grain_pcie, check_pcie, check_deepspeed,
    check_bitsandbytes, check_flash_attn, check_alloc_conf, check_cpu_ram, check_disk, check_hf_cache,
)


def run_checks(view: SystemView | None = None) -> list[CheckResult]:
    """Every check; a check that crashes is reported as a failed check, never raised."""
    view = view or SystemView()
    out = []
    for fn in CHECKS:
        try:
            res = fn(view)
        except Exception as exc:  # noqa: BLE001 - doctor must finish
            cid = fn.__name__.removeprefix("check_").replace("_", "-")
            res = _r(cid, "fail", f"check crashed: {type(exc).__name__}: {exc}", (),
                     "Please report this as a rocm-tune bug.")
        out.append(res)
    return out


def summarize(results: list[CheckResult]) -> dict:
    counts = {s: sum(1 for r in results if r.status == s) for s in STATUSES}
    return {"ok": counts["fail"] == 0, "counts": counts}
