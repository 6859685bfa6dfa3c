"""The installed releases a log shows, read against what each release declares it needs (e-ver4, issue 26).

FAMILIES.md "Rule 1, refined": version_check where the log (or the files beside it) shows the installed components
disagree - a stated requirement among them. A library's release declares what it needs of the others (its
install_requires, its requirements file, LLaMA-Factory's check_dependencies; profiles/release_pins.py, generated from
the release tags by tools/build_release_pins.py), and a flash-attn wheel names the torch it was built for. When the
log prints the versions (pip list / freeze, conda list, collect_env, transformers-cli / accelerate / llamafactory-cli
env, ds_report, banners, pip's install lines, wheel names: profiles/version_facts.py), a failure raised inside one of
two packages whose installed releases break such a pin is the skew, whichever component raised it. Without such a
pair in view the component's own family stays.

Pure: regexes over the text and a comparison of release numbers.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from rocm_tune.profiles import version_facts as vf


@dataclass(frozen=True)
class Fact:
    name: str        # the package, as the pins name it
    version: str     # as shown
    shown: str       # the text that showed it


@dataclass(frozen=True)
class Skew:
    lib: str
    lib_version: str
    dep: str
    need: str        # the specifier lib's release declares, or the wheel's torch
    have: str
    shown: str       # the texts that showed the two versions


@lru_cache(maxsize=1)
def _rx() -> tuple[tuple[re.Pattern[str], ...], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    return (tuple(re.compile(p, re.M) for p in vf.FACT_PATTERNS), re.compile(vf.INSTALLED_LINE),
            re.compile(vf.INSTALLED_ITEM, re.I), re.compile(vf.REPLACED))


def _canon(name: str) -> str | None:
    return vf.ALIASES.get(re.sub(r"[-_.]+", "-", name).lower())


def read_facts(blob: str) -> dict[str, Fact]:
    """Each package of the stack the text shows installed -> its release (the last one shown wins: an install
    printed later replaced the earlier)."""
    pats, installed, item, replaced = _rx()
    found: list[tuple[int, Fact]] = []
    for rx in pats:
        for m in rx.finditer(blob):
            line = blob[blob.rfind("\n", 0, m.start()) + 1:blob.find("\n", m.end()) % (len(blob) + 1)]
            name, ver = _canon(m.group("name")), m.groupdict().get("ver") or m.groupdict().get("ver2")
            if name and ver and not replaced.search(line):
                found.append((m.start(), Fact(name, ver, " ".join(m.group(0).split())[:120])))
    for m in installed.finditer(blob):
        for tok in m.group(1).split():
            if (it := item.match(tok)) and (name := _canon(it.group("name"))):
                found.append((m.start(), Fact(name, it.group("ver"), f"Successfully installed {tok}")))
    out: dict[str, Fact] = {}
    for _, f in sorted(found, key=lambda x: x[0]):
        out[f.name] = f
    return out


def release(v: str) -> tuple[int, ...]:
    """The release part of a version (local `+rocm6.0` and pre/post suffixes dropped: a nightly of X counts as X)."""
    head = re.match(r"\d+(?:\.\d+)*", v)
    return tuple(int(p) for p in head.group(0).split(".")) if head else ()


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a > b) - (a < b)


def satisfies(version: str, spec: str) -> bool:
    """Whether `version` meets every clause of the PEP 440 specifier `spec` (>=, <=, >, <, ==, !=, ~=, ==X.*)."""
    have = release(version)
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        m = re.fullmatch(r"(~=|===?|!=|<=|>=|<|>)\s*v?([\d.]+)(\.\*)?[\w.+-]*", clause)
        if m is None:
            continue
        op, want, star = m.group(1), release(m.group(2)), bool(m.group(3))
        c = _cmp(have[:len(want)], want) if star else _cmp(have, want)
        ok = {"==": c == 0, "===": c == 0, "!=": c != 0, "<=": c <= 0, ">=": c >= 0, "<": c < 0, ">": c > 0,
              "~=": c >= 0 and _cmp(have[:len(want) - 1], want[:-1]) == 0}[op]
        if not ok:
            return False
    return True


def _declared(lib: str, version: str) -> tuple[tuple[str, str], ...] | None:
    """The pins of the release span of `lib` that holds `version` (None: a release the table does not know)."""
    from rocm_tune.profiles.release_pins import PINS     # generated: tools/build_release_pins.py
    spans = PINS.get(lib, ())
    have = release(version)
    for first, last, pins in spans:
        if _cmp(release(first), have) <= 0 and _cmp(have, release(last)) <= 0:
            return pins
    return None


def pin_skews(facts: dict[str, Fact]) -> list[Skew]:
    """Every pair of shown releases that a shown release's declared pins (or a flash-attn wheel's torch) rule out."""
    out: list[Skew] = []
    for lib, f in facts.items():
        if re.search(r"dev|\+g[0-9a-f]", f.version):
            continue       # a build between releases: its pins are no release's
        for dep, spec in _declared(lib, f.version) or ():
            if dep in facts and not satisfies(facts[dep].version, spec):
                out.append(Skew(lib, f.version, dep, spec, facts[dep].version, f"{f.shown}; {facts[dep].shown}"))
    return out


def wheel_skews(blob: str, facts: dict[str, Fact]) -> list[Skew]:
    """A flash-attn wheel built for another torch (or C++ ABI) than the torch the log shows."""
    out: list[Skew] = []
    torch = facts.get("torch")
    abi = re.search(vf.TORCH_ABI, blob)
    for m in re.finditer(vf.FA_WHEEL, blob):
        if torch and release(torch.version)[:2] != release(m.group("torch"))[:2]:
            out.append(Skew("flash-attn", m.group("fa"), "torch", f"{m.group('torch')}.* (the wheel's build)",
                            torch.version, f"{m.group(0)}; {torch.shown}"))
        elif abi and (abi.group("abi") == "True") != (m.group("abi") == "TRUE"):
            out.append(Skew("flash-attn", m.group("fa"), "torch's C++ ABI", f"cxx11abi{m.group('abi')}",
                            abi.group("abi"), f"{m.group(0)}; {abi.group(0)}"))
    return out


def resolver_skews(blob: str) -> list[Skew]:
    """The pairs pip itself reported incompatible after an install (or `pip check`), any package."""
    return [Skew(_dist(m.group("lib")), m.group("lv"), _dist(m.group("dep")), m.group("spec").strip(), m.group("have"),
                 " ".join(m.group(0).split())[:160])
            for m in re.finditer(vf.PIP_CONFLICT, blob, re.M)]


def _dist(name: str) -> str:
    return _canon(name) or re.sub(r"[-_.]+", "-", name).lower()


def companion_skews(facts: dict[str, Fact]) -> list[Skew]:
    """torchvision built for another torch release than the torch shown (torchvision's README table)."""
    tv, torch = facts.get("torchvision"), facts.get("torch")
    if tv is None or torch is None or len(release(torch.version)) < 2 or len(release(tv.version)) < 2:
        return []
    want = vf.torchvision_for((release(torch.version)[0], release(torch.version)[1]))
    if want is None or release(tv.version)[:2] == want:
        return []
    built_for = next((f"{t[0]}.{t[1]}" for t in ((2, m) for m in range(20)) if vf.torchvision_for(t) ==
                      release(tv.version)[:2]), None) or next((f"1.{m}" for m in range(4, 14) if
                                                               vf.torchvision_for((1, m)) == release(tv.version)[:2]), "?")
    return [Skew("torchvision", tv.version, "torch", built_for, torch.version, f"{tv.shown}; {torch.shown}")]


# the package a traceback frame is in: .../site-packages/<pkg>/...
_FRAME_PKG = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_]\w*)[/\\]")
_PACKAGE_NAMES = {"flash_attn": "flash-attn", "huggingface_hub": "huggingface-hub", "unsloth_zoo": "unsloth-zoo",
                  "swift": "ms-swift", "llmtuner": "llamafactory", "liger_kernel": "liger-kernel",
                  "flash_attn_2_cuda": "flash-attn"}


