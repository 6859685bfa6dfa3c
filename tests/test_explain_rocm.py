"""explain on ROCm stacks (issue 26, explain-rocm): errors HIPified code prints in CUDA's words, native crashes while
the GPU runtime starts, HIP toolchains missing at build time, and a framework's required library not loading."""

from __future__ import annotations

from rocm_tune.core.runs.diagnose.diagnose import explain_text

ROCM_HEAD = ("torch 2.13.0+rocm10.0.0, device: AMD Radeon(TM) 8060S Graphics\n"
             "Loading checkpoint shards: 100%|##########| 3/3 [00:04<00:00,  1.39s/it]\n")
NVIDIA_HEAD = ("| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |\n"
               "torch 2.7.1+cu128, device: NVIDIA GeForce RTX 5090\n")


def _root(text: str):
    e = explain_text(text)
    return e.diagnoses[e.root] if e.root is not None else None


def test_a_cuda_worded_no_kernel_error_on_a_rocm_stack_is_the_hip_arch_error():
    line = "torch.AcceleratorError: CUDA error: device kernel image is invalid\n"
    r = _root(ROCM_HEAD + line)
    assert (r.family, r.code) == ("hip_error", "hip-invalid-device-function")
    assert "HSA_OVERRIDE_GFX_VERSION" in r.fix
    # the same words on an NVIDIA machine stay CUDA's
    assert _root(NVIDIA_HEAD + line).family == "cuda_error"


def test_ggml_hip_backend_cuda_error_is_a_hip_error_other_words_a_runtime_failure():
    log = ("ggml_init_cublas: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 6700 XT, compute capability 10.3\n"
           "CUDA error: invalid device function\n  current device: 0, in function ggml_cuda_compute_forward\n")
    assert _root(log).code == "hip-invalid-device-function"
    r = _root(ROCM_HEAD + "RuntimeError: CUDA error: unspecified launch failure\n")
    assert (r.family, r.code) == ("hip_error", "hip-runtime-error")


def test_a_segfault_while_the_gpu_runtime_starts_is_the_runtime_of_the_platform_the_log_shows():
    crash = '$ python -c "import torch; print(torch.cuda.is_available())"\nSegmentation fault (core dumped)\n'
    assert _root(crash).family == "hip_error"
    assert _root(NVIDIA_HEAD + crash).family == "cuda_error"
    # faulthandler's frames after the crash line name the init too
    fh = ('Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f3e (most recent call first):\n'
          '  File "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py", line 319 in _lazy_init\n')
    assert _root(fh).family == "hip_error"
    # a crash elsewhere, with nothing of the GPU platform in the log, is not guessed
    other = "$ python preprocess.py --data train.jsonl\nSegmentation fault (core dumped)\n"
    r = _root(other)
    assert r is None or r.family not in ("hip_error", "cuda_error")


def test_a_toolkit_program_the_build_calls_by_path_and_make_127_are_a_missing_toolkit():
    log = ("/usr/bin/hipcc  -I. -O3 -std=c++17 -fPIC --offload-arch=gfx1030 -c ggml-cuda.cu -o ggml-cuda.o\n"
           "make: /usr/bin/hipcc: No such file or directory\n"
           "make: *** [Makefile:318: ggml-cuda.o] Error 127\n")
    r = _root(log)
    assert (r.family, r.code) == ("missing_package", "toolkit-program-missing")
    assert "/opt/rocm" in r.fix
    # a helper a script calls on the way (an smi tool) is not the build's compiler: not this cause
    assert _root("/bin/sh: 1: /usr/bin/rocm-smi: not found\n{'loss': 1.2, 'epoch': 0.1}\n") is None


def test_cmake_failing_to_set_up_hip_is_a_native_build_failure():
    log = ("-- The HIP compiler identification is unknown\n"
           "CMake Error at /usr/local/share/cmake-3.31/Modules/CMakeDetermineHIPCompiler.cmake:174 (message):\n"
           "  Failed to find ROCm root directory.\n")
    r = _root(log)
    assert (r.family, r.code) == ("deepspeed_build_jit", "build-toolchain-check-failed")


def test_tensorflow_required_library_failure_is_the_root_its_startup_note_is_not():
    note = ("2024-06-14 18:11:16.716653: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not "
            "load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n")
    r = _root(note)
    assert r is None or r.benign
    fail = ("Attempting to fetch value instead of handling error Failed precondition: Could not load dynamic library "
            "'libhip_hcc.so'; dlerror: libhip_hcc.so: cannot open shared object file: No such file or directory\n")
    r = _root(note + fail)
    assert (r.family, r.code, r.benign) == ("missing_package", "framework-library-load-failed", False)


