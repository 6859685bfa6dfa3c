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
