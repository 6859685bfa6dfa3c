"""e-new18 (issue 26): a patched forward and transformers of different releases; a shared library built for another
runtime release.

FAMILIES.md "Rule 1, refined": an argument the installed release does not know while the caller is another release
-> version_check. Liger-Kernel's lce_forwards (liger_kernel/transformers/model/*.py), Unsloth's *_fast_forward,
LLaMA-Factory's and axolotl's attention patches replace transformers' forwards; the frame that raised (a patch module)
or the refused function (a patched one) decides, and generate()'s unused-model_kwargs refusal counts when the patching
library is active in the run. A ROCm library's soname that cannot be opened is the versions when the log shows the
binary's ROCm build (xla_rocm60, +rocm6.2) and another ROCm installed, or another soname of the library; the loader's
versioned-symbol error (glibc dl-version.c) of any library is the versions. Every log is written from the tools' own
output (torchrun's rank prefixes, pytest's traceback, jaxlib's plugin loader, amd-smi, ldconfig); none is a corpus case.
"""
from __future__ import annotations

from rocm_tune.core.runs.diagnose.diagnose import explain_text
from rocm_tune.core.runs.diagnose.patched_forward import reading

SP = "/opt/conda/envs/ft/lib/python3.11/site-packages"


def _root(log: str):
    exp = explain_text(log)
    assert exp.root is not None, exp.answer
    return exp.diagnoses[exp.root]


def _ranks(body: str, ranks: tuple[int, ...] = (1, 0)) -> str:
    out = "W1129 08:01:02.000000 311 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable\n"
    for r in ranks:
        out += "".join(f"[rank{r}]: {line}\n" for line in body.splitlines())
    return out + ("E1129 08:03:44.000000 311 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
                  "local_rank: 0 (pid: 2211) of binary: /opt/conda/envs/ft/bin/python\n")


# transformers' Trainer.compute_loss passing num_items_in_batch (4.46) into a liger-kernel lce_forward of a release
# that does not declare it: Python names the patched function, the frame above torch's wrapper is transformers'
LIGER_KWARG = (
    "Traceback (most recent call last):\n  File \"/work/sft.py\", line 61, in <module>\n    trainer.train()\n"
    f'  File "{SP}/transformers/trainer.py", line 3633, in compute_loss\n    outputs = model(**inputs, **loss_kwargs)\n'
    f'  File "{SP}/torch/nn/modules/module.py", line 1747, in _call_impl\n    return forward_call(*args, **kwargs)\n'
    "TypeError: lce_forward() got an unexpected keyword argument 'num_items_in_batch'\n")


def test_liger_lce_forward_refusing_a_trainer_argument_on_every_rank() -> None:
    d = _root("Applied Liger kernels to Qwen2\n  0%|          | 0/500 [00:00<?, ?it/s]\n" + _ranks(LIGER_KWARG))
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert "liger-kernel" in d.title and "num_items_in_batch" in d.title
    assert "liger-kernel" in d.fix and "use_liger_kernel=False" in d.fix


def test_liger_frame_calling_transformers_with_another_release_arguments() -> None:
    # the patch (raising frame, above torch's wrapper) passes cache_position to a transformers module without it
    log = ("Traceback (most recent call last):\n"
           f'  File "{SP}/liger_kernel/transformers/model/qwen2_vl.py", line 81, in lce_forward\n'
           "    outputs = self.model(\n"
           f'  File "{SP}/torch/nn/modules/module.py", line 1747, in _call_impl\n    return forward_call(*args, **kwargs)\n'
           "TypeError: Qwen2VLModel.forward() got an unexpected keyword argument 'cache_position'\n")
    d = _root(log)
    assert d.family == "version_check", (d.family, d.title)
    assert "liger-kernel" in d.title


def test_liger_unpack_in_pytest_traceback() -> None:
    log = ("    def test_liger_loss(self):\n>       trainer.train()\n\ntests/test_sft_trainer.py:901: \n"
           f"{SP}/transformers/trainer.py:2245: in train\n    return inner_training_loop(\n"
           f"{SP}/liger_kernel/transformers/model/llama.py:140: in lce_forward\n"
           "    logits, loss = unpack_cross_entropy_result(result)\n"
           "E   ValueError: not enough values to unpack (expected 2, got 1)\n")
    d = _root(log)
    assert d.family == "version_check", (d.family, d.title)
    assert "liger-kernel" in d.title and "unpack" in d.title


