"""How logs show the GPU runtime a build was made for and the one installed (e-rtver, issue 26): data, no logic.

Each pattern names a ROCm release's major and minor (groups `maj`, `min`). The spellings come from the tools that
print them:
- the torch build: PyTorch's ROCm wheel versions `torch-2.4.0+rocm6.0` / `torch==2.3.1+rocm6.0` (pip, `pip list`,
  `torch.__version__`), the wheel index `download.pytorch.org/whl/[nightly/]rocm6.0`, torch/utils/collect_env.py's
  `ROCM used to build PyTorch: 6.0.32830-d62f6a171`, `torch.version.hip` printed as `6.0.32830-d62f6a171`;
- the system ROCm: its install prefix `/opt/rocm-6.0.0/...` (ROCm's versioned install directory), the Windows HIP SDK
  `C:\\Program Files\\AMD\\ROCm\\6.2\\`, `hipconfig --full`'s `HIP version  : 6.0.32830-...`, amd-smi's
  `ROCm version: 6.2.1` (vLLM's collect_env `ROCM Version: 6.2.41133-...`), `cat /opt/rocm/.info/version` ->
  `6.4.0-47`, the `rocm/pytorch:rocm6.2_...` image, dpkg/apt's `rocm-libs 6.0.0.60000-91` (any ROCm package; yum/dnf's `rocm-core.x86_64 6.1.2.60102-119.el8`);
- a library built for one ROCm: bitsandbytes' `libbitsandbytes_rocm63.so` (its build names the ROCm major+minor).
"""
from __future__ import annotations

_V = r"(?P<maj>\d+)\.(?P<min>\d+)"

# the torch build's ROCm (the wheel, its index, collect_env, torch.version.hip), and the other framework wheels AMD builds
# per ROCm release
TORCH_ROCM = (
    r"(?:\btorch(?:vision|audio)?(?:[-=]{1,2}|[ \t]+)|\bPyTorch(?: version)?:?\s*|^\s*)\d+\.\d+[\w.]*\+rocm" + _V,
    r"download\.pytorch\.org/whl/(?:nightly/|test/)?rocm" + _V,
    r"ROCM used to build PyTorch:\s*" + _V,
    r"torch\.version\.hip\W{0,20}" + _V + r"\.\d{5}",
    # e-ver2 (issue 26): `pip show torch` (`Name: torch` then `Version: 2.3.0+rocm5.7`) and the REPL's quoted
    # `torch.__version__` (`'2.1.2+rocm5.6'`)
    r"^Name: torch\s*\nVersion: \d+\.\d+[\w.]*\+rocm" + _V,
    r"torch\.__version__\W{0,20}\d+\.\d+[\w.]*\+rocm" + _V,
    # e-ver2: the other framework AMD builds per ROCm release — tensorflow-rocm's version ends in the ROCm release
    # (2.14.0.600 for ROCm 6.0, 2.11.1.550 for 5.5) and AMD's wheel folder names it (repo.radeon.com/rocm/manylinux/
    # rocm-rel-6.2/ for torch, torchvision, tensorflow-rocm, jax wheels)
    r"\btensorflow[-_]rocm(?:==|-|[ \t]+)\d+\.\d+\.\d+\.(?P<maj>[1-9])(?P<min>\d)\d\b",
    r"\brepo\.radeon\.com/rocm/manylinux/rocm-rel-" + _V + r"\b",
)

# the system's ROCm (install prefix, HIP SDK folder, hipconfig/hipcc, amd-smi, vLLM's collect_env, .info/version, the
# ROCm container image, and ROCm's packages, whose versions end in the release's five digits: 6.1.2.60102, 7.0.1.70001;
# never amdgpu-dkms: the kernel driver of another release is supported within ROCm's compatibility window)
SYSTEM_ROCM = (
    r"/opt/rocm-" + _V + r"(?:\.\d+)?(?:/|(?![\w.-]))",
    r"\\AMD\\ROCm\\" + _V + r"\\",
    r"^\s*HIP version\s*:\s*" + _V + r"\.\d+",
    r"\b(?i:ROCm version)\s*:\s*" + _V,
    r"\.info/version\s*\n(?:\S+\s*)?" + _V + r"\.\d+(?:-\d+)?\s*$",
    r"\brocm/[\w-]+:rocm" + _V,
    r"\b(?:rocm|hip|rocblas|miopen|rccl|hipblas|rocsolver|rocrand)[\w-]*\b(?:\.(?:x86_64|aarch64|noarch))?[\s/:=]{1,40}"
    r"(?:\S+\s+)?\d+\.\d+\.\d+\."
    r"(?P<maj>[1-9])(?P<min>\d\d)\d\d\b",
    # e-ver2 (issue 26): a ROCm library's versioned file name, whose last part is the ROCm release in five digits
    # (ROCm's CMake SOVERSION: /opt/rocm-6.4.0/lib/libamdhip64.so.6.4.60400, librocblas.so.4.4.60404,
    # libhipblaslt.so.0.12.60404: major*10000 + minor*100 + patch; not Debian's HIP build number, libamdhip64.so.5.7.31921)
    # — not the copies a Python wheel or an app bundles (torch/lib, ollama's lib/ollama)
    r"(?:^|[\s\"'=:(,])(?:(?!\S*(?:site-packages|dist-packages|ollama|[/\\]torch[/\\]lib))[^\s\"',])*?"
    r"\blib(?:amdhip64|rocblas|hipblas(?:lt)?|MIOpen|rccl|rocsolver|hipsolver|rocsparse|hipsparse(?:lt)?|rocfft|hipfft|"
    r"rocrand|hiprand|hsa-runtime64|roctracer64|roctx64|rocm_smi64|amd_comgr|hiprtc)\.so\.\d+\.\d+\."
    r"(?P<maj>[1-9])0(?P<min>\d)\d\d\b",
    # e-ver2: AMD's ROCm base images, tagged by the release (rocm/dev-ubuntu-22.04:6.2, rocm/dev-almalinux-8:6.3.1,
    # rocm/rocm-terminal:6.1), and AMD's package repository and installer (repo.radeon.com/rocm/apt/6.2,
    # amdgpu-install_6.1.60103-1_all.deb): never repo.radeon.com/rocm/manylinux (torch's wheels)
    r"\brocm/(?:dev-[\w.-]+|rocm-terminal):" + _V + r"\b",
    r"\brepo\.radeon\.com/(?:rocm/(?:apt|rhel\d*|el\d*|zyp|yum)|amdgpu-install)/" + _V + r"\b",
    r"\bamdgpu-install_" + _V + r"\.\d{5}",
)

