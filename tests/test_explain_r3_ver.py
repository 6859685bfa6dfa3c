"""explain (issue 26 item 5, r3-ver): version skew and argument rejection read by the shapes the libraries' own source
prints, not by the cases at hand. Each line below is the message a library raises (its source named next to it), put
in a traceback whose frames are where that library raises it; a warning about versions never outranks a real failure.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose.diagnose import diagnose

SP = "/opt/conda/envs/ft/lib/python3.10/site-packages"

# (expected code, the line as the library words it, where the words come from)
SOURCE_LINES = [
    ("version-check-failed", "pkg_resources.ContextualVersionConflict: (tokenizers 0.13.3 (/opt/conda/envs/ft/lib/"
     "python3.10/site-packages), Requirement.parse('tokenizers<0.19,>=0.14'), {'transformers'})",
     "setuptools pkg_resources/__init__.py WorkingSet.resolve (VersionConflict(dist, req).with_context(...))"),
    ("version-check-failed", "pkg_resources.VersionConflict: (torch 2.1.0 (/usr/lib/python3/dist-packages), "
     "Requirement.parse('torch>=2.3'))", "setuptools pkg_resources/__init__.py WorkingSet.resolve"),
    ("version-check-failed", "ImportError: Found an incompatible version of torchao. Found version 0.10.0, but only "
     "versions above 0.16.0 are supported", "peft/import_utils.py is_torchao_available (also auto-gptq, gptqmodel)"),
    ("version-check-failed", "ImportError: Found an incompatible version of torch. Found version 1.10.0, but only "
     "version 1.11 is supported.", "transformers/utils/fx.py HFTracer.__init__"),
    ("missing-package", "pkg_resources.DistributionNotFound: The 'tqdm>=4.27' distribution was not found and is "
     "required by the application", "setuptools pkg_resources/__init__.py (console-script entry points)"),
    ("runner-model-type-unknown", "ValueError: Model architectures ['Qwen3ForCausalLM'] are not supported for now. "
     "Supported architectures: dict_keys(['AquilaModel', 'LlamaForCausalLM'])",
     "vllm/model_executor/models/registry.py _raise_for_unsupported"),
    ("runner-model-type-unknown", "NotImplementedError: Unsloth: qwen3 not supported yet!",
     "unsloth/models/loader.py FastLanguageModel.from_pretrained"),
    ("version-required", "RuntimeError: vLLM ROCm requires PyTorch built with ROCm >= 6.1, found 5.7",
     "a stack component named a few words after `requires` (vLLM / torchtune import-time checks)"),
    ("config-rejected", "ValueError: Please correct the following DeepSpeed config values that mismatch "
     "TrainingArguments values:", "transformers/integrations/deepspeed.py HfTrainerDeepSpeedConfig.trainer_config_finalize"),
]


@pytest.mark.parametrize("code,line,source", SOURCE_LINES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(SOURCE_LINES)])
def test_each_library_shape_names_its_signature(code, line, source):
    hit = cat.best_match(line)
    assert hit is not None, source
    assert hit[0].code == code, (source, [s.code for s, _ in cat.match_line(line)])


def _tb(frames, last):
    out = ["Traceback (most recent call last):", '  File "/home/u/train.py", line 12, in <module>', "    main()"]
    for path, fn, src in frames:
        out += [f'  File "{SP}/{path}", line 101, in {fn}', f"    {src}"]
    return "\n".join(out + [last]) + "\n"


def _root(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text("[INFO] loading\n" + text)
    exp = diagnose([str(log)])
    assert exp.root is not None
    return exp.diagnoses[exp.root]


# (family, the traceback's frames, the exception as the library raises it, its source)
WHOLE = [
    ("version_check", [("peft/import_utils.py", "is_torchao_available", "raise ImportError(")],
     "ImportError: Found an incompatible version of torchao. Found version 0.10.0, but only versions above 0.16.0 are "
     "supported", "peft/import_utils.py"),
    ("version_check", [("transformers/integrations/peft.py", "load_adapter", "check_peft_version(min_version=MIN_PEFT_"
                        "VERSION)"), ("transformers/utils/peft_utils.py", "check_peft_version", "raise ValueError(")],
     "ValueError: The version of PEFT you are using is not compatible, please use a version that is greater than 0.5.0",
     "transformers/utils/peft_utils.py check_peft_version"),
    ("version_check", [("llamafactory/model/loader.py", "load_model", "raise ValueError(")],
     "ValueError: Please upgrade `transformers` to the latest version to use Qwen3 models.",
     "a package named in backticks (LLaMA-Factory / ms-swift model loaders)"),
    ("version_check", [("unsloth/models/llama.py", "LlamaModel_fast_forward", "layer_outputs = decoder_layer(")],
     "TypeError: LlamaDecoderLayer.forward() takes from 2 to 8 positional arguments but 9 were given",
     "CPython's wording for a call with defaults (a patching library against another transformers)"),
    ("version_check", [("pkg_resources/__init__.py", "resolve", "raise VersionConflict(dist, req)")],
     "pkg_resources.VersionConflict: (torch 2.1.0 (/opt/conda/envs/ft/lib/python3.10/site-packages), "
     "Requirement.parse('torch>=2.3'))", "setuptools pkg_resources"),
    ("missing_package", [("pkg_resources/__init__.py", "resolve", "raise DistributionNotFound(req, requirers)")],
     "pkg_resources.DistributionNotFound: The 'tqdm>=4.27' distribution was not found and is required by the "
     "application", "setuptools pkg_resources"),
    ("version_check", [("transformers/training_args.py", "__post_init__", "raise ValueError(")],
     "ValueError: `evaluation_strategy` was removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead",
     "transformers/training_args.py (an argument of another release, raised among the argument checks)"),
    ("version_check", [("accelerate/accelerator.py", "__init__", "raise ValueError(")],
     "ValueError: `dispatch_batches` was deprecated since version 1.0 and has been removed. Please use "
     "`DataLoaderConfiguration` instead.", "accelerate/accelerator.py Accelerator.__init__"),
    ("version_check", [("trl/trainer/sft_config.py", "__post_init__", "raise ValueError(")],
     "ValueError: The `max_seq_length` argument is no longer supported in SFTConfig. Use `max_length` instead.",
     "TRL's renamed SFTConfig fields"),
    ("dataset_error", [("torch/utils/data/_utils/collate.py", "collate", "return torch.stack(batch, 0, out=out)")],
     "RuntimeError: stack expects each tensor to be equal size, but got [512] at entry 0 and [498] at entry 1",
     "torch/utils/data/_utils/collate.py default_collate (unpadded samples)"),
    ("config_error", [("transformers/integrations/deepspeed.py", "trainer_config_finalize", "raise ValueError(")],
     "ValueError: Please correct the following DeepSpeed config values that mismatch TrainingArguments values:\n"
     "- ds train_micro_batch_size_per_gpu=4 vs hf per_device_train_batch_size=2\n"
     "The easiest method is to set these DeepSpeed config values to 'auto'.", "transformers/integrations/deepspeed.py"),
]


@pytest.mark.parametrize("family,frames,last,source", WHOLE, ids=[f"{f}-{i}" for i, (f, *_) in enumerate(WHOLE)])
def test_a_traceback_from_the_library_is_its_family(tmp_path, family, frames, last, source):
    assert _root(tmp_path, _tb(frames, last)).family == family, source


REMOTE = "/root/.cache/huggingface/modules/transformers_modules/THUDM/chatglm2-6b"


@pytest.mark.parametrize("path,fn,last", [
    (f"{REMOTE}/modeling_chatglm.py", "prepare_inputs_for_generation",
     "AttributeError: 'DynamicCache' object has no attribute 'get_max_length'"),
    # the remote tokenizer too: its code predates transformers 4.34's tokenizer init order
    (f"{REMOTE}/tokenization_chatglm.py", "vocab_size",
     "AttributeError: 'ChatGLMTokenizer' object has no attribute 'tokenizer'"),
], ids=["remote-model", "remote-tokenizer"])
def test_remote_code_missing_an_attribute_of_the_installed_transformers_is_version_skew(tmp_path, path, fn, last):
    text = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 12, in <module>\n    main()\n'
            f'  File "{path}", line 201, in {fn}\n    x = self.y\n{last}\n')
    assert _root(tmp_path, text).family == "version_check"


def test_the_requirement_and_what_was_found_are_read_from_each_shape(tmp_path):
    r = _root(tmp_path, _tb([("pkg_resources/__init__.py", "resolve", "raise VersionConflict(dist, req)")],
                            "pkg_resources.VersionConflict: (torch 2.1.0 (/x/site-packages), Requirement.parse('torch>=2.3'))"))
    assert (r.numbers["requirement"], r.numbers["found"]) == ("torch>=2.3", "torch 2.1.0")
    r = _root(tmp_path, _tb([("peft/import_utils.py", "is_torchao_available", "raise ImportError(")],
                            "ImportError: Found an incompatible version of torchao. Found version 0.10.0, but only "
                            "versions above 0.16.0 are supported"))
    assert (r.numbers["requirement"], r.numbers["found"]) == ("torchao>0.16.0", "torchao==0.10.0")


def test_a_syntax_error_compiling_installed_code_is_the_python_version_but_in_the_users_script_is_not(tmp_path):
    # a `match` statement (Python 3.10) in an installed library, imported by a Python 3.8 environment
    lib = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 3, in <module>\n    import trl\n'
           '  File "/opt/conda/envs/ft/lib/python3.8/site-packages/trl/trainer/utils.py", line 512\n'
           '    match self.mode:\n          ^\nSyntaxError: invalid syntax\n')
    assert _root(tmp_path, lib).family == "version_check"
    own = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 12\n    print "x"\n    ^^^^^^^^^\n'
           "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?\n")
    assert _root(tmp_path, own).family != "version_check"


OOM = ("[rank0]: torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       "63.98 GiB of which 1.10 GiB is free.\n")


@pytest.mark.parametrize("warning", [
    # DeepSpeed's op compatibility report (op_builder/*.py is_compatible)
    "[WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected 2.3\n"
    "[WARNING]  using untested triton version (2.3.0), only 1.0.0 is known to be compatible\n",
    # pip's resolver after an install (src/pip/_internal/operations/check.py)
    "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This "
    "behaviour is the source of the following dependency conflicts.\nvllm 0.6.3 requires torch==2.4.0, but you have "
    "torch 2.5.1+rocm6.2 which is incompatible.\n",
    # xFormers' import-time note (xformers/_cpp_lib.py)
    "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n    PyTorch 2.1.0+cu121 with "
    "CUDA 1201 (you have 2.3.0+rocm6.0)\n",
    # TRL's deprecation of an argument (trl/trainer/sft_trainer.py)
    f"{SP}/trl/trainer/sft_trainer.py:401: FutureWarning: `tokenizer` is deprecated and will be removed in version "
    "5.0.0 for `SFTTrainer.__init__`. Use `processing_class` instead.\n",
], ids=["deepspeed-op-report", "pip-resolver", "xformers-note", "trl-deprecation"])
def test_a_version_warning_before_a_real_failure_is_not_the_root(tmp_path, warning):
    r = _root(tmp_path, warning + "  5%|▌         | 10/200 [00:10<03:10,  1.00s/it]\n" + OOM)
    assert r.family == "gpu_oom"


def test_the_watch_parser_reads_each_version_check_shape():
    # the monitor's alerts read the same signature: each shape gives its requirement and what was found
    from rocm_tune.core.runs.watch.parsers import TextParser
    tp = TextParser()
    lines = ["{'loss': 1.2, 'epoch': 0.1}",
             "pkg_resources.VersionConflict: (torch 2.1.0 (/x/site-packages), Requirement.parse('torch>=2.3'))",
             "ImportError: Found an incompatible version of torchao. Found version 0.10.0, but only versions above "
             "0.16.0 are supported",
             "ImportError: peft>=0.14.0,<=0.15.2 is required for a normal functioning of this module, but found "
             "peft==0.17.1."]
    got = [(e.data["requirement"], e.data["found"]) for line in lines for e in tp.feed(line)
           if e.kind == "signal" and e.data.get("signal") == "version-check"]
    assert got == [("torch>=2.3", "torch 2.1.0"), ("torchao>0.16.0", "torchao==0.10.0"),
                   ("peft>=0.14.0,<=0.15.2", "peft==0.17.1")]
