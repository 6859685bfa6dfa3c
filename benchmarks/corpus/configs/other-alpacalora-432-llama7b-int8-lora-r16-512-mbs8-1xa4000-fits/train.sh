#!/bin/bash
# alpaca-lora finetune.py (8-bit base weights, fp16, LoRA); lora_target_modules left at the default [q_proj,v_proj]
python finetune.py \
    --base_model='decapoda-research/llama-7b-hf' \
    --num_epochs=10 \
    --cutoff_len=512 \
    --group_by_length \
    --output_dir='./lora-alpaca' \
    --lora_r=16 \
    --micro_batch_size=8
