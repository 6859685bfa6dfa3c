MASTER_PORT=29501 \
CUDA_VISIBLE_DEVICES=0,1,2,3 \
NPROC_PER_NODE=3 \
swift rlhf \
    --rlhf_type grpo \
    --model '/ossfs/workspace/Qwen2___5-7B-Instruct' \
    --model_type qwen2_5 \
    --external_plugins '/ossfs/workspace/ms-swift-3.1.1/examples/train/grpo/plugin/plugin.py' \
    --reward_funcs format external_css_selector_reward \
    --train_type lora \
    --use_vllm true \
    --vllm_device auto \
    --vllm_gpu_memory_utilization 0.6 \
    --vllm_max_model_len 2048 \
    --lora_rank 12 \
    --lora_alpha 32 \
    --target_modules all-linear \
    --torch_dtype bfloat16 \
    --dataset '/ossfs/workspace/xpath_selector_data.jsonl'#3000 \
    --max_completion_length 2048 \
    --num_train_epochs 1 \
    --per_device_train_batch_size 8 \
    --deepspeed zero3
