#!/bin/bash
# V2.2 run (Qwen3.5-9B base) — 7900 XTX, ROCm
cd "$(dirname "$0")"
export ROCR_VISIBLE_DEVICES=0
export HSA_OVERRIDE_GFX_VERSION=11.0.0
# no AOTRITON (NaN grads)
nohup python3 data/v2_pipeline/train_v2.py --batch-size 2 > data/v2_pipeline/training_output/train_v22.log 2>&1 &
echo "started pid $!"
