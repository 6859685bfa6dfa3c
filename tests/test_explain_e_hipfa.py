"""`explain` at the border of hip_error (helper e-hipfa, issue 26): which failure a HIP runtime error belongs to,
decided by the frames that raised it and the lines before it (benchmarks/corpus/FAMILIES.md: hip_error vs
flash_attn_error, Rule 1's arch clause, device visibility).

Every log is written here from the tools' sources (the message formats named next to each), with the noise of a
run around it (progress bars, warnings, other ranks); none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import attention_owner
from rocm_tune.core.runs.diagnose.diagnose import diagnose

SP = "/opt/conda/envs/py_3.10/lib/python3.10/site-packages/"
NOISE = ("torch 2.4.1+rocm6.1 | transformers 4.46.2\n"
         "Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "[INFO|trainer.py:2128] 2025-01-10 10:00:00,000 >> ***** Running training *****\n")
STEPS = ("{'loss': 2.1187, 'grad_norm': 1.612, 'learning_rate': 1.98e-05, 'epoch': 0.02}\n"
         " 3%|3         | 30/1000 [00:41<22:13,  1.37s/it]\n")
HIP_TAIL = ("HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
            "be incorrect.\nFor debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
            "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n")


def _tb(*frames: tuple[str, int, str, str], rank: str = "") -> str:
    """A Python traceback with the given (path, line, function, statement) frames, outermost first."""
    out = [f"{rank}Traceback (most recent call last):\n",
           f'{rank}  File "/work/train.py", line 88, in <module>\n{rank}    trainer.train()\n']
    out += [f'{rank}  File "{p}", line {n}, in {fn}\n{rank}    {st}\n' for p, n, fn, st in frames]
    return "".join(out)


MODEL = (f"{SP}transformers/models/llama/modeling_llama.py", 421, "forward",
         "attn_output, attn_weights = attention_interface(")
MODULE = (f"{SP}torch/nn/modules/module.py", 1747, "_call_impl", "return forward_call(*args, **kwargs)")
AUTOGRAD = (f"{SP}torch/autograd/function.py", 575, "apply", "return super().apply(*args, **kwargs)  # type: ignore[misc]")
FA_IFACE = (f"{SP}flash_attn/flash_attn_interface.py", 91, "_flash_attn_forward",
            "out, softmax_lse, S_dmask, rng_state = flash_attn_gpu.fwd(")
FA_VARLEN = (f"{SP}flash_attn/flash_attn_interface.py", 1201, "flash_attn_varlen_func",
             "return FlashAttnVarlenFunc.apply(")
FA_TRITON = (f"{SP}flash_attn/flash_attn_triton_amd/fwd_prefill.py", 611, "attention_prefill_forward_triton_impl",
             "attn_fwd[grid](q, k, v, bias, sm_scale, softmax_lse, o,")
TRITON_JIT = (f"{SP}triton/runtime/jit.py", 345, "<lambda>",
              "return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)")
TRITON_DRV = (f"{SP}triton/backends/amd/driver.py", 493, "__call__", "self.launch(*args, **kwargs)")
XF_FMHA = (f"{SP}xformers/ops/fmha/__init__.py", 306, "_memory_efficient_attention_forward",
           "out, *_ = op.apply(inp, needs_gradient=False)")
XF_CK = (f"{SP}xformers/ops/fmha/ck.py", 234, "apply", "out, lse, rng_seed, rng_offset = cls.OPERATOR(")
SDPA = (f"{SP}transformers/integrations/sdpa_attention.py", 66, "sdpa_attention_forward",
        "attn_output = torch.nn.functional.scaled_dot_product_attention(")
VLLM_FA = (f"{SP}vllm/attention/ops/triton_flash_attention.py", 1003, "forward", "attn_fwd[grid](")
AITER = (f"{SP}aiter/ops/mha.py", 811, "_flash_attn_forward", "(out, softmax_lse, S_dmask, rng_state) = fmha_v3_fwd(")
RMSNORM = (f"{SP}transformers/models/llama/modeling_llama.py", 73, "forward",
           "return self.weight * hidden_states.to(input_dtype)")

OTHER_RANK = ("[rank0]:[E1128 10:10:00.000000000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective "
              "operation timeout: WorkNCCL(SeqNum=212, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
              "ran for 600031 milliseconds before timing out.\n")


def _c10_backtrace(caller_lib: str, rank: str = "") -> str:
    """torch's c10::Error backtrace (c10/util/Exception.cpp, most recent call first) with `caller_lib` as the first
    frame past torch's own."""
    lib = f"{SP}torch/lib/"
    return (f"{rank}Exception raised from c10_hip_check_implementation at /pytorch/c10/hip/HIPException.cpp:42 (most "
            "recent call first):\n"
            f"{rank}frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x80 (0x7f8a1c0b6a90 in "
            f"{lib}libc10.so)\n"
            f"{rank}frame #1: c10::hip::c10_hip_check_implementation(int, char const*, char const*, int, bool) + 0x3d1 "
            f"(0x7f8a1c2f1e21 in {lib}libc10_hip.so)\n"
            f"{rank}frame #2: mha_fwd(at::Tensor&, at::Tensor const&, at::Tensor const&, std::optional<at::Tensor>&, "
            f"float, float, bool, int, int, float, bool, std::optional<at::Generator>) + 0x1c4 (0x7f89f3a21c44 in "
            f"{caller_lib})\n"
            f"{rank}frame #3: <unknown function> + 0x15a10e (0x55d0c4f7a10e in /opt/conda/bin/python3.10)\n")


