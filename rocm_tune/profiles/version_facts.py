"""How logs and the files beside them show which release of a package is installed (e-ver4, issue 26): data, no logic.

Each pattern has the groups `name` (the package as the tool spells it) and `ver` (its version). The spellings come from
the tools that print them:
- `pip list` / `conda list` (a name, spaces, the version, for conda its build and channel), `pip freeze` and a
  requirements file (`name==ver`), torch/utils/collect_env.py's `[pip3] torch==2.1.0` / `[conda] torch 2.1.0 pypi_0`;
- the env reports: transformers-cli env (`- \\`transformers\\` version: 4.46.1`, `- PyTorch version (GPU?): 2.4.0+cu121
  (True)`, `- Accelerate version: 1.0.1`), accelerate env (`- \\`Accelerate\\` version: 0.34.2`), llamafactory-cli env
  (`- PEFT version: 0.12.0`, `- TRL version: 0.9.6`), collect_env (`PyTorch version: 2.1.0+rocm5.6`), ds_report
  (`torch version .................... 2.1.0+rocm5.6`, `deepspeed info ................... 0.12.3, unknown, unknown`);
- banners: DeepSpeed's `DeepSpeed info: version=0.12.3`, Unsloth's `Unsloth 2025.3.14: Fast Qwen2 patching.
  Transformers: 4.49.0. vLLM: 0.7.3.` / `Torch: 2.6.0+cu124. CUDA: 8.0. ... Triton: 3.2.0` / `Xformers = 0.0.29`,
  vLLM's `vLLM API server version 0.6.3` and `Initializing an LLM engine (v0.6.3)`, `X.__version__` printed,
  `python -m bitsandbytes` (`=== bitsandbytes v0.45.0 ===`, `PyTorch: 2.5.1+rocm6.2`, `  transformers: 4.46.1`);
- pip's install output and wheel/site-packages names: `Successfully installed peft-0.12.0 trl-0.9.6`,
  `Requirement already satisfied: transformers==4.46.1 in ...` / `... transformers in /venv/... (4.46.1)`,
  `flash_attn-2.7.4.post1+cu12torch2.6cxx11abiFALSE-cp311-cp311-linux_x86_64.whl`, `torch-2.1.0+rocm5.6.dist-info`.
"""
from __future__ import annotations

# the stack's packages, as tools spell them (lower-cased, `_`/`.` as `-`) -> the name the pins use
ALIASES: dict[str, str] = {
    "torch": "torch", "pytorch": "torch", "transformers": "transformers", "accelerate": "accelerate",
    "peft": "peft", "trl": "trl", "datasets": "datasets", "tokenizers": "tokenizers", "deepspeed": "deepspeed",
    "bitsandbytes": "bitsandbytes", "flash-attn": "flash-attn", "flash-attention": "flash-attn",
    "huggingface-hub": "huggingface-hub", "safetensors": "safetensors", "triton": "triton",
    "pytorch-triton-rocm": "triton", "xformers": "xformers", "vllm": "vllm", "unsloth": "unsloth",
    "unsloth-zoo": "unsloth-zoo", "llamafactory": "llamafactory", "llmtuner": "llamafactory", "llm": "vllm",
    "torchvision": "torchvision", "ms-swift": "ms-swift", "swift": "ms-swift", "axolotl": "axolotl", "liger-kernel": "liger-kernel",
}
_NAME = (r"(?P<name>(?i:torchvision|torch|pytorch|transformers|accelerate|peft|trl|datasets|tokenizers|deepspeed|bitsandbytes|"
         r"flash[-_]attn|flash[-_]attention|huggingface[-_]hub|safetensors|triton|pytorch[-_]triton[-_]rocm|xformers|"
         r"vllm|unsloth|unsloth[-_]zoo|llamafactory|llmtuner|ms[-_]swift|swift|axolotl|liger[-_]kernel))")
