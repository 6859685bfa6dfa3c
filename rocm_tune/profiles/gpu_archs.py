"""How logs show an AMD card's gfx target and the gfx targets an installed build was compiled for (e-arch, issue 26;
FAMILIES.md "Rule 1, arch clause (session 10)"): data, no logic.

The card's gfx (group `gfx`), as the tools print it:
- rocminfo's agent block `  Name:                    gfx1100`; rocm-smi --showproductname `GFX Version: gfx1100`;
  amd-smi static `TARGET_GRAPHICS_VERSION: gfx1100`;
- torch's device properties `_CudaDeviceProperties(name='...', ..., gcnArchName='gfx1100:sramecc-:xnack-', ...)`
  (also `gcnArchName: gfx1100` printed by hand);
- rocBLAS' tensile_host.cpp `... TensileLibrary.dat: No such file or directory for GPU arch : gfx1201`;
- ggml/llama.cpp's ggml_cuda_init `  Device 0: AMD Radeon RX 6600, gfx1032 (0x1032), VMM: no, Wave Size: 32`;
- ollama's amd_linux.go / amd_windows.go `msg="amdgpu is not supported (supported types:[...])" gpu_type=gfx1032`;
- CLR's hip_fatbin.cpp `No compatible code objects found for: gfx1152`, `Missing CO for these ISAs -` then
  `amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`;
- a device name the log prints (torch.cuda.get_device_name, rocminfo's Marketing Name), resolved by DEVICE_GFX.

The build's list (group `list`: the gfx names in it), as the tools print it:
- `torch.cuda.get_arch_list()` printed: `['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx1030', 'gfx1100', 'gfx942']`;
- TheRock's `rocm-sdk targets` -> `gfx1100;gfx1101;gfx1102`; TheRock's per-family wheels and indexes
  (`rocm-sdk-libraries-gfx110X-dgpu`, `.../whl/gfx110X-dgpu/`, `.../v2/gfx120X-all/`), expanded by THEROCK_FAMILIES;
- ollama's `amdgpu is not supported (supported types:[gfx1030 gfx1100 ...])`;
- rocBLAS' `List of available TensileLibrary Files :` then one quoted `TensileLibrary_lazy_gfx908.dat` per line;
- a build's target setting: PYTORCH_ROCM_ARCH, AMDGPU_TARGETS, GPU_TARGETS, CMAKE_HIP_ARCHITECTURES, GPU_ARCHS;
- roc-obj-ls's listing of a library's code objects (`1  hipv4-amdgcn-amd-amdhsa--gfx1030  file://...`).
"""
from __future__ import annotations

_G = r"gfx[0-9]{2,4}[a-f]?(?::[\w+-]+)*"

CARD_GFX = (
    r"^\s*Name:\s+(?P<gfx>gfx[0-9]{2,4}[a-f]?)\s*$",
    r"\bGFX Version:\s*(?P<gfx>" + _G + r")",
    r"\bTARGET_GRAPHICS_VERSION:\s*(?P<gfx>" + _G + r")",
    r"\bgcnArchName\W{1,4}(?P<gfx>" + _G + r")",
    r"\bfor GPU arch ?: ?(?P<gfx>" + _G + r")",
    r"^\s*Device \d+: [^\n,]*, (?P<gfx>" + _G + r") \(0x[0-9a-f]+\)",
    r"\bgpu_type=(?P<gfx>" + _G + r")",
    r"No compatible code objects found for: (?P<gfx>" + _G + r")",
    r"Missing CO for these ISAs -\s*\n[^\n]*amdgcn-amd-amdhsa--(?P<gfx>" + _G + r")",
    # TensorFlow's gpu_device.cc (ROCm build): `Ignoring visible gpu device (device: 0, ...) with AMDGPU version :
    # gfx1031. The supported AMDGPU versions are gfx1030, gfx900, ...` - the card and the build's list in one line
    r"\bwith AMDGPU version : (?P<gfx>" + _G + r")",
    # e-hipfa: ROCm/clr hip_code_object.cpp (AMD_LOG_LEVEL>=1) after `hipErrorNoBinaryForGpu: Unable to find code
    # object for all current devices!`: `  Devices:` then one `amdgcn-amd-amdhsa--gfx1100 - [Not Found]` per card
    # (a log prefix `:1:hip_code_object.cpp :NNN : ... :` may stand before each line)
    r"^[^\n]*?\bamdgcn-amd-amdhsa--(?P<gfx>" + _G + r")(?::[\w+-]+)* - \[Not Found\]",
)

