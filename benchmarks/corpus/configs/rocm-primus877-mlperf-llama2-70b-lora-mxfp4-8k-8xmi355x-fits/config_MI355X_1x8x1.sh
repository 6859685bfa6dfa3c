#!/bin/bash
# MLPerf 6.0 environment for Llama2-70B LoRA on MI355X (8 GPUs, 1 node).
# Source before run_and_time.sh, then from ${PRIMUS_PATH}:
#   ./primus-cli direct --log_file /results/logs/log_*.txt -- train posttrain --config "${EXP}"

export DGXSYSTEM=MI355X_1x8x1
# Used by runner/helpers/envs/primus-env.sh when rocm-smi is not in PATH (e.g. minimal Docker exec).
export PRIMUS_GPU_MODEL="${PRIMUS_GPU_MODEL:-MI355X}"
export GPUS_PER_NODE=8
export NNODES=1
export NODE_RANK=0
export MASTER_ADDR=localhost
export MASTER_PORT=29502

# MLPerf timed runs set SEED=$RANDOM per trial; default here for single-shot primus-cli.
export SEED="${SEED:-$RANDOM}"

export PRIMUS_PATH="${PRIMUS_PATH:-/workspace/Primus}"
export PYTHONPATH="${PRIMUS_PATH}:${PRIMUS_PATH}/third_party/Megatron-Bridge:${PYTHONPATH:-}"
export EXP="${EXP:-${PRIMUS_PATH}/examples/mlperf/llama2_70b/configs/MI355X/llama2_70b_lora_mlperf_posttrain.yaml}"
export DATA_PATH="${DATA_PATH:-/data}"

export PACKED_TRAIN_DATA_PATH="${DATA_PATH}/train.npy"
export PACKED_VAL_DATA_PATH="${DATA_PATH}/validation.npy"
export PACKED_METADATA_PATH="${DATA_PATH}/packed_metadata.jsonl"
export PACKED_DATA_DIR="${DATA_PATH}"

export PRETRAINED_CHECKPOINT="${PRETRAINED_CHECKPOINT:-/data/megatron_checkpoints/Llama-2-70b-hf}"

export LR=0.0006

export HSA_NO_SCRATCH_RECLAIM=1
export HSA_ENABLE_SDMA=1
export HSA_ENABLE_INTERRUPT=0
export GPU_MAX_HW_QUEUES=2
export CUDA_DEVICE_MAX_CONNECTIONS=1
export TORCH_NCCL_HIGH_PRIORITY=1
export NCCL_CHECKS_DISABLE=1
# Single-node: use GPU P2P, not ionic IB. Broken libibverbs ABI (ionic kernel
# mismatch) commonly hangs NCCL here with 0% GPU util. MLPerf systems with
# working RDMA can override: NCCL_IB_DISABLE=0
export NCCL_IB_DISABLE="${NCCL_IB_DISABLE:-1}"
export NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME:-lo}"
export GLOO_SOCKET_IFNAME="${GLOO_SOCKET_IFNAME:-lo}"
export OMP_NUM_THREADS=1

export NVTE_USE_AITER_ROPE=1
# Fused attention for MXFP4 training (must match recipe attention_backend=fused).
export NVTE_FLASH_ATTN=0
export NVTE_FUSED_ATTN=1
export NVTE_UNFUSED_ATTN=0
export NVTE_FUSED_ATTN_CK=1
export NVTE_FUSED_ATTN_AOTRITON=1
export NVTE_CK_USES_FWD_V3=1
export NVTE_CK_USES_BWD_V3=1
export NVTE_CK_IS_V3_ATOMIC_FP32=0
export NVTE_RS_STRIDED_ATOMIC=2
export NVTE_FP8_DPA_BWD=1
export NVTE_USE_HIPBLASLT=1
export NVTE_USE_CAST_TRANSPOSE_TRITON=0
