"""explain (issue 26 item 5, e-gen): version_check / config_error / benign_warning read by structure, not phrase.

- HfArgumentParser's refusal is the run's configuration, unless every argument it refused is a TrainingArguments
  field a transformers release removed: then the script/config was written for an older transformers (the same
  phrase, another family).
- The catch-all exception is read from the line that names a Python exception class, not from a tool's banner
  printed before it (pytest's `ERROR collecting`, a logger's `ERROR ... Could not load`).
- A line of Python's warnings module (`x.py:81: UserWarning: ...`) is a harmless note, never a root; a log whose
  only signs are such lines answers "no failure found"; the same line before a real error leaves that error the root.

Lines are the libraries' own messages (their source or the public thread is named at each), in realistic noise;
none is a corpus case's log."""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from tests.helpers_explain import explain_text

SITE = "/opt/conda/lib/python3.10/site-packages"
TORCHRUN_HEAD = ("W0317 14:02:11.118000 412 torch/distributed/run.py:803] Setting OMP_NUM_THREADS environment "
                 "variable for each process to be 1 in default, to avoid your system being overloaded\n")
TEARDOWN = ("E0317 14:02:19.718000 412 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: 1) "
            "local_rank: 0 (pid: 479) of binary: /opt/venv/bin/python\n")


def hfargparser_refusal(listing: str) -> str:
    """transformers/hf_argparser.py parse_args_into_dataclasses' refusal under torchrun (the format of ROCm/MAD#136)."""
    return (TORCHRUN_HEAD +
            "[rank0]: Traceback (most recent call last):\n"
            "[rank0]:   File \"/workspace/run_clm.py\", line 268, in main\n"
            "[rank0]:     model_args, data_args, training_args = parser.parse_args_into_dataclasses()\n"
            f"[rank0]:   File \"{SITE}/transformers/hf_argparser.py\", line 356, in parse_args_into_dataclasses\n"
            "[rank0]:     raise ValueError(f\"Some specified arguments are not used by the HfArgumentParser: "
            "{remaining_args}\")\n"
            f"[rank0]: ValueError: Some specified arguments are not used by the HfArgumentParser: {listing}\n"
            + TEARDOWN)


@pytest.mark.parametrize("listing,family", [
    # removed TrainingArguments fields: 5.x's overwrite_output_dir (ROCm/MAD#136), 3.x's evaluate_during_training
    # (princeton-nlp/LM-BFF#19, gone in transformers 4.0), 4.x's evaluation_strategy (renamed eval_strategy)
    ("['--overwrite_output_dir']", "version_check"),
    ("['--evaluate_during_training']", "version_check"),
    ("['--evaluation_strategy', 'epoch', '--per_gpu_train_batch_size', '8']", "version_check"),
    # the same phrase naming an argument the installed TrainingArguments has (tiiuae/onebitllms#10: --torch_dtype is
    # a model argument the script's parser lacks) or a project argument (findalexli/mllm-dpo#3): the configuration
    ("['--torch_dtype', 'bfloat16']", "config_error"),
    ("['--task', 'DPO', '--dpo_use_average', 'False', '--dpo_beta', '0.1']", "config_error"),
    # one removed field among current ones (a training YAML handed to another command): still the configuration
    ("['--overwrite_output_dir', '--bf16', 'True', '--deepspeed', 'ds_z3.json']", "config_error"),
])
def test_hfargparser_refusal_is_versions_only_when_every_refused_field_was_removed(tmp_path, listing, family):
    e, r = explain_text(tmp_path, hfargparser_refusal(listing))
    assert r is not None and r.code == "config-rejected"
    assert r.family == family
    if family == "version_check":
        assert "transformers" in r.title and "removed" in r.title


def test_llamafactory_keys_not_used_listing_training_keys_stays_config(tmp_path):
    # hiyouga/LlamaFactory#8301: a training YAML given to `llamafactory-cli webchat` (the list holds
    # overwrite_output_dir, removed in 5.x, among current keys): the wrong command for the file, not the versions
    line = ("ValueError: Some keys are not used by the HfArgumentParser: ['bf16', 'dataloader_num_workers', "
            "'ddp_timeout', 'deepspeed', 'do_train', 'gradient_accumulation_steps', 'learning_rate', 'logging_steps', "
            "'lr_scheduler_type', 'num_train_epochs', 'output_dir', 'overwrite_output_dir', "
            "'per_device_train_batch_size', 'report_to', 'resume_from_checkpoint', 'save_only_model', 'save_steps', "
            "'warmup_ratio']\n")
    e, r = explain_text(tmp_path, "[INFO|2025-06-05 10:00:01] llamafactory.cli:143 >> Launching webchat\n" + line)
    assert r is not None and r.family == "config_error"


