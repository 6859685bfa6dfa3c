"""`explain` follows FAMILIES.md "Rule 1, arch clause (session 10)" (helper e-arch, issue 26): a kernel-less HIP
failure is version_check when the log shows BOTH the card's gfx and the list of gfx targets the installed build was
compiled for, and the card's gfx is not in it; with no list shown, or the card in the list, it stays hip_error.
NVIDIA's twin (session 12): torch's sm_ warning prints the card's sm and the wheel's list together -> version_check
(tests/test_explain_nvidia_arch.py).

The logs are written from the tools' sources (not from corpus cases): rocminfo's agent block, torch's
_CudaDeviceProperties repr and get_arch_list(), rocBLAS tensile_host.cpp's "Cannot read ... for GPU arch" and its
"List of available TensileLibrary Files", ollama's amd_linux.go "amdgpu is not supported (supported types:...)",
ggml_cuda_init's device line, TheRock's `rocm-sdk targets` and wheel indexes, roc-obj-ls' listing.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import arch_skew
from rocm_tune.core.runs.diagnose.diagnose import diagnose

TB = "Traceback (most recent call last):\n  File \"/home/u/train.py\", line 40, in <module>\n    y = model(x)\n"
HIP_IDF = ("RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported at "
           "some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing "
           "AMD_SERIALIZE_KERNEL=3\nCompile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n")
ROCMINFO = ("*******\nAgent 2\n*******\n  Name:                    gfx1032\n  Uuid:                    GPU-XX\n"
            "  Marketing Name:          AMD Radeon RX 6600\n  Vendor Name:             AMD\n")
PROPS = ("_CudaDeviceProperties(name='AMD Radeon RX 7600', major=11, minor=0, gcnArchName='gfx1102', "
         "total_memory=8176MB, multi_processor_count=16, uuid=58580000-0000-0000-0000-000000000000, L2_cache_size=2MB)\n")
ARCHES = "['gfx900', 'gfx906', 'gfx908', 'gfx90a', 'gfx942', 'gfx1030', 'gfx1100']\n"
TENSILE = ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory "
           "for GPU arch : gfx1036\n List of available TensileLibrary Files : \n"
           "\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\"\n"
           "\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat\"\n"
           "\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx90a.dat\"\n"
           "Aborted (core dumped)\n")


def _explain(tmp_path, text):
    log = tmp_path / "run.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp.diagnoses[exp.root] if exp.root is not None else None


# (family, log, what must be named) -- each log shows the card's gfx and a build list without it
SKEWED = {
    "rocminfo+get_arch_list": (ROCMINFO + "$ python -c 'import torch; print(torch.cuda.get_arch_list())'\n" + ARCHES
                               + TB + HIP_IDF, ("gfx1032", "gfx1030", "HSA_OVERRIDE_GFX_VERSION=10.3.0")),
    "props+get_arch_list": (PROPS + ARCHES + TB + HIP_IDF, ("gfx1102", "gfx1100", "HSA_OVERRIDE_GFX_VERSION=11.0.0")),
    "tensile-list": (TENSILE, ("gfx1036", "gfx1030", "HSA_OVERRIDE_GFX_VERSION=10.3.0")),
    "therock-targets": ("$ rocm-sdk targets\ngfx1150;gfx1151\n" + ROCMINFO.replace("gfx1032", "gfx1103") + TB + HIP_IDF,
                        ("gfx1103", "gfx1150, gfx1151")),
    "therock-index": ("$ pip install --index-url https://rocm.nightlies.amd.com/v2/gfx110X-dgpu/ torch\n"
                      "Successfully installed torch-2.7.1+rocm7.0.0rc20250801\n" +
                      PROPS.replace("gfx1102", "gfx1103").replace("RX 7600", "780M Graphics") + TB + HIP_IDF,
                      ("gfx1103", "gfx1100, gfx1101, gfx1102", "HSA_OVERRIDE_GFX_VERSION=11.0.0")),
    "pytorch-rocm-arch-build": ("-- PYTORCH_ROCM_ARCH=gfx90a;gfx942\n" + ROCMINFO.replace("gfx1032", "gfx1100") + TB
                                + HIP_IDF, ("gfx1100", "gfx90a, gfx942")),
}


@pytest.mark.parametrize("name", sorted(SKEWED))
def test_card_not_in_build_list_is_version_check(tmp_path, name):
    text, named = SKEWED[name]
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "version_check", (name, r and (r.family, r.code, r.title))
    said = r.title + " " + r.fix
    for n in named:
        assert n in said, (name, n, said)
    assert r.numbers["arch"] == named[0]


def test_override_only_when_a_listed_target_is_the_same_isa(tmp_path):
    # gfx1032 (RDNA2) with a build for CDNA only: no RDNA2 sibling listed, so no override is offered
    r = _explain(tmp_path, ROCMINFO + "['gfx90a', 'gfx942']\n" + TB + HIP_IDF)
    assert r is not None and r.family == "version_check"
    assert "HSA_OVERRIDE_GFX_VERSION" not in r.fix and "PYTORCH_ROCM_ARCH=gfx1032" in r.fix


# look-alikes: the card in the list, no list shown, NVIDIA's warning -> today's family
def test_card_in_the_list_stays_hip_error(tmp_path):
    r = _explain(tmp_path, ROCMINFO.replace("gfx1032", "gfx1030") + ARCHES + TB + HIP_IDF)
    assert r is not None and r.family == "hip_error"


def test_generic_target_covers_the_card(tmp_path):
    r = _explain(tmp_path, ROCMINFO + "['gfx90a', 'gfx10-3-generic']\n" + TB + HIP_IDF)
    assert r is not None and r.family == "hip_error"


def test_no_list_stays_hip_error(tmp_path):
    r = _explain(tmp_path, ROCMINFO + TB + HIP_IDF)
    assert r is not None and r.family == "hip_error" and r.numbers.get("arch") == "gfx1032"


def test_empty_tensile_listing_stays_hip_error(tmp_path):
    text = TENSILE.split(" List of")[0] + "\n List of available TensileLibrary Files : \nAborted (core dumped)\n"
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "hip_error"


def test_override_to_a_listed_target_stays_hip_error(tmp_path):
    # the override makes the card report gfx1030, which the build has: the kernel-less failure is not the list's
    r = _explain(tmp_path, "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n" + ROCMINFO + ARCHES + TB + HIP_IDF)
    assert r is not None and r.family == "hip_error"


def test_list_without_card_stays_hip_error(tmp_path):
    # the build's targets shown, but no line shows the card's gfx: only one of the two facts
    r = _explain(tmp_path, "$ rocm-sdk targets\ngfx1100;gfx1101;gfx1102\n" + TB + HIP_IDF)
    assert r is not None and r.family == "hip_error"


def test_ollama_unsupported_card_names_both(tmp_path):
    line = ('time=2025-01-05T10:00:00.000Z level=WARN source=amd_linux.go:378 msg="amdgpu is not supported '
            '(supported types:[gfx1030 gfx1100 gfx1101 gfx1102 gfx900 gfx906 gfx908 gfx90a gfx940 gfx941 gfx942])" '
            'gpu_type=gfx1032 gpu=0 library=/usr/lib/ollama\n')
    s = arch_skew.read_arch_skew(line, "")
    assert s is not None and s.card == "gfx1032" and "gfx1030" in s.build
    assert arch_skew.read_arch_skew(line.replace("gpu_type=gfx1032", "gpu_type=gfx1030"), "") is None


def test_rocm_obj_listing_and_ggml_device_line():
    text = ("ggml_cuda_init: found 1 ROCm devices:\n  Device 0: AMD Radeon Graphics, gfx1152 (0x1152), VMM: no, "
            "Wave Size: 32\n$ roc-obj-ls /usr/lib/libggml-hip.so\n"
            "1       hipv4-amdgcn-amd-amdhsa--gfx1100          file:///usr/lib/libggml-hip.so#offset=8192&size=1\n"
            "1       hipv4-amdgcn-amd-amdhsa--gfx1151          file:///usr/lib/libggml-hip.so#offset=9000&size=1\n"
            ":1:hip_fatbin.cpp           :687 : 1 us:  No compatible code objects found for: gfx1152\n")
    s = arch_skew.read_arch_skew("ROCm error: invalid device function", text)
    assert s is not None and s.card == "gfx1152" and s.build == ("gfx1100", "gfx1151")


def test_nvidia_sm_warning_is_the_clause_twin(tmp_path):
    text = ("UserWarning: \nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
            "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 "
            "sm_80 sm_86 sm_90.\nIf you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the "
            "instructions at https://pytorch.org/get-started/locally/\n" + TB +
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "version_check" and "sm_120" in r.title and "sm_90" in r.title


def test_therock_family_wheel_that_covers_the_card_stays_hip_error(tmp_path):
    # TheRock's gfx110X-all family includes the 780M's gfx1103 (therock_amdgpu_targets.cmake): the card is listed
    text = ("Successfully installed rocm-7.0.0 rocm-sdk-core-7.0.0 rocm-sdk-libraries-gfx110X-all-7.0.0\n"
            "amd-smi static\n    TARGET_GRAPHICS_VERSION: gfx1103\n" + TB + HIP_IDF)
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "hip_error"
    r = _explain(tmp_path, text.replace("gfx110X-all", "gfx110X-dgpu"))
    assert r is not None and r.family == "version_check" and "gfx1103" in r.title


def test_device_name_and_an_empty_roc_obj_ls_grep(tmp_path):
    text = ("$ python -c \"import torch; print(torch.cuda.get_device_name(0))\"\nAMD Radeon RX 6750 XT\n"
            "$ roc-obj-ls /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_hip.so | grep gfx1031\n$\n"
            "$ python app.py\n" + TB + HIP_IDF)
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "version_check" and "gfx1031" in r.title
    # the grep found the card's code object: the build has it
    found = text.replace("grep gfx1031\n$\n", "grep gfx1031\n1  hipv4-amdgcn-amd-amdhsa--gfx1031  file:///x.so#offset=1\n")
    r = _explain(tmp_path, found)
    assert r is not None and r.family == "hip_error"


def test_rocm_smi_card_and_a_memory_fault_stays_hip_error(tmp_path):
    # the two facts are there, but the failure is a page fault, not a missing kernel: the arch clause does not apply
    text = ("GPU[0]\t\t: GFX Version: \t\tgfx1032\n" + ARCHES + TB +
            "Memory access fault by GPU node-1 (Agent handle: 0x55d1) on address 0x7f00. Reason: Page not present or "
            "supervisor privilege.\nAborted (core dumped)\n")
    r = _explain(tmp_path, text)
    assert r is not None and r.family == "hip_error"
