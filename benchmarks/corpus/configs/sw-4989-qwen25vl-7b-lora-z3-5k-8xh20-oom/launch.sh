export CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
export NCCL_DEBUG=WARN
export LD_LIBRARY_PATH=/usr/lib64:$LD_LIBRARY_PATH

while true; do
    echo "开始训练 - $(date)"
    NPROC_PER_NODE=8 \
    swift sft \
        --model /245_disk/Qwen2.5-VL-7B \
        --dataset /245_disk/lengqidong_sft_0605.json \
        --lora_rank 8 \
        --freeze_aligner true \
        --output_dir ./qwen_lengqidong_sft_0605 \
        --torch_dtype bfloat16 \
        --deepspeed zero3 \
        --split_dataset_ratio 0.0 \
        --num_train_epochs 3 \
        --per_device_train_batch_size 1 \
        --learning_rate 1e-5 \
        --gradient_accumulation_steps 4 \
        --save_steps 50 \
        --save_total_limit 5 \
        --logging_steps 5 \
        --gradient_checkpointing true \
        --max_length 5000 \
        --warmup_ratio 0.03 \
        --weight_de
# [post continues beyond the excerpt we could read]
