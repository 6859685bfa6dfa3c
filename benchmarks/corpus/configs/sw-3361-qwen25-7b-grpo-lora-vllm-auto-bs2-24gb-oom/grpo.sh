CUDA_VISIBLE_DEVICES=0,1,2,3 \
NCCL_P2P_DISABLE="1" \
NCCL_IB_DISABLE="1" \
NPROC_PER_NODE=1 \
swift rlhf \
    --rlhf_type grpo \
    --model '/root/shared-nvme/joshuaHe/qwen7b-cot' \
    --model_type qwen2_5 \
    --dataset '/root/shared-nvme/joshuaHe/data' \
    --reward_funcs TCMSDAccuracy format \
    --use_vllm true \
    --vllm_device auto \
    --vllm_gpu_memory_utilization 0.8 \
    --vllm_max_model_len 2048 \
    --train_type lora \
    --lora_rank 8 \
    --lora_alpha 32 \
    --target_modules all-linear \
    --torch_dtype bfloat16 \
    --max_completion_length 1024 \
    --num_train_epochs 1 \
    --per_device_train_batch_size 2 \
    --per_device_eval_batch_size 2 \
    --learning_rate 1e-6 \
    --gradient_accumulation_steps 8 \
    --eval_steps 50 \
    --save_steps 50 \
    --save_total_limit 2 \
    --logging_steps 10 \
    --max_length 2048 \
    --output_dir output \
    --warmup_ratio 0.05 \
    --dataloader_num_workers 4 \
    --dataset_num_proc 4 \
    --deepspeed zero3
# (--deepspeed zero3: stated in the prose, the posted command ends at --dataset_num_proc 4)
