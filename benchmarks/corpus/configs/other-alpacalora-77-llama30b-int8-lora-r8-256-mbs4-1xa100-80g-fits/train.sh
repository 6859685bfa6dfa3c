#!/bin/bash
# alpaca-lora (tloen/alpaca-lora, March 2023) on 1x A100 80GB, base model swapped to LLaMA-30B.
# At the time (2023-03-19) finetune.py took no CLI flags: its hyperparameters were module constants
# (micro batch 4, batch 128, 3 epochs, lr 3e-4, cutoff 256, LoRA r8/alpha16/dropout 0.05 on q_proj,v_proj,
# val set 2000) and the base was loaded with load_in_8bit=True + prepare_model_for_int8_training, fp16.
# The same run written with the CLI flags finetune.py gained on 2023-03-24:
python finetune.py \
    --base_model='decapoda-research/llama-30b-hf' \
    --data_path='alpaca_data_cleaned.json' \
    --output_dir='lora-alpaca' \
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
