#!/usr/bin/env python
# Copyright Advanced Micro Devices, Inc.
# SPDX-License-Identifier: MIT
"""
LoRA Fine-tuning GPT-OSS 20B (Pre-quantized) on AMD Strix Halo (GFX1151)

The model comes pre-quantized with Mxfp4, so we don't need additional quantization.
Memory Requirements: ~12-16GB VRAM
"""
import gc
import os
import torch

try:
    import bitsandbytes as _bnb
    if not hasattr(_bnb, "nn"):
        import types
        _bnb.nn = types.ModuleType("nn")
except ImportError:
    pass

from transformers import AutoTokenizer, AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
from trl import SFTConfig, SFTTrainer
from datasets import load_dataset

MODEL = "openai/gpt-oss-20b"  # pre-quantized 4-bit (Mxfp4) model
model_name = MODEL.split("/")[-1]

LORA_R = 64
LORA_ALPHA = 128
LORA_DROPOUT = 0.05
LORA_TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]

LR = 2e-4
EPOCHS = 3
BATCH_SIZE = 4
GRAD_ACCUM_STEPS = 4

print("Loading dataset...")
ds = load_dataset("Abirate/english_quotes", split="train").shuffle(seed=42).select(range(1000))

def format_chat(ex):
    return {"messages": [
        {"role": "user", "content": f"Give me a quote about: {ex['tags']}"},
        {"role": "assistant", "content": f"{ex['quote']} - {ex['author']}"}]}

ds = ds.map(format_chat, remove_columns=ds.column_names).train_test_split(test_size=0.2)

model = AutoModelForCausalLM.from_pretrained(
    MODEL,
    device_map="auto",
    trust_remote_code=True,
    dtype=torch.bfloat16
)
tokenizer = AutoTokenizer.from_pretrained(MODEL, trust_remote_code=True)
tokenizer.model_max_length = 512
if tokenizer.pad_token is None:
    tokenizer.pad_token = tokenizer.eos_token

if hasattr(model, "enable_input_require_grads"):
    model.enable_input_require_grads()

lora_config = LoraConfig(r=LORA_R, lora_alpha=LORA_ALPHA, target_modules=LORA_TARGET_MODULES,
                         lora_dropout=LORA_DROPOUT, bias="none", task_type="CAUSAL_LM", inference_mode=False)
model = get_peft_model(model, lora_config)

_use_bf16 = torch.cuda.is_available() and torch.cuda.is_bf16_supported()

args = SFTConfig(
    output_dir=f"output-{model_name}-qlora",
    packing=False,
    num_train_epochs=EPOCHS,
    per_device_train_batch_size=BATCH_SIZE,
    gradient_accumulation_steps=GRAD_ACCUM_STEPS,
    learning_rate=LR,
    optim="adamw_torch_fused",
    bf16=_use_bf16,
    fp16=not _use_bf16,
    lr_scheduler_type="cosine",
    warmup_ratio=0.03,
    max_grad_norm=0.3,
    logging_steps=5,
    save_strategy="epoch",
    eval_strategy="epoch",
    save_total_limit=2,
    report_to="none",
    dataset_kwargs={"add_special_tokens": False, "append_concat_token": True},
)

trainer = SFTTrainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                     processing_class=tokenizer)
print("Starting QLoRA Fine-tuning...")
torch.cuda.reset_peak_memory_stats()
trainer.train()
print(f"Peak training memory (QLoRA): {torch.cuda.max_memory_allocated()/1e9:.2f} GB")
model.save_pretrained(f"output-{model_name}-qlora")
gc.collect()
