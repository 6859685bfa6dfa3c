#!/usr/bin/env bash
# Training launcher, written by rocm-tune export from plan.json
# model Qwen2.5-7B-Instruct: qlora (sft), bf16, cutoff_len 1024, micro-batch 2 x accumulation 8 on 4 x mi100
# executes: LLaMA-Factory through lf_launch.py, precision bf16
# warning [bf16-emulated]: MI50 has no bf16 hardware; bf16 is emulated (700+ s/it) Fix: train in fp32 or fp16
# warning [iommu-p2p-hang-risk]: Intel IOMMU can hang RCCL peer-to-peer Fix: boot with intel_iommu=off
# dataset: alpaca_en_demo, resolved by LLaMA-Factory in /data/llama factory/dataset_info.json on the machine that runs this script
# Usage: bash run.sh [extra trainer arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# environment from the plan
export HIP_VISIBLE_DEVICES=0,1,2,3
export NCCL_P2P_DISABLE=1

# a hung collective ends the job: ddp_timeout (7200 s) covers preprocessing and model load, then ROCM_TUNE_HANG_TIMEOUT once the Trainer is built
# (the plan names no checkpoint size: 1800 s)
export ROCM_TUNE_HANG_TIMEOUT=1800

# LLaMA-Factory runs through lf_launch.py (beside this script): LLaMA-Factory's own training, plus
# measured memory and parameter dtypes per rank in $ROCM_TUNE_RUN_DIR/ranks (else OUTPUT_DIR/ranks)
# LLAMAFACTORY_PYTHON: the Python that has LLaMA-Factory (default python3 of the active environment)
exec accelerate launch --config_file accelerate.yaml \
  lf_launch.py llamafactory.yaml "$@"
