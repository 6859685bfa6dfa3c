"""explain reads the general shape of a failure (issue 26, item 5; h7-hip): a HIP status however a layer prints it,
host RAM exhaustion however a launcher reports it, a hang seen in a stack dump, the phase a silent kill happened in,
and harmless lines in a run that finished. Every line is quoted from the public source named next to it."""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose.diagnose import explain_text

# (family of the root, code of the root, the log as posted, where it was posted)
ROOTS = [
    ("hip_error", "hip-runtime-error",
     "2023-07-19 22:08:36.875173: F ./tensorflow/core/util/gpu_launch_config.h:174] Check failed: err == hipSuccess "
     "(98 vs. 0)\n/dockerx/test32_2.sh: line 36:    14 Aborted                 (core dumped) python3 /dockerx/test_user.py\n",
     "ROCm/tensorflow-upstream#2163"),
    ("hip_error", "hip-runtime-error",
     "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed call to hipGetFuncBySymbol: hipError_t(98)\n",
     "ROCm/jax#489"),
    ("hip_error", "hip-runtime-error",
     "Status: INTERNAL: Failed to launch ROCm kernel: RepeatBufferKernel with block dimensions: 256x1x1: "
     "hipError_t(303)\n*** Check failure stack trace: ***\n", "ROCm/legacy-rocm-build#4311"),
    ("hip_error", "hip-runtime-error",
     "Internal: Failed to enqueue async memset operation: HIP_ERROR_InvalidValue\n", "ROCm/tensorflow-upstream#947"),
    ("hip_error", "no-gpu-visible",
     "hsa api call failure at line 900, file: /home/jenkins/jenkins-root/workspace/compute-rocm-rel-1.9/rocminfo/"
     "rocminfo.cc. Call returned 4104\n", "ROCm/legacy-rocm-build#547"),
    ("hip_error", "no-gpu-visible",
     ":1:rocdevice.cpp            :450 : 0131015231 us: [pid:12426 tid:0x7f7474755880] hsa_init failed.\n"
     ":1:runtime.cpp              :78  : 0131015238 us: [pid:12426 tid:0x7f7474755880] Runtime initialization failed\n"
     ":3:hip_context.cpp          :153 : 0131015255 us: [pid:12426 tid:0x7f7474755880] hipInit: Returned "
     "hipErrorInvalidDevice : \nHIP hipInit: Invalid device\n", "ROCm/hip#3353 (AMD_LOG_LEVEL=3, iGPU enabled)"),
    ("hip_error", "gpu-hang",
     "Apr 12 00:54:43 hostname kernel: amdgpu 0000:2f:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001a "
     "address=0xec68053da00 flags=0x0010]\n", "pytorch/pytorch#75642"),
    ("hip_error", "gpu-hang",
     "[22344.295194] amdgpu 0000:03:00.0: amdgpu: GPU mode1 reset failed\n[22344.456139] amdgpu 0000:83:00.0: amdgpu: "
     "ASIC reset failed with error, -121 for drm dev, 0000:83:00.0\n", "ROCm/legacy-rocm-build#2494 (2x 7900 XTX)"),
    ("hip_error", "gpu-hang",
     "[Tue Jul 23 13:49:25 2024] amdgpu: sq_intr: error, detail 0x00000000, type 2, sh 1, priv 1, wave_id 1, simd_id 0, "
     "wgp_id 0\n", "ROCm/legacy-rocm-build#3452 (7900 XTX)"),
    ("hip_error", "hip-init-failed",
     "amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n\t6 | AMDSMI_STATUS_DRM_ERROR - Error when called "
     "libdrm\n", "ROCm/amdsmi py-interface/amdsmi_exception.py (the status and its text)"),
    ("hip_error", "hip-init-failed",
     "PyTorch version: 2.1.0a0\nIs debug build: False\nROCM used to build PyTorch: N/A\nIs CUDA available: False\n",
     "pytorch/pytorch#119081 (collect_env)"),
    ("host_ram_oom", "host-oom-killed",
     "===================================================================================\n"
     "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 92248 RUNNING AT fzh-desktop\n"
     "=   EXIT CODE: 9\n=   CLEANING UP REMAINING PROCESSES\n=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n",
     "je-santos/MPLBM-UT#92 (\"This problem is caused by a lack of memory\")"),
    ("host_ram_oom", "kernel-oom-killer",
     "sending SIGTERM to process 7378 uid 1000 \"tail\": badness 156, VmRSS 4962 MiB\n",
     "rfjakob/earlyoom README (its victim line, here without the journal's prefix)"),
    ("host_ram_oom", "host-alloc-failed",
     "OSError: [WinError 1455] 页面文件太小，无法完成操作。 Error loading \"D:\\Anaconda3\\lib\\site-packages\\torch\\lib\\"
     "cudnn_cnn_infer64_8.dll\" or one of its dependencies.\n", "babysor/MockingBird#486"),
    ("host_ram_oom", "host-alloc-failed",
     "<jemalloc>: Error in malloc(): out of memory. Requested: 108917280192, active: 37916508160\n",
     "a SPAdes run as posted (jemalloc's oom_string, src/jemalloc.c)"),
    ("host_ram_oom", "host-alloc-failed", "OUT OF MEMORY! attempted allocation size: 65\n"
     "cannot allocate memory for thread-local data: ABORT\n", "glibc elf/dl-tls.c oom(), as a Steam log shows it"),
    ("nccl_rccl_timeout_hang", "stack-waits-in-collective",
     "Thread 686181 (active): \"MainThread\"\n    all_reduce (torch/distributed/distributed_c10d.py:1316)\n"
     "    _reduce_outputs (deepspeed/runtime/pipe/engine.py:519)\n    eval_batch (deepspeed/runtime/pipe/engine.py:452)\n",
     "bigscience-workshop/bigscience train/tr11-176B-ml/chronicles.md (py-spy dump at the eval hang)"),
    ("dataset_error", "dataset-error",
     "{'loss': 1.1543, 'learning_rate': 2.8205128205128207e-06, 'epoch': 0.0}\nTraceback (most recent call last):\n"
     "FileNotFoundError: [Errno 2] No such file or directory: '/xxx/llava_finetune_data/ocr_vqa/images/782118577.jpg'\n",
     "haotian-liu/LLaVA#601"),
]


