export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True"
export NCCL_P2P_DISABLE=1
export NCCL_IB_DISABLE=1
SIZE_FACTOR=8 CUDA_VISIBLE_DEVICES=0,1,2,3 \
swift sft \
    --model /root/.cache/modelscope/hub/Qwen/Qwen2-VL-7B-Instruct \
    --train_type lora \
    --dataset /root/data/data.json \
    --num_train_epochs 10 \
    --max_length 1024 \
    --per_device_train_batch_size 1 \
    --learning_rate 1e-4 \
    --lora_rank 8 \
    --lora_alpha 32 \
    --gradient_accumulation_steps 16 \
    --eval_steps 100 \
    --save_steps 100 \
    --save_total_limit 2 \
    --logging_steps 5