# the build's list: group `list` holds the gfx names
BUILD_LIST = (
    r"\[(?P<list>\s*'gfx[0-9]{2,4}[a-f]?(?::[\w+-]+)*'(?:\s*,\s*'(?:gfx|sm_)[\w:+-]+')*)\s*\]",
    r"\brocm-sdk targets\s*\n\s*(?P<list>gfx[\w;:+-]+)",
    r"\bsupported types:\s*\[(?P<list>[^\]\n]*)\]",
    r"List of available TensileLibrary Files :[ \t]*(?P<list>(?:\n[ \t]*\"[^\"\n]*TensileLibrary\w*?_gfx\w+\.\w+\"[ \t]*)+)",
    r"\b(?:PYTORCH_ROCM_ARCH|AMDGPU_TARGETS|GPU_TARGETS|CMAKE_HIP_ARCHITECTURES|GPU_ARCHS)\s*[=:]\s*[\"']?"
    r"(?P<list>gfx[\w:+-]+(?:[;, ]gfx[\w:+-]+)*)",
    r"(?P<list>(?:^[ \t]*\d+[ \t]+hipv4-amdgcn-amd-amdhsa--gfx[\w:+-]+[^\n]*\n?)+)",
    r"\bThe supported AMDGPU versions are (?P<list>gfx[\w:+-]+(?:,\s*gfx[\w:+-]+)*)",
    # e-hipfa: ROCm/clr's same listing, `  Bundled Code Objects:` then one line per code object of the binary:
    # `hipv4-amdgcn-amd-amdhsa--gfx1030 - [code object targetID is amdgcn-amd-amdhsa--gfx1030]` (the host entry
    # `host-x86_64-unknown-linux-- - [Unsupported]` has no gfx)
    r"(?P<list>(?:^[^\n]*?\bhip(?:v4)?-amdgcn-amd-amdhsa--gfx[\w:+-]+ - \[code object[^\n]*\n?)+)",
)

# TheRock's wheel families (pip index folder / wheel name): cmake/therock_amdgpu_targets.cmake's FAMILY lists
THEROCK_FAMILY = r"(?:rocm[-_]sdk[-_]libraries[-_]|/whl/|/v2/|/v2-staging/)(?P<fam>gfx\d+X?[-_](?:all|dgpu|igpu|dcgpu)|gfx\d{3,4}[a-f]?)\b"
THEROCK_FAMILIES = {
    "gfx90x-all": ("gfx906", "gfx908", "gfx90a"), "gfx90x-dgpu": ("gfx906",), "gfx90x-dcgpu": ("gfx906", "gfx908", "gfx90a"),
    "gfx94x-all": ("gfx942",), "gfx94x-dcgpu": ("gfx942",), "gfx950-all": ("gfx950",), "gfx950-dcgpu": ("gfx950",),
    "gfx101x-all": ("gfx1010", "gfx1011", "gfx1012"), "gfx101x-dgpu": ("gfx1010", "gfx1011", "gfx1012"),
    "gfx103x-all": ("gfx1030", "gfx1032", "gfx1035", "gfx1036"), "gfx103x-dgpu": ("gfx1030", "gfx1032"),
    "gfx103x-igpu": ("gfx1035", "gfx1036"),
    "gfx110x-all": ("gfx1100", "gfx1101", "gfx1102", "gfx1103"), "gfx110x-dgpu": ("gfx1100", "gfx1101", "gfx1102"),
    "gfx110x-igpu": ("gfx1103",),
    "gfx115x-all": ("gfx1150", "gfx1151", "gfx1152", "gfx1153"), "gfx115x-igpu": ("gfx1150", "gfx1151", "gfx1152", "gfx1153"),
    "gfx120x-all": ("gfx1200", "gfx1201"),
}

# LLVM's generic targets (AMDGPUUsage: "Generic processors"): a code object for one runs on each of these
GENERIC_TARGETS = {
    "gfx9-generic": ("gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"),
    "gfx9-4-generic": ("gfx940", "gfx941", "gfx942", "gfx950"),
    "gfx10-1-generic": ("gfx1010", "gfx1011", "gfx1012", "gfx1013"),
    "gfx10-3-generic": ("gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"),
    "gfx11-generic": ("gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"),
    "gfx12-generic": ("gfx1200", "gfx1201"),
}

