"""Names the libraries (and Python) removed or renamed between releases (e-skew2, issue 26): data, no logic.

Each entry was read from the library's source at the releases named (the git tags of huggingface/peft, accelerate,
trl; transformers' wheels 4.41.2 4.45.2 4.46.3 4.51.3 4.57.6 5.0.0; the removals' own deprecation messages), or from
the release notes named in `source`. A log that fails on one of them (`cannot import name`, `module ... has no
attribute`, `No module named`, `got an unexpected keyword argument`) was written for the release that had it.
"""
from __future__ import annotations

# (library, shape, name, callee regex (kwarg shape) or "", last release that has it, first release without it,
#  the installed release's replacement, source). shape: "import" (a name imported or looked up on the library's
#  module: cannot import name / module has no attribute / No module named), "kwarg" (a keyword the callee no longer
#  takes). "first without" is the first release read without the name (its removal is in or before it).
REMOVED_NAMES: tuple[tuple[str, str, str, str, str, str, str, str], ...] = (
    ("peft", "import", "prepare_model_for_int8_training", "", "0.9.0", "0.10.0", "prepare_model_for_kbit_training",
     "peft src/peft/utils/other.py at v0.9.0 (deprecation warning), absent at v0.10.0"),
    ("transformers", "import", "AdamW", "", "4.46.3", "4.51.3", "torch.optim.AdamW",
     "transformers/optimization.py in the 4.46.3 wheel, absent from 4.51.3's"),
    ("transformers", "kwarg", "tokenizer", r"(?:Seq2Seq)?Trainer", "4.57.6", "5.0.0",
     "processing_class= (transformers >= 4.46 takes it)",
     "transformers/trainer.py: @deprecate_kwarg('tokenizer', new_name='processing_class') in 4.46.3-4.57.6, gone "
     "in 5.0.0"),
    ("trl", "kwarg", "tokenizer", r"(?:SFT|DPO|ORPO|KTO|CPO|Reward)Trainer", "0.11.4", "0.12.0", "processing_class=",
     "trl/trainer/{sft,dpo,orpo,kto,cpo,reward}_trainer.py __init__ at v0.11.4 and v0.12.0"),
    ("transformers", "kwarg", "evaluation_strategy", r"\w*TrainingArguments|\w*Config", "4.46.3", "4.51.3",
     "eval_strategy= (transformers >= 4.41)", "transformers/training_args.py in the 4.46.3 and 4.51.3 wheels"),
    ("transformers", "kwarg", "use_auth_token", r"\w+", "4.57.6", "5.0.0", "token= (transformers >= 4.35)",
     "transformers/modeling_utils.py in the 4.57.6 and 5.0.0 wheels"),
    ("accelerate", "kwarg", "dispatch_batches", r"Accelerator", "0.34.2", "1.0.0",
     "dataloader_config=DataLoaderConfiguration(dispatch_batches=...) (accelerate >= 0.28)",
     "src/accelerate/accelerator.py at v0.34.2 and v1.0.0"),
    ("accelerate", "kwarg", "split_batches", r"Accelerator", "0.34.2", "1.0.0",
     "dataloader_config=DataLoaderConfiguration(split_batches=...) (accelerate >= 0.28)",
     "src/accelerate/accelerator.py at v0.34.2 and v1.0.0"),
    ("accelerate", "kwarg", "even_batches", r"Accelerator", "0.34.2", "1.0.0",
     "dataloader_config=DataLoaderConfiguration(even_batches=...) (accelerate >= 0.28)",
     "src/accelerate/accelerator.py at v0.34.2 and v1.0.0"),
    ("accelerate", "kwarg", "use_seedable_sampler", r"Accelerator", "0.34.2", "1.0.0",
     "dataloader_config=DataLoaderConfiguration(use_seedable_sampler=...) (accelerate >= 0.28)",
     "src/accelerate/accelerator.py at v0.34.2 and v1.0.0"),
    ("trl", "kwarg", "dataset_text_field", r"SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(dataset_text_field=...)",
     "trl/trainer/sft_trainer.py __init__ at v0.12.x and v0.13.0 (#2306 removed the deprecated arguments)"),
    ("trl", "kwarg", "max_seq_length", r"SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(max_length=...) (trl >= 0.20)",
     "trl/trainer/sft_trainer.py __init__ at v0.12.x and v0.13.0"),
    ("trl", "kwarg", "packing", r"SFTTrainer", "0.12.2", "0.13.0", "SFTConfig(packing=...)",
     "trl/trainer/sft_trainer.py __init__ at v0.12.x and v0.13.0"),
    ("trl", "kwarg", "max_seq_length", r"SFTConfig", "0.19.1", "0.20.0", "max_length=",
     "trl/trainer/sft_config.py at v0.19.1 and v0.20.0"),
    ("torch", "import", "torch._six", "", "1.13.1", "2.0.0",
     "math.inf / collections.abc / str (what torch._six re-exported); DeepSpeed >= 0.8.2 and Megatron releases "
     "after the removal no longer import it", "torch 2.0 removed torch._six; DeepSpeed deepspeed/runtime/utils.py "
     "imports it under try/except from v0.8.2 (v0.8.1: three plain imports)"),
    ("torchvision", "import", "torchvision.transforms.functional_tensor", "", "0.16.2", "0.17.0",
     "torchvision.transforms.functional (rgb_to_grayscale ...) in the importing code, or torchvision < 0.17",
     "torchvision 0.17 release notes (the private functional_tensor module removed)"),
    ("numpy", "import", "float", "", "1.23.5", "1.24.0", "float / np.float64",
     "numpy 1.24.0 release notes (the np.float/int/bool/object/str aliases deprecated in 1.20 removed)"),
    ("numpy", "import", "int", "", "1.23.5", "1.24.0", "int / np.int64", "numpy 1.24.0 release notes"),
    ("numpy", "import", "bool", "", "1.23.5", "1.24.0", "bool / np.bool_", "numpy 1.24.0 release notes"),
    ("numpy", "import", "object", "", "1.23.5", "1.24.0", "object / np.object_", "numpy 1.24.0 release notes"),
    ("numpy", "import", "float_", "", "1.26.4", "2.0.0", "np.float64", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "NaN", "", "1.26.4", "2.0.0", "np.nan", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "Inf", "", "1.26.4", "2.0.0", "np.inf", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "string_", "", "1.26.4", "2.0.0", "np.bytes_", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "unicode_", "", "1.26.4", "2.0.0", "np.str_", "numpy 2.0 migration guide (NEP 52)"),
    ("numpy", "import", "complex_", "", "1.26.4", "2.0.0", "np.complex128", "numpy 2.0 migration guide (NEP 52)"),
)

# The standard-library modules Python removed, by the release that removed them (PEP 594 and What's New in Python
# 3.10, 3.11, 3.12, 3.13): `No module named 'distutils'` under 3.12 is the interpreter's release, not a package to
# install (setuptools >= 60 ships a distutils shim; the package's newer release no longer imports it)
PYTHON_REMOVED_MODULES: dict[str, str] = {
    **dict.fromkeys(("formatter", "parser", "symbol"), "3.10"),
    "binhex": "3.11",
    **dict.fromkeys(("distutils", "imp", "asynchat", "asyncore", "smtpd"), "3.12"),
    **dict.fromkeys(("aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "mailcap", "msilib", "nis",
                     "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib",
                     "lib2to3"), "3.13"),
}
