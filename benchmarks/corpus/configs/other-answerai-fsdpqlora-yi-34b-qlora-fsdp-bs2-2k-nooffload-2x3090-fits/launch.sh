#!/bin/bash
# fsdp_qlora (Answer.AI) benchmark run, benchmarks_03_2024.md. Template command from the post:
# python train.py --model_name meta-llama/Llama-2-7b-hf --batch_size 1 --context_length 512 --train_type qlora \
#   --use_gradient_checkpointing True --reentrant_checkpointing True --use_cpu_offload False --log_to wandb \
#   --dataset dummy --dataset_samples 1024
# with the settings of the table row below changed. train.py spawns one process per visible GPU (world_size -1 = all).
python train.py \
  --model_name 01-ai/Yi-34B \
  --batch_size 2 \
  --context_length 2048 \
  --train_type qlora \
  --use_gradient_checkpointing True \
  --reentrant_checkpointing True \
  --use_cpu_offload False \
  --log_to wandb \
  --dataset dummy \
  --dataset_samples 1024