def failing_packages(text: str, pre: str) -> set[str]:
    """The packages the failure was raised in: the innermost installed package of the root's last traceback and the
    packages the error line names; never the frames further up (a runner's frame is in every traceback of its run,
    whatever failed)."""
    tb = pre[-6000:]
    tb = tb[tb.rfind("Traceback (most recent call last)"):] if "Traceback (most recent call last)" in tb else tb
    frames = [_PACKAGE_NAMES.get(x) or _dist(x) for x in _FRAME_PKG.findall(tb + "\n" + text)]
    names: set[str] = set(frames[-1:])
    names |= set(re.findall(r"\b(flash_attn|bitsandbytes|deepspeed|triton|xformers|vllm|peft|trl|transformers|torchvision|"
                            r"accelerate|unsloth_zoo|unsloth)\b", text))
    return {_PACKAGE_NAMES.get(x) or _dist(x) for x in names}


def shown_skew(text: str, pre: str, blob: str) -> Skew | None:
    """The first pin the log's releases break where one of the two packages is the one the failure was raised in."""
    facts = read_facts(blob + "\n" + pre)
    skews = resolver_skews(blob + "\n" + pre)
    if len(facts) < 2 and "flash_attn-" not in blob and not skews:
        return None
    inside = failing_packages(text, pre)
    for s in skews + wheel_skews(blob + "\n" + pre, facts) + companion_skews(facts) + pin_skews(facts):
        if inside & {s.lib, s.dep.split("'")[0]}:
            return s
    return None


def sentence(s: Skew) -> tuple[str, str]:
    """(title, fix) naming the two releases and what the release declares."""
    if s.lib == "flash-attn" and s.dep.startswith("torch"):
        return (f"the installed flash-attn {s.lib_version} wheel was built for {s.dep} {s.need} but the log shows "
                f"{s.have} ({s.shown}): its compiled kernels do not fit this torch",
                f"install the flash-attn wheel built for torch {s.have} (its name carries torch{'.'.join(s.have.split('.')[:2])} and "
                "the ABI of this torch), or build flash-attn from source against the installed torch "
                "(`pip install flash-attn --no-build-isolation`); or install the torch the wheel names")
    if s.lib == "torchvision":
        return (f"torchvision {s.lib_version} is the build for torch {s.need}.x, but torch {s.have} is installed "
                f"({s.shown}): each "
                "torchvision release is built against one torch release, so its compiled ops (nms, roi_align) do not "
                "load into this torch",
                f"install the torchvision made for torch {s.have} (torch {'.'.join(s.have.split('.')[:2])}.x pairs "
                "with the torchvision row of torchvision's README table; from the same index, e.g. `pip install "
                "torch==X torchvision==Y --index-url https://download.pytorch.org/whl/rocmX.Y`)")
    return (f"{s.lib} {s.lib_version} declares {s.dep}{s.need} but the log shows {s.dep} {s.have} ({s.shown}): the "
            "installed releases do not belong together",
            f"install {s.dep} in the range {s.lib} {s.lib_version} declares (`pip install '{s.dep}{s.need}'`), or "
            f"the {s.lib} release made for {s.dep} {s.have} (its requirements name the range); `pip check` lists "
            "what else disagrees")