# a release: parts without leading zeros, none but the first (a year: Unsloth 2025.3.14) above 999, never a size
# (`torch: 96.00 GiB`) or a HIP build number (`6.0.32830`)
VER = (r"(?P<ver>(?:[1-9]\d{0,3}|0)(?:\.(?:[1-9]\d{0,2}|0)(?!\d))+(?!\.?\d)(?:[._-]?(?:post|dev|rc|a|b)\d*)*(?:\+\w+(?:\.\w+)*)?)"
       r"(?![\d.]*\s*(?:[GMK]i?B|%)\b)")

FACT_PATTERNS: tuple[str, ...] = (
    # pip list / conda list / collect_env's [pip3] [conda] lines / a requirements file / pip freeze
    r"^[ \t|]*(?:\[(?:pip3?|conda)\][ \t]+)?" + _NAME + r"(?:[ \t]+|[ \t]*===?[ \t]*)v?" + VER + r"(?=[ \t]|$)",
    # env reports and banners: `- \`transformers\` version: 4.46.1`, `PyTorch version (GPU?): 2.1.0 (True)`,
    # `torch version ........ 2.1.0`, `Transformers: 4.49.0.`, `Xformers = 0.0.29`
    r"(?:^|(?<!used to build)(?<!\bby)[\s`*\-|.,\[])`?" + _NAME + r"`?(?:[ \t]+version)?(?:[ \t]*\(GPU\?\))?(?:[ \t]*:|[ \t]*=|[ \t]*\.{3,})[ \t]*v?"
    + VER,
    r"\b(?P<name>deepspeed) info\s*\.{3,}\s*" + VER,
    r"\b(?P<name>DeepSpeed) info: version=" + VER,
    r"\b(?P<name>Unsloth) (?P<ver>20\d\d\.\d+\.\d+)\b",
    # `python -m bitsandbytes` (diagnostics/main.py print_header(f"bitsandbytes v{bnb_version}"), '=' filled)
    r"={3,} " + _NAME + r" v" + VER + r" ={3,}",
    r"\b(?P<name>vLLM) API server version " + VER,
    r"Initializing an? (?:V1 )?(?P<name>LLM) engine \(v" + VER + r"\)",
    # `print(torch.__version__)` then its output, the REPL's echo (`>>> torch.__version__` / `'2.1.2+rocm5.6'`),
    # `torch.__version__ = 2.1.0` (never one of several printed together: which number is whose is not shown)
    r"print\(\s*" + _NAME + r"\.__version__\s*\)\W{0,8}" + VER,
    r"\b" + _NAME + r"\.__version__[ \t]*(?:[:=]|->)?[ \t]*\n?[ \t]*['\"]?" + VER,
    # pip: `Requirement already satisfied: transformers==4.46.1 in` / `... transformers in /path (4.46.1)`
    # (`... torch<3,>=2.3 in /venv/... (from bitsandbytes) (2.4.0)`)
    r"Requirement already satisfied: " + _NAME + r"(?:==" + VER + r"|(?:\[[^\]]*\])?(?:[<>=!~]\S*)? in \S+"
    r"(?: \(from [^)]*\))? \(" + VER.replace("?P<ver>", "?P<ver2>") + r"\))",
    # uv's install diff (` + torch==2.5.1`; ` - torch==2.4.0` is the one removed) and poetry's
    # (`  - Installing transformers (4.46.1)`, `  - Updating transformers (4.40.0 -> 4.46.1)`)
    r"^ \+ " + _NAME + r"==" + VER,
    r"^\s*- (?:Installing|Updating|Downgrading) " + _NAME + r" \((?:[^)\n]*-> )?" + VER + r"\)",
    # transformers' require_version (utils/versions.py _compare_versions): `... is required ..., but found X==1.2.`
    r"\bbut found " + _NAME + r"==" + VER,
    # `PyTorch version 1.4.0` in prose-like reports
    r"\b" + _NAME + r"[ \t]+version[ \t]+v?" + VER,
    # wheel and site-packages names: flash_attn-2.7.4.post1+cu12torch2.6cxx11abiFALSE-cp311-..., torch-2.1.0.dist-info
    r"(?:^|[\s/\\=\"'(])" + _NAME + r"-" + VER + r"(?=-(?:py|cp)\d|\.dist-info|\.egg-info|\.tar\.gz|\.whl)",
)
# `Successfully installed a-1.0 b-2.0` (pip's last line of an install): each name-version of it
INSTALLED_LINE = r"Successfully installed ([^\n]+)"
INSTALLED_ITEM = _NAME + r"-" + VER + r"$"
# lines that name a release being replaced, not the one installed
REPLACED = (r"Found existing installation:|Successfully uninstalled|Attempting uninstall|Uninstalling |"
            r"requires [^\n]*but you have")

