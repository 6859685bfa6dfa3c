#!/bin/bash
# DEEPSEEK_REPRODUCTION.md (alfredyu24/amd-mi350-benchmarks): open-r1 SFT (Phase 1) on 8x MI350X,
# container rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210, trl==0.18.0, open-r1 installed with --no-deps.
export NCCL_MIN_NCHANNELS=112
export HIP_FORCE_DEV_KERNARG=1
export TORCH_BLAS_PREFER_HIPBLASLT=1
export TORCH_NCCL_ASYNC_ERROR_HANDLING=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
cd /workspace/open-r1
accelerate launch \
    --config_file /workspace/configs/accelerate_zero2_mi350x.yaml \
    --num_processes 8 \
    src/open_r1/sft.py \
    --config /workspace/configs/sft_mi350x.yaml
