"""A plain transformers ``Trainer`` script (transformers 5, PEFT): what its defaults load and run.

transformers 5 loads with ``dtype="auto"`` (the checkpoint's config.json dtype) unless told otherwise;
``TrainingArguments(bf16=True / fp16=True)`` turns on torch autocast and casts nothing; PEFT's
``get_peft_model`` upcasts 16-bit adapters to fp32 (``autocast_adapter_dtype=True``). So full and freeze
fine-tuning train the weights in the checkpoint's dtype (optimizer moments in that dtype too), LoRA
adapters train in fp32, and "fp32" on a bf16 checkpoint computes in bf16.
"""

from __future__ import annotations

from rocm_tune.core.errors import UserError
from rocm_tune.core.runners import Fact, Regime, checkpoint_dtype

FACTS = (
    Fact('from_pretrained dtype defaults to "auto": the dtype config.json names',
         "huggingface/transformers:src/transformers/modeling_utils.py (PreTrainedModel.from_pretrained)",
         "v5.23.0"),
    Fact("bf16/fp16 training arguments enable torch autocast; the model is not cast",
         "huggingface/transformers:src/transformers/trainer.py (autocast_smart_context_manager)", "v5.23.0"),
    Fact("get_peft_model(..., autocast_adapter_dtype=True) upcasts fp16/bf16 adapter weights to fp32",
         "huggingface/peft:src/peft/tuners/tuners_utils.py (_cast_adapter_dtype)", "v0.18.1"),
)


def regime(model, cfg) -> Regime:
    ckpt = checkpoint_dtype(model)
    p = cfg.precision
    if p == "pure_bf16":
        raise UserError("runner 'hf' has no pure_bf16 regime (a plain Trainer with bf16 weights and "
                        "fp32 adapters); use --runner llamafactory or builtin for pure_bf16")
    trainable = "fp32" if cfg.is_lora else ckpt
    autocast = p if p in ("bf16", "fp16") else None
    compute = p if autocast else (trainable if cfg.method == "full" else ckpt)
    ignored = (p == "fp32" and (compute != "fp32" or ckpt != "fp32")) or (autocast is not None and trainable != "fp32")
    notes = []
    if ignored:
        notes.append(f'transformers loads the checkpoint\'s {ckpt} weights (dtype="auto") and does not upcast them')
    return Regime("hf", p, ckpt, trainable, compute, autocast, ckpt, ignored, tuple(notes))
