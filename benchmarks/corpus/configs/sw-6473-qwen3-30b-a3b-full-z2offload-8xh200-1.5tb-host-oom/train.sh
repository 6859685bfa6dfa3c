# 8 x H200, 96 cores, 1.5TB RAM, swift 3.5.3
NPROC_PER_NODE=8 \
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
swift sft \
    --model /mnt/data/models/Qwen3-30B-A3B-Base \
    --train_type full \
    --dataset /mnt/data/datasets/sft_small.jsonl \
    --torch_dtype bfloat16 \
    --num_train_epochs 1 \
    --per_device_train_batch_size 1 \
    --per_device_eval_batch_size 1 \
    --learning_rate 1e-5 \
    --gradient_accumulation_steps 4 \
    --eval_steps 100 \
    --save_steps 100 \
    --save_total_limit 2 \
    --logging_steps 5 \
    --max_length 4096 \
    --output_dir output/qwen3_moe \
    --warmup_ratio 0.05 \
    --dataloader_num_workers 8 \
    --deepspeed zero2_offload
