# reconstructed from the settings list (qwen-vl-finetune/qwenvl/train/train_qwen.py, torchrun + deepspeed, 4 nodes x 8 H100)
torchrun --nproc_per_node 8 --nnodes 4 --node_rank $RANK --master_addr $MASTER_ADDR --master_port $MASTER_PORT \
    qwen-vl-finetune/qwenvl/train/train_qwen.py \
    --deepspeed zero2_offload.json \
    --model_name_or_path Qwen/Qwen3-VL-30B-A3B-Instruct \
    --tune_mm_vision True \
    --tune_mm_mlp True \
    --tune_mm_llm True \
    --bf16 True \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 4 \
    --model_max_length 8192 \
    --max_pixels 50176 \
    --gradient_checkpointing True
