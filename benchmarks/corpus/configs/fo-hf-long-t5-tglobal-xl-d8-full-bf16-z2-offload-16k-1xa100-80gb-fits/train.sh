#!/bin/bash
# long-t5-tglobal-xl, 16384 input tokens, single A100 80GB, optimizer offloaded to CPU (128GB+ RAM)
deepspeed --num_gpus 1 run_summarization.py \
    --model_name_or_path google/long-t5-tglobal-xl \
    --dataset_name kmfoda/booksum \
    --text_column chapter \
    --summary_column summary_text \
    --do_train \
    --max_source_length 16384 \
    --max_target_length 1024 \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 32 \
    --learning_rate 6e-4 \
    --num_train_epochs 1 \
    --bf16 \
    --deepspeed ds_config_zero2.json \
    --logging_steps 5 \
    --save_strategy steps \
    --save_steps 250 \
    --output_dir ./long-t5-tglobal-xl-16384-book-summary \
    --report_to none
