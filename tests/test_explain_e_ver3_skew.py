"""e-ver3 (issue 26): version skew as the libraries state it or as a saved artifact carries it.

- a library's own gate sentence (profiles/release_gates.py, each written from the raise statement it names):
  transformers refusing torch.load under torch 2.6, torch's cuDNN check, protobuf's runtime check, NumPy 2's
  removals and copy=False change, datasets 4.0 dropping loading scripts;
- a saved dataset's feature type another datasets release declares (profiles/dataset_feature_types.py, generated
  from huggingface/datasets' tags by tools/build_dataset_feature_types.py);
- the `deepspeed` launcher's flags per release (profiles/launcher_args.py, tools/build_launcher_args.py);
- flash-attn's names imported from another flash-attn release (FAMILIES.md: an FA import failure is
  missing_package or version_check, never the attention kernel's family);
- an attribute missing on an object of a library's class with nothing else known.
Every log is written from the raising code with the noise and other ranks' lines a run prints; none is a corpus case.
"""
from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import release_gates
from rocm_tune.core.runs.diagnose.diagnose import explain_text
from rocm_tune.profiles.dataset_feature_types import FEATURE_RELEASES, FEATURE_TYPES
from rocm_tune.profiles.launcher_args import LAUNCHER_ARGS

SP = "/opt/conda/envs/train/lib/python3.10/site-packages"
DS_NOISE = ("[2025-03-02 10:11:04,118] [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda "
            "(auto detect)\n")
LOADING = "Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"


def _tb(user: str, *frames: str, rank: str = "") -> str:
    lines = ["Traceback (most recent call last):", f'  File "{user}", line 41, in <module>', "    main()"]
    lines += list(frames)
    return "".join(f"{rank}{ln}\n" for ln in lines)


def _root(log: str):
    exp = explain_text(log)
    assert exp.root is not None, exp.answer
    return exp.diagnoses[exp.root]


# transformers >= 4.50 utils/import_utils.py check_torch_load_is_safe, called by modeling_utils.load_state_dict for a
# .bin checkpoint; raised on every rank
TORCH_LOAD_GATE = DS_NOISE + "".join(
    _tb("/work/sft.py", f'  File "{SP}/transformers/modeling_utils.py", line 4317, in from_pretrained',
        f'  File "{SP}/transformers/modeling_utils.py", line 507, in load_state_dict',
        "    check_torch_load_is_safe()",
        f'  File "{SP}/transformers/utils/import_utils.py", line 1647, in check_torch_load_is_safe',
        "    raise ValueError(", rank=f"[rank{r}]: ") +
    f"[rank{r}]: ValueError: Due to a serious vulnerability issue in `torch.load`, even with `weights_only=True`, we "
    "now require users to upgrade torch to at least v2.6 in order to use the function. This version restriction does "
    "not apply when loading files with safetensors.\n"
    f"[rank{r}]: See the vulnerability report here https://nvd.nist.gov/vuln/detail/CVE-2025-32434\n"
    for r in (1, 0)) + "E0302 10:12:01.000000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed " \
    "(exitcode: 1) local_rank: 0 (pid: 1201) of binary: /opt/conda/envs/train/bin/python\n"

# torch/backends/cudnn/__init__.py _init: the message as raised (two spaces after "compiled"), printed wrapped by a
# launcher that folds long lines
CUDNN = LOADING + _tb("/work/train.py", f'  File "{SP}/torch/backends/cudnn/__init__.py", line 105, in _init',
                      "    raise RuntimeError(f'{base_error_msg}') ") + (
    "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime\n"
    "version (8, 5, 0). PyTorch already comes bundled with cuDNN. One option to resolving this error is to ensure "
    "PyTorch can find the bundled cuDNN. Looks like your LD_LIBRARY_PATH contains incompatible version of cudnn. "
    "Please either remove it from the path or install cudnn (8, 9, 2)\n")

