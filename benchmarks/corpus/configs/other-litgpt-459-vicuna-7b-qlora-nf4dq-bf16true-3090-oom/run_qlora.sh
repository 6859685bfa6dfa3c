#!/bin/bash
# fine-tune vicuna-7b-v1.5 with QLoRA on one RTX 3090 (lit-gpt, Aug 2023)
python finetune/lora.py  --data_dir data/mydata/   --precision "bf16-true" --quantize "bnb.nf4-dq" --checkpoint_dir /AIDEV/llm/vicuna-7b-v1.5 --out_dir /AIDEV/llm/out/lora/vicuna
