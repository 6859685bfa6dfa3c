# QLoRA fine-tuning of Llama 3.1 8B on a Radeon PRO W7900 (48 GB), ROCm 6.2.3 -- from the ROCm single-GPU fine-tuning guide
import torch
from datasets import load_dataset
from peft import LoraConfig
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig, TrainingArguments
from trl import SFTTrainer

base_model_name = "meta-llama/Meta-Llama-3.1-8B"
quant_config = BitsAndBytesConfig(
    load_in_4bit=True,
    bnb_4bit_quant_type="nf4",
    bnb_4bit_compute_dtype=torch.float16,
    bnb_4bit_use_double_quant=False,
)
base_model = AutoModelForCausalLM.from_pretrained(base_model_name, quantization_config=quant_config, device_map={"": 0})
base_model.config.use_cache = False
tokenizer = AutoTokenizer.from_pretrained(base_model_name, trust_remote_code=True)
tokenizer.pad_token = tokenizer.eos_token
tokenizer.padding_side = "right"

training_dataset = load_dataset("mlabonne/guanaco-llama2-1k", split="train")

peft_parameters = LoraConfig(lora_alpha=16, lora_dropout=0.1, r=64, bias="none", task_type="CAUSAL_LM")

train_params = TrainingArguments(
    output_dir="./results_qlora",
    num_train_epochs=1,

    per_device_train_batch_size=2,                 # Slightly increased batch size (you have 48 GB)
    gradient_accumulation_steps=2,                 # Effective batch size = 4 (2x2)

    optim="paged_adamw_32bit",                     # Recommended for QLoRA
    save_steps=50,
    logging_steps=50,
    learning_rate=4e-5,
    weight_decay=0.001,

    fp16=False,                                    # Disabled because ROCm prefers bf16 on W7900
    bf16=True,                                     # Enable BF16 for ROCm + RDNA3 (W7900)

    max_grad_norm=0.3,
    max_steps=-1,
    warmup_ratio=0.03,
    group_by_length=True,
    lr_scheduler_type="constant",
    report_to="tensorboard"
)

fine_tuning = SFTTrainer(
    model=base_model,
    train_dataset=training_dataset,
    peft_config=peft_parameters,
    dataset_text_field="text",
    tokenizer=tokenizer,
    args=train_params,
)
fine_tuning.train()