# protobuf's C++ runtime check (src/google/protobuf/stubs/common.cc VerifyVersion), printed by a native extension
PROTOBUF = (
    "[libprotobuf FATAL google/protobuf/stubs/common.cc:83] This program was compiled against version 3.19.0 of the "
    "Protocol Buffer runtime library, which is not compatible with the installed version (3.20.3).  Contact the "
    "program author for an update.  If you compiled the program yourself, make sure that your headers are from the "
    "same version of Protocol Buffers as your link-time library.  (Version verification failed in \"bazel-out/k8-opt/"
    "bin/tensorflow/core/framework/tensor_shape.pb.cc\".)\n"
    "terminate called after throwing an instance of 'google::protobuf::FatalException'\n"
    "  what():  This program was compiled against version 3.19.0 of the Protocol Buffer runtime library, which is "
    "not compatible with the installed version (3.20.3).\nAborted (core dumped)\n")

# datasets 4.0 src/datasets/load.py: the trust_remote_code log line, then the script refused
DATASET_SCRIPT = LOADING + (
    "`trust_remote_code` is not supported anymore.\nPlease check that the Hugging Face dataset 'Salesforce/wikitext' "
    "isn't based on a loading script and remove `trust_remote_code`.\n") + _tb(
    "/work/train.py", f'  File "{SP}/datasets/load.py", line 1392, in load_dataset',
    "    builder_instance = load_dataset_builder(",
    f'  File "{SP}/datasets/load.py", line 989, in dataset_module_factory',
    "    raise RuntimeError(f\"Dataset scripts are no longer supported, but found {filename}\")") + \
    "RuntimeError: Dataset scripts are no longer supported, but found wikitext.py\n"


def _feature_refusal(name: str) -> str:
    # datasets >= 2.20 features.py generate_from_dict, reached from load_from_disk / the Hub's dataset_info
    return LOADING + _tb("/work/train.py", f'  File "{SP}/datasets/load.py", line 2148, in load_from_disk',
                         f'  File "{SP}/datasets/features/features.py", line 1474, in generate_from_dict',
                         "    raise ValueError(f\"Feature type '{_type}' not found. Available feature types: "
                         "{list(_FEATURE_TYPES.keys())}\")") + (
        f"ValueError: Feature type '{name}' not found. Available feature types: ['Value', 'ClassLabel', "
        "'Translation', 'TranslationVariableLanguages', 'Sequence', 'Array2D', 'Array3D', 'Array4D', 'Array5D', "
        "'Audio', 'Image']\n")


# datasets < 2.20: `class_type = globals()[obj.pop("_type")]` -> a bare KeyError in that frame
OLD_FEATURE_KEYERROR = _tb("/work/prep.py", f'  File "{SP}/datasets/info.py", line 290, in from_dict',
                           f'  File "{SP}/datasets/features/features.py", line 1363, in generate_from_dict',
                           '    class_type = globals()[obj.pop("_type")]') + "KeyError: 'Video'\n"


@pytest.mark.parametrize("log, words", [
    (TORCH_LOAD_GATE, "torch to >= 2.6"),
    (CUDNN, "LD_LIBRARY_PATH"),
    (PROTOBUF, "protobuf release the binary was built with (3.19.0)"),
    (DATASET_SCRIPT, "datasets < 4.0"),
    (_feature_refusal("List"), "datasets to >= 4.0.0"),
    (_feature_refusal("Video"), "datasets to >= 3.1.0"),
    (OLD_FEATURE_KEYERROR, "datasets to >= 3.1.0"),
])
def test_a_library_gate_or_a_saved_feature_type_is_the_versions(log, words):
    d = _root(log)
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert words in d.fix, d.fix


def test_cudnn_title_names_both_builds_even_wrapped():
    d = _root(CUDNN)
    assert "(8, 9, 2)" in d.title and "(8, 5, 0)" in d.title, d.title


def test_a_feature_type_no_release_declares_is_not_a_release():
    # a hand-written dataset_info.json with a typo: no datasets release has 'Lits'
    assert release_gates.feature_type_skew(_feature_refusal("Lits"), "") is None
    d = _root(_feature_refusal("Lits"))
    assert "datasets to >=" not in d.fix


