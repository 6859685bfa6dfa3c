#!/usr/bin/env bash
# make train-gemma4-12b  (NVIDIA RTX 4000 Ada box) — what the make target runs
set -euo pipefail
mkdir -p outputs/sft-gemma4-12b-qlora
TRAIN_BASE_MODEL=unsloth/gemma-4-12b-it TRAIN_PREQ=true \
  uv run --no-sync python scripts/train_sft.py \
  --config configs/train-sft-gemma4-12b-qlora.env \
  2>&1 | tee outputs/sft-gemma4-12b-qlora/train.log
