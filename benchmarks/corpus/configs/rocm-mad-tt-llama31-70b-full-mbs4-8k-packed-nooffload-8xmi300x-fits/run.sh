#!/bin/bash
# ROCm/MAD scripts/pytorch_train: ./pytorch_benchmark_report.sh -t finetune_fw -m Llama-3.1-70B -p BF16
# (pytorch_benchmark_report.sh, llama3_1 / 70B branch: COMPILE=True PACKED=True SEQ_LEN=8192 MBS=4)
export HF_HOME=/workspace/huggingface
export ROCBLAS_USE_HIPBLASLT=1
export DISABLE_ADDMM_CUDA_LT=0
export HIP_FORCE_DEV_KERNARG=1
export TORCH_NCCL_HIGH_PRIORITY=0
export GPU_MAX_HW_QUEUES=8
export WANDB_DISABLED=true

cd /workspace
MODEL_FAMILY=llama3_1 MODEL_SIZE=70B METHOD=full COMPILE=True PACKED=True SEQ_LEN=8192 CPU_OFFLOAD=False ACTIVATION_CHECKPOINTING=True MBS=4 GAS=1 EPOCHS=1 SEED=42 MAX_STEPS=20 bash Torchtune_Tester.sh

# Torchtune_Tester.sh then launches:
tune run --nproc_per_node 8 \
    full_finetune_distributed --config /workspace/torchtune/recipes/configs/llama3_1/70B_full.yaml \
    log_peak_memory_stats=True \
    output_dir=./logs \
    checkpointer.output_dir=/workspace/checkpoints \
    tokenizer.path=/workspace/models/LLAMA3_1-70B-Instruct/original/tokenizer.model \
    tokenizer.max_seq_len=8192 \
    checkpointer.checkpoint_dir=/workspace/models/LLAMA3_1-70B-Instruct \
    gradient_accumulation_steps=1 \
    max_steps_per_epoch=20 \
    epochs=1 \
    dataset.packed=True \
    fsdp_cpu_offload=False \
    batch_size=4 \
    enable_activation_checkpointing=True \
    compile=True \
    seed=42 \
        2>&1 | tee stdout.log