def test_a_bare_keyerror_outside_generate_from_dict_is_not_a_feature_type():
    log = _tb("/work/train.py", '  File "/work/train.py", line 80, in collate', "    batch['List']") + \
        "KeyError: 'List'\n"
    assert release_gates.feature_type_skew("KeyError: 'List'", log) is None
    assert "datasets" not in _root(log).fix


def test_feature_table_is_read_from_the_tags():
    assert FEATURE_TYPES["List"][0] == "4.0.0" and FEATURE_TYPES["Value"][1] == FEATURE_RELEASES[-1]
    assert FEATURE_TYPES["LargeList"][0] == "2.21.0"          # features.py grew it after 2.20's registry
    assert list(FEATURE_RELEASES) == sorted(FEATURE_RELEASES, key=lambda v: tuple(map(int, v.split("."))))


# flash-attn 1.x has flash_attn_unpadded_qkvpacked_func, 2.x renamed it flash_attn_varlen_qkvpacked_func: code for 2.x
# on a 1.x install (or the reverse) fails at the import, before any kernel runs
FA_NAME = DS_NOISE + _tb(
    "/work/train.py", f'  File "{SP}/transformers/models/llama/modeling_llama.py", line 52, in <module>',
    "    from flash_attn import flash_attn_func, flash_attn_varlen_func") + (
    f"ImportError: cannot import name 'flash_attn_varlen_func' from 'flash_attn' ({SP}/flash_attn/__init__.py)\n")
FA_KERNEL = DS_NOISE + _tb("/work/train.py", f'  File "{SP}/flash_attn/flash_attn_interface.py", line 91, in '
                           "_flash_attn_forward") + \
    "RuntimeError: FlashAttention forward only supports head dimension at most 256\n"


def test_flash_attn_name_import_is_the_versions_its_kernel_refusal_is_not():
    d = _root(FA_NAME)
    assert (d.family, d.code) == ("version_check", "import-name-mismatch"), (d.family, d.code)
    assert _root(FA_KERNEL).family == "flash_attn_error"


# accelerate added Accelerator.gather_for_metrics in 0.12; a script written for it on an older accelerate, two ranks
ACC_ATTR = "".join(
    _tb("/work/eval.py", '  File "/work/eval.py", line 120, in evaluate',
        "    preds = accelerator.gather_for_metrics(preds)", rank=f"[rank{r}]: ") +
    f"[rank{r}]: AttributeError: 'Accelerator' object has no attribute 'gather_for_metrics'\n" for r in (0, 1))


def test_an_attribute_of_a_library_class_is_another_release():
    d = _root(ACC_ATTR)
    assert d.family == "version_check", (d.family, d.title)
    assert "Accelerator.gather_for_metrics" in d.title


@pytest.mark.parametrize("line", [
    "AttributeError: 'list' object has no attribute 'keys'",
    "AttributeError: 'NoneType' object has no attribute 'shape'",
    "AttributeError: 'DistributedDataParallel' object has no attribute 'generate'",
])
def test_an_attribute_of_a_builtin_or_a_wrapper_is_not_read_as_a_release(line):
    assert release_gates.library_attribute(line) is None


def _ds_usage(flags: str) -> str:
    # deepspeed/launcher/runner.py parse_args: argparse's usage and refusal, before the script starts
    return DS_NOISE + ("usage: deepspeed [-h] [-H HOSTFILE] [-i INCLUDE] [-e EXCLUDE] [--num_nodes NUM_NODES]\n"
                       "                 [--num_gpus NUM_GPUS] [--master_port MASTER_PORT]\n"
                       "                 user_script ...\n"
                       f"deepspeed: error: unrecognized arguments: {flags}\n")


def test_a_launcher_flag_of_a_later_deepspeed_is_the_versions():
    d = _root(_ds_usage("--no_ssh --venv_script /opt/env.sh"))
    assert d.family == "version_check", (d.family, d.title)
    assert "v0.14.5" in d.fix and "v0.17.1" in d.fix, d.fix


def test_a_script_flag_before_the_script_or_a_typo_is_the_command():
    assert _root(_ds_usage("--deepspeed_config ds_z3.json")).family == "config_error"
    d = _root(_ds_usage("--bind_core_lists 0-15"))
    assert d.family == "config_error" and "bind_core_list" in d.fix, (d.family, d.fix)


