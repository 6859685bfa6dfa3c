# Excerpt of scripts/train_qwen2.5_unsloth.py (bledden/AMD_Hackathon): the settings of the Qwen2.5-72B run on one
# MI300X (ROCm 6.2, torch 2.5.1+rocm6.2). Curriculum chunks / replay buffer / data prep omitted.
# Environment: TORCH_COMPILE=0
import os
os.environ['TRANSFORMERS_NO_TORCHAO'] = '1'
import torch
from datasets import Dataset
from unsloth import FastLanguageModel
from transformers import TrainingArguments
from trl import SFTTrainer

model, tokenizer = FastLanguageModel.from_pretrained(
    model_name="Qwen/Qwen2.5-72B-Instruct",
    max_seq_length=2048,
    dtype=None,  # Auto-detect (will use bf16)
    load_in_4bit=True,  # Ignored on AMD, loads in 16-bit
)

model = FastLanguageModel.get_peft_model(
    model,
    r=64,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    lora_alpha=128,
    lora_dropout=0,  # Set to 0 for Unsloth fast patching
    bias="none",
    use_gradient_checkpointing="unsloth",  # Unsloth's optimized checkpointing
    random_state=42,
)

hf_dataset = Dataset.from_list(train_dataset)  # one curriculum chunk (~5000 MCQ + replay)
training_args = TrainingArguments(
    output_dir="checkpoints/qwen2.5_72b_unsloth_curriculum/checkpoint_chunk0",
    num_train_epochs=1,
    per_device_train_batch_size=4,  # Increased from 1 (more VRAM available)
    gradient_accumulation_steps=4,  # Reduced from 16 (larger batch size)
    learning_rate=2e-5,
    warmup_steps=50,
    logging_steps=10,
    save_steps=500,
    save_total_limit=2,
    fp16=False,
    bf16=True,  # Use bfloat16
    optim="adamw_torch",  # Standard PyTorch AdamW (no bitsandbytes needed)
    report_to="none",
    gradient_checkpointing=True,  # Save VRAM
)
trainer = SFTTrainer(
    model=model,
    tokenizer=tokenizer,
    train_dataset=hf_dataset,
    dataset_text_field="text",
    max_seq_length=2048,
    args=training_args,
    packing=False,  # Don't pack sequences for Q&A
)
trainer.train()
