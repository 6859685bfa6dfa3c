"""`rocm-tune explain` and the one catalogue of failures (issue 20).

Each catalogue signature is checked against REAL log lines, quoted with their source: the calibration
cases (shared/calibration/real-crashes), the field reports (shared/seeds), tests/fixtures/logs, or the
public thread named next to the line. Then the diagnosis engine (root cause across ranks, cascades,
benign lines, numbers with the run's plan), the CLI as a user drives it, the bound on reading, junk.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose.diagnose import diagnose, explain_text, oom_numbers, oom_plan_fix
from tests.conftest import run_cli

LOGS = Path(__file__).parent / "fixtures" / "logs"
GIB = 2**30

# (expected code, the line as posted, where it was posted)
REAL_LINES = [
    # integrator, session 13: Transformer Engine's run-time compile (rtc.cpp)
    ("library-rtc-compile-failed", "RuntimeError: /home/user/pip-req-build-n0h8f0x1/transformer_engine/common/util/"
     "rtc.cpp:200 in function compile: NVRTC Error: NVRTC_ERROR_COMPILATION", "NVIDIA/TransformerEngine#1018"),
    # integrator, session 13: xformers' CUTLASS kernel guard (kernel_forward.h)
    ("xformers-kernel-arch-mismatch", "FATAL: this function is for sm80, but was built for sm750",
     "Linaqruf/kohya-trainer#85, TheLastBen/fast-stable-diffusion (xformers kernel_forward.h)"),
    # integrator, session 13: ROCclr's guarantee() line (hipamd/src/hip_global.cpp) before its abort
    ("hip-runtime-check-failed", ":0:/longer_pathname_so_that_rpms_can_support_packaging_the_debug_info_for_all_os_"
     "profiles/src/clr/hipamd/src/hip_global.cpp:158 : 15742695212 us:  Module not initialized",
     "ROCm/ROCm#2241 (ROCm/clr hipamd/src/hip_global.cpp)"),
    # integrator, session 13: mmengine/registry/registry.py _register_module's KeyError (torch 2.5's Adafactor)
    ("registry-name-collision", "KeyError: 'Adafactor is already registered in optimizer at torch.optim'",
     "InternLM/xtuner#809, open-mmlab/mmengine#1574 (mmengine/registry/registry.py _register_module)"),
    # integrator, session 12: torch/utils/checkpoint.py's CheckpointError (LoRA + ZeRO-3 + non-reentrant
    # checkpointing, DeepSpeed#8148) and verl's default reward dispatcher
    ("checkpoint-recompute-mismatch", "[rank0]: torch.utils.checkpoint.CheckpointError: torch.utils.checkpoint: "
     "Recomputed values for the following tensors have different metadata than during the forward pass.",
     "huggingface/transformers#47254, huggingface/trl#2514 (torch/utils/checkpoint.py CheckpointError)"),
    ("verl-reward-data-source", "NotImplementedError: Reward function is not implemented for data_source=''",
     "inclusionAI/AReaL#105 (verl/utils/reward_score/__init__.py default_compute_score)"),
    # e-g4 (issue 26): transformers trainer.py compute_loss with a base model (BertModel) given to Trainer
    ("trainer-model-without-head", "ValueError: The model did not return a loss from the inputs, only the following "
     "keys: last_hidden_state,pooler_output. For reference, the inputs it received are input_ids,attention_mask.",
     "huggingface/transformers trainer.py compute_loss; openillumi BertModel QA thread"),
    ("hip-sdk-dll-version-mismatch", "Failed to load ZLUDA: Could not find module 'C:\\Program Files\\AMD\\ROCm\\6.1"
     "\\bin\\hiprtc0507.dll' (or one of its dependencies). Try using the full path with constructor syntax.",
     "Nerogar/OneTrainer#421"),
    ("drm-auth-refused", "amdgpu_device_initialize: amdgpu_get_auth (1) failed (-1)",
     "mesa/libdrm amdgpu_device.c; ROCm/k8s-device-plugin#65"),
    ("oom", "OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 MiB (GPU 1; 31.75",
     "calibration alpaca-rlhf-3 (l294265421/alpaca-rlhf#3)"),
    ("oom", "[rank3]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.45 GiB.",
     "seeds/003 (`HIP out of memory. Tried to allocate 1.45 GiB`), rank prefix as torchrun prints it"),
    ("host-oom-killed", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 "
     "(pid: 812917) of binary: /data/chenhao/anaconda3/envs/ColossalAI-Chat/bin/python", "hpcaitech/ColossalAI#3514"),
    ("host-oom-killed", "  traceback : Signal 9 (SIGKILL) received by PID 14750", "lzhxmu/CPPO#6"),
    ("host-ram-nearly-full", "[2023-04-20 19:03:19,581] [INFO] [utils.py:840:see_memory_usage] CPU Virtual Memory:  "
     "used = 29.71 GB, percent = 95.3%", "calibration dolly-111 (databrickslabs/dolly#111)"),
    ("slurm-oom-kill", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of your "
     "processes may have been killed by the cgroup out-of-memory handler.", "ArjunaCluster/ArjunaUsers#52"),
    ("slurm-oom-kill", "slurmstepd: error: Detected 1 oom_kill event in StepId=11300781.0. Some of the step tasks have "
     "been OOM Killed.", "nextflow-io/nextflow#5932"),
    ("iommu-p2p-hang", "deep-visionscaper3:38629:38629 [0] /long_pathname_so_that_rpms_can_package_the_debug_info/src/"
     "extlibs/rccl/build/hipify/src/init.cc:132 NCCL WARN Missing \"iommu=pt\" from kernel comm",
     "calibration rocm-rccl-1129 (ROCm/rccl#1129)"),
    ("barrier-no-progress", "[rank4]:[W207 22:21:42.712978449 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 4]  "
     "using GPU 4 to perform barrier as devices used by this process are currently unknown. This can potentially cause "
     "a hang if this rank to GPU mapping is incorrect.", "kohya-ss/sd-scripts#1925; seeds/000"),
    ("collective-timeout", "[rank1]:[E218 04:12:55.661937 3812 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
     "collective operation timeout: WorkNCCL(SeqNum=1183, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, "
     "Timeout(ms)=1800000) ran for 1800069 milliseconds before timing out.",
     "tests/fixtures/logs/alert-collective-timeout.log"),
    ("nccl-error", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
     "ProcessGroupNCCL.cpp:1333, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
     "vllm-project/vllm#10523"),
    ("rendezvous-timeout", "torch.distributed.DistNetworkError: The client socket has timed out after 300000ms while "
     "trying to connect to (036c56dce41b, 41331).", "nvidia-cosmos/cosmos-rl#681"),
    ("ddp-mark-ready-twice", "[default1]:[rank1]: RuntimeError: Expected to mark a variable ready only once. This error "
     "is caused by one of the following reasons: 1) Use of a module parameter outside the `forward` function.",
     "tests/fixtures/logs/alert-ddp-mark-ready-twice.log; seeds/004"),
    ("ddp-unused-parameters", "RuntimeError: Expected to have finished reduction in the prior iteration before starting "
     "a new one.  ", "calibration diffusers-5354 (huggingface/diffusers#5354)"),
    ("fp16-loss-scale-minimum", "Exception: Current loss scale already at minimum - cannot decrease scale anymore. "
     "Exiting run.", "calibration lf-251 (hiyouga/LlamaFactory#251)"),
    ("fp16-overflow-skip", "  3%|▎         | 13/387 [03:56<1:55:22, 18.51s/it][2023-07-26 15:18:10,322] [INFO] "
     "[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 16, "
     "reducing to 8", "calibration lf-251"),
    ("nan-loss", "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.3478e-07, 'epoch': 0.02}",
     "tests/fixtures/logs/alert-loss-collapse-qwen-fp16.log; seeds/000 (grad_norm: NaN, loss: 0.0)"),
    ("bf16-unsupported", "RuntimeError: bf16 precision was requested but not available on this hardware. Please use "
     "fp32 precision instead.", "calibration torchtune-801 (meta-pytorch/torchtune#801)"),
    ("hip-invalid-device-function", "RuntimeError: HIP error: invalid device function",
     "calibration pytorch-132570 (pytorch/pytorch#132570)"),
    ("rocblas-no-tensile-arch", "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such "
     "file or directory for GPU arch : gfx1036", "ROCm/legacy-rocm-build#3015"),
    ("hip-invalid-device-function", "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"",
     "AUTOMATIC1111/stable-diffusion-webui#5067 (RX 6700 XT; fixed by HSA_OVERRIDE_GFX_VERSION=10.3.0)"),
    ("no-gpu-visible", "RuntimeError: No HIP GPUs are available", "seeds/002"),
    # r5-run (issue 26): the line every rank prints before waiting on a stale JIT-build lock
    ("torch-extension-lock-wait", "Using /root/.cache/torch_extensions/py39_cu117 as PyTorch extensions root...",
     "deepspeedai/DeepSpeedExamples#842"),
    ("gpu-memory-fault", "Memory access fault by GPU node-1 (Agent handle: 0x55eb9b596570) on address 0x7f66960b2000. "
     "Reason: Page not present or supervisor privilege.", "pytorch/pytorch#109929"),
    ("cuda-error", "RuntimeError: CUDA error: device-side assert triggered", "artidoro/qlora#105"),
    ("cuda-error", "Error invalid configuration argument at line 119 in file /src/csrc/ops.cu",
     "axolotl-ai-cloud/axolotl#1527"),
    ("processor-not-found", "[rank4]: ValueError: Processor was not found, please check and update your model file.",
     "hiyouga/LlamaFactory#9458"),
    ("unsloth-trainer-patch-failed", "RuntimeError: Unsloth: Please file a bug report! Error patching SFTTrainer",
     "unslothai/unsloth#1700"),
    ("unsloth-trainer-patch-skipped", "Unsloth: Could not patch trl.trainer.grpo_trainer: invalid syntax (<string>, "
     "line 212)", "unsloth/models/rl.py patch_trl_rl_trainers (logger.warning_once)"),
    ("runner-model-type-unknown", "ValueError: model_type: 'internvl2_5-38b' is not registered.",
     "modelscope/ms-swift#2676"),
    ("runner-model-type-unknown", "ValueError: Please explicitly pass the model_type. For reference, the available "
     "model_types: ['qwen2', 'qwen2_5', 'qwen2_5_math', 'marco_o1', 'qwq'].", "modelscope/ms-swift#2891"),
    ("hipblaslt-unsupported", "[rank1]:/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py:125: "
     "UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas "
     "(Triggered internally at ../aten/src/ATen/Context.cpp:296.)", "tests/fixtures/logs/alert-hipblaslt-unsupported.log"),
    ("bitsandbytes-no-gpu", "/opt/conda/lib/python3.10/site-packages/bitsandbytes/cextension.py:31: UserWarning: The "
     "installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers and GPU quantization are "
     "unavailable.", "hyperonym/basaran#3"),
    ("bnb-rocm-binary-mismatch", "Could not find the bitsandbytes ROCm binary at PosixPath('/home/USER/ROCm/Almalinux/"
     "bitsandbytes/bitsandbytes/libbitsandbytes_rocm63.so')", "ROCm/bitsandbytes#82"),
    ("bitsandbytes-no-gpu", "OSError: /opt/conda/envs/diff/lib/python3.10/site-packages/bitsandbytes/"
     "libbitsandbytes_cpu.so: cannot open shared object file: No such file or directory", "ROCm/bitsandbytes#30"),
    ("bnb-rocm-binary-mismatch", "RuntimeError: Configured ROCm binary not found at /opt/app-root/lib64/python3.12/"
     "site-packages/bitsandbytes/libbitsandbytes_rocm84.so", "bitsandbytes-foundation/bitsandbytes#2014"),
    ("token-indices-too-long", "[WARNING|tokenization_utils_base.py:3831] 2023-12-06 16:44:52,195 >> Token indices "
     "sequence length is longer than the specified maximum sequence length for this model (2455 > 2048). Running this "
     "sequence through the model will result in indexing errors", "huggingface/alignment-handbook#65"),
    ("harmless-warning", "[WARNING|logging.py:328] 2025-01-09 14:02:12,004 >> `use_cache=True` is incompatible with "
     "gradient checkpointing. Setting `use_cache=False`.", "tests/fixtures/logs/alert-loss-collapse-qwen-fp16.log"),
    ("harmless-warning", "deep-visionscaper3:38629:38629 [0] NCCL INFO NET/Plugin : Plugin load (librccl-net.so) "
     "returned 2 : librccl-net.so: cannot open shared object file: No such file or directory",
     "calibration rocm-rccl-1129"),
    ("deepspeed-op-build-failed", "/root/anaconda3/envs/bitten/lib/python3.8/site-packages/deepspeed/ops/csrc/includes/"
     "gemm_test.h:6:10: fatal error: cuda_profiler_api.h: No such file or directory",
     "calibration deepspeed-2682 (deepspeedai/DeepSpeed#2682)"),
    ("deepspeed-op-build-failed", "ninja: build stopped: subcommand failed.", "calibration deepspeed-2682"),
    ("deepspeed-op-build-failed", "ModuleNotFoundError: No module named 'dskernels'", "seeds/000"),
    ("version-check-failed", "[rank0]: ImportError: trl>=0.8.6,<=0.9.6 is required for a normal functioning of this "
     "module, but found trl==0.24.0.", "calibration lf-10757 (hiyouga/LlamaFactory#10757)"),
    ("import-name-mismatch", "ImportError: cannot import name 'BitsAndBytesConfig' from 'transformers' "
     "(C:\\Users\\ron\\miniconda3\\lib\\site-packages\\transformers\\__init__.py)", "georgesung/llm_qlora#2"),
    ("dataset-error", "ValueError: Undefined dataset mllm_demo in dataset_info.json.",
     "calibration lf-7703 (hiyouga/LlamaFactory#7703)"),
    ("dataset-error", "llamafactory.webui.common:162 >> Cannot open data/dataset_info.json due to Expecting property "
     "name enclosed in double quotes: line 2 column 1 (char 17).", "hiyouga/LlamaFactory#5969"),
    ("json-decode-error", "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 24 "
     "column 5 (char 684)", "hiyouga/LlamaFactory#635"),
    ("template-error", "ValueError: Template qwen2 does not exist.", "calibration lf-5453 (hiyouga/LlamaFactory#5453)"),
    ("hf-cache-permission", "-rw------- 1 unj46ad six   665 Sep 14 19:08 10c66461e4c109db5a2196bff4bb59be30396ed8",
     "calibration hfhub-1215 (huggingface/huggingface_hub#1215)"),
    ("unrecognized-model-type", "ValueError: Unrecognized model in /home/youliang/checkpoints/my-lora-checkpoint/"
     "checkpoint-9500/. Should have a `model_type` key in its config.json, or contain one of the following strings in "
     "its name: albert, align, altclip", "NVIDIA/Isaac-GR00T#150; seeds/004"),
    ("unrecognized-model-type", "ValueError: Unrecognized model. Should have `model_type` key", "seeds/004 (问题 3)"),
    ("hf-cache-permission", "PermissionError: Permission denied: 'xxx.lock'", "seeds/004 (问题 1: HF datasets lock file)"),
    ("zero-world-size-mismatch", "deepspeed.runtime.zero.utils.ZeRORuntimeException: The checkpoint being loaded used a "
     "DP world size of 256 but the current world size is 2. Automatic adjustment of ZeRO's optimizer state "
     "partitioning with a new world size is not currently supported.", "calibration glm-136 (THUDM/GLM#136)"),
    ("state-dict-mismatch", "RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:", "lm-sys/FastChat#575"),
    ("slurm-time-limit", "slurmstepd: error: *** JOB 494583 ON ... CANCELLED AT 2024-04-20T09:09:37 DUE TO TIME LIMIT ***",
     "ZettaAI/zetta_utils#671"),
    ("disk-full", "2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160] OSError: "
     "[Errno 28] No space left on device", "calibration dolly-139 (databrickslabs/dolly#139)"),
    ("missing-package", "ModuleNotFoundError: No module named 'flash_attn'", "hiyouga/EasyR1#384 (its import error)"),
    ("flash-attn-error", "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following "
     "error: the package flash_attn seems to be not installed.", "hiyouga/EasyR1#384"),
    ("transformers-too-old", "KeyError: 'qwen2'", "QwenLM/Qwen3#434 (transformers 4.32 loading Qwen1.5)"),
    ("deepspeed-batch-mismatch", "[rank0]: AssertionError: Check batch related parameters. train_batch_size is not "
     "equal to micro_batch_per_gpu * gradient_acc_step * world_size 8 != 2 * 1 * 1", "deepspeedai/DeepSpeed#6914"),
    ("fp16-unscale-gradients", "ValueError: Attempting to unscale FP16 gradients.", "haotian-liu/LLaVA#363"),
    ("inputs-no-grad", "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
     "LlamaChinese/Llama-Chinese#242"),
    ("lora-target-not-found", "ValueError: Target modules {'q_proj', 'v_proj'} not found in the base model. Please "
     "check the target modules and try again.", "hiyouga/LlamaFactory#1785"),
    ("hf-hub-unreachable", "OSError: We couldn't connect to 'https://huggingface.co' to load this file, couldn't find "
     "it in the cached files and it looks like meta-llama/Meta-Llama-3-8B-Instruct is not the path to a directory "
     "containing a file named config.json.", "PromtEngineer/localGPT#822"),
    ("hf-hub-unreachable", "huggingface_hub.utils._errors.LocalEntryNotFoundError: Connection error, and we cannot find "
     "the requested files in the disk cache. Please try again or make sure your Internet connection is on.",
     "baichuan-inc/Baichuan-7B#83"),
    ("missing-shared-library", "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
     "huggingface/autotrain-advanced#292"),
    ("child-failed", "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812914 closing signal "
     "SIGTERM", "hpcaitech/ColossalAI#3514"),
    # issue 26: the same families in the other spellings real logs use
    ("kernel-oom-killer", "[26002.109061] Out of memory: Killed process 576419 (python) total-vm:78521468kB, "
     "anon-rss:54398260kB, file-rss:2628kB, shmem-rss:0kB, UID:1000 pgtables:119448kB oom_score_adj:0",
     "deepseek-ai/DeepSeek-VL2#90 (dmesg)"),
    ("kernel-oom-killer", "[2059991.491436] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
     "mems_allowed=0,global_oom,task_memcg=/user.slice,task=python3,pid=25315,uid=0", "pcyin/tranX#41 (dmesg)"),
    ("host-alloc-failed", "RuntimeError: [enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't "
     "allocate memory: you tried to allocate", "deepspeedai/DeepSpeed#3860"),
    ("host-oom-killed", "2020-11-24 20:22:28.106 /bin/bash: line 27: 318 Killed sh start.sh",
     "divamgupta/deep-clustering-kingdra#2"),
    ("host-oom-killed", "[2025-09-10 20:17:40,120] [ERROR] failed (exitcode: -9) local_rank: 0 (pid: 438) of binary: "
     "/opt/conda/bin/python", "hiyouga/LlamaFactory#9116 (title, with the launcher's timestamp)"),
    ("fp16-scale-collapsed", "Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to "
     "2.002083095183101e-146", "NVIDIA/apex#318"),
    ("nccl-peer-gone", "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
     "NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5", "NVIDIA/nccl#2076"),
    ("nccl-peer-gone", "socketProgressOpt: Call to recv from 172....<33759> failed : Connection reset by peer",
     "NVIDIA/nccl#2076"),
    ("nccl-error", "kolyoz2:25146:25854 [0] ib_plugin.c:1105 NCCL WARN NET/IB : Got completion from peer "
     "10.0.35.1<49189> with error 4, opcode 5327, len 5327, vendor err 81 (Send)", "NVIDIA/nccl-tests#252"),
    ("miopen-error", "MIOpen Error: /MIOpen/src/ocl/convolutionocl.cpp:831: Forward Convolution cannot be executed "
     "due to incorrect params", "ROCm/MIOpen#1994 (DCU under Slurm)"),
    ("miopen-error", "RuntimeError: miopenStatusUnknownError", "ROCm/legacy-rocm-build#2587"),
    ("hip-runtime-error", "!!! Exception during processing !!! HIP error: invalid argument", "ROCm/TheRock#2707"),
    # e-blas: TE's NVTE_CHECK_HIPBLASLT (status by number) and NVTE_CHECK_CUBLAS (cublasGetStatusString's text)
    ("blas-status-error", "RuntimeError: .../common/gemm/rocm_gemm.hip:1934 in function hipblaslt_gemm: HIPBLASLT "
     "Error: 6", "AMD-AGI/Primus#1141 (primus te patch docstring)"),
    ("cublas-status-error", "RuntimeError: .../cublaslt_gemm.cu:102 in function cublas_gemm: cuBLAS Error: an "
     "internal operation failed", "H200 Transformer Engine Gemma 3 report (TE cublaslt_gemm.cu NVTE_CHECK_CUBLAS)"),
    ("hip-invalid-device-function", "torch.AcceleratorError: HIP error: invalid device function",
     "pytorch/pytorch#164346"),
    ("hip-invalid-device-function", "[BUG] ROCm/WSL \"HIP error: no kernel image is available for execution on the "
     "device\"", "huggingface/sentence-transformers#2903"),
    ("rocblas-no-tensile-arch", "rocBLAS error: Could not initialize Tensile host: No devices found",
     "ollama/ollama#6685 (rootless container: /dev/kfd not readable)"),
    # test expectation follows FAMILIES.md amended rule 2 (device permission): gpu-device-permission
    ("gpu-device-permission", "Unable to open /dev/kfd read-write: Permission denied", "ROCm/ROCm-docker#116"),
    ("no-gpu-visible", "Unable to open /dev/kfd read-write: Operation not permitted",
     "ROCm/ROCm#1211 (the KFD driver refusing: dkms build failed)"),
    ("nccl-shm-exhausted", "a1b2c3d4e5f6:214:380 [1] NCCL WARN Error: failed to extend /dev/shm/nccl-03v824 to 4194660 "
     "bytes", "NVIDIA NCCL troubleshooting guide (Docker default /dev/shm)"),
    ("nccl-shm-removed", "gpu-node17:55122:55291 [2] NCCL WARN unlink shared memory /dev/shm/nccl-d5rTd0 failed, "
     "error: No such file or directory", "NVIDIA NCCL user guide, Troubleshooting > Shared memory > Systemd"),
    ("token-id-past-embedding", "/pytorch/aten/src/THC/THCTensorIndex.cu:361: void indexSelectLargeIndex(...): block: "
     "[12,0,0], thread: [96,0,0] Assertion `srcIndex < srcSelectDimSize` failed.", "huggingface/transformers#1848"),
    ("hf-cache-permission", "ERROR:    PermissionError: [Errno 13] Permission denied: '/app/aphrodite-engine/.triton'",
     "dphnAI/sonar#458 (triton cache)"),
    ("hf-cache-permission", "PermissionError: [Errno 13] Permission denied: '/tmp/triton/d645ef562cfc8f31ab6c7b88eccac0f6"
     ".lock'", "triton-lang/triton#518"),
    ("amdgpu-ids-missing", "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory",
     "ROCm/pytorch#984 (not fatal; pytorch/pytorch#147791 removed it as benign)"),
    ("hipblaslt-unsupported", "rocBLAS error: No hipBLASLt solution found", "LykosAI/StabilityMatrix#1390"),
    ("hipblaslt-unsupported", "rocblaslt warning: No paths matched /opt/hipBLASLt/build/release/library/../Tensile/"
     "library/*gfx906*co. Make sure that HIPBLASLT_TENSILE_LIBPATH is set correctly.", "ROCm/hipBLASLt#251"),
    ("torch-compile-error", "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
     "ROCm/legacy-rocm-build#3060 (RX 7900 XTX)"),
    ("torch-compile-error", "Pass execution failedLLVM ERROR: Failed to translate TritonGPU to LLVM IR.",
     "pytorch/pytorch#101137 (ROCm 5.5)"),
    ("shm-exhausted", "RuntimeError: DataLoader worker (pid 572) is killed by signal: Bus error. It is possible that "
     "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
     "bytedance/Protenix#2 (Docker's default /dev/shm)"),
    ("weights-corrupt", "[rank1]: safetensors_rust.SafetensorError: Error while deserializing header:"
     "MetadataIncompleteBuffer", "modelscope/ms-swift docs/source/Instruction/Frequently-asked-questions.md"),
    ("deepspeed-no-launcher", "ModuleNotFoundError: No module named 'mpi4py'", "axolotl-ai-cloud/axolotl docs/faq.qmd"),
    ("hipblaslt-unsupported-raised", "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!",
     "ROCm/hipBLASLt#1243"),
    ("import-name-mismatch", "ImportError: No module named 'transformers.modeling_flash_attention_utils'",
     "a requirements pin older than the model code (transformers 4.40)"),
    ("bf16-unsupported", "bf16 mixed precision requires PyTorch >= 1.10 and a supported device.",
     "accelerate's check as kohya-ss users post it (T4)"),
    ("collective-shape-mismatch", "accelerate.utils.operations.DistributedOperationException: Cannot apply desired "
     "operation due to shape mismatches. All shapes across devices must be valid.",
     "huggingface/accelerate docs (debug mode)"),
    ("deepspeed-op-build-failed", "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: "
     "Installed CUDA version 12.2 does not match the version torch was compiled with 11.7, unable to compile cuda/cpp "
     "extensions without a matching cuda version.", "JIA-Lab-research/MGM#91"),
    ("nccl-error", "NCCL WARN hipIpcGetMemHandle failed : invalid argument", "ROCm/rocm-systems PR #7864 (MI300X in "
     "Kubernetes)"),
    ("bf16-unsupported", "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.fdot2.bf16.bf16", "unslothai/unsloth#5337 "
     "(RX 6600, RDNA2)"),
    ("oom", "HSA_STATUS_ERROR_OUT_OF_RESOURCES", "vllm-project/vllm PR #48458 (MI300, graph capture)"),
    ("hip-missing-code-object", ":1:hip_fatbin.cpp           :117 : 8802962845 us: [pid:19349 tid:0x14dec9d33080] "
     "Missing CO for these ISAs - ", "ROCm/legacy-rocm-build#4208 (MI250X, AMD_LOG_LEVEL=5)"),
    ("miopen-error", "terminate called after throwing an instance of 'miopen::Exception'",
     "ROCm/legacy-rocm-build#1355 (MI50)"),
    ("nccl-init-then-silence", "[1] node2:22555:22555 [0] NCCL INFO Connected all rings", "NVIDIA/nccl#1232"),
    ("stack-waits-in-collective", "    all_reduce (torch/distributed/distributed_c10d.py:1316)",
     "bigscience-workshop/bigscience train/tr11-176B-ml/chronicles.md (py-spy dump of the ranks hanging at eval)"),
    ("host-oom-killed", "[1]+  已杀死               nohup java -jar dlfc-framework-bigdata-statistical-1.0-SNAPSHOT.jar",
     "a zh_CN bash job report of a SIGKILL, as posted in a public note (bash's `Killed` in Chinese)"),
    ("log-says-hang", "[Then training hangs here]", "a public troubleshooting note's pasted log (torch.compile "
     "max-autotune)"),
    ("rocm-library-missing", "ImportError: libamdhip64.so.6: cannot open shared object file: No such file or "
     "directory", "a public porting note (paddlepaddle-dcu built for ROCm 6 on a runtime that provides libamdhip64.so.7)"),
    ("permission-denied", "PermissionError: [Errno 13] Permission denied: '/tmp/tritonbench/commands.log'",
     "meta-pytorch/tritonbench PR #247"),
    ("version-required", "ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=0.26.0`: Please run "
     "`pip install transformers[torch]` or `pip install accelerate -U`", "huggingface/transformers training_args.py's "
     "check as users post it"),
    ("oom", "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
     "initializing the engine.", "vLLM's engine start as users post it"),
    # e-benign (issue 26): the one checkpoint warning that is a cause (reentrant checkpointing, frozen inputs: the
    # checkpointed layers get no gradient) - a weak config_error, not a harmless line
    ("checkpoint-inputs-no-grad", "/usr/lib/python3/site-packages/torch/utils/checkpoint.py:87: UserWarning: None of "
     "the inputs have requires_grad=True. Gradients will be None", "torch/utils/checkpoint.py's warning as users post "
     "it (WARNING_CAUSES: kept out of the harmless Python warnings)"),
    ("harmless-warning", "/usr/lib/python3/site-packages/torch/utils/checkpoint.py:1399: UserWarning: "
     "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an "
     "exception if use_reentrant is not passed.", "torch/utils/checkpoint.py's warning as users post it (a "
     "UserWarning with an error's words is still a warning)"),
    # the ninja run of torch.utils.cpp_extension names a failed native build (issue 26, explain-sw), not an unknown error
    ("native-build-failed", "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.",
     "calibration deepspeed-2682"),
    # issue 26: signatures learned from the corpus's fit part, each with a line of another public thread
    ("int8-wrong-device", "ValueError: You can't train a model that has been loaded in 8-bit precision on a different "
     "device than the one you're training on. Make sure you loaded the model on the correct device using for example "
     "`device_map={'':torch.cuda.current_device()}`", "yangjianxin1/Firefly#270 (torchrun, 4 GPUs, QLoRA)"),
    ("int8-multi-device-old-accelerate", "ValueError: You can't train a model that has been loaded in 8-bit precision "
     "on multiple devices.", "artidoro/qlora#137"),
    ("deepspeed-config-validation", "[rank0]: pydantic_core._pydantic_core.ValidationError: 1 validation error for "
     "DeepSpeedZeroConfig", "hiyouga/LlamaFactory#5252 (deepspeed 0.15.0)"),
    ("checkpoint-rename-race", "[rank2]: OSError: [Errno 39] Directory not empty: '/root/results/tmp-checkpoint-s0yubqtr'"
     " -> '/root/results/checkpoint-50'", "FanqingM/MM-Eureka-V0#8"),
    ("checkpoint-rename-race", "FileNotFoundError: [Errno 2] No such file or directory: 'model/tmp-checkpoint-49' -> "
     "'model/checkpoint-49'", "huggingface/transformers#27925"),
    ("no-training-steps", "[rank0]: AttributeError: 'TrainerState' object has no attribute 'last_model_checkpoint'. "
     "Did you mean: 'best_model_checkpoint'?", "modelscope/ms-swift#3396"),
    ("no-training-steps", "[WARNING:swift] No training was carried out, which may be due to the dataset being too "
     "small or incorrect usage of resume_from_checkpoint.", "modelscope/ms-swift#3863"),
    ("rccl-scratch-reclaim", "[FATAL ERROR]: Please set HSA_NO_SCRATCH_RECLAIM=1 and rerun.", "ROCm/ATOM#913 (MI35x)"),
    ("miopen-missing-kdb", "MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx1030_12.kdb Performance "
     "may degrade. Please follow instructions to install: https://github.com/ROCmSoftwarePlatform/MIOpen#installing-"
     "miopen-kernels-package", "ROCm/MIOpen#2123"),
    ("miopen-error", "MIOpen(HIP): Error [Do] 'sqlite3_step(stmt.GetSQLiteStmt())' failed, Internal error while "
     "accessing SQLite database: database disk image is malformed", "MIOpen's SQLite kernel cache on a shared home"),
    ("flash-attn-error", "AssertionError: One of GPU archs of ['gfx1030'] is invalid or not supported by "
     "Flash-Attention", "ROCm/flash-attention setup.py validate_and_update_archs"),
    ("hipblaslt-unsupported", "rocblaslt error: Could not load /opt/venv/lib/python3.12/site-packages/torch/lib/"
     "hipblaslt/library/TensileLibrary_lazy_gfx1201.dat", "hipBLASLt without a Tensile library for RDNA4 (rocBLAS "
     "falls back)"),
    ("rocblas-no-tensile-arch", "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such "
     "file or directory for GPU arch : gfx1032", "rocBLAS on an RDNA2 arch it has no kernels for"),
    ("invalid-device-ordinal", "RuntimeError: CUDA error: invalid device ordinal", "torchrun with more "
     "--nproc_per_node than visible GPUs, as users post it"),
    ("invalid-device-ordinal", "torch.AcceleratorError: HIP error: invalid device ordinal", "ROCm: a worker whose "
     "HIP_VISIBLE_DEVICES was narrowed by its launcher (vllm-project/vllm PR #21522)"),
    ("native-build-failed", "error: command '/opt/rocm/bin/hipcc' failed with exit code 1", "setuptools building a "
     "HIP extension (flash-attention, bitsandbytes) as pip prints it"),
    ("checkpoint-open-failed", "RuntimeError: File /scratch/ckpt/epoch_3/model.pt cannot be opened.", "torch.save "
     "into a directory that is full, missing or read-only, as users post it"),
    ("extension-abi-mismatch", "ImportError: /usr/local/lib/python3.10/dist-packages/vllm/_C.abi3.so: undefined "
     "symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs", "a vLLM wheel built for another torch, as users post it"),
    ("flash-attn-error", "RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "Dao-AILab/flash-attention "
     "on a V100/T4"),
    # not installed -> missing_package (FAMILIES.md), flash_attn like any package check_imports names
    ("missing-package", "ImportError: This modeling file requires the following packages that were not found in your "
     "environment: flash_attn. Run `pip install flash_attn`", "transformers' check_imports for remote code (Phi-3, "
     "MiniCPM)"),
    ("missing-package", "ImportError: This modeling file requires the following packages that were not found in your "
     "environment: einops. Run `pip install einops`", "transformers' check_imports for remote code"),
    ("deepspeed-op-build-failed", "RuntimeError: Ninja is required to load C++ extensions", "torch.utils.cpp_extension "
     "JIT builds (DeepSpeed ops) without ninja"),
    ("harmless-warning", "MIOpen(HIP): Warning [IsEnoughWorkspace] [GetSolutionsFallback WTI] Solver <GemmFwdRest>, "
     "workspace required: 1048576, provided ptr: 0 size: 0", "MIOpen's workspace note on ROCm convolutions"),
    ("json-decode-error", "pyarrow.lib.ArrowInvalid: JSON parse error: Missing a name for object member. in row 0",
     "huggingface/datasets reading a malformed JSONL"),
    # explain-r2b: the driver's job timeout is a hang (gpu-hang), not a kernel's bad address (gpu-memory-fault)
    ("gpu-hang", "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1234, "
     "emitted seq=1236", "the amdgpu kernel driver's GPU hang report in dmesg"),
    ("gpu-hang", "HW Exception by GPU node-4 (Agent handle: 0x1ebc04e0) reason :GPU Hang",
     "ROCm/legacy-rocm-build#5259 (the ROCm runtime's hardware-exception handler on gfx942)"),
    ("gpu-hang", "[13850.912648] amdgpu 0000:1c:00.0: {1}uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) "
     "detected!", "ROCm/legacy-rocm-build#4021 (MI300X RAS report in dmesg)"),
    ("shm-exhausted", "[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)",
     "msr-fiddle/pipedream#76 (UCX's signal handler in NCCL's thread, docker's 64 MB /dev/shm)"),
    ("bus-error-signal", "  traceback : Signal 7 (SIGBUS) received by PID 2385922",
     "torch elastic's failure summary for a rank killed by SIGBUS"),
    ("state-dict-mismatch", "AssertionError: Missing LoRA key layers.0.attn.q_proj.lora_a.weight from adapter state "
     "dict", "meta-pytorch/torchtune#2537 (resuming LoRA with another checkpoint's files)"),
    ("hip-init-failed", "/home/martin/.local/lib/python3.10/site-packages/torch/cuda/__init__.py:88: UserWarning: "
     "HIP initialization: Unexpected error from hipGetDeviceCount(). Did you run some cuda functions before calling "
     "NumHipDevices() that might have already set an error? Error 101: hipErrorInvalidDevice (Triggered internally at "
     "../c10/hip/HIPFunctions.cpp:110.)", "torch on a GPU the HIP runtime cannot open (a UserWarning that is a cause)"),
    ("deepspeed-no-checkpoint", "[2025-03-16 18:48:13,525] [WARNING] [engine.py:2914:load_checkpoint] Unable to find "
     "latest file at /home/user/datasets/loras/lora_name/20250316_15-44-14/latest, if trying to load latest "
     "checkpoint please ensure this file exists or pass an explicit checkpoint tag when loading a checkpoint.",
     "tdrussell/diffusion-pipe#159 (resume after a power loss: no DeepSpeed checkpoint was ever written)"),
    ("model-files-missing", "OSError: /models/llama does not appear to have a file named config.json. Checkout "
     "'https://huggingface.co//models/llama/tree/None' for available files.", "transformers' from_pretrained on a "
     "local directory without its files"),
    ("state-dict-mismatch", "ValueError: Trying to set a tensor of shape torch.Size([151936, 3584]) in \"weight\" "
     "(which has shape torch.Size([152064, 3584])), this looks incorrect.", "accelerate's set_module_tensor_to_device "
     "(Qwen2 vocab sizes)"),
    ("slurm-time-limit", "slurmstepd: error: *** STEP 1234.0 ON node01 CANCELLED AT 2024-05-01T10:00:00 ***",
     "Slurm's scancel / preemption notice without a reason"),
    ("host-oom-killed", "srun: error: node12: task 3: Killed", "srun's report of a SIGKILLed task"),
    # e-new16: the embedding lookup's own assert (Indexing.cu indexSelect*Index, srcSelectDimSize) is
    # token-id-past-embedding's (FAMILIES.md rule 5); another kernel's assert stays the runtime's
    ("cuda-error", "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
     "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.", "PyTorch's loss kernel on a label past the classes"),
    ("nan-loss", "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0", "sampling from NaN "
     "logits in generation (RLHF rollouts, eval)"),
    ("oom", "hipMalloc failed: out of memory", "a HIP allocation failure as native libraries print it"),
    ("flash-attn-error", "RuntimeError: No available kernel. Aborting execution.", "PyTorch SDPA without a fused "
     "kernel for this GPU"),
    ("native-build-failed", "/usr/bin/ld: cannot find -lcurand: No such file or directory", "linking a CUDA "
     "extension without the library"),
    ("torch-compile-error", "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, "
     "Hardware limit: 65536. Reducing block sizes or `num_stages` may help.", "Triton kernels on GPUs with 64 KiB LDS"),
    ("native-build-failed", "clang: error: unsupported option '--offload-arch=gfx1036'", "hipcc of an older ROCm "
     "asked for a newer gfx target"),
    ("invalid-device-ordinal", "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with "
     "error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED", "a rank's device index past the visible GPUs"),
    ("missing-package", "ImportError: LlamaTokenizer requires the SentencePiece library but it was not found in your "
     "environment.", "transformers' requires_backends"),
    ("python-exception", "[ERROR:swift] The dataset is empty", "ms-swift's logger format"),
    ("hip-invalid-device-function", "ROCm error: invalid device function",
     "ggml/llama.cpp's ROCm backend (ollama/ollama#11975)"),
    ("fp16-value-overflow", "RuntimeError: value cannot be converted to type at::Half without overflow",
     "c10's checked conversion into a half tensor (QwenLM/Qwen#32)"),
    ("rl-loss-zero", "{'loss': 0.0, 'grad_norm': 0.0, 'learning_rate': 1.8e-07, 'reward': 1.0, 'reward_std': 0.0, "
     "'kl': 0.0, 'epoch': 0.0}", "a GRPO step at the start (ms-swift FAQ Q92)"),
    # issue 26, explain-sw: the runners' and libraries' own spellings (from their sources and public threads)
    ("optimizer-state-mismatch", "ValueError: loaded state dict contains a parameter group that doesn't match the "
     "size of optimizer's group", "torch/optim/optimizer.py load_state_dict (modelscope/ms-swift#107)"),
    ("optimizer-state-mismatch", "ValueError: loaded state dict has a different number of parameter groups",
     "torch/optim/optimizer.py load_state_dict"),
    ("checkpoint-files-missing", "FileNotFoundError: [Errno 2] No such file or directory: 'out/checkpoint-500/"
     "global_step500/zero_pp_rank_4_mp_rank_00_optim_states.pt'", "DeepSpeed resuming ZeRO shards of a smaller "
     "world size (deepspeed/runtime/engine.py _get_all_zero_checkpoints)"),
    ("checkpoint-files-missing", "ValueError: No valid checkpoint found in output directory (saves/qwen/lora)",
     "transformers/trainer.py resume_from_checkpoint=True without a checkpoint"),
    ("state-dict-mismatch", "\tMissing key(s) in state_dict: \"base_model.model.lm_head.weight\". ",
     "torch's load_state_dict(strict=True) key list without its header"),
    ("command-not-found", "bash: llamafactory-cli: command not found", "hiyouga/LlamaFactory#3568 class"),
    ("command-not-found", "llamafactory-cli：未找到命令", "hiyouga/LlamaFactory#4138 (a Chinese-locale bash)"),
    ("command-not-found", "zsh: command not found: swift", "zsh's spelling"),
    ("command-not-found", "/bin/sh: 1: llamafactory-cli: not found", "hiyouga/LlamaFactory#4761 (dash)"),
    ("command-not-found", "'llamafactory-cli' is not recognized as an internal or external command,",
     "cmd.exe's spelling"),
    ("native-build-failed", "/bin/sh: 1: nvcc: not found", "a JIT build without the CUDA toolkit (a compiler, not a "
     "runner's CLI)"),
    ("torch-build-lacks-backend", "RuntimeError: Distributed package doesn't have NCCL built in",
     "torch/distributed/distributed_c10d.py on Windows/macOS wheels (bshall/hubert#1)"),
    ("torch-build-lacks-backend", "ModuleNotFoundError: No module named 'torch._C._distributed_c10d'; 'torch._C' is "
     "not a package", "a PyTorch build without the distributed package"),
    ("missing-package", "importlib.metadata.PackageNotFoundError: No package metadata was found for bitsandbytes",
     "transformers' version probe of an absent distribution"),
    ("missing-package", "ImportError: apex is not installed. Please install it from https://github.com/NVIDIA/apex",
     "a library's optional-dependency check"),
    ("missing-package", "ModuleNotFoundError: No module named 'fused_layer_norm_cuda'",
     "apex installed without its CUDA extensions (NVIDIA/apex#743)"),
    # e-cfg4: the interpreter given a script path that is not there
    ("script-not-found", "/opt/conda/bin/python: can't open file '/work/LLaMA-Factory/src/train_bash.py': [Errno 2] "
     "No such file or directory", "CPython Modules/main.c pymain_run_file"),
    # e-cfg4: the kernel refusing to execute a .py run without `python` (Slurm's slurmstepd)
    ("script-not-run-by-python", "slurmstepd: error: execve(): ./train.py: Permission denied",
     "slurm src/slurmd/slurmstepd/task.c (error(\"execve(): %s: %m\", task->argv[0]))"),
    ("config-rejected", "ValueError: Some specified arguments are not used by the HfArgumentParser: "
     "['--max_source_length', '64', '--max_target_length', '32768']", "hiyouga/LlamaFactory#1004"),
    ("config-rejected", "ValueError: Some keys are not used by the HfArgumentParser: ['split']",
     "hiyouga/LlamaFactory#5843 (transformers' parse_dict)"),
    ("config-rejected", "pydantic_core._pydantic_core.ValidationError: 1 validation error for "
     "AxolotlConfigWCapabilities", "axolotl-ai-cloud/axolotl#1840"),
    ("config-rejected", "train.py: error: unrecognized arguments: --lora_rank 8", "argparse's spelling"),
    ("config-rejected", "yaml.scanner.ScannerError: mapping values are not allowed here", "PyYAML on a broken YAML"),
    ("deepspeed-config-validation", "pydantic_core._pydantic_core.ValidationError: 1 validation error for "
     "DeepSpeedZeroConfig", "DeepSpeed's own config models stay a version mismatch (hiyouga/LlamaFactory#5252)"),
    ("bnb-no-gpu-library", "AttributeError: 'NoneType' object has no attribute 'cadam32bit_grad_fp32'",
     "bitsandbytes/cextension.py with no GPU library loaded"),
    ("collective-timeout", "[E ProcessGroupNCCL.cpp:587] [Rank 1] Caught collective operation timeout: "
     "WorkNCCL(OpType=BROADCAST, Timeout(ms)=1800000) ran for 1806345 milliseconds before timing out.",
     "torch 1.10's watchdog spelling"),
    ("collective-timeout", "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the "
     "asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
     "ProcessGroupNCCL WorkNCCL::handleException"),
    ("rendezvous-timeout", "RuntimeError: [1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] "
     "via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout", "torch 1.x / 2.0 "
     "ProcessGroupNCCL broadcastUniqueNCCLID (zai-org/ChatGLM-6B#1232)"),
    ("rendezvous-timeout", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out "
     "waiting 1800000ms for recv operation to complete", "gloo's pair timeout"),
    ("rendezvous-timeout", "[E socket.cpp:957] [c10d] The server socket has failed to listen on any local network "
     "address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).",
     "c10d TCPStore server on a port in use"),
    ("rendezvous-timeout", "pdsh@node01: node02: ssh exited with exit code 255", "DeepSpeed's pdsh launcher "
     "unable to reach a node"),
    ("child-failed", "subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py', '--deepspeed', "
     "'ds.json']' returned non-zero exit status 1.", "accelerate launch's teardown"),
    ("child-failed", "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGSEGV",
     "torch.multiprocessing.spawn"),
    ("version-required", "A module that was compiled using NumPy 1.x cannot be run in", "numpy 2.0's ABI "
     "banner (also printed by optional imports a run survives: weak)"),
    ("extension-abi-mismatch", "ImportError: numpy.core.multiarray failed to import", "an extension built for "
     "numpy 1.x failing to import under numpy 2"),
    ("extension-abi-mismatch", "RuntimeError: operator torchvision::nms does not exist", "torchvision built for "
     "another torch"),
    # e-ver3: an import of a name another flash-attn release has is the versions (FAMILIES.md: an FA import failure
    # is missing_package or version_check, never the attention kernel's family)
    ("import-name-mismatch", "ImportError: cannot import name 'flash_attn_varlen_qkvpacked_func' from 'flash_attn' "
     "(/usr/local/lib/python3.10/site-packages/flash_attn/__init__.py)", "flash-attn 1.x under code for 2.x"),
    ("flash-attn-error", "ValueError: GPTBigCodeForCausalLM does not support Flash Attention 2.0 yet. Please request "
     "to add support", "transformers' _check_and_enable_flash_attn_2"),
    ("deepspeed-op-build-failed", "RuntimeError: The detected CUDA version (11.8) mismatches the version that was "
     "used to compile PyTorch (12.1). Please make sure to use the same CUDA versions.",
     "torch/utils/cpp_extension.py _check_cuda_version"),
    ("version-required", "torch 2.1.0 requires triton==2.1.0, but you have triton 2.3.0 which is incompatible.",
     "pip's dependency resolver"),
    ("weights-only-load", "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so "
     "you have two options, do those steps only if you trust the source of the checkpoint.", "torch 2.6's torch.load "
     "(nanoporetech/remora#226)"),
    ("python-too-old", "TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'", "transformers 4.57 on "
     "Python 3.9 (huggingface/trl#4208)"),
    ("python-too-old", "ERROR: Package 'axolotl' requires a different Python: 3.9.18 not in '>=3.10'", "pip's "
     "Requires-Python check"),
    ("checkpoint-files-missing", "[WARNING] [engine.py:2805:_get_all_zero_checkpoint_names] The following zero "
     "checkpoints paths are missing: ['./out/step_5/pytorch_model/bf16_zero_pp_rank_8_mp_rank_00_optim_states.pt']",
     "deepspeedai/DeepSpeed#2319"),
    ("flash-attn-error", "RuntimeError: DeviceGroupedMultiheadAttentionForward_Xdl_CShuffle_V2<256, 128, 128, 32, 8, "
     "8, 128, 128, 32, 2, Default, ASpecDefault, B0SpecDefault, B1SpecDefault, CSpecDefault, "
     "MaskUpperTriangleFromTopLeft> does not support this problem", "ROCm/composable_kernel#1140 (MI50)"),
    ("flash-attn-error", "ERROR: Failed to build installable wheels for some pyproject.toml based projects (flash_attn)",
     "ROCm/flash-attention#80 (newer pip's summary)"),
    ("flash-attn-error", "ImportError: DLL load failed while importing flash_attn_2_cuda: The specified module could "
     "not be found.", "flash-attn wheels on Windows"),
    ("flash-attn-error", "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:",
     "xformers without a usable kernel (yangjianxin1/Firefly#258)"),
    ("deepspeed-op-build-failed", "ImportError: /root/.cache/torch_extensions/py310_cu121/fused_adam/fused_adam.so: "
     "undefined symbol: _ZN3c104cuda20CUDACachingAllocator9allocatorE", "a JIT-built op left from another torch"),
    ("deepspeed-op-build-failed", "ModuleNotFoundError: No module named 'deepspeed.ops.adam.cpu_adam_op'",
     "a prebuilt DeepSpeed op that was not built"),
    ("torch-build-lacks-backend", "AttributeError: module 'torch.distributed' has no attribute 'init_process_group'",
     "a PyTorch build without the distributed package (macOS/Windows)"),
    ("extension-abi-mismatch", "TypeError: Descriptors cannot be created directly.", "protobuf 4 under code generated "
     "for protobuf 3"),
    ("collective-timeout", "[rank3]:[E1206 18:44:13.275514180 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) "
     "Rank 3] Received a dump signal due to a collective timeout from rank 0 and we will try our best to dump the "
     "debug info.", "torch 2.5 ProcessGroupNCCL: another rank's timeout"),
    ("child-failed", "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}",
     "vLLM v1's engine teardown"),
    ("import-name-mismatch", "TypeError: LlamaForCausalLM.forward() got an unexpected keyword argument "
     "'num_items_in_batch'", "transformers 4.46 calling a model's forward of another release"),
    # ex-num (issue 26): launchers' network failures, RCCL's performance-only warnings, the hub's disk-space check, the
    # other ways a host-RAM kill is reported (Go's exec, BSD shells, user-space OOM killers)
    ("launcher-network-unreachable", "ORTE was unable to reliably start one or more daemons.",
     "Open MPI's plm error (orte/mca/plm help text)"),
    ("launcher-network-unreachable", "Open MPI may return the error message: send() to socket failed: Connection "
     "refused", "AMD GPU cluster networking troubleshooting guide (MPI traffic across Docker/VM interfaces)"),
    ("launcher-network-unreachable", "node1:3310:3366 [0] NCCL WARN Call to connect returned Connection refused, "
     "retrying", "NVIDIA/nccl src/misc/socket.cc (bootstrap connect retry)"),
    ("rccl-perf-advisory", "NCCL WARN NUMA auto balancing enabled which can lead to variability in the RCCL "
     "performance!", "AMD GPU cluster networking troubleshooting guide (RCCL errors table)"),
    ("hub-download-no-disk-space", "/usr/local/lib/python3.10/dist-packages/huggingface_hub/file_download.py:1018: "
     "UserWarning: Not enough free disk space to download the file. The expected file size is: 4976.70 MB. The "
     "target location /root/.cache/huggingface/hub only has 1024.00 MB free disk space.",
     "huggingface_hub file_download.py _check_disk_space"),
    ("host-oom-killed", "Error: llama runner process has terminated: signal: killed", "ollama/ollama#9908 (docker "
     "memory: 8g)"),
    ("kernel-oom-killer", "Jan 02 10:11:12 host systemd-oomd[812]: Killed /user.slice/user-1000.slice/user@1000."
     "service/app.slice/app-gnome-code-1234.scope due to memory pressure for /user.slice/user-1000.slice/user@1000."
     "service being 62.61% > 50.00% for > 20s with reclaim activity", "systemd-oomd's kill message (oomd-manager)"),
    ("kernel-oom-killer", "earlyoom[1042]: low memory! at or below SIGTERM limits: mem  9.81%, swap  9.99%",
     "rfjakob/earlyoom's report"),
    # explain-3 (issue 26, third pass): Ray's memory monitor, MIOpen's run-time kernel compile
    ("ray-oom-killed", "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.",
     "real-stanford/flingbot#11"),
    ("ray-oom-killed", "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers "
     "(tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node",
     "ray's raylet (node_manager.cc), as in WM-PO/WMPO#3"),
    ("ray-oom-killed", "ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node eric-ThinkPad is "
     "used (11.8 / 12.3 GB). The top 5 memory consumers are:", "ray-project/ray#3323 (Ray < 1.0's monitor)"),
    ("ray-worker-died", "Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection "
     "error code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM "
     "killer due to high memory usage. (2) ray stop --force is called.", "ray-project/ray ray-oom-prevention.rst "
     "(e-host2)"),
    ("miopen-kernel-build-failed", "MIOpen(HIP): Error [SetIsaName] 'amd_comgr_action_info_set_isa_name(handle, "
     "isa.c_str())' amdgcn-amd-amdhsa--gfx900:sramecc-:xnack-: INVALID_ARGUMENT (2)",
     "ryujaehun/pytorch-gpu-benchmark#19"),
    ("miopen-kernel-build-failed", "MIOpen: Error [Compile] 'hiprtcCompileProgram(prog.get(), c_options.size(), "
     "c_options.data())' MIOpenBatchNormFwdTrainSpatial.cpp: HIPRTC_ERROR_COMPILATION (6)",
     "ROCm/legacy-rocm-build#6150 (gfx1151, Windows)"),
    ("miopen-kernel-build-failed", "MIOpen Error: /MIOpen/src/hipoc/hipoc_program.cpp:286: Code object build failed. "
     "Source: MIOpenIm2d2Col.cl", "ryujaehun/pytorch-gpu-benchmark#19"),
    ("deepspeed-setup-needs-torch", "      AssertionError: Unable to pre-compile ops without torch installed. Please "
     "install torch before attempting to pre-compile ops.", "deepspeedai/DeepSpeed#5663 (pip on Windows)"),
    ("deepspeed-ops-torch-mismatch", "RuntimeError: PyTorch version mismatch! DeepSpeed ops were compiled and "
     "installed with a different version than what is being used at runtime. Please re-install DeepSpeed or switch "
     "torch versions. Install torch version=2.2, Runtime torch version=2.1", "S95Sedan/Deepspeed-Windows#4"),
    ("checkpoint-write-failed", "RuntimeError: write(): fd 29 failed with Input/output error",
     "pytorch/pytorch#10577 (torch.save on a full disk)"),
    ("swift-git-info-unavailable", "[ERROR:swift] There are error run git command.",
     "modelscope/ms-swift#1230 (harmless at start-up)"),
    ("rocclr-queue-abort", ":0:rocdevice.cpp            :1663: 0164233553 us: Device::callbackQueue aborting with "
     "status: 0x1016", "ROCclr's queue callback (ROCm 4/5), as beside ROCm/tensorflow-upstream#1106"),
    ("rocm-library-symbol-mismatch", "/opt/rocm/lib/libamdhip64.so.6: undefined symbol: "
     "hsa_amd_memory_get_preferred_copy_engine", "ld.so: HIP from one ROCm release, the HSA runtime from another"),
    ("version-string-unparsable", "packaging.version.InvalidVersion: Invalid version: '2.5.0a0+gitunknown'",
     "packaging's message for a vendor/source torch build's version"),
    # issue 26 (explain-dist)
    ("miopen-cache-unwritable", "MiOpen: Internal error while accessing SQLite database: disk I/O error",
     "ROCm/tensorflow-upstream#1419 (MIOpen's user database not writable inside Singularity)"),
    ("rendezvous-retry-then-silence", "[W1008 23:40:22.781961348 socket.cpp:767] [c10d] The IPv6 network addresses of "
     "(job-01k72wn5f8waqw7d81mfggagn4.internal, 50745) cannot be retrieved (gai error: -2 - Name or service not known).",
     "meta-pytorch/monarch#1571"),
    # explain-rocm (issue 26): HIP toolchains and arch support, as users post them
    ("build-toolchain-check-failed", "  Failed to find ROCm root directory.",
     "bitsandbytes-foundation/bitsandbytes#1468 (CMakeDetermineHIPCompiler.cmake:174)"),
    ("build-toolchain-check-failed", "  is not able to compile a simple test program.",
     "ROCm/bitsandbytes#34 (The HIP compiler \"/opt/rocm-6.1.1/llvm/bin/clang++\" ... on gfx90c)"),
    ("toolkit-program-missing", "make: /usr/bin/hipcc: No such file or directory", "broncotc/bitsandbytes-rocm#5"),
    ("toolkit-program-missing", "make: *** [Makefile:107: hip] Error 127", "broncotc/bitsandbytes-rocm#5"),
    ("framework-library-load-failed", "Attempting to fetch value instead of handling error Failed precondition: Could "
     "not load dynamic library 'libhip_hcc.so'; dlerror: libhip_hcc.so: cannot open shared object file: No such file "
     "or directo", "ROCm/legacy-rocm-build#1163 (tensorflow-rocm 2.2 on ROCm 3.5.1)"),
    ("cuda-arch-not-in-build", "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
     "PyTorch installation.", "torch/cuda/__init__.py _check_capability, as RTX 50xx users post it"),
    ("bf16-unsupported", "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedEx("
     "handle, opa, opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF, "
     "(int)ldb, strideb, (void*)&fbeta, c, CUDA_R_16BF, (int)ldc, stridec, (int)num_batches, compute_type, "
     "CUBLAS_GEMM_DEFAULT_TENSOR_OP)`", "opendatalab/MinerU#1508 (Tesla M40 has no bf16)"),
    # explain-r2a (issue 26): a newer model config read by an older transformers
    ("rope-scaling-newer-format", "[rank2]: ValueError: `rope_scaling` must be a dictionary with two fields, `type` and "
     "`factor`, got {'factor': 8.0, 'low_freq_factor': 1.0, 'high_freq_factor': 4.0, 'original_max_position_embeddings': "
     "8192, 'rope_type': 'llama3'}", "foundation-model-stack/foundation-model-stack#384"),
    ("rope-scaling-newer-format", "`rope_scaling` must be a dictionary with with two fields, `type` and `factor`, got "
     "{'factor': 8.0, 'high_freq_factor': 4.0, 'low_freq_factor': 1.0, 'original_max_position_embeddings': 8192, "
     "'rope_type': 'llama3'}", "StartHua/Comfyui_CXH_joy_caption#35"),
    # ex-ver (issue 26): a dotted module a package lacks is another release of that package, not a missing package;
    # a namespace root (google.) is shared, there the sub-package is the missing package (pip install protobuf)
    ("import-name-mismatch", "ModuleNotFoundError: No module named 'triton.ops'",
     "pytorch/pytorch#143718 (RX 6700 XT, ROCm 6.2.4: bitsandbytes older than triton)"),
    ("import-name-mismatch", "No module named 'triton._C.libtriton.triton'; 'triton._C.libtriton' is not a package",
     "ROCm/bitsandbytes#60 (RX 7900 XTX)"),
    ("missing-package", "ModuleNotFoundError: No module named 'google.protobuf'", "protobuf missing (pip install protobuf)"),
    ("missing-package", "ModuleNotFoundError: No module named 'einops'", "a top-level module is the missing package"),
    ("missing-package", "No module named 'torchvision'",
     "transformers' lazy import prints the cause on its own line (Failed to import ... because of the following error)"),
    # r4-ver (issue 26): the loader's versioned-symbol words for the C/C++ runtime are a build skew, whatever needs it
    ("system-runtime-too-old", "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not "
     "found (required by /home/u/lib/python3.10/site-packages/torch/lib/libtorch_python.so)", "pytorch/pytorch#87279"),
    ("system-runtime-too-old", "OSError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.32' not found (required by "
     "/opt/conda/lib/python3.8/site-packages/torch_scatter/_version_cuda.so)", "Looong01/pyg-rocm-build#3 (ROCm 5.4)"),
    # e-hip4: PyTorch's ROCm SDPA (aten/src/ATen/native/transformers/hip/sdp_utils.cpp) refusing the card
    ("amd-attention-refused", "RuntimeError: FlashAttention only supports AMD MI200 GPUs or newer.",
     "ROCm/flash-attention csrc/flash_attn_ck/mha_fwd.cpp"),
    # e-new18: the same loader words for any other library's version node (glibc elf/dl-version.c)
    ("library-version-node-missing", "ImportError: /lib/x86_64-linux-gnu/libcrypto.so.3: version `OPENSSL_3.0.0' not "
     "found (required by /opt/conda/lib/python3.11/site-packages/cryptography/hazmat/bindings/_rust.abi3.so)",
     "glibc elf/dl-version.c match_symbol"),
    ("datasets-fsspec-mismatch", "NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.",
     "modelscope/facechain#388, huggingface/datasets#6330"),
    # protobuf's older spelling of the same message ("cannot not be")
    ("extension-abi-mismatch", "TypeError: Descriptors cannot not be created directly.", "maudzung/SFA3D#82"),
    ("version-check-failed", "ImportError: Requires Flash-Attention version >=2.7.1,<=2.7.4 but got 2.8.0.post2.",
     "facebookresearch/xformers#1267"),
    ("import-name-mismatch", "pydantic.errors.PydanticImportError: `BaseSettings` has been moved to the "
     "`pydantic-settings` package. See https://docs.pydantic.dev/2.3/migration/#basesettings-has-moved-to-pydantic-"
     "settings for more details.", "verveguy/tana-helper#2"),
    ("model-files-newer-format", "Exception: data did not match any variant of untagged enum ModelWrapper at line "
     "1251003 column 3", "huggingface/tokenizers on a Llama-3 tokenizer.json with tokenizers < 0.19"),
    ("model-files-newer-format", "ValueError: Unknown quantization type, got fp8 - supported types are: ['awq', "
     "'bitsandbytes_4bit', 'bitsandbytes_8bit', 'gptq', 'aqlm', 'quanto', 'eetq', 'hqq']",
     "transformers < 4.43 on an FP8 checkpoint"),
    # r5-hip: a crash inside the ROCm runtime (the kernel's segfault line naming libamdhip64); a warning-level note by
    # its logger's shape (c10 TORCH_WARN)
    ("rocm-runtime-segfault", "kernel: python3[40923]: segfault at 100 ip 00007f2711b2d282 sp 00007fffa29a1530 error 4 "
     "in libamdhip64.so[7f2711a00000+3f3000] likely on CPU 9 (core 1, socket 0)", "vladmandic/sdnext#913"),
    ("warning-level-note", "[W init.cpp:767] Warning: nvfuser is no longer supported in torch script, use "
     "_jit_set_nvfuser_enabled is deprecated and a no-op (function operator())", "pytorch c10 TORCH_WARN format"),
    # h7-ver: the ROCr runtime refusing a kernel driver of another release; accelerate's FSDP wrap class missing
    ("kernel-userspace-mismatch", "HSA Error:  Incompatible kernel and userspace, Vega 20 [Radeon VII] disabled. "
     "Upgrade amdgpu.", "ROCm/legacy-rocm-build#1423"),
    ("fsdp-wrap-class-not-found", "Exception: Could not find the transformer layer class to wrap in the model.",
     "huggingface/accelerate utils/dataclasses.py FullyShardedDataParallelPlugin"),
    # e-swift2: ms-swift's runtime failures and the engines/libraries inside its runs, from their source
    ("swift-model-type-unmatched", "ValueError: Model \"/mnt/m/Ovis-U1\" is not supported because no suitable "
     "`model_type` was found. Please refer to the documentation and specify an appropriate `model_type` manually: "
     "https://swift.readthedocs.io/en/latest/Instruction/Supported-models-and-datasets.html",
     "modelscope/ms-swift swift/model/model_meta.py"),
    ("vllm-kv-cache-too-small", "ValueError: To serve at least one request with the models's max seq len (131072), "
     "(16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.12 GiB).",
     "vllm-project/vllm vllm/v1/core/kv_cache_utils.py"),
    ("swift-media-count-mismatch", "AssertionError: len(idx_list): 2, len(images): 1",
     "modelscope/ms-swift swift/template/base.py replace_tag"),
    ("swift-engine-too-old", "AssertionError: The current version of vLLM does not support `enable_lora`. Please "
     "upgrade vLLM.", "modelscope/ms-swift swift/infer_engine/vllm_engine.py"),
    ("engine-not-installed", "ImportError: vLLM is not available and `use_vllm` is set to True. Please install vLLM "
     "with `pip install vllm -U` to use it.", "modelscope/ms-swift swift/rlhf_trainers/rollout_mixin.py"),
    ("rollout-server-unreachable", "ConnectionError: Servers not reachable after 240s: ['http://127.0.0.1:8000']",
     "modelscope/ms-swift swift/rlhf_trainers/vllm_client.py"),
    ("zero-grad-reduced-twice", "AssertionError: The parameter 12 has already been reduced. Gradient computed twice "
     "for this partition. Multiple gradient reduction is currently not supported",
     "deepspeedai/DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py"),
    ("vllm-placement-gpus", "ValueError: The number of required GPUs exceeds the total number of available GPUs in "
     "the placement group.", "vllm-project/vllm vllm/executor/ray_utils.py"),
    ("lora-target-type-unsupported", "ValueError: Target module Dropout(p=0.1, inplace=False) is not supported. "
     "Currently, only the following modules are supported: `torch.nn.Linear`, `torch.nn.Embedding`, "
     "`torch.nn.Conv2d`, `transformers.pytorch_utils.Conv1D`.", "huggingface/peft tuners/lora/model.py"),
    # e-g910: PEFT 0.4's wording for auto-gptq's layer (dahara1/weblab-10b-instruction-sft-GPTQ finetune README)
    ("lora-target-quantized-layer", "ValueError: Target module QuantLinear() is not supported. Currently, only "
     "`torch.nn.Linear` and `Conv1D` are supported.", "huggingface/peft tuners/lora.py _find_and_replace (0.4)"),
    ("batch-not-padded", "ValueError: expected sequence of length 128 at dim 1 (got 97)",
     "pytorch/pytorch torch/csrc/utils/tensor_new.cpp"),
    ("eval-oom", "RuntimeError: Evaluation hit an out-of-memory error. `auto_find_batch_size` only adjusts the training "
     "batch size, reduce `per_device_eval_batch_size` instead.", "huggingface/transformers trainer.py"),
    ("state-dict-file-corrupt", "ValueError: The state dictionary of the model you are trying to load is corrupted. Are "
     "you sure it was properly saved?", "huggingface/transformers modeling_utils.py"),
    ("no-pad-token-batch", "ValueError: Cannot handle batch sizes > 1 if no padding token is defined.",
     "huggingface/transformers modeling_llama.py LlamaForSequenceClassification"),
    # e-g6: vLLM's sleep-mode allocator, NCCL's placement check, SGLang's memory pool (from their sources)
    ("vllm-sleep-wake-oom", "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
     "vllm-project/vllm csrc/cumem_allocator.cpp CUDA_CHECK"),
    ("vllm-cumem-driver-error", "RuntimeError: CUDA Error: operation not supported at /app/csrc/cumem_allocator.cpp:93",
     "vllm-project/vllm csrc/cumem_allocator.cpp CUDA_CHECK"),
    ("nccl-duplicate-gpu", "node1:4887:4887 [0] init.cc:943 NCCL WARN Duplicate GPU detected : rank 0 and rank 2 both "
     "on CUDA device 1b000", "NVIDIA/nccl src/init.cc"),
    ("sglang-kv-pool-too-small", "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
     "sgl-project/sglang model_runner.py init_memory_pool"),
    # e-hidden (tests/test_explain_e_hidden.py has the logs)
    ("nccl-launch-mismatch", "node2:5120:5188 [0] init.cc:2184 NCCL WARN Invalid rank requested : 8/8",
     "NVIDIA/nccl src/init.cc ncclCommInitRankDev"),
    ("nccl-version-skew", "gpu7:771:771 [3] init.cc:966 NCCL WARN Mismatched NCCL version detected : rank 4 version "
     "21805 rank 3 version 22105", "NVIDIA/nccl src/init.cc initTransportsRank"),
    ("p2p-ib-unsupported-card", "NotImplementedError: Using RTX 4000 series doesn't support faster communication "
     "broadband via P2P or IB. Please set `NCCL_P2P_DISABLE=\"1\"` and `NCCL_IB_DISABLE=\"1\" or use `accelerate "
     "launch` which will do this automatically.", "huggingface/accelerate src/accelerate/state.py"),
]


@pytest.mark.parametrize("code,line,source", REAL_LINES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(REAL_LINES)])
def test_each_signature_names_its_real_line(code, line, source):
    hit = cat.best_match(line)
    assert hit is not None, source
    assert hit[0].code == code, (source, [s.code for s, _ in cat.match_line(line)])


SERIES_ONLY = {"loss-collapse", "fp16-overflow-streak"}   # found from the loss series (the alert engine), tested below on a fixture


def test_every_signature_has_a_real_line_and_the_issue_families_are_covered():
    assert {c for c, _, _ in REAL_LINES} | SERIES_ONLY == set(cat.BY_CODE)
    issue = {"gpu_oom", "host_ram_oom", "nccl_rccl_timeout_hang", "ddp_error", "fp16_overflow", "bf16_unsupported",
             "hip_error", "hipblaslt_warning", "deepspeed_build_jit", "version_check", "dataset_error",
             "tokenizer_template", "hf_cache_permission", "unrecognized_model_type_adapter",
             "checkpoint_resume_mismatch", "slurm_time_limit_preemption", "disk_full_save"}
    assert issue <= {s.family for s in cat.SIGNATURES}
    for s in cat.SIGNATURES:
        assert s.cause and s.fix and s.confirm and s.severity in ("error", "warning", "info")
        # every keyword is found by the literal scan the diagnosis uses on big logs
        assert all(any(x.decode() in k for x in cat.SCAN_SENTINELS) for k in s.keywords), s.code
        # and by the case-folded scan the diagnosis runs over a lower-cased copy of the head and tail
        assert all(any(x.decode() in k.lower() for x in cat.SCAN_FOLDED) for k in s.keywords), s.code


def test_clean_training_lines_match_nothing():
    for name in ("clean-deepspeed-fp16-torchrun.log",):
        for line in (LOGS / name).read_text().splitlines():
            hit = cat.best_match(line)
            assert hit is None or hit[0].benign, line


# ------------------------------------------------------------------ the diagnosis engine
def _root(exp):
    assert exp.root is not None
    return exp.diagnoses[exp.root]


def test_calibration_cases_get_their_family_as_root_and_never_a_benign_one():
    base = Path("/work/shared/calibration/real-crashes")
    if not base.is_dir():
        pytest.skip("calibration set not on this machine")
    for case_dir in sorted(p for p in base.iterdir() if (p / "case.json").is_file()):
        case = json.loads((case_dir / "case.json").read_text())
        r = _root(diagnose([str(case_dir / "log.txt")]))
        assert r.family == case["family"], case_dir.name
        assert not r.benign


def test_the_first_rank_to_fail_is_the_root_and_the_others_timeouts_are_consequences():
    # rank 3 runs out of memory first (seeds/003's line); ranks 0 and 1 then time out in the
    # watchdog (fixture format); torchrun reports the exit. Written in the order a shared log mixes them.
    text = "\n".join([
        "[2025-02-18 21:46:05,000] [INFO] step 12",
        "[rank0]:[E218 21:46:31.661937 3812 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1183, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=1800000) ran "
        "for 1800069 milliseconds before timing out.",
        "[rank1]:[E218 21:46:31.662011 3811 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1183, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=1800000) ran "
        "for 1800070 milliseconds before timing out.",
        "[rank3]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.45 GiB. GPU 3 has a total capacity "
        "of 63.98 GiB of which 1.12 GiB is free. Of the allocated memory 49.80 GiB is allocated by PyTorch, and 11.07 "
        "GiB is reserved by PyTorch but unallocated.",
        "E0218 21:46:32.511000 140121 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 3 (pid: 140191) of binary: /opt/conda/bin/python",
    ])
    exp = explain_text(text)
    r = _root(exp)
    assert r.code == "oom" and r.first.rank == 3 and r.first.line == 4 and exp.status == "failed"
    to = next(d for d in exp.diagnoses if d.code == "collective-timeout")
    assert to.consequence_of == exp.root and to.numbers["verdict"] == "one rank died first"
    assert to.numbers["seq"] == 1183 and to.numbers["op"] == "ALLREDUCE" and to.numbers["ranks"] == [0, 1]
    assert "rank 3 died first" in to.title
    # the OOM's numbers: 11 GiB reserved but unallocated > the 1.45 GiB asked: fragmentation
    n = r.numbers
    assert n["tried_bytes"] == int(1.45 * GIB) and n["reserved_unallocated_bytes"] == int(11.07 * GIB)
    assert n["verdict"] == "fragmentation" and "expandable_segments" in r.title
    assert exp.exit_code == 1


def test_every_rank_stuck_is_a_hang_with_the_p2p_checks():
    text = (LOGS / "alert-collective-timeout.log").read_text()
    exp = explain_text(text)
    r = _root(exp)
    assert r.code == "collective-timeout" and exp.status == "hang"
    assert r.numbers["verdict"] == "every rank stuck" and r.numbers["ranks"] == [0, 1]
    assert "rocm-tune doctor" in r.fix and "iommu" in r.fix.lower()


def test_a_benign_line_is_never_root_when_a_real_one_exists_and_alone_it_is_not_a_failure():
    warn = ("[rank1]:/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py:125: UserWarning: Attempting "
            "to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas")
    err = "[rank0]: ValueError: Template qwen2 does not exist."   # calibration lf-5453 with a rank prefix
    exp = explain_text(warn + "\n" + warn + "\n" + err + "\n")
    assert _root(exp).code == "template-error" and exp.diagnoses[exp.root].first.line == 3
    alone = explain_text(warn + "\n{'loss': 1.3977, 'grad_norm': 1.9822, 'learning_rate': 1e-05, 'epoch': 0.01}\n")
    assert alone.status == "unknown" and alone.exit_code == 0
    assert [d.code for d in alone.diagnoses] == ["hipblaslt-unsupported"]
    assert alone.root is None and alone.diagnoses[0].benign   # reported as harmless, never the root


def test_a_log_of_harmless_lines_only_answers_that_nothing_failed():
    from rocm_tune.core.runs.diagnose.diagnose import render_text

    kdb = ("MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx1030_18.kdb Performance may degrade. "
           "Please follow instructions to install: https://github.com/ROCmSoftwarePlatform/MIOpen#installing-miopen-"
           "kernels-package")                                                   # ROCm/MIOpen#1996
    step = "{'loss': 1.3977, 'grad_norm': 1.9822, 'learning_rate': 1e-05, 'epoch': 0.01}\n"
    exp = explain_text(kdb + "\n" + step)
    assert exp.root is None and exp.exit_code == 0 and exp.answer == "benign_warning"
    assert exp.to_dict()["answer"] == "benign_warning"
    assert "no failure found" in render_text(exp) and "harmless" in render_text(exp)
    hipblaslt = ("rocblaslt error: Cannot read /opt/venv/lib/python3.12/site-packages/torch/lib/hipblaslt/library/"
                 "TensileLibrary_lazy_gfx1201.dat: No such file or directory\n rocBLAS warning: hipBlasLT failed, "
                 "falling back to tensile.\n")
    fallback = explain_text(hipblaslt + step)
    # test expectation follows FAMILIES.md amended rule 4 (hipBLASLt warning, the run goes on): benign_warning
    assert fallback.root is None and fallback.answer == "benign_warning"
    # a real failure after the same lines: the root's family is the answer
    failed = explain_text(kdb + "\n" + step + "[rank0]: ValueError: Template qwen2 does not exist.\n")
    assert failed.answer == "tokenizer_template" and failed.exit_code == 1
    # nothing recognised at all is not "harmless": unknown
    assert explain_text("hello\n").answer == "unknown"


def test_a_barrier_followed_by_an_error_is_the_error_not_a_hang():
    barrier = ("[W ProcessGroupNCCL.cpp:1569] Rank 1 using best-guess GPU 1 to perform barrier as devices used by "
               "this process are currently unknown.")
    err = "torch.AcceleratorError: HIP error: invalid device ordinal"
    exp = explain_text(barrier + "\n" + err + "\n")
    assert _root(exp).code == "invalid-device-ordinal" and exp.status == "failed"
    assert "barrier-no-progress" not in [d.code for d in exp.diagnoses]


@pytest.mark.parametrize("src,family", [
    ("    assert not self.training", "config_error"),
    ("    assert len(input_ids) == len(labels)", "dataset_error"),
])
def test_a_bare_assertion_takes_its_family_from_the_assert_line(src, family):
    log = ("Traceback (most recent call last):\n  File \"/x/site-packages/m/modeling_m.py\", line 10, in forward\n"
           + src + "\nAssertionError\n")
    exp = explain_text(log)
    assert _root(exp).code == "python-exception" and _root(exp).family == family


@pytest.mark.parametrize("line,family", [
    ("ValueError: Please launch distributed training with `llamafactory-cli` or `torchrun`.", "config_error"),
    ("ValueError: Quantized model only accepts LoRA/OFT training.", "config_error"),
    ("ValueError: `max_length` is smaller than the prompt length", "config_error"),
    ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!",
     "config_error"),
    ("ValueError: Unknown initialization init_lora_weights='pissa_x'", "config_error"),
    ("ValueError: The number of images does not match the number of <image> tokens in [{'content': '<image>hi'}]",
     "dataset_error"),
    ("ValueError: assistant_message: {'role': 'assistant', 'content': ''}", "dataset_error"),
    ("[ERROR:swift] The dataset is empty", "dataset_error"),
    ("ValueError: Can't find a checkpoint index (pytorch_model.bin.index.json) in /out/checkpoint-100.",
     "checkpoint_resume_mismatch"),
    ("jinja2.exceptions.TemplateError: Conversation roles must alternate user/assistant/user/assistant/...",
     "tokenizer_template"),
])
def test_an_unknown_exception_takes_its_family_from_what_its_message_is_about(line, family):
    exp = explain_text("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n" + line + "\n")
    assert _root(exp).code == "python-exception" and _root(exp).family == family


# explain-r2a (issue 26): where a NameError was raised decides: inside installed code (plain or notebook-printed
# frames) it is the versions (unsloth#1179), in the user's own script it is the script
@pytest.mark.parametrize("frames,is_versions", [
    ('  File "/opt/venv/lib/python3.11/site-packages/liger_kernel/transformers/monkey_patch.py", line 88, in apply\n'
     '    x = Unpack\n', True),
    ("/usr/local/lib/python3.10/dist-packages/unsloth/kernels/cross_entropy_loss.py in Unsloth_LlamaForCausalLM()\n\n",
     True),
    ("File ~/.cache/huggingface/modules/transformers_modules/m/modeling_m.py:212, in MAttention.forward(self, x)\n",
     True),
    ('  File "/home/u/train.py", line 3, in <module>\n    main()\n', False),
])
def test_a_name_error_is_the_versions_only_when_raised_in_installed_code(frames, is_versions):
    exp = explain_text("Traceback (most recent call last):\n" + frames + "NameError: name 'Unpack' is not defined\n")
    assert (_root(exp).family == "version_check") == is_versions


@pytest.mark.parametrize("line", [
    "ValueError: Unsupported model type: qwen3_moe is not supported in this version of vLLM",
    "NotImplementedError: this version of peft does not support target_parameters",
])
def test_a_message_about_the_installed_release_is_the_versions(line):
    exp = explain_text("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n" + line + "\n")
    assert _root(exp).family == "version_check"


def test_old_torch_oom_wrapped_over_lines_is_a_real_shortage():
    # calibration alpaca-rlhf-3: the message wraps over four lines as posted
    n = oom_numbers("OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 MiB (GPU 1; 31.75\nGiB total "
                    "capacity; 29.88 GiB already allocated; 11.75 MiB free; 29.98 GiB\nreserved in total by PyTorch)")
    assert n["total_bytes"] == int(31.75 * GIB) and n["allocated_bytes"] == int(29.88 * GIB)
    assert n["reserved_unallocated_bytes"] == int(29.98 * GIB) - int(29.88 * GIB)
    assert n["verdict"] == "shortage" and n["short_by_bytes"] == 16 * 2**20 - int(11.75 * 2**20)


def test_a_barrier_followed_by_progress_is_not_a_hang():
    barrier = ("[rank0]:[W1028 04:48:19.843866299 ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 "
               "to perform barrier as devices used by this process are currently unknown. This can potent")
    moving = barrier + "\n100%|██████| 16820/16820 [00:13<00:00, 1239.79it/s]\n"     # bmaltais/kohya_ss#2933
    assert explain_text(moving).root is None
    stuck = "100%|██████| 16820/16820 [00:13<00:00, 1239.79it/s]\n" + barrier + "\n"
    exp = explain_text(stuck)
    assert _root(exp).code == "barrier-no-progress" and exp.status == "hang"


def _plan_003(tmp_path: Path) -> Path:
    """A rocm-tune run dir for report 003 (R1-Distill-Qwen-32B LoRA on 8x K100 64 GB) that died with the
    seed's `HIP out of memory. Tried to allocate 1.45 GiB`."""
    p = run_cli("plan", "--model", "deepseek-r1-distill-qwen-32b", "--gpu", "k100", "--gpus", "8",
                "--cutoff-len", "1024", "--effective-batch", "128", "--json")
    assert p.returncode == 0, p.stderr
    d = tmp_path / "run"
    d.mkdir()
    (d / "plan.json").write_text(p.stdout)
    (d / "run.json").write_text(json.dumps({"id": "20270101-120000-r1-ab12", "name": "r1", "command": ["x"],
                                            "cwd": str(d), "env": {}, "created_at": 1.7e9, "started_at": 1.7e9,
                                            "pid": None, "pgid": None, "supervisor_pid": None, "plan": None,
                                            "kind": "command", "total_steps": 20}))
    (d / "exit.json").write_text(json.dumps({"status": "failed", "returncode": 1, "signal": None,
                                             "ended_at": 1.7e9 + 50}))
    (d / "stdout.log").write_text("[rank3]: Traceback (most recent call last):\n"
                                  "[rank3]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.45 GiB.\n")
    return d


