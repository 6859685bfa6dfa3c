"""explain (issue 26, r3-hip): the ROCm stack's error messages as its SOURCE prints them, read by family.

Each shape below is the format string of the library that prints it (named beside it), filled the way a run fills
it, inside a log with the usual noise (progress bars, harmless warnings, the launcher's teardown):
- HIP runtime: ROCm/clr hipamd/src/hip_error.cpp (ihipGetErrorName / ihipGetErrorString), as PyTorch prints it
  (`HIP error: <hipGetErrorString>` + the AMD_SERIALIZE_KERNEL hint) and other layers print the enum name
- HSA runtime: ROCm/ROCR-Runtime core/runtime/runtime.cpp (`Memory access fault by GPU node-%u (Agent handle: %p) on
  address %p%s. Reason: %s.`, `HW Exception by GPU node-%u (Agent handle: %p) reason :%s`), hsa_status_string's
  `HSA_STATUS_ERROR_*: <text>` through ROCclr's `Callback: Queue %p aborting with error : %s code: 0x%x`
- Triton's HIP launcher: third_party/amd/backend/driver.c (`%s Code: %d, Messsage: %s` with prefix
  `Triton Error [HIP]: ` and hipGetErrorString's text)
- AMD SMI: amdsmi_exception.py / amdsmi_cli (`AMDSMI_STATUS_DRIVER_NOT_LOADED`, `Unable to get devices, driver not
  initialized (amdgpu not found in modules)`), ROCm SMI's RSMI_STATUS_* enums
- RCCL: src/misc/amdsmi_wrap.cc (`AMD SMI fabric: ... falling back to sysfs`) and init.cc's `Missing "..."` advisories
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

HEAD = ("[2025-03-02 10:11:02,117] [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda "
        "(auto detect)\n"
        "/opt/conda/lib/python3.10/site-packages/transformers/training_args.py:1575: FutureWarning: "
        "`evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers.\n"
        "  warnings.warn(\n"
        "[INFO|trainer.py:2128] 2025-03-02 10:11:40,552 >> ***** Running training *****\n"
        "  1%|▏         | 3/375 [00:07<14:11,  2.29s/it]\n")
TAIL = ("[2025-03-02 10:12:11,004] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 4411 "
        "closing signal SIGTERM\n"
        "[2025-03-02 10:12:11,210] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -6) "
        "local_rank: 0 (pid: 4410) of binary: /opt/conda/bin/python\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")
TB = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 88, in <module>\n    trainer.train()\n'
      '  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py", line 125, in forward\n'
      "    return F.linear(input, self.weight, self.bias)\n")
HINT = ("HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be "
        "incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
        "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n")


def _root(tmp_path, text: str):
    p = tmp_path / "run.log"
    p.write_text(HEAD + text + TAIL, encoding="utf-8")
    e = diagnose([str(p)])
    return e, (e.diagnoses[e.root] if e.root is not None else None)


# hip_error.cpp's strings that PyTorch prints after `HIP error: ` and that all mean the HIP runtime failed (not the
# ones other families own: out of memory -> gpu_oom, invalid device ordinal -> config_error)
HIP_STRINGS = ["unspecified launch failure", "the launch timed out and was terminated",
               "uncorrectable ECC error encountered", "device kernel image is invalid",
               "driver version is insufficient for runtime version", "initialization error", "invalid argument",
               "invalid configuration argument", "too many resources requested for launch", "operation not supported",
               "unknown error", "shared object initialization failed", "invalid resource handle",
               "peer access is not supported between these two devices", "__global__ function call is not configured",
               "OS call failed or operation not supported on this OS", "device-side assert triggered",
               "an illegal memory access was encountered", "unspecified launch failure in prior launch",
               "no kernel image is available for execution on the device", "invalid device pointer",
               "the operation cannot be performed in the present state", "no ROCm-capable device is detected"]


@pytest.mark.parametrize("text", HIP_STRINGS)
def test_every_hip_error_string_torch_prints_is_a_hip_error(tmp_path, text):
    e, r = _root(tmp_path, TB + f"RuntimeError: HIP error: {text}\n" + HINT)
    assert r is not None and r.family == "hip_error" and not r.benign


# ihipGetErrorName's enum names as llama.cpp/ggml and C++ callers print them
HIP_NAMES = ["hipErrorLaunchFailure", "hipErrorInvalidValue", "hipErrorECCNotCorrectable", "hipErrorLaunchTimeOut",
             "hipErrorNotInitialized", "hipErrorInsufficientDriver", "hipErrorInvalidKernelFile",
             "hipErrorSharedObjectInitFailed", "hipErrorPeerAccessUnsupported", "hipErrorInvalidHandle",
             "hipErrorAssert", "hipErrorUnknown", "hipErrorNotSupported", "hipErrorPriorLaunchFailure",
             "hipErrorContextIsDestroyed"]


@pytest.mark.parametrize("name", HIP_NAMES)
def test_every_hip_error_enum_name_is_a_hip_error(tmp_path, name):
    e, r = _root(tmp_path, f"HIP call failed: hipMemcpyAsync returned {name} (code 1)\n"
                           "terminate called after throwing an instance of 'std::runtime_error'\nAborted (core dumped)\n")
    assert r is not None and r.family == "hip_error"


def test_ecc_reasons_of_the_hsa_runtime_are_the_hardware_not_a_kernel_bug(tmp_path):
    for line in ["Memory access fault by GPU node-9 (Agent handle: 0x5613bd6b3e20) on address 0x7ee8a4400000(may not "
                 "be exact address). Reason: DRAM ECC failure.",
                 "Memory access fault by GPU node-1 (Agent handle: 0x1f2e3d) on address (nil). Reason: Generic hang "
                 "recovery.",
                 "HW Exception by GPU node-3 (Agent handle: 0x55e2b6f0) reason :ECC",
                 "RuntimeError: HIP error: uncorrectable ECC error encountered",
                 "CUDA error: hipErrorECCNotCorrectable"]:
        e, r = _root(tmp_path, line + "\n")
        assert r is not None and r.code == "gpu-hang", line
    # a page not present is the kernel's bad address, not the hardware
    e, r = _root(tmp_path, "Memory access fault by GPU node-2 (Agent handle: 0x55d0c5a9b870) on address "
                           "0x7f0d1c600000. Reason: Page not present or supervisor privilege.\n")
    assert r is not None and r.code == "gpu-memory-fault"


@pytest.mark.parametrize("status,text,code", [
    ("HSA_STATUS_ERROR_MEMORY_FAULT", "Agent attempted to access an inaccessible address.", "gpu-memory-fault"),
    ("HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "The agent attempted to access memory beyond the largest legal "
     "address.", "gpu-memory-fault"),
    ("HSA_STATUS_ERROR_INVALID_ISA", "The instruction set architecture is invalid.", "hip-invalid-device-function"),
    ("HSA_STATUS_ERROR_EXCEPTION", "An HSAIL operation resulted in a hardware exception.", None),
    ("HSA_STATUS_ERROR_INVALID_CODE_OBJECT", "The code object is invalid.", None),
    ("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", "The agent attempted to execute an illegal shader instruction.", None)])
def test_hsa_status_through_rocclrs_queue_abort_is_a_hip_error(tmp_path, status, text, code):
    e, r = _root(tmp_path, ":0:rocdevice.cpp            :2881: 4076510093 us: [pid:3140  tid:0x7f1a95fff640] Callback: "
                           f"Queue 0x7f1a2c200000 aborting with error : {status}: {text} code: 0x1016\n")
    assert r is not None and r.family == "hip_error"
    if code:
        assert r.code == code


def test_tritons_hip_launcher_reports_the_runtime_not_a_compile_config(tmp_path):
    # third_party/amd/backend/driver.c: "Triton Error [HIP]: " + " Code: %d, Messsage: %s"
    def tri(code, text):
        return TB + f"RuntimeError: Triton Error [HIP]:  Code: {code}, Messsage: {text}\n"
    e, r = _root(tmp_path, tri(700, "an illegal memory access was encountered"))
    assert r is not None and r.code == "gpu-memory-fault"
    e, r = _root(tmp_path, tri(1, "invalid argument"))
    assert r is not None and r.family == "hip_error"
    e, r = _root(tmp_path, tri(2, "out of memory"))
    assert r is not None and r.family == "gpu_oom"
    # a kernel asking for more registers/LDS than the GPU has is the kernel's config (torch.compile / Triton)
    e, r = _root(tmp_path, tri(701, "too many resources requested for launch"))
    assert r is not None and r.family == "config_error" and r.code == "torch-compile-error"


def test_amd_smi_without_the_amdgpu_driver_is_the_gpu_not_initialising(tmp_path):
    # amdsmi_exception.py's `Error code:\n\t<n> | <AMDSMI_STATUS_*> - <text>`; amdsmi_cli's own logging.error
    for text in [TB + "amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n"
                      "\t34 | AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded\n",
                 "ERROR:root:Unable to get devices, driver not initialized (amdgpu not found in modules)\n",
                 TB + "amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n"
                      "\t18 | AMDSMI_STATUS_INIT_ERROR - An error occurred during initialization\n",
                 "rsmi_init() failed: RSMI_STATUS_INIT_ERROR\n"]:
        e, r = _root(tmp_path, text)
        assert r is not None and r.code == "hip-init-failed", text


def test_amd_smi_is_weak_beside_a_specific_failure_and_torchs_warning_is_harmless(tmp_path):
    e, r = _root(tmp_path, "amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n\t34 | "
                           "AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded\n" + TB +
                           "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                           "capacity of 15.98 GiB of which 1.20 GiB is free.\n")
    assert r is not None and r.family == "gpu_oom"
    # torch/cuda/__init__.py under WSL (no amdgpu module, the GPU works through /dev/dxg): a warning, then training
    p = tmp_path / "wsl.log"
    p.write_text(HEAD + "/usr/lib/python3.12/site-packages/torch/cuda/__init__.py:721: UserWarning: Can't initialize "
                 "amdsmi - Error code: 34\n  warnings.warn(f\"Can't initialize amdsmi - Error code: {e.err_code}\")\n"
                 "  5%|▌         | 20/375 [00:40<12:01,  2.13s/it]\n{'loss': 1.3, 'epoch': 0.1}\n", encoding="utf-8")
    e = diagnose([str(p)])
    assert e.root is None or e.diagnoses[e.root].benign


def test_rocm_smi_not_supported_metric_is_not_a_failure(tmp_path):
    # ROCm/rocMLIR#470: `rocm-smi -a` on a card without the metric, judged tolerable by the maintainers
    e, r = _root(tmp_path, "ERROR: 2 GPU[0]: od volt: RSMI_STATUS_NOT_SUPPORTED: This function is not supported in "
                           "the current environment.\n  2%|▏         | 9/375 [00:20<13:01,  2.13s/it]\n")
    assert r is None or r.family != "hip_error"


def test_rccls_own_advisories_are_not_the_root_when_training_goes_on(tmp_path):
    p = tmp_path / "run.log"
    p.write_text(HEAD +
                 "node1:4410:4520 [0] /long/rccl/src/misc/amdsmi_wrap.cc:650 NCCL WARN AMD SMI fabric: unable to "
                 "verify the loaded library's fabric ABI; falling back to sysfs\n"
                 'node1:4410:4410 [0] /long/rccl/src/init.cc:126 NCCL WARN Missing "HSA_FORCE_FINE_GRAIN_PCIE=1" from '
                 "environment which can lead to low RCCL performance, system instablity or hang!\n"
                 "  2%|▏         | 9/375 [00:20<13:01,  2.13s/it]\n"
                 "{'loss': 1.42, 'grad_norm': 0.9, 'learning_rate': 1e-05, 'epoch': 0.05}\n", encoding="utf-8")
    e = diagnose([str(p)])
    assert e.root is None or e.diagnoses[e.root].benign


def test_amd_log_level_trace_of_query_statuses_is_not_a_failure(tmp_path):
    # clr hip_internal.hpp HIP_ERROR_PRINT (LOG_INFO): `<api>: Returned <hipGetErrorName> : ` after every API call;
    # hipErrorNotReady answers a query while work is in flight, PeerAccessAlreadyEnabled a repeated enable
    p = tmp_path / "trace.log"
    p.write_text(HEAD +
                 ":3:hip_event.cpp            :327 : 2914412350 us: [pid:11 tid:0x7f] hipEventQuery: Returned "
                 "hipErrorNotReady : \n"
                 ":3:hip_peer.cpp             :187 : 2914412390 us: [pid:11 tid:0x7f] hipDeviceEnablePeerAccess: "
                 "Returned hipErrorPeerAccessAlreadyEnabled : \n"
                 "  5%|▌         | 20/375 [00:40<12:01,  2.13s/it]\n{'loss': 1.3, 'epoch': 0.1}\n", encoding="utf-8")
    e = diagnose([str(p)])
    assert e.root is None or e.diagnoses[e.root].benign
    # the same trace with a real failure is still read
    e, r = _root(tmp_path, ":3:hip_module.cpp           :662 : 2914412350 us: [pid:11 tid:0x7f] hipModuleLaunchKernel: "
                           "Returned hipErrorLaunchFailure : \n")
    assert r is not None and r.family == "hip_error"
