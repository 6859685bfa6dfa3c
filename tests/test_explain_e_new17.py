"""e-new17 (issue 26): PaddlePaddle's error formats, Hygon's DCU/DTK stack, container device nodes, ms-swift's value checks.

Sources the logs are written from (none is a corpus case):
- PaddlePaddle paddle/phi/core/enforce.h: a failed HIP call is ` Hip error(<n>), <hipGetErrorString>.`, raised as
  ExternalError (C++ summary `ExternalError:  Hip error(..)... (at file.cc:line)` + `[operator < op > error]`, Python
  `OSError: (External) Hip error(...)`); errors.h's types in Python as `(ResourceExhausted)`, `(InvalidArgument)`,
  `(PreconditionNotMet)`; the allocator's `Out of memory error on GPU 0. Cannot allocate ...`; init.cc's `Compiled with
  WITH_GPU, but no GPU found in runtime.`, framework.py's and install_check.py's (run_check) no-GPU warnings.
- Hygon DTK: `DTK: 23.04`, hy-smi, `DCU: Hygon K100_AI`, /opt/dtk; paddlepaddle-dcu and torch `+das`/`+dtk` wheels are
  DTK builds, paddlepaddle-rocm and torch `+rocmX.Y` are AMD ROCm builds (FAMILIES.md Rule 1 refined: a build for
  another runtime the log names -> version_check; a HIP failure with the matching build stays hip_error).
- crun (`open \\`/dev/kfd\\`: Permission denied: OCI permission denied`), Apptainer container_linux.go (`mount source %s
  doesn't exist`): a node that is there but refused -> hf_cache_permission; a node the host lacks -> hip_error.
- ms-swift TrainArguments._check_padding_free: `The "{feature}" feature requires a flash attention implementation.`;
  transformers' TrainingArguments fields (warmup_ratio ...) are known to every ms-swift major (they inherit them).
"""

from __future__ import annotations

import pytest

from tests.helpers_explain import explain_text

GLOG = "W1107 10:02:11.418291  2231 "
PADDLE_FRAMES = ("Traceback (most recent call last):\n"
                 "  File \"tools/train.py\", line 224, in <module>\n    main(config, device, logger, vdl_writer)\n"
                 "  File \"/usr/local/lib/python3.10/dist-packages/paddle/base/dygraph/tensor_patch_methods.py\", "
                 "line 342, in backward\n    core.eager.run_backward([self], grad_tensor, retain_graph)\n")
CPP_HEAD = ("\n--------------------------------------\nC++ Traceback (most recent call last):\n"
            "--------------------------------------\n0   paddle::pybind::eager_api_run_backward(_object*, _object*, "
            "_object*)\n1   egr::Backward(std::vector<paddle::Tensor...)\n\n----------------------\n"
            "Error Message Summary:\n----------------------\n")
DCU_ENV = ("OS: CentOS 7.6\nCPU: Hygon C86 7285 32-core Processor\nDCU: Hygon K100_AI\nDTK: 24.04.1\n"
           "$ hy-smi\n============================ System Management Interface ============================\n")


def _family(tmp_path, text):
    e, r = explain_text(tmp_path, text)
    return e.answer, (r.code if r else None), (r.fix if r else "")


# --- PaddlePaddle's HIP status lines: the number decides (enforce.h build_rocm_error_msg) ---------------------------
HIP_BY_NUMBER = {
    # out of memory (hipErrorOutOfMemory 2; 1002 before ROCm 5): gpu_oom, C++ summary and Python spelling
    "oom-summary": (PADDLE_FRAMES + CPP_HEAD + "ExternalError:  Hip error(2), out of memory. (at /paddle/paddle/phi/"
                    "backends/gpu/rocm/rocm_info.cc:209)\n  [operator < matmul_v2_grad > error]\n", "gpu_oom"),
    "oom-python-1002": (PADDLE_FRAMES + "OSError: (External) Hip error(1002), hipErrorMemoryAllocation.\n  "
                        "[Hint: Please search for the error code(1002) on website (https://docs.amd.com) to get AMD "
                        "official help.] (at /paddle/paddle/phi/core/memory/allocation/allocator_facade.cc:512)\n",
                        "gpu_oom"),
    # a kernel the build lacks for the card (hipErrorInvalidDeviceFunction 98, hipErrorNoBinaryForGpu 209)
    "no-kernel-98": (PADDLE_FRAMES + "OSError: (External) Hip error(98), invalid device function.\n  [Hint: Please "
                     "search for the error code(98) on website (https://docs.amd.com) to get Nvidia/AMD official "
                     "help.] (at /paddle/paddle/phi/kernels/funcs/elementwise_base.h:1051)\n", "hip_error"),
    "no-kernel-209-other-rank": ("[2024-05-02 10:11:12,345] [    INFO] - rank 3 of 8\n" + CPP_HEAD +
                                 "ExternalError:  Hip error(209), no kernel image is available for execution on the "
                                 "device. (at /paddle/paddle/phi/kernels/gpu/full_kernel.cu:81)\n  [operator < "
                                 "fill_constant > error]\n", "hip_error"),
    # any other status on an AMD box with the ROCm build: the runtime's (hip_error), DTK's own spelling too
    "invalid-argument-amd": ("rocm-smi\nGPU[0] : Card series: AMD Instinct MI210\n$ pip install paddlepaddle-rocm\n" +
                             CPP_HEAD + "ExternalError:  Hip error(1), invalid arguement. (at /paddle/paddle/phi/"
                             "backends/gpu/rocm/rocm_info.cc:137)\n  [operator < fill_constant > error]\n", "hip_error"),
    "launch-failure": (PADDLE_FRAMES + "OSError: (External) Hip error(719), unspecified launch failure.\n", "hip_error"),
}


