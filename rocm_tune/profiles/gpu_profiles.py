"""GPU profiles: one YAML per GPU in `profiles/gpus/`, loaded into frozen `GpuProfile`s.

Every fact keeps its source (`sources: {fact: "where it comes from"}`); source tags such as `[S10]`
refer to `shared/knowledge/hardware.md` section 6.

Conventions:
* TFLOPS are dense (no sparsity). `fp16_tflops` is the rate PyTorch AMP sees (GeForce: FP32 accumulate).
* `bf16_tflops` is the effective bf16 rate: half of fp16 on gfx908, a small fraction of fp32 where bf16
  is emulated (gfx906, V100, T4, RDNA2).
* Profiles describe ONE device as PyTorch sees it. MI250/MI250X cards expose two GCDs, each a separate
  HIP device with half the card's memory and compute (`devices_per_card: 2`).
* `interconnect_gbs` is GPU<->GPU bandwidth per direction in GB/s (PCIe 3/4/5 x16 = 16/32/64).
* `vram_gib` is the memory PyTorch sees (`torch.cuda.get_device_properties(i).total_memory`, the "GPU 0 has a
  total capacity of 39.39 GiB" of every OOM message), cited in `sources.vram_torch`; `vram_nominal_gib` is the
  marketed size (40 for an A100 40GB), for display and for naming a SKU by its size. A card without a public torch
  figure keeps its nominal size in `vram_gib` and says so in `sources.vram_torch`. Every "fits" decision
  (check, plan, the app) compares against `vram_bytes`, derived from `vram_gib`.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from rocm_tune.profiles.errors import UserError

# libyaml's C loader is ~5x faster; all 40 profiles load on every `plan`.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

GPU_DIR = Path(__file__).resolve().parent / "gpus"

VENDORS = ("amd", "nvidia", "hygon")
BF16_KINDS = ("native", "half-rate", "emulated", "none")
FA2_KINDS = ("ck", "triton", "cuda", None)
PLATFORMS = ("rocm", "dtk", "cuda")
PLATFORM_STATUSES = ("supported", "deprecated", "unsupported", "unofficial")

# Facts that must each name a source in the YAML `sources` mapping.
SOURCED_FACTS = (
    "arch", "vram", "mem_bandwidth", "fp32", "fp16", "bf16", "fp8", "interconnect",
    "fa2", "sdpa", "hipblaslt", "bitsandbytes", "platform_status", "hsa_override",
)


@dataclass(frozen=True)
class GpuProfile:
    id: str
    vendor: str                     # amd | nvidia | hygon
    names: tuple[str, ...]          # marketing names, for matching (first = display name)
    arch: str                       # "gfx906", "sm_80", ...
    vram_gib: float                 # per device as torch sees it (total_memory); the verdicts use this
    vram_bytes: int
    mem_bandwidth_gbs: float
    fp32_tflops: float
    fp16_tflops: float
    bf16_tflops: float
    bf16: str                       # native | half-rate | emulated | none
    fp8: bool
    interconnect: str
    interconnect_gbs: float
    fa2: str | None                 # ck | triton | cuda | None
    sdpa_flash: bool
    sdpa_mem_efficient: bool
    hipblaslt: bool
    bitsandbytes: bool
    platform: str                   # rocm | dtk | cuda
    platform_status: str            # supported | deprecated | unsupported | unofficial
    hsa_override: str | None
    sources: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    # additions beyond the original contract (defaulted, so the contract constructor still works)
    devices_per_card: int = 1
    notes: tuple[str, ...] = ()
    vram_nominal_gib: float | None = None   # marketed size (display, SKU by size); None = same as vram_gib

    @property
    def display_name(self) -> str:
        return self.names[0] if self.names else self.id

    @property
    def nominal_gib(self) -> float:
        """The marketed memory size (40 for an A100 40GB), never used to decide "fits"."""
        return self.vram_gib if self.vram_nominal_gib is None else self.vram_nominal_gib

    def to_dict(self) -> dict:
        return {
            "id": self.id, "vendor": self.vendor, "names": list(self.names), "arch": self.arch,
            "vram_gib": self.vram_gib, "vram_bytes": self.vram_bytes,
            "mem_bandwidth_gbs": self.mem_bandwidth_gbs, "fp32_tflops": self.fp32_tflops,
            "fp16_tflops": self.fp16_tflops, "bf16_tflops": self.bf16_tflops, "bf16": self.bf16,
            "fp8": self.fp8, "interconnect": self.interconnect, "interconnect_gbs": self.interconnect_gbs,
            "fa2": self.fa2, "sdpa_flash": self.sdpa_flash, "sdpa_mem_efficient": self.sdpa_mem_efficient,
            "hipblaslt": self.hipblaslt, "bitsandbytes": self.bitsandbytes, "platform": self.platform,
            "platform_status": self.platform_status, "hsa_override": self.hsa_override,
            "devices_per_card": self.devices_per_card, "notes": list(self.notes),
            "vram_nominal_gib": self.nominal_gib, "sources": dict(self.sources),
        }


# --------------------------------------------------------------------------- validation / loading

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_ARCH_RE = re.compile(r"^(gfx[0-9a-f]{3,4}|sm_[0-9]{2,3})$")
_HSA_RE = re.compile(r"^[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{1,2}$")


def _req(data: dict, key: str, types, where: str):
    if key not in data:
        raise UserError(f"{where}: missing field {key!r}")
    value = data[key]
    if types is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UserError(f"{where}: field {key!r} must be a number, got {value!r}")
        return float(value)
    if not isinstance(value, types) or (types is int and isinstance(value, bool)):
        raise UserError(f"{where}: field {key!r} has the wrong type ({type(value).__name__}), got {value!r}")
    return value


def _nominal_gib(data: dict, vram_gib: float, sources: dict, where: str) -> float | None:
    """`vram_nominal_gib` (optional): the marketed size; torch sees at most that and not under 85 % of it."""
    if "vram_nominal_gib" not in data or data["vram_nominal_gib"] is None:
        return None
    nominal = _req(data, "vram_nominal_gib", float, where)
    if not 0.85 * nominal <= vram_gib <= nominal:
        raise UserError(f"{where}: vram_gib {vram_gib:g} (the memory torch sees) must be between 85 % and 100 % "
                        f"of vram_nominal_gib {nominal:g}")
    src = sources.get("vram_torch")
    if nominal != vram_gib and (not isinstance(src, str) or not src.strip()):
        raise UserError(f"{where}: sources.vram_torch is missing (where the torch-visible {vram_gib:g} GiB "
                        "comes from)")
    return nominal


def profile_from_dict(data: dict, where: str = "profile") -> GpuProfile:
    """Validate one YAML mapping and build the profile. UserError names the bad field."""
    if not isinstance(data, dict):
        raise UserError(f"{where}: expected a mapping, got {type(data).__name__}")
    pid = _req(data, "id", str, where)
    if not _ID_RE.match(pid):
        raise UserError(f"{where}: id {pid!r} must be lower-case letters, digits and '-'")
    vendor = _req(data, "vendor", str, where)
    if vendor not in VENDORS:
        raise UserError(f"{where}: vendor {vendor!r} must be one of {', '.join(VENDORS)}")
    names = _req(data, "names", list, where)
    if not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise UserError(f"{where}: names must be a non-empty list of strings")
    arch = _req(data, "arch", str, where)
    if not _ARCH_RE.match(arch):
        raise UserError(f"{where}: arch {arch!r} must look like gfx906 / gfx90a / sm_80")
    vram_gib = _req(data, "vram_gib", float, where)
    numbers = {}
    for key in ("vram_gib", "mem_bandwidth_gbs", "fp32_tflops", "fp16_tflops", "bf16_tflops",
                "interconnect_gbs"):
        numbers[key] = _req(data, key, float, where)
        if not 0 < numbers[key] < 1e6:
            raise UserError(f"{where}: {key} must be a positive number, got {numbers[key]}")
    bf16 = _req(data, "bf16", str, where)
    if bf16 not in BF16_KINDS:
        raise UserError(f"{where}: bf16 {bf16!r} must be one of {', '.join(BF16_KINDS)}")
    fa2 = data.get("fa2", "missing")
    if fa2 == "missing":
        raise UserError(f"{where}: missing field 'fa2'")
    if fa2 not in FA2_KINDS:
        raise UserError(f"{where}: fa2 {fa2!r} must be ck, triton, cuda or null")
    platform = _req(data, "platform", str, where)
    if platform not in PLATFORMS:
        raise UserError(f"{where}: platform {platform!r} must be one of {', '.join(PLATFORMS)}")
    status = _req(data, "platform_status", str, where)
    if status not in PLATFORM_STATUSES:
        raise UserError(f"{where}: platform_status {status!r} must be one of {', '.join(PLATFORM_STATUSES)}")
    hsa = data.get("hsa_override", "missing")
    if hsa == "missing":
        raise UserError(f"{where}: missing field 'hsa_override'")
    if hsa is not None and (not isinstance(hsa, str) or not _HSA_RE.match(hsa)):
        raise UserError(f"{where}: hsa_override {hsa!r} must be null or like '10.3.0'")
    sources = _req(data, "sources", dict, where)
    for fact in SOURCED_FACTS:
        src = sources.get(fact)
        if not isinstance(src, str) or not src.strip():
            raise UserError(f"{where}: sources.{fact} is missing (every fact keeps its source)")
    devices_per_card = data.get("devices_per_card", 1)
    if not isinstance(devices_per_card, int) or isinstance(devices_per_card, bool) or devices_per_card < 1:
        raise UserError(f"{where}: devices_per_card must be a positive integer")
    notes = data.get("notes", []) or []
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise UserError(f"{where}: notes must be a list of strings")
    bools = {}
    for key in ("fp8", "sdpa_flash", "sdpa_mem_efficient", "hipblaslt", "bitsandbytes"):
        bools[key] = _req(data, key, bool, where)
    nominal = _nominal_gib(data, vram_gib, sources, where)
    return GpuProfile(
        id=pid, vendor=vendor, names=tuple(n.strip() for n in names), arch=arch,
        vram_gib=vram_gib, vram_bytes=int(round(vram_gib * 2**30)),
        mem_bandwidth_gbs=numbers["mem_bandwidth_gbs"], fp32_tflops=numbers["fp32_tflops"],
        fp16_tflops=numbers["fp16_tflops"], bf16_tflops=numbers["bf16_tflops"], bf16=bf16,
        fp8=bools["fp8"], interconnect=_req(data, "interconnect", str, where),
        interconnect_gbs=numbers["interconnect_gbs"], fa2=fa2, sdpa_flash=bools["sdpa_flash"],
        sdpa_mem_efficient=bools["sdpa_mem_efficient"], hipblaslt=bools["hipblaslt"],
        bitsandbytes=bools["bitsandbytes"], platform=platform, platform_status=status,
        hsa_override=hsa, sources={str(k): str(v) for k, v in sources.items()},
        devices_per_card=devices_per_card, notes=tuple(notes), vram_nominal_gib=nominal,
    )


def load_profiles_from(directory: Path) -> dict[str, GpuProfile]:
    """Load and cross-check every *.yaml in `directory` (ids unique, names unique)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise UserError(f"GPU profile directory {str(directory)!r} does not exist")
    profiles: dict[str, GpuProfile] = {}
    seen_names: dict[str, str] = {}
    for path in sorted(directory.glob("*.yaml")):
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER)
        except (OSError, yaml.YAMLError) as exc:
            raise UserError(f"GPU profile {path.name}: cannot read YAML ({str(exc).splitlines()[0]})") from None
        prof = profile_from_dict(data, where=f"GPU profile {path.name}")
        if path.stem != prof.id:
            raise UserError(f"GPU profile {path.name}: id {prof.id!r} must match the file name")
        if prof.id in profiles:
            raise UserError(f"GPU profile {path.name}: duplicate id {prof.id!r}")
        for key in {_norm(prof.id), *(_norm(n) for n in prof.names)}:
            other = seen_names.get(key)
            if other is not None and other != prof.id:
                raise UserError(f"GPU profile {path.name}: name {key!r} is also used by {other!r}")
            seen_names[key] = prof.id
        profiles[prof.id] = prof
    return profiles


