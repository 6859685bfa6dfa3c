"""explain (issue 26, r5-hip): ROCm failures in the spellings other layers give them, and harmless warnings by the
shape of the logger that printed them.

The lines are the ones users posted in the threads named beside each case; the noise around them (progress bars,
start-up warnings, the launcher's teardown) is what such runs print:
- a library's own check of a HIP call (ROCm/aiter#1332: `fail to call hipModuleLaunchKernel(...) ---> [HIP
  error](invalid resource handle)`), the ROCm math libraries' own logger (ROCm/rocBLAS#1514: `rocBLAS error: Tensile
  solution found, but exception thrown for {...}`)
- a crash inside the ROCm runtime: the kernel's segfault line (vladmandic/sdnext#913, #2252) and gdb's frame
  (ROCm/hip#3282) in libamdhip64
- the amdgpu driver's MES failure in its older spelling (ROCm/legacy-rocm-build#2533: `MES failed to response msg=3`)
- warning-level notes by their logger's format (c10 TORCH_WARN, glog, Python logging, DeepSpeed), c10d's IPv6
  attempt on a host without IPv6 (errno 97), torchvision's image-extension warning: harmless, never a root
"""

from __future__ import annotations

import pytest

from helpers_explain import explain_text

HEAD = ("/opt/conda/lib/python3.10/site-packages/transformers/training_args.py:1575: FutureWarning: "
        "`evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers.\n"
        "  warnings.warn(\n"
        "[INFO|trainer.py:2128] 2025-03-02 10:11:40,552 >> ***** Running training *****\n"
        "  1%|▏         | 3/375 [00:07<14:11,  2.29s/it]\n")
TAIL = ("[2025-03-02 10:12:11,210] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) "
        "local_rank: 0 (pid: 4410) of binary: /opt/conda/bin/python\n")
DONE = ("{'loss': 1.4123, 'grad_norm': 0.87, 'learning_rate': 1.9e-05, 'epoch': 0.5}\n"
        "100%|██████████| 375/375 [14:02<00:00,  2.25s/it]\n"
        "{'train_runtime': 842.1, 'train_samples_per_second': 3.56, 'train_loss': 1.38, 'epoch': 1.0}\n")


def _explain(tmp_path, text: str):
    return explain_text(tmp_path, text, "train.log")


FAILURES = [
    # ROCm/aiter#1332 (MI300A, old AITER picked the wrong code object; fixed in newer AITER)
    ("[AITER] /home/aiter/aiter/jit/build/module_fmha_v3_fwd/blob/asm_fmha_fwd_v3_gfx942.cpp:141 fail to call "
     "hipModuleLaunchKernel(kernel_func, gdx, gdy, gdz, bdx, 1, 1, 0, s.stream_id_, NULL, "
     "reinterpret_cast<void**>(&config)) ---> [HIP error](invalid resource handle)\n", "hip-runtime-error"),
    # ROCm/rocBLAS#1514 (MI100 hgemm)
    ('rocBLAS error: Tensile solution found, but exception thrown for { a_type: "f16_r", b_type: "f16_r", c_type: '
     '"f16_r", d_type: "f16_r", compute_type: "f16_r", transA: \'N\', transB: \'N\', M: 256, N: 256, K: 64 }\n',
     "hip-runtime-error"),
    # vladmandic/sdnext#913 (journald), #2252 (dmesg -T)
    ("kernel: python3[40923]: segfault at 100 ip 00007f2711b2d282 sp 00007fffa29a1530 error 4 in "
     "libamdhip64.so[7f2711a00000+3f3000] likely on CPU 9 (core 1, socket 0)\n", "rocm-runtime-segfault"),
    ("[Mon Sep 25 20:37:11 2023] python3[15122]: segfault at 20 ip 00007f44bdeb40a7 sp 00007f417aa34010 error 4 in "
     "libamdhip64.so[7f44bde00000+3f3000] likely on CPU 10 (core 2, socket 0)\n", "rocm-runtime-segfault"),
    # ROCm/hip#3282 (gdb on a Barcelo iGPU; HSA_OVERRIDE_GFX_VERSION=9.0.0 fixed it)
    ("Program received signal SIGSEGV, Segmentation fault.\n"
     "#0  0x00007fffa6ed9cd8 in  () at /opt/rocm/hip/lib/libamdhip64.so.5\n", "rocm-runtime-segfault"),
    # hipBLASLt raising its status (TheRock#2847's spelling through torch, hipblasLt's own logger)
    ("RuntimeError: hipblasLt error: HIPBLAS_STATUS_INTERNAL_ERROR when calling `hipblasLtMatmul(ltHandle, "
     "computeDesc.descriptor(), &alpha_val, mat1_ptr, Adesc.descriptor(), mat2_ptr, Bdesc.descriptor())`\n",
     "blas-status-error"),   # e-blas: the BLAS status's own code (same family, the GEMM's fix)
    # ROCm/legacy-rocm-build#2533 (RX 7900 XT, ROCm 5.7: MES hang, GPU reset)
    ("Oct  7 12:58:23 Ubuntu-Desktop kernel: [ 2238.057431] [drm:mes_v11_0_submit_pkt_and_poll_completion.constprop.0 "
     "[amdgpu]] *ERROR* MES failed to response msg=3\n", "gpu-hang"),
]


@pytest.mark.parametrize("line,code", FAILURES)
def test_rocm_failure_spellings_are_hip_error(tmp_path, line, code):
    exp, root = _explain(tmp_path, HEAD + line + TAIL)
    assert root is not None and not root.benign
    assert (root.code, exp.answer) == (code, "hip_error")