# (expected family, expected root code, log text, where the deciding lines come from)
CASES = {
    # --- a HIP error raised inside an attention library's own code: flash_attn_error -----------------------------
    "fa-ck-invalid-device-function": (
        "flash_attn_error", "hip-invalid-device-function",
        NOISE + STEPS + _tb(MODEL, FA_IFACE) + "RuntimeError: HIP error: invalid device function\n" + HIP_TAIL,
        "Dao-AILab/flash-attention flash_attn_interface.py -> flash_attn_2_cuda (CK backend); c10 HIP check text"),
    "fa-varlen-illegal-access-rank1": (
        "flash_attn_error", "gpu-memory-fault",
        NOISE + STEPS + _tb(MODEL, FA_VARLEN, AUTOGRAD, rank="[rank1]: ")
        + "[rank1]: RuntimeError: HIP error: an illegal memory access was encountered\n" + OTHER_RANK,
        "flash_attn_varlen_func through autograd's Function.apply; torch's ProcessGroupNCCL watchdog on rank 0"),
    "fa-triton-amd-backend": (
        "flash_attn_error", "hip-invalid-device-function",
        NOISE + "FLASH_ATTENTION_TRITON_AMD_ENABLE=TRUE\n" + _tb(MODEL, FA_TRITON, TRITON_JIT, TRITON_DRV)
        + "RuntimeError: Triton Error [HIP]:  Code: 98, Messsage: invalid device function\n",
        "flash_attn/flash_attn_triton_amd (Triton backend) launched by triton/backends/amd/driver.py"),
    "fa-ck-tile-check-in-line": (
        "flash_attn_error", "hip-runtime-error",
        NOISE + "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  HIP Function Failed (/root/flash-attention/csrc/composable_kernel/include/ck_tile/host/"
        "kernel_launch_hip.hpp,77) invalid device function\nAborted (core dumped)\n",
        "composable_kernel ck_tile/host/hip_check_error.hpp HIP_CHECK_ERROR, flash-attention's bundled CK"),
    "xformers-ck-op": (
        "flash_attn_error", "hip-invalid-device-function",
        NOISE + _tb(MODEL, XF_FMHA, XF_CK) + "RuntimeError: HIP error: invalid device function\n" + HIP_TAIL,
        "xformers/ops/fmha/ck.py (ROCm CK backend of memory_efficient_attention)"),
    "torch-sdpa-call": (
        "flash_attn_error", "hip-invalid-device-function",
        NOISE + STEPS + _tb(MODEL, SDPA) + "RuntimeError: HIP error: invalid device function\n" + HIP_TAIL,
        "transformers' sdpa_attention.py calling F.scaled_dot_product_attention (AOTriton kernels on ROCm)"),
    "vllm-triton-flash-attention": (
        "flash_attn_error", "hip-invalid-device-function",
        "INFO 03-01 10:00:00 [__init__.py:239] Automatically detected platform rocm.\n"
        + _tb(VLLM_FA, TRITON_JIT) + "RuntimeError: Triton Error [HIP]:  Code: 98, Messsage: invalid device function\n",
        "vllm/attention/ops/triton_flash_attention.py"),
    "fa-native-backtrace-after-abort": (
        "flash_attn_error", "gpu-memory-fault",
        NOISE + STEPS + "[rank3]: terminate called after throwing an instance of 'c10::Error'\n"
        "[rank3]:   what():  HIP error: an illegal memory access was encountered\n"
        + _c10_backtrace(f"{SP}flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so", rank="[rank3]: ") + OTHER_RANK,
        "torch c10::Error backtrace naming flash_attn_2_cuda's mha_fwd (rank 3), other ranks' watchdog"),
    # --- the same errors outside attention stay the runtime's (hip_error) ----------------------------------------
    "native-backtrace-in-torch": (
        "hip_error", "gpu-memory-fault",
        NOISE + STEPS + "terminate called after throwing an instance of 'c10::Error'\n"
        "  what():  HIP error: an illegal memory access was encountered\n"
        + _c10_backtrace(f"{SP}torch/lib/libtorch_hip.so") + "Aborted (core dumped)\n",
        "the same backtrace ending in torch's own kernels (libtorch_hip): the runtime's"),
    "model-op-invalid-device-function": (
        "hip_error", "hip-invalid-device-function",
        NOISE + _tb(MODULE, RMSNORM) + "RuntimeError: HIP error: invalid device function\n" + HIP_TAIL,
        "c10 HIP check from a plain torch op in the model code"),
    "aiter-fmha-is-aiter": (
        "hip_error", "hip-runtime-error",
        NOISE + _tb(MODEL, AITER) + "[AITER] /root/.aiter/build/module_fmha_v3_fwd/blob/asm_fmha_fwd_v3_gfx942.cpp:141 "
        "fail to call hipModuleLaunchKernel(kernel_func, gdx, gdy, gdz, 256, 1, 1, 0, s.stream_id_, NULL, "
        "reinterpret_cast<void**>(&config)) ---> [HIP error](invalid resource handle)\n",
        "ROCm/aiter's HIP_CALL check: AITER's own asm kernel, not flash-attn's"),
    "ck-tile-outside-flash-attn": (
        "hip_error", "hip-runtime-error",
        "$ ./build/bin/tile_example_gemm_basic -m 3840 -n 4096 -k 2048\n"
        "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  HIP Function Failed (/opt/composable_kernel/include/ck_tile/host/kernel_launch_hip.hpp,51) "
        "shared object initialization failed\nAborted (core dumped)\n",
        "composable_kernel HIP_CHECK_ERROR in a CK example binary"),
    "ck-tile-allocation-is-oom": (
        "gpu_oom", "oom",
        NOISE + "terminate called after throwing an instance of 'std::runtime_error'\n"
        "  what():  HIP Function Failed (/opt/composable_kernel/include/ck_tile/host/device_memory.hpp,38) out of "
        "memory\nAborted (core dumped)\n",
        "composable_kernel DeviceMem's hipMalloc through HIP_CHECK_ERROR: a failed device allocation (gpu_oom)"),
    # --- Rule 1, arch clause: clr's own listing shows the card and the bundled code objects ------------------------
    "clr-nobinary-listing-card-missing": (
        "version_check", "hip-invalid-device-function",
        NOISE + ":1:hip_code_object.cpp        :507 : 2817373 us: [pid:4410 tid:0x7f12]  hipErrorNoBinaryForGpu: "
        "Unable to find code object for all current devices!\n"
        ":1:hip_code_object.cpp        :509 : 2817378 us: [pid:4410 tid:0x7f12]    Devices:\n"
        ":1:hip_code_object.cpp        :512 : 2817380 us: [pid:4410 tid:0x7f12]      amdgcn-amd-amdhsa--gfx1031 - "
        "[Not Found]\n"
        ":1:hip_code_object.cpp        :516 : 2817382 us: [pid:4410 tid:0x7f12]    Bundled Code Objects:\n"
        ":1:hip_code_object.cpp        :533 : 2817384 us: [pid:4410 tid:0x7f12]      host-x86_64-unknown-linux-- - "
        "[Unsupported]\n"
        ":1:hip_code_object.cpp        :530 : 2817386 us: [pid:4410 tid:0x7f12]      hipv4-amdgcn-amd-amdhsa--gfx1030 "
        "- [code object targetID is amdgcn-amd-amdhsa--gfx1030]\n"
        ":1:hip_code_object.cpp        :530 : 2817388 us: [pid:4410 tid:0x7f12]      hipv4-amdgcn-amd-amdhsa--gfx1100 "
        "- [code object targetID is amdgcn-amd-amdhsa--gfx1100]\n"
        '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\nAborted (core dumped)\n',
        "ROCm/clr hipamd/src/hip_code_object.cpp (AMD_LOG_LEVEL=1 listing of devices and bundled code objects)"),
    "clr-nobinary-without-listing": (
        "hip_error", "hip-invalid-device-function",
        NOISE + '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\nAborted (core dumped)\n',
        "ROCm/clr hip_code_object.cpp without the listing: no build list shown"),
    # --- invalid device ordinal: no device at all vs a wrong index --------------------------------------------
    "rccl-tests-no-device-rows": (
        "hip_error", "no-gpu-visible",
        "$ mpirun -np 1 ./build/all_reduce_perf -b 8 -e 256M -f 2 -g 4\n"
        "# nThread 1 nGpus 4 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1 graph: 0\n#\n# Using devices\n"
        "c7a1e0f2b9d4: Test HIP failure common.cu:1105 'invalid device ordinal'\n"
        " .. c7a1e0f2b9d4 pid 77: Test failure common.cu:1003\n",
        "ROCm/rccl-tests src/common.cu (header, then the HIPCHECK of the first row's device query)"),
    "rccl-tests-more-gpus-than-visible": (
        "config_error", "invalid-device-ordinal",
        "$ ./build/all_reduce_perf -b 8 -e 256M -f 2 -g 4\n# Using devices\n"
        "#  Rank  0 Group  0 Pid     77 on c7a1e0f2b9d4 device  0 [0000:05:00] AMD Instinct MI210\n"
        "#  Rank  1 Group  0 Pid     77 on c7a1e0f2b9d4 device  1 [0000:26:00] AMD Instinct MI210\n"
        "c7a1e0f2b9d4: Test HIP failure common.cu:1105 'invalid device ordinal'\n",
        "ROCm/rccl-tests: rows printed, then -g asks for more GPUs than are visible"),
    "torch-zero-count-then-ordinal": (
        "hip_error", "no-gpu-visible",
        "torch 2.5.1+rocm6.2  hip 6.2.41133\ntorch.cuda.is_available(): False\ntorch.cuda.device_count(): 0\n"
        + _tb((f"{SP}torch/cuda/__init__.py", 476, "set_device", "torch._C._cuda_setDevice(device)"))
        + "RuntimeError: HIP error: invalid device ordinal\n" + HIP_TAIL,
        "torch/cuda/__init__.py set_device; the script's own prints of is_available()/device_count()"),
    "mask-set-then-ordinal": (
        "config_error", "invalid-device-ordinal",
        "HIP_VISIBLE_DEVICES=3\ntorch.cuda.device_count(): 0\n"
        + _tb((f"{SP}torch/cuda/__init__.py", 476, "set_device", "torch._C._cuda_setDevice(device)"))
        + "RuntimeError: HIP error: invalid device ordinal\n" + HIP_TAIL,
        "a visibility mask in the log: the index is the mask's"),
    # --- the pasted `ls -l` of the device nodes and `id`: a user outside the node's group (amended rule 2) -------
    "ls-id-user-outside-render": (
        "hf_cache_permission", "gpu-device-permission",
        "$ ls -l /dev/kfd /dev/dri/renderD128\n"
        "crw-rw---- 1 root render 235,   0 Nov 28 10:00 /dev/kfd\n"
        "crw-rw----+ 1 root render 226, 128 Nov 28 10:00 /dev/dri/renderD128\n"
        "$ id\nuid=1000(alice) gid=1000(alice) groups=1000(alice),27(sudo),44(video)\n$ python train.py\n"
        + _tb((f"{SP}torch/cuda/__init__.py", 314, "_lazy_init", "torch._C._cuda_init()"))
        + "RuntimeError: No HIP GPUs are available\n",
        "coreutils ls -l / id formats; torch/cuda/__init__.py _lazy_init"),
    "ls-id-container-numeric-gid": (
        "hf_cache_permission", "gpu-device-permission",
        "root@host:~# docker run -it --device=/dev/kfd --device=/dev/dri -u 1000 rocm/pytorch bash\n"
        "$ ls -l /dev/kfd\ncrw-rw---- 1 nobody 992 235, 0 Nov 28 10:00 /dev/kfd\n"
        "$ id\nuid=1000(user) gid=1000(user) groups=1000(user),44(video),109(render)\n"
        "$ rocminfo\nROCk module is loaded\nhsa api call failure at: /src/rocminfo/rocminfo.cc:1306\n"
        "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources.\n",
        "the host's render GID (992) unnamed in the container: the user's render group is another GID"),
    "ls-id-user-in-group-stays-runtime": (
        "hip_error", "no-gpu-visible",
        "$ ls -l /dev/kfd\ncrw-rw---- 1 root render 235, 0 Nov 28 10:00 /dev/kfd\n"
        "$ id\nuid=1000(alice) gid=1000(alice) groups=1000(alice),44(video),109(render)\n"
        + _tb((f"{SP}torch/cuda/__init__.py", 314, "_lazy_init", "torch._C._cuda_init()"))
        + "RuntimeError: No HIP GPUs are available\n",
        "the user is in render: access is fine, the runtime's failure"),
    # --- bitsandbytes' int8 matmul and AMD SMI's optional probe ----------------------------------------------
    "bnb-int8-on-rocm": (
        "hip_error", "hip-runtime-error",
        NOISE + _tb((f"{SP}bitsandbytes/functional.py", 2341, "igemmlt",
                     'raise Exception("cublasLt ran into an error!")'))
        + "Exception: cublasLt ran into an error!\n",
        "bitsandbytes/functional.py igemmlt on a ROCm torch"),
    "bnb-int8-on-cuda": (
        "cuda_error", "cuda-error",
        "torch 2.1.0+cu121 | NVIDIA GeForce RTX 3090 | CUDA Version: 12.2\n"
        + _tb((f"{SP}bitsandbytes/functional.py", 2341, "igemmlt",
               'raise Exception("cublasLt ran into an error!")'))
        + "Exception: cublasLt ran into an error!\n",
        "bitsandbytes/functional.py igemmlt on an NVIDIA box"),
    "amdsmi-libdrm-probe-then-oom": (
        "gpu_oom", "oom",
        "Fail to open libdrm_amdgpu.so: libdrm_amdgpu.so: cannot open shared object file: No such file or directory\n"
        "Using device: cuda:0 (AMD Radeon 8060S Graphics, gfx1151)\n" + STEPS
        + _tb(MODULE) + "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 3.99 GiB. GPU 0 has a total "
        "capacity of 62.54 GiB of which 668.07 MiB is free. Of the allocated memory 59.55 GiB is allocated by "
        "PyTorch, and 2.08 GiB is reserved by PyTorch but unallocated.\n",
        "amdsmi's library loader (`Fail to open <lib>: <dlerror>`), torch's caching allocator OOM"),
}


