"""`explain`: a runtime/wheel mismatch the log shows is version_check, not hip_error (helper e-rtver, issue 26;
benchmarks/corpus/FAMILIES.md "Rule 1, refined"). A HIP failure next to two ROCm releases (torch's build and the
system's or a library's), a torch for the other vendor's GPUs (a ROCm torch on an NVIDIA box, a CUDA/CPU torch on an
AMD one), rocBLAS finding its Tensile file but unable to parse it -> version_check naming both sides. The same
failures with one ROCm release in view stay hip_error.

The version lines are written in the formats the tools print them (pip / torch.__version__ `2.3.1+rocm5.7`,
torch/utils/collect_env.py `ROCM used to build PyTorch:`, `hipconfig --full` `HIP version  :`, amd-smi `ROCm
version:`, /opt/rocm/.info/version, dpkg `rocm-libs 6.0.0.60000-91`, nvidia-smi's header, rocBLAS tensile_host.cpp's
`Cannot read` / `Could not load`); none of these logs is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.core.runs.diagnose.runtime_skew import read_rocm_versions, runtime_skew

NOISE = ("Loading checkpoint shards: 100%|##########| 2/2 [00:03<00:00,  1.52s/it]\n"
         "[INFO|trainer.py:2128] 2025-03-02 09:14:11,042 >> ***** Running training *****\n"
         "  0%|          | 0/500 [00:00<?, ?it/s]\n")
TB = ("Traceback (most recent call last):\n  File \"/home/ana/proj/train.py\", line 77, in <module>\n"
      "    out = model(**batch)\n")
HIP_TAIL = ("HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
            "be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
            "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n")
FAULT = ("Memory access fault by GPU node-1 (Agent handle: 0x5581d4c2a0e0) on address 0x7f2e1c600000. Reason: Page "
         "not present or supervisor privilege.\nAborted (core dumped)\n")
HIPCONFIG_61 = ("$ hipconfig --full\nHIP version  : 6.1.40091-a8dbc0c19\n\n== hipconfig\nHIP_PATH     : /opt/rocm\n"
                "ROCM_PATH    : /opt/rocm\nHIP_COMPILER : clang\nHIP_PLATFORM : amd\n")
NVIDIA_SMI = ("$ nvidia-smi\n"
              "+---------------------------------------------------------------------------------------+\n"
              "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
              "|   0  NVIDIA A10G                    On  | 00000000:00:1E.0 Off |                    0 |\n")


def _root(tmp_path, text):
    log = tmp_path / "run.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is not None
    return exp.diagnoses[exp.root]


# (expected family, words the answer must hold, log)
SKEWED = {
    "torch-rocm57-on-hip61-invalid-device-function": (
        ["5.7", "6.1"],
        "$ python -c 'import torch; print(torch.__version__)'\n2.3.1+rocm5.7\n" + HIPCONFIG_61 +
        "$ python train.py\n" + NOISE + TB + "RuntimeError: HIP error: invalid device function\n" + HIP_TAIL),
    "collect-env-rocm60-torch-on-opt-rocm62-memory-fault": (
        ["6.0", "6.2"],
        "PyTorch version: 2.3.0+rocm6.0\nIs debug build: False\nCUDA used to build PyTorch: N/A\n"
        "ROCM used to build PyTorch: 6.0.32830-d62f6a171\n\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
        "GPU models and configuration: AMD Instinct MI210 (gfx90a:sramecc+:xnack-)\n"
        "export LD_LIBRARY_PATH=/opt/rocm-6.2.0/lib:$LD_LIBRARY_PATH\n" + NOISE + FAULT),
    "bitsandbytes-rocm62-lib-with-torch-rocm61": (
        ["6.1", "6.2"],
        "torch 2.4.1+rocm6.1\nbitsandbytes 0.44.0.dev0\n" + NOISE +
        "DEBUG: Loading bitsandbytes native library from: /home/ana/venv/lib/python3.10/site-packages/bitsandbytes/"
        "libbitsandbytes_rocm62.so\n" + TB +
        "RuntimeError: HIP error: hipErrorInvalidDeviceFunction (invalid device function)\n"),
    "rocblas-finds-tensile-file-cannot-parse": (
        ["TensileLibrary_lazy_gfx90a.dat", "6.1"],
        NOISE + "\nrocBLAS error: Could not load /opt/rocm-6.1.2/lib/rocblas/library/TensileLibrary_lazy_gfx90a.dat\n"
        "\nrocBLAS error: Could not initialize Tensile library\nAborted (core dumped)\n"),
    "rocm-torch-on-nvidia-box": (
        ["NVIDIA", "CUDA build"],
        NVIDIA_SMI + "$ pip list | grep torch\ntorch                    2.5.1+rocm6.2\n" + TB +
        "  File \"/usr/local/lib/python3.11/site-packages/torch/cuda/__init__.py\", line 319, in _lazy_init\n"
        "    torch._C._cuda_init()\nRuntimeError: No HIP GPUs are available\n"),
    "cuda-torch-on-instinct-box": (
        ["CUDA", "ROCm build"],
        "$ rocm-smi --showproductname\nGPU[0]\t\t: Card Series: \t\tAMD Instinct MI250X\n"
        "$ python -c 'import torch; print(torch.__version__); torch.zeros(1).cuda()'\n2.4.0+cu121\n" + TB +
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
        "a driver from http://www.nvidia.com/Download/index.aspx\n"),
    "cpu-torch-on-radeon-windows": (
        ["CPU-only", "ROCm build"],
        "Device name: AMD Radeon RX 7900 XTX\n" + TB +
        "  File \"C:\\Users\\ana\\venv\\lib\\site-packages\\torch\\cuda\\__init__.py\", line 310, in _lazy_init\n"
        "    raise AssertionError(\"Torch not compiled with CUDA enabled\")\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"),
    "ck-flash-attn-built-on-rocm64-with-torch-rocm60": (
        ["6.0", "6.4"],
        "$ pip list | grep -E 'torch|flash'\ntorch                 2.5.1+rocm6.0\nflash_attn            2.7.4.post1\n"
        "$ ls -d /opt/rocm-*\n/opt/rocm-6.4.1/\n" + TB +
        "  File \"/home/ana/venv/lib/python3.12/site-packages/flash_attn/flash_attn_interface.py\", line 91, in "
        "_flash_attn_forward\n    out, softmax_lse, S_dmask, rng_state = flash_attn_gpu.fwd(\n"
        "RuntimeError: HIP Function Failed (/src/flash-attention/csrc/composable_kernel/include/ck_tile/host/"
        "kernel_launch_hip.hpp,77) shared object initialization failed\n"),
    "vllm-cuda-wheel-on-radeon-libcudart": (
        ["libcudart", "ROCm build"],
        "$ rocminfo | grep gfx\n  Name:                    gfx1100\n" + TB +
        "  File \"/home/ana/venv/lib/python3.10/site-packages/vllm/__init__.py\", line 3, in <module>\n"
        "    from vllm._C import ops\n"
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n"),
    "collect-env-cuda-torch-on-radeon": (
        ["CUDA used to build PyTorch: 12.1", "ROCm build"],
        "Is debug build: False\nCUDA used to build PyTorch: 12.1\n"
        "ROCM used to build PyTorch: N/A\n\nGPU models and configuration: Could not collect\n"
        "$ lspci | grep VGA\n03:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 "
        "[Radeon RX 7900 XT/7900 XTX] (rev c8)\n" + TB +
        "RuntimeError: No CUDA GPUs are available\n"),
    "code-object-from-newer-compiler": (
        ["unsupported code object version: 6", "compiler"],
        "$ ./bench\nLoaderError: unsupported code object version: 6\n"
        "hipModuleLoad(&module, \"kernels.hsaco\") failed: hipErrorInvalidImage\n"),
}

# the same failures with one ROCm release (or one vendor) in view: hip_error
SAME = {
    "torch-rocm61-on-hip61-invalid-device-function":
        "$ python -c 'import torch; print(torch.__version__)'\n2.3.1+rocm6.1\n" + HIPCONFIG_61 +
        "$ python train.py\n" + NOISE + TB + "RuntimeError: HIP error: invalid device function\n" + HIP_TAIL,
    "memory-fault-rocm62-both-sides":
        "ROCM used to build PyTorch: 6.2.41133-dd7f95766\nAMDSMI Tool: 24.6.3+9578815 | AMDSMI Library version: "
        "24.6.2.0 | ROCm version: 6.2.1\n" + NOISE + FAULT,
    # e-arch: with no file listed (FAMILIES.md "Rule 1, arch clause": a listing naming gfx1030 only, the card's
    # gfx1031 absent, is version_check, tests/test_explain_e_arch.py)
    "rocblas-tensile-file-absent-for-gfx1031":
        "torch 2.2.2+rocm6.0\n" + NOISE + "\nrocBLAS error: Cannot read /opt/rocm-6.0.2/lib/rocblas/library/"
        "TensileLibrary.dat: No such file or directory for GPU arch : gfx1031\n List of available TensileLibrary "
        "Files : \nAborted (core dumped)\n",
    "no-hip-gpus-on-amd-box-container-without-kfd":
        "$ rocminfo\nROCk module is loaded\nUnable to open /dev/kfd read-write: No such file or directory\n"
        "$ python -c 'import torch; torch.zeros(1).cuda()'\n" + TB + "RuntimeError: No HIP GPUs are available\n",
    "torch-upgraded-in-log-memory-fault":
        "Found existing installation: torch 2.2.0+rocm5.7\nUninstalling torch-2.2.0+rocm5.7:\n"
        "Successfully installed torch-2.3.0+rocm6.0\n$ cat /opt/rocm/.info/version\n6.0.2-115\n" + NOISE + FAULT,
}


def test_hip_out_of_memory_with_two_releases_stays_gpu_oom(tmp_path):
    # FAMILIES.md: any failed device allocation is gpu_oom, whatever else the log shows
    r = _root(tmp_path, "torch 2.3.1+rocm5.7\n" + HIPCONFIG_61 + NOISE + TB +
              "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
              "23.98 GiB of which 1.05 GiB is free. Of the allocated memory 21.60 GiB is allocated by PyTorch\n")
    assert r.family == "gpu_oom", (r.code, r.title)


@pytest.mark.parametrize("name", sorted(SKEWED))
def test_runtime_disagreement_is_version_check(tmp_path, name):
    words, text = SKEWED[name]
    r = _root(tmp_path, text)
    assert r.family == "version_check", (name, r.code, r.title)
    answer = r.title + " " + r.fix
    for w in words:
        assert w in answer, (name, w, answer)


@pytest.mark.parametrize("name", sorted(SAME))
def test_one_release_in_view_stays_hip_error(tmp_path, name):
    r = _root(tmp_path, SAME[name])
    assert r.family == "hip_error", (name, r.code, r.title)


def test_libcudart_missing_on_nvidia_box_is_not_a_vendor_mismatch(tmp_path):
    r = _root(tmp_path, NVIDIA_SMI + TB + "ImportError: libcudart.so.12: cannot open shared object file: No such file "
              "or directory\n")
    assert r.family != "version_check", (r.code, r.title)


def test_cause_is_the_disagreement_not_the_gfx(tmp_path):
    r = _root(tmp_path, SKEWED["torch-rocm57-on-hip61-invalid-device-function"][1])
    assert "do not belong together" in r.cause and "gfx" not in r.cause


def test_fix_names_the_wheel_index_of_the_installed_rocm(tmp_path):
    r = _root(tmp_path, SKEWED["torch-rocm57-on-hip61-invalid-device-function"][1])
    assert "whl/rocm6.1" in r.fix


@pytest.mark.parametrize("text,role,version", [
    ("torch==2.4.0+rocm6.1", "torch", "6.1"),
    ("Looking in indexes: https://download.pytorch.org/whl/nightly/rocm6.3", "torch", "6.3"),
    (">>> torch.version.hip\n'6.2.41133-dd7f95766'", "torch", "6.2"),
    ("AMDSMI Tool: 24.7.1+3d6f9c1 | AMDSMI Library version: 24.7.1.0 | ROCm version: 6.3.1", "system", "6.3"),
    ("ROCM Version: 6.2.41133-dd7f95766", "system", "6.2"),
    ("$ cat /opt/rocm/.info/version\n6.4.1-83\n", "system", "6.4"),
    ("ii  rocm-libs   6.0.0.60000-91~22.04   amd64   Radeon Open Compute (ROCm) Runtime software stack", "system",
     "6.0"),
    ("C:\\Program Files\\AMD\\ROCm\\5.7\\bin\\amdhip64.dll", "system", "5.7"),
    ("/opt/rocm-5.6.1/lib/libamdhip64.so.5", "system", "5.6"),
    ("libbitsandbytes_rocm64.so", "library", "6.4"),
    ("hip-runtime-amd/jammy,now 6.1.40091.60102-119~22.04 amd64 [installed]", "system", "6.1"),
    ("$ docker run -it --device=/dev/kfd rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_release_2.3.0", "system",
     "6.2"),
])
def test_reader_spellings(text, role, version):
    got = read_rocm_versions(text)
    assert version in getattr(got, role), (text, got)


def test_reader_needs_one_torch_build_to_compare():
    both = read_rocm_versions("torch-2.2.0+rocm5.7\ntorch-2.3.0+rocm6.0\n/opt/rocm-6.0.2/lib/")
    assert both.skew() is None
    assert read_rocm_versions("torch-2.3.0+rocm6.0\n/opt/rocm-6.0.2/lib/").skew() is None
    assert read_rocm_versions("torch-2.3.0+rocm6.0\n/opt/rocm-6.1.0/lib/").skew() is not None


def test_hipblaslt_could_not_load_is_not_rocblas_skew():
    # hipBLASLt prints `Cannot read` then `Could not load` for a GPU it has no kernels for (rocBLAS falls back)
    assert runtime_skew("rocblaslt error: Could not load /opt/rocm/lib/hipblaslt/library/"
                        "TensileLibrary_lazy_gfx1151.dat", "") is None
