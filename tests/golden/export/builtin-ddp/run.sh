#!/usr/bin/env bash
# Training launcher, written by rocm-tune export from plan.json
# model Qwen2.5-7B-Instruct: lora (sft), fp32, cutoff_len 1024, micro-batch 1 x accumulation 32 on 2 x mi50-32gb
# executes: rocm-tune's built-in trainer, precision fp32
# warning [bf16-emulated]: MI50 has no bf16 hardware; bf16 is emulated (700+ s/it) Fix: train in fp32 or fp16
# warning [iommu-p2p-hang-risk]: Intel IOMMU can hang RCCL peer-to-peer Fix: boot with intel_iommu=off
# dataset: alpaca_en_demo, resolved by rocm-tune's trainer in /data/llama factory/dataset_info.json on the machine that runs this script
# Usage: bash run.sh [extra trainer arguments]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# environment from the plan
export HIP_VISIBLE_DEVICES=0,1
export HSA_OVERRIDE_GFX_VERSION=9.0.6
export NCCL_ASYNC_ERROR_HANDLING=1
export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True

# a hung collective ends the job: ddp_timeout (7200 s) covers preprocessing and model load, then ROCM_TUNE_HANG_TIMEOUT once the Trainer is built
# (the plan names no checkpoint size: 1800 s)
export ROCM_TUNE_HANG_TIMEOUT=1800

# the built-in trainer runs in the Python that wrote this bundle; ROCM_TUNE_PYTHON overrides it
if ! command -v "${ROCM_TUNE_PYTHON:-/opt/venv/bin/python3}" >/dev/null; then
  echo "run.sh: cannot run ${ROCM_TUNE_PYTHON:-/opt/venv/bin/python3}; set ROCM_TUNE_PYTHON to a Python with rocm-tune installed" >&2
  exit 127
fi
exec "${ROCM_TUNE_PYTHON:-/opt/venv/bin/python3}" -m torch.distributed.run --standalone --nnodes 1 --nproc_per_node 2 \
  -m rocm_tune train llamafactory.yaml "$@"
