"""MedQA: LoRA fine-tuning of Qwen3-1.7B on MedMCQA on one AMD Instinct MI300X (ROCm, no CUDA)."""
import os
import torch
from datasets import load_dataset
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments, Trainer, DataCollatorForLanguageModeling

os.environ.setdefault("HSA_OVERRIDE_GFX_VERSION", "9.4.2")
os.environ.setdefault("HIP_VISIBLE_DEVICES", "0")

MODEL_ID = "Qwen/Qwen3-1.7B"
MAX_LEN = 512
tokenizer = AutoTokenizer.from_pretrained(MODEL_ID, trust_remote_code=True)
model = AutoModelForCausalLM.from_pretrained(MODEL_ID, torch_dtype=torch.float16, trust_remote_code=True).to("cuda")

# no bitsandbytes on this ROCm stack: plain fp16 LoRA on the attention projections
lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.05, target_modules=["q_proj", "k_proj", "v_proj"], task_type="CAUSAL_LM")
model = get_peft_model(model, lora)
model.print_trainable_parameters()   # ~2.2M trainable (0.15%)

ds = load_dataset("openlifescienceai/medmcqa", split="train").shuffle(seed=0).select(range(2000))
ds = ds.map(lambda ex: tokenizer(ex["question"] + "\n" + ex["exp"] if ex["exp"] else ex["question"], truncation=True, max_length=MAX_LEN))

args = TrainingArguments(
    output_dir="medqa-lora",
    per_device_train_batch_size=4,
    gradient_accumulation_steps=4,      # effective batch 16
    num_train_epochs=1,
    learning_rate=2e-4,
    lr_scheduler_type="cosine",
    warmup_ratio=0.05,
    fp16=True,
    logging_steps=10,
    save_strategy="epoch",
    report_to="none",
)
Trainer(model=model, args=args, train_dataset=ds, data_collator=DataCollatorForLanguageModeling(tokenizer, mlm=False)).train()
model.save_pretrained("medqa-lora")
