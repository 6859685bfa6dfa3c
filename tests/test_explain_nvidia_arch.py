"""FAMILIES.md "Rule 1, arch clause" on NVIDIA (integrator, session 12), and CUDA-worded runtime failures on a log
with no ROCm mark (cuda_error, hip_error's twin).

Logs written from the sources: torch/cuda/__init__.py `_check_capability` (the sm warning with the wheel's list, and
the "no longer supports this GPU" form), TensorFlow's common_runtime/gpu/gpu_device.cc "Ignoring visible gpu device"
(ROCm: AMDGPU version + supported list; CUDA: minimum capability), NCCL's `NCCL WARN Cuda failure '<cudaGetErrorString>'`
(CUDACHECK in nccl's checks.h), cuDNN's status error as torch raises it.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

TB = ("Traceback (most recent call last):\n  File \"/srv/job/finetune.py\", line 88, in <module>\n    trainer.train()\n"
      "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 1501, in _call_impl\n"
      "    return forward_call(*args, **kwargs)\n")
NOISE = ("Loading checkpoint shards: 100%|██████████| 4/4 [00:03<00:00,  1.21it/s]\n"
         "[2026-03-02 10:11:12,001] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda\n")


def _root(tmp_path, text):
    d = tmp_path / "run"
    d.mkdir()
    (d / "train.log").write_text(text)
    exp = diagnose([str(d / "train.log")])
    assert exp.root is not None
    return exp.diagnoses[exp.root]


def sm_warning(card: str, sm: str, listed: str) -> str:
    return ("/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py:235: UserWarning: \n"
            f"NVIDIA {card} with CUDA capability {sm} is not compatible with the current PyTorch installation.\n"
            f"The current PyTorch install supports CUDA capabilities {listed}.\n"
            f"If you want to use the NVIDIA {card} GPU with PyTorch, please check the instructions at "
            "https://pytorch.org/get-started/locally/\n\n  warnings.warn(\n")


@pytest.mark.parametrize("card,sm,listed,then,newer", [
    ("GeForce RTX 5080", "sm_120", "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
     "RuntimeError: CUDA error: no kernel image is available for execution on the device\n", True),
    ("GeForce RTX 3060", "sm_86", "sm_37 sm_50 sm_60 sm_70 compute_37",
     "RuntimeError: CUDA error: no kernel image is available for execution on the device\nCUDA kernel errors might be "
     "asynchronously reported at some other API call\n", False),
    ("B200", "sm_100", "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
     "node7:4411:4411 [0] NCCL INFO cudaDriverVersion 12080\nnode7:4411:4411 [0] NCCL WARN Cuda failure "
     "'named symbol not found'\nRuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO for "
     "details)\n", True),
])
def test_sm_warning_with_the_wheels_list_is_version_check(tmp_path, card, sm, listed, then, newer):
    r = _root(tmp_path, NOISE + sm_warning(card, sm, listed) + TB + then)
    assert r.family == "version_check"
    assert sm in r.title and listed.split()[-1] in r.title
    assert ("cu128" in r.fix) is newer and "rebuild CUDA extensions" in r.fix


def test_too_old_card_with_the_minimum_is_version_check(tmp_path):
    text = (NOISE + "/usr/lib/python3/dist-packages/torch/cuda/__init__.py:152: UserWarning: \n"
            "    Found GPU0 Tesla K40m which is of cuda capability 3.5.\n"
            "    PyTorch no longer supports this GPU because it is too old.\n"
            "    The minimum cuda capability supported by this library is 3.7.\n\n  warnings.warn(old_gpu_warn % "
            "(d, name, major, minor, min_arch // 10, min_arch % 10))\n" + TB +
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    r = _root(tmp_path, text)
    assert r.family == "version_check" and "sm_35" in r.title and "3.7" in r.title


def test_tensorflow_rocm_ignoring_the_card_names_both(tmp_path):
    text = ("2024-05-01 09:00:01.000001: I tensorflow/core/common_runtime/gpu/gpu_device.cc:2015] Ignoring visible "
            "gpu device (device: 0, name: AMD Radeon RX 6700 XT, pci bus id: 0000:0b:00.0) with AMDGPU version : "
            "gfx1031. The supported AMDGPU versions are gfx1030, gfx900, gfx906, gfx908, gfx90a.\n"
            "Epoch 1/3\n  5/938 [..............................] - ETA: 2:11 - loss: 2.3011\n")
    r = _root(tmp_path, text)
    assert r.family == "version_check" and "gfx1031" in r.title and "gfx90a" in r.title
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in r.fix


def test_no_list_shown_stays_cuda_error(tmp_path):
    r = _root(tmp_path, NOISE + TB + "RuntimeError: CUDA error: no kernel image is available for execution on the "
              "device\n")
    assert r.family == "cuda_error"


@pytest.mark.parametrize("line", [
    "gpu3:9912:9950 [3] NCCL WARN Cuda failure 'an illegal memory access was encountered'\n",
    "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n",
    "[ 8812.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid=2211, GPU has fallen off the bus.\n",
])
def test_cuda_worded_runtime_failure_without_rocm_is_cuda_error(tmp_path, line):
    r = _root(tmp_path, "Sun Mar  1 10:00:00 2026\n| NVIDIA-SMI 570.86.15   Driver Version: 570.86.15   CUDA "
              "Version: 12.8 |\n" + NOISE + TB + line)
    assert r.family == "cuda_error" and r.code == "cuda-error"
    assert "HSA_OVERRIDE" not in r.fix


def test_the_same_words_on_rocm_stay_hip_error(tmp_path):
    text = ("ROCm version: 6.3.1\nHIP_VISIBLE_DEVICES=0,1\n" + TB +
            "node1:221:260 [1] NCCL WARN Cuda failure 'an illegal memory access was encountered'\n")
    r = _root(tmp_path, text)
    assert r.family == "hip_error"