@functools.lru_cache(maxsize=1)
def _cached() -> dict[str, GpuProfile]:
    return load_profiles_from(GPU_DIR)


def load_gpu_profiles() -> dict[str, GpuProfile]:
    """All built-in profiles, id -> profile (a fresh dict; the profiles are immutable)."""
    return dict(_cached())


def _norm(text: str) -> str:
    """'AMD Instinct MI50 (32GB)' -> 'amdinstinctmi5032gb' (case, spaces, punctuation ignored)."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


@functools.lru_cache(maxsize=1)
def _name_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for prof in _cached().values():
        for key in (prof.id, *prof.names):
            index[_norm(key)] = prof.id
    return index


def find_gpu_profile(id_or_name: str) -> GpuProfile | None:
    """Exact (normalised) id/name match or None."""
    if not isinstance(id_or_name, str):
        return None
    pid = _name_index().get(_norm(id_or_name))
    return _cached()[pid] if pid else None


def close_matches(text: str, n: int = 5) -> list[str]:
    """Profile ids whose id or a marketing name is closest to `text` (best first)."""
    key = _norm(text or "")
    if not key:
        return []
    best: dict[str, float] = {}
    for name_key, pid in _name_index().items():
        score = difflib.SequenceMatcher(None, key, name_key).ratio()
        if key in name_key or name_key in key:
            score = max(score, 0.7)
        if score > best.get(pid, 0.0):
            best[pid] = score
    ranked = sorted((s, pid) for pid, s in best.items() if s >= 0.6)
    return [pid for _s, pid in sorted(ranked, key=lambda t: (-t[0], t[1]))][:n]


def get_gpu_profile(id_or_name: str, vram_gib: float | None = None) -> GpuProfile:
    """Profile by id or marketing name (case/punctuation-insensitive).

    `vram_gib` (the user's --vram-gib): the size a sibling SKU is sold with picks that SKU (`MI50` + 16 =
    mi50-16gb, with the memory torch sees on it); any other number overrides the memory as typed (odd SKUs, e.g.
    a 16 GB Hygon DCU). UserError when unknown.
    """
    prof = find_gpu_profile(id_or_name)
    if prof is None:
        hint = close_matches(str(id_or_name))
        extra = f"; did you mean: {', '.join(hint)}" if hint else ""
        raise UserError(
            f"unknown GPU {id_or_name!r}{extra} (see `rocm-tune gpus --profiles` for all ids)")
    if vram_gib is not None:
        try:
            v = float(vram_gib)
        except (TypeError, ValueError):
            raise UserError(f"--vram-gib must be a number, got {vram_gib!r}") from None
        if not (0.5 <= v <= 4096) or v != v:
            raise UserError(f"--vram-gib must be between 0.5 and 4096 GiB, got {vram_gib}")
        # "MI50 --vram-gib 16": the SKU sold with that memory (mi50-16gb, or the card itself: "a100-40gb
        # --vram-gib 40") is that card, with the memory torch sees on it; any other number is used as typed
        family = prof.id.split("-")[0]
        siblings = [p for p in (prof, *load_gpu_profiles().values())
                    if p.id.split("-")[0] == family and p.arch == prof.arch and v in (p.nominal_gib, p.vram_gib)]
        if siblings:
            return siblings[0]
        sources = dict(prof.sources)
        sources["vram"] = sources["vram_torch"] = "user override (--vram-gib), used as typed"
        prof = replace(prof, vram_gib=v, vram_bytes=int(round(v * 2**30)), vram_nominal_gib=None, sources=sources)
    return prof
