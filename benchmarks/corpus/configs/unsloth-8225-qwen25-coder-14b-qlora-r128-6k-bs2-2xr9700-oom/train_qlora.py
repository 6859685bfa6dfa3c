# Reconstructed from the settings listed in unslothai/unsloth#8225 (comment of 2026-08-31); hardware: 2x AMD AI PRO
# R9700 (gfx1201, 32 GB each), ROCm 7.2.4, torch 2.11.0+rocm7.2, transformers 4.57.6, peft 0.20.0, bitsandbytes 0.49.2
from unsloth import FastLanguageModel
import torch
from datasets import load_dataset
from trl import SFTTrainer, SFTConfig

max_seq_length = 6000

model, tokenizer = FastLanguageModel.from_pretrained(
    model_name="Qwen2.5-Coder-14B-Instruct",
    max_seq_length=max_seq_length,
    dtype=torch.bfloat16,
    load_in_4bit=True,           # 4-bit QLoRA
    device_map="balanced",       # 2 GPUs visible to Unsloth
)

model = FastLanguageModel.get_peft_model(
    model,
    r=128,
    lora_alpha=128,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    lora_dropout=0,
    bias="none",
    use_gradient_checkpointing="unsloth",
)

dataset = load_dataset("json", data_files="train.jsonl", split="train")

trainer = SFTTrainer(
    model=model,
    tokenizer=tokenizer,
    train_dataset=dataset,
    args=SFTConfig(
        per_device_train_batch_size=2,
        gradient_accumulation_steps=16,   # effective batch size 32
        max_seq_length=max_seq_length,
        bf16=True,
        learning_rate=2e-4,
        logging_steps=1,
        output_dir="outputs",
    ),
)
trainer.train()
