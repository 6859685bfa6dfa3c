# ROCm 6.4.3 + Pytorch 2.9.0 (nightly) + Transformers 4.55.2 -- Ubuntu 22.04 / 24.04
# Supported HW: CDNA 2, CDNA 3, RDNA 3, RDNA 4
import time
import torch
from transformers import (
    AutoTokenizer,
    AutoModelForCausalLM,
    Trainer,
    TrainingArguments,
    DataCollatorForLanguageModeling,
    TrainerCallback
)
from datasets import load_dataset

# ------------------------------
# Model and Tokenizer Setup
# ------------------------------
model_id = "BSC-LT/salamandra-7b-instruct"
tokenizer = AutoTokenizer.from_pretrained(model_id, trust_remote_code=True)

model = AutoModelForCausalLM.from_pretrained(
    model_id,
    torch_dtype="auto",        # bfloat16 checkpoint
    device_map="auto"          # spread over all visible GPUs
)

# ------------------------------
# Dataset Loading and Tokenization
# ------------------------------
dataset = load_dataset("wikitext", "wikitext-2-raw-v1")

def tokenize_function(examples):
    return tokenizer(examples["text"], truncation=True, padding="max_length", max_length=256)

tokenized_dataset = dataset.map(tokenize_function, batched=True, remove_columns=["text"])

# ------------------------------
# Training Arguments
# ------------------------------
training_args = TrainingArguments(
    output_dir="./salamandra7b-checkpoints",
    per_device_train_batch_size=1,
    gradient_accumulation_steps=4,
    logging_dir="./logs",
    num_train_epochs=3,
    save_steps=500,
    save_total_limit=2,
    logging_steps=50,
    learning_rate=5e-5,
    warmup_steps=100,
    bf16=True,
    fp16=False,
    report_to="none",
    dataloader_pin_memory=False,      # avoid ROCm pinning issues
    remove_unused_columns=False
)

data_collator = DataCollatorForLanguageModeling(tokenizer=tokenizer, mlm=False)


class PerformanceCallback(TrainerCallback):
    """prints TTFT, tokens/s and s/step every 10 steps"""
    def on_train_begin(self, args, state, control, **kwargs):
        self.start_time, self.first, self.steps = time.time(), None, 0
        print("\n[INFO] Training started... Measuring TTFT, T/S, and TOS.\n")

    def on_step_end(self, args, state, control, **kwargs):
        now = time.time()
        if self.first is None:
            self.first = now - self.start_time
            print(f"[METRIC] TTFT: {self.first:.3f} sec")
        self.steps += 1
        if self.steps % 10 == 0:
            toks = self.steps * args.per_device_train_batch_size * 256 * args.gradient_accumulation_steps
            el = now - self.start_time
            print(f"[METRIC] Step: {self.steps} | T/S: {toks / el:.2f} tokens/sec | TOS: {el / self.steps:.3f} sec/step")


trainer = Trainer(
    model=model,
    args=training_args,
    train_dataset=tokenized_dataset["train"],
    eval_dataset=tokenized_dataset["validation"],
    data_collator=data_collator,
    callbacks=[PerformanceCallback()]
)

trainer.train()
