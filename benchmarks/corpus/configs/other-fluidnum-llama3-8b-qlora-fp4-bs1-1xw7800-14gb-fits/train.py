# Code cells of fine-tuning-llama-3/train-single-gpu.ipynb (FluidNumerics/amd-ml-examples, AMD ROCm webinar
# "Fine-Tuning Llama 3 on AMD Radeon GPUs", Oct 2024). ROCm 6.1, PyTorch 2.4.0+rocm6.1, ROCm/bitsandbytes rocm_enabled (gfx1100)
import torch
from numpy import argmax
from transformers import AutoTokenizer, BitsAndBytesConfig, LlamaForCausalLM, pipeline, TrainingArguments
from datasets import load_dataset
from peft import LoraConfig, get_peft_model
import evaluate
from trl import SFTTrainer, SFTConfig

# Confirm the correct device is being used
# E.g. 'AMD Radeon Pro w7800'
print(f"Device name: {torch.cuda.get_device_name(0)}")
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# set path to local model
path_to_model = "/home/garrett/amd/misc/Meta-Llama-3-8B"

my_tokenizer = AutoTokenizer.from_pretrained(path_to_model)  # Load model tokenizer
my_tokenizer.pad_token = my_tokenizer.eos_token  # Set padding token to EOS token

# BitsandBytes config
fp4_config = BitsAndBytesConfig(
    load_in_4bit=True,  # Use 4bit quantization
    bnb_4bit_quant_type="fp4",  # Use FP4 datatype ("nf4" alternative)
    bnb_4bit_use_double_quant=True,  # Nested quantization
    bnb_4bit_compute_dtype=torch.float16,  # Computational type might be different than input type
)

quantized_model = LlamaForCausalLM.from_pretrained(
    path_to_model,  # Set model
    quantization_config=fp4_config,  # Apply config
    device_map="auto",
)

# LoRA config
lora_config = LoraConfig(
    r=16,  # Size of adapter layer
    lora_alpha=16,
    lora_dropout=0.05,  # Optional dropout layer
    bias="none",  # No bias
    task_type="CAUSAL_LM",
    target_modules=["up_proj", "down_proj", "gate_proj", "k_proj", "q_proj", "v_proj", "o_proj"],
)
adapted_model = get_peft_model(quantized_model, lora_config)

# https://huggingface.co/datasets/meta-math/MetaMathQA
MetaMathQA = load_dataset("json", data_files="MetaMathQA/MetaMathQA-395K.json", split="train[:10000]")
MetaMathQA = MetaMathQA.train_test_split(test_size=0.2)

def instructify(qr_row):
    qr_json = [{"role": "user", "content": qr_row["query"]}, {"role": "assistant", "content": qr_row["response"]}]
    qr_row["text"] = my_tokenizer.apply_chat_template(qr_json, tokenize=False)
    return qr_row

my_tokenizer.chat_template = """{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = message['content'] | trim + '\n' %}{{ content }}{% endfor %}"""
formatted_dataset = MetaMathQA.map(instructify)

training_arguments = TrainingArguments(
    output_dir="Llama-Math-TEMP",
    per_device_train_batch_size=1,
    per_device_eval_batch_size=1,
    gradient_accumulation_steps=1,
    optim="paged_adamw_8bit",
    num_train_epochs=1,
    evaluation_strategy="steps",
    eval_steps=0.25,
    logging_steps=1,
    warmup_steps=10,
    logging_strategy="steps",
    learning_rate=1e-4,
    fp16=True,
    bf16=False,
    group_by_length=True,
)

trainer = SFTTrainer(
    model=adapted_model,
    train_dataset=formatted_dataset["train"],
    eval_dataset=formatted_dataset["test"],
    max_seq_length=512,
    dataset_text_field="text",
    tokenizer=my_tokenizer,
    args=training_arguments,
    packing=False,
    peft_config=lora_config,
)

trainer.train()

# ! rocm-smi
# memory: 13.76GB
# training time: 101m 40.6s
# average temperature: ~76C