@pytest.mark.parametrize("name", sorted(HIP_BY_NUMBER))
def test_paddles_hip_status_line_is_read_by_its_number(tmp_path, name):
    text, family = HIP_BY_NUMBER[name]
    answer, code, _ = _family(tmp_path, text)
    assert answer == family, (name, code)


def test_paddles_resource_exhausted_is_gpu_oom_on_every_device_type(tmp_path):
    for dev in ("GPU 0", "DCU 1", "Place(gpu:0)"):
        text = (PADDLE_FRAMES + f"MemoryError: (ResourceExhausted) Out of memory error on {dev}. Cannot allocate "
                f"2.000000GB memory on {dev}, 61.230000GB memory has been allocated and available memory is only "
                "1.280000GB.\n\nPlease check whether there is any other process using GPU 0.\n1. If yes, please stop "
                "them, or start PaddlePaddle on another GPU.\n2. If no, please decrease the batch size of your model."
                "\n (at /paddle/paddle/fluid/memory/allocation/retry_allocator.cc:105)\n")
        assert _family(tmp_path, text)[0] == "gpu_oom", dev


# --- a ROCm build on Hygon's DTK (or a DTK build on AMD's ROCm): version_check; the matching build: hip_error ------------
def test_a_rocm_paddle_wheel_on_a_dtk_box_is_version_check(tmp_path):
    text = (DCU_ENV + "$ python -m pip install paddlepaddle-rocm==2.5.1 -f https://www.paddlepaddle.org.cn/whl/rocm/"
            "stable.html\n$ python -c 'import paddle; paddle.utils.run_check()'\nRunning verify PaddlePaddle program "
            "... \n" + CPP_HEAD + "ExternalError:  Hip error(1), invalid argument. (at /paddle/paddle/phi/backends/gpu/"
            "rocm/rocm_info.cc:137)\n  [operator < fill_constant > error]\n")
    answer, code, fix = _family(tmp_path, text)
    assert answer == "version_check" and code == "hip-runtime-error"
    assert "DTK build" in fix


def test_a_rocm_torch_wheel_on_a_dcu_is_version_check(tmp_path):
    text = ("/opt/dtk-23.10/bin/hy-smi\nDCU[0]          : K100_AI\n"
            "Successfully installed torch-2.3.0+rocm5.7\n"
            "Traceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n    x = x.cuda()\n"
            "RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported at "
            "some other API call, so the stacktrace below might be incorrect.\n")
    assert _family(tmp_path, text)[0] == "version_check"


def test_the_dtk_build_on_a_dtk_box_stays_the_runtimes(tmp_path):
    text = (DCU_ENV + "$ pip install paddlepaddle-dcu==2.5.2\n" + CPP_HEAD +
            "ExternalError:  Hip error(719), unspecified launch failure. (at /paddle/paddle/phi/kernels/gpu/"
            "embedding_grad_kernel.cu:120)\n")
    assert _family(tmp_path, text)[0] == "hip_error"


def test_a_dtk_torch_on_an_amd_box_is_version_check(tmp_path):
    text = ("GPU[0] : Card series: AMD Instinct MI250X\nrocminfo: gfx90a\n"
            "torch 2.1.0+das1.1.git3ac1bdd.abi1.dtk2404\n"
            "RuntimeError: HIP error: invalid argument\n")
    assert _family(tmp_path, text)[0] == "version_check"


# --- a Paddle GPU build that found no device: never a harmless line --------------------------------------------------
NO_DEVICE = {
    "init-cc": GLOG + "init.cc:181] Compiled with WITH_GPU, but no GPU found in runtime.\n",
    "framework-py": ("/usr/local/lib/python3.8/dist-packages/paddle/fluid/framework.py:634: UserWarning: You are "
                     "using GPU version Paddle, but your CUDA device is not set properly. CPU device will be used by "
                     "default.\n  warnings.warn(\n"),
    "run-check": ("Running verify PaddlePaddle program ... \nWARNING:root:You are using GPU version PaddlePaddle, but "
                  "there is no GPU detected on your machine. Maybe CUDA devices is not set properly.\n Original Error "
                  "is \nPaddlePaddle works well on 1 CPU.\n"),
}


@pytest.mark.parametrize("name", sorted(NO_DEVICE))
def test_paddle_finding_no_gpu_is_not_harmless(tmp_path, name):
    answer, code, fix = _family(tmp_path, "$ python -c 'import paddle; paddle.utils.run_check()'\n" + NO_DEVICE[name]
                                + "2.6.1\n")
    assert answer == "hip_error" and code == "hip-init-failed", name
    assert "render and video groups" in fix