def test_a_blas_refusing_a_bf16_gemm_is_bf16_unsupported_an_fp16_one_is_not():
    bf16 = ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedEx(handle, "
            "opa, opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, "
            "(int)ldb, strideb, (void*)&fbeta, c, CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, "
            "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`\n")
    assert _root(bf16).family == "bf16_unsupported"
    fp16 = bf16.replace("CUDA_R_16BF", "CUDA_R_16F")
    assert _root(fp16).family == "cuda_error"
    hip = ("RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasGemmEx(handle, opa, opb, m, "
           "n, k, &falpha, a, HIP_R_16BF, lda, b, HIP_R_16BF, ldb, &fbeta, c, HIP_R_16BF, ldc, HIPBLAS_R_32F, "
           "HIPBLAS_GEMM_DEFAULT)`\n")
    assert _root(hip).family == "bf16_unsupported"
    assert _root(hip.replace("16BF", "16F")).family == "hip_error"   # hipBLAS's names show the ROCm stack


def test_torch_warning_that_the_gpu_arch_is_not_in_the_build_is_the_cause_when_nothing_else_failed():
    log = ("/venv/lib/python3.10/site-packages/torch/cuda/__init__.py:230: UserWarning:\n"
           "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
           "installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 "
           "sm_86 sm_90.\n")
    r = _root(log)
    # FAMILIES.md "Rule 1, arch clause" on NVIDIA (session 12): the warning shows the card's sm and the wheel's list
    assert (r.family, r.code) == ("version_check", "cuda-arch-not-in-build") and "sm_120" in r.title
    # with the kernel failure itself in the log, that failure is the root, read by the same clause
    r2 = _root(log + "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert r2.family == "version_check" and r2.code == "cuda-error"


def test_the_no_kernel_error_reported_by_other_layers_is_the_hip_arch_error():
    from rocm_tune.core.runs import catalogue as cat

    lines = {
        # the HIP runtime's own log (AMD_LOG_LEVEL>=1) comparing ISAs (ROCm/rocm-libraries#3413)
        ":1:devprogram.cpp           :1800: 8051876383 us: [pid:73665 tid: 0x7f49326c11c0] Error: The program ISA "
        "amdgcn-amd-amdhsa--gfx908:xnack- is not compatible with the device ISA amdgcn-amd-amdhsa--gfx1030":
            "hip-invalid-device-function",
        # Triton's launcher on ROCm: HIP code 98 is hipErrorInvalidDeviceFunction
        "RuntimeError: Triton Error [HIP]:  Code: 98, Messsage: invalid device function": "hip-invalid-device-function",
        # bitsandbytes built for HIP reports from ops.hip (its CUDA build from ops.cu stays CUDA's)
        "Error invalid device function at line 508 in file /src/bitsandbytes/csrc/ops.hip": "hip-invalid-device-function",
        "Error invalid device function at line 508 in file /src/bitsandbytes/csrc/ops.cu": "cuda-error",
        # rocBLAS asking for a Tensile kernel the code object for this GPU lacks (ROCm/rocBLAS#1346)
        ":1:hip_code_object.cpp      :606 : 96578653125 us: 167308: [tid:0x7f2bf74c7c00] Cannot find the function: "
        "Cijk_Ailk_Bljk_SB_MT64x16x8_SE_1LDSB0": "hip-missing-code-object",
        # a ROCm library from another release, in the loader's versioned-symbol words
        "/opt/rocm/lib/libhsa-runtime64.so.1: version `ROCR_1' not found (required by "
        "/venv/lib/python3.10/site-packages/torch/lib/libamdhip64.so)": "rocm-library-symbol-mismatch",
        # PyTorch 1.x's THC spelling and the driver older than the wheel
        "cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at "
        "/pytorch/aten/src/THC/THCGeneral.cpp:47": "cuda-error",
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).": "cuda-error",
        # bitsandbytes 0.3x/0.4x: no usable GPU library
        "RuntimeError: CUDA Setup failed despite GPU being available. Please run the following command to get more "
        "information:": "bnb-no-gpu-library",
    }
    for line, code in lines.items():
        hit = cat.best_match(line)
        assert hit is not None and hit[0].code == code, (line, hit and hit[0].code)


