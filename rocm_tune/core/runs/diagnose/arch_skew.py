"""e-arch (issue 26): FAMILIES.md "Rule 1, arch clause (session 10)": a kernel-less HIP failure is version_check when
the log (or the files beside it) shows BOTH the card's gfx and the list of gfx targets the installed build was
compiled for, and the card's gfx is not in that list; with no list shown, or the card in it, it stays hip_error.
HSA_OVERRIDE_GFX_VERSION in the fix does not change the family. NVIDIA (the clause's cuda_error twin): torch's
`_check_capability` warning prints the card's sm_XX and the wheel's sm list together - the same two facts - so a
CUDA kernel/runtime failure next to it is version_check too (read_sm_skew).

Pure: regexes over the log text (the spellings are data: rocm_tune/profiles/gpu_archs.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rocm_tune.profiles import gpu_archs as ga

_CARD = [re.compile(p, re.M) for p in ga.CARD_GFX]
_LISTS = [re.compile(p, re.M) for p in ga.BUILD_LIST]
_THEROCK = re.compile(ga.THEROCK_FAMILY, re.I)
_DEVICE = [(re.compile(p), g) for p, g in ga.DEVICE_GFX]
_GREP_ABSENT = re.compile(ga.GREP_ABSENT)
_GFX = re.compile(r"(?<![A-Za-z0-9])gfx(?:\d+(?:-\d+)?-generic|[0-9]{2,4}[a-f]?)(?![A-Za-z0-9])")
_OVERRIDE_SET = re.compile(r"^(?![^\n]*(?:try|export it|consider|set it)\b)[^\n]*HSA_OVERRIDE_GFX_VERSION\s*[=:]\s*"
                           r"['\"]?(\d+\.\d+\.\d+)", re.M)
# the failure is the card having no kernel: no code object, no Tensile library, the tool refusing the card
_NO_KERNEL = re.compile(r"invalid device function|no kernel image|NoBinaryForGpu|InvalidImage|InvalidKernelImage|"
                        r"[Cc]ode ?[Oo]bjects? (?:found )?for|No device code available|Cannot read \S*TensileLibrary|"
                        r"amdgpu is not supported|Ignoring visible gpu device|Missing CO for|No compatible code objects|no compatible (?:amd)?gpu")


_SM_CARD = re.compile(ga.SM_CARD)
_SM_LIST = re.compile(ga.SM_LIST)
_SM_TOO_OLD = [re.compile(ga.SM_TOO_OLD), re.compile(ga.SM_TF_IGNORED)]


@dataclass
class ArchSkew:
    card: str                   # the card's gfx, as the log shows it
    card_src: str               # the text that showed it
    build: tuple[str, ...]      # the build's gfx targets
    build_src: str              # the text that showed them (shortened)


def _base(gfx: str) -> str:
    return gfx.split(":")[0].lower()


def card_gfx(blob: str, names: bool = True) -> tuple[str, str] | None:
    """(gfx, the text showing it): the card's gfx target; a device name the log resolves (`names`) when no gfx is
    printed."""
    for rx in _CARD:
        if m := rx.search(blob):
            return _base(m.group("gfx")), " ".join(m.group(0).split())
    for rx, gfx in _DEVICE if names else ():
        if m := rx.search(blob):
            return gfx, m.group(0)
    return None


def build_lists(blob: str) -> list[tuple[tuple[str, ...], str]]:
    """Each list of gfx targets a build in the log was compiled for, with the text that showed it."""
    out: list[tuple[tuple[str, ...], str]] = []
    for rx in _LISTS:
        for m in rx.finditer(blob):
            names = tuple(dict.fromkeys(_base(g) for g in _GFX.findall(m.group("list"))))
            if names:
                out.append((names, " ".join(m.group(0).split())[:160]))
    for m in _THEROCK.finditer(blob):
        fam = m.group("fam").lower().replace("_", "-")
        names = ga.THEROCK_FAMILIES.get(fam) or ((fam,) if re.fullmatch(r"gfx[0-9]{2,4}[a-f]?", fam) else ())
        if names:
            out.append((tuple(names), m.group(0)))
    return out


def _covers(names: tuple[str, ...], gfx: str) -> bool:
    return any(n == gfx or gfx in ga.GENERIC_TARGETS.get(n, ()) for n in names)


def _override_target(blob: str) -> str | None:
    """The gfx an HSA_OVERRIDE_GFX_VERSION the log sets makes the card report (10.3.0 -> gfx1030)."""
    m = _OVERRIDE_SET.search(blob)
    if not m:
        return None
    a, b, c = (int(x) for x in m.group(1).split("."))
    return f"gfx{a}{b}{c:x}" if c <= 15 else None


def read_arch_skew(text: str, blob: str) -> ArchSkew | None:
    """The skew when the root line `text` is a kernel-less HIP failure and the log `blob` shows the card's gfx and
    a build list without it."""
    whole = blob + "\n" + text
    if not _NO_KERNEL.search(text) and not _NO_KERNEL.search(whole[-4000:]):
        return None
    return skew_in(whole)


def skew_in(whole: str) -> ArchSkew | None:
    """e-fall: the card's gfx and a build list without it, both shown in `whole` (the caller decided the failure is
    the card having no code: a kernel-less HIP failure, or a message refusing the card's gfx)."""
    card = card_gfx(whole)
    if card is None:
        return None
    gfx, src = card
    ov = _override_target(whole)
    lists = build_lists(whole)
    if m := _GREP_ABSENT.search(whole):
        if m.group("gfx").lower() == gfx:
            lists.append(((), " ".join(m.group(0).split()) + " (nothing found)"))
    if not lists or any(_covers(n, gfx) or (ov and _covers(n, ov)) for n, _ in lists if n):
        return None
    names, shown = lists[0]
    return ArchSkew(gfx, src, names, shown)


