"""Sentences in which a library states that the installed release of itself or of another package is not the one the
code, the file or the binary needs (e-ver3, issue 26): data, no logic.

Each entry is (regex, title, fix, source). The regex is written from the raise/log statement named in `source` and
covers its spellings (line wraps, doubled spaces, the versions it interpolates); named groups `lib`, `need`, `have`,
`file` are put into the title and fix. explain reads a root another family's rule took (a model file's loader, a
dataset reader, an unknown exception) as version_check when its line is one of these: the fix is another release.
"""
from __future__ import annotations

_WS = r"\s+"

# the packages of the stack, as the libraries' messages spell them, for the requirement phrases below (a version
# number after another word - `compute capability >= 8.0`, `world_size >= 2` - is not a release)
_PKG = (r"(?P<lib>(?i:torch|pytorch|transformers|accelerate|peft|trl|deepspeed|vllm|flash[-_ ]?attn(?:ention)?|"
        r"flashattention|bitsandbytes|datasets|triton|xformers|numpy|rocm|cuda|python|tokenizers|safetensors|"
        r"huggingface[-_]hub|liger[-_]kernel|unsloth|megatron[-_]core|apex|torchvision|torchaudio|diffusers|optimum|"
        r"pydantic|protobuf|jax|jaxlib|tensorflow|torchao|ms-swift|swift))")
_VER = r"v?(?P<need>\d+(?:\.\d+)+|\d+\.x)"

# A requirement stated in the library's own words (the spellings of `raise ValueError(...)` / `ImportError` version
# gates across the stack's source: accelerate `FSDP2 is only available in PyTorch 2.4 and later`, transformers
# `... is only supported from transformers v4.49.0`, `Unsupported transformers version X; minimum supported is Y`,
# `deepspeed X is incompatible with torch Y`). Raised from a library's frame they read like a refused setting; the
# fix is another release, so they are the versions.
REQUIREMENT_PHRASES: tuple[str, ...] = (
    r"\bonly (?:available|supported|works?|compatible|implemented)\b[^.\n]{0,40}?\b(?:in|from|for|with|since|on|by) "
    + _PKG + r"\s*(?:version\s*)?(?:>=?\s*)?" + _VER,
    _PKG.replace("?P<lib>", "?:") + r"\s*(?:version\s*)?(?:==\s*)?v?\d+(?:\.\d+)+\S*\s*(?:is|are) (?:incompatible|"
    r"not compatible) with " + _PKG + r"\s*(?:version\s*)?" + _VER,
    r"\b(?:[Uu]nsupported|[Ii]ncompatible) " + _PKG + r" version\b[^;\n]*?[;,]\s*(?:the )?minimum (?:supported |required )"
    r"(?:version )?(?:is )?" + _VER,
)
REQUIREMENT_TITLE = ("{lib} {need} (or another release than the installed one) is what the library states it needs: the "
                     "installed {lib} is not that release")
REQUIREMENT_FIX = ("install the {lib} release the message names ({need}; `pip show {lib}` names the installed one), "
                   "within the range the runner pins, or the release of the calling library made for the installed "
                   "{lib}")

