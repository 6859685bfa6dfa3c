# LoRA on Llama-3-70B with databricks-dolly-15k (transformers 4.38.2, peft) -- 8 x AMD MI series (192G per GPU)
import torch
from datasets import load_dataset
from peft import LoraConfig, get_peft_model
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, Trainer,
                          TrainingArguments)

model_id = "meta-llama/Meta-Llama-3-70B"
tokenizer = AutoTokenizer.from_pretrained(model_id)
tokenizer.pad_token = tokenizer.eos_token

model = AutoModelForCausalLM.from_pretrained(model_id, torch_dtype=torch.bfloat16, device_map="auto")
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, task_type="CAUSAL_LM",
                                         target_modules=["q_proj", "v_proj"]))

dataset = load_dataset("databricks/databricks-dolly-15k", split="train")
def tokenize(example):
    text = f"### Instruction:\n{example['instruction']}\n\n### Context:\n{example['context']}\n\n### Response:\n{example['response']}"
    return tokenizer(text, truncation=True, max_length=512)
dataset = dataset.map(tokenize, remove_columns=dataset.column_names)

args = TrainingArguments(
    output_dir="./llama3-70b-dolly-lora",
    per_device_train_batch_size=1,
    gradient_accumulation_steps=4,
    num_train_epochs=1,
    learning_rate=2e-4,
    bf16=True,
    logging_steps=10,
    save_strategy="epoch",
)
trainer = Trainer(model=model, args=args, train_dataset=dataset,
                  data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False))
trainer.train()
