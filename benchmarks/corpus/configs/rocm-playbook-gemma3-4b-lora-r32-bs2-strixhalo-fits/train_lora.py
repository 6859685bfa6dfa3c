#!/usr/bin/env python
"""LoRA fine-tuning Gemma 3 4B on AMD Strix Halo (gfx1151) -- playbook script, ~24-32GB VRAM."""
import gc
import os
import torch
from transformers import AutoTokenizer, AutoModelForCausalLM
from peft import LoraConfig, get_peft_model
from trl import SFTConfig, SFTTrainer
from datasets import load_dataset

MODEL = "google/gemma-3-4b-it"
model_name = MODEL.split("/")[-1]

LORA_R = 32          # rank
LORA_ALPHA = 64
LORA_DROPOUT = 0.05
LORA_TARGET_MODULES = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]

LR = 3e-4
EPOCHS = 3
BATCH_SIZE = 2            # reduced to avoid VRAM exhaustion
GRAD_ACCUM_STEPS = 8

ds = load_dataset("databricks/databricks-dolly-15k", split="train").shuffle(seed=42).select(range(1000))
ds = ds.map(lambda ex: {"messages": [{"role": "user", "content": ex["instruction"]},
                                     {"role": "assistant", "content": ex["response"]}]})
ds = ds.train_test_split(test_size=0.2)

model = AutoModelForCausalLM.from_pretrained(
    MODEL,
    dtype=torch.bfloat16,
    device_map="auto",
    trust_remote_code=True,
    low_cpu_mem_usage=True,
)
tokenizer = AutoTokenizer.from_pretrained(MODEL, trust_remote_code=True)
tokenizer.model_max_length = 512
print(f"Base model loaded. Memory footprint: {model.get_memory_footprint()/1e9:.2f} GB")

lora_config = LoraConfig(r=LORA_R, lora_alpha=LORA_ALPHA, target_modules=LORA_TARGET_MODULES,
                         lora_dropout=LORA_DROPOUT, bias="none", task_type="CAUSAL_LM", inference_mode=False)
model = get_peft_model(model, lora_config)
model.gradient_checkpointing_enable()

args = SFTConfig(
    output_dir=f"output-{model_name}-lora",
    packing=False,
    num_train_epochs=EPOCHS,
    per_device_train_batch_size=BATCH_SIZE,
    gradient_accumulation_steps=GRAD_ACCUM_STEPS,
    learning_rate=LR,
    optim="adamw_torch_fused",
    bf16=True,
    lr_scheduler_type="cosine",
    warmup_ratio=0.05,
    logging_steps=5,
    save_strategy="epoch",
    eval_strategy="epoch",
    save_total_limit=2,
    report_to="none",
)
trainer = SFTTrainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"], processing_class=tokenizer)
torch.cuda.reset_peak_memory_stats()
trainer.train()
print(f"Peak training memory (LoRA): {torch.cuda.max_memory_allocated()/1e9:.2f} GB")
gc.collect()
