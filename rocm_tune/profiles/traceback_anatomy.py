"""e-ver3 (issue 26): the anatomy of a Python traceback - who owns each frame, which frames only pass a call on, and
the shapes of the exception line that tell a release mismatch between two packages from a value the user gave
(data; the logic is rocm_tune/core/runs/diagnose/traceback_anatomy.py). FAMILIES.md "Amended border rules" / "Rule
1, refined": an API or key changed between releases, a library bug fixed in a newer release -> version_check; a value
wrong for every version -> config_error. Every table below is written from the raising code (CPython's own messages,
and the `raise ValueError/TypeError` statements the libraries use to refuse a user's value).
"""

from __future__ import annotations

# Where installed code lives: pip/conda's site-packages and Debian's dist-packages (the package is the first folder
# or module under it), a model's remote code that transformers copies to the modules cache
# (~/.cache/huggingface/modules/transformers_modules/<repo>/modeling_x.py, HF_MODULES_CACHE), and ms-swift/unsloth's
# generated trainer sources (unsloth_compiled_cache/).
INSTALLED = r"[/\\](?:site|dist)-packages[/\\](\w+)"
REMOTE_CODE = r"[/\\]transformers_modules[/\\]"
GENERATED_CODE = r"[/\\]unsloth_compiled_cache[/\\]"
# The interpreter's standard library (/usr/lib/python3.10/json/decoder.py, conda's lib/python3.11/, pyenv's, a
# Windows Lib\), and frozen modules (<frozen runpy>, <frozen importlib._bootstrap>).
STDLIB = r"(?:[/\\]lib[/\\]python3(?:\.\d+)?[/\\]|[/\\]Lib[/\\]|^<frozen )(?!.*(?:site|dist)-packages)([\w]+)?"
# Packages installed editable from a checkout (`pip install -e .`): the package folder in the repository (src layout
# or flat: LLaMA-Factory/src/llamafactory/, ms-swift/swift/, trl/trl/, transformers/src/transformers/,
# DeepSpeed/deepspeed/, Megatron-LM/megatron/, verl/verl/...). A folder of these names followed by a further folder
# or module of the package, outside site-packages.
EDITABLE_PACKAGES = ("llamafactory", "swift", "trl", "transformers", "peft", "accelerate", "deepspeed", "megatron",
                     "verl", "openrlhf", "axolotl", "torchtune", "torchtitan", "unsloth", "unsloth_zoo", "vllm",
                     "diffusers", "flash_attn", "bitsandbytes", "xformers", "triton", "liger_kernel", "primus",
                     "lightning", "pytorch_lightning", "sglang", "fla", "nemo", "optimum", "auto_gptq", "gptqmodel",
                     "awq", "transformer_engine", "apex", "torch", "datasets", "tokenizers")
# Launchers and console scripts (bin/torchrun, bin/accelerate, bin/deepspeed, bin/llamafactory-cli, bin/swift ...):
# their frames start the run, they are not where the error is.
ENTRY = r"[/\\]bin[/\\][\w.-]+$|^<frozen runpy>$|^<string>$|^<stdin>$"

# Frames that only pass a call on (the caller is the frame before them): torch's Module.__call__ (_call_impl,
# _wrapped_call_impl), its no-grad/autocast decorators, dynamo's frame wrapper, accelerate's forward hooks,
# transformers' decorators (utils/generic.py, utils/deprecation.py, can_return_tuple, check_model_inputs),
# huggingface_hub's (validate_hf_hub_args, _deprecate_arguments: utils/_validators.py, utils/_deprecation.py), functools.
DISPATCH_FRAMES = (
    r"torch[/\\]nn[/\\]modules[/\\]module\.py (?:_call_impl|_wrapped_call_impl|__call__)$",
    r"torch[/\\]utils[/\\]_contextlib\.py decorate_\w+$",
    r"torch[/\\]_dynamo[/\\]eval_frame\.py _fn$",
    r"torch[/\\]amp[/\\]autocast_mode\.py decorate_autocast$",
    r"accelerate[/\\]hooks\.py new_forward$",
    r"accelerate[/\\]utils[/\\]operations\.py (?:forward|__call__)$",
    r"transformers[/\\]utils[/\\](?:generic|deprecation)\.py \w+$",
    r"huggingface_hub[/\\]utils[/\\]_(?:validators|deprecation)\.py \w+$",
    r"[/\\]functools\.py \w+$",
)

