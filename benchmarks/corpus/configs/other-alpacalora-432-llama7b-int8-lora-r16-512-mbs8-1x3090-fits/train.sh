#!/bin/bash
# alpaca-lora (tloen/alpaca-lora @ May 2023): finetune.py loads the base model with load_in_8bit=True (fp16 compute)
# and prepare_model_for_int8_training (gradient checkpointing on); batch_size defaults to 128 -> accumulation 128/8 = 16
python finetune.py \
    --base_model='decapoda-research/llama-7b-hf' \
    --num_epochs=10 \
    --cutoff_len=512 \
    --group_by_length \
    --output_dir='./lora-alpaca' \
    --lora_target_modules='[q_proj,k_proj,v_proj,o_proj]' \
    --lora_r=16 \
    --micro_batch_size=8
