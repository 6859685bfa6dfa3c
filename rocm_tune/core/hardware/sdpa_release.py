"""The SDPA kernels of the torch release the user's files state, on an AMD card (pure; data in
profiles/rocm_sdpa.py). A release is read only where a file states it: a pin (`torch==2.3.0`), a wheel or a printed
`torch.__version__` (`2.5.1+rocm6.2`), a rocm/pytorch container tag (`..._pytorch_release_2.3.0`, `..._pytorch_2.3`),
or the ROCm wheel index (`download.pytorch.org/whl/rocm6.1`: every release built for it). Files
that state none keep today's default (the GPU profile): no date is guessed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rocm_tune.profiles import rocm_sdpa

# torch==2.3.0 / torch>=2.3,<2.4 is not one release; `torch-2.3.0+rocm6.0` (a wheel), `torch 2.5.1+rocm6.2`
_PIN = re.compile(r"(?<![\w.\-/])torch(?:\[[\w,\s-]*\])?\s*===?\s*v?(\d+)\.(\d+)(?:\.\d+)?", re.IGNORECASE)
# a torch build's full version: `2.4.0+rocm6.1` (torch 2.x; torchaudio's 2.x follows torch's), not vLLM's 0.6.5+rocm6.2
_LOCAL = re.compile(r"(?<![\w.])(2)\.(\d+)\.\d+(?:a0|\.dev\d+)?\+rocm\d+(?:\.\d+){1,2}\b")
_CONTAINER = re.compile(r"rocm/pytorch(?:-training)?:\S*?pytorch[_-](?:release[_-])?v?(\d+)\.(\d+)", re.IGNORECASE)
# the stable ROCm wheel index (not whl/nightly/rocmX.Y: nightlies are today's)
_INDEX = re.compile(r"download\.pytorch\.org/whl/rocm(\d+(?:\.\d+){1,2})\b")
_ENV_ON = re.compile(rf"{rocm_sdpa.EXPERIMENTAL_ENV}['\"]?\s*(?:\]\s*)?(?:=|,|:)\s*['\"]?(1|true|on|yes|y)\b",
                     re.IGNORECASE)
_ON = ("1", "true", "on", "yes", "y")


@dataclass(frozen=True)
class Kernels:
    flash: bool
    mem_efficient: bool
    why: str


def stated_releases(texts: list[str]) -> tuple[tuple[tuple[int, int], ...], str] | None:
    """(the torch releases the texts allow, how they say it); None where they state none or disagree."""
    exact = {(int(m.group(1)), int(m.group(2))) for t in texts for rx in (_PIN, _LOCAL, _CONTAINER)
             for m in rx.finditer(t)}
    if len(exact) == 1:
        rel = next(iter(exact))
        return (rel,), f"torch {rel[0]}.{rel[1]} stated in the files"
    if exact:
        return None
    indexes = {m.group(1) for t in texts for m in _INDEX.finditer(t)}
    known = [i for i in indexes if i in rocm_sdpa.INDEX_RELEASES]
    if len(indexes) != 1 or not known:
        return None
    rels = rocm_sdpa.INDEX_RELEASES[known[0]]
    names = ", ".join(f"{a}.{b}" for a, b in rels)
    return rels, f"the ROCm {known[0]} wheels (torch {names})"


def experimental_on(texts: list[str], env: dict) -> bool:
    value = str(env.get(rocm_sdpa.EXPERIMENTAL_ENV, "") or "").strip().lower()
    return value in _ON or any(_ENV_ON.search(t) for t in texts)


def _one(arch: str, release: tuple[int, int], opted_in: bool) -> tuple[bool, bool] | None:
    row = rocm_sdpa.RELEASES.get(release)
    if row is None:
        return None
    _aot, flash, eff, experimental = row
    gated = arch in experimental and not opted_in
    return arch in flash and not gated, arch in eff and not gated


def kernels(arch: str, texts: list[str], env: dict) -> Kernels | None:
    """The flash / mem-efficient kernels PyTorch's ROCm SDPA has on `arch` under the release the files state;
    None where they state none, a release past the table, or releases that disagree."""
    stated = stated_releases(texts)
    if stated is None:
        return None
    releases, how = stated
    opted_in = experimental_on(texts, env)
    answers = {_one(arch.lower(), rel, opted_in) for rel in releases}
    answer = next(iter(answers)) if len(answers) == 1 else None
    if answer is None:
        return None
    flash, eff = answer
    rows = {rocm_sdpa.RELEASES[r][0] for r in releases}
    aot = "no AOTriton" if rows == {None} else "AOTriton " + "/".join(sorted(str(r) for r in rows if r))
    gate = any(arch.lower() in rocm_sdpa.RELEASES[r][3] for r in releases)
    env_note = (f", {rocm_sdpa.EXPERIMENTAL_ENV}={'1' if opted_in else 'unset'}" if gate else "")
    return Kernels(flash, eff, f"{how}: {aot}{env_note}")
