conda activate swift
export LOG_LEVEL=DEBUG
export NCCL_DEBUG=INFO
CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6 \
NPROC_PER_NODE=7 \
swift rlhf \
    --rlhf_type grpo \
    --use_vllm true \
    --vllm_mode colocate \
    --sleep_level 1 \
    --offload_optimizer true \
    --offload_model true \
    --vllm_gpu_memory_utilization 0.4 \
    --max_completion_length 8192 \
    --max_length 16384\
    --num_generations 7 \
    --split_dataset_ratio 0.05 \
    --model /gz-data/Qwen3-8B \
    --external_plugins /repo/tf_plugin.py \
    --reward_funcs tf_format_reward tf_result_reward \
    --train_type lora \
    --dataset /repo/dataset/ide_tool_dataset.jsonl \
    --num_train_epochs 3 \
    --per_device_train_batch_size 2 \
    --per_device_eval_batch_size 2 \
    --learning_rate 1e-6 \
    --gradient_accumulation_steps 1 \
    --eval_steps 20 \
    --save_steps 20 \
    --reward_weights 0.1 1.0\
    --save_total_limit 5
