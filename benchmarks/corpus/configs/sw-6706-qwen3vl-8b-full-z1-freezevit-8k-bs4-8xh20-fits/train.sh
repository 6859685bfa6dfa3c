export PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True'
export IMAGE_MAX_TOKEN_NUM=1024
export VIDEO_MAX_TOKEN_NUM=128
export FPS_MAX_FRAMES=16

# config
BATCH_SIZE=${BATCH_SIZE:-256}
PER_DEVICE_BATCH_SIZE=${PER_DEVICE_BATCH_SIZE:-4}
GPUS=${GPUS:-8}
GRADIENT_ACC=$(( BATCH_SIZE / PER_DEVICE_BATCH_SIZE / GPUS ))
NUM_EPOCHS=${NUM_EPOCHS:-1}
SAVE_TOTAL_LIMIT=${SAVE_TOTAL_LIMIT:-1}


# 单机 8*H20
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
NPROC_PER_NODE=${GPUS} \
swift sft \
    --model /run/ti/weights/Qwen3-VL-8B-Instruct \
    --train_type full \
    --custom_dataset_info dataset_registry.json \
    --dataset 'custom_data' \
    --num_train_epochs ${NUM_EPOCHS} \
    --torch_dtype bfloat16 \
    --attn_impl flash_attn \
    --deepspeed zero1 \
    --learning_rate 1e-5 \
    --aligner_lr 1e-5 \
    --vit_lr 2e-6 \
    --freeze_llm false \
    --freeze_aligner false \
    --freeze_vit true \
    --gradient_checkpointing true \
    --vit_gradient_checkpointing false \
    --eval_strategy no \
    --save_strategy epoch \
    --save_total_limit ${SAVE_TOTAL_LIMIT} \
    --max_length 8192 \
    --output_dir work_dirs/swift/qwen3-vl-8b \
    --warmup_ratio 0.05 \
    --per_device_train_batch_size ${PER_DEVICE_BATCH_SIZE} \
    --gradient_accumulation_steps ${GRADIENT_ACC}