# flash-attn's release wheels name the torch and the C++ ABI they were built for (its setup.py get_wheel_url:
# f"{PACKAGE_NAME}-{flash_version}+cu{cuda}torch{torch_version}cxx11abi{abi}-{python}-{python}-{platform}.whl")
FA_WHEEL = (r"\bflash_attn-(?P<fa>\d+\.\d+\.\d+(?:\.post\d+)?)\+cu\d+torch(?P<torch>\d+\.\d+)cxx11abi(?P<abi>TRUE|FALSE)")
# torch's own ABI, as printed: `torch._C._GLIBCXX_USE_CXX11_ABI` -> True/False
TORCH_ABI = r"_GLIBCXX_USE_CXX11_ABI\W{0,20}(?P<abi>True|False)\b"

# pip's own report of a pair it left incompatible (src/pip/_internal/commands/install.py _warn_about_conflicts since
# pip 20.3: `{name} {version} requires {req}, but you have {dep} {dep_version} which is incompatible.`; pip 10 - 20.2
# and `pip check`: `{name} {version} has requirement {req}, but you have {dep} {dep_version}.`)
PIP_CONFLICT = (r"(?P<lib>[A-Za-z][\w.-]*) (?P<lv>\d[\w.+!-]*) (?:requires|has requirement) (?P<dep>[A-Za-z][\w.-]*)"
                r"(?:\[[^\]]*\])?(?P<spec>[^,\n]*(?:,[<>=!~][^,\n]*)*), but you have (?P<dep2>[A-Za-z][\w.-]*) "
                r"(?P<have>\d[\w.+!-]*?)(?: which is incompatible)?\.?$")

# torchvision's README, "the corresponding torchvision versions": each torchvision release is built for one torch
# release (torch 2.3 - 0.18, 2.2 - 0.17, 2.1 - 0.16, 2.0 - 0.15; 1.13 - 0.14 ... 1.5 - 0.6, 1.4 - 0.5); the 2.x rows go on
# the same way in later READMEs (2.4 - 0.19 ... 2.9 - 0.24): torch (major, minor) -> torchvision (0, minor)
def torchvision_for(torch: tuple[int, int]) -> tuple[int, int] | None:
    major, minor = torch
    if major == 2:
        return (0, 15 + minor)
    if major == 1 and minor >= 4:
        return (0, minor + 1)
    return None

# A comment that states the environment a script ran in, in prose (`# ... (lab env: CUDA 12.4, PyTorch 2.4, PEFT 0.11,
# Transformers 4.44)`, `# LoRA on Llama-3-70B (transformers 4.38.2, peft)`): the package's name, a space, its release.
# Read for transformers only (core/runners/hf_loss.py), not among FACT_PATTERNS (explain reads logs, not comments).
# Not a bound (`transformers 4.46+`, `4.46 or later / or newer / and above`), nor after a word that makes it one
# (`requires`, `needs`, `since`, `from`, `before`, `until`, `>=`).
COMMENT_STATED = (r"(?im)^[ \t]*(?:#|//|--)[^\n]*?(?<!requires )(?<!require )(?<!needs )(?<!need )(?<!since )"
                  r"(?<!from )(?<!before )(?<!until )(?<!after )\b(?P<name>transformers)[ \t]+v?"
                  r"(?P<ver>\d+\.\d+(?:\.\d+)?)\b(?![.\d]*[ \t]*(?:\+|or (?:later|newer|above|higher)|and (?:later|newer|above)))")
