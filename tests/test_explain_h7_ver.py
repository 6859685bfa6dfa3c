"""explain (issue 26 item 5, h7-ver): version skew read from what the log itself says about the versions, whichever
library prints it: the dynamic loader's words, the ROCm runtime's own kernel/user-space check, a soname or runtime
major other than the one installed, another library's import of a part the torch build lacks, a device plugin's torch
falling back to CUDA, a NotImplementedError naming its replacement API, a KeyError of a model config field. Each log
is the shape its producer prints (named next to it); each rule is also shown not to fire where the versions agree.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose.diagnose import diagnose

SP = "/opt/conda/envs/ft/lib/python3.10/site-packages"


def _root(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is not None, [d.code for d in exp.diagnoses]
    return exp.diagnoses[exp.root]


# (expected code, the line, who prints it)
LOADER_AND_RUNTIME_LINES = [
    ("extension-abi-mismatch", "/home/u/build/app/Test: symbol lookup error: undefined symbol: "
     "_ZN8hip_impl14function_namesB5cxx11Eb", "glibc ld.so (a program built on ROCm 2.2 run on 2.3, ROCm/hip#1026)"),
    ("extension-abi-mismatch", "OSError: /home/u/src/bitsandbytes/bitsandbytes/libbitsandbytes_rocm72.so: undefined "
     "symbol: hsa_amd_memory_get_preferred_copy_engine", "ld.so via ctypes (a C symbol, not a mangled C++ one)"),
    ("extension-abi-mismatch", 'OSError: [WinError 127] The specified procedure could not be found. Error loading '
     '"C:\\venv\\Lib\\site-packages\\torch\\lib\\c10_hip.dll" or one of its dependencies.',
     "Windows' loader (ERROR_PROC_NOT_FOUND: the DLL lacks a symbol its importer was built against)"),
    ("extension-abi-mismatch", "ImportError: dlopen(/u/venv/lib/python3.11/site-packages/xformers/_C.so, 0x0002): "
     "Symbol not found: __ZN3c106detail14torchCheckFailEPKcS2_j", "macOS dyld"),
    ("extension-abi-mismatch", "RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and "
     "torchvision versions are incompatible, or if you had errors while compiling torchvision from source.",
     "torchvision/extension.py _assert_has_ops"),
    ("extension-abi-mismatch", "NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' "
     "backend. This could be because the operator doesn't exist for this backend", "torch's dispatcher (a CPU "
     "torchvision under a GPU torch)"),
    ("version-required", "LibMambaUnsatisfiableError: Encountered problems while solving:", "conda/mamba resolver"),
    ("kernel-userspace-mismatch", "HSA Error:  Incompatible kernel and userspace, Vega 20 [Radeon VII] disabled. "
     "Upgrade amdgpu.", "ROCr/ROCt runtime init (ROCm/legacy-rocm-build#1423)"),
    ("kernel-userspace-mismatch", "HSA Error: Incompatible kernel and userspace, Vega 20 WKS GL-XE [Radeon Pro VII] "
     "disabled. Upgrade amdgpu.", "the same with one space (ROCm/legacy-rocm-build#1583), over no-gpu-visible"),
]


@pytest.mark.parametrize("code,line,who", LOADER_AND_RUNTIME_LINES,
                         ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(LOADER_AND_RUNTIME_LINES)])
def test_loader_and_runtime_words_are_version_skew(code, line, who):
    """Each producer's words for two builds that do not fit name a version_check signature."""
    hit = cat.best_match(line)
    assert hit is not None, who
    assert hit[0].code == code and hit[0].family == "version_check", (who, [s.code for s, _ in cat.match_line(line)])


def test_an_aten_op_missing_on_the_gpu_backend_is_not_read_as_an_extension(tmp_path):
    line = "NotImplementedError: Could not run 'aten::_sparse_coo_tensor_with_dims' with arguments from the 'CUDA' backend."
    assert all(s.code != "extension-abi-mismatch" for s, _ in cat.match_line(line))


def test_incompatible_kernel_is_the_root_of_a_rocminfo_log(tmp_path):
    r = _root(tmp_path, "ROCk module is loaded\nHSA Error:  Incompatible kernel and userspace, AMD Instinct MI210 "
                        "disabled. Upgrade amdgpu.\n=====================\nHSA System Attributes\n")
    assert (r.code, r.family) == ("kernel-userspace-mismatch", "version_check")


