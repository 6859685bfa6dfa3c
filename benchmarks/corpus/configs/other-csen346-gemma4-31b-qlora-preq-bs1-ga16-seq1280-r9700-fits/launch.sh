#!/usr/bin/env bash
# Stage-2b launch on the R9700 (see docs/GFX1201_FAULT_ABLATION_LOG.md "Standard launch")
set -euo pipefail
make gpu-preflight                                   # MUST pass
COMMIT=$(git rev-parse --short HEAD)
CKPT=outputs/sft-stage2-gemma4-31b
mkdir -p "$CKPT"
nohup env TORCH_USE_HIPBLASLT=0 \
  PYTORCH_HIP_ALLOC_CONF=garbage_collection_threshold:0.8 \
  TRAIN_BASE_MODEL=unsloth/gemma-4-31B-it-unsloth-bnb-4bit TRAIN_PREQ=true \
  TRAIN_OUTPUT_DIR="$CKPT" \
  uv run --no-sync python scripts/train_sft.py --config configs/train-sft-stage2-gemma4-31b.env \
  > "$CKPT/run-$COMMIT.log" 2>&1 &
