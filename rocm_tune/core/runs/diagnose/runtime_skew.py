"""e-rtver (issue 26): the GPU runtime versions a log shows, and whether they disagree (FAMILIES.md "Rule 1, refined":
version_check where the log shows the installed components disagree — a torch built for one ROCm next to another
ROCm's libraries, a ROCm torch on an NVIDIA box or a CUDA/CPU torch on an AMD one, rocBLAS unable to parse the
Tensile library files that are there). A HIP failure with no such disagreement in view stays hip_error.

Pure: regexes over the log text only (the spellings are data: rocm_tune/profiles/runtime_versions.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from rocm_tune.profiles import paddle_errors as pd
from rocm_tune.profiles import runtime_versions as rv

_TORCH = [re.compile(p, re.M) for p in rv.TORCH_ROCM]
_SYSTEM = [re.compile(p, re.M) for p in rv.SYSTEM_ROCM]
_LIBRARY = [re.compile(p, re.M) for p in rv.LIBRARY_ROCM]
_HIP_FAILURE = re.compile(rv.HIP_FAILURE_SAYS)
_ROCM_TORCH = re.compile(rv.ROCM_TORCH_SAYS)
_CUDA_TORCH = re.compile(rv.CUDA_TORCH_SAYS)
_CPU_TORCH = re.compile(rv.CPU_TORCH_SAYS)
_NVIDIA = re.compile(rv.NVIDIA_BOX, re.M)
_AMD = re.compile(rv.AMD_BOX)
# rocBLAS' tensile_host.cpp: `Cannot read <file>` (then abort) when the library file is absent, `Could not load
# <file>` only when the file is there and Tensile's loader could not parse it (another rocBLAS/Tensile release's file)
_TENSILE_UNREADABLE = re.compile(r"rocBLAS error: Could not load (\S*TensileLibrary\S*)")
_TENSILE_ABSENT = re.compile(r"rocBLAS error: Cannot read \S*TensileLibrary")
# ROCr's code object loader (amd_hsa_loader.cpp): a code object whose version this runtime does not know was built by
# another (newer) ROCm's compiler
_COV_UNSUPPORTED = re.compile(r"LoaderError: unsupported code object version: \d+")
# e-new17: Hygon's DCU/DTK stack and the framework builds made for AMD's ROCm or for DTK (profiles/paddle_errors.py)
_DTK_STACK = re.compile(pd.DTK_STACK)
_ROCM_BUILD = re.compile(pd.ROCM_BUILD)
_DTK_BUILD = re.compile(pd.DTK_BUILD)
_DTK_BUILD_RELEASE = re.compile(pd.DTK_BUILD_RELEASE)
_DTK_SYSTEM_RELEASE = re.compile(pd.DTK_SYSTEM_RELEASE)


def _dtk_release_skew(blob: str) -> tuple[str, str] | None:
    """e-new17: a DTK build made for one DTK release (its +dtkYYMM) on a box with another DTK release."""
    b, sysm = _DTK_BUILD_RELEASE.search(blob), _DTK_SYSTEM_RELEASE.search(blob)
    if b is None or sysm is None:
        return None
    built = f"{b.group('maj')}.{b.group('min')}"
    have = f"{sysm.group('maj') or sysm.group('maj2')}.{sysm.group('min') or sysm.group('min2')}"
    if built == have:
        return None
    return (f"the framework wheel was built for DTK {built} ({b.group(0)}) but the box runs DTK {have} "
            f"({sysm.group(0).strip()}): two DTK releases in one process",
            f"install the wheel built for DTK {have} (Hygon's developer site lists one per DTK release), or the DTK "
            f"{built} runtime/image the wheel was made for")


@dataclass
class RocmVersions:
    """The ROCm releases (major.minor) the log shows, by whose they are, each with the text that showed it."""
    torch: dict[str, str] = field(default_factory=dict)
    system: dict[str, str] = field(default_factory=dict)
    library: dict[str, str] = field(default_factory=dict)

    def skew(self) -> tuple[str, str] | None:
        """(torch's, the other's) as "X.Y (shown as ...)" when torch's build and the system/library differ."""
        if len(self.torch) != 1:       # none, or several (an upgrade in the log): no one torch build to compare
            return None
        (tv, tsrc), = self.torch.items()
        for other in (self.library, self.system):
            for v, src in other.items():
                if v != tv:
                    return f"ROCm {tv} ({tsrc})", f"ROCm {v} ({src})"
        return None


def read_rocm_versions(blob: str) -> RocmVersions:
    out = RocmVersions()
    for rxs, into in ((_TORCH, out.torch), (_SYSTEM, out.system), (_LIBRARY, out.library)):
        for rx in rxs:
            for m in rx.finditer(blob):
                into.setdefault(f"{int(m.group('maj'))}.{int(m.group('min'))}", m.group(0).strip())
    return out


def hip_failure(text: str) -> bool:
    """The line is a HIP/ROCm runtime failure, whichever layer printed it."""
    return bool(_HIP_FAILURE.search(text))


