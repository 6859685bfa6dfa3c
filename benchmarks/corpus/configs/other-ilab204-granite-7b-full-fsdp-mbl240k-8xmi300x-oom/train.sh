#!/bin/bash
# instructlab training on 8x MI300X (ROCm), single node, FSDP
# 8xMI300x
## training
# max_batch_len=240000
# nproc_per_node=8
## eval
# gpus=1
torchrun --nnodes 1 --nproc_per_node 8 --node_rank 0 --rdzv_endpoint 127.0.0.1:29500 \
    -m instructlab.training.main_ds \
    --model_name_or_path=instructlab/granite-7b-lab \
    --data_path=/data/processed_data/data.jsonl \
    --output_dir=/tmp/model \
    --num_epochs=2 \
    --effective_batch_size=1000000 \
    --learning_rate=2e-6 \
    --num_warmup_steps=800 \
    --save_samples=0 \
    --log_level=INFO \
    --max_batch_len=240000 \
    --seed=42 \
    --distributed_training_framework=fsdp
