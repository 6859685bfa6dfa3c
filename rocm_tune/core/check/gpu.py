"""The card `check` judges against: a profile (``--gpu``), a card nvidia-smi names with its memory, a card with
no profile given its memory (``--gpu X --vram-gib N``), or a card given by its memory alone (``--vram-gib N``:
a generic card, its architecture facts assumed and said). Pure."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from rocm_tune.core.errors import UserError

GENERIC_ASSUMED = ("bf16 and FlashAttention-2 support not checked (no architecture known: bf16 assumed to run as "
                   "asked, SDPA attention), PCIe between GPUs")


def _generic(card_id: str, vram_gib: float) -> Any:
    from rocm_tune.profiles.gpu_profiles import get_gpu_profile

    get_gpu_profile("rtx3090", vram_gib)            # the same range check of --vram-gib as a profile's
    return SimpleNamespace(id=card_id, vendor="unknown", vram_gib=float(vram_gib),
                           vram_bytes=round(float(vram_gib) * 2**30), bf16="unknown", fa2="unknown")


def resolve_card(gpu_id: str | None, vram_gib: float | None, notes: list[str], assumptions: list[str]) -> Any:
    """The GPU for the verdict, or None when neither --gpu nor --vram-gib was given."""
    from rocm_tune.profiles.gpu_profiles import find_gpu_profile, get_gpu_profile

    if not gpu_id:
        if vram_gib is None:
            return None
        card = _generic(f"a {float(vram_gib):g} GiB GPU", vram_gib)
        assumptions.append(f"GPU: a card with {float(vram_gib):g} GiB (--vram-gib, no --gpu): {GENERIC_ASSUMED}; "
                           f"give --gpu for its own facts")
        return card
    if find_gpu_profile(gpu_id) is None and vram_gib is None:
        # "NVIDIA A800-SXM4-80GB": the memory is in the name nvidia-smi prints
        m = re.search(r"(\d{1,3})\s*G(?:i)?B\b", gpu_id, re.IGNORECASE)
        if m is None:
            from rocm_tune.profiles.gpu_profiles import close_matches

            near = close_matches(gpu_id)
            raise UserError(f"unknown GPU {gpu_id!r}: no profile; give its memory per GPU with --vram-gib "
                            f"(e.g. --vram-gib 48)" + (f", or a profile: {', '.join(near)}" if near else ""))
        vram_gib = float(m.group(1))
        notes.append(f"GPU memory {vram_gib:g} GiB read from the name {gpu_id!r}")
    if find_gpu_profile(gpu_id) is None and vram_gib is not None:
        # a card we have no profile for: its memory from --vram-gib, its features unknown (said)
        notes.append(f"no GPU profile for {gpu_id!r}: {vram_gib:g} GiB from --vram-gib; its bf16 and "
                     f"FlashAttention support are not checked")
        return _generic(gpu_id, vram_gib)
    return get_gpu_profile(gpu_id, vram_gib)