def _explain(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp.diagnoses[exp.root] if exp.root is not None else None


@pytest.mark.parametrize("name", sorted(CASES))
def test_family_follows_the_frames_and_lines(tmp_path, name):
    family, code, text, _source = CASES[name]
    r = _explain(tmp_path, text)
    assert r is not None, name
    assert (r.family, r.code) == (family, code), (name, r.family, r.code, r.title)


def test_attention_owner_is_named_with_a_fix_that_switches_attention(tmp_path):
    r = _explain(tmp_path, CASES["fa-ck-invalid-device-function"][2])
    assert r.numbers["raised_in"] == "flash-attn"
    assert "flash-attn" in r.title and "sdpa" in r.fix
    r = _explain(tmp_path, CASES["xformers-ck-op"][2])
    assert r.numbers["raised_in"] == "xformers" and "xformers" in r.fix


def test_clr_listing_names_card_and_build(tmp_path):
    r = _explain(tmp_path, CASES["clr-nobinary-listing-card-missing"][2])
    assert r.numbers["arch"] == "gfx1031"
    assert r.numbers["build_archs"] == ["gfx1030", "gfx1100"]


def test_clr_listing_with_the_card_bundled_stays_the_runtime(tmp_path):
    text = CASES["clr-nobinary-listing-card-missing"][2].replace("--gfx1100 - [code", "--gfx1031 - [code")
    r = _explain(tmp_path, text)
    assert r.family == "hip_error"


def test_a_traceback_far_before_the_error_does_not_own_it():
    # flash-attn frames printed earlier (a handled traceback, the run went on), then a runtime error with no
    # traceback of its own: the frames must end right before the error line to name its owner
    err = "  what():  HIP error: the launch timed out and was terminated"
    earlier = NOISE + _tb(MODEL, FA_IFACE) + "UserWarning: flash-attn failed, falling back to sdpa\n" + STEPS * 30
    assert attention_owner.owner(err, earlier) is None
    assert attention_owner.owner(err, NOISE + _tb(MODEL, FA_IFACE)) == "flash-attn"
    # torch's and Triton's frames between the library and the error are passed over, another library's are not
    assert attention_owner.owner(err, _tb(MODEL, FA_TRITON, TRITON_JIT, TRITON_DRV)) == "flash-attn"
    assert attention_owner.owner(err, _tb(MODEL, FA_IFACE, AITER)) is None
