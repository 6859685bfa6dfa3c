"""explain at the version_check border (issue 26, helper e-ver2; FAMILIES.md "Rule 1, refined": version_check where
the log shows the skew). Each log is written as the tool prints it, from the source that raises the message (named
next to it): Python's own suggestion suffix, transformers' FA2 version check, the stack's minimum written after the
version, pydantic 2 refusing pydantic 1's API, installed code reaching for another package's module attribute, and the
ROCm releases a log shows in spellings the runtime-skew reading did not know (versioned sonames, ROCm base images,
AMD's repository and installer, `pip show`, the REPL, yum, tensorflow-rocm). Each comes with look-alikes that keep
their family: the same ROCm release everywhere stays hip_error, a user's typo or a file of the user's shadowing a
package is the configuration, a package not installed is missing_package.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.core.runs.diagnose.runtime_skew import read_rocm_versions

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "[INFO|trainer.py:2128] 2025-01-10 10:00:00,000 >> ***** Running training *****\n"
         "[rank1]:[W110 10:00:01.000000000 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been "
         "destroyed before we destruct ProcessGroupNCCL.\n")
TB = "Traceback (most recent call last):\n  File \"/work/train.py\", line 12, in <module>\n    main()\n"
SP = "/usr/local/lib/python3.10/dist-packages"
HIP_FAIL = ("RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported at "
            "some other API call, so the stacktrace below might be incorrect.\n")


def _frame(pkg: str, path: str, fn: str = "f", line: int = 10) -> str:
    return f'  File "{SP}/{pkg}/{path}", line {line}, in {fn}\n    out = call(*args, **kwargs)\n'


def _explain(tmp_path, text: str):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


# (expected family, expected root code or None, log, where the deciding line comes from)
SHAPES = {
    # Python 3.10+ appends a suggestion to AttributeError/NameError (Python/suggestions.c); the rules anchored at the
    # message's end read through it
    "attr-did-you-mean-in-library": (
        "version_check", "python-exception", NOISE + TB + _frame("peft", "tuners/lora/model.py", "_create_new_module")
        + "AttributeError: 'Qwen2ForCausalLM' object has no attribute 'get_input_embeddings_'. Did you mean: "
        "'get_input_embeddings'?\n", "CPython Objects/exceptions.c + Python/suggestions.c (3.10+)"),
    "module-attr-did-you-mean": (
        "version_check", "python-exception", NOISE + TB + _frame("pkg_resources", "__init__.py", "<module>") +
        "AttributeError: module 'pkgutil' has no attribute 'ImpImporter'. Did you mean: 'zipimporter'?\n",
        "setuptools' pkg_resources under Python 3.12 (pkgutil.ImpImporter removed)"),
    "nameerror-did-you-mean-remote-code": (
        "version_check", "python-exception", NOISE + TB +
        '  File "/root/.cache/huggingface/modules/transformers_modules/chatglm3-6b/modeling_chatglm.py", line 5, '
        "in <module>\n    from transformers.utils import is_torch_fx_proxy\n"
        "NameError: name 'is_torch_fx_proxy' is not defined. Did you mean: 'is_torch_fx_available'?\n",
        "remote modeling code written for another transformers release"),
    # transformers modeling_utils.py _check_and_enable_flash_attn_2: the installed flash-attn is older than it needs
    "fa2-version-cuda": (
        "version_check", "version-required", NOISE + TB +
        _frame("transformers", "modeling_utils.py", "_check_and_enable_flash_attn_2") +
        "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: you need "
        "flash_attn package version to be greater or equal than 2.1.0. Detected version 2.0.9. Please refer to the "
        "documentation of https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install "
        "Flash Attention 2.\n", "transformers modeling_utils.py (torch.version.cuda branch)"),
    "fa2-version-hip": (
        "version_check", "version-required", NOISE + TB +
        _frame("transformers", "modeling_utils.py", "_check_and_enable_flash_attn_2") +
        "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: you need "
        "flash_attn package version to be greater or equal than 2.0.4. Make sure to have that version installed - "
        "detected version 2.0.0. Please refer to the documentation of "
        "https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash Attention 2.\n",
        "transformers modeling_utils.py (torch.version.hip branch)"),
    # the minimum written after the version, raised inside a config's __post_init__ (accelerate) or the trainer
    "minimum-or-higher-in-config-class": (
        "version_check", "version-required", NOISE + TB +
        _frame("accelerate", "utils/dataclasses.py", "__post_init__") +
        "ValueError: FSDP2 requires PyTorch 2.6.0 or higher.\n", "accelerate utils/dataclasses.py FSDP plugin"),
    "minimum-or-higher-trainer": (
        "version_check", "version-required", NOISE + TB + _frame("transformers", "trainer.py", "__init__") +
        "RuntimeError: Using torch.compile requires PyTorch 2.0 or higher.\n", "transformers trainer.py"),
    "minimum-plus-diffusers": (
        "version_check", "version-required", NOISE + TB +
        _frame("diffusers", "models/attention_processor.py", "__init__") +
        "ImportError: AttnProcessor2_0 requires PyTorch 2.0, to use it, please upgrade PyTorch to 2.0.\n",
        "diffusers attention_processor.py"),
    # pydantic 2 refusing pydantic 1's API in code written for it (raised from DeepSpeed's config module: not the
    # user's DeepSpeed settings)
    "pydantic-root-validator": (
        "version_check", "import-name-mismatch", NOISE + TB +
        _frame("deepspeed", "runtime/config_utils.py", "<module>") +
        "pydantic.errors.PydanticUserError: If you use `@root_validator` with pre=False (the default) you MUST specify "
        "`skip_on_failure=True`. Note that `@root_validator` is deprecated and should be replaced with "
        "`@model_validator`.\n\nFor further information visit "
        "https://errors.pydantic.dev/2.5/u/root-validator-pre-skip\n", "pydantic deprecated/class_validators.py"),
    "pydantic-regex-removed": (
        "version_check", "import-name-mismatch", NOISE + TB + _frame("pydantic", "fields.py", "Field") +
        "pydantic.errors.PydanticUserError: `regex` is removed. use `pattern` instead\n",
        "pydantic fields.py (code removed-kwargs)"),
    # pip's check after an install, in the legacy resolver's words (pip 10 - 20.2), and two packages of one project
    # released together checking each other (jax/_src/lib/__init__.py check_jaxlib_version)
    "pip-legacy-has-requirement": (
        "version_check", "version-required", "$ pip install -r requirements.txt\nInstalling collected packages: torch\n"
        "ERROR: torchvision 0.16.0+rocm5.6 has requirement torch==2.1.0, but you'll have torch 2.2.0+rocm5.7 which is "
        "incompatible.\n", "pip's legacy resolver check"),
    "jaxlib-newer-than-jax": (
        "version_check", "version-required", NOISE + TB + _frame("jax", "_src/lib/__init__.py", "check_jaxlib_version")
        + "RuntimeError: jaxlib version 0.4.31 is newer than and incompatible with jax version 0.4.30. Please update "
        "your jax and/or jaxlib packages.\n", "jax/_src/lib/__init__.py"),
    "jaxlib-older-than-needed": (
        "version_check", "version-required", NOISE + TB + _frame("jax", "_src/lib/__init__.py", "check_jaxlib_version")
        + "RuntimeError: jaxlib is version 0.4.1, but this version of jax requires version >= 0.4.7.\n",
        "jax/_src/lib/__init__.py"),
    # installed code asking a module of another package for an attribute its installed release lacks, raised in
    # torch.compile's own frames (before the rule that reads those frames as the compile settings)
    "inductor-asks-triton": (
        "version_check", "python-exception", NOISE + TB +
        _frame("torch", "_inductor/runtime/triton_heuristics.py", "<module>") +
        "AttributeError: module 'triton.language' has no attribute 'constexpr_function'\n",
        "torch/_inductor with a triton of another release"),
    "deepspeed-asks-numpy": (
        "version_check", "python-exception", NOISE + TB + _frame("deepspeed", "runtime/utils.py", "<module>") +
        "AttributeError: module 'numpy' has no attribute 'float'.\n`np.float` was a deprecated alias for the builtin "
        "`float`.\n", "numpy 1.24 removed the aliases (numpy/__init__.py __getattr__)"),
    # two ROCm releases the log shows, in the spellings the tools print
    "soname-vs-wheel": (
        "version_check", "hip-invalid-device-function", NOISE + "$ pip list | grep torch\ntorch                    "
        "2.1.2+rocm5.6\n$ ls /opt/rocm/lib/libamdhip64.so.*\n/opt/rocm/lib/libamdhip64.so.6.0.60002\n" + TB + HIP_FAIL,
        "ROCm's CMake SOVERSION (libamdhip64.so.6.4.60400 in /opt/rocm-6.4.0/lib)"),
    "dev-image-vs-index": (
        "version_check", "hip-invalid-device-function", "$ docker run -it --device=/dev/kfd --device=/dev/dri "
        "rocm/dev-ubuntu-22.04:6.2\n$ pip install torch==2.1.2 --index-url https://download.pytorch.org/whl/rocm5.6\n"
        + NOISE + TB + "RuntimeError: HIP error: hipErrorNoBinaryForGpu\n", "AMD's ROCm base image tags"),
    "pip-show-vs-info-version": (
        "version_check", "hip-invalid-device-function", "$ pip show torch\nName: torch\nVersion: 2.3.0+rocm5.7\n"
        "Summary: Tensors and Dynamic neural networks in Python\n$ cat /opt/rocm/.info/version\n6.2.0-66\n" + NOISE + TB
        + HIP_FAIL, "pip show's fields"),
    "repl-vs-yum": (
        "version_check", "hip-invalid-device-function", ">>> import torch\n>>> torch.__version__\n'2.1.2+rocm5.6'\n"
        "$ yum list installed | grep rocm-core\nrocm-core.x86_64                6.1.2.60102-119.el8          @rocm\n"
        + NOISE + TB + HIP_FAIL, "the REPL's repr and yum's name.arch column"),
    "tensorflow-rocm-vs-apt": (
        "version_check", None, "$ pip install tensorflow-rocm==2.14.0.600\n$ grep rocm /etc/apt/sources.list.d/*\n"
        "deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.2 jammy main\n" +
        "2024-03-01 10:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0\n"
        '"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"\nAborted (core dumped)\n',
        "tensorflow-rocm's version suffix (it links the system ROCm), AMD's apt repository, HIP's own abort"),
    # look-alikes that keep their family
    "same-rocm-everywhere": (
        "hip_error", "hip-invalid-device-function", "torch 2.4.0+rocm6.1\nROCM_PATH=/opt/rocm-6.1.3\n"
        "/opt/rocm/lib/libamdhip64.so.6.1.60103\nFROM rocm/dev-ubuntu-22.04:6.1.3\n" + NOISE + TB + HIP_FAIL,
        "one ROCm release in every spelling"),
    "debian-hip-build-number": (
        "hip_error", "hip-invalid-device-function", "torch 2.4.0+rocm6.1\n"
        "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.7.31921\n" + NOISE + TB + HIP_FAIL,
        "Debian's HIP soname ends in HIP's build number, not a ROCm release"),
    "kwarg-typo-in-user-script": (
        "config_error", None, NOISE + TB +
        "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'per_device_train_bach_size'\n",
        "a name no transformers release declares"),
    "not-installed": (
        "missing_package", "missing-package", NOISE + TB + _frame("llamafactory", "model/loader.py", "<module>") +
        "ModuleNotFoundError: No module named 'peft'\n", "Python's import of an absent top-level package"),
    "shadowing-file": (
        "config_error", "python-exception", NOISE + TB + '  File "/work/datasets.py", line 1, in <module>\n'
        "    from datasets import load_dataset\n"
        "ImportError: cannot import name 'load_dataset' from partially initialized module 'datasets' (most likely due "
        "to a circular import) (/work/datasets.py)\n", "a user's datasets.py next to the script"),
    "circular-inside-installed": (
        "version_check", "python-exception", NOISE + TB + _frame("peft", "__init__.py", "<module>") +
        "ImportError: cannot import name 'PeftModel' from partially initialized module 'peft' (most likely due to a "
        f"circular import) ({SP}/peft/__init__.py)\n", "a circular import inside installed packages"),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_family_from_the_source_shape(tmp_path, name):
    family, code, text, _source = SHAPES[name]
    exp, r = _explain(tmp_path, text)
    assert exp.answer == family, (name, exp.answer, r and r.code, r and r.title)
    if code is not None:
        assert r is not None and r.code == code, (name, r and r.code)


def test_two_rocm_releases_name_both_in_the_answer(tmp_path):
    _, r = _explain(tmp_path, SHAPES["soname-vs-wheel"][2])
    assert r is not None and "ROCm 5.6" in r.title and "ROCm 6.0" in r.title, r.title
    assert "rocm6.0" in r.fix


def test_user_script_name_error_with_suggestion_is_not_the_versions(tmp_path):
    exp, _ = _explain(tmp_path, NOISE + TB + "NameError: name 'lerning_rate' is not defined. Did you mean: "
                                             "'learning_rate'?\n")
    assert exp.answer != "version_check"


def test_attribute_of_the_package_own_module_stays_the_versions(tmp_path):
    # a package's own lazy module refusing a name (the last frame is that package, so not the two-package rule) is
    # still a name another release has: the generic attribute rule's reading
    exp, _ = _explain(tmp_path, NOISE + TB + _frame("transformers", "utils/import_utils.py", "__getattr__") +
                      "AttributeError: module 'transformers' has no attribute 'Qwen3ForCausalLM'\n")
    assert exp.answer == "version_check"


@pytest.mark.parametrize("text, torch_rocm, system_rocm", [
    ("/opt/rocm-6.4.0/lib/libamdhip64.so.6.4.60400", None, "6.4"),
    ("-lpthread /opt/rocm-6.4.4/lib/librocblas.so.4.4.60404 /opt/rocm/lib/libhipblaslt.so.0.12.60404", None, "6.4"),
    ("segfault in libamdhip64.so.5.7.31921[3320e1,...]", None, None),          # Debian: HIP's build number
    (f"{SP}/torch/lib/libamdhip64.so.6.0.60002", None, None),                   # the wheel's bundled copy
    ("/usr/local/lib/ollama/rocm/libamdhip64.so.6.3.60303", None, None),        # an app's bundled copy
    ("FROM rocm/dev-ubuntu-22.04:6.1.2 AS rocm-base", None, "6.1"),
    ("apptainer exec --rocm docker://rocm/dev-almalinux-8:6.3.1 rocminfo", None, "6.3"),
    ("deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.2 jammy main", None, "6.2"),
    ("wget https://repo.radeon.com/amdgpu-install/6.1.3/ubuntu/jammy/amdgpu-install_6.1.60103-1_all.deb", None,
     "6.1"),
    ("rocm-core.x86_64                6.1.2.60102-119.el8          @rocm", None, "6.1"),
    ("export ROCM_PATH=/opt/rocm-6.1.0", None, "6.1"),
    ("Name: torch\nVersion: 2.3.0+rocm5.7\nSummary: Tensors", "5.7", None),
    (">>> torch.__version__\n'2.1.2+rocm5.6'", "5.6", None),
    ("python3 -m pip install tensorflow-rocm==2.14.0.600", "6.0", None),
    ("pip install tensorflow-rocm==2.11.1.550", "5.5", None),
    ("pip install tensorflow-rocm==2.16.1 -f https://repo.radeon.com/rocm/manylinux/rocm-rel-6.2/", "6.2", None),
])
def test_rocm_release_spellings(text, torch_rocm, system_rocm):
    got = read_rocm_versions(text)
    assert list(got.torch) == ([torch_rocm] if torch_rocm else []), got.torch
    assert list(got.system) == ([system_rocm] if system_rocm else []), got.system
