#!/usr/bin/env bash
# Training launcher, written by rocm-tune export from plan.json
# model Qwen2.5-7B-Instruct: lora (sft), bf16, cutoff_len 1024, micro-batch 4 x accumulation 16 on 1 x rtx4090
# dataset: alpaca_en_demo, resolved by LLaMA-Factory in /data/llama factory/dataset_info.json on the machine that runs this script
# Usage: bash run.sh [extra trainer arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# environment from the plan
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True

exec llamafactory-cli train llamafactory.yaml "$@"
