#!/bin/bash
# Radeon AI PRO R9700 (gfx1201, 32GB) - PyTorch 2.9.1 built for ROCm 7.12 (TheRock)
export HIP_VISIBLE_DEVICES=0
export PYTORCH_ROCM_ARCH=gfx1201
cd /var/mnt/build/MCP/hive-mind/learning-pipeline
python3 scripts/train_lora.py \
    --model "Qwen/Qwen2.5-0.5B" \
    --dataset data/training_data_synthetic.jsonl \
    --output models/qwen-lora-hive \
    --epochs 3 \
    --batch-size 2 \
    --grad-accum 4 \
    --lora-r 8 \
    --lora-alpha 16