def sentence(s: ArchSkew) -> tuple[str, str]:
    """(title, fix) naming the card's gfx, the build's list and the fix."""
    listed = f"was compiled for {', '.join(s.build)}" if s.build else f"has no code object for {s.card}"
    title = (f"the installed build has no code for this GPU: the card is {s.card} ({s.card_src}) but the build "
             f"{listed} ({s.build_src})")
    fix = (f"install a build compiled for {s.card} (a wheel/library whose targets include it, or build it with "
           f"PYTORCH_ROCM_ARCH={s.card} / AMDGPU_TARGETS={s.card})")
    for pat, ver, tgt in ga.OVERRIDE_FOR:
        if re.fullmatch(pat, s.card) and (not s.build or _covers(s.build, tgt)):
            fix += (f"; or export HSA_OVERRIDE_GFX_VERSION={ver} so the card runs the listed {tgt} code (same ISA "
                    "family; unofficial)")
            break
    return title, fix


def read_sm_skew(blob: str) -> ArchSkew | None:
    """NVIDIA: torch's warning that no architecture of the installed wheel covers the card - the card's sm and the
    wheel's list (or its minimum capability) both shown. None when the log has no such warning."""
    card, lst = _SM_CARD.search(blob), _SM_LIST.search(blob)
    if card and lst:
        names = tuple(dict.fromkeys(re.findall(r"(?:sm|compute)_\d+[a-z]?", lst.group("list"))))
        return ArchSkew(card.group("sm"), " ".join(card.group(0).split())[-160:], names,
                        " ".join(lst.group(0).split())[:160])
    if old := next((m for rx in _SM_TOO_OLD if (m := rx.search(blob))), None):
        sm = "sm_" + old.group("cc").replace(".", "")
        return ArchSkew(sm, " ".join(old.group(0).split()[:12]), (),
                        f"the minimum cuda capability of this build is {old.group('min')}")
    return None


def sm_sentence(s: ArchSkew) -> tuple[str, str]:
    """(title, fix) for the NVIDIA case: the card's sm, the wheel's list, a wheel built for the card."""
    listed = f"was built for {' '.join(s.build)}" if s.build else s.build_src
    title = f"the installed PyTorch wheel has no kernels for this GPU: the card is {s.card} but the wheel {listed}"
    digits = s.card.removeprefix("sm_")
    newer = digits.isdigit() and int(digits) >= 100      # sm_100 / sm_120: Blackwell, newer than the wheel
    fix = ("install a PyTorch wheel built for " + s.card + (" (Blackwell sm_120/sm_100: a cu128 or later wheel, "
           "torch >= 2.7)" if newer else " (an older card: the last torch release whose wheels list it, or a "
           "build from source with TORCH_CUDA_ARCH_LIST including it)")
           + "; rebuild CUDA extensions (flash-attn, bitsandbytes, apex) against that wheel")
    return title, fix