# a device name as torch/rocminfo print it -> its gfx (TheRock's product names, AMD's GPU specification tables)
DEVICE_GFX = (
    (r"\bRadeon (?:RX )?5700(?: XT)?\b|\bRadeon RX 5600\b", "gfx1010"),
    (r"\bRadeon (?:RX )?5500(?: XT)?\b|\bRadeon RX 5300\b", "gfx1012"),
    (r"\bRadeon (?:RX )?6(?:800|900|950)(?: XT)?\b|\bRadeon PRO W6800\b", "gfx1030"),
    (r"\bRadeon (?:RX )?6700(?: XT)?\b|\bRadeon RX 6750\b", "gfx1031"),
    (r"\bRadeon (?:RX )?66[05]0(?: XT)?\b|\bRadeon PRO W6600\b", "gfx1032"),
    (r"\bRadeon (?:RX )?6[45]00(?: XT)?\b", "gfx1034"),
    (r"\bRadeon (?:RX )?79[05]0 (?:XTX|XT|GRE)\b|\bRadeon PRO W7900\b|\bRadeon PRO W7800\b", "gfx1100"),
    (r"\bRadeon (?:RX )?7[78]00 XT\b|\bRadeon PRO W7700\b", "gfx1101"),
    (r"\bRadeon (?:RX )?7600(?: XT)?\b|\bRadeon RX 7700S\b", "gfx1102"),
    (r"\bRadeon 7[46]0M\b", "gfx1103"),
    (r"\bRadeon 8[89]0M\b", "gfx1150"),
    (r"\bRadeon 80[46]0S\b", "gfx1151"),
    (r"\bRadeon (?:RX )?9070(?: XT| GRE)?\b|\bRadeon AI PRO R9700\b", "gfx1201"),
    (r"\bRadeon (?:RX )?9060(?: XT)?\b", "gfx1200"),
    (r"\bRadeon VII\b|\bInstinct MI50\b|\bInstinct MI60\b", "gfx906"),
    (r"\bInstinct MI100\b", "gfx908"),
    (r"\bInstinct MI2[15]0X?\b", "gfx90a"),
    (r"\bInstinct MI300[AX]?\b|\bInstinct MI325X\b", "gfx942"),
    (r"\bInstinct MI35[05]X\b", "gfx950"),
)

# `roc-obj-ls <lib> | grep gfxNNNN` with nothing printed after it (the next line a prompt, or the log's end): the
# library has no code object for that gfx
GREP_ABSENT = r"roc-obj-ls\s+\S+[^\n|]*\|\s*grep\s+(?:-\w+\s+)*['\"]?(?P<gfx>gfx[0-9]{2,4}[a-f]?)['\"]?\s*\n(?:\s*[$#>]\s*(?:\n|$)|\s*$)"

# ISA-compatible override targets (HSA_OVERRIDE_GFX_VERSION value -> the gfx it makes the card report), by the card's
# gfx family: the consumer RDNA parts users run as the family's supported one
OVERRIDE_FOR = (
    (r"gfx101[1-3]", "10.1.0", "gfx1010"),
    (r"gfx103[1-6]", "10.3.0", "gfx1030"),
    (r"gfx110[1-3]", "11.0.0", "gfx1100"),
    (r"gfx115[0-3]", "11.0.0", "gfx1100"),
    (r"gfx1200", "12.0.1", "gfx1201"),
)

# NVIDIA (FAMILIES.md "Rule 1, arch clause": hip_error's NVIDIA twin is cuda_error). torch/cuda/__init__.py
# _check_capability warns at the first CUDA call when no architecture of the wheel's arch list covers the card
# (same major, minor <= the card's): the warning prints BOTH the card's sm and the wheel's list, e.g.
#   NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
#   The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
# and, for a card below the wheel's oldest architecture (torch >= 1.x, `PyTorch no longer supports this GPU`):
#   Found GPU0 Tesla K40m which is of cuda capability 3.5.
#   PyTorch no longer supports this GPU because it is too old.
#   The minimum cuda capability supported by this library is 3.7.
SM_CARD = r"(?P<name>[^\n]*?) with CUDA capability (?P<sm>sm_\d+) is not compatible with the current PyTorch installation"
SM_LIST = r"The current PyTorch install supports CUDA capabilities (?P<list>(?:(?:sm|compute)_\d+[a-z]?[ .]*)+)"
# TensorFlow's gpu_device.cc (CUDA build): `Ignoring visible gpu device (...) with Cuda compute capability 3.0. The
# minimum required Cuda capability is 3.5.`
SM_TF_IGNORED = (r"Ignoring visible gpu device \((?P<name>[^\n]*?)\) with Cuda compute capability (?P<cc>\d+\.\d+)\. "
                 r"The minimum required Cuda capability is (?P<min>\d+\.\d+)")
SM_TOO_OLD = (r"Found GPU\d+ (?P<name>[^\n]*?) which is of cuda capability (?P<cc>\d+\.\d+)\.?\s*PyTorch no longer "
              r"supports this GPU because it is too old\.?\s*The minimum cuda capability (?:that we )?support(?:ed)? "
              r"(?:by this library )?is (?P<min>\d+\.\d+)")
