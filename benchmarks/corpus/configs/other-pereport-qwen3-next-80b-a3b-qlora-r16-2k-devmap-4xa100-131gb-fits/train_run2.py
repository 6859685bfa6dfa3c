# Run 2 (Mar 4): LoRA on Qwen3-Next-80B-A3B-Instruct, 4-bit NF4 + double quant, device_map="auto" over 4 x A100 80GB
# custom training loop (no DDP, no HF Trainer)
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig

MODEL = "Qwen/Qwen3-Next-80B-A3B-Instruct"
MAX_SEQ_LEN = 2048
BATCH_SIZE = 1
GRAD_ACCUM = 8
EPOCHS = 3
LR = 2e-4

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                         bnb_4bit_compute_dtype=torch.bfloat16)
tokenizer = AutoTokenizer.from_pretrained(MODEL)
model = AutoModelForCausalLM.from_pretrained(MODEL, quantization_config=bnb, device_map="auto",
                                             torch_dtype=torch.bfloat16)
model.gradient_checkpointing_enable()
lora = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.05, task_type="CAUSAL_LM",
                  target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
model = get_peft_model(model, lora)
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=LR)
# 338 PE/energy examples, tokenized to max 2048 tokens; cosine schedule, warmup 6
