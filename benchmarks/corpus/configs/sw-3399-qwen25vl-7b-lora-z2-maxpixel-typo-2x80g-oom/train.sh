CUDA_VISIBLE_DEVICES=0,1  NPROC_PER_NODE=2 \
MAX_PIXEL=191296 \
swift sft \
  --model /data/datasets/Qwen2.5-VL/Qwen2.5-VL-7B-Instruct  \
  --train_type lora \
  --lora_rank 8 --lora_alpha 32 --lora_dropout 0.05 \
  --dataset xx \
  --val_dataset xx \
  --torch_dtype 'bfloat16' \
  --target_modules 'all-linear' \
  --dataset_num_proc 1 \
  --num_train_epochs 2 \
  --per_device_train_batch_size 1  \
  --per_device_eval_batch_size 1 \
  --gradient_accumulation_steps 8 \
  --warmup_ratio 0.05 \
  --dataloader_num_workers 4 \
  --lazy_tokenize True \
  --check_model False \
  --eval_steps 200  \
  --save_steps 200 \
  --save_total_limit 2 \
  --logging_steps 5 \
  --max_length 1024 \
  --deepspeed zero2 \
  --truncation_strategy 'delete' \
  --output_dir /qwen2.5vl_output/Qwen2.5-VL-7B-Instruct \
  --attn_impl flash_attn