def test_a_named_hip_error_wins_over_the_runtime_segfault(tmp_path):
    # the segfault signature is weak: the specific error printed before it names the cause
    text = (HEAD + "RuntimeError: HIP error: invalid device function\n"
            "kernel: python3[40923]: segfault at 100 ip 00007f2711b2d282 sp 00007fffa29a1530 error 4 in "
            "libamdhip64.so[7f2711a00000+3f3000] likely on CPU 9 (core 1, socket 0)\n" + TAIL)
    exp, root = _explain(tmp_path, text)
    assert root.code == "hip-invalid-device-function"


def test_hipblaslt_logger_is_not_a_rocblas_error(tmp_path):
    # hipBLASLt's own logger (`rocblaslt error:`) is its fallback, not rocBLAS' error logger
    text = (HEAD + "rocblaslt error: Cannot read /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1030.dat: "
            "No such file or directory\n" + DONE)
    exp, root = _explain(tmp_path, text)
    assert root is None and exp.answer == "benign_warning"   # test expectation follows FAMILIES.md amended rule 4


HARMLESS = [
    "[W Context.cpp:301] Warning: Attempting to run with an unsupported layout (function operator())\n",
    "[rank0]:[W reducer.cpp:1389] Warning: find_unused_parameters=True was specified in DDP constructor, but did not "
    "find any unused parameters in the forward pass. (function operator())\n",
    "W1127 10:11:12.123000 140 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each "
    "process to be 1 in default\n",
    "WARNING:torch.distributed.run:Setting OMP_NUM_THREADS environment variable for each process to be 1 in default\n",
    "torch.distributed.elastic.multiprocessing.redirects: [WARNING] NOTE: Redirects are currently not supported in "
    "Windows or MacOs.\n",
    "[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:29500 (errno: 97 - Address family not "
    "supported by protocol).\n",
    "[W socket.cpp:697] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 97 - Address "
    "family not supported by protocol).\n",
    "/opt/conda/lib/python3.10/site-packages/torchvision/io/image.py:13: UserWarning: Failed to load image Python "
    "extension: libc10_hip.so: cannot open shared object file: No such file or directory\n",
    "No ROCm runtime is found, using ROCM_HOME='/opt/rocm'\n",
    "MIOpen(HIP): Info [FindSolutionImpl] Perf Db: record not found for: ConvAsm3x3U\n",
]


@pytest.mark.parametrize("line", HARMLESS)
def test_a_log_with_only_harmless_warnings_is_benign(tmp_path, line):
    exp, root = _explain(tmp_path, HEAD + line + DONE)
    assert root is None
    assert exp.answer == "benign_warning"
    assert any(d.benign for d in exp.diagnoses)


@pytest.mark.parametrize("line", HARMLESS[:3])
def test_a_warning_line_never_hides_the_real_error(tmp_path, line):
    text = HEAD + line + "RuntimeError: HIP error: invalid device function\n" + TAIL
    exp, root = _explain(tmp_path, text)
    assert root is not None and not root.benign and exp.answer == "hip_error"


def test_a_warning_that_names_a_failure_or_the_cpu_is_not_read_as_harmless(tmp_path):
    # the logger's shape alone does not make a line harmless: DeepSpeed falling back to the CPU is a sign the GPU
    # was not found, a warning naming a failure is left to the rules that read it
    for line in ("[2024-06-01 12:00:00,000] [WARNING] [real_accelerator.py:162:get_accelerator] Setting accelerator "
                 "to CPU. If you have GPU or other accelerator, we were unable to detect it.\n",
                 "[W ProcessGroupNCCL.cpp:1250] Warning: the communicator failed to abort cleanly\n"):
        exp, _ = _explain(tmp_path, HEAD + line + DONE)
        assert not any(d.code == "warning-level-note" for d in exp.diagnoses)


def test_c10d_connect_errors_other_than_errno_97_still_read_as_rendezvous(tmp_path):
    text = (HEAD + "[W socket.cpp:697] [c10d] The client socket has failed to connect to [node01]:29500 (errno: 111 "
            "- Connection refused).\n")
    exp, _ = _explain(tmp_path, text)
    assert any(d.code == "rendezvous-retry-then-silence" for d in exp.diagnoses)


def test_torch_recovering_from_a_hipblaslt_status_is_not_the_cause(tmp_path):
    # AMDResearch/hpcfund#86: torch warns and retries with hipBLAS; the error after it is the cause
    text = (HEAD + "<stdin>:4: UserWarning: bgemm_internal_cublaslt error: HIPBLAS_STATUS_INTERNAL_ERROR when calling "
            "hipblasLtMatmul with transpose_mat1 n transpose_mat2 n m 1024 n 1024 k 1024. Will attempt to recover by "
            "calling cublas instead. (Triggered internally at /pytorch/aten/src/ATen/hip/HIPBlas.cpp:575.)\n" + DONE)
    exp, root = _explain(tmp_path, text)
    assert root is None and exp.answer == "benign_warning"


def test_hipblas_own_bf16_enum_reads_as_bf16_unsupported(tmp_path):
    # hipblasDatatype_t's bf16 is HIPBLAS_R_16B (older torch ROCm builds print it); a pre-MI200 GPU refuses it
    text = (HEAD + "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasGemmEx( handle, opa, "
            "opb, m, n, k, &falpha, a, HIPBLAS_R_16B, lda, b, HIPBLAS_R_16B, ldb, &fbeta, c, HIPBLAS_R_16B, ldc, "
            "HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT)`\n" + TAIL)
    exp, root = _explain(tmp_path, text)
    assert (root.code, exp.answer) == ("bf16-unsupported", "bf16_unsupported")
