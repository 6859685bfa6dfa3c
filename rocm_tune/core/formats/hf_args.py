"""HF TrainingArguments flags of custom training scripts -> canonical settings (pure).

The script's own arguments are not TrainingArguments; the common ones are mapped and the mapping is
stated in the answer: `--model_max_length` (stanford_alpaca, Baichuan2 fine-tune.py: the tokenizer's
max length) -> cutoff_len; `--use_lora True|False` (Baichuan2 fine-tune.py) -> lora | full;
`--gradient_checkpointing` -> the opposite of LLaMA-Factory's disable_gradient_checkpointing."""

from __future__ import annotations

from rocm_tune.core.formats.common import Setting, as_bool

# native flag -> (canonical key, note stated in the answer or None)
MAPPED = {
    "model_max_length": ("cutoff_len", "--model_max_length read as the sequence length (cutoff_len)"),
    "max_seq_length": ("cutoff_len", "--max_seq_length read as the sequence length (cutoff_len)"),
    "max_length": ("cutoff_len", "--max_length read as the sequence length (cutoff_len)"),
    "use_lora": ("finetuning_type", "--use_lora read as the fine-tuning method (True = lora, False = full)"),
    "lora_r": ("lora_rank", None),
    "lora_rank": ("lora_rank", None),
    "lora_alpha": ("lora_alpha", None),
    "gradient_checkpointing": ("disable_gradient_checkpointing", None),
}
PASSTHROUGH = ("model_name_or_path", "per_device_train_batch_size", "gradient_accumulation_steps",
               "per_device_eval_batch_size", "fp16", "bf16", "deepspeed", "optim", "eval_steps",
               "evaluation_strategy", "eval_strategy", "do_eval", "warmup_steps", "save_total_limit",
               "ddp_timeout", "num_train_epochs", "eval_accumulation_steps", "gradient_checkpointing_kwargs")


def read_flags(flags: dict[str, tuple[str, int]], file: str) -> tuple[dict[str, Setting], list[str]]:
    out: dict[str, Setting] = {}
    notes: list[str] = []
    for k, (v, line) in flags.items():
        if k in MAPPED:
            key, note = MAPPED[k]
            value: object = v
            invert = False
            if key == "finetuning_type":
                b = as_bool(v)
                value = "lora" if b else "full"
            elif key == "disable_gradient_checkpointing":
                b = as_bool(v)
                value = (not b) if b is not None else v
                invert = True
            out[key] = Setting(key, value, file, line, k, "flag", invert)
            if note:
                notes.append(note)
        elif k in PASSTHROUGH:
            out[k] = Setting(k, v, file, line, k, "flag")
    return out, notes


# ------------------------------------------------------------------------------------------- Python source
# A training program that builds its arguments in code (a notebook or blog script): the literal keyword values of
# the calls that decide memory are read with `ast` (nothing is executed), and every default we fill is stated.
ARG_CALLS = ("TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig", "DPOConfig", "ORPOConfig")
# peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING: LoraConfig without target_modules
PEFT_DEFAULT_TARGETS = {"llama": "q_proj,v_proj", "mistral": "q_proj,v_proj", "qwen2": "q_proj,v_proj",
                        "gemma": "q_proj,v_proj", "gemma2": "q_proj,v_proj", "phi3": "qkv_proj"}
NOT_MODELLED_LIBS = {"unsloth": "unsloth patches attention, the loss and gradient checkpointing (activations "
                                "offloaded to the host) with its own kernels"}


def _name(func) -> str:
    import ast

    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _literal(node, names: dict | None = None):
    import ast

    if isinstance(node, ast.Name) and names and node.id in names:
        return names[node.id]                      # base_model_name = "..." earlier in the program
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
            return f"torch.{node.attr}"            # torch_dtype=torch.bfloat16
        return None


def python_program(text: str) -> str | None:
    """Why a Python training program cannot be modelled (a library we do not model), or None."""
    for lib, why in NOT_MODELLED_LIBS.items():
        if f"from {lib} import" in text or f"import {lib}" in text:
            return why
    return None


