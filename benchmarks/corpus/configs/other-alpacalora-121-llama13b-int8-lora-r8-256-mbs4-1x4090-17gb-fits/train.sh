#!/bin/bash
# alpaca-lora finetune.py as of 2023-03-24 (tloen/alpaca-lora @ 5fa807d, CLI arguments, defaults shown explicitly):
# base weights loaded with load_in_8bit=True, prepare_model_for_int8_training (gradient checkpointing), fp16, LoRA on q_proj/v_proj
python finetune.py \
    --base_model='decapoda-research/llama-13b-hf' \
    --data_path='./alpaca_data_cleaned.json' \
    --output_dir='./lora-alpaca-13b' \
    --batch_size=128 \
    --micro_batch_size=4 \
    --num_epochs=3 \
    --learning_rate=3e-4 \
    --cutoff_len=256 \
    --val_set_size=2000 \
    --lora_r=8 \
    --lora_alpha=16 \
    --lora_dropout=0.05 \
    --lora_target_modules='[q_proj,v_proj]'
