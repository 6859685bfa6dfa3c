#!/bin/bash
# single-card attempt from the record (stage 2, "尝试 2 (单卡验证)"): train_qwen_v1.sh with
# HIP_VISIBLE_DEVICES=0, Batch Size=1 and gradient checkpointing, cutoff_len 4096 - reconstructed
export HSA_OVERRIDE_GFX_VERSION=9.0.6
export ROCM_HOME=/opt/rocm
export HIP_VISIBLE_DEVICES=0
export DISABLE_VERSION_CHECK=1
export HF_DATASETS_OFFLINE=1
export TRANSFORMERS_OFFLINE=1

MODEL_PATH="/home/sleepy/Depot/ModelTrain/qwen/Qwen2___5-7B-Instruct"
OUTPUT_PATH="./saves/qwen2.5-7b-intelligence/lora/sft_single"

deepspeed --num_gpus 1 src/train.py \
    --deepspeed ds_z2_config.json \
    --stage sft \
    --do_train \
    --model_name_or_path "$MODEL_PATH" \
    --dataset "intelligence_alpaca" \
    --template qwen \
    --finetuning_type lora \
    --lora_target all \
    --lora_rank 64 \
    --lora_alpha 128 \
    --lora_dropout 0.05 \
    --output_dir "$OUTPUT_PATH" \
    --overwrite_output_dir \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 32 \
    --learning_rate 5e-5 \
    --num_train_epochs 5.0 \
    --lr_scheduler_type cosine \
    --warmup_ratio 0.1 \
    --bf16 True \
    --logging_steps 1 \
    --save_steps 500 \
    --plot_loss True \
    --cutoff_len 4096 \
    --preprocessing_num_workers 16 \
    --gradient_checkpointing True \
    --ddp_timeout 18000000
