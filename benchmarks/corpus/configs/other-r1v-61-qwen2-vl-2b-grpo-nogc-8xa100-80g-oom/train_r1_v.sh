#!/bin/bash
#SBATCH -J train_r1_v
#SBATCH -p r1
#SBATCH -N 1
#SBATCH --gres=gpu:8
#SBATCH --cpus-per-task=8
#SBATCH --ntasks-per-node=8


cd src/open-r1-multimodal

export DEBUG_MODE="true" # Enable Debug if you want to see the rollout of model during RL
export LOG_PATH="./debug_log_2b.txt"

MASTER_ADDR=`scontrol show hostname $SLURM_JOB_NODELIST | head -n1`
MASTER_PORT=$((RANDOM % 101 + 20000))

# 运行srun命令来启动torchrun
torchrun --nproc_per_node=8 \
    --nnodes=1 \
    --node_rank=0 \
    --master_addr=$MASTER_ADDR\
    --master_port=$MASTER_PORT \
    src/open_r1/grpo.py \
    --output_dir output_dir \
    --model_name_or_path ./Qwen2-VL-2B-Instruct \
    --dataset_name leonardPKU/GEOQA_R1V_Train_8K \
    --max_prompt_length 1024 \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 2 \
    --logging_steps 1 \
    --bf16 \
    --report_to none \
    --gradient_checkpointing false \
    --attn_implementation flash_attention_2 \
    --max_pixels 401408 \
    --num_train_epochs 2 \
    --run_name Qwen2-VL-2B-GRPO-GEOQA-8k \
    --save_steps 100 \
    --save_only_model true \
    --num_generations 8