def test_launcher_table_is_read_from_the_tags():
    old, new, spans, _ = LAUNCHER_ARGS["deepspeed-launcher"]
    flat = {n: s for s, names in spans.items() for n in names.split()}
    assert flat["num_gpus"] == f"{old}..{new}" and flat["no_ssh"].startswith("v0.14.5..")


# NumPy 2.0 numpy/__init__.py __getattr__ (__expired_attributes__), raised in the importing library's frame
NP_REMOVED = _tb("/work/train.py", f'  File "{SP}/lm_eval/metrics.py", line 12, in <module>',
                 "    NAN = np.NaN", f'  File "{SP}/numpy/__init__.py", line 397, in __getattr__',
                 "    raise AttributeError(") + \
    "AttributeError: `np.NaN` was removed in the NumPy 2.0 release. Use `np.nan` instead.. Did you mean: 'nan'?\n"
NP_COPY = _tb("/work/train.py", f'  File "{SP}/transformers/feature_extraction_utils.py", line 180, in as_tensor',
              "    return np.array(value, copy=False)") + (
    "ValueError: Unable to avoid copy while creating an array as requested.\nIf using `np.array(obj, copy=False)` "
    "replace it with `np.asarray(obj)` to allow a copy when needed (no behavior change in NumPy 1.x).\nFor more "
    "details, see https://numpy.org/devdocs/numpy_2_0_migration_guide.html#adapting-to-changes-in-the-copy-keyword.\n")


@pytest.mark.parametrize("log, words", [(NP_REMOVED, "numpy < 2.0"), (NP_COPY, "numpy < 2")])
def test_numpy_2_changes_name_the_release(log, words):
    d = _root(log)
    assert d.family == "version_check" and words in d.fix, (d.family, d.fix)


def test_gate_reading_ignores_a_requirement_it_does_not_know():
    assert release_gates.gate_reading("ValueError: learning_rate must be positive") is None


# TRL's public names per release (profiles/release_names.py, from trl/__init__.py at every tag): GRPOTrainer came in
# 0.14.0; DataCollatorForCompletionOnlyLM went after 0.19.1. Logs as a launcher prints them, two ranks.
def _trl_import(name: str) -> str:
    return DS_NOISE + "".join(
        _tb("/work/grpo.py", rank=f"[rank{r}]: ") +
        f"[rank{r}]: ImportError: cannot import name '{name}' from 'trl' ({SP}/trl/__init__.py)\n" for r in (0, 1))


def test_an_import_of_a_name_a_later_release_added_names_that_release():
    d = _root(_trl_import("GRPOTrainer"))
    assert d.family == "version_check", (d.family, d.code)
    assert "trl>=0.14.0" in d.fix and "0.14.0" in d.title, (d.title, d.fix)


def test_an_import_of_a_name_a_later_release_removed_names_the_last_release():
    d = _root(_trl_import("DataCollatorForCompletionOnlyLM"))
    assert d.family == "version_check" and "trl<=0.19.1" in d.fix, (d.family, d.fix)


def test_module_attribute_of_an_older_peft_names_the_release():
    log = _tb("/work/train.py", "    model = peft.prepare_model_for_kbit_training(model)") + \
        "AttributeError: module 'peft' has no attribute 'prepare_model_for_kbit_training'\n"
    d = _root(log)
    assert d.family == "version_check" and "peft>=0.4.0" in d.fix, (d.family, d.fix)


def test_a_name_every_release_exports_is_not_given_a_release():
    from rocm_tune.core.runs.diagnose import name_skew
    # every peft release read exports LoraConfig: failing on it is a broken or shadowed install, not a release
    assert name_skew.release_name("ImportError: cannot import name 'LoraConfig' from 'peft' (unknown location)") is None
    assert name_skew.release_name("ImportError: cannot import name 'NoSuchThing' from 'trl'") is None


def _raised_in(frame: str, message: str, ranks: tuple[int, ...] = (0, 1)) -> str:
    return DS_NOISE + "".join(
        _tb("/work/train.py", f'  File "{SP}/{frame}", line 512, in __init__', "    raise ValueError(",
            rank=f"[rank{r}]: ") + f"[rank{r}]: {message}\n" for r in ranks)


