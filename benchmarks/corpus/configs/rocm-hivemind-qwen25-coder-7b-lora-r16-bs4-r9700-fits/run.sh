#!/bin/bash
# Radeon AI PRO R9700 (gfx1201, 32GB) - PyTorch 2.9.1 built for ROCm 7.12 (TheRock)
export HIP_VISIBLE_DEVICES=0
export PYTORCH_ROCM_ARCH=gfx1201
cd /var/mnt/build/MCP/hive-mind/learning-pipeline
python3 scripts/train_lora.py \
    --model "Qwen/Qwen2.5-Coder-7B-Instruct" \
    --dataset data/training_dataset_foundation_final.jsonl \
    --output models/foundation_7b_v1 \
    --epochs 3 \
    --batch-size 4 \
    --grad-accum 4 \
    --lora-r 16 \
    --lora-alpha 32
