"""e-new16 (issue 26): a bf16 kernel compiled for a card whose ISA lacks bf16 is bf16_unsupported, not the compiler.

Sources:
- ptxas' diagnostic for an instruction above the target: `ptxas <file>, line N; error   : Feature '<feature>' requires
  .target sm_80 or higher` (features `.bf16`, `cvt.bf16.f32`, `cvt with .f32.bf16`, `mma with .bf16`, ...).
- Triton's make_cubin re-raises ptxas' log, per release: 2.x (python/triton/compiler/backends/cuda.py) `RuntimeError:
  Internal Triton PTX codegen error: \\n{log}` or ``RuntimeError: `ptxas` failed with error code {rc}: \\n{log}``; 3.x
  (third_party/nvidia/backend/compiler.py) `triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen
  error` + "`ptxas` stderr:" + log + `Repro command: ...`; inductor wraps either in BackendCompilerFailed.
- torch 2.3's `torch.cuda.is_bf16_supported()` answers True on a T4 (bf16 emulation counts), so a run that trusts it
  asks Triton for bf16 kernels the card cannot run: the card lacks bf16, the step is fp16 there (FAMILIES.md).
Triton compiles for the device's own capability, so its PTX files (2.x `compile-ptx-src-XXXXXX`, 3.x tempfile
`tmpXXXXXXXX.ptx`) refused for bf16 name the card. nvcc's (`tmpxft_...ptx`) and clang's err_builtin_needs_feature
(`'__builtin_amdgcn_..bf16..' needs target feature <f>`) name the build's arch list (-gencode / --offload-arch), not
the card: not bf16_unsupported. A bf16 feature that needs sm_90 (an sm_8x card has bf16) and a non-bf16 feature stay
the compiler's (config_error).
The logs are written as the tools print them (other ranks, noise); none is a corpus case.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose


def _root(tmp_path, text, name="run.log"):
    log = tmp_path / name
    log.write_text(text)
    exp = diagnose([str(log)])
    r = exp.diagnoses[exp.root] if exp.root is not None else None
    return exp, r


NOISE = ("torch 2.3.0+cu121, torch.cuda.is_bf16_supported() = True, device Tesla T4 (7, 5)\n"
         "{'loss': 1.9123, 'grad_norm': 0.81, 'learning_rate': 0.0002, 'epoch': 0.0}\n")


def _ptxas(src: str, feats: list[str], lines=(211, 213, 590), target="sm_80") -> str:
    return "".join(f"ptxas {src}, line {n}; error   : Feature '{f}' requires .target {target} or higher\n"
                   for n in lines for f in feats) + "ptxas fatal   : Ptx assembly aborted due to errors\n"


TRITON2_FRAMES = ("Traceback (most recent call last):\n"
                  "  File \"/content/train.py\", line 88, in <module>\n    trainer.train()\n"
                  "  File \"/usr/local/lib/python3.10/dist-packages/triton/compiler/compiler.py\", line 546, in "
                  "compile\n    next_module = compile_kernel(module)\n"
                  "  File \"/usr/local/lib/python3.10/dist-packages/triton/compiler/backends/cuda.py\", line 226, in "
                  "make_cubin\n    raise RuntimeError(f'Internal Triton PTX codegen error: \\n{log}')\n")

BF16_CASES = {
    # triton 2.x, exit 255: the RuntimeError's text then ptxas' log (.bf16 and its conversion on one line each)
    "triton2-codegen": NOISE + TRITON2_FRAMES + "RuntimeError: Internal Triton PTX codegen error: \n" +
    _ptxas("/tmp/compile-ptx-src-9f1e0a", [".bf16", "cvt.rn.bf16.f32"]),
    # triton 2.x, another exit code
    "triton2-failed-code": NOISE + TRITON2_FRAMES + "RuntimeError: `ptxas` failed with error code 4294967295: \n" +
    _ptxas("/tmp/compile-ptx-src-77ab01", ["mma with .bf16"], lines=(1402,)),
    # triton 3.x PTXASError, inductor's wrapper around it, on two ranks of a torchrun job (V100: sm_70)
    "triton3-inductor-ranks": NOISE +
    "[rank1]: torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
    "[rank1]: PTXASError: PTXAS error: Internal Triton PTX codegen error\n[rank1]: `ptxas` stderr:\n" +
    "".join("[rank1]: " + ln + "\n" for ln in _ptxas("/tmp/tmpq_mc2q9k.ptx", ["cvt with .f32.bf16"]).splitlines()) +
    "[rank1]: Repro command: /usr/local/lib/python3.11/site-packages/triton/backends/nvidia/bin/ptxas -lineinfo -v "
    "--gpu-name=sm_70 /tmp/tmpq_mc2q9k.ptx -o /tmp/tmpq_mc2q9k.ptx.o\n"
    "[rank0]: triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n"
    "[rank0]: `ptxas` stderr:\n" +
    "".join("[rank0]: " + ln + "\n" for ln in _ptxas("/tmp/tmpz81kq0.ptx", [".bf16x2", "cvt.bf16.f32"]).splitlines())
    + "E1102 10:11:12.345000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 0 (pid: 4011) of binary: /usr/bin/python3\n",
    # a server's logger prefix on every line, TMPDIR=/var/tmp, ptxas' line wrapped by the terminal
    "logger-prefix-var-tmp": "".join(
        f"ERROR 08-30 07:32:02 [model_rpc.py:95] ptxas /var/tmp/compile-ptx-src-ce8fce, line {n}; error   : "
        f"Feature 'cvt with .f32.bf16' requires .target sm_80 or \nhigher\n" for n in (468, 472, 476)),
    # a paste that kept ptxas' text without the file
    "no-file": NOISE + "RuntimeError: Internal Triton PTX codegen error: \n"
    "ptxas error   : Feature '.bf16' requires .target sm_80 or higher\n",
    # triton-windows: the tempfile under the user's Temp folder (backslashes), a T4's sm_75
    "triton3-windows": NOISE + "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n"
    "`ptxas` stderr:\n" + _ptxas("C:\\Users\\me\\AppData\\Local\\Temp\\tmpk2v9x1ab.ptx", [".bf16"]),
}


@pytest.mark.parametrize("name", sorted(BF16_CASES))
def test_ptxas_refusing_bf16_below_ampere_is_the_card(tmp_path, name):
    exp, r = _root(tmp_path, BF16_CASES[name])
    assert exp.answer == "bf16_unsupported", (name, [(d.code, d.family) for d in exp.diagnoses])
    assert r is not None and r.code == "bf16-unsupported"
    assert "fp16" in r.fix


NOT_BF16 = {
    # an fp8 conversion on an sm_80 card: the compiler's output, not bf16
    "fp8-feature": TRITON2_FRAMES + "RuntimeError: Internal Triton PTX codegen error: \n" +
    _ptxas("/tmp/compile-ptx-src-1a2b3c", ["cvt with .e4m3x2.f32"], target="sm_89"),
    # a bf16 instruction that needs Hopper on an A100 (which has bf16): the Triton/PTX version, not the card
    "bf16-needs-sm90": "[rank0]: triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error\n"
    "[rank0]: `ptxas` stderr:\n" +
    "".join("[rank0]: " + ln + "\n" for ln in _ptxas("/tmp/tmpa.ptx", ["add.rn.bf16x2"], target="sm_90").splitlines()),
}


@pytest.mark.parametrize("name", sorted(NOT_BF16))
def test_ptxas_other_features_stay_the_compiler(tmp_path, name):
    exp, r = _root(tmp_path, NOT_BF16[name])
    assert exp.answer == "config_error", (name, [(d.code, d.family) for d in exp.diagnoses])
    assert r is not None and r.code == "torch-compile-error"


BUILD_ARCH_LIST = {
    # an extension built by nvcc for an arch list with sm_75 in it: the build's arch list, not the card
    "nvcc-arch-list": "[1/3] /usr/local/cuda/bin/nvcc -c /src/csrc/rope.cu -o rope.cuda.o "
    "-gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -O3\nFAILED: rope.cuda.o\n" +
    _ptxas("/tmp/tmpxft_0001a2b3_00000000-6_rope.ptx", [".bf16", "cvt.rn.bf16.f32"]) +
    "ninja: build stopped: subcommand failed.\nRuntimeError: Error compiling objects for extension\n",
    # a bf16 builtin built for a gfx906 in the build's --offload-arch list (hipcc / clang): the arch list again
    "clang-amdgcn-builtin": "Building extension module fused_kernels...\n[1/2] /opt/rocm/bin/hipcc  -c "
    "/src/csrc/bf16_dot.hip -o bf16_dot.o --offload-arch=gfx906 -O3\nFAILED: bf16_dot.o\n"
    "/src/csrc/bf16_dot.hip:41:12: error: '__builtin_amdgcn_fdot2_f32_bf16' needs target feature dot12-insts\n"
    "   41 |     acc = __builtin_amdgcn_fdot2_f32_bf16(a, b, acc, false);\n      |           ^\n"
    "1 error generated when compiling for gfx906.\nninja: build stopped: subcommand failed.\n"
    "RuntimeError: Error building extension 'fused_kernels'\n",
}


@pytest.mark.parametrize("name", sorted(BUILD_ARCH_LIST))
def test_a_build_for_an_arch_list_is_not_the_card(tmp_path, name):
    exp, r = _root(tmp_path, BUILD_ARCH_LIST[name])
    assert exp.answer != "bf16_unsupported", (name, [(d.code, d.family) for d in exp.diagnoses])
    assert r is not None and r.code != "bf16-unsupported"


AMD_LLVM = {
    # RDNA2 (gfx1032): torch.cuda.is_bf16_supported() True, Triton picks a bf16 dot intrinsic the ISA lacks
    "rdna2-fdot2-bf16": ("bf16_unsupported",
                         "torch 2.5.1+rocm6.2 gfx1032 is_bf16_supported=True\n"
                         "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.fdot2.bf16.bf16\n"
                         "Fatal Python error: Aborted\n\nThread 0x00007f3b (most recent call first):\n"
                         "  File \"/opt/venv/lib/python3.12/site-packages/triton/backends/amd/compiler.py\", line 388 "
                         "in make_amdgcn\n"),
}


@pytest.mark.parametrize("name", sorted(AMD_LLVM))
def test_amd_llvm_bf16_intrinsic_is_the_card(tmp_path, name):
    family, text = AMD_LLVM[name]
    exp, r = _root(tmp_path, text)
    assert exp.answer == family, (name, [(d.code, d.family) for d in exp.diagnoses])


def test_a_bf16_node_llvm_cannot_select_on_mi300_is_not_the_card(tmp_path):
    # triton#7011: a bf16 buffer atomic on gfx942 (which has bf16) failed instruction selection: Triton's lowering
    text = ("LLVM ERROR: Cannot select: t56: v2bf16,ch = BUFFER_ATOMIC_FADD<(volatile dereferenceable load store "
            "(s32) on %ir.10, align 1, addrspace 8)> # D:1 t34, t37, t49, Constant:i32<0>, t20, Constant:i32<0>, "
            "TargetConstant:i32<0>, TargetConstant:i32<0>, TargetConstant:i1<0>, atomic_add_bf16.py:11:31\n"
            "In function: atomic_add_bf16\nAborted (core dumped)\n")
    exp, r = _root(tmp_path, text)
    assert exp.answer != "bf16_unsupported", [(d.code, d.family) for d in exp.diagnoses]


# ---------------------------------------------------------------- the embedding lookup's own kernel assert
# aten/src/ATen/native/cuda/Indexing.cu's index_select kernels (indexSelectLargeIndex / indexSelectSmallIndex) assert
# `srcIndex < srcSelectDimSize` per thread; torch prints `<file>:<line>: <kernel>: block: [..], thread: [..] Assertion
# `...` failed.` then the device-side assert. A token id past the embedding's rows (FAMILIES.md rule 5): the tokenizer's.
def _assert_lines(kernel: str, cond: str, prefix: str = "", n: int = 3) -> str:
    return "".join(f"{prefix}/opt/conda/conda-bld/pytorch_1711403380909/work/aten/src/ATen/native/cuda/Indexing.cu:1289: "
                   f"{kernel}: block: [{b},0,0], thread: [{t},0,0] Assertion `{cond}` failed.\n"
                   for b, t in zip(range(40, 40 + n), range(96, 96 + n)))


EMBED_CASES = {
    "large-index-abort": _assert_lines("indexSelectLargeIndex", "srcIndex < srcSelectDimSize") +
    "Fatal Python error: Aborted\n\nCurrent thread 0x00007efe708b0740 (most recent call first):\n"
    "  File \"/work/pretrain.py\", line 166 in train\nAborted (core dumped)\n",
    "small-index-ranks": _assert_lines("indexSelectSmallIndex", "srcIndex < srcSelectDimSize", "[rank1]: ") +
    _assert_lines("indexSelectSmallIndex", "srcIndex < srcSelectDimSize", "[rank0]: ", 2) +
    "[rank0]: RuntimeError: CUDA error: device-side assert triggered\n"
    "[rank0]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
    "might be incorrect.\n[rank0]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n",
}


@pytest.mark.parametrize("name", sorted(EMBED_CASES))
def test_the_embedding_lookups_assert_is_the_tokenizer(tmp_path, name):
    exp, r = _root(tmp_path, EMBED_CASES[name])
    assert exp.answer == "tokenizer_template", (name, [(d.code, d.family) for d in exp.diagnoses])
    assert r is not None and r.code == "token-id-past-embedding"


def test_another_kernels_assert_stays_cuda(tmp_path):
    # the loss kernel's own assert on a label past the classes: the runtime's reading, not the embedding's
    text = ("/work/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
            "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
            "RuntimeError: CUDA error: device-side assert triggered\n")
    exp, r = _root(tmp_path, text)
    assert r is not None and r.code == "cuda-error", [(d.code, d.family) for d in exp.diagnoses]