def test_a_native_build_failing_is_read_from_any_compiler_diagnostic_and_pip_s_banners():
    from rocm_tune.core.runs import catalogue as cat

    lines = [
        # a ROCm header of another release than the sources expect (ROCm/bitsandbytes#63, ROCm 6.4)
        "/opt/rocm-6.4.0/lib/llvm/bin/../../../include/hip/amd_detail/amd_hip_atomic.h:33:41: error: redefinition "
        "of 'Cond_t<true, T, F>'",
        # ninja's failed object and pip's banners (apex, deepspeed built from source)
        "FAILED: /tmp/pip-req-build-8zq6h56v/build/temp.linux-x86_64-3.10/csrc/multi_tensor_adam.o",
        "  × python setup.py egg_info did not run successfully.",
        "ERROR: Failed building wheel for deepspeed",
    ]
    for line in lines:
        hit = cat.best_match(line)
        assert hit is not None and hit[0].family == "deepspeed_build_jit", (line, hit and hit[0].code)
    # a Python traceback's frame is not a compiler diagnostic
    hit = cat.best_match('  File "/venv/lib/python3.10/site-packages/torch/utils/cpp_extension.py", line 2104, in '
                         '_run_ninja_build')
    assert hit is None or hit[0].family != "deepspeed_build_jit"
    # flash-attn's own build failing stays flash-attn's
    assert cat.best_match("ERROR: Failed building wheel for flash-attn")[0].family == "flash_attn_error"


def test_a_rank_that_died_of_a_crash_signal_on_a_rocm_stack_is_the_gpu_runtime_s():
    head = "torch 2.4.1+rocm6.1 on AMD Instinct MI210\n"
    teardown = ("E0501 10:00:00.000000 51312 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: "
                "-11) local_rank: 0 (pid: 51419) of binary: /usr/bin/python3\n")
    r = _root(head + teardown)
    assert (r.family, r.code) == ("hip_error", "child-failed")
    # without a ROCm stack in view the launcher's line stays the launcher's; a SIGKILL is not a crash signal
    assert _root(teardown).family == "launcher_exit"
    assert _root(head + teardown.replace("-11", "1")).family == "launcher_exit"
    # zsh / job control words for a crashed child
    for line in ("zsh: segmentation fault  python train.py\n",
                 "[1]    78714 segmentation fault (core dumped)  python train.py\n"):
        assert _root(head + line).family == "hip_error", line


def test_zluda_runs_cuda_programs_on_the_hip_runtime():
    r = _root("ZLUDA: using HIP device 0 (AMD Radeon RX 7900 XTX)\nCUDA error: operation not supported\n")
    assert (r.family, r.code) == ("hip_error", "hip-runtime-error")


def test_ggml_s_older_error_spelling_and_its_rocm_buffer_names():
    ggml = ("ggml_init_cublas: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 6700 XT, compute capability 10.3\n"
            "CUDA error 98 at /source/llama.cpp/ggml-cuda.cu:7788: invalid device function\ncurrent device: 0\n"
            "[1]    212127 IOT instruction (core dumped)  ./bin/main -m model.gguf -ngl 33\n")
    r = _root(ggml)
    assert (r.family, r.code) == ("hip_error", "hip-invalid-device-function")
    # only the buffer names tell the ROCm build here (ollama / llama.cpp on Windows)
    log = ("llama_new_context_with_model:      ROCm0 compute buffer size =   160.00 MiB\n"
           "llama_new_context_with_model:  ROCm_Host compute buffer size =     8.01 MiB\n"
           "CUDA error: invalid device function\n")
    assert _root(log).family == "hip_error"
    # and the same lines from a CUDA build stay CUDA's
    assert _root(log.replace("ROCm0", "CUDA0").replace("ROCm_Host", "CUDA_Host")).family == "cuda_error"


def test_an_override_already_set_is_never_suggested_again_the_build_target_is():
    log = ("$ HSA_OVERRIDE_GFX_VERSION=10.3.0 ./bin/main -m model.gguf -ngl 33\n"
           "ggml_init_cublas: found 1 ROCm devices:\n  Device 0: AMD Radeon RX 6700 XT, compute capability 10.3\n"
           "CUDA error 98 at /source/llama.cpp/ggml-cuda.cu:7788: invalid device function\n")
    r = _root(log)
    assert r.code == "hip-invalid-device-function"
    assert "export HSA_OVERRIDE_GFX_VERSION" not in r.fix and "set HSA_OVERRIDE_GFX_VERSION to" not in r.fix
    assert "already set" in r.fix and "gfx1030" in r.fix
    # without the override in the log the override is the suggestion
    r2 = _root(log.replace("HSA_OVERRIDE_GFX_VERSION=10.3.0 ", ""))
    assert "HSA_OVERRIDE_GFX_VERSION" in r2.fix and "already set" not in r2.fix