# a library's build for one ROCm, as its file name says (bitsandbytes: major and minor digits, rocm63 -> 6.3)
LIBRARY_ROCM = (
    r"\blibbitsandbytes_rocm(?P<maj>\d)(?P<min>\d)\b",
)

# a ROCm torch's own words (no other build prints them: a HIP error, its GPU count, its wheel version), the CUDA
# build's (its CUDA init errors, a +cu wheel, collect_env's `CUDA used to build PyTorch: 12.1`) and a CPU-only build's
# (torch/cuda/__init__.py's assertion, a +cpu wheel, collect_env with neither runtime)
ROCM_TORCH_SAYS = r"No HIP GPUs are available|\+rocm\d+\.\d|\bHIP error\b|\bhipError[A-Z]\w+"
CUDA_TORCH_SAYS = (r"Found no NVIDIA driver on your system|No CUDA GPUs are available|CUDA driver initialization failed|"
                   r"\+cu1\d{1,2}\b|CUDA used to build PyTorch: 1\d\.\d")
CPU_TORCH_SAYS = (r"Torch not compiled with CUDA enabled|\btorch(?:==|-|[ \t]+)\d+\.\d+[\w.]*\+cpu\b|"
                  r"CUDA used to build PyTorch: (?:None|N/A)\s*\nROCM used to build PyTorch: N/A")
# a HIP/ROCm runtime failure as any layer prints it (torch, TensorFlow's XLA, CK/flash-attn, rocBLAS, MIOpen, HSA)
HIP_FAILURE_SAYS = (r"\bHIP error\b|\bHip error\(\d+\)|\bhipError[A-Z]\w+|\bHIP_ERROR_\w+|HIP Function Failed|\bHSA_STATUS_ERROR_\w+|"
                    r"rocBLAS error:|MIOpen(?:\(HIP\))?: Error|Memory access fault by GPU")

# the CUDA runtime's shared libraries (a binary asking for one was built for CUDA)
CUDA_RUNTIME_LIBS = frozenset({"libcudart", "libcublas", "libcublasLt", "libcusparse", "libcufft", "libcurand",
                               "libcusolver", "libnvrtc", "libcudnn", "libnvToolsExt", "libnccl", "libcuda"})

# what shows the box is NVIDIA's: nvidia-smi's header and GPU names, the CUDA driver, or a host with only NVIDIA
# GPUs (Modal's image builder and runner lines, Google Colab, Kaggle)
NVIDIA_BOX = (r"NVIDIA-SMI \d+\.\d+|\bDriver Version: \d+\.\d+.{0,40}CUDA Version: \d+\.\d|"
              r"\bNVIDIA (?:GeForce|RTX|Quadro|Tesla|TITAN|[AHLBT]\d{1,3}\b|A\d0{2,3}|H\d00|GH200)|\bTesla [TVPK]\d+\b|"
              r"\bGeForce (?:RTX|GTX) ?\d|\bQuadro [A-Z]*\d|\blibcuda\.so\.1\b|"
              r"^Building image im-\w+|^Built image im-\w+|\bRunner terminated\.|\bgpu\s*=\s*['\"](?i:t4|l4|a10g|a100|h100|l40s)|"
              r"\bgoogle\.colab\b|/kaggle/(?:working|input)/")

# what shows the box is AMD's: its GPU names and gfx targets, its tools' output, the amdgpu driver
AMD_BOX = (r"\bAMD Radeon\b|\bRadeon (?:RX|Pro|VII|Graphics)\b|\bAMD Instinct\b|\bInstinct MI\d{2,3}|\bMI\d{3}X?\b|"
           r"\bgfx\d{3,4}[a-z]?\b|\brocminfo\b|\brocm-smi\b|\bamd-smi\b|\bamdgpu\b|/dev/kfd|\bHSA Agents\b")
