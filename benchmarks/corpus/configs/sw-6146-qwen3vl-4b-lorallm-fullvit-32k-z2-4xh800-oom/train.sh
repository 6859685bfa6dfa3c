# 150 visual token
export MASTER_PORT=29504

NPROC_PER_NODE=4 \
CUDA_VISIBLE_DEVICES=0,1,2,3 \
MAX_PIXELS=117600 \
swift sft \
    --model /media/kwaishop-langbridge-kfs/markyi/llm_weights/Qwen3-VL-4B-Instruct \
    --dataset  \
    --split_dataset_ratio 0.01 \
    --train_type custom \
    --external_plugins 'examples/train/multimodal/lora_llm_full_vit/custom_plugin.py' \
    --torch_dtype bfloat16 \
    --num_train_epochs 1 \
    --per_device_train_batch_size 1 \
    --per_device_eval_batch_size 1 \
    --learning_rate 1e-4 \
    --vit_lr 1e-5 \
    --aligner_lr 1e-5 \
    --lora_rank 16 \
    --lora_alpha 32 \
    --gradient_accumulation_steps 8 \
    --eval_steps 100 \
    --save_steps 100 \
    --save_total_limit 5 \
    --logging_steps 5 \
    --max_length 32678 \
    --output_dir output/Qwen3-VL-4B-1015 \
    --warmup_ratio 0.05 \
    --dataloader_num_workers 4 \
    --dataset_num_proc 4 \
    --deepspeed zero2 \
    --padding_free true \
    --attn_impl flash_attn \
    --save_only_model true \
    --report_to wandb
