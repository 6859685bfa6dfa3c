PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True' \
IMAGE_MAX_TOKEN_NUM=1024 \
VIDEO_MAX_TOKEN_NUM=128 \
FPS_MAX_FRAMES=16 \
NPROC_PER_NODE=2 \
CUDA_VISIBLE_DEVICES=0,1 \
nohup swift sft \
    --model "${MODEL_PATH}" \
    --dataset "${DATASET_PATH}" \
    --tuner_type lora \
    --split_dataset_ratio 0.01 \
    --torch_dtype bfloat16 \
    --num_train_epochs 3 \
    --per_device_train_batch_size 1 \
    --per_device_eval_batch_size 1 \
    --learning_rate 1e-4 \
    --lora_rank 8 \
    --lora_alpha 32 \
    --target_modules all-linear \
    --gradient_accumulation_steps 16 \
    --output_dir "${BASE_DIR}" \
    --eval_steps 50 \
    --save_steps 50 \
    --save_total_limit 2 \
    --logging_steps 5 \
    --max_length 32768 \
    --warmup_ratio 0.05 \
    --dataset_num_proc 4 \
    --dataloader_num_workers 4 \
    --gradient_checkpointing true \
    --use_liger_kernel false \
    --deepspeed zero2 \
    --attn_impl flash_attn \
    --padding_free false \
    --freeze_vit true \
    --freeze_aligner true \
    --lazy_tokenize true \
    > "${BASE_DIR}/run_${NEXT_VERSION}.log" 2>&1 &
