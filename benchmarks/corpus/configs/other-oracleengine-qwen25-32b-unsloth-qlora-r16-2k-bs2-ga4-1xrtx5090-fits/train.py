# Stage 1 of vikingdude81/oracle-engine (training/TRAINING_LOG.md, "train_100k_production.py"), settings as the
# log states them: Qwen2.5-32B-Instruct bnb-4bit, LoRA r=16 alpha=16, batch 2 x grad-accum 4, max_seq_length 2048,
# adamw_8bit, lr 2e-4 cosine, 12,500 steps, SFTConfig, train_on_responses_only (ChatML). Run under WSL2 on an RTX 5090.
import os
os.environ["UNSLOTH_COMPILE_DISABLE"] = "1"   # RTX 5090 (Blackwell) fix: must be set before any import
import builtins
import psutil
builtins.psutil = psutil

from unsloth import FastLanguageModel
from unsloth.chat_templates import train_on_responses_only
from datasets import load_dataset
from trl import SFTTrainer, SFTConfig

max_seq_length = 2048
model, tokenizer = FastLanguageModel.from_pretrained(
    model_name="unsloth/Qwen2.5-32B-Instruct-bnb-4bit",
    max_seq_length=max_seq_length,
    dtype=None,
    load_in_4bit=True,
)
model = FastLanguageModel.get_peft_model(
    model,
    r=16,
    lora_alpha=16,
    lora_dropout=0,
    target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    use_gradient_checkpointing="unsloth",
    random_state=3407,
)

dataset = load_dataset("teknium/OpenHermes-2.5", split="train").shuffle(seed=42).select(range(100000))
# ... conversations -> Qwen ChatML text (formatting function omitted)

trainer = SFTTrainer(
    model=model,
    tokenizer=tokenizer,
    train_dataset=dataset,
    args=SFTConfig(
        dataset_text_field="text",
        max_seq_length=max_seq_length,
        per_device_train_batch_size=2,
        gradient_accumulation_steps=4,
        max_steps=12500,
        learning_rate=2e-4,
        lr_scheduler_type="cosine",
        warmup_steps=100,
        optim="adamw_8bit",
        bf16=True,
        logging_steps=50,
        save_steps=1000,
        output_dir="outputs_100k",
        report_to="none",
    ),
)
trainer = train_on_responses_only(
    trainer,
    instruction_part="<|im_start|>user\n",
    response_part="<|im_start|>assistant\n",
)
trainer.train()
model.save_pretrained("outputs_100k/final")
