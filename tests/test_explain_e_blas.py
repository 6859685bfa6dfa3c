"""`explain` on a BLAS library's failure status, by the status's meaning (helper e-blas, issue 26).

hipBLAS/hipBLASLt return hipblasStatus_t (hipblas-common.h: 1 NOT_INITIALIZED, 2 ALLOC_FAILED, 3 INVALID_VALUE,
4 MAPPING_ERROR, 5 EXECUTION_FAILED, 6 INTERNAL_ERROR, 7 NOT_SUPPORTED, 8 ARCH_MISMATCH, 9 HANDLE_IS_NULLPTR,
10 INVALID_ENUM, 11 UNKNOWN), rocBLAS rocblas_status (5 memory_error), cuBLAS cublasStatus_t (3 ALLOC_FAILED). The
layers above print them by name (torch's TORCH_CUDABLAS_CHECK / TORCH_HIPBLASLT_CHECK), by number (Transformer
Engine's ROCm NVTE_CHECK_HIPBLASLT `HIPBLASLT Error: <int>`, programs' HIPBLASLT_CHECK / ROCBLAS_CHECK macros) or by
cublasGetStatusString's text (TE's NVTE_CHECK_CUBLAS). A failed allocation is gpu_oom, every other failure is the
library call failing: hip_error on ROCm, cuda_error on NVIDIA. The logs below are written from those macros' formats
(paths, line numbers, ranks and the noise around them are illustrative), none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.profiles import blas_status

NOISE = ("[rank0]:[Primus:Megatron] training ...\n"
         " iteration        2/    1000 | consumed samples:           16 | lm loss: 1.071E+01 |\n")
TB = ("[rank0]: Traceback (most recent call last):\n"
      "[rank0]:   File \"/opt/te/transformer_engine/pytorch/module/linear.py\", line 512, in backward\n"
      "[rank0]:     wgrad, grad_bias, _, _ = general_gemm(inputmat_total, grad_output)\n")
TAIL = ("W0301 10:00:05.100000 311 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 420 closing "
        "signal SIGTERM\n")
TE_ROCM = "/opt/te/transformer_engine/common/gemm/rocm_gemm.hip:1131 in function hipblaslt_gemm: "
TE_CUDA = "/opt/te/transformer_engine/common/gemm/cublaslt_gemm.cu:412 in function cublas_gemm: "


def _root(tmp_path, line: str):
    log = tmp_path / "train.log"
    log.write_text(NOISE + TB + line + "\n" + line.replace("[rank0]", "[rank3]") + "\n" + TAIL)
    exp = diagnose([str(log)])
    assert exp.root is not None
    return exp.diagnoses[exp.root]


# every hipBLAS status but SUCCESS and ALLOC_FAILED, by number after TE's macro: the GEMM failing on ROCm
@pytest.mark.parametrize("num", [v for v, n in blas_status.HIPBLAS_STATUS.items()
                                 if n not in ("SUCCESS", "ALLOC_FAILED")])
def test_te_rocm_status_by_number_is_hip_error(tmp_path, num):
    r = _root(tmp_path, f"[rank0]: RuntimeError: {TE_ROCM}HIPBLASLT Error: {num}")
    assert (r.family, r.code) == ("hip_error", "blas-status-error")
    assert "HIPBLASLT_WORKSPACE_SIZE" in r.fix and "TORCH_BLAS_PREFER_HIPBLASLT=0" in r.fix


@pytest.mark.parametrize("line, family, code", [
    # ALLOC_FAILED by number, TE's and a program's own check: the allocation failed
    (f"[rank0]: RuntimeError: {TE_ROCM}HIPBLASLT Error: 2", "gpu_oom", "oom"),
    ("hipBLASLt error: 2 at /src/bench/gemm_bench.cpp:88", "gpu_oom", "oom"),
    ("rocBLAS error: 5", "gpu_oom", "oom"),
    # a program's HIPBLASLT_CHECK / HIPBLAS_CHECK / ROCBLAS_CHECK (std::cerr << "...: " << status)
    ("hipBLASLt Error: 6 at /src/bench/gemm_bench.cpp:141", "hip_error", "blas-status-error"),
    ("hipBLAS error: 3", "hip_error", "blas-status-error"),
    ("HIPBLASLT ERROR: 8", "hip_error", "blas-status-error"),
    ("hipBLASLt error: hipblasLtMatmul failed (status 7)", "hip_error", "blas-status-error"),
    ("rocBLAS error: 15", "hip_error", "blas-status-error"),
    # by name: torch's TORCH_CUDABLAS_CHECK hipified, and the TunableOp TORCH_HIPBLASLT_CHECK
    ("[rank0]: RuntimeError: CUDA error: HIPBLAS_STATUS_EXECUTION_FAILED when calling `hipblasLtMatmul( ltHandle, "
     "computeDesc.descriptor(), &alpha_val, mat1_ptr, Adesc.descriptor(), mat2_ptr, Bdesc.descriptor())`",
     "hip_error", "blas-status-error"),
    ("RuntimeError: hipblaslt error: HIPBLAS_STATUS_INVALID_VALUE when calling `hipblasLtMatmul(op.handle, "
     "matmul.descriptor())`", "hip_error", "blas-status-error"),
    ("[rank0]: RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasLtMatmul( ltHandle)`",
     "gpu_oom", "oom"),
    # TE's ROCm GEMM finding no hipBLASLt algorithm (NVTE_CHECK(returnedAlgoCount > 0, ...)): fatal, not the warning
    (f"[rank0]: RuntimeError: {TE_ROCM}Unable to find any suitable algorithms", "hip_error", "blas-status-error"),
    # NVIDIA: TE's NVTE_CHECK_CUBLAS with cublasGetStatusString's text, and its cuBLASLt heuristic
    (f"[rank0]: RuntimeError: {TE_CUDA}cuBLAS Error: an internal operation failed", "cuda_error",
     "cublas-status-error"),
    (f"[rank0]: RuntimeError: {TE_CUDA}cuBLAS Error: the requested functionality is not supported", "cuda_error",
     "cublas-status-error"),
    (f"[rank0]: RuntimeError: {TE_CUDA}cuBLAS Error: the resource allocation failed", "gpu_oom", "oom"),
    # CUDA 12's cublasGetStatusString text for INVALID_VALUE
    (f"[rank0]: RuntimeError: {TE_CUDA}cuBLAS Error: an unsupported value or parameter was passed to the function",
     "cuda_error", "cublas-status-error"),
    (f"[rank0]: RuntimeError: {TE_CUDA}Unable to find any suitable algorithms", "cuda_error",
     "cublas-status-error"),
    ("cuBLAS error: 14", "cuda_error", "cublas-status-error"),
    ("cuBLAS error: 3", "gpu_oom", "oom"),
    ("cublas runtime error : the GPU program failed to execute at /pytorch/aten/src/THC/THCBlas.cu:258",
     "cuda_error", "cublas-status-error"),
])
def test_status_by_meaning(tmp_path, line, family, code):
    r = _root(tmp_path, line)
    assert (r.family, r.code) == (family, code)


@pytest.mark.parametrize("line", [
    # numbers that are not a status: a version, a longer number
    "hipBLASLt error: 6.2.4 is older than the kernels",
    "hipBLAS error: 1234",
    # hipBLASLt's verbose per-solution refusals (ROCBLAS_VERBOSE_HIPBLASLT_ERROR=1) while the run goes on
    "hipBLASLt error: algo not supported.",
])
def test_not_a_status_failure(tmp_path, line):
    text = "step 1\n" + line + "\n" + "{'loss': 1.98, 'grad_norm': 1.4, 'epoch': 0.03}\n"
    for sig in (cat.BY_CODE["blas-status-error"], cat.BY_CODE["cublas-status-error"]):
        assert sig.match(line) is None, (sig.code, line)
    log = tmp_path / "ok.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is None or exp.diagnoses[exp.root].code not in ("blas-status-error", "cublas-status-error")


def test_hipblaslt_fallback_warning_stays_benign(tmp_path):
    log = tmp_path / "warn.log"
    log.write_text("rocblaslt warning: No paths matched /opt/rocm/lib/hipblaslt/library/*gfx1100*co. Make sure "
                   "that HIPBLASLT_TENSILE_LIBPATH is set correctly.\n"
                   "{'loss': 2.1187, 'grad_norm': 1.612, 'learning_rate': 1.98e-05, 'epoch': 0.02}\n")
    exp = diagnose([str(log)])
    assert exp.root is None or exp.diagnoses[exp.root].family in ("hipblaslt_warning", "benign_warning")


def test_status_tables_match_headers():
    hip = {n: v for v, n in blas_status.HIPBLAS_STATUS.items()}
    assert (hip["ALLOC_FAILED"], hip["INVALID_VALUE"], hip["INTERNAL_ERROR"], hip["UNKNOWN"]) == (2, 3, 6, 11)
    cu = {n: v for v, n in blas_status.CUBLAS_STATUS.items()}
    assert (cu["ALLOC_FAILED"], cu["INVALID_VALUE"], cu["EXECUTION_FAILED"], cu["NOT_SUPPORTED"]) == (3, 7, 13, 15)
    assert {n: v for v, n in blas_status.ROCBLAS_STATUS.items()}["memory_error"] == 5
