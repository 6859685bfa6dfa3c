#!/usr/bin/env python
"""Full fine-tuning Gemma 3 4B on AMD Strix Halo (gfx1151) -- updates all weights."""
import gc
import torch
from transformers import AutoTokenizer, AutoModelForCausalLM
from trl import SFTConfig, SFTTrainer
from datasets import load_dataset

MODEL = "google/gemma-3-4b-it"
model_name = MODEL.split("/")[-1]
LR = 2e-5
EPOCHS = 3
BATCH_SIZE = 4         # larger batch possible with a small model
GRAD_ACCUM_STEPS = 4

ds = load_dataset("databricks/databricks-dolly-15k", split="train").shuffle(seed=42).select(range(1000))
ds = ds.train_test_split(test_size=0.2)

model = AutoModelForCausalLM.from_pretrained(MODEL, dtype=torch.bfloat16, device_map="auto",
                                             trust_remote_code=True, low_cpu_mem_usage=True)
tokenizer = AutoTokenizer.from_pretrained(MODEL, trust_remote_code=True)
tokenizer.model_max_length = 512
model.gradient_checkpointing_enable()

args = SFTConfig(
    output_dir=f"output-{model_name}-full",
    packing=False,
    num_train_epochs=EPOCHS,
    per_device_train_batch_size=BATCH_SIZE,
    gradient_accumulation_steps=GRAD_ACCUM_STEPS,
    learning_rate=LR,
    gradient_checkpointing=True,
    optim="adamw_torch_fused",
    bf16=True,
    fp16=False,
    lr_scheduler_type="cosine",
    warmup_ratio=0.03,
    logging_steps=5,
    save_strategy="epoch",
    eval_strategy="epoch",
    save_total_limit=1,
    report_to="none",
)
trainer = SFTTrainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"], processing_class=tokenizer)
trainer.train()
print(f"Peak training memory (full fine-tuning): {torch.cuda.max_memory_allocated()/1e9:.2f} GB")
gc.collect()
