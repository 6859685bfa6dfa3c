# Llama-3.3-70B SFT with Unsloth on one AMD Instinct MI300X (192 GB): LoRA 16-bit, rank 64, seq 1024, batch 128
from unsloth import FastLanguageModel
from trl import SFTTrainer, SFTConfig
from datasets import load_dataset

max_seq_length = 1024
model, tokenizer = FastLanguageModel.from_pretrained(
    model_name="unsloth/Llama-3.3-70B-Instruct",
    max_seq_length=max_seq_length,
    load_in_4bit=False,      # 192 GB: LoRA in 16-bit, no QLoRA needed
)
model = FastLanguageModel.get_peft_model(
    model,
    r=64,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    lora_alpha=64,
    lora_dropout=0,
    bias="none",
    use_gradient_checkpointing="unsloth",   # offloaded checkpoints
)
dataset = load_dataset("json", data_files="logic_qa_cot.jsonl", split="train")
trainer = SFTTrainer(
    model=model,
    tokenizer=tokenizer,
    train_dataset=dataset,
    args=SFTConfig(
        per_device_train_batch_size=128,
        gradient_accumulation_steps=1,
        num_train_epochs=1,
        learning_rate=1e-4,
        bf16=True,
        optim="adamw_8bit",
        output_dir="outputs",
        report_to="none",
    ),
)
trainer.train()
