"""`explain` on the gaps an independent sample of public logs showed (helper e-g4, issue 26): Triton's
OutOfResources inside an attention kernel, ZLUDA (CUDA on AMD) with xformers and with a HIP SDK of another release,
libdrm refusing the render node, PyTorch's CUDA build seeing no GPU under its visibility mask, ms-swift's CLI router
and transformers' Trainer getting no loss from a model without a head.

Every log is written from the message's source (named beside it), not copied from the corpus; each rule has a
look-alike that keeps its own family.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

NOISE = ("Loading checkpoint shards: 100%|##########| 2/2 [00:03<00:00,  1.52s/it]\n"
         "***** Running training *****\n  Num examples = 12,000\n")
TB = "Traceback (most recent call last):\n  File \"/home/u/proj/train.py\", line 40, in <module>\n    main()\n"
SP = "/opt/conda/lib/python3.11/site-packages"
TRITON = (f"  File \"{SP}/triton/runtime/jit.py\", line 330, in <lambda>\n"
          "    return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)\n"
          f"  File \"{SP}/triton/runtime/jit.py\", line 653, in run\n    kernel.run(grid_0, grid_1, grid_2, stream)\n"
          f"  File \"{SP}/triton/compiler/compiler.py\", line 398, in _init_handles\n"
          "    raise OutOfResources(self.metadata.shared, max_shared, \"shared memory\")\n")


def _explain(tmp_path, text, name="train.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp.diagnoses[exp.root] if exp.root is not None else None


# (family, code or None, log) — triton/runtime/errors.py OutOfResources.__str__ (3.x with backticks, 2.x without),
# torch._inductor re-raising it (InductorError in 2.6+, BackendCompilerFailed before)
OOR = [
    # the flash-attention tutorial kernel (_attn_fwd) on a 99 KiB GPU
    ("flash_attn_error", "torch-compile-error", NOISE + TB +
     "  File \"/home/u/proj/kernels/fused_attention.py\", line 512, in forward\n    _attn_fwd[grid](q, k, v, sm_scale, M, o)\n"
     + TRITON + "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 114688, Hardware "
     "limit: 101376. Reducing block sizes or `num_stages` may help.\n"),
    # flex_attention compiled by inductor (torch 2.6: InductorError)
    ("flash_attn_error", "torch-compile-error", NOISE + TB +
     f"  File \"/home/u/proj/model.py\", line 88, in forward\n    y = flex_attention(q, k, v, block_mask=self.mask)\n"
     f"  File \"{SP}/torch/_dynamo/eval_frame.py\", line 574, in _fn\n    return fn(*args, **kwargs)\n"
     "torch._inductor.exc.InductorError: OutOfResources: out of resource: shared memory, Required: 196608, "
     "Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n"),
    # an older Triton (2.x: no backticks) in xformers' Triton attention op, another resource than shared memory
    ("flash_attn_error", "torch-compile-error", NOISE + TB +
     f"  File \"{SP}/xformers/ops/fmha/triton_splitk.py\", line 640, in apply\n    _fwd_kernel_splitK[grid](\n"
     "triton.runtime.autotuner.OutOfResources: out of resource: threads, Required: 2048, Hardware limit: 1024. "
     "Reducing block sizes or num_stages may help.\n"),
    # look-alike: Liger's RMSNorm kernel inside a decoder layer whose attention frames come first: not attention.
    # e-g6: a library's kernel (Liger picks its launch config) that cannot run on this GPU is the platform's family
    # (FAMILIES.md hip_error/cuda_error, Rule 1 refined; unsloth-4051 is labelled hip_error): cuda_error here, no
    # ROCm sign; the user's own kernel stays config_error (tests/test_explain_e_g6.py)
    ("cuda_error", "torch-compile-error", NOISE + TB +
     f"  File \"{SP}/transformers/models/llama/modeling_llama.py\", line 320, in forward\n"
     "    hidden_states, self_attn_weights = self.self_attn(hidden_states=hidden_states)\n"
     f"  File \"{SP}/transformers/models/llama/modeling_llama.py\", line 331, in forward\n"
     "    hidden_states = self.post_attention_layernorm(hidden_states)\n"
     f"  File \"{SP}/liger_kernel/ops/rms_norm.py\", line 215, in rms_norm_forward\n    _rms_norm_forward_kernel[(n_rows,)](\n"
     + TRITON + "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 262144, Hardware "
     "limit: 232448. Reducing block sizes or `num_stages` may help.\n"),
]


@pytest.mark.parametrize("family,code,text", OOR)
def test_triton_out_of_resources_by_kernel(tmp_path, family, code, text):
    r = _explain(tmp_path, text)
    assert r is not None and (r.family, r.code) == (family, code)
    assert "num_stages" in r.fix and "per block" in r.cause
    if family == "flash_attn_error":
        assert "attention implementation" in r.fix


# ZLUDA: the launchers' own lines (`Using ZLUDA in ...`, SD.Next's `[ZLUDA]` device name), torch's CUDA error text
ZLUDA_XFORMERS = ("Using ZLUDA in C:\\sd\\.zluda\nLaunching Web UI with arguments: --xformers --medvram\n" + TB +
                  "  File \"C:\\sd\\venv\\lib\\site-packages\\xformers\\ops\\fmha\\__init__.py\", line 192, in "
                  "memory_efficient_attention\n    return _memory_efficient_attention(\n"
                  "RuntimeError: CUDA error: named symbol not found\nCUDA kernel errors might be asynchronously "
                  "reported at some other API call, so the stacktrace below might be incorrect.\n")
ZLUDA_SDP = ("Using ZLUDA in C:\\sd\\.zluda\nLaunching Web UI with arguments: --opt-sdp-attention\n" + TB +
             "RuntimeError: CUDA error: named symbol not found\n")


def test_zluda_xformers_kernel_is_the_attention(tmp_path):
    r = _explain(tmp_path, ZLUDA_XFORMERS)
    assert r is not None and r.family == "flash_attn_error" and "SDP" in r.fix


def test_zluda_kernel_failure_without_xformers_stays_runtime(tmp_path):
    r = _explain(tmp_path, ZLUDA_SDP)
    assert r is not None and r.family == "hip_error"


@pytest.mark.parametrize("line,family", [
    # ZLUDA for HIP SDK 5.7 on a 6.2 install; a 5.x build's amdhip64.dll under 6.1; a 6.x name under 5.7
    ("Failed to load ZLUDA: Could not find module 'C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\hiprtc0507.dll' (or one "
     "of its dependencies). Try using the full path with constructor syntax.", "version_check"),
    ("OSError: [WinError 126] Could not find module 'C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\amdhip64.dll'",
     "version_check"),
    ("OSError: Could not find module 'C:/Program Files/AMD/ROCm/5.7/bin/amdhip64_6.dll'", "version_check"),
])
def test_hip_sdk_dll_of_another_release(tmp_path, line, family):
    r = _explain(tmp_path, "activating venv C:\\ot\\venv\n" + line + "\n")
    assert r is not None and (r.family, r.code) == (family, "hip-sdk-dll-version-mismatch")


def test_hip_sdk_dll_of_the_same_release_is_not_a_skew(tmp_path):
    r = _explain(tmp_path, "Failed to load ZLUDA: Could not find module 'C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\"
                           "hiprtc0602.dll' (or one of its dependencies).\n")
    assert r is None or r.code != "hip-sdk-dll-version-mismatch"


# libdrm amdgpu_device.c: `%s: amdgpu_get_auth (1) failed (%i)`; strace's line for a refused access()
DRM = ("$ docker run --rm -it --device=/dev/kfd --device=/dev/dri/renderD129 rocm/pytorch python3 -c "
       "'import torch; print(torch.cuda.is_available())'\n"
       "amdgpu_device_initialize: amdgpu_get_auth (1) failed (-1)\n"
       "amdgpu_device_initialize: amdgpu_get_auth (1) failed (-1)\nFalse\n")


def test_drm_auth_refused_is_the_device_permissions(tmp_path):
    r = _explain(tmp_path, DRM)
    assert r is not None and (r.family, r.code) == ("hf_cache_permission", "drm-auth-refused")
    r = _explain(tmp_path, "openat(AT_FDCWD, \"/dev/dri/card1\", O_RDWR|O_CLOEXEC) = -1 EPERM (Operation not "
                           "permitted)\nFalse\n")
    assert r is not None and r.family == "hf_cache_permission"


def test_drm_auth_line_loses_to_a_named_cause(tmp_path):
    # weak: a desktop prints it for a second GPU; the run's own failure is the root
    r = _explain(tmp_path, "amdgpu_device_initialize: amdgpu_get_auth (1) failed (-1)\n" + NOISE + TB +
                 "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                 "of 23.98 GiB of which 1.10 GiB is free.\n")
    assert r is not None and r.family == "gpu_oom"


# c10/cuda/CUDAFunctions.cpp device_count_ensure_non_zero: `No CUDA GPUs are available`
NO_GPU_TAIL = (f"  File \"{SP}/torch/cuda/__init__.py\", line 302, in _lazy_init\n    torch._C._cuda_init()\n"
               "RuntimeError: No CUDA GPUs are available\n")


def test_cuda_build_no_gpu_with_mask_shown(tmp_path):
    r = _explain(tmp_path, "$ CUDA_VISIBLE_DEVICES=2 python train.py --gpus 0\n" + TB + NO_GPU_TAIL)
    assert r is not None and r.family == "config_error" and "CUDA_VISIBLE_DEVICES=2" in r.title
    assert "nvidia-smi -L" in r.fix


def test_cuda_build_no_gpu_without_rocm_sign(tmp_path):
    r = _explain(tmp_path, "Python 3.10.12\n" + TB + NO_GPU_TAIL)
    assert r is not None and r.family == "config_error"


def test_no_gpu_on_rocm_stays_the_runtime(tmp_path):
    r = _explain(tmp_path, "torch 2.1.2+rocm5.6 on gfx1030\n" + TB + NO_GPU_TAIL)
    assert r is not None and r.family == "hip_error"


# ms-swift swift/cli/main.py cli_main: `ROUTE_MAPPING[method_name]` (3.x/4.x), `route_mapping[...]` (2.x)
def _swift(sub, table):
    return (f"$ swift {sub} --model Qwen/Qwen2.5-7B-Instruct\nTraceback (most recent call last):\n"
            f"  File \"/root/miniconda3/bin/swift\", line 8, in <module>\n    sys.exit(cli_main())\n"
            f"  File \"{SP}/swift/cli/main.py\", line 70, in cli_main\n"
            f"    file_path = importlib.util.find_spec({table}[method_name]).origin\nKeyError: '{sub}'\n")


@pytest.mark.parametrize("sub,table", [("train", "ROUTE_MAPPING"), ("kto", "route_mapping"),
                                       ("--model_type", "ROUTE_MAPPING")])
def test_swift_unknown_subcommand(tmp_path, sub, table):
    r = _explain(tmp_path, _swift(sub, table))
    assert r is not None and r.family == "config_error" and "swift rlhf --rlhf_type" in r.fix


def test_keyerror_deeper_in_swift_is_not_the_router(tmp_path):
    r = _explain(tmp_path, "$ swift sft --model Qwen/Qwen2.5-7B-Instruct\n" + TB +
                 f"  File \"{SP}/swift/cli/main.py\", line 70, in cli_main\n    result = subprocess.run(args)\n"
                 f"  File \"{SP}/swift/llm/dataset/loader.py\", line 120, in load\n    row = sample['messages']\n"
                 "KeyError: 'messages'\n")
    assert r is not None and "subcommand" not in r.fix and r.family == "dataset_error"


# transformers trainer.py compute_loss
def _no_loss(keys, inputs):
    return (NOISE + TB + f"  File \"{SP}/transformers/trainer.py\", line 3791, in compute_loss\n    raise ValueError(\n"
            f"ValueError: The model did not return a loss from the inputs, only the following keys: {keys}. For "
            f"reference, the inputs it received are {inputs}.\n")


@pytest.mark.parametrize("keys,inputs,family", [
    ("last_hidden_state,pooler_output", "input_ids,attention_mask,labels", "config_error"),   # BertModel
    ("last_hidden_state,past_key_values", "input_ids,attention_mask", "config_error"),          # LlamaModel
    ("logits", "input_ids,attention_mask", "dataset_error"),                 # a head, the labels did not arrive
    ("start_logits,end_logits", "input_ids,attention_mask", "dataset_error"),
])
def test_trainer_without_loss(tmp_path, keys, inputs, family):
    r = _explain(tmp_path, _no_loss(keys, inputs))
    assert r is not None and r.family == family
    if family == "config_error":
        assert r.code == "trainer-model-without-head" and "label_names" in r.fix


def test_cuda_runtime_no_device_with_mask_shown(tmp_path):
    # cudaErrorNoDevice in the CUDA runtime's words, the log setting the mask to a device the box lacks
    r = _explain(tmp_path, "export CUDA_VISIBLE_DEVICES=1\n" + TB +
                 "RuntimeError: CUDA error: no CUDA-capable device is detected\n")
    assert r is not None and r.family == "config_error" and "CUDA_VISIBLE_DEVICES=1" in r.title


def test_no_gpu_with_a_broken_driver_is_not_the_mask(tmp_path):
    r = _explain(tmp_path, "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                           "driver. Make sure that the latest NVIDIA driver is installed and running.\n" + TB +
                 NO_GPU_TAIL)
    assert r is not None and r.family != "config_error"
    r = _explain(tmp_path, TB + "RuntimeError: CUDA error: no CUDA-capable device is detected\n")
    assert r is not None and r.family == "cuda_error"


def test_zluda_torch_flash_sdpa_kernel(tmp_path):
    # SD.Next's device name on ZLUDA; torch's flash SDPA op in the frames
    r = _explain(tmp_path, "Torch detected GPU: AMD Radeon RX 6800 XT [ZLUDA]\n" + TB +
                 f"  File \"{SP}/torch/nn/functional.py\", line 5382, in scaled_dot_product_attention\n"
                 "    return torch.ops.aten._scaled_dot_product_flash_attention(query, key, value)\n"
                 "RuntimeError: CUDA error: invalid device function\n")
    assert r is not None and r.family == "flash_attn_error" and "enable_flash_sdp(False)" in r.fix
