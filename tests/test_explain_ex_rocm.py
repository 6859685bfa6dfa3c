"""explain (issue 26, ex-rocm): the general rules for HIP/ROCm runtime faults, hipBLASLt's harmless messages and
DeepSpeed's own failures (op builds, config checks, launcher), on log spellings from public threads."""

from __future__ import annotations

from helpers_explain import explain_text as _explain

TB = 'Traceback (most recent call last):\n  File "/home/u/train.py", line 12, in <module>\n    main()\n'




def test_rocblas_tensile_missing_under_a_windows_path_with_spaces_is_the_gpu_arch(tmp_path):
    # likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU#12: rocBLAS aborts without its Tensile library for the gfx
    e, r = _explain(tmp_path, "Loading model...\n"
                    "rocBLAS error: Could not load C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/"
                    "TensileLibrary_lazy_gfx1103.dat\n\nrocBLAS error: Could not initialize Tensile library\n")
    assert r is not None and r.family == "hip_error" and r.code == "rocblas-no-tensile-arch"
    assert "gfx1103" in r.first.text


def test_hipblaslt_logger_line_under_a_journal_prefix_is_harmless_when_the_run_goes_on(tmp_path):
    # lemonade-sdk/llamacpp-rocm#10: hipBLASLt's logger (rocblaslt) without a gfx1151 library, the server keeps serving
    e, r = _explain(tmp_path,
                    'Sep 13 23:11:36 ai2 server[4914]: ERROR:    rocblaslt error: Cannot read "TensileLibrary_lazy_gfx1151'
                    '.dat": No such file or directory\n'
                    'Sep 13 23:11:36 ai2 server[4914]: ERROR:    rocblaslt error: Could not load "TensileLibrary_lazy_'
                    'gfx1151.dat"\n'
                    'Sep 13 23:11:37 ai2 server[4914]: INFO:     127.0.0.1:51224 - "POST /v1/chat/completions" 200 OK\n')
    assert r is None
    assert e.answer == "benign_warning"   # test expectation follows FAMILIES.md amended rule 4 (the run goes on)
    assert all(d.benign for d in e.diagnoses)