_IMPORT_TORCH = ("Traceback (most recent call last):\n"
                 '  File "/usr/lib/python3.10/site-packages/torch/__init__.py", line 202, in <module>\n'
                 "    from torch._C import *  # noqa: F403\n")


def test_soname_of_another_major_installed_is_version_skew(tmp_path):
    log = (":: upgrading roctracer 5.3.0-1\n$ python -c 'import torch'\n" + _IMPORT_TORCH +
           "ImportError: libroctx64.so.1: cannot open shared object file: No such file or directory\n"
           "$ ls /opt/rocm/lib | grep roctx\nlibroctx64.so\nlibroctx64.so.4\nlibroctx64.so.4.1.50300\n")
    r = _root(tmp_path, log)
    assert r.code == "rocm-library-missing" and r.family == "version_check"
    assert "libroctx64.so.1" in r.title


def test_runtime_major_differing_from_the_wheel_is_version_skew(tmp_path):
    log = ("torch 2.4.1+rocm6.1 | HIP 6.1.40091\n$ python -c 'import flash_attn'\n" + _IMPORT_TORCH.replace(
        "torch/__init__.py", "flash_attn/__init__.py") +
           "ImportError: libamdhip64.so.5: cannot open shared object file: No such file or directory\n")
    r = _root(tmp_path, log)
    assert r.family == "version_check", (r.code, r.title)


def test_missing_runtime_of_the_same_major_stays_a_missing_library(tmp_path):
    log = ("torch 2.4.1+rocm6.1\n" + _IMPORT_TORCH +
           "ImportError: libamdhip64.so.6: cannot open shared object file: No such file or directory\n")
    r = _root(tmp_path, log)
    assert (r.code, r.family) == ("rocm-library-missing", "hip_error")


def test_cuda_soname_of_another_major_than_the_wheel(tmp_path):
    log = ("torch 2.3.1+cu121\n" + _IMPORT_TORCH.replace("torch/__init__.py", "vllm/_custom_ops.py") +
           "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n")
    r = _root(tmp_path, log)
    assert r.family == "version_check", (r.code, r.title)


def _lib_imports_distributed(first_frame):
    return ("pytorch version: 2.7.0a0+rocm7.0.0rc20250805\nTraceback (most recent call last):\n"
            '  File "D:\\projects\\app\\main.py", line 147, in <module>\n    import execution\n' + first_frame +
            '  File "D:\\venv\\Lib\\site-packages\\torch\\distributed\\distributed_c10d.py", line 23, in <module>\n'
            "    from torch._C._distributed_c10d import (\n"
            "ModuleNotFoundError: No module named 'torch._C._distributed_c10d'; 'torch._C' is not a package\n")


def test_a_library_importing_what_the_torch_build_lacks_is_version_skew(tmp_path):
    r = _root(tmp_path, _lib_imports_distributed(
        '  File "D:\\venv\\Lib\\site-packages\\transformers\\model_debugging_utils.py", line 29, in <module>\n'
        "    import torch.distributed.tensor\n"))
    assert (r.code, r.family) == ("torch-build-lacks-backend", "version_check")
    assert "transformers" in r.title


def test_the_users_own_distributed_import_stays_the_torch_build(tmp_path):
    r = _root(tmp_path, _lib_imports_distributed(
        '  File "D:\\projects\\app\\train.py", line 3, in <module>\n    import torch.distributed.tensor\n'))
    assert (r.code, r.family) == ("torch-build-lacks-backend", "missing_package")


_NO_CUDA = (f'  File "{SP}/torch/cuda/__init__.py", line 289, in _lazy_init\n'
            '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
            "AssertionError: Torch not compiled with CUDA enabled\n")


def test_device_plugin_torch_falling_back_to_cuda_is_version_skew(tmp_path):
    log = (f"{SP}/torch_npu/utils/path_manager.py:82: UserWarning: Warning: The /usr/local/Ascend owner does not "
           "match the current user.\nTraceback (most recent call last):\n" + _NO_CUDA)
    r = _root(tmp_path, log)
    assert r.family == "version_check" and "torch_npu" in r.title


def test_torch_without_cuda_and_no_plugin_stays_no_gpu(tmp_path):
    r = _root(tmp_path, "Traceback (most recent call last):\n" + _NO_CUDA)
    assert r.family != "version_check"


