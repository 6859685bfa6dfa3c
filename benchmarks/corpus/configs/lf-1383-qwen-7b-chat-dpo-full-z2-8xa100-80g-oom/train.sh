args=" \
     --deepspeed dpo_ds_zero2.json \
    --model_name_or_path qwen-7b-chat \
    --stage dpo \
    --template chatml \
    --finetuning_type full \
    --resume_lora_training False \
    --do_train \
    --dataset comparison_gpt4_en \
    --output_dir output \
    --overwrite_output_dir \
    --dataloader_num_workers 8 \
    --gradient_accumulation_steps 1 \
    --gradient_checkpointing True \
    --bf16 True \
    --num_train_epochs 3 \
    --learning_rate 1e-5 \
    --lr_scheduler_type "cosine" \
    --warmup_ratio 0.01 \
    --adam_beta2 0.95 \
    --weight_decay 0.1 \
    --evaluation_strategy epoch \
    --eval_steps 100 \
    --evaluation_strategy "no" \
    --eval_accumulation_steps 1 \
    --bf16_full_eval True \
    --prediction_loss_only True \
    --save_strategy epoch \
    --save_steps 10 \
    --save_total_limit 4 \
    --logging_steps 10 \
    --per_device_train_batch_size 1 \
    --per_device_eval_batch_size 1 \
    --log_level info "

# 8x A100 80G
deepspeed --num_gpus 8 --master_port=9901 src/train_bash.py $args