# The exception shapes CPython gives a call written for another release of the callee (Objects/call.c, Python/
# ceval.c, Python/getargs.c: `f() got an unexpected keyword argument 'x'`, `f() takes 2 positional arguments but 3
# were given`, `f() missing 1 required positional argument: 'x'`, `got multiple values for argument`), a name a module
# no longer/not yet has (Objects/moduleobject.c `module 'x' has no attribute 'y'`; Python/import.c `cannot import
# name 'y' from 'x'`): raised where installed code calls another package, the two packages' releases do not fit.
# Group 1 is the callee or the module.
DRIFT_SHAPES = (
    r"\bTypeError: ([\w.]+)\(\) got an unexpected keyword argument '\w+'",
    r"\bTypeError: ([\w.]+)\(\) takes (?:from \d+ to )?\d+ positional arguments? but \d+ "
    r"(?:were|was) given",
    r"\bTypeError: ([\w.]+)\(\) missing \d+ required (?:positional|keyword-only) arguments?: ",
    r"\bTypeError: ([\w.]+)\(\) got multiple values for (?:keyword )?argument '\w+'",
    r"\bAttributeError: module '([\w.]+)' has no attribute '\w+'",
    r"\bImportError: cannot import name '\w+' from '([\w.]+)'",
)

# A library's own words that it has a defect, not the caller (peft `this should not happen. Please open an issue`,
# transformers `This is a bug, please report`, accelerate/trl `Something went wrong`): the fix is a release with the
# defect fixed.
BUG_CONFESSIONS = (r"\bthis should(?: never| not)? happen\b|\bshould never (?:happen|be reached)\b|"
                   r"\bplease (?:open|file|report|raise|submit) (?:an? |this )?(?:issue|bug)\b|\bthis is a bug\b|"
                   r"\bplease report (?:this|it|the error|a bug)\b|\bsomething went wrong\b|\bunreachable\b")

# How the libraries refuse a value the user set, collected from their raise statements (transformers
# training_args.py __post_init__ and trainer.py, accelerate accelerator.py / utils/dataclasses.py / utils/launch.py,
# peft config.py / peft_model.py / tuners/tuners_utils.py / tuners/*/config.py, trl trainer/*_config.py and
# *_trainer.py, DeepSpeed runtime/config.py / engine.py / zero/config.py, LLaMA-Factory hparams/parser.py and
# *_args.py, ms-swift arguments/ and megatron/arguments/): the sentence shapes those raises share and the catalogue's
# own setting rules do not already read. A message of this shape is config_error by construction.
VALIDATION_SHAPES = (
    # a requirement on the value: `must be called with a function`, `should be a directory, not a file`,
    # `should be same as model's tp size`, `should not contain an empty string`, `must be passed in kwargs`
    r"\b(?:must|should|shall|has to|have to|needs? to) (?:not )?(?:be|have|contain|match|equal|pass|call|specify)\b",
    # `is only applicable to`, `is supported only with SDPA attention`, `Only one model is supported when using FSDP2`,
    # `this function requires ZeRO-3 mode`, `requires an eval_dataset`
    r"\b(?:is |are )?only (?:applicable|supported|valid|allowed|available|possible)\b|"
    r"\b(?:supported|valid|allowed|available) only (?:with|when|for|in|on|if)\b|\b[Oo]nly (?:one|a single) \w+ "
    r"(?:is|are|can be) (?:supported|allowed)\b|\bsupports? only\b|"
    r"\brequires? (?:an? )?(?:[\w-]+ (?:mode|stage)|\w*_?dataset)\b",
    # a feature or value refused outright: `this feature is not supported`, `not yet support`, accelerate's
    # `SageMaker doesn't support argparse actions`, `'x' is not an available tracker`, `which is not a valid target`,
    # a length setting `is too short`
    r"\b(?:is|are) not (?:yet )?supported\b|\bnot yet supported?\b|^\s*Not supported\b|\bdoesn[\u2019']t support\b|"
    r"\b(?:is|are) not an? (?:available|valid|supported|known|allowed)\b|\bis too (?:short|long|small|large|big)\b",
    # a choice that does not exist: `Unknown loss type: 'x'`, `Invalid advantage_estimator: 'x'`, `Unsupported
    # truncation mode: 'x', expected 'keep_start' or 'keep_end'`, `Unsupported model type for adaption prompt: 'x'`,
    # `unsupported optimizer: 'x'`
    r"\b(?:[Uu]nknown|[Ii]nvalid|[Uu]nsupported|[Uu]nrecognized) [\w ]{0,40}?: ['\"`]?[\w./-]+|"
    r"\b[Uu]nexpected [\w ]{0,40}?: ['\"`][\w./-]+",
    # a named thing of the user's that is not there or is there twice: `Adapter 'x' does not exist`, `Adapter with
    # name 'x' already exists`, `Tool 'x' not found`, `Can't find 'adapter_config.json' at 'path'`
    r"'[^'\n]+' (?:does not exist|not found|already exists)\b|\balready exists\b|\b[Cc]an(?:'|no)t find '[^'\n]+' at\b",
    # the other of two ways: `Either specify a scheduler in the config file or pass in ...`, `X can't be `None``,
    # `You can only specify`, `Cannot set a prompt learning adapter to trainable`, `Cannot delete adapter(s)`
    r"\b[Ee]ither \w+ .{1,80}\bor\b|\b(?:can't|cannot|can not) be `?None`?|\bYou can only\b|"
    r"^\s*(?:Cannot|Can't) (?:set|delete|use|specify|combine|pass|load|merge)\b",
)

