"""Libraries that replace transformers' model forwards with their own (e-new18, issue 26), as their sources name them.

A patched forward is written against one transformers release's signatures: when transformers passes an argument the
patch does not declare (a newer processor's output, a new Trainer kwarg), or the patch calls a transformers module with
the arguments/return values of another release, the call fails at the seam. Each entry: the name the fix uses, the
traceback path of its patch modules, the names its patched forwards carry (as a TypeError names them), and the words
that show it is active in a run (its own log lines, the switch that turns it on).

Sources:
- Liger-Kernel src/liger_kernel/transformers/model/*.py (`lce_forward`, `lce_forward_deprecated`,
  `lce_maybe_trainable_lm_head`), monkey_patch.py (`apply_liger_kernel_to_<model>`, "Apply liger cross entropy",
  MIN_SUPPORTED_TRANSFORMERS_VERSION); pyproject: 0.5 transformers>=4.44.2, 0.6 >=4.49.0, 0.7/0.8 >=4.52.0; the VL
  lce_forwards declare transformers 5.3's `mm_token_type_ids` from 0.8.0 (PRs #1120, #1140). Turned on by
  transformers' TrainingArguments.use_liger_kernel, TRL's use_liger_kernel / use_liger_loss, LLaMA-Factory's
  enable_liger_kernel, axolotl's liger_* keys.
- Unsloth unsloth/models/*.py (`LlamaModel_fast_forward`, `LlamaDecoderLayer_fast_forward`,
  `LlamaAttention_fast_forward`, `CausalLM_fast_forward`, `_fast_prepare_inputs_for_generation`), unsloth_zoo, the
  generated unsloth_compiled_cache/; its banner "Unsloth: Will patch your computer".
- LLaMA-Factory src/llamafactory/model/model_utils/ (longlora.py `llama_attention_forward`,
  `llama_flash_attention_2_forward`, `llama_sdpa_attention_forward`; packing.py), llmtuner's extras/patches.
- axolotl src/axolotl/monkeypatch/ (llama_attn_hijack_flash.py `flashattn_forward`, xformers `xformers_forward`).
- PEFT peft/tuners/ (LoRA layers' forward wrapping the base layer's: `adapter_names`, `*args, **kwargs`).
"""
from __future__ import annotations

# (name, patch-module path regex, patched-function name regex, in-view words regex)
PATCHERS: tuple[tuple[str, str, str, str], ...] = (
    ("liger-kernel", r"liger_kernel[/\\]", r"lce_forward\w*|lce_maybe_trainable_lm_head|liger_\w*forward\w*",
     r"(?i)(?<![a-z])liger(?![a-z])"),
    ("unsloth", r"unsloth(?:_zoo)?[/\\]|unsloth_compiled_cache[/\\]",
     r"\w+_fast_forward\w*|_fast_prepare_inputs_for_generation|unsloth_\w*forward\w*",
     r"(?i)(?<![a-z])unsloth(?![a-z])"),
    ("LLaMA-Factory (model_utils patches)", r"(?:llamafactory|llmtuner)[/\\](?:model[/\\]model_utils|extras[/\\]patches)[/\\]",
     r"llama_(?:flash_attention_2_|sdpa_attention_|attention_)forward\w*|shift_short_attention\w*", r"(?!x)x"),
    ("axolotl (monkeypatch modules)", r"axolotl[/\\]monkeypatch[/\\]", r"flashattn_forward\w*|xformers_forward\w*|"
     r"\w+_hijack\w*", r"(?!x)x"),
    ("PEFT", r"peft[/\\]tuners[/\\]", r"(?!x)x", r"(?!x)x"),
)

# the seam's words: an argument one side passes that the other does not declare, an arity, a return shape
SIGNATURE_ERRORS = (
    r"(?P<func>[\w.]+)\(\) got an unexpected keyword argument '(?P<arg>\w+)'",
    r"(?P<func>[\w.]+)\(\) missing \d+ required (?:positional|keyword-only) arguments?: (?P<arg>'\w+'(?:,? (?:and )?'\w+')*)",
    r"(?P<func>[\w.]+)\(\) takes (?:from \d+ to )?\d+ positional arguments? but \d+ (?:were|was) given",
    r"(?P<func>[\w.]+)\(\) got multiple values for argument '(?P<arg>\w+)'",
    r"(?:too many|not enough) values to unpack \(expected \d+(?:, got \d+)?\)",
)

# transformers' generate() refusing inputs the model's forward does not declare (generation/utils.py
# _validate_model_kwargs): with a patched forward in the run, the patch's signature is the one it read
UNUSED_MODEL_KWARGS = r"The following `model_kwargs` are not used by the model: \[(?P<arg>[^\]]*)\]"

# an attribute of a transformers module the patch reads that this transformers release does not have
# (a builtin's or None's missing attribute is a value the code got, not a release's module)
MISSING_ATTRIBUTE = (r"'(?!NoneType'|str'|int'|float'|bool'|list'|dict'|tuple'|function'|method')(?P<func>\w+)' object "
                     r"has no attribute '(?P<arg>\w+)'")

FIX = {
    "liger-kernel": "install the liger-kernel release made for the installed transformers (each release's pyproject "
                    "and monkey_patch.py name the transformers it supports, e.g. transformers >= 5.3's VL "
                    "mm_token_type_ids need liger-kernel >= 0.8.0: `pip install -U liger-kernel`), or the transformers "
                    "release that liger-kernel release was written for; or run without it (use_liger_kernel=False)",
    "unsloth": "upgrade unsloth and unsloth_zoo together (`pip install -U unsloth unsloth_zoo`) to the release made for "
               "the installed transformers, or install the transformers release the unsloth release pins; delete "
               "unsloth_compiled_cache/ so the patched code is regenerated",
}
FIX_OTHER = ("install the {lib} release written for the installed transformers, or the transformers release it pins "
             "(its requirements name the range); or turn the patch off (flash_attn/shift_attn/xformers options)")