RELEASE_GATES: tuple[tuple[str, str, str, str], ...] = (
    (r"require users to upgrade (?P<lib>torch) to at least v?(?P<need>\d+(?:\.\d+)*)",
     "transformers refuses torch.load under torch < {need} (CVE-2025-32434): the installed torch is older than the "
     "transformers release needs for .bin/.pt files",
     "upgrade torch to >= {need} (the wheel for this ROCm/CUDA, `pip install -U torch --index-url "
     "https://download.pytorch.org/whl/rocmX.Y`), or use the model's safetensors weights (the check does not apply "
     "to them), or the transformers release before the check (< 4.50) with the installed torch",
     "transformers/utils/import_utils.py check_torch_load_is_safe (4.50+): `Due to a serious vulnerability issue in "
     "torch.load, even with weights_only=True, we now require users to upgrade torch to at least v2.6`"),
    (r"cuDNN version incompatibility: PyTorch (?:was )?compiled" + _WS + r"against" + _WS +
     r"\((?P<need>[\d,\s]+)\)" + _WS + _WS.join(("but", "found", "runtime", "version")) + _WS + r"\((?P<have>[\d,\s]+)\)",
     "torch was built against cuDNN ({need}) but loaded cuDNN ({have}): another cuDNN release (LD_LIBRARY_PATH, a "
     "system or conda cudnn) shadows the one the wheel bundles",
     "remove the other cuDNN from LD_LIBRARY_PATH (or uninstall the system/conda cudnn) so torch loads the one its "
     "wheel bundles, or install the torch build made for that cuDNN",
     "torch/backends/cudnn/__init__.py _init: `cuDNN version incompatibility: PyTorch was compiled  against {} but "
     "found runtime version {}`"),
    (r"This program was compiled against version (?P<need>[\d.]+) of the Protocol Buffer runtime library, which is "
     r"not compatible with the installed version \((?P<have>[\d.]+)\)",
     "a binary was compiled against protobuf {need} but protobuf {have} is installed",
     "install the protobuf release the binary was built with ({need}), or the release of the package carrying the "
     "binary made for protobuf {have}",
     "protobuf src/google/protobuf/stubs/common.cc VerifyVersion"),
    (r"`(?P<name>np\.\w+)` was removed in the NumPy (?P<need>\d+\.\d+) release",
     "the code uses {name}, which NumPy {need} removed: it was written for NumPy < {need} and NumPy {need}+ is installed",
     "install numpy < {need} (`pip install 'numpy<{need}'`) or the release of the calling package made for NumPy "
     "{need} (the message names the replacement)",
     "numpy/__init__.py __getattr__ (2.0+): __expired_attributes__ -> `np.{attr}` was removed in the NumPy 2.0 "
     "release. {msg}"),
    (r"Unable to avoid copy while creating an array as requested",
     "NumPy 2 changed np.array(..., copy=False) to refuse a copy: the calling code was written for NumPy 1.x",
     "install numpy < 2 (`pip install 'numpy<2'`) or the release of the calling package made for NumPy 2 (it uses "
     "np.asarray)",
     "numpy/_core/src/multiarray (2.0+): `Unable to avoid copy while creating an array as requested. If using "
     "np.array(obj, copy=False) replace it with np.asarray(obj) ... (no behavior change in NumPy 1.x)`"),
    (r"(?P<lib>Dataset) scripts are no longer supported, but found (?P<file>\S+)",
     "datasets 4.0 removed loading scripts and the dataset is a script ({file}): the run was written for datasets < 4",
     "install datasets < 4.0 (`pip install 'datasets<4'`) for script datasets, or load the dataset's Parquet/JSON "
     "files (the Hub's refs/convert/parquet branch) with the installed release",
     "datasets src/datasets/load.py at 4.0.0: `raise RuntimeError(f\"Dataset scripts are no longer supported, but "
     "found {filename}\")`"),
    (r"`trust_remote_code` is not supported anymore",
     "datasets 4.0 dropped trust_remote_code (loading scripts): the run was written for datasets < 4",
     "install datasets < 4.0 (`pip install 'datasets<4'`) for script datasets, or load the dataset's Parquet/JSON "
     "files with the installed release and drop trust_remote_code",
     "datasets src/datasets/load.py at 4.0.0 load_dataset_builder: logger.error(\"`trust_remote_code` is not "
     "supported anymore...\")"),
)

# A public class of the ML libraries, by the suffixes their names take (transformers' model, config, tokenizer and
# processor classes, TRL's and transformers' trainers and their *Config/*Arguments, accelerate's Accelerator and state
# objects, DeepSpeed's engines, PEFT's models, vLLM's LLM/engine classes) or a user subclass of one (`XGRPOTrainer`).
# `AttributeError: '<class>' object has no attribute '<name>'` on such an object, with nothing else known of the
# failure, is code written for another release of the class's library (the attribute was added or removed between
# releases: Accelerator.gather_for_metrics in accelerate 0.12, the trainers' attributes between TRL releases).
LIBRARY_CLASS_SUFFIXES = (
    r"For[A-Z]\w*", r"PreTrainedModel", r"(?:Causal)?LM", r"Model", r"Config", r"Trainer", r"Arguments",
    r"Accelerator", r"AcceleratorState", r"PartialState", r"Engine", r"Processor", r"Tokenizer(?:Fast)?",
    r"Pipeline", r"Collator\w*", r"Callback",
)
INCOMPATIBLE_TITLE = ("the library states it is incompatible with the installed {lib} {need}: the two releases do not "
                      "belong together")
INCOMPATIBLE_FIX = ("install a {lib} release the library supports (its requirements name the range), or the release of "
                    "the library made for {lib} {need}")
RELEASE_GATES += tuple((rx, INCOMPATIBLE_TITLE if "incompatible|" in rx else REQUIREMENT_TITLE,
                        INCOMPATIBLE_FIX if "incompatible|" in rx else REQUIREMENT_FIX,
                        "the stack's version-gate raise statements") for rx in REQUIREMENT_PHRASES)