# The exception types that, raised deep inside a library (its own code is the last frame and no frame of the user's
# comes after the run started), are that library's defect rather than a value: Python's own messages for a variable
# read before it was set, a name the code's imports did not define (a conditional import of another release's name),
# an index past a Python container's end (not a tensor's: `index 5 is out of bounds for dimension 0` is the shape of
# what the code was given), a key a mapping lacks (a registry of another release), a result unpacked to another
# arity, a failed `assert` with its message in the library. The catalogue reads some of these for site-packages
# frames; this reads them for every installed frame (editable checkouts: LLaMA-Factory/src/llamafactory, ms-swift/swift). Not an operation on None (an unset setting reaches code that way).
INTERNAL_BUG = (r"\b(?:UnboundLocalError|NameError|KeyError|RecursionError): |"
                r"\bIndexError: (?:(?:list|tuple|string|deque|range object) index out of range|pop from (?:an )?empty)|"
                r"\bValueError: (?:too many|not enough) values to unpack \(expected \d+|"
                r"\bTypeError: (?:object of type '\w+' has no len\(\)|cannot unpack non-iterable \w+ object)|"
                r"\bAssertionError: ")

# The exception types a library raises to refuse a value (the raise statements the refusal shapes come from:
# ValueError/TypeError, Megatron's and DeepSpeed's asserts, the config libraries' own classes): torch's RuntimeErrors
# about shapes (`The expanded size of the tensor (4096) must match the existing size (2048)`) are not refusals.
REFUSAL_TYPES = r"\b(?:ValueError|TypeError|AssertionError|NotImplementedError|\w*(?:Config|Argument|Validation)\w*Error): "

# A refusal that names the installed release as its reason (unsloth loader.py `Unsloth: {model_name} is not supported
# in your current Unsloth version! Please update Unsloth via: ...`, peft `... is not supported for this version of
# PEFT, please upgrade to peft>=0.9.0`, `please upgrade X`, `pip install -U X`): the release, not the value - read
# before the refusal shapes and over the frame rules that take a config check's raise as the settings. Not `update
# the config to ...` (a setting).
RELEASE_REASON = (r"\b(?:your|the|this) (?:current |installed )?(?:[\w.-]+ ){0,2}(?:version|release)\b|"
                  r"\b(?:[Uu]pgrade|[Dd]owngrade)\b|"
                  r"\b[Uu]pdate (?:your |the )?[`'\"]?(?!(?:config|configuration|settings?|yaml|values?|arguments?|"
                  r"parameters?|options?|code|script)\b)[A-Za-z][\w.-]*[`'\"]? (?:to|via|with|from)\b|"
                  r"\bpip install (?:-U|--upgrade)\b|"
                  # e-skew2 (issue 26): a name or option a release removed, in the removal's own words (numpy's
                  # `np.float_` was removed in the NumPy 2.0 release, transformers' `load_in_8bit` is no longer
                  # supported as an argument, torch's `... has been removed. Please use ...`): another release has it
                  r"\b(?:has|have) been (?:deprecated and )?removed\b|\b(?:was|were|is|are) removed in\b|"
                  r"\b(?:is|are) no longer (?:supported|available)\b|\bno longer exists?\b")
