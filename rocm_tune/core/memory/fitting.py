"""The one meaning of "fits" (issue 24): the planner, check, preflight, the app, explain's OOM fix and diagnose
all call these functions, so they cannot disagree.

A job fits a GPU when what it reserves plus what other processes already use stays within `headroom` x VRAM
(`vocabulary.DEFAULT_HEADROOM`, 85 %: the allocator's fragmentation, the runtime's context and a margin the
estimate cannot see), and what it offloads to CPU memory stays within `CPU_RAM_USABLE` of the node's RAM when
that is known. Between the headroom and the whole card the verdict is "thin" (it may run, or OOM on a longer
batch); above the card it is "oom". Pure: standard library only.
"""

from __future__ import annotations

from rocm_tune.core import vocabulary as V

FITS, THIN, OOM = "fits", "thin", "oom"


def limit_bytes(vram_bytes: float, headroom: float = V.DEFAULT_HEADROOM, in_use_bytes: float = 0) -> float:
    """The most a job may reserve per GPU: headroom x VRAM minus what is already in use."""
    return headroom * vram_bytes - in_use_bytes


def fits(reserved_bytes: float, vram_bytes: float, headroom: float = V.DEFAULT_HEADROOM, in_use_bytes: float = 0,
         offload_bytes: float = 0, cpu_ram_bytes: float | None = None) -> bool:
    """reserved + in use <= headroom x VRAM, and offload <= CPU_RAM_USABLE x CPU RAM when the RAM is known."""
    if reserved_bytes > limit_bytes(vram_bytes, headroom, in_use_bytes):
        return False
    return host_fits(offload_bytes, cpu_ram_bytes)


def host_fits(offload_bytes: float, cpu_ram_bytes: float | None) -> bool:
    """What is offloaded to CPU memory fits the node's RAM (unknown RAM: assumed to)."""
    return not (cpu_ram_bytes is not None and offload_bytes > V.CPU_RAM_USABLE * cpu_ram_bytes)


def verdict(reserved_bytes: float, vram_bytes: float, headroom: float = V.DEFAULT_HEADROOM,
            in_use_bytes: float = 0) -> str:
    """FITS within the headroom, THIN between the headroom and the whole card, OOM above the card."""
    if reserved_bytes <= limit_bytes(vram_bytes, headroom, in_use_bytes):
        return FITS
    if reserved_bytes + in_use_bytes <= vram_bytes:
        return THIN
    return OOM


def share(reserved_bytes: float, vram_bytes: float) -> float:
    """reserved / VRAM (0 for an unknown card)."""
    return reserved_bytes / vram_bytes if vram_bytes else 0.0