def test_not_implemented_naming_its_replacement_is_version_skew(tmp_path):
    r = _root(tmp_path, "NotImplementedError: TensorDict does not support membership checks with the `in` keyword. "
                        "If you want to check if a particular key is in your TensorDict, please use `key in "
                        "tensordict.keys()` instead.\n")
    assert r.family == "version_check"


@pytest.mark.parametrize("key,family", [("architectures", "version_check"), ("llm_config", "version_check"),
                                        ("learning_rate", "unknown")])
def test_keyerror_of_a_model_config_field(tmp_path, key, family):
    r = _root(tmp_path, f"if llm_config['{key}'][0] == 'LlamaForCausalLM':\nKeyError: '{key}'\n")
    assert r.family == family or (family == "unknown" and r.family != "version_check")


@pytest.mark.parametrize("where,family_is_version", [
    (f"{SP}/transformers/tokenization_utils_base.py", True),   # installed code: the releases, not the tokenizer
    ("/home/u/my_tokenization_batcher.py", False)])            # the user's own object in the user's code
def test_attribute_drift_is_read_before_the_frames_subject(tmp_path, where, family_is_version):
    log = ("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 9, in <module>\n    run()\n"
           f'  File "{where}", line 101, in __getattr__\n    raise AttributeError(key)\n'
           "AttributeError: 'TextBatcher' object has no attribute 'sp_tokenizer'\n")
    assert (_root(tmp_path, log).family == "version_check") == family_is_version


def test_a_none_value_in_installed_code_is_not_api_drift(tmp_path):
    log = ("Traceback (most recent call last):\n"
           f'  File "{SP}/transformers/tokenization_utils_base.py", line 101, in apply_chat_template\n    x.strip()\n'
           "AttributeError: 'NoneType' object has no attribute 'strip'\n")
    assert _root(tmp_path, log).family != "version_check"


def test_attribute_drift_inside_any_installed_library(tmp_path):
    log = ("Traceback (most recent call last):\n  File \"/home/u/train.py\", line 9, in <module>\n    run()\n"
           f'  File "{SP}/lm_eval/evaluator.py", line 101, in simple_evaluate\n    lm.set_cache(x)\n'
           "AttributeError: 'HFLM' object has no attribute 'set_cache'\n")
    assert _root(tmp_path, log).family == "version_check"


# (the exception line alone, with no frames to read, and the family its own words give; who raises it)
MESSAGE_ONLY = [
    ("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK expected, "
     "but not set", "config_error", "torch/distributed/rendezvous.py (a multi-GPU script started without torchrun)"),
    ("ValueError: At most one of fp16 and bf16 can be True, but not both", "config_error",
     "transformers training_args.py __post_init__"),
    ("ValueError: Cannot use device_map='auto' with DeepSpeed ZeRO-3", "config_error", "two settings excluding each other"),
    ("Exception: Could not find the transformer layer class to wrap in the model.", "config_error",
     "accelerate FullyShardedDataParallelPlugin.set_auto_wrap_policy"),
    ("AttributeError: 'LlamaForCausalLM' object has no attribute 'enable_input_require_grads'", "version_check",
     "a method of another transformers release"),
]


@pytest.mark.parametrize("line,family,who", MESSAGE_ONLY, ids=[f"{f}-{i}" for i, (_, f, _) in enumerate(MESSAGE_ONLY)])
def test_message_only_lines_read_by_their_own_words(tmp_path, line, family, who):
    assert _root(tmp_path, line + "\n").family == family, who


def test_an_attribute_missing_on_a_plain_value_is_not_read_as_versions(tmp_path):
    assert _root(tmp_path, "AttributeError: 'list' object has no attribute 'to'\n").family != "version_check"


@pytest.mark.parametrize("line,family", [
    ("KeyError: 'optimizer'", "checkpoint_resume_mismatch"),            # torch.load(ckpt)['optimizer'] on a weights-only save
    ("KeyError: 'model_state_dict'", "checkpoint_resume_mismatch"),
    ("torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([0, 1])",
     "checkpoint_resume_mismatch"),
    ("KeyError: 'lora_target'", "unknown")])                            # a key of nothing known stays open
def test_bare_checkpoint_keys_and_dcp_exception(tmp_path, line, family):
    r = _root(tmp_path, line + "\n")
    assert r.family == family or (family == "unknown" and r.family not in ("checkpoint_resume_mismatch",
                                                                           "version_check"))
