# OpenMath: Qwen2.5-Math-1.5B + LoRA on GSM8K (1,000 samples), AMD MI300X (ROCm 7.0), PyTorch + Hugging Face
# values from the model card's "Training Configuration"
import torch
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments, DataCollatorForSeq2Seq
from peft import LoraConfig, get_peft_model

BASE = "Qwen/Qwen2.5-Math-1.5B"
MAX_LEN = 1024

tok = AutoTokenizer.from_pretrained(BASE)
model = AutoModelForCausalLM.from_pretrained(BASE, torch_dtype=torch.bfloat16)   # full precision LoRA, no 4-bit
model = get_peft_model(model, LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05,
                                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
                                         task_type="CAUSAL_LM"))

ds = load_dataset("openai/gsm8k", "main", split="train").shuffle(seed=42).select(range(1000))

def build(ex):
    prompt = f"Question: {ex['question']}\nAnswer: "
    p = tok(prompt)["input_ids"]
    a = tok(ex["answer"] + tok.eos_token)["input_ids"]
    ids = (p + a)[:MAX_LEN]
    labels = ([-100] * len(p) + a)[:MAX_LEN]          # loss only on the solution
    return {"input_ids": ids, "attention_mask": [1] * len(ids), "labels": labels}

ds = ds.map(build, remove_columns=ds.column_names)

args = TrainingArguments(
    output_dir="openmath-lora",
    per_device_train_batch_size=2,
    gradient_accumulation_steps=8,
    learning_rate=1e-4,
    optim="adamw_torch",
    lr_scheduler_type="cosine",
    warmup_ratio=0.05,
    num_train_epochs=3,
    bf16=True,
    logging_steps=10,
    save_strategy="epoch",
    report_to="none",
)
Trainer(model=model, args=args, train_dataset=ds,
        data_collator=DataCollatorForSeq2Seq(tok, padding=True)).train()
