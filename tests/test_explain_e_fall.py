"""explain's last reading (helper e-fall, issue 26): where every rule and the lexicon fallback declined, a best
reading from the tools' own names - HIP's hipError_t names and hipGetErrorString texts (ROCm/clr
hipamd/src/hip_error.cpp), the ROCm libraries' status enums (rocsparse_status_*, HIPSPARSE_STATUS_*, ROCRAND_STATUS_*,
rocblas_status_*, miopenStatus*), amdgpu kernel lines, CUDA's cudaError_t/CUresult names - the Python exception's
class and the owners of its frames, and for a log with no failure at all its most prominent warning.

The logs are written as the tools print them (their enum names, raise sites of the shapes the libraries use), with
the usual noise; none is copied from the corpus.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import last_reading, traceback_anatomy
from rocm_tune.core.runs.diagnose.diagnose import explain_text

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "[INFO|trainer.py:2128] 2025-01-10 10:00:00,000 >> ***** Running training *****\n")
NVIDIA = "| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: 12.4 |\n"
ROCM = "ROCm version: 6.2.4  torch 2.5.1+rocm6.2  HIP_VISIBLE_DEVICES=0,1\n"
TB = 'Traceback (most recent call last):\n  File "/work/train.py", line 12, in <module>\n    main()\n'


def _lib(pkg: str, fn: str, f: str) -> str:
    return f'  File "/opt/venv/lib/python3.11/site-packages/{pkg}/{f}", line 77, in {fn}\n    out = call(x)\n'


def _root(text: str):
    exp = explain_text(text)
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


# (family, log): logs no rule of the catalogue reads, each ending on a name from the runtime's or library's source
LAST_FAILURES = {
    # rocSPARSE's rocsparse_status (rocsparse-types.h) raised by an extension's own check
    "rocsparse-status": ("hip_error", NOISE + "[rank0]: RuntimeError: rocsparse_spmm returned "
                         "rocsparse_status_invalid_size\n"),
    # hipSPARSE's hipsparseStatus_t
    "hipsparse-status": ("hip_error", ROCM + NOISE + "RuntimeError: HIPSPARSE_STATUS_EXECUTION_FAILED when calling "
                         "`hipsparseSpMM(handle, opA, opB, &alpha, matA, matB, &beta, matC, HIP_R_32F, alg, buf)`\n"),
    # rocRAND's rocrand_status
    "rocrand-status": ("hip_error", NOISE + "[rank3]: RuntimeError: rocrand generate failed: "
                       "ROCRAND_STATUS_LAUNCH_FAILURE\n"),
    # a failed device allocation in a ROCm library's own spelling is the GPU's memory (FAMILIES.md gpu_oom vs hip_error)
    "rocsparse-memory": ("gpu_oom", NOISE + "[rank0]: RuntimeError: rocsparse_spmm returned "
                         "rocsparse_status_memory_error\n"),
    # CUDA's cudaError_t on a machine with NVIDIA's marks
    "cuda-name-nvidia": ("cuda_error", NVIDIA + NOISE + "[rank0]: RuntimeError: cudaStreamSynchronize failed: "
                         "cudaErrorLaunchTimeout\n"),
    # a card refused by its gfx in a library's message, no build list shown: hip_error (FAMILIES.md arch clause)
    "gfx-refused": ("hip_error", NOISE + "[rank0]: RuntimeError: fp8 block-scaled GEMM is not supported on gfx1103\n"),
    # the same with the build's PYTORCH_ROCM_ARCH list and the card's gfx (rocminfo) shown, the card not in it
    "gfx-refused-build-list": ("version_check", "PYTORCH_ROCM_ARCH=gfx900;gfx906;gfx908;gfx90a;gfx1030;gfx1100\n"
                               "  Name:                    gfx1103\n" + NOISE +
                               "[rank0]: RuntimeError: fp8 block-scaled GEMM is not supported on gfx1103\n"),
    # NotImplementedError raised in installed code: the release lacks the path
    "not-implemented": ("version_check", NOISE + TB + _lib("vllm", "apply", "model_executor/quant.py") +
                        "NotImplementedError: fused_moe is not available for the quant method awq_marlin\n"),
    # a ValueError raised where the user's setting reaches the library
    "value-setting": ("config_error", NOISE + TB + _lib("mytrainer", "check", "opts.py") +
                      "ValueError: lr_scheduler 'cosine_restarts' unknown\n"),
}


@pytest.mark.parametrize("name", sorted(LAST_FAILURES))
def test_last_reading_names_the_failure(name):
    family, text = LAST_FAILURES[name]
    exp, r = _root(text)
    assert exp.answer == family, (name, exp.answer, r and r.code)
    assert r is not None and r.code == last_reading.CODE and r.title.startswith(last_reading.BEST)
    assert r.numbers["best_reading"] is True and exp.status == "failed"


def test_cuda_names_on_a_rocm_machine_are_hip():
    """cudaError_t names printed where the log bears ROCm's marks (a CUDA-named shim running on HIP) are the ROCm
    runtime's, not NVIDIA's."""
    exp, r = _root(ROCM + "  Name:                    gfx1100\n" + NOISE +
                   "RuntimeError: kernel launch returned cudaErrorIllegalInstruction\n")
    assert exp.answer == "hip_error" and r.code == last_reading.CODE


def test_flash_attention_refusing_the_arch_is_flash_attn_error():
    got = last_reading.runtime_reading(["RuntimeError: FlashAttention ck_tile backend is not supported on gfx1030"],
                                       "", rocm=True, nvidia=False)
    assert got is not None and got.family == "flash_attn_error"


@pytest.mark.parametrize("line", ["E rocm_driver.cc:1170] could not synchronize: HIP_ERROR_LaunchFailure",
                                  "hipModuleLaunchKernel returned hipErrorLaunchFailure",
                                  "RuntimeError: HIP error: unspecified launch failure"])
def test_every_spelling_of_a_hip_error_is_the_same_name(line):
    got = last_reading.runtime_reading([line], "", rocm=True, nvidia=False)
    assert got is not None and got.family == "hip_error"
    assert "LaunchFailure" in got.numbers["named"] or "unspecified launch failure" in got.numbers["named"]


def test_hip_answers_and_successes_are_no_failure():
    """AMD_LOG_LEVEL=3 traces every call's status in a healthy run (`Returned hipErrorNotReady`); a library's success
    status is no failure either."""
    lines = [":3:hip_stream.cpp:530 : 123 us: hipStreamQuery: Returned hipErrorNotReady :",
             "rocblas_gemm_ex -> rocblas_status_success", "hipDeviceEnablePeerAccess: hipErrorPeerAccessAlreadyEnabled"]
    assert last_reading.runtime_reading(lines, "", rocm=True, nvidia=False) is None


def test_rccl_unhandled_cuda_error_is_the_collective():
    got = last_reading.runtime_reading(["RuntimeError: NCCL Error 1: unhandled cuda error (run with NCCL_DEBUG=INFO "
                                        "for details)"], "", rocm=True, nvidia=False)
    assert got is not None and got.family == "nccl_rccl_timeout_hang"


def test_amdgpu_kernel_lines_are_the_runtime():
    got = last_reading.runtime_reading(["[ 8123.456] amdgpu 0000:c3:00.0: amdgpu: GPU reset begin!"], "",
                                       rocm=True, nvidia=False)
    assert got is not None and got.family == "hip_error"
    oom = last_reading.runtime_reading(["cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY"], "", rocm=False, nvidia=True)
    assert oom is not None and oom.family == "gpu_oom"


def _frames(*paths: str) -> list[traceback_anatomy.Frame]:
    return traceback_anatomy.anatomy([(p, "f") for p in paths])


USER = "/work/train.py"
PEFT = "/opt/venv/lib/python3.11/site-packages/peft/tuners/lora/model.py"
TRANSFORMERS = "/opt/venv/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py"


@pytest.mark.parametrize("line,frames,family", [
    # CPython names the dotted module only once its parent imported: the parent is installed, the release lacks it
    ("ModuleNotFoundError: No module named 'peft.tuners.lora.layer_norm'", (USER, PEFT), "version_check"),
    ("ModuleNotFoundError: No module named 'fancy_kernels'", (USER,), "missing_package"),
    ("ImportError: cannot import name 'Cache' from 'transformers.cache_utils'", (USER, PEFT), "version_check"),
    ("AttributeError: 'LlamaAttention' object has no attribute 'rotary_emb'", (USER, PEFT, TRANSFORMERS),
     "version_check"),
    ("TypeError: forward() got an unexpected keyword argument 'position_embeddings'", (USER, PEFT, TRANSFORMERS),
     "version_check"),
    ("ValueError: column 'response' is empty in /data/train.parquet", (USER, PEFT), "dataset_error"),
    ("AssertionError: pipeline stages 3 do not divide 40 layers", (USER, TRANSFORMERS), "config_error"),
    ("ValueError: The version of PEFT you are using is too old, please upgrade", (USER, TRANSFORMERS), "version_check"),
    # a library's own exception class names what it refuses
    ("pydantic_core._pydantic_core.ValidationError: 1 validation error for TrainConfig", (USER, PEFT), "config_error"),
    ("omegaconf.errors.ConfigAttributeError: Key 'lr_warmup' is not in struct", (USER,), "config_error"),
    ("datasets.exceptions.DatasetGenerationError: An error occurred while generating the dataset", (USER,),
     "dataset_error"),
    ("jinja2.exceptions.UndefinedError: 'dict object' has no attribute 'content'", (USER, TRANSFORMERS),
     "tokenizer_template"),
    # a SyntaxError raised importing an installed package: that release is written for another Python
    ("SyntaxError: invalid syntax", (USER, "/opt/venv/lib/python3.8/site-packages/newlib/core.py"), "version_check"),
    ("SyntaxError: invalid syntax", (USER,), None),
    # no reading: a None value is the script's, a bare assert says nothing, a RuntimeError's class says nothing
    ("AttributeError: 'NoneType' object has no attribute 'shape'", (USER, TRANSFORMERS), None),
    ("AssertionError", (USER, TRANSFORMERS), None),
    ("RuntimeError: something odd happened in the loop", (USER, TRANSFORMERS), None),
    # a signature error inside the user's own script crosses no package border
    ("TypeError: helper() got an unexpected keyword argument 'x'", (USER,), None),
])
def test_exception_reading_by_class_and_frames(line, frames, family):
    got = last_reading.exception_reading(line, _frames(*frames))
    assert (got[0] if got else None) == family


# warnings no rule of the catalogue knows: a logger's WARNING, a ROCm library's warning twice (values differ)
WARNINGS = ("2025-01-10 10:00:00 WARNING mytrainer.sched: warmup steps exceed 10% of the run\n"
            "rocBLAS warning: tuning file /opt/tune/gemm.yaml names 3 solutions not in this library\n"
            "rocBLAS warning: tuning file /opt/tune/gemm.yaml names 5 solutions not in this library\n"
            "2025-01-10 10:00:01 INFO mytrainer.loop: step 1/1000\n")


def test_no_failure_is_benign_naming_the_most_prominent_warning():
    exp, r = _root(NOISE + WARNINGS)
    assert r is None and exp.answer == "benign_warning"
    d = next(d for d in exp.diagnoses if d.code == last_reading.CODE_WARNING)
    assert d.benign and d.first.text.startswith("rocBLAS warning: tuning file") and d.numbers["count"] == 2
    assert d.numbers["warning_kind"] == "GPU library warning" and d.numbers["distinct_warnings"] == 2


@pytest.mark.parametrize("ending", ["2025-01-10 10:00:05 ERROR mytrainer.pool: worker 3 stopped responding\n",
                                    "launcher: process 4242 exited with code 3\n",
                                    "Killed\n"])
def test_a_failure_anywhere_is_no_benign_reading(ending):
    exp, _r = _root(NOISE + WARNINGS + ending)
    assert exp.answer != "benign_warning"
    assert not any(d.code == last_reading.CODE_WARNING for d in exp.diagnoses)


def test_a_rule_answer_is_never_changed():
    """The last reading only speaks where explain would answer `unknown`: an OOM a rule reads keeps its code."""
    exp, r = _root(NOISE + "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                   "capacity of 63.98 GiB of which 1.20 GiB is free.\n")
    assert exp.answer == "gpu_oom" and r.code == "oom"
    assert not any(d.code.startswith(last_reading.CODE) for d in exp.diagnoses)


def test_warning_reading_reads_what_failed_inside_a_warning_level():
    """NCCL/RCCL have no error level (`NCCL WARN ... failed`): a warning line that says something failed is a failure;
    a shell's echo of a command naming NCCL_DEBUG=WARN is no warning at all."""
    assert last_reading.warning_reading("2025-01-10 WARNING x.y: slow tokenizer in use\nINFO step 1 of 9\n") is not None
    # a log that stops at its warning: the stop is not explained by it (e-benign's reading); a log of warnings only
    # (a user's paste of what it printed) is what the user asks about
    assert last_reading.warning_reading("INFO step 1 of 9\n2025-01-10 WARNING x.y: slow tokenizer in use\n") is None
    only = last_reading.warning_reading("2025-01-10 WARNING x.y: slow tokenizer in use\n"
                                        "rocBLAS warning: tuning file /t.yaml names 3 solutions not in this library\n"
                                        "    (the library's own solutions are used)\n")
    assert only is not None and only.numbers["warning_kind"] == "GPU library warning"
    assert last_reading.warning_reading("2025-01-10 WARNING x.y: slow tokenizer in use\n"
                                        "node1:12:34 [0] NCCL WARN Call to connect returned Connection refused, "
                                        "failed\n") is None
    assert last_reading.warning_reading("+ mpirun -np 16 -x NCCL_DEBUG=WARN ./all_reduce_perf\n") is None
    assert last_reading.warning_reading("{'loss': nan, 'grad_norm': nan, 'epoch': 0.1}\nWARNING a.b: c d e f\n") is None
