# control run: ordinary Transformers + BitsAndBytes NF4 + PEFT (outside Unsloth Studio)
# GPU: AMD Radeon RX 7900 XTX, gfx1100, 24 GB VRAM -- PyTorch 2.10.0+rocm7.1, bitsandbytes 0.50.3.dev0
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig, Trainer, TrainingArguments
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

MODEL = "TPAI-Ornith"  # the 9B model of the report, as the user names it

bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained(MODEL, quantization_config=bnb, device_map={"": 0})
model = prepare_model_for_kbit_training(model)
model = get_peft_model(model, LoraConfig(task_type="CAUSAL_LM"))
tok = AutoTokenizer.from_pretrained(MODEL)

args = TrainingArguments(output_dir="control_out", max_steps=200, bf16=True, logging_steps=10)
# dataset construction not in the report
trainer = Trainer(model=model, args=args, train_dataset=None, processing_class=tok)
trainer.train()
