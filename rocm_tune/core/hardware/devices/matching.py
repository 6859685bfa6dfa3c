"""Map a detected device (name, gfx target / compute capability, VRAM) to a rocm-tune GPU profile.

Rules: the architecture must agree when both sides know it; then the longest marketing name found in
the device name wins, with VRAM breaking ties (MI50 16 GB and 32 GB share one PCI name; MI250/MI250X
expose one 64 GiB device per GCD). Without a name hit, the profile of that architecture whose VRAM is
closest wins (the most conservative one on ties). Hygon DCUs report gfx9xx targets (gfx906 Z100,
gfx926 K100, gfx928 K100_AI, gfx936 BW1000, gfx938 BW1100): `vendor="hygon"` keeps them apart from
AMD gfx906 cards.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from rocm_tune.core.hardware.devices.types import NA

_NAME_STOP = re.compile(r"[^a-z0-9]")
# a memory size at the end of a name, after a separator: "A100-SXM4-40GB", "MI50 (16GB)" (not the "100" of "A100")
_MEM_SUFFIX = re.compile(r"[\s_\-(]+\d+\s*gb\)?\s*$", re.IGNORECASE)


def _norm(text: str) -> str:
    return _NAME_STOP.sub("", (text or "").lower())


def normalize_arch(arch: Any) -> Any:
    """'gfx942:sramecc+:xnack-' -> 'gfx942'; (8, 0) / '8.0' / 'sm_80' -> 'sm_80'; junk -> NA."""
    if arch is NA or arch is None:
        return NA
    if isinstance(arch, (tuple, list)) and len(arch) == 2:
        try:
            return f"sm_{int(arch[0])}{int(arch[1])}"
        except (TypeError, ValueError):
            return NA
    text = str(arch).strip().lower()
    if not text or text in ("n/a", "na", "none", "unknown"):
        return NA
    text = text.split(":")[0]
    m = re.fullmatch(r"(?:amdgcn-amd-amdhsa--)?(gfx[0-9a-f]{3,4})", text)
    if m:
        return m.group(1)
    m = re.fullmatch(r"sm_?(\d{2,3})", text)
    if m:
        return f"sm_{m.group(1)}"
    m = re.fullmatch(r"(\d{1,2})\.(\d)", text)
    if m:
        return f"sm_{m.group(1)}{m.group(2)}"
    return NA


def gfx_from_target_version(value: Any) -> Any:
    """KFD `gfx_target_version` (90010) or HSA override ("9.0.10") -> 'gfx90a'; NA when unusable."""
    try:
        if isinstance(value, str) and "." in value:
            major, minor, step = (int(x) for x in value.strip().split("."))
        else:
            v = int(str(value).strip())
            if v <= 0:
                return NA
            major, minor, step = v // 10000, (v // 100) % 100, v % 100
    except (TypeError, ValueError):
        return NA
    if not (0 < major < 100 and 0 <= minor < 16 and 0 <= step < 16):
        return NA
    return f"gfx{major}{minor:x}{step:x}"


def hsa_version_for_gfx(gfx: str) -> Any:
    """'gfx1030' -> '10.3.0', 'gfx90a' -> '9.0.10' (the HSA_OVERRIDE_GFX_VERSION spelling)."""
    m = re.fullmatch(r"gfx(\d{1,2})([0-9a-f])([0-9a-f])", gfx or "")
    if not m:
        return NA
    return f"{int(m.group(1))}.{int(m.group(2), 16)}.{int(m.group(3), 16)}"


def _vram_fit(vram_bytes: Any, profile_bytes: int) -> float:
    """1.0 = same size (devices report a little less than nominal), lower = further off."""
    if vram_bytes is NA or not vram_bytes or not profile_bytes:
        return 0.5
    ratio = vram_bytes / profile_bytes
    if 0.85 <= ratio <= 1.08:
        return 1.0
    return max(0.0, 0.49 - abs(1.0 - ratio) / 4)


def _name_hit(key: str, name_n: str) -> bool:
    """`key` (a profile's name, normalised) in the device's name where its model number is not the start of a longer
    one: "p40" names a "Tesla P40" but not a "Quadro P4000", "a10" not an "A100", "rx7600" not an "RX 7600 XT"'s
    neighbour "RX 76000"; a memory size or a suffix word may follow ("A100-SXM4-80GB", "A10G")."""
    start = name_n.find(key)
    while start >= 0:
        after = name_n[start + len(key):start + len(key) + 1]
        if not (key[-1].isdigit() and after.isdigit()):
            return True
        start = name_n.find(key, start + 1)
    return False


def match_profile(name: Any = "", arch: Any = NA, vram_bytes: Any = NA, vendor: str | None = None) -> Any:
    """Best profile id for a device, or NA (cached: telemetry polls ask the same question every second)."""
    key_name = "" if name in (NA, None) else str(name)
    arch_key = arch if isinstance(arch, (str, int, float)) else (tuple(arch) if isinstance(arch, (list, tuple)) else NA)
    vram_key = vram_bytes if isinstance(vram_bytes, int) else NA
    try:
        return _match_cached(key_name, arch_key, vram_key, vendor)
    except TypeError:  # unhashable oddity
        return _match(key_name, arch, vram_bytes, vendor)


@functools.lru_cache(maxsize=1024)
def _match_cached(name, arch, vram_bytes, vendor):
    return _match(name, arch, vram_bytes, vendor)


def _match(name: Any, arch: Any, vram_bytes: Any, vendor: str | None) -> Any:
    from rocm_tune.profiles.gpu_profiles import load_gpu_profiles

    profiles = load_gpu_profiles()
    arch_n = normalize_arch(arch)
    name_n = _norm(str(name)) if name not in (NA, None) else ""
    if vendor is None and name_n and ("hygon" in name_n or "dcu" in name_n):
        vendor = "hygon"
    if vendor is None and name_n and any(k in name_n for k in ("nvidia", "geforce", "tesla", "quadro")):
        vendor = "nvidia"

    best = None
    best_key: tuple[bool, bool, int, int, float, float] | None = None
    for prof in profiles.values():
        if arch_n is not NA and prof.arch != arch_n:
            continue
        if vendor == "hygon" and prof.vendor != "hygon":
            continue
        if vendor in ("amd", "nvidia") and prof.vendor != vendor:
            if not (vendor == "amd" and prof.vendor == "hygon" and arch_n is not NA and arch_n != "gfx906"):
                continue
        hit = 0
        for n in (prof.id, *prof.names):
            # "AMD Instinct MI50 16GB" also matches a device that only says "AMD Instinct MI50"
            for k in {_norm(n), _norm(_MEM_SUFFIX.sub("", n))}:
                if len(k) >= 2 and _name_hit(k, name_n):
                    hit = max(hit, len(k))
        if name_n and hit == 0 and arch_n is NA:
            continue  # nothing ties this device to this profile
        fit = _vram_fit(vram_bytes, prof.vram_bytes)
        exact = 1 if name_n and _norm(prof.id) == name_n or any(_norm(n) == name_n for n in prof.names) else 0
        # prefer: exact name, longest name hit, VRAM fit, then the more conservative (slower) profile
        key = (hit > 0, fit >= 1.0, exact, hit, fit, -prof.fp16_tflops)
        if best_key is None or key > best_key:
            best, best_key = prof, key
    if best is None or best_key is None:
        return NA
    if best_key[0] is False and arch_n is NA:
        return NA
    return best.id
