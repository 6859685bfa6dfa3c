"""The BLAS libraries' status codes, as logs print them (issue 26, helper e-blas).

A GEMM library reports a failed call by a status enum; layers above print it by NAME (torch's
`CUDA error: HIPBLAS_STATUS_INTERNAL_ERROR when calling ...`), by NUMBER (Transformer Engine's ROCm
NVTE_CHECK_HIPBLASLT: `HIPBLASLT Error: 6`; programs' own HIPBLASLT_CHECK macros: `hipBLASLt error: 6`) or by
TEXT (TE's CUDA NVTE_CHECK_CUBLAS: `cuBLAS Error: <cublasGetStatusString>`). explain answers by the status's
meaning: an allocation the library could not make is gpu_oom; every other status is the library call failing
(hip_error on ROCm, cuda_error on NVIDIA).

Sources:
- hipBLAS / hipBLASLt: hipblasStatus_t (hipblas-common/hipblas-common.h, formerly hipblas.h)
- rocBLAS: rocblas_status (rocblas/internal/rocblas-types.h)
- cuBLAS / cuBLASLt: cublasStatus_t (cublas_api.h) and cublasGetStatusString's texts
- Transformer Engine: transformer_engine/common/util/logging.h (NVTE_CHECK_CUBLAS, NVTE_CHECK_HIPBLASLT),
  common/gemm/cublaslt_gemm.cu and rocm_gemm.hip (`Unable to find any suitable algorithms`)
"""

from __future__ import annotations

# hipblasStatus_t: value -> name (HIPBLAS_STATUS_ prefix dropped); hipBLASLt returns the same enum
HIPBLAS_STATUS: dict[int, str] = {
    0: "SUCCESS", 1: "NOT_INITIALIZED", 2: "ALLOC_FAILED", 3: "INVALID_VALUE", 4: "MAPPING_ERROR",
    5: "EXECUTION_FAILED", 6: "INTERNAL_ERROR", 7: "NOT_SUPPORTED", 8: "ARCH_MISMATCH", 9: "HANDLE_IS_NULLPTR",
    10: "INVALID_ENUM", 11: "UNKNOWN",
}

# rocblas_status: value -> name (rocblas_status_ prefix dropped)
ROCBLAS_STATUS: dict[int, str] = {
    0: "success", 1: "invalid_handle", 2: "not_implemented", 3: "invalid_pointer", 4: "invalid_size",
    5: "memory_error", 6: "internal_error", 7: "perf_degraded", 8: "size_query_mismatch", 9: "size_increased",
    10: "size_unchanged", 11: "invalid_value", 12: "continue", 13: "check_numerics_fail",
    14: "excluded_from_build", 15: "arch_mismatch",
}

# cublasStatus_t: value -> name (CUBLAS_STATUS_ prefix dropped)
CUBLAS_STATUS: dict[int, str] = {
    0: "SUCCESS", 1: "NOT_INITIALIZED", 3: "ALLOC_FAILED", 7: "INVALID_VALUE", 8: "ARCH_MISMATCH",
    11: "MAPPING_ERROR", 13: "EXECUTION_FAILED", 14: "INTERNAL_ERROR", 15: "NOT_SUPPORTED", 16: "LICENSE_ERROR",
}

# cublasGetStatusString / the cuBLAS docs / THC's old table: the texts of a failed allocation (any release)
CUBLAS_ALLOC_TEXTS: tuple[str, ...] = ("the resource allocation failed", "resource allocation failed")

# names that are not a failure, and names that are an allocation that failed (gpu_oom)
NOT_FAILURE: frozenset[str] = frozenset({"SUCCESS", "success", "perf_degraded", "size_unchanged",
                                         "size_increased", "continue"})
ALLOC_FAILURE: frozenset[str] = frozenset({"ALLOC_FAILED", "memory_error"})