# transformers' generate() (_validate_model_kwargs) refusing an input the processor of a newer release returns
def _generate_refusal(config_line: str) -> str:
    return (config_line + "Traceback (most recent call last):\n  File \"/work/grpo.py\", line 70, in <module>\n"
            "    trainer.train()\n"
            f'  File "{SP}/trl/trainer/grpo_trainer.py", line 1402, in _generate\n'
            "    prompt_completion_ids = unwrapped_model.generate(\n"
            f'  File "{SP}/transformers/generation/utils.py", line 1567, in _validate_model_kwargs\n'
            "    raise ValueError(\n"
            "ValueError: The following `model_kwargs` are not used by the model: ['mm_token_type_ids'] (note: typos in "
            "the generate arguments will also show up in this list)\n")


def test_generate_refusal_with_liger_active_is_the_versions() -> None:
    d = _root(_generate_refusal("GRPOConfig(..., use_liger_kernel=True, use_vllm=False, ...)\n"))
    assert d.family == "version_check", (d.family, d.title)
    assert "mm_token_type_ids" in d.title and "liger-kernel" in d.title


def test_generate_refusal_without_a_patch_keeps_its_family() -> None:
    d = _root(_generate_refusal("GRPOConfig(..., use_vllm=False, ...)\n"))
    assert d.family != "version_check" and "patch" not in d.title, (d.family, d.title)


def test_unsloth_patched_decoder_layer_missing_a_new_argument() -> None:
    # transformers 4.48 made position_embeddings a required argument; an older unsloth's patched model calls without
    log = ("==((====))==  Unsloth 2024.12.4: Fast Llama patching. Transformers: 4.48.0.\n" +
           "Traceback (most recent call last):\n"
           f'  File "{SP}/unsloth/models/llama.py", line 1010, in LlamaModel_fast_forward\n'
           "    layer_outputs = decoder_layer(\n"
           f'  File "{SP}/torch/nn/modules/module.py", line 1747, in _call_impl\n    return forward_call(*args, **kwargs)\n'
           "TypeError: LlamaDecoderLayer.forward() missing 1 required positional argument: 'position_embeddings'\n")
    d = _root(log)
    assert d.family == "version_check", (d.family, d.title)
    assert "unsloth" in d.title and "unsloth_zoo" in d.fix


def test_unsloth_reading_an_attribute_transformers_moved() -> None:
    pre = ("Traceback (most recent call last):\n"
           f'  File "{SP}/unsloth/models/llama.py", line 430, in LlamaAttention_fast_forward\n'
           "    cos, sin = self.rotary_emb(V, seq_len=kv_seq_len)\n")
    said = reading("AttributeError: 'LlamaAttention' object has no attribute 'rotary_emb'", pre, "")
    assert said is not None and "unsloth" in said[0] and "rotary_emb" in said[0]


def test_a_none_value_in_a_patch_frame_is_not_the_versions() -> None:
    pre = ("Traceback (most recent call last):\n"
           f'  File "{SP}/liger_kernel/transformers/model/llama.py", line 120, in lce_forward\n'
           "    logits = self.lm_head(hidden_states).float()\n")
    assert reading("AttributeError: 'NoneType' object has no attribute 'float'", pre, "") is None


def test_axolotl_monkeypatch_named_by_the_refused_function() -> None:
    said = reading("TypeError: flashattn_forward() got an unexpected keyword argument 'cache_position'", "", "")
    assert said is not None and "axolotl" in said[0]


def test_the_same_errors_in_user_code_name_no_patch() -> None:
    pre = ("Traceback (most recent call last):\n  File \"/work/model.py\", line 12, in forward\n"
           "    a, b = self.head(x)\n")
    assert reading("ValueError: too many values to unpack (expected 2)", pre, "use_liger_kernel: true") is None
    user_call = ("Traceback (most recent call last):\n  File \"/work/train.py\", line 30, in step\n"
                 "    out = model(x, labels=y)\n"
                 f'  File "{SP}/torch/nn/modules/module.py", line 1747, in _call_impl\n')
    assert reading("TypeError: MyNet.forward() got an unexpected keyword argument 'labels'", user_call,
                   "Applied Liger kernels") is None