def test_a_specific_error_after_the_no_gpu_warning_comes_first(tmp_path):
    text = NO_DEVICE["init-cc"] + PADDLE_FRAMES + "OSError: (External) Hip error(98), invalid device function.\n"
    assert _family(tmp_path, text)[1] == "hip-invalid-device-function"


# --- device nodes in containers: refused -> hf_cache_permission; absent on the host -> hip_error ---------------------
def test_crun_refusing_the_kfd_node_is_the_permissions(tmp_path):
    text = ("$ podman run --rm --device /dev/kfd --device /dev/dri rocm/pytorch:latest rocminfo\n"
            "Error: crun: open `/dev/kfd`: Permission denied: OCI permission denied\n")
    assert _family(tmp_path, text)[:2] == ("hf_cache_permission", "gpu-device-permission")


def test_apptainer_binding_a_node_the_host_lacks_is_no_gpu(tmp_path):
    text = ("$ apptainer exec --rocm --bind /dev/kfd pytorch.sif python train.py\n"
            "FATAL:   container creation failed: mount /dev/kfd->/dev/kfd error: while mounting /dev/kfd: mount source "
            "/dev/kfd doesn't exist\n")
    assert _family(tmp_path, text)[:2] == ("hip_error", "no-gpu-visible")


# --- ms-swift: a value check of options the installed release knows is the configuration ---------------------------
SWIFT_FRAMES = ("[rank1]: Traceback (most recent call last):\n"
                "[rank1]:   File \"/opt/conda/lib/python3.11/site-packages/swift/cli/sft.py\", line 10, in <module>\n"
                "[rank1]:     sft_main()\n"
                "[rank1]:   File \"/opt/conda/lib/python3.11/site-packages/swift/llm/argument/train_args.py\", line "
                "190, in __post_init__\n[rank1]:     self._check_padding_free()\n"
                "[rank1]:   File \"/opt/conda/lib/python3.11/site-packages/swift/llm/argument/train_args.py\", line "
                "170, in _check_padding_free\n[rank1]:     raise ValueError(f'The \"{feature}\" feature requires a flash "
                "attention implementation. '\n")


def test_swift_padding_free_with_sdpa_is_config_error_whatever_trainingarguments_flags_it_has(tmp_path):
    text = ("$ NPROC_PER_NODE=2 swift sft --model Qwen/Qwen2.5-7B-Instruct --train_type lora --padding_free true "
            "--attn_impl sdpa --warmup_ratio 0.03 --group_by_length true --logging_dir runs\n" + SWIFT_FRAMES +
            "[rank1]: ValueError: The \"padding_free\" feature requires a flash attention implementation. Please use "
            "one of: \"flash_attn\", \"flash_attention_2\", \"flash_attention_3\".\n")
    assert _family(tmp_path, text)[0] == "config_error"


# --- Paddle's dynload: a CUDA library it cannot load is missing_package, a ROCm one the ROCm runtime's ----------------
@pytest.mark.parametrize("lib,family", [("cudnn", "missing_package"), ("cublas", "missing_package"),
                                        ("miopen", "hip_error"), ("rocblas", "hip_error")])
def test_paddles_dynload_failure_follows_the_library(tmp_path, lib, family):
    text = (PADDLE_FRAMES + f"RuntimeError: (PreconditionNotMet) Cannot load {lib} shared library. Cannot invoke "
            f"method {lib}GetVersion.\n  [Hint: {lib}_dso_handle should not be null.] (at /paddle/paddle/phi/backends/"
            f"dynload/{lib}.cc:64)\n")
    assert _family(tmp_path, text)[0] == family


def test_a_dtk_wheel_for_another_dtk_release_is_version_check_and_the_same_release_is_not(tmp_path):
    base = ("DCU: Hygon Z100L\nDTK: 22.10.1\nSuccessfully installed paddlepaddle_dcu-2.5.2+dtk{rel}\n" + CPP_HEAD +
            "ExternalError:  Hip error(1), invalid argument. (at /paddle/paddle/phi/backends/gpu/rocm/rocm_info.cc:137)\n")
    answer, _, fix = _family(tmp_path, base.format(rel="2310"))
    assert answer == "version_check" and "DTK 22.10" in fix
    assert _family(tmp_path, base.format(rel="2210"))[0] == "hip_error"


def test_paddles_cuda_status_line_is_the_cuda_runtimes_and_its_oom_is_gpu_oom(tmp_path):
    hint = "\n  [Hint: 'cudaErrorLaunchFailure'. An exception occurred on the device while executing a kernel.]\n"
    assert _family(tmp_path, CPP_HEAD + "ExternalError:  CUDA error(719), unspecified launch failure. " + hint)[:2] == \
        ("cuda_error", "cuda-error")
    assert _family(tmp_path, PADDLE_FRAMES + "OSError: (External) CUDA error(2), out of memory. \n")[0] == "gpu_oom"
