#!/usr/bin/env bash
# Training launcher, written by rocm-tune export from plan.json
# model Qwen2.5-7B-Instruct: freeze (dpo), pure_bf16, cutoff_len 1024, micro-batch 8 x accumulation 1 on 8 x mi300x
# warning [bf16-emulated]: MI50 has no bf16 hardware; bf16 is emulated (700+ s/it) Fix: train in fp32 or fp16
# warning [iommu-p2p-hang-risk]: Intel IOMMU can hang RCCL peer-to-peer Fix: boot with intel_iommu=off
# dataset: alpaca_en_demo, resolved by LLaMA-Factory in /data/llama factory/dataset_info.json on the machine that runs this script
# Usage: bash run.sh [extra trainer arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# llamafactory-cli starts torchrun itself when FORCE_TORCHRUN=1 (needed for DeepSpeed too)
export FORCE_TORCHRUN=1
export NNODES=1
export NPROC_PER_NODE=8

exec llamafactory-cli train llamafactory.yaml "$@"
