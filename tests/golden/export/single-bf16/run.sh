#!/usr/bin/env bash
# Training launcher, written by rocm-tune export from plan.json
# model Qwen2.5-7B-Instruct: lora (sft), bf16, cutoff_len 1024, micro-batch 4 x accumulation 16 on 1 x rtx4090
# executes: LLaMA-Factory through lf_launch.py, precision bf16
# dataset: alpaca_en_demo, resolved by LLaMA-Factory in /data/llama factory/dataset_info.json on the machine that runs this script
# Usage: bash run.sh [extra trainer arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# environment from the plan
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True

# LLaMA-Factory runs through lf_launch.py (beside this script): LLaMA-Factory's own training, plus
# measured memory and parameter dtypes per rank in $ROCM_TUNE_RUN_DIR/ranks (else OUTPUT_DIR/ranks)
# LLAMAFACTORY_PYTHON: the Python that has LLaMA-Factory (default python3 of the active environment)
exec "${LLAMAFACTORY_PYTHON:-python3}" lf_launch.py llamafactory.yaml "$@"