def read_python(text: str, file: str) -> tuple[dict[str, Setting], list[str]] | None:
    """Settings from a Python training program's literal call arguments, or None when it has no
    TrainingArguments-like call (or does not parse)."""
    import ast

    from rocm_tune.core.errors import UserError
    from rocm_tune.core.files import parse_python

    try:
        tree = parse_python(text, file, "Python program")
    except UserError as exc:
        if "is not valid Python" in str(exc):
            return None
        raise
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    names: dict = {}
    for n in ast.walk(tree):           # simple `name = literal` assignments (the last one wins)
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            v = _literal(n.value)
            if isinstance(v, (str, int, float, bool)):
                names[n.targets[0].id] = v
    args = [c for c in calls if _name(c.func) in ARG_CALLS]
    if not args:
        return None
    flags: dict[str, tuple[str, int]] = {}
    for c in args:
        for kw in c.keywords:
            v = _literal(kw.value, names)
            if kw.arg and v is not None:
                flags[kw.arg] = (str(v), kw.value.lineno)
    notes = [(f"Python program: the literal arguments of {_name(args[0].func)}(...) (line {args[0].lineno}) and of "
              f"the model, LoRA and trainer calls are read; nothing is executed")]
    out, more = read_flags(flags, file)
    notes += more

    def put(key, value, native, line):
        out[key] = Setting(key, value, file, line, native, "flag")

    for c in calls:
        name = _name(c.func)
        kws = {kw.arg: (_literal(kw.value, names), kw.value.lineno) for kw in c.keywords if kw.arg}
        owner = _name(c.func.value) if name == "from_pretrained" and hasattr(c.func, "value") else ""
        if name == "from_pretrained" and any(w in owner for w in ("Tokenizer", "Processor", "Config")):
            continue                                   # the tokenizer's from_pretrained is not the model's
        if name == "from_pretrained" and "model_name_or_path" not in out:
            first = _literal(c.args[0], names) if c.args else kws.get("pretrained_model_name_or_path", (None, 0))[0]
            if isinstance(first, str) and "/" in first:
                put("model_name_or_path", first, "from_pretrained", c.lineno)
                dtype = kws.get("torch_dtype") or kws.get("dtype")
                if dtype is None:
                    put("load_dtype", "fp32", "from_pretrained", c.lineno)
                    notes.append(f"line {c.lineno}: from_pretrained without torch_dtype loads the weights in fp32 "
                                 f"(transformers < 5)")
        if name in ("from_pretrained", "BitsAndBytesConfig"):
            for k, bits in (("load_in_4bit", 4), ("load_in_8bit", 8)):
                if kws.get(k, (None, 0))[0] is True:
                    put("quantization_bit", bits, k, kws[k][1])
        if name == "LoraConfig":
            put("finetuning_type", "lora", "LoraConfig", c.lineno)
            for k, key in (("r", "lora_rank"), ("lora_alpha", "lora_alpha")):
                if isinstance(kws.get(k, (None, 0))[0], int):
                    put(key, kws[k][0], k, kws[k][1])
            t = kws.get("target_modules", (None, 0))[0]
            if isinstance(t, (list, tuple)):
                put("lora_target", ",".join(map(str, t)), "target_modules", kws["target_modules"][1])
            elif t in ("all-linear", "all"):
                put("lora_target", "all", "target_modules", kws["target_modules"][1])
            else:
                put("lora_target", "__peft_default__", "LoraConfig", c.lineno)
        if name in ("SFTTrainer", "Trainer") and "max_seq_length" in kws and kws["max_seq_length"][0] is not None:
            put("cutoff_len", kws["max_seq_length"][0], "max_seq_length", kws["max_seq_length"][1])
            notes.append("SFTTrainer max_seq_length read as the sequence length (cutoff_len)")
        if name == "SFTTrainer" and "cutoff_len" not in out:
            put("cutoff_len", 1024, "SFTTrainer", c.lineno)
            notes.append(f"line {c.lineno}: SFTTrainer without max_seq_length truncates at TRL's default "
                         f"min(model_max_length, 1024): 1024 assumed")
    if "finetuning_type" not in out:
        put("finetuning_type", "full", ARG_CALLS[0], args[0].lineno)
    return out, notes
