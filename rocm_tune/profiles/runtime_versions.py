"""How logs show the GPU runtime a build was made for and the one installed (e-rtver, issue 26): data, no logic.

Each pattern's first non-empty group is a ROCm release "X.Y" (or the digits of one, see `digits`). The spellings come
from the tools that print them:
- the torch build: PyTorch's ROCm wheel versions `torch-2.4.0+rocm6.0` / `torch==2.3.1+rocm6.0` (pip, `pip list`,
  `torch.__version__`), the wheel index `download.pytorch.org/whl/[nightly/]rocm6.0`, torch/utils/collect_env.py's
  `ROCM used to build PyTorch: 6.0.32830-d62f6a171`, `torch.version.hip` printed as `6.0.32830-d62f6a171`;
- the system ROCm: its install prefix `/opt/rocm-6.0.0/...` (ROCm's versioned install directory), the Windows HIP SDK
  `C:\\Program Files\\AMD\\ROCm\\6.2\\`, `hipconfig --full`'s `HIP version  : 6.0.32830-...`, amd-smi's
  `ROCm version: 6.2.1`, `cat /opt/rocm/.info/version` -> `6.4.0-47`, dpkg/apt's `rocm-libs 6.0.0.60000-91`;
- a library built for one ROCm: bitsandbytes' `libbitsandbytes_rocm63.so` (its build names the ROCm major+minor).
"""
from __future__ import annotations

# the torch build's ROCm (the wheel, its index, collect_env, torch.version.hip)
TORCH_ROCM = (
    r"(?:\btorch(?:vision|audio)?[-=\s]{1,3}|\bPyTorch(?: version)?:?\s*|^\s*)\d+\.\d+[\w.]*\+rocm(\d+\.\d+)",
    r"download\.pytorch\.org/whl/(?:nightly/|test/)?rocm(\d+\.\d+)",
    r"ROCM used to build PyTorch:\s*(\d+\.\d+)",
    r"torch\.version\.hip\W{0,20}(\d+\.\d+)\.\d{5}",
)

# the system's ROCm (install prefix, HIP SDK folder, hipconfig, amd-smi, .info/version, packages)
SYSTEM_ROCM = (
    r"/opt/rocm-(\d+\.\d+)(?:\.\d+)?/",
    r"\\AMD\\ROCm\\(\d+\.\d+)\\",
    r"^\s*HIP version\s*:\s*(\d+\.\d+)\.\d+",
    r"\b(?i:ROCm version)\s*:\s*(\d+\.\d+)",
    r"\.info/version\s*\n(?:\S+\s*)?(\d+\.\d+)\.\d+(?:-\d+)?\s*$",
    r"\brocm-(?:libs|core|hip-runtime|dev|language-runtime)\b[\s/]\S*?\s*(\d+\.\d+)\.\d+\.\d{5}",
)

# a library's build for one ROCm, as its file name says (bitsandbytes: major and minor digits, rocm63 -> 6.3)
LIBRARY_ROCM_DIGITS = (
    r"\blibbitsandbytes_rocm(\d)(\d)\b",
)

# a ROCm torch's own words (no other build prints them) and the CUDA build's (a CUDA torch, or a CPU one)
ROCM_TORCH_SAYS = r"No HIP GPUs are available|\+rocm\d+\.\d"
CUDA_TORCH_SAYS = r"Found no NVIDIA driver on your system|No CUDA GPUs are available|\+cu1\d{1,2}\b"
CPU_TORCH_SAYS = r"Torch not compiled with CUDA enabled"

# what shows the box is NVIDIA's: nvidia-smi's header and GPU names, the CUDA driver, or a host with only NVIDIA
# GPUs (Modal's image builder and runner lines, Google Colab, Kaggle)
NVIDIA_BOX = (r"NVIDIA-SMI \d+\.\d+|\bDriver Version: \d+\.\d+.{0,40}CUDA Version: \d+\.\d|"
              r"\bNVIDIA (?:GeForce|RTX|Quadro|Tesla|TITAN|[AHLBT]\d{1,3}\b|A\d0{2,3}|H\d00|GH200)|\bTesla [TVPK]\d+\b|"
              r"\blibcuda\.so\.1\b|"
              r"^Building image im-\w+|^Built image im-\w+|\bRunner terminated\.|\bgpu\s*=\s*['\"](?i:t4|l4|a10g|a100|h100|l40s)|"
              r"\bgoogle\.colab\b|/kaggle/(?:working|input)/")

# what shows the box is AMD's: its GPU names and gfx targets, its tools' output, the amdgpu driver
AMD_BOX = (r"\bAMD Radeon\b|\bRadeon (?:RX|Pro|VII|Graphics)\b|\bAMD Instinct\b|\bInstinct MI\d{2,3}|\bMI\d{3}X?\b|"
           r"\bgfx\d{3,4}[a-z]?\b|\brocminfo\b|\brocm-smi\b|\bamd-smi\b|\bamdgpu\b|/dev/kfd|\bHSA Agents\b")
