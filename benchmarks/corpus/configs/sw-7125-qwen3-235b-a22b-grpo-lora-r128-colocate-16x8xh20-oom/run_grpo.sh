# 128 x H20, CUDA 12.9, torch 2.8.0+cu129
MODEL_NAME_OR_PATH=/mnt/models/Qwen3-235B-A22B   # filled in: the path is not posted (the model is named in the issue)
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True"
torchrun $DISTRIBUTED_ARGS ${SCRIPT_DIR}/swift/cli/rlhf.py \
    --rlhf_type grpo \
    --model ${MODEL_NAME_OR_PATH} \
    --external_plugins ${RUN_DIR}/custom_reward.py \
    --reward_funcs xxx \
    --use_vllm true \
    --vllm_mode colocate \
    --vllm_gpu_memory_utilization 0.7 \
    --vllm_max_model_len 10240 \
    --train_type lora \
    --lora_rank 128 \
    --torch_dtype bfloat16 \
    --dataset ${DATASET_PATH} \
    --max_completion_length 2048 \
    --num_train_epochs 1 \
    --per_device_train_batch_size 1 \
    --per_device_eval_batch_size 1 \
    --learning_rate 1e-6 \
    --gradient_accumulation_steps 1 \
    --eval_steps 200 \
    --save_steps 200 \
    --report_to wandb \
    --sleep_level 1 \
    --offload_optimizer true \
    --offload_model true \
    --vllm_tensor_parallel_size 8 \
    --vllm_enable_expert_parallel true \
    --save_total_limit 2 \
    --logging_steps 5 \
    --max_length 8192 \
    --async_generate false \
    --output_dir ${OUTPUT_PATH} \
    --warmup_ratio 0.05 \
    --dataloader_num_workers 4 \
    --deepspeed zero3
# (the stored excerpt ends after --dataloader_num_workers 4; --deepspeed zero3 is filled in)
