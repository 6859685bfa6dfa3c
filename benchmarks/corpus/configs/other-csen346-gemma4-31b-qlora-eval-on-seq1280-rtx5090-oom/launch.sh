#!/usr/bin/env bash
# RTX 5090 rig (CUDA): same recipe, pre-quantized base
set -euo pipefail
mkdir -p outputs/sft-stage2-gemma4-31b
TRAIN_BASE_MODEL=unsloth/gemma-4-31B-it-unsloth-bnb-4bit TRAIN_PREQ=true \
  uv run --no-sync python scripts/train_sft.py \
  --config configs/train-sft-stage2-gemma4-31b.env \
  2>&1 | tee outputs/sft-stage2-gemma4-31b/train.log