@pytest.mark.parametrize("family,code,log,source", ROOTS, ids=[r[3][:40] for r in ROOTS])
def test_the_general_shape_names_the_root(family, code, log, source):
    e = explain_text(log)
    assert e.root is not None, source
    r = e.diagnoses[e.root]
    assert (r.family, r.code) == (family, code), source
    assert not r.benign


# lines the same words appear in that are not that failure
NOT_A_HIP_RUNTIME_ERROR = [
    # out of memory by number (HIP before 5.x): the allocator's retry, gpu_oom's (ROCm/tensorflow-upstream#82 class)
    "2019-01-08 19:06:11.303639: E tensorflow/stream_executor/rocm/rocm_driver.cc:601] failed to allocate 7.35G "
    "(7889485824 bytes) from device: hipError_t(1002)",
    # the executor's first device query failing: the runtime against an older host driver (tensorflow-upstream#2289)
    "2024-01-10 20:25:42.726550: E tensorflow/compiler/xla/stream_executor/rocm/rocm_driver.cc:1294] failed to query "
    "device memory info: HIP_ERROR_InvalidValue",
]


@pytest.mark.parametrize("line", NOT_A_HIP_RUNTIME_ERROR)
def test_oom_and_device_queries_are_not_hip_runtime_errors(line):
    assert all(s.code != "hip-runtime-error" for s, _ in cat.match_line(line))


def test_a_python_traceback_through_a_collective_is_not_a_wait():
    # an exception raised inside all_reduce (`line N, in f`) is decided by its own error, not read as a hang
    line = '  File "/usr/lib/python3/dist-packages/torch/distributed/distributed_c10d.py", line 2050, in all_reduce'
    assert all(s.code != "stack-waits-in-collective" for s, _ in cat.match_line(line))


HARMLESS = [
    ("2018-03-23 17:18:40.740562: W tensorflow/stream_executor/rocm/rocm_driver.cc:405] creating context when one is "
     "currently active; existing: 0x7ff369ad9360", "ROCmSoftwarePlatform/tensorflow#19 (maintainer: safe to ignore)"),
    ("[W NNPACK.cpp:53] Could not initialize NNPACK! Reason: Unsupported hardware.", "Sachini/ronin#51"),
    ("2024-03-05 12:17:07.535024: E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register "
     "cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
     "TensorFlow >= 2.15 start-up, as posted in public fine-tuning notes"),
    ("Expected integer value from monitor, but got \"\"", "ROCm/legacy-rocm-build#4382 (rocm-smi)"),
    ("g1072:1263985:1263985 [0] NCCL INFO NET/Plugin : No plugin found (librccl-net.so), using internal implementation",
     "ROCm/rccl#1026 (MI250X)"),
    ("ERROR: 2 GPU[0]: od volt: RSMI_STATUS_NOT_SUPPORTED: This function is not supported in the current environment.",
     "ROCm/rocMLIR#470 (rocm-smi -a)"),
]