def test_report_003_oom_gets_the_smallest_plan_change_with_numbers_in_explain_and_attach(tmp_path):
    d = _plan_003(tmp_path)
    plan = json.loads((d / "plan.json").read_text())
    mb = plan["recommended"]["micro_batch"]
    r = run_cli("explain", str(d), "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "failed" and out["config"] == str(d / "plan.json")
    root = out["root"]
    assert root["family"] == "gpu_oom" and root["first_seen"]["rank"] == 3 and root["first_seen"]["line"] == 2
    pf = root["numbers"]["fit"]
    assert pf["source"] == "the plan"
    # at the OOM the GPU (64 GiB) was full and 1.45 GiB more was asked: at least that much was needed
    assert pf["needed_at_least_bytes"] == 64 * GIB + int(1.45 * GIB)
    assert pf["change"]["micro_batch"] < mb and pf["predicted_after_bytes"] < pf["predicted_bytes"]
    assert pf["predicted_after_bytes"] * pf["scale"] <= pf["limit_bytes"]
    assert f"micro_batch {mb} -> {pf['change']['micro_batch']}" in root["fix"] and "GiB of 64" in root["fix"]
    # the same numbers in attach's alert for that run
    a = run_cli("attach", str(d), "--once", "--json", "--no-gpus")
    assert a.returncode == 0, a.stderr
    alert = next(x for x in json.loads(a.stdout)["alerts"] if x["code"] == "oom")
    assert f"micro_batch {mb} -> {pf['change']['micro_batch']}" in alert["fix"] and "GiB of 64" in alert["fix"]
    # the human answer fits 80 columns and names the fix
    h = run_cli("explain", str(d))
    assert h.returncode == 1 and all(len(line) <= 80 for line in h.stdout.splitlines())
    assert "root cause: gpu_oom" in h.stdout and "micro_batch" in h.stdout


def test_oom_plan_fix_says_nothing_for_a_plan_it_cannot_read():
    assert oom_plan_fix({"version": 1, "recommended": {}}, {"tried_bytes": GIB}) is None


def test_disk_full_states_checkpoint_size_times_the_limit_against_free_space(tmp_path):
    out = tmp_path / "saves"
    for step in (100, 200):
        ck = out / f"checkpoint-{step}"
        ck.mkdir(parents=True)
        (ck / "model.safetensors").write_bytes(b"\0" * 300_000)
    (out / "training_args.yaml").write_text(f"output_dir: {out}\nsave_total_limit: 2\n")
    log = out / "running_log.txt"
    log.write_text((Path("/work/shared/calibration/real-crashes/dolly-139-checkpoint-save-no-space-left/log.txt")
                    .read_text() if Path("/work/shared/calibration").is_dir() else
                    "OSError: [Errno 28] No space left on device\n"))
    before = shutil.disk_usage(out).free
    exp = diagnose([str(log)])
    after = shutil.disk_usage(out).free
    r = _root(exp)
    assert r.family == "disk_full_save" and exp.config == str(out / "training_args.yaml")
    assert r.numbers["checkpoint_bytes"] == 300_000 and r.numbers["save_total_limit"] == 2
    # the free space it read is the filesystem's at that moment: others write on a shared disk meanwhile
    assert r.numbers["needed_bytes"] == 900_000
    assert min(before, after) - 2**30 <= r.numbers["free_bytes"] <= max(before, after) + 2**30
    assert "save_total_limit 2" in r.title and "free now" in r.title


def test_host_ram_numbers_from_deepspeed_memory_report():
    r = _root(explain_text("[2023-04-20 19:03:19,581] [INFO] [utils.py:840:see_memory_usage] CPU Virtual Memory:  "
                           "used = 29.71 GB, percent = 95.3%\n"))
    assert r.family == "host_ram_oom"
    assert r.numbers["host_used_percent"] == 95.3
    assert abs(r.numbers["host_total_bytes"] / GIB - 29.71 / 0.953) < 0.01


def test_a_pasted_lf_config_predicts_the_oom_of_full_finetuning_on_24gb_cards():
    base = Path("/work/shared/calibration/real-crashes/lf-5977-8x3090-full-zero3-oom-offload-works/log.txt")
    if not base.is_file():
        pytest.skip("calibration set not on this machine")
    exp = diagnose([str(base)])
    r = _root(exp)
    assert r.family == "gpu_oom" and r.code == "config-memory-risk" and exp.status == "unknown"
    per = r.numbers["predicted_per_gpu_bytes"]
    assert per["8"] < per["4"] < per["2"] and per["8"] > 0.85 * 24 * GIB
    assert "ds_z3_offload_config.json" in r.fix


# ------------------------------------------------------------------ the CLI as a user drives it
def test_cli_stdin_json_contract_and_exit_codes():
    text = (LOGS / "alert-version-check-deepspeed.log").read_text()
    r = run_cli("explain", "-", "--json", input=text)
    assert r.returncode == 1, r.stderr
    d = json.loads(r.stdout)
    assert set(d) >= {"status", "root", "diagnoses", "config"}
    root = d["root"]
    for key in ("code", "family", "severity", "benign", "first_seen", "evidence", "cause", "fix", "confirm", "numbers"):
        assert key in root
    assert set(root["first_seen"]) == {"file", "line", "rank", "time"}
    assert root["code"] == "version-check-failed" and root["first_seen"]["rank"] == 0
    assert root["numbers"] == {"requirement": "deepspeed>=0.10.0,<=0.16.9", "found": "deepspeed==0.18.3"}
    # no time on the error line: the last time stamp before it ([2025-01-07 20:01:13,551], UTC)
    assert root["first_seen"]["time"] == pytest.approx(1736280073.551) and root["first_seen"]["line"] == 9
    # finished runs: exit 0 (HF's train_runtime dict; rocm-tune's own end record)
    for clean in ("clean-deepspeed-fp16-torchrun.log", "clean-metrics.jsonl"):
        ok = run_cli("explain", str(LOGS / clean), "--json")
        assert ok.returncode == 0 and json.loads(ok.stdout)["status"] == "finished", clean


def test_cli_an_lf_output_dir_and_a_run_that_finished(tmp_path):
    out = tmp_path / "out"
    shutil.copytree(LOGS / "llamafactory-0.9.5-lora-cpu", out)
    r = run_cli("explain", str(out), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["status"] == "finished" and d["root"] is None and d["config"]


@pytest.mark.parametrize("target", ["/no/such/log.txt", "99999999999", ""])
def test_cli_bad_targets_are_one_line_exit_2(target):
    r = run_cli("explain", target)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


# ------------------------------------------------------------------ bounds and junk
def test_a_100_mb_log_answers_with_the_failure_at_its_end(tmp_path):
    p = tmp_path / "big.log"
    step = ("[default0]:{'loss': 2.0228, 'grad_norm': 0.4589, 'learning_rate': 1.8333e-04, 'epoch': 0.08}\n"
            "[default0]:  5%|          | 3/60 [00:12<03:49, 4.02s/it]\n"
            "[rank1]:/opt/conda/lib/python3.10/site-packages/torch/nn/modules/linear.py:125: UserWarning: Attempting "
            "to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas\n")
    block = (step * (2**20 // len(step))).encode()
    with open(p, "wb") as f:
        for _ in range(100):
            f.write(block)
        f.write(b"[rank3]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.45 GiB.\n")
    exp = diagnose([str(p)])
    r = _root(exp)
    assert os.path.getsize(p) > 99 * 2**20
    assert r.code == "oom" and r.first.rank == 3 and r.first.line == 100 * (2**20 // len(step)) * 3 + 1
    assert exp.partial and exp.status == "failed"


def test_binary_junk_and_an_endless_line_never_crash(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 40000 + b"\xff\xfe\x00RuntimeError: HIP error: invalid device function\x00")
    exp = diagnose([str(junk)])
    assert _root(exp).code == "hip-invalid-device-function"
    endless = tmp_path / "endless.log"
    endless.write_bytes(b"x" * (24 * 2**20) + b" OSError: [Errno 28] No space left on device " + b"y" * (2**20))
    exp = diagnose([str(endless)])
    r = _root(exp)
    assert r.code == "disk-full" and r.first.line == 1 and len(r.first.text) <= 2000
    r = run_cli("explain", str(junk))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    e = run_cli("explain", str(empty), "--json")
    assert e.returncode == 0 and json.loads(e.stdout)["status"] == "unknown"


def test_a_sigkilled_run_states_host_ram_against_the_offload_need(tmp_path):
    # full fine-tuning of a 7B with ZeRO-3 offloading everything to a 32 GiB host (the shape of
    # calibration dolly-111: ZeRO-3 offload, 32 GB RAM, return code -9)
    p = run_cli("plan", "--model", "qwen2.5-7b", "--gpu", "rtx4090", "--gpus", "1", "--method", "full", "--zero", "3",
                "--offload", "all", "--cpu-ram-gib", "32", "--json")
    assert p.returncode in (0, 1), p.stderr
    d = tmp_path / "run"
    d.mkdir()
    (d / "plan.json").write_text(p.stdout)
    (d / "run.json").write_text(json.dumps({"id": "20270101-120000-kill-ab12", "name": "kill", "command": ["x"],
                                            "cwd": str(d), "env": {}, "created_at": 1.7e9, "started_at": 1.7e9,
                                            "pid": None, "pgid": None, "supervisor_pid": None, "plan": None,
                                            "kind": "command", "total_steps": 20}))
    (d / "exit.json").write_text(json.dumps({"status": "failed", "returncode": -9, "signal": 9, "ended_at": 1.7e9 + 5}))
    (d / "stdout.log").write_text("[2023-04-20 19:03:19,633] [INFO] [utils.py:831:see_memory_usage] Before initializing "
                                  "optimizer states\n")   # calibration dolly-111: the log stops here
    r = run_cli("explain", str(d), "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    root = out["root"]
    need = json.loads(p.stdout)["memory"]["cpu_offload_bytes"]
    assert root["family"] == "host_ram_oom" and root["first_seen"]["file"].endswith("exit.json")
    assert root["numbers"]["offload_need_bytes"] == need and root["numbers"]["host_total_bytes"] == 32 * GIB
    assert "too much" in root["title"] and f"{need / GIB:.1f} GiB" in root["title"]


def test_the_catch_all_exception_never_hides_a_specific_signature():
    # torch 1.x prints the watchdog timeout as a RuntimeError (the catch-all would match it too)
    line = ("RuntimeError: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3, OpType=BROADCAST,"
            " Timeout(ms)=1800000) ran for 1800529 milliseconds before timing out.")
    assert cat.best_match(line)[0].code == "collective-timeout"
    exp = explain_text(line + "\n")
    assert _root(exp).family == "nccl_rccl_timeout_hang" and exp.status == "hang"
    # and an error it does not know is still reported, as family unknown, with the line
    other = explain_text("Traceback (most recent call last):\n  File \"train.py\", line 3\nKeyError: 'frobnicate'\n")
    r = _root(other)
    assert r.code == "python-exception" and r.family == "unknown" and other.status == "failed"
    assert r.evidence[0].text == "KeyError: 'frobnicate'" and r.first.line == 3
    # a missing dataset column (alpaca's `instruction`) is the dataset's
    assert _root(explain_text("Traceback (most recent call last):\nKeyError: 'instruction'\n")).family == "dataset_error"


def test_cli_a_pid_finds_its_log_through_proc(tmp_path):
    import subprocess
    import sys

    log = tmp_path / "train.log"
    log.write_text("ValueError: Template qwen2 does not exist.\n")        # calibration lf-5453
    with open(log, "a") as fh:
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], stdout=fh, stderr=fh)
    try:
        r = run_cli("explain", str(proc.pid), "--json")
        assert r.returncode == 1, r.stderr
        d = json.loads(r.stdout)
        assert d["files"] == [str(log)] and d["root"]["code"] == "template-error"
    finally:
        proc.kill()
        proc.wait()


def test_deepspeed_batch_numbers_from_a_wrapped_message():
    # the message as rich's traceback wraps it (bigcode-project/starcoder#77)
    exp = explain_text("AssertionError: Check batch related parameters. train_batch_size is not\nequal to "
                       "micro_batch_per_gpu * gradient_acc_step * world_size 64 != 4 *\n8 * 1\n")
    r = _root(exp)
    assert r.family == "config_error"
    assert r.numbers == {"train_batch_size": 64, "micro_batch": 4, "grad_accum": 8, "world_size": 1}


def _spawn(tmp_path: Path, handler: bool):
    import subprocess
    import sys
    import time

    log = tmp_path / f"live-{handler}.log"
    code = ("import faulthandler, signal, time\n"
            # the handler lf_launch.py and the built-in trainer register in every training process
            + ("from rocm_tune.train.callbacks import register_stack_dump\nregister_stack_dump()\n" if handler else "")
            + "print(\"{'loss': 1.0, 'epoch': 0.1}\", flush=True)\n"
              "def wait_in_barrier():\n    time.sleep(120)\nwait_in_barrier()\n")
    fh = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=fh, stderr=fh)
    fh.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and log.stat().st_size == 0:
        time.sleep(0.05)
    time.sleep(1.2)     # the log is now older than --stall-s 1
    return proc, log


def _spawn_run(handler: bool = True) -> tuple[str, int]:
    """The _spawn program started as a rocm-tune run (its process carries the run's marker): (run id, pid)."""
    import sys
    import time

    from rocm_tune.core.runs.registry import find_run

    code = (("from rocm_tune.train.callbacks import register_stack_dump\nregister_stack_dump()\n" if handler else "")
            + "import time\nprint(\"{'loss': 1.0, 'epoch': 0.1}\", flush=True)\n"
              "def wait_in_barrier():\n    time.sleep(120)\nwait_in_barrier()\n")
    r = run_cli("run", "--json", "--", sys.executable, "-c", code)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    log = Path(info["dir"]) / "stdout.log"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and b"'loss'" not in (log.read_bytes() if log.exists() else b""):
        time.sleep(0.05)
    time.sleep(1.2)     # the log is now older than --stall-s 1
    return info["id"], find_run(info["id"]).pid


def test_a_live_run_without_progress_gets_each_stack_and_the_call_it_waits_in(tmp_path):
    from rocm_tune.core.runs import procs

    rid, pid = _spawn_run()  # a rocm-tune run's process: proven the run's (its marker), so it may be signalled
    try:
        r = run_cli("explain", str(pid), "--json", "--stall-s", "1")
        assert r.returncode == 1, r.stderr
        d = json.loads(r.stdout)
        assert d["status"] == "hang" and d["root"]["code"] == "live-stall"
        (st,) = d["stacks"]
        assert "wait_in_barrier" in st["waits_in"] and st["method"] in ("faulthandler", "py-spy")
        assert procs.pid_alive(pid)          # the dump did not stop it
        quiet = run_cli("explain", str(pid), "--json", "--no-stacks", "--stall-s", "1")
        q = json.loads(quiet.stdout)
        assert quiet.returncode == 0 and q["status"] == "running" and q["stacks"] is None
    finally:
        run_cli("stop", rid, "--grace", "0")


def test_a_process_without_a_handler_is_never_signalled(tmp_path):
    import shutil as _sh

    if _sh.which("py-spy"):
        pytest.skip("py-spy is installed: it is used instead of signals")
    proc, _ = _spawn(tmp_path, handler=False)
    try:
        r = run_cli("explain", str(proc.pid), "--json", "--stacks")
        d = json.loads(r.stdout)
        assert d["stacks"] == [] and proc.poll() is None and d["status"] == "running"
    finally:
        proc.kill()
        proc.wait()


def test_a_loss_collapse_is_read_from_the_series_with_the_precision_fix(tmp_path):
    # fp16 Qwen2.5: loss 0.0 with grad_norm nan from step 2 (the field report of seeds/000), with the compute dtype
    # LLaMA-Factory prints at start-up (model/loader.py) in front of it
    text = (LOGS / "alert-loss-collapse-qwen-fp16.log").read_text()
    fp16_log = tmp_path / "fp16.log"
    fp16_log.write_text("[INFO|loader.py:52] 2025-01-09 14:01:58,102 >> compute dtype: torch.float16\n" + text)
    exp = diagnose([str(fp16_log)])
    r = _root(exp)
    assert r.code == "loss-collapse" and r.family == "fp16_overflow" and exp.status == "failed"
    assert "'loss': 0.0, 'grad_norm': nan" in r.first.text and r.first.line == 7
    assert "fp32" in r.fix
    # ex-num: the same lines with no sign of fp16 at all (no flag, no loss scaler, no GPU without bf16) are a NaN
    # loss, as they are in a bf16 run
    assert _root(diagnose([str(LOGS / "alert-loss-collapse-qwen-fp16.log")])).family == "nan_loss"
    # a NaN in rocm-tune's own metrics.jsonl
    nan = diagnose([str(LOGS / "alert-nan-loss-metrics.jsonl")])
    assert _root(nan).family == "nan_loss"


def test_ms_swift_git_notice_is_harmless_and_a_kill_after_it_is_the_root(tmp_path):
    # explain-3: ms-swift logs `[ERROR:swift] There are error run git command.` at start-up and trains on
    start = ("[ERROR:swift] There are error run git command.\n"
             "[INFO:swift] The SftArguments will be saved in: /out/v0-20240626-155144/sft_args.json\n"
             "{'loss': 0.9921875, 'acc': 0.85889566, 'learning_rate': 1.5e-07, 'epoch': 0.0, 'global_step': 1}\n")
    log = tmp_path / "swift.log"
    log.write_text(start)
    exp = diagnose([str(log)])
    assert exp.root is None and exp.answer == "benign_warning"
    log.write_text(start + "Killed\n")
    r = _root(diagnose([str(log)]))
    assert r.family == "host_ram_oom" and not r.benign


def test_rocclr_queue_abort_yields_to_the_specific_rocm_cause(tmp_path):
    # explain-3: ROCclr's `callbackQueue aborting` alone is a ROCm runtime failure; with a more specific line after
    # it (no code object for the GPU, an aperture violation) that line names the cause
    abort = ":0:rocdevice.cpp            :1663: 0164233553 us: Device::callbackQueue aborting with status: 0x1016\n"
    log = tmp_path / "abort.log"
    log.write_text(abort + "Aborted (core dumped)\n")
    r = _root(diagnose([str(log)]))
    assert (r.code, r.family) == ("rocclr-queue-abort", "hip_error")
    log.write_text(abort + 'hip_code_object.cpp:92: guarantee(false && "hipErrorNoBinaryForGpu: Coudn\'t find binary '
                   'for current devices!")\nAborted (core dumped)\n')
    r = _root(diagnose([str(log)]))
    assert r.family == "hip_error" and r.code != "rocclr-queue-abort"
    log.write_text(":0:rocdevice.cpp            :2673: 35922360365 us: 32315: [tid:0x7f633bd6f640] "
                   "Device::callbackQueue aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent "
                   "attempted to access memory beyond the largest legal address. code: 0x29\n")
    assert _root(diagnose([str(log)])).code == "gpu-memory-fault"


def test_ms_swift_precision_comes_from_its_torch_dtype(tmp_path):
    # explain-3: ms-swift turns --torch_dtype bfloat16 into bf16 and float16/float32 into fp16 mixed precision, so a
    # loss of 0.0 with grad_norm nan is a NaN loss in the first and an fp16 overflow in the second
    steps = "".join("{'loss': 0.0, 'token_acc': 0.0, 'grad_norm': nan, 'learning_rate': 1e-05, 'memory(GiB)': 65.89, "
                    f"'epoch': 0.0, 'global_step/max_steps': '{i}/2046'}}\n" for i in range(2, 6))
    for dtype, family in (("bfloat16", "nan_loss"), ("float16", "fp16_overflow"), ("float32", "fp16_overflow")):
        log = tmp_path / f"swift-{dtype}.log"
        log.write_text(f"NPROC_PER_NODE=8 swift sft --model Qwen/Qwen2.5-7B-Instruct --train_type full "
                       f"--torch_dtype {dtype} --deepspeed zero2\n[INFO:swift] args.output_dir: /out/v0\n" + steps)
        assert _root(diagnose([str(log)])).family == family, dtype
    # outside ms-swift torch_dtype is only the load dtype: the precision stays unknown, and with no sign of fp16 the
    # collapse is a NaN loss (ex-num: fp16 is read as the cause only where fp16 is in use)
    log = tmp_path / "hf.log"
    log.write_text("python train.py --torch_dtype bfloat16\n" + steps)
    assert _root(diagnose([str(log)])).family == "nan_loss"


def test_megatron_constant_loss_scale_of_one_is_not_fp16(tmp_path):
    # explain-3: Megatron-LM prints `loss scale: 1.0` on every iteration of a bf16 run (its constant scaler), so a
    # NaN grad norm there is a NaN loss; a dynamic scale (65536.0 ...) is fp16's, and then it is an fp16 overflow
    line = ("iteration     {i}/    8000 | consumed samples:       216640 | elapsed time per iteration (ms): 7624.3 | "
            "learning rate: 6.676E-06 | global batch size:    64 | loss scale: {s} | grad norm: nan | "
            "number of skipped iterations:   0 | number of nan iterations:   0 |\n")
    for scale, family in (("1.0", "nan_loss"), ("65536.0", "fp16_overflow")):
        log = tmp_path / f"megatron-{scale}.log"
        log.write_text("".join(line.format(i=i, s=scale) for i in (3385, 3386)))
        r = _root(diagnose([str(log)]))
        assert (r.code, r.family) == ("nan-loss", family), scale


def test_per_rank_logs_in_a_directory_the_first_failure_in_time_wins_over_file_order(tmp_path):
    d = tmp_path / "logs"
    d.mkdir()
    # rank 0 (first by name) times out at 10:30; rank 1 ran out of memory at 10:00 (fixture formats)
    (d / "rank0.log").write_text(
        "[2025-02-18 10:00:01,000] [INFO] [engine.py:1] step 10\n"
        "[2025-02-18 10:30:05,000] [rank0]:[E218 10:30:05.661937 3812 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog "
        "caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for "
        "1800069 milliseconds before timing out.\n")
    (d / "rank1.log").write_text(
        "[2025-02-18 10:00:05,000] [INFO] [engine.py:1] step 10\n"
        "[rank1]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.45 GiB.\n")
    r = run_cli("explain", str(d), "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    root = out["root"]
    assert root["code"] == "oom" and root["first_seen"]["file"] == str(d / "rank1.log")
    from datetime import datetime, timezone

    assert root["first_seen"]["rank"] == 1
    assert root["first_seen"]["time"] == datetime(2025, 2, 18, 10, 0, 5, tzinfo=timezone.utc).timestamp()
    to = next(x for x in out["diagnoses"] if x["code"] == "collective-timeout")
    assert to["consequence_of"] == out["root_index"] and to["numbers"]["verdict"] == "one rank died first"


def test_a_local_stuck_run_reports_this_machines_iommu(tmp_path):
    from rocm_tune.core.hardware.doctor import iommu_state

    out = tmp_path / "saves"
    out.mkdir()
    shutil.copy(LOGS / "alert-collective-timeout.log", out / "running_log.txt")
    r = _root(diagnose([str(out / "running_log.txt")], output_dir=str(out)))
    state = iommu_state()
    assert r.numbers["iommu_this_machine"] == state
    assert (f"this machine: IOMMU {state}" in r.fix) == (state != "unknown")
    # a pasted log says nothing about this machine
    assert "iommu_this_machine" not in _root(explain_text((LOGS / "alert-collective-timeout.log").read_text())).numbers


def test_any_bytes_and_hostile_paths_get_an_answer(tmp_path):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    pieces = st.sampled_from([line for _, line, _ in REAL_LINES] + ["\r", "\x1b[31m", "\x00", "{'loss': nan}", "\n",
                                                                     "[rank7]: ", "é中", "x" * 5000])

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(junk=st.binary(max_size=3000), parts=st.lists(pieces, max_size=12))
    def prop(junk, parts):
        data = junk + "\n".join(parts).encode("utf-8", "surrogatepass") + junk[:100]
        exp = explain_text(data)
        d = exp.to_dict()
        json.dumps(d)
        assert exp.status in ("failed", "hang", "finished", "running", "unknown")
        assert d["root"] is None or not d["root"]["benign"]

    prop()
    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    dangling = tmp_path / "gone.log"
    dangling.symlink_to(tmp_path / "nowhere")
    for target in (fifo, dangling, tmp_path / "empty-dir"):
        if target.name == "empty-dir":
            target.mkdir()
        r = run_cli("explain", str(target), timeout=30)
        assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_cli_a_run_id_from_the_registry_and_a_torchrun_sigkill_summary():
    state = Path(os.environ["XDG_STATE_HOME"])
    rid = "20270101-130000-killed-cd34"
    d = state / "rocm-tune" / "runs" / rid
    d.mkdir(parents=True)
    (d / "run.json").write_text(json.dumps({"id": rid, "name": "killed", "command": ["torchrun", "train.py"],
                                            "cwd": str(d), "env": {}, "created_at": 1.7e9, "started_at": 1.7e9,
                                            "pid": None, "pgid": None, "supervisor_pid": None, "plan": None,
                                            "kind": "command", "total_steps": 20}))
    (d / "exit.json").write_text(json.dumps({"status": "failed", "returncode": 1, "signal": None,
                                             "ended_at": 1.7e9 + 50}))
    # torchrun's summary as posted in lzhxmu/CPPO#6: the launcher's ChildFailedError names a SIGKILLed rank
    (d / "stdout.log").write_text("\n".join([
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "============================================================",
        "src/open_r1/grpo_gsm.py FAILED",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2025-05-21_15:43:03",
        "  rank      : 0 (local_rank: 0)",
        "  exitcode  : -9 (pid: 14750)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 14750",
    ]) + "\n")
    r = run_cli("explain", rid, "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    root = out["root"]
    assert root["family"] == "host_ram_oom" and root["first_seen"]["line"] == 8
    child = next(x for x in out["diagnoses"] if x["code"] == "child-failed")
    assert child["consequence_of"] == out["root_index"]


def test_rocblas_without_kernels_for_the_arch_gets_the_override_for_that_arch():
    # ROCm/legacy-rocm-build#3015 (gfx1036, an RDNA2 iGPU)
    r = _root(explain_text("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file "
                           "or directory for GPU arch : gfx1036\n"))
    assert r.numbers["arch"] == "gfx1036" and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in r.fix.split(";")[0]


@pytest.mark.parametrize("case,code", [("dolly-139-checkpoint-save-no-space-left", "disk-full"),
                                       ("rocm-rccl-1129-mi100-ddp-hang-iommu", "iommu-p2p-hang"),
                                       ("dolly-111-zero3-offload-host-ram-sigkill", "host-ram-nearly-full"),
                                       ("lf-5453-template-qwen2-use-qwen", "template-error")])
def test_attach_alerts_come_from_the_same_catalogue(case, code):
    log = Path("/work/shared/calibration/real-crashes") / case / "log.txt"
    if not log.is_file():
        pytest.skip("calibration set not on this machine")
    r = run_cli("attach", str(log), "--once", "--json", "--no-gpus")
    assert r.returncode == 0, r.stderr
    alerts = json.loads(r.stdout)["alerts"]
    assert [a["code"] for a in alerts] == [code]
    entry = cat.BY_CODE[code]
    assert alerts[0]["severity"] == entry.severity and entry.fix in alerts[0]["fix"]


def test_an_lf_output_dir_oom_without_a_plan_gets_the_smallest_change_from_its_yaml(tmp_path):
    # fixture alert-oom-cuda.log (a 79.19 GiB GPU, 2 GiB asked, 1.72 GiB free) in a LLaMA-Factory output
    # dir whose training_args.yaml is a full bf16 fine-tuning of Qwen2.5-7B at micro-batch 8
    out = tmp_path / "saves"
    out.mkdir()
    shutil.copy(LOGS / "alert-oom-cuda.log", out / "running_log.txt")
    (out / "training_args.yaml").write_text(
        "model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nfinetuning_type: lora\nbf16: true\ncutoff_len: 4096\n"
        "per_device_train_batch_size: 8\ngradient_accumulation_steps: 2\nlora_rank: 8\n")
    r = run_cli("explain", str(out), "--json")
    assert r.returncode == 1, r.stderr
    d = json.loads(r.stdout)
    root = d["root"]
    fit = root["numbers"]["fit"]
    assert d["config"] == str(out / "training_args.yaml") and fit["source"].startswith("the training YAML")
    assert fit["vram_bytes"] == int(79.19 * GIB)
    assert fit["needed_at_least_bytes"] == int(79.19 * GIB) - int(1.72 * GIB) + 2 * GIB
    assert fit["change"]["micro_batch"] < 8 or fit["change"].get("cutoff_len", 4096) < 4096
    assert "smallest change from the training YAML that fits" in root["fix"] and "GiB of 79" in root["fix"]
    a = run_cli("attach", str(out), "--once", "--json", "--no-gpus")
    alert = next(x for x in json.loads(a.stdout)["alerts"] if x["code"] == "oom")
    assert alert["fix"].startswith("smallest change from the training YAML that fits: " + fit["fix"])


def test_axolotl_rank_and_time_format():
    # axolotl's logger (axolotl-ai-cloud/axolotl#1527): time, level, module, PID, RANK
    exp = explain_text("[2024-04-17 00:08:54,225] [INFO] [axolotl.load_model:354] [PID:808742] [RANK:2] patching with "
                       "flash attention for sample packing\n"
                       "[2024-04-17 00:08:55,001] [ERROR] [axolotl.train:1] [PID:808742] [RANK:2] ValueError: Template "
                       "qwen2 does not exist.\n")
    r = _root(exp)
    assert r.first.rank == 2 and r.first.line == 2
    from datetime import datetime, timezone

    assert r.first.time == datetime(2024, 4, 17, 0, 8, 55, 1000, tzinfo=timezone.utc).timestamp()


# ------------------------------------------------------------------ issue 26: the same causes in other places
_SAVE_OOM = """Traceback (most recent call last):
  File "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", line 2660, in _maybe_log_save_evaluate
    self._save_checkpoint(model, trial, metrics=metrics)
  File "/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", line 2760, in _save_checkpoint
    self.save_model(output_dir, _internal_call=True)
  File "/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/engine.py", line 3300, in _zero3_consolidated_16bit_state_dict
    param.all_gather()
torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 63.98 GiB of which \
1.02 GiB is free. Of the allocated memory 58.10 GiB is allocated by PyTorch, and 3.50 GiB is reserved by PyTorch but \
unallocated. If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to \
avoid fragmentation.
"""


def test_an_oom_while_saving_says_so_and_the_allocator_setting_with_its_rocm_support():
    r = _root(explain_text(_SAVE_OOM))
    assert r.family == "gpu_oom" and r.numbers["phase"] == "save" and "(during save)" in r.title
    assert "stage3_gather_16bit_weights_on_model_save" in r.fix
    # 3.50 GiB reserved but unallocated >= the 1.96 GiB asked: may be fragmentation, with the setting; PyTorch's own
    # "try setting ..." hint in the message is not the user's setting
    assert "may be fragmentation" in r.fix and "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True" in r.fix
    assert "ROCm 7.0" in r.fix and "already set" not in r.fix


def test_a_lever_the_log_shows_on_is_never_suggested_again():
    log = ("[INFO|trainer.py:2128] 2024-06-01 10:00:00,000 >>   Instantaneous batch size per device = 1\n"
           "[WARNING|logging.py:329] 2024-06-01 10:00:01,000 >> `use_cache=True` is incompatible with gradient "
           "checkpointing. Setting `use_cache=False`.\n"
           "export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True\n"
           "[rank0]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.00 GiB. GPU 0 has a total capacity "
           "of 23.98 GiB of which 1.00 GiB is free. Of the allocated memory 18.50 GiB is allocated by PyTorch, and "
           "3.40 GiB is reserved by PyTorch but unallocated.\n")
    r = _root(explain_text(log))
    assert "gradient checkpointing on" not in r.fix and "per_device_train_batch_size" not in r.fix
    assert "expandable_segments is already set" in r.fix and "set PYTORCH_HIP_ALLOC_CONF" not in r.title
    # the same OOM without those lines gets all three
    bare = _root(explain_text(log.split("export")[0].split("\n")[0] + "\n" + log.split("\n")[-2] + "\n"))
    assert "turn gradient checkpointing on" in bare.fix and "expandable_segments:True" in bare.fix


def test_teardown_only_with_an_offload_config_beside_it_is_host_ram(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("W0301 12:03:00.000000 140 torch/distributed/elastic/multiprocessing/api.py:858] Sending process "
                   "141 closing signal SIGTERM\nE0301 12:03:01.000000 140 torch/distributed/elastic/multiprocessing/"
                   "api.py:833] failed (exitcode: 1) local_rank: 1 (pid: 142) of binary: /usr/bin/python3\n"
                   "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n")
    assert _root(diagnose([str(log)])).family == "launcher_exit"
    ds = tmp_path / "conf" / "ds_z3_offload_config.json"
    ds.parent.mkdir()
    ds.write_text('{"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu", "pin_memory": true}, '
                  '"offload_param": {"device": "cpu"}}}')
    out = run_cli("explain", str(log), "--config", str(ds), "--json")
    d = json.loads(out.stdout)
    assert out.returncode == 1 and d["root"]["family"] == "host_ram_oom"
    assert "offload only the optimizer (offload_param off)" in d["root"]["fix"]
    shutil.copy(ds, tmp_path / ds.name)       # beside the log: found without --config
    assert _root(diagnose([str(log)])).family == "host_ram_oom"
    bad = run_cli("explain", str(log), "--config", str(tmp_path / "nope.yaml"))
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "nope.yaml" in bad.stderr


def test_nan_in_an_fp16_run_is_an_fp16_overflow_and_warnings_are_never_causes():
    r = _root(explain_text("fp16: true\n{'loss': 2.1, 'grad_norm': 1.2, 'epoch': 0.1}\n"
                           "{'loss': 1.9, 'grad_norm': inf, 'epoch': 0.2}\n"))
    assert r.family == "fp16_overflow"
    bf = _root(explain_text("bf16: true\n{'loss': 1.9, 'grad_norm': nan, 'epoch': 0.2}\n"))
    assert bf.family == "nan_loss" and "bf16 is already on" in bf.fix and "bf16 where" not in bf.fix
    # warnings that hold an error's words, then the real error
    log = ("/x/torch/cuda/memory.py:330: FutureWarning: torch.cuda.reset_max_memory_allocated now calls "
           "torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats. out of memory\n"
           "rocblaslt warning: No paths matched /opt/rocm/lib/hipblaslt/library/*gfx1100*co.\n"
           "/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory\n"
           "RuntimeError: No HIP GPUs are available\n")
    exp = explain_text(log)
    assert _root(exp).code == "no-gpu-visible"
    assert {d.code for d in exp.diagnoses if d.benign} == {"harmless-warning", "hipblaslt-unsupported",
                                                           "amdgpu-ids-missing"}
    alone = explain_text("".join(log.splitlines(True)[:3]))
    assert alone.root is None and alone.status != "failed"


def test_a_killed_rank_is_the_cause_and_its_peers_lost_connection_the_consequence():
    log = ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:"
           "317, remote process exited or there was a network error, NCCL version 2.20.5\n"
           "[2024-05-01 10:05:03,100] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', "
           "'--local_rank=0'] exits with return code = -9\n")
    exp = explain_text(log)
    assert _root(exp).family == "host_ram_oom"
    assert any(d.code == "nccl-peer-gone" and d.consequence_of == exp.root for d in exp.diagnoses)
    # alone, the lost peer is the collective's failure
    assert _root(explain_text(log.splitlines()[0] + "\n")).family == "nccl_rccl_timeout_hang"
    # each evidence line keeps its own timestamp (JSON: null where the line has none)
    out = run_cli("explain", "-", "--json", input=log)
    ev = {e["text"][:20]: e["time"] for d in json.loads(out.stdout)["diagnoses"] for e in d["evidence"]}
    assert ev["[2024-05-01 10:05:03"] == pytest.approx(1714557903.1) and ev["[rank1]: torch.distr"] is None


@pytest.mark.parametrize("frames,phase,family,words", [
    ('  File "/x/transformers/modeling_utils.py", line 3800, in from_pretrained\n'
     '  File "/x/deepspeed/runtime/zero/partition_parameters.py", line 500, in wrapper\n'
     '  File "/x/torch/nn/modules/module.py", line 1160, in _apply\n', "load", "gpu_oom", "while loading the model"),
    ('  File "/x/transformers/trainer.py", line 3800, in evaluate\n'
     '  File "/x/transformers/trainer.py", line 4200, in prediction_step\n'
     '  File "/x/torch/nn/modules/module.py", line 1500, in _call_impl\n', "eval", "gpu_oom", "per_device_eval_batch_size"),
    ('  File "/x/deepspeed/runtime/zero/stage3.py", line 900, in _create_fp16_partitions_with_defragmentation\n'
     '  File "/x/deepspeed/accelerator/cuda_accelerator.py", line 296, in pin_memory\n', "pinned", "host_ram_oom",
     "pin_memory: false"),
])
def test_where_an_oom_happened_decides_its_fix(frames, phase, family, words):
    # DeepSpeed's pinned CPU-offload buffers fail as `CUDA error: out of memory` (deepspeedai/DeepSpeed#3481, #2977)
    err = ("RuntimeError: CUDA error: out of memory\n" if phase == "pinned" else
           "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacity of "
           "63.98 GiB of which 3.00 GiB is free.\n")
    r = _root(explain_text("Traceback (most recent call last):\n" + frames + err))
    assert r.numbers["phase"] == phase and r.family == family and words in r.fix


def test_a_log_that_ends_in_nccl_setup_lines_is_a_hang_but_not_when_training_follows():
    init = ("node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
            "[1] node2:22555:22555 [0] NCCL INFO Connected all rings\n")       # NVIDIA/nccl#1232's lines
    exp = explain_text("[INFO] starting\n" + init)
    assert _root(exp).code == "nccl-init-then-silence" and exp.status == "hang"
    after = explain_text(init + "{'loss': 1.2, 'grad_norm': 0.4, 'learning_rate': 1e-05, 'epoch': 0.1}\n"
                         "  1%|          | 2/200 [00:20<33:00, 10.00s/it]\n")
    assert after.root is None
    # far from the end (a real error after them): not a sign
    late = explain_text(init + "x\n" * 3000 + "RuntimeError: No HIP GPUs are available\n")
    assert _root(late).code == "no-gpu-visible" and all(d.code != "nccl-init-then-silence" for d in late.diagnoses)


def test_an_arch_mismatch_gets_the_override_for_the_gpu_in_the_log_unless_one_is_set():
    line = "RuntimeError: HIP error: invalid device function\n"
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0 before" in _root(explain_text("AMD Radeon RX 6700 XT (gfx1031)\n" + line)).fix
    same = _root(explain_text("export HSA_OVERRIDE_GFX_VERSION=10.3.0\ngfx1031\n" + line))
    assert "already set" in same.fix and "before starting" not in same.fix
    other = _root(explain_text("export HSA_OVERRIDE_GFX_VERSION=11.0.0\ngfx1031\n" + line))
    assert "set to 11.0.0" in other.fix and "10.3.0" in other.fix


def test_a_native_crash_is_the_gpu_runtime_s_only_on_a_rocm_or_dcu_stack():
    crash = "Segmentation fault (core dumped)\n"
    assert _root(explain_text(crash)).family == "unknown"
    assert _root(explain_text("torch 2.4.1+rocm6.1 on gfx90a\n" + crash)).family == "hip_error"
    assert _root(explain_text("hy-smi: 8 DCU K100_AI\n" + crash)).family == "hip_error"
    # a catch-all exception with no deciding frame: what its message is about
    assert _root(explain_text("ValueError: Please specify `lora_target` for LoRA training.\n")).family == "config_error"
    assert _root(explain_text("ValueError: The dataset has no column `text`.\n")).family == "dataset_error"


def test_a_compiler_wrapper_defers_to_the_import_failure_it_re_raises():
    # unsloth#3526 (RX 7600, ROCm): inductor re-raises an ImportError between torch and a mismatched triton; the
    # import between the two packages is the cause (version_check), not the compiler (config_error)
    log = ("  0%|          | 0/3 [00:00<?, ?it/s]\n"
           "    from triton.compiler.compiler import triton_key\n"
           "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
           "ImportError: cannot import name 'triton_key' from 'triton.compiler.compiler' "
           "(/venv/lib/python3.12/site-packages/triton/compiler/compiler.py)\n")
    ex = explain_text(log)
    assert ex.diagnoses[ex.root].code == "import-name-mismatch" and ex.answer == "version_check"
    # the wrapper alone (what it re-raises not in the log) is still the compiler's failure
    alone = explain_text("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n")
    assert alone.diagnoses[alone.root].code == "torch-compile-error"


def test_the_data_split_messages_of_datasets_are_the_data():
    for line in ("ValueError: Unknown split \"validation\". Should be one of ['train'].",
                 "ValueError: Instruction 'train' corresponds to no data!"):
        ex = explain_text(line + "\n")
        assert ex.answer == "dataset_error", line


def test_ms_swift_dropping_every_row_and_its_dataset_frames_are_the_data():
    # ms-swift#5712 (comment): each bad row's error is logged, the row deleted, and what is left reported
    row_error = ("[INFO:swift] Traceback (most recent call last):\n"
                 "  File \"/usr/lib/python3.11/site-packages/swift/llm/dataset/preprocessor/core.py\", line 113, in "
                 "_check_rejected_response\n"
                 "    raise ValueError(f'rejected_response: {rejected_response}')\n"
                 "ValueError: rejected_response: None\n")
    alone = explain_text(row_error)
    assert alone.answer == "dataset_error"   # raised in the runner's dataset package
    ex = explain_text(row_error + "[WARNING:swift] There are errors in the dataset, the data will be deleted\n"
                      "[INFO:swift] Dataset filtered, origin length: 66317, filtered dataset length: 0\n")
    assert ex.answer == "dataset_error" and ex.diagnoses[ex.root].code == "dataset-error"
    # a user's own path with a data/ folder is not a dataset frame
    own = explain_text("  File \"/data/user/project/train.py\", line 3, in main\n"
                       "    x = model.foo\nAttributeError: 'Net' object has no attribute 'foo'\n")
    assert own.answer != "dataset_error"


def test_an_exception_from_ms_swift_argument_classes_is_the_run_s_settings():
    # ms-swift 3 checks its settings in swift/llm/argument/**/*_args.py __post_init__ (ms-swift#5311's traceback)
    log = ("Traceback (most recent call last):\n"
           "  File \"/usr/local/lib/python3.10/site-packages/swift/llm/argument/base_args/base_args.py\", line 160, in "
           "__post_init__\n    self._init_lazy()\n"
           "  File \"/usr/local/lib/python3.10/site-packages/swift/llm/argument/train_args.py\", line 88, in _init_lazy\n"
           "    raise NotImplementedError(f'{self.train_type} with {self.tuner_backend}')\n"
           "NotImplementedError: longlora with unsloth\n")
    assert explain_text(log).answer == "config_error"
# ---------------------------------------------------------------- ex-num (issue 26): numeric/memory/collective families
def test_a_killed_rank_is_the_root_over_the_peers_connection_errors():
    # the surviving ranks report the vanished peer (connection reset, NCCL system error); the SIGKILLed rank is the cause
    peers = ("node1:2212:2301 [2] NCCL WARN NET/Socket : recv failed: Connection reset by peer\n"
             "[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
             "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
             "2.20.5\n")
    kill = ("E0101 10:10:11.000000 2200 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) "
            "local_rank: 0 (pid: 2210) of binary: /usr/bin/python3\n")
    assert explain_text(peers + kill).answer == "host_ram_oom"
    # without the kill the NCCL error is the root
    assert explain_text(peers).answer == "nccl_rccl_timeout_hang"


def test_a_lookup_error_in_the_statement_that_reads_a_checkpoint_is_a_resume_mismatch():
    tb = ('Traceback (most recent call last):\n  File "train.py", line 183, in <module>\n    {stmt}\n{exc}\n')
    ck = tb.format(stmt='optimizer.load_state_dict(checkpoint["optimizer"])', exc="KeyError: 'optimizer'")
    assert explain_text(ck).answer == "checkpoint_resume_mismatch"    # karpathy/llama2.c#148
    other = tb.format(stmt='label = label_map[row["label"]]', exc="KeyError: 'label'")
    assert explain_text(other).answer != "checkpoint_resume_mismatch"


@pytest.mark.parametrize("line", ["wandb:   train/loss nan", "loss tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)",
                                  "WARNING: NaN loss at step 120", "grad norm is nan", "gradient norm: nan", "Loss: inf",
                                  "perplexity: nan"])
def test_nan_loss_in_more_spellings(line):
    hit = cat.best_match(line)
    assert hit is not None and hit[0].family == "nan_loss", line


@pytest.mark.parametrize("line", ["{'loss': 1.2345, 'grad_norm': 3.21, 'learning_rate': 1e-05}", "  skip_nan_loss: false",
                                  "loss: 0.4521 - accuracy: 0.87"])
def test_finite_losses_are_not_nan_loss(line):
    assert not any(s.family == "nan_loss" for s, _ in cat.match_line(line)), line


def test_an_rccl_performance_note_alone_is_benign_but_a_hang_warning_is_not():
    note = "mi300x-a:55120:55120 [0] NCCL WARN NUMA auto balancing enabled which can lead to variability in the RCCL performance!"
    s, _ = cat.best_match(note)
    assert s.benign and s.family == "benign_warning"
    hang = ('node:1:1 [0] NCCL WARN Missing "HSA_FORCE_FINE_GRAIN_PCIE=1" from environment which can lead to low RCCL '
            "performance, system instablity or hang!")
    assert not any(s.code == "rccl-perf-advisory" for s, _ in cat.match_line(hang))


def test_an_exception_raised_while_restoring_a_checkpoint_is_a_resume_mismatch():
    log = ('Traceback (most recent call last):\n  File "/app/train.py", line 50, in <module>\n'
           "    trainer.train(resume_from_checkpoint=True)\n"
           '  File "/usr/lib/python3.10/site-packages/transformers/trainer.py", line 3000, in '
           "_load_optimizer_and_scheduler\n    self.optimizer.load_state_dict(\n"
           '  File "/usr/lib/python3.10/site-packages/torch/optim/optimizer.py", line 850, in load_state_dict\n'
           "    state_dict = state_dict.copy()\nKeyError: 'state'\n")
    assert explain_text(log).answer == "checkpoint_resume_mismatch"