@pytest.mark.parametrize("frame, message, words", [
    ("accelerate/accelerator.py", "ValueError: FSDP2 is only available in PyTorch 2.4 and later.", "PyTorch release"),
    ("transformers/models/auto/auto_factory.py",
     "ValueError: Qwen2.5-VL is only supported from transformers v4.49.0", "(4.49.0;"),
    ("mylib/train.py", "RuntimeError: Float8_e4m3fn is only supported for ROCm 6.5 and above", "ROCm release"),
    ("transformers/integrations/deepspeed.py", "RuntimeError: deepspeed 0.16.0 is incompatible with torch 2.0.1",
     "made for torch 2.0.1"),
    ("vllm/config.py", "ValueError: Unsupported transformers version 4.30.0; minimum supported is 4.36.0",
     "(4.36.0;"),
])
def test_a_requirement_in_the_librarys_words_is_the_versions(frame, message, words):
    d = _root(_raised_in(frame, message))
    assert d.family == "version_check", (d.family, d.code, d.title)
    assert words in d.fix, d.fix


@pytest.mark.parametrize("message", [
    "ValueError: bf16 is only supported on GPUs with compute capability >= 8.0",
    "ValueError: sequence parallel is only supported for world_size >= 2",
    "ValueError: ZeRO-3 is only supported with DeepSpeed stage 3 config",
])
def test_a_requirement_on_a_setting_or_a_card_is_not_a_release(message):
    assert release_gates.gate_reading(message) is None


# HfArgumentParser gives an Enum field argparse choices (transformers/hf_argparser.py); the usage line and refusal as
# argparse prints them for a script run on an older transformers than the recipe's
def _choice(prog: str, arg: str, value: str, choices: str) -> str:
    return (f"usage: {prog} [-h] --model_name_or_path MODEL_NAME_OR_PATH [--{arg} {{{choices.replace(chr(39), '')}}}]\n"
            f"{prog}: error: argument --{arg}: invalid choice: '{value}' (choose from {choices})\n")


SCHED_CHOICES = ("'linear', 'cosine', 'cosine_with_restarts', 'polynomial', 'constant', 'constant_with_warmup', "
                 "'inverse_sqrt', 'reduce_lr_on_plateau'")


def test_an_enum_choice_of_a_later_release_is_the_versions():
    d = _root(_choice("run_clm.py", "lr_scheduler_type", "cosine_with_min_lr", SCHED_CHOICES))
    assert d.family == "version_check" and "SchedulerType" in d.title, (d.family, d.title)
    assert "upgrade transformers" in d.fix, d.fix


def test_an_enum_choice_no_release_declares_is_the_configuration():
    d = _root(_choice("run_clm.py", "lr_scheduler_type", "cosine_with_restart", SCHED_CHOICES))
    assert d.family == "config_error" and "cosine_with_restarts" in d.fix, (d.family, d.fix)


def test_accelerate_launch_choices_with_both_spellings_of_the_flag():
    log = ("usage: accelerate <command> [<args>] launch [-h]\naccelerate <command> [<args>] launch: error: argument "
           "--dynamo_backend/--dynamo-backend: invalid choice: 'tensorrt' (choose from 'no', 'eager', 'aot_eager', "
           "'inductor')\n")
    d = _root(log)
    assert d.family == "version_check" and "DynamoBackend" in d.title, (d.family, d.title)


def test_a_choice_of_an_option_without_an_enum_is_not_read():
    from rocm_tune.core.runs.diagnose import enum_skew
    assert enum_skew.read_choice_refusal(
        "train.py: error: argument --model: invalid choice: 'llama' (choose from 'gpt2', 'bert')") is None


# DeepSpeed's JIT ops live in torch's extension cache (torch/utils/cpp_extension.py _jit_compile): after a torch
# upgrade ninja may find nothing to rebuild and the old .so is loaded against the new torch
JIT_HEAD = (DS_NOISE + "Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...\n"
            "Detected CUDA files, patching ldflags\nEmitting ninja build file "
            "/root/.cache/torch_extensions/py310_cu121/fused_adam/build.ninja...\nBuilding extension module fused_adam...\n"
            "Allowing ninja to set a default number of workers... (overridable by setting the environment variable "
            "MAX_JOBS=N)\n")