@pytest.mark.parametrize("line,source", HARMLESS, ids=[h[1][:40] for h in HARMLESS])
def test_notes_printed_on_every_run_are_harmless(line, source):
    hit = cat.best_match(line)
    assert hit is not None and hit[0].benign, source


FINISHED = ("{'train_runtime': 1234.5, 'train_samples_per_second': 3.2, 'train_steps_per_second': 0.4, "
            "'train_loss': 1.234, 'epoch': 3.0}\n100%|##########| 375/375 [20:34<00:00,  3.29s/it]\n"
            "***** train metrics *****\n  epoch                    =        3.0\n")
# torch >= 2.4's note before the first barrier (seeds/000 quotes it where a run did hang)
BARRIER_NOTE = ("[rank4]:[W207 22:21:42.712978449 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 4]  using GPU 4 "
                "to perform barrier as devices used by this process are currently unknown. This can potentially cause "
                "a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a "
                "particular device,or call init_process_group() with a device_id.\n")


def test_a_wait_sign_the_run_went_past_is_harmless_in_a_finished_run():
    assert explain_text(BARRIER_NOTE).answer == "nccl_rccl_timeout_hang"   # where it stopped: the hang
    e = explain_text(BARRIER_NOTE + FINISHED)
    assert e.root is None and e.answer == "benign_warning"


def test_an_exception_python_ignored_or_the_run_outlived_is_no_cause():
    ignored = ("Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f2a1c0d5e50>\n"
               "Traceback (most recent call last):\n"
               '  File "/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py", line 1479, in __del__\n'
               "    self._shutdown_workers()\nAttributeError: 'NoneType' object has no attribute 'join'\n")
    e = explain_text(FINISHED + ignored)
    assert e.root is None and e.answer == "benign_warning"
    # the same exception without CPython's `ignored` header and with nothing after it is the run's failure
    raised = "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n" \
             "AttributeError: 'NoneType' object has no attribute 'join'\n"
    assert explain_text(raised).root is not None


# ms-swift's per-rank data loading, then torchrun's teardown and nothing else (modelscope/ms-swift#1453)
LOADING = ("[INFO:swift] dataset.py2474 load_dataset_from_local processing: /data/chinesewebtext/"
           "2023-23part-0010_processed.jsonl\n")
TEARDOWN = ("W0720 16:58:25.611000 140386850924352 torch/distributed/elastic/multiprocessing/api.py:851] Sending process "
            "512072 closing signal SIGTERM\nW0720 16:58:25.675000 140386850924352 torch/distributed/elastic/"
            "multiprocessing/api.py:851] Sending process 512074 closing signal SIGTERM\n")


def test_a_silent_teardown_while_loading_data_is_host_ram():
    e = explain_text(LOADING + TEARDOWN)
    r = e.diagnoses[e.root]
    assert (r.code, r.family) == ("child-failed", "host_ram_oom")


def test_a_teardown_elsewhere_or_with_an_exit_code_stays_the_launchers():
    steps = "{'loss': 1.23, 'learning_rate': 1e-05, 'epoch': 0.4}\n 40%|####      | 400/1000 [10:00<15:00, 1.5s/it]\n"
    assert explain_text(steps + TEARDOWN).answer == "launcher_exit"
    exit1 = ("E0720 16:58:26.000000 140386850924352 torch/distributed/elastic/multiprocessing/api.py:826] failed "
             "(exitcode: 1) local_rank: 1 (pid: 512073) of binary: /usr/bin/python\n")
    assert explain_text(LOADING + TEARDOWN + exit1).answer == "launcher_exit"


IO_PAGE_FAULT = ("Apr 12 00:54:43 hostname kernel: amdgpu 0000:2f:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT "
                 "domain=0x001a address=0xec68053da00 flags=0x0010]\n")   # pytorch/pytorch#75642


def test_iommu_faults_are_the_gpu_alone_and_the_p2p_hang_among_ranks():
    assert explain_text(IO_PAGE_FAULT).answer == "hip_error"
    # the same fault in a run whose ranks talk over RCCL/NCCL (NVIDIA/nccl#1232's set-up line): peer-to-peer hangs
    e = explain_text("[1] node2:22555:22555 [0] NCCL INFO Connected all rings\n" + IO_PAGE_FAULT)
    assert e.answer == "nccl_rccl_timeout_hang"
    assert "iommu=pt" in e.diagnoses[e.root].fix
