CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 \
NPROC_PER_NODE=4 \
swift sft \
    --model /rl/jiaer/jiaer_fine_tune/models/Qwen2__5_32B_Instruct \
    --predict_with_generate True \
    --model_type qwen2_5 \
    --train_type full \
    --dataset /rl/jiaer/jiaer_fine_tune/data/qwen30k.jsonl#100 \
    --torch_dtype bfloat16 \
    --num_train_epochs 2 \
    --per_device_train_batch_size 1 \
    --per_device_eval_batch_size 1 \
    --learning_rate 1e-5 \
    --target_modules all-linear \
    --gradient_accumulation_steps 1 \
    --eval_steps 50 \
    --save_steps 3000 \
    --save_total_limit 2 \
    --logging_steps 5 \
    --max_length 16384 \
    --output_dir output \
    --system 'You are a helpful assistant.' \
    --warmup_ratio 0.05 \
    --dataloader_num_workers 16 \
    --model_author swift \
    --model_name swift-robot \
    --gradient_checkpointing_kwargs '{"use_reentrant": false}' \
    --ddp_find_unused_parameters true
