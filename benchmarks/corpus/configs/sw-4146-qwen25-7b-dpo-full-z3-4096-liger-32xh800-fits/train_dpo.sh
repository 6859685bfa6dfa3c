#!/bin/bash
# DPO of Qwen2.5-7B-Instruct, 4 nodes x 8 H800 (hostfile from the MPI job)
export PRETRAIN_MODEL=${PRETRAIN_MODEL}
data_path=${data_path}
output_dir=${output_dir}

deepspeed --hostfile=/etc/mpi/hostfile \
    swift/cli/rlhf.py \
    --rlhf_type dpo \
    --model $PRETRAIN_MODEL \
    --torch_dtype bfloat16 \
    --train_type full \
    --use_chat_template \
    --dataset $data_path \
    --num_train_epochs 2 \
    --per_device_train_batch_size 1 \
    --weight_decay 0.1 \
    --learning_rate 5e-7 \
    --deepspeed zero3 \
    --gradient_accumulation_steps 4\
    --warmup_ratio 0.01 \
    --dataset_num_proc 16 \
    --system "You are Qwen, created by Alibaba Cloud. You are a helpful assistant." \
    --save_total_limit 5 \
    --save_strategy epoch \
    --attn_impl flash_attn \
    --max_length 4096 \
    --save_on_each_node False \
    --truncation_strategy delete \
    --split_dataset_ratio 0 \
    --eval_strategy no \
    --output_dir $output_dir \
    --lazy_tokenize true \
    --use_liger_kernel true \
    --rpo_alpha 0.1 \
    --use_hf
