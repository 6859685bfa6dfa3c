#!/bin/bash
# stanford_alpaca README fine-tuning command (2023-03-16), run on one node with 8x A100 40GB
# transformers from the LLaMA PR branch; alpaca train.py defaults: model_max_length=512
torchrun --nproc_per_node=8 --master_port=29501 train.py \
    --model_name_or_path /data/llama-7b-hf \
    --data_path ./alpaca_data.json \
    --bf16 True \
    --output_dir ./alpaca-7b \
    --num_train_epochs 3 \
    --per_device_train_batch_size 4 \
    --per_device_eval_batch_size 4 \
    --gradient_accumulation_steps 8 \
    --evaluation_strategy "no" \
    --save_strategy "steps" \
    --save_steps 2000 \
    --save_total_limit 1 \
    --learning_rate 2e-5 \
    --weight_decay 0. \
    --warmup_ratio 0.03 \
    --lr_scheduler_type "cosine" \
    --logging_steps 1 \
    --fsdp "full_shard auto_wrap" \
    --fsdp_transformer_layer_cls_to_wrap 'LLaMADecoderLayer' \
    --tf32 True