def test_removed_fields_are_not_fields_of_the_installed_transformers():
    # the table is history: none of its names is a field of a current TrainingArguments (checked when transformers
    # is installed; the names a current release has would make a typo-free current flag read as "removed")
    tr = pytest.importorskip("transformers")
    import dataclasses
    current = {f.name for f in dataclasses.fields(tr.TrainingArguments)}
    assert not (cat.REMOVED_TRAINING_ARGS & current)


PYTEST_COLLECT = """============================= test session starts ==============================
platform linux -- Python 3.6.15, pytest-6.2.5, py-1.11.0, pluggy-1.0.0
collected 0 items / 1 error

==================================== ERRORS ====================================
________________________ ERROR collecting tests/test_model.py ________________________
tests/test_model.py:3: in <module>
    import spacy
.venv/lib/python3.6/site-packages/thinc/util.py:34: in <module>
    has_torch_amp = not torch.cuda.amp.common.amp_definitely_not_available()
{line}
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
"""


@pytest.mark.parametrize("line,family", [
    # explosion/thinc#615: thinc 8.0.14 at import under torch 1.4 (torch.cuda.amp came in 1.6)
    ("E   AttributeError: module 'torch.cuda' has no attribute 'amp'", "version_check"),
    # bitsandbytes' triton-based modules under a Triton without triton.ops (bitsandbytes#1492)
    ("E   ModuleNotFoundError: No module named 'triton.ops'", "version_check"),
])
def test_catch_all_reads_the_exception_line_not_the_banner_before_it(tmp_path, line, family):
    e, r = explain_text(tmp_path, PYTEST_COLLECT.format(line=line))
    assert r is not None and r.family == family


def test_banner_alone_is_no_known_cause(tmp_path):
    # the same banner with no exception line under it: nothing names a cause
    e, r = explain_text(tmp_path, PYTEST_COLLECT.format(line="(output captured)"))
    assert e.answer == "unknown"


MNIST = ("Train Epoch: 1 [0/60000 (0%)]\tLoss: 2.300039\n"
         "Train Epoch: 1 [640/60000 (1%)]\tLoss: 2.182527\n"
         "Train Epoch: 1 [1280/60000 (2%)]\tLoss: 1.988186\n")


@pytest.mark.parametrize("warning", [
    # ROCm/pytorch#631 (a ROCm build that has MIOpen: the warning does not reflect reality)
    "/usr/lib/python3.7/site-packages/torch/backends/cudnn/__init__.py:81: UserWarning: cuDNN/MIOpen library not "
    "found. Check your LD_LIBRARY_PATH",
    # ROCm/ROCm#5555 (torch's optimizer on a newer torch)
    "/home/mark/anaconda3/lib/python3.12/site-packages/torch/optim/optimizer.py:412: UserWarning: "
    "`torch._utils.is_compiling` is deprecated. Use `torch.compiler.is_compiling` instead.",
    # Comfy-Org/ComfyUI#5312 (kornia's decorator on torch >= 2.4)
    "D:\\ComfyUI\\python_embeded\\Lib\\site-packages\\kornia\\feature\\lightglue.py:44: FutureWarning: "
    "`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use `torch.amp.custom_fwd(args..., "
    "device_type='cuda')` instead.",
])
def test_warnings_module_line_alone_is_no_failure(tmp_path, warning):
    e, r = explain_text(tmp_path, f"$ python train.py\n{warning}\n  warnings.warn(\n{MNIST}")
    assert r is None
    assert e.answer == "benign_warning"


def test_warnings_module_line_before_a_real_error_is_never_the_root(tmp_path):
    warning = ("/usr/lib/python3.7/site-packages/torch/backends/cudnn/__init__.py:81: UserWarning: cuDNN/MIOpen "
               "library not found. Check your LD_LIBRARY_PATH")
    err = ("Traceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n    import torchvision\n"
           f"  File \"{SITE}/torchvision/__init__.py\", line 10, in <module>\n"
           "    from torchvision import _meta_registrations\n"
           "RuntimeError: operator torchvision::nms does not exist\n")
    e, r = explain_text(tmp_path, f"{warning}\n{MNIST}{err}")
    assert r is not None and not r.benign and r.family != "benign_warning"


def test_warning_whose_words_say_the_gpu_stack_is_missing_is_not_called_harmless(tmp_path):
    # torch/cuda/__init__.py's init warning names a failure: it must not be read as a harmless note
    line = ("/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py:138: UserWarning: CUDA initialization: "
            "The NVIDIA driver on your system is too old (found version 11040). (Triggered internally at "
            "../c10/cuda/CUDAFunctions.cpp:108.)")
    e, r = explain_text(tmp_path, f"$ python train.py\n{line}\n  return torch._C._cuda_getDeviceCount() > 0\n")
    assert not any(d.code == "warning-level-note" and "CUDA initialization" in d.first.text for d in e.diagnoses)