def test_hipblaslt_message_is_never_the_root_beside_a_real_failure(tmp_path):
    e, r = _explain(tmp_path,
                    "2025-10-28 08:07:05 [DEBUG] rocblaslt error: Cannot read C:\\Users\\u\\.lmstudio\\bin\\/hipblaslt/"
                    "library/TensileLibrary_lazy_gfx1201.dat: No such file or directory\n" + TB +
                    "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                    "of 15.98 GiB of which 1.20 GiB is free.\n")
    assert r is not None and r.family == "gpu_oom" and not r.benign


def test_deepspeed_setup_abort_for_an_op_it_was_told_to_prebuild_is_the_op_build(tmp_path):
    # deepspeedai/DeepSpeed#4968/#3211: `DS_BUILD_OPS=1 pip install deepspeed` and setup.py's abort()
    e, r = _explain(tmp_path,
                    "  Preparing metadata (setup.py) ... error\n      Traceback (most recent call last):\n"
                    '        File "/tmp/pip-install-jon5mrdm/deepspeed_3421/setup.py", line 182, in <module>\n'
                    '          abort(f"Unable to pre-compile {op_name}")\n'
                    '        File "/tmp/pip-install-jon5mrdm/deepspeed_3421/setup.py", line 52, in abort\n'
                    "          assert False, msg\n      AssertionError: Unable to pre-compile async_io\n"
                    "      DS_BUILD_OPS=1\n       [ERROR]  Unable to pre-compile async_io\n")
    assert r is not None and r.family == "deepspeed_build_jit" and r.code == "deepspeed-op-build-failed"


_AIO_WARN = (" [WARNING]  async_io requires the libraries: ['libaio-dev'] but are missing. Can be fixed by: "
             "`apt install libaio-dev`.\n")
_INSTALL_TAIL = ("Install Ops={'cpu_adam': False, 'fused_adam': False, 'async_io': False}\nrunning bdist_wheel\n"
                 "Successfully built deepspeed-0.4.0+11e94e6-py3-none-any.whl\n")


def test_an_op_the_command_asked_for_that_deepspeed_cannot_build_is_the_root(tmp_path):
    # deepspeedai/DeepSpeed#1126: DS_BUILD_AIO=1 on Arch; the wheel is built without async_io
    e, r = _explain(tmp_path, "$ DS_BUILD_AIO=1 bash install.sh -s\nBuilding deepspeed wheel\nDS_BUILD_OPS=0\n"
                    + _AIO_WARN + _INSTALL_TAIL)
    assert r is not None and r.family == "deepspeed_build_jit"
    assert "async_io" in r.title and "DS_BUILD_AIO=1" in r.title
    assert "libaio" in r.first.text


def test_the_same_op_warning_is_harmless_when_the_command_did_not_ask_for_that_op(tmp_path):
    e, r = _explain(tmp_path, "$ DS_BUILD_CPU_ADAM=1 DS_BUILD_AIO=0 pip install deepspeed\nDS_BUILD_OPS=0\n"
                    + _AIO_WARN + _INSTALL_TAIL)
    assert r is None and e.answer == "benign_warning"


_HIPIFY = ("TypeError: hipify() got an unexpected keyword argument 'hipify_extra_files_only'\n")


def test_a_signature_mismatch_raised_in_deepspeeds_op_builder_is_the_op_build(tmp_path):
    # deepspeedai/DeepSpeed#1816: a source checkout's op_builder/builder.py calling torch's hipify on ROCm
    e, r = _explain(tmp_path, "Total number of replaced kernel launches: 2\nTraceback (most recent call last):\n"
                    '  File "setup.py", line 161, in <module>\n    builder.hipify_extension()\n'
                    '  File "/var/lib/jenkins/DeepSpeed_up/op_builder/builder.py", line 625, in hipify_extension\n'
                    "    hipify_extra_files_only=True,\n" + _HIPIFY)
    assert r is not None and r.family == "deepspeed_build_jit"


def test_the_same_mismatch_raised_outside_a_build_stays_the_versions(tmp_path):
    e, r = _explain(tmp_path, TB + '  File "/usr/lib/python3.10/site-packages/peft/tuners/lora/model.py", line 88, '
                    "in _create_new_module\n    new_module = cls(target, **kwargs)\n"
                    "TypeError: __init__() got an unexpected keyword argument 'use_dora'\n")
    assert r is not None and r.family == "version_check"


def _ds_frame(path: str, fn: str, line: str) -> str:
    return TB + f'  File "/usr/lib/python3.10/site-packages/deepspeed/{path}", line 100, in {fn}\n    x()\n{line}\n'


def test_deepspeeds_own_config_and_runtime_checks_are_the_settings(tmp_path):
    e, r = _explain(tmp_path, _ds_frame("runtime/engine.py", "_configure_zero_optimizer",
                                        "AssertionError: Zero stage 3 does not support pipeline parallelism"))
    assert r is not None and r.family == "config_error"
    e, r = _explain(tmp_path, _ds_frame("runtime/engine.py", "_configure_optimizer",
                                        "deepspeed.runtime.zero.utils.ZeRORuntimeException: You are using ZeRO-Offload "
                                        "with a client provided optimizer (<class 'torch.optim.adamw.AdamW'>)"))
    assert r is not None and r.family == "config_error"
    e, r = _explain(tmp_path, _ds_frame("runtime/swap_tensor/utils.py", "__init__",
                                        "AssertionError: Unable to find the NVMe path /local_nvme"))
    assert r is not None and r.family == "config_error"


def test_deepspeed_launcher_without_gpus_is_no_gpu_visible(tmp_path):
    e, r = _explain(tmp_path, _ds_frame("launcher/runner.py", "main",
                                        "RuntimeError: Unable to proceed, no GPU resources available"))
    assert r is not None and r.family == "hip_error" and r.code == "no-gpu-visible"


def test_an_op_that_deepspeed_refuses_to_jit_load_is_the_op_build(tmp_path):
    e, r = _explain(tmp_path, TB + "AssertionError: Unable to JIT load the async_io op due to it not being compatible "
                    "due to hardware/software issue. None\n")
    assert r is not None and r.family == "deepspeed_build_jit"


def test_hipcc_failing_to_run_clang_is_a_native_build_failure(tmp_path):
    # deepspeedai/DeepSpeed#7843 (MI300A): hipcc's own line for the clang++ it ran
    e, r = _explain(tmp_path, "building 'deepspeed.inference.v2.kernels' extension\n"
                    "      failed to execute:/opt/rocm-6.3.3/lib/llvm/bin/clang++  --offload-arch=gfx942 -O3 -c x.cu\n")
    assert r is not None and r.family == "deepspeed_build_jit"


def test_a_windows_access_violation_in_the_hip_runtime_is_a_rocm_native_crash(tmp_path):
    # ROCm/legacy-rocm-build#5871 (Windows Event Log after python.exe died in amdhip64_7.dll)
    e, r = _explain(tmp_path, "Loading model to GPU...\nFaulting application name: python.exe, version: 3.12.10150.1013\n"
                    "Faulting module name: amdhip64_7.dll, version: 10.0.3581.0, time stamp: 0x69198ccb\n"
                    "Exception code: 0xc0000005\nFault offset: 0x00000000002ab8ba\n")
    assert r is not None and r.family == "hip_error"
    # the same exit code with nothing of ROCm in the log is not put on ROCm
    e, r = _explain(tmp_path, "  0%|          | 0/20 [00:00<?, ?it/s]\nusing CUDA device sm_89 NVIDIA GeForce RTX 4090\n\n"
                    "Process finished with exit code -1073741819 (0xC0000005)\n", name="nv.log")
    assert e.answer != "hip_error"


def test_a_missing_hipblaslt_kernel_file_is_harmless_another_librarys_is_the_missing_code_object(tmp_path):
    # ROCm/TheRock#7976: the runtime logs hipBLASLt's absent per-arch kernel file and the work goes on
    e, r = _explain(tmp_path, "hipModuleLoad failed: /opt/venv/lib/hipblaslt/library/gfx950/Kernels.so-000-gfx950.hsaco\n"
                    " error: file not found\nstep 10/100 loss 2.31\n")
    assert r is None and e.answer == "benign_warning"   # test expectation follows FAMILIES.md amended rule 4
    e, r = _explain(tmp_path, "hipModuleLoad failed: /opt/venv/lib/rocfft/kernels/gfx950/fft_kernels.hsaco\n"
                    " error: file not found\n", name="fft.log")
    assert r is not None and r.family == "hip_error" and r.code == "hip-missing-code-object"
