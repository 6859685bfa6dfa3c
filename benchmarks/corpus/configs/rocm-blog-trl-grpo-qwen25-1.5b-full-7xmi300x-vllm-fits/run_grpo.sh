#!/bin/bash
# GRPO on one MI300X node: GPU 0 serves generations with vLLM, GPUs 1-7 train.
# container: rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513  (trl==0.16.1, deepspeed==0.16.4)

# terminal 1
# HIP_VISIBLE_DEVICES=0 trl vllm-serve --model Qwen/Qwen2.5-1.5B-Instruct

# terminal 2
export HIP_VISIBLE_DEVICES=1,2,3,4,5,6,7

accelerate launch --multi_gpu --num-processes=7 train_grpo.py \
--model_name_or_path="Qwen/Qwen2.5-1.5B-Instruct" \
--max_steps=200 \
--train_epoch=1 \
--report_to="wandb"