# jaxlib's plugin loader (xla_bridge.discover_pjrt_plugins -> load_pjrt_plugin_dynamically: `Failed to open <path>:
# <dlerror>`), a plugin built for ROCm 6.0, and amd-smi's version line of the ROCm installed
def _jax(amd_smi: str, plugin: str = "xla_rocm60") -> str:
    return (amd_smi + "$ python -c 'import jax; print(jax.devices())'\n"
            "ERROR:2025-03-01 10:00:00,001:jax._src.xla_bridge:969: Jax plugin configuration error: Exception when "
            f"calling jax_plugins.{plugin}.initialize()\nTraceback (most recent call last):\n"
            f'  File "{SP}/jax/_src/xla_bridge.py", line 967, in discover_pjrt_plugins\n    plugin_module.initialize()\n'
            f'  File "{SP}/jax_plugins/{plugin}/__init__.py", line 85, in initialize\n    c_api = xb.register_plugin(\n'
            f"jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to open {SP}/jax_plugins/{plugin}/"
            "xla_rocm_plugin.so: libhipblaslt.so.0: cannot open shared object file: No such file or directory\n"
            "[CpuDevice(id=0)]\n")


def test_plugin_for_rocm60_on_another_rocm_is_the_versions() -> None:
    d = _root(_jax("$ amd-smi version\nAMDSMI Tool: 24.7.1+0012a68 | AMDSMI Library version: 24.7.1.0 | "
                   "ROCm version: 6.3.1\n"))
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert "rocm60" in d.title and "6.3" in d.title


def test_plugin_on_its_own_rocm_or_no_rocm_shown_stays_missing() -> None:
    assert _root(_jax("$ amd-smi version\nROCm version: 6.0.2\n")).family == "hip_error"
    assert _root(_jax("")).family == "hip_error"


def test_other_soname_in_ldconfig_listing() -> None:
    log = ("ImportError: librocm_smi64.so.5: cannot open shared object file: No such file or directory\n"
           "$ ldconfig -p | grep rocm_smi\n"
           "\tlibrocm_smi64.so.7 (libc6,x86-64) => /opt/rocm/lib/librocm_smi64.so.7\n")
    d = _root(log)
    assert d.family == "version_check" and "librocm_smi64.so.7" in d.title, (d.family, d.title)


def test_loader_version_node_of_any_library() -> None:
    for line, lib in (
            (f"ImportError: /lib/x86_64-linux-gnu/libcrypto.so.3: version `OPENSSL_3.0.0' not found (required by "
             f"{SP}/cryptography/hazmat/bindings/_rust.abi3.so)", "OPENSSL"),
            (f"OSError: /usr/local/cuda/lib64/libcublasLt.so.11: version `libcublasLt.so.11' not found (required by "
             f"{SP}/torch/lib/libtorch_cuda.so)", "cublasLt"),
            ("./llama-cli: /opt/conda/lib/libgomp.so.1: version \u2018GOMP_5.0\u2019 not found (required by "
             "./libggml.so)", "GOMP")):
        d = _root(line + "\n")
        assert d.family == "version_check" and d.code == "library-version-node-missing", (lib, d.family, d.code)
    d = _root(f"python: /opt/rocm/lib/libamdhip64.so.6: version 'hip_6.2' not found (required by "
              f"{SP}/torch/lib/libtorch_hip.so)\n")
    assert d.code == "rocm-library-symbol-mismatch", d.code


def test_no_version_information_is_a_note_not_the_cause() -> None:
    log = ("/bin/bash: /opt/conda/lib/libtinfo.so.6: no version information available (required by /bin/bash)\n"
           "Traceback (most recent call last):\n  File \"/work/x.py\", line 3, in <module>\n"
           "RuntimeError: HIP error: invalid device function\n")
    assert _root(log).code != "library-version-node-missing"