def _vendor_skew(blob: str) -> tuple[str, str] | None:
    """A torch built for the other vendor's GPUs (or none) on the box the log shows."""
    if (m := _ROCM_TORCH.search(blob)) and (n := _NVIDIA.search(blob)) and not _AMD.search(blob):
        return (f"a ROCm (AMD) build of torch ({m.group(0)}) on an NVIDIA machine ({n.group(0).strip()}): it looks "
                "for HIP GPUs and finds none",
                "install the CUDA build of torch for this NVIDIA GPU (drop the --index-url .../whl/rocmX.Y; e.g. "
                "pip install torch --index-url https://download.pytorch.org/whl/cu121)")
    a = _AMD.search(blob)
    if a is None or _NVIDIA.search(blob) or _ROCM_TORCH.search(blob):     # a ROCm torch is there: not torch's build
        return None
    if m := _CUDA_TORCH.search(blob):
        build = "a CUDA (NVIDIA) build of torch"
    elif m := _CPU_TORCH.search(blob):
        build = "a CPU-only build of torch"
    else:
        return None
    return (f"{build} ({m.group(0)}) on an AMD GPU machine ({a.group(0)}): it has no HIP support, so it sees no GPU",
            "install PyTorch's ROCm build for the installed ROCm (pip install torch --index-url "
            "https://download.pytorch.org/whl/rocmX.Y; torch.version.hip must not be None)")


def _dtk_skew(blob: str) -> tuple[str, str] | None:
    """e-new17: a framework wheel built for AMD's ROCm on Hygon's DCU/DTK stack, or a DTK build on an AMD ROCm box:
    the log names both, and the HIP runtime the wheel was built against is not the one there."""
    dtk, amd = _DTK_STACK.search(blob), _AMD.search(blob)
    if dtk and (got := _dtk_release_skew(blob)):
        return got
    if dtk and (m := _ROCM_BUILD.search(blob)) and not _DTK_BUILD.search(blob):
        return (f"a framework build for AMD's ROCm ({m.group(0)}) on a Hygon DCU with the DTK runtime "
                f"({dtk.group(0).strip()}): its HIP calls fail against DTK's runtime",
                "install the framework's DTK build for the installed DTK release (paddlepaddle-dcu / Hygon's torch "
                "wheels with +dtkXX.YY from the SourceFind/Hygon developer site, or the DTK image), not the ROCm wheel")
    if amd and (m := _DTK_BUILD.search(blob)) and not dtk:
        return (f"a framework build for Hygon's DTK ({m.group(0)}) on an AMD GPU machine ({amd.group(0)})",
                "install the framework's ROCm build for the installed ROCm (paddlepaddle-rocm / PyTorch's rocmX.Y "
                "wheels), not the DCU/DTK wheel")
    return None


def cuda_library_on_amd(lib: str, blob: str) -> tuple[str, str] | None:
    """(title, fix) when a binary asks for a CUDA runtime library (its soname `lib`) on the AMD machine the log shows:
    the package was installed as its CUDA build."""
    if lib not in rv.CUDA_RUNTIME_LIBS or _NVIDIA.search(blob) or not (a := _AMD.search(blob)):
        return None
    return (f"a CUDA (NVIDIA) build asks for {lib} on an AMD GPU machine ({a.group(0)}): the package was installed "
            "as its CUDA wheel, not its ROCm build",
            "install the package's ROCm build (PyTorch's and its extensions' wheels from --index-url "
            "https://download.pytorch.org/whl/rocmX.Y, or the ROCm fork/wheel the project documents; build it with "
            "ROCM_HOME set), never the default CUDA wheel")


def runtime_skew(text: str, blob: str) -> tuple[str, str] | None:
    """(title, fix) when a HIP/CUDA runtime failure (its line `text`) comes with a runtime disagreement the log
    (`blob`) shows, else None."""
    if (m := _TENSILE_UNREADABLE.search(text + "\n" + blob)) and not _TENSILE_ABSENT.search(text + "\n" + blob):
        vers = read_rocm_versions(blob)
        shown = ", ".join(f"ROCm {v} ({s})" for v, s in {**vers.torch, **vers.library, **vers.system}.items())
        return (f"rocBLAS found its Tensile library file ({m.group(1)}) but could not parse it: the file belongs to "
                f"another rocBLAS release than the librocblas loaded" + (f" (the log shows {shown})" if shown else ""),
                "use one ROCm release for everything in the process: the torch wheel for the installed ROCm (or "
                "libraries built against the ROCm torch bundles); unset ROCBLAS_TENSILE_LIBPATH / LD_LIBRARY_PATH "
                "entries that point at another ROCm")
    if m := _COV_UNSUPPORTED.search(text + "\n" + blob):
        return (f"the ROCm runtime cannot load a kernel built by another ROCm's compiler ({m.group(0)})",
                "build the extension/program with the installed ROCm's compiler (or install the ROCm runtime it was "
                "built with): the compiler and the runtime must come from one ROCm release")
    if got := _vendor_skew(blob + "\n" + text):
        return got
    if got := _dtk_skew(blob + "\n" + text):
        return got
    skew = read_rocm_versions(blob + "\n" + text).skew()
    if skew is None:
        return None
    return (f"the framework wheel (torch, TensorFlow) was built for {skew[0]} but the process also uses {skew[1]}: two "
            "ROCm releases in one process",
            f"use one ROCm release: install the torch wheel for the installed ROCm (--index-url "
            f"https://download.pytorch.org/whl/rocm{skew[1].split()[1]}) or rebuild the other library against the "
            "ROCm torch bundles; keep /opt/rocm-* of another release out of LD_LIBRARY_PATH")
