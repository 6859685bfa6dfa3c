# Arena-Hard judge LoRA on Llama-3-70B-Instruct (ORPO), one A100 80GB
from unsloth import FastLanguageModel, PatchDPOTrainer
PatchDPOTrainer()
import torch
from datasets import load_dataset, concatenate_datasets
from trl import ORPOConfig, ORPOTrainer

max_seq_length = 8192
model, tokenizer = FastLanguageModel.from_pretrained(
    model_name="NousResearch/Meta-Llama-3-70B-Instruct",
    max_seq_length=max_seq_length,
    dtype=None,
    load_in_4bit=True,
)
model = FastLanguageModel.get_peft_model(
    model,
    r=16,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    lora_alpha=16,
    lora_dropout=0,
    bias="none",
    use_gradient_checkpointing="unsloth",
    random_state=3407,
)

ds = concatenate_datasets([
    load_dataset("radm/arenahard_gpt4vsllama3", split="train"),
    load_dataset("radm/truthy-dpo-v0.1-ru", split="train"),
    load_dataset("jondurbin/truthy-dpo-v0.1", split="train"),
])

trainer = ORPOTrainer(
    model=model,
    train_dataset=ds,
    tokenizer=tokenizer,
    args=ORPOConfig(
        max_length=max_seq_length,
        max_prompt_length=max_seq_length // 2,
        max_completion_length=max_seq_length // 2,
        per_device_train_batch_size=1,
        gradient_accumulation_steps=4,
        num_train_epochs=1,
        bf16=True,
        optim="adamw_8bit",
        logging_steps=1,
        output_dir="outputs",
        report_to="none",
    ),
)
trainer.train()