JIT_FAIL = _tb("/work/train.py", f'  File "{SP}/deepspeed/ops/op_builder/builder.py", line 480, in load',
               "    return self.jit_load(verbose)") + (
    "ImportError: /root/.cache/torch_extensions/py310_cu121/fused_adam/fused_adam.so: undefined symbol: "
    "_ZN3c1019UndefinedTensorImpl10_singletonE\n")


def test_a_cached_jit_op_missing_a_torch_symbol_is_the_versions():
    d = _root(JIT_HEAD + "ninja: no work to do.\nLoading extension module fused_adam...\n" + JIT_FAIL)
    assert d.family == "version_check", (d.family, d.title)
    assert "torch_extensions/py310_cu121/fused_adam" in d.fix, d.fix


def test_an_op_compiled_in_this_run_stays_the_build():
    built = ("[1/3] /usr/local/cuda/bin/nvcc -DTORCH_EXTENSION_NAME=fused_adam -c multi_tensor_adam.cu -o "
             "multi_tensor_adam.cuda.o\n[2/3] c++ -MMD -MF fused_adam_frontend.o.d -c fused_adam_frontend.cpp\n"
             "[3/3] c++ fused_adam_frontend.o multi_tensor_adam.cuda.o -shared -o fused_adam.so\n"
             "Loading extension module fused_adam...\n")
    assert _root(JIT_HEAD + built + JIT_FAIL).family == "deepspeed_build_jit"


# transformers modeling_utils._check_and_enable_flash_attn_2 / flash-attn's own checks: a version requirement or an
# ABI break in the attention library's message is a build for another release, not the attention kernel's refusal
FA_FRAME = f'  File "{SP}/transformers/modeling_utils.py", line 1560, in _check_and_enable_flash_attn_2'


@pytest.mark.parametrize("message", [
    "ImportError: FlashAttention2 has been toggled on, but it cannot be used due to the following error: Flash "
    "Attention 2 requires flash-attn>=2.1.0 for the `window_size` argument.",
    "RuntimeError: flash_attn 2.5.6 does not support torch 2.5, please install flash_attn>=2.6.3",
    "ImportError: flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN2at4_ops5zeros4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10ScalarTypeEEE",
])
def test_an_attention_failure_stating_releases_is_the_versions(message):
    d = _root(DS_NOISE + _tb("/work/train.py", FA_FRAME) + message + "\n")
    assert d.family == "version_check", (d.family, d.code, d.title)


def test_an_attention_refusal_of_the_card_stays_the_attention():
    d = _root(DS_NOISE + _tb("/work/train.py", FA_FRAME) + "RuntimeError: FlashAttention only supports Ampere GPUs "
              "or newer.\n")
    assert d.family == "flash_attn_error"


# Python's compiler names the installed file it cannot compile (f-string `=` specifier: Python 3.8+; here 3.7)
PY37 = "/home/u/.conda/envs/py37/lib/python3.7/site-packages"
INSTALLED_SYNTAX = _tb("/work/train.py", f'  File "{PY37}/datasets/__init__.py", line 22, in <module>',
                       "    from .arrow_dataset import Dataset",
                       f'  File "{PY37}/datasets/utils/py_utils.py", line 60',
                       '    logger.info(f"{path=}")', "                       ^") + \
    "SyntaxError: f-string: expecting '}'\n"


def test_a_syntax_error_in_an_installed_package_is_the_interpreters_release():
    d = _root(INSTALLED_SYNTAX)
    assert d.family == "version_check" and "python_requires" in d.fix, (d.family, d.fix)


def test_a_syntax_error_in_the_users_file_is_not_read_as_a_release():
    log = _tb("/work/run.py", '  File "/work/mymod.py", line 9', '    print "x"', "          ^") + \
        "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?\n"
    assert release_gates.installed_syntax_error(log.splitlines()[-1], log) is None
