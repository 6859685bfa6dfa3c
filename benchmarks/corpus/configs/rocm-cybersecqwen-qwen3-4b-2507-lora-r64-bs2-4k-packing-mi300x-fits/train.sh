#!/usr/bin/env bash
# Fine-tune Qwen/Qwen3-4B-Instruct-2507 via LoRA on the assembled training corpus.
#
# Prerequisites:
#   - bash build_corpus.sh has been run (creates data/train/combined_train.jsonl)
#   - 1x GPU with >= 24 GB VRAM (training)
#   - Python 3.11+, torch>=2.6, transformers>=4.51, peft, trl==0.29.1, accelerate
#
# Hyperparameters (LoRA r=64, alpha=64, dropout=0.05, lr=5e-5, 10 epochs, bf16):
set -euo pipefail

cd "$(dirname "$0")"

mkdir -p output/adapter

if [ ! -f data/train/combined_train.jsonl ]; then
  echo "Running build_corpus.sh first..."
  bash build_corpus.sh
fi

python src/train.py \
  --data data/train/combined_train.jsonl \
  --output-dir output/adapter/cybersecqwen-4b \
  --base-model Qwen/Qwen3-4B-Instruct-2507 \
  --lora-r 64 --lora-alpha 64 --lora-dropout 0.05 \
  --max-seq-length 4096 \
  --per-device-batch-size 2 --grad-accum 8 \
  --num-epochs 10 \
  --lr 5e-5 --warmup-ratio 0.05 --weight-decay 0.01 \
  --logging-steps 10 --save-steps 200 --seed 42 \
  --gradient-checkpointing

echo
echo "Adapter saved to output/adapter/cybersecqwen-4b/"