def comfy_fp8_failure(message: str) -> str:
    """ComfyUI's execution traceback around a cast of fp8 weights (the frames of Comfy-Org/ComfyUI#10388)."""
    return ("pytorch version: 2.9.0+rocm6.4\nAMD arch: gfx1201\ngot prompt\n"
            f"!!! Exception during processing !!! {message}\n"
            "Traceback (most recent call last):\n"
            "  File \"/home/u/ComfyUI/comfy/ops.py\", line 105, in forward_comfy_cast_weights\n"
            "    weight, bias = cast_bias_weight(self, input)\n"
            "  File \"/home/u/ComfyUI/comfy/model_management.py\", line 1031, in cast_to\n"
            "    r.copy_(weight, non_blocking=non_blocking)\n"
            f"RuntimeError: {message}\n\nPrompt executed in 3.02 seconds\n")


@pytest.mark.parametrize("message,family", [
    # a release bound in the message's own words (torch 2.9's ROCm check, Comfy-Org/ComfyUI#10388): the versions
    ("Float8_e4m3fn is only supported for ROCm 6.5 and above", "version_check"),
    # the same fp8 cast refused because this GPU's kernels take the other fp8 variant (pytorch/ao#1066 on MI300X,
    # ROCm/ROCm#6019 on RDNA4): the dtype the run chose
    ("false INTERNAL ASSERT FAILED at \"/app/pytorch/aten/src/ATen/hip/HIPDataType.h\":102, please report a bug to "
     "PyTorch. Cannot convert ScalarType Float8_e4m3fn to hipDataType.", "config_error"),
    ("\"addmm_cuda\" not implemented for 'Float8_e4m3fn'", "config_error"),
    # a bound that is a setting, not a release (only supported for a value of another setting): the configuration
    ("fp8 KV cache is only supported for block_size 16 and above", "config_error"),
])
def test_release_bound_in_the_message_is_the_versions_an_fp8_variant_is_the_setting(tmp_path, message, family):
    e, r = explain_text(tmp_path, comfy_fp8_failure(message))
    assert r is not None and r.family == family


@pytest.mark.parametrize("line", [
    # DeepSpeed's op report (deepspeed/ops/op_builder/builder.py warnings, printed at import by every DeepSpeed run)
    " [WARNING]  If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS environment "
    "variables to where it can be found.",
    " [WARNING]  Please specify the CUTLASS repo directory as environment variable $CUTLASS_PATH",
    " [WARNING]  using untested triton version (2.1.0), only 1.0.0 is known to be compatible",
    # the same through a syslog that escapes the colour codes (databrickslabs/dolly#119)
    "#033[93m [WARNING] #033[0m async_io: please install the libaio-dev package with apt",
])
def test_bracketed_warning_records_alone_are_no_failure(tmp_path, line):
    progress = ("{'loss': 1.2345, 'learning_rate': 1.9e-05, 'epoch': 0.12}\n"
                " 12%|█▏        | 120/1000 [03:12<23:31,  1.60s/it]\n")
    e, r = explain_text(tmp_path, f"$ deepspeed train.py --deepspeed ds_z2.json\n{line}\n{progress}")
    assert r is None and e.answer == "benign_warning"


def test_bracketed_warning_that_names_a_failure_is_not_called_harmless(tmp_path):
    line = " [WARNING]  cpu_adam cuda is missing or is incompatible with installed torch, only cpu ops can be compiled!"
    e, r = explain_text(tmp_path, f"$ deepspeed train.py\n{line}\n")
    assert not any(d.code == "warning-level-note" and "incompatible" in d.first.text for d in e.diagnoses)


def test_a_warning_the_run_went_past_is_never_the_root(tmp_path):
    # NCCL on a node without InfiniBand warns and falls back to its socket transport; the run trains after it
    # (NCCL's net_ib.cc `NET/IB : No device found.`, seen in every single-node log without IB)
    text = ("node1:2161:2161 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.2<0>\n"
            "node1:2161:2161 [0] NCCL WARN NET/IB : No device found.\n"
            "node1:2161:2161 [0] NCCL INFO NET/Socket : Using [0]eth0:172.17.0.2<0>\n"
            "{'loss': 1.2345, 'learning_rate': 1.9e-05, 'epoch': 0.12}\n"
            " 12%|█▏        | 120/1000 [03:12<23:31,  1.60s/it]\n")
    e, r = explain_text(tmp_path, text)
    assert r is None and e.answer == "benign_warning"


def test_the_same_warning_at_the_end_of_a_stopped_run_stays_a_sign(tmp_path):
    # the same line with nothing after it (the run stopped there): it is not disproven by progress
    text = ("{'loss': 1.2345, 'learning_rate': 1.9e-05, 'epoch': 0.12}\n"
            " 12%|█▏        | 120/1000 [03:12<23:31,  1.60s/it]\n"
            "node1:2161:2161 [0] NCCL WARN NET/IB : No device found.\n")
    e, r = explain_text(tmp_path, text)
    assert r is not None and r.family == "nccl_rccl_timeout_hang"
