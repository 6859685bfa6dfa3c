#!/usr/bin/env python3
"""
GRPO Training for Legal Reasoning Improvement
Train on checkpoint-500 (500-step SFT) with legal reasoning rewards
(excerpt of scripts/grpo/grpo_legal_training.py, Arnie016/Law_Qwen: reward function and dataset prep omitted)
"""
import os
# Disable bitsandbytes (we use full precision)
os.environ["BITSANDBYTES_NOWELCOME"] = "1"
os.environ["DISABLE_BITSANDBYTES_AUTO_INSTALL"] = "1"

import torch
from unsloth import FastLanguageModel, is_bfloat16_supported
from trl import GRPOConfig, GRPOTrainer
from datasets import load_dataset

CHECKPOINT_PATH = "./qwen2.5-32b-law-finetuned/checkpoint-500"
BASE_MODEL = "Qwen/Qwen2.5-32B-Instruct"

# Load model with Unsloth
model, tokenizer = FastLanguageModel.from_pretrained(
    model_name=BASE_MODEL,
    max_seq_length=2048,
    dtype=torch.bfloat16 if is_bfloat16_supported() else torch.float16,
    load_in_4bit=False,
)

checkpoint_loaded = False
try:
    from peft import PeftModel
    if os.path.exists(CHECKPOINT_PATH):
        model = PeftModel.from_pretrained(model, CHECKPOINT_PATH)
        checkpoint_loaded = True
except Exception as e:
    print(f"   Could not load checkpoint: {e}")

# Add LoRA (only if checkpoint not loaded)
if not checkpoint_loaded:
    model = FastLanguageModel.get_peft_model(
        model,
        r=16,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
        lora_alpha=16,
        lora_dropout=0,
        bias="none",
        use_gradient_checkpointing=True,
    )

# ... legal reasoning reward function + grpo_dataset (prompt-only) omitted ...

# Note: per_device_train_batch_size must be multiple of num_generations
# Unsloth will auto-adjust batch_size=2 to batch_size=4 (multiple of num_generations=4)
grpo_config = GRPOConfig(
    output_dir="./qwen2.5-32b-law-grpo",
    per_device_train_batch_size=4,  # Must be multiple of num_generations (4)
    gradient_accumulation_steps=2,  # Reduced to compensate
    learning_rate=2e-4,
    num_train_epochs=1,
    max_steps=1000,  # Fast RL training: 500-1000 steps
    warmup_steps=100,
    bf16=is_bfloat16_supported(),
    fp16=not is_bfloat16_supported(),
    logging_steps=10,
    save_steps=100,
    # GRPO-specific
    num_generations=4,  # Generate 4 responses per prompt
    # Optimizer settings - disable bitsandbytes, use standard AdamW
    optim="adamw_torch",  # Use standard PyTorch AdamW (not 8-bit)
)

trainer = GRPOTrainer(
    model=model,
    args=grpo_config,
    train_dataset=grpo_dataset["train"],
    tokenizer=tokenizer,
    reward_funcs=[grpo_reward_fn],  # Must be a list, even if single function
)
trainer.train()
model.save_pretrained("./qwen2.5-32b-law-grpo")
