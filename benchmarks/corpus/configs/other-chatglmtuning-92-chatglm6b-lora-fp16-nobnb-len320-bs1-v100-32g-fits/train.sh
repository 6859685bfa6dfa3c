python tokenize_dataset_rows.py \
    --jsonl_path data/my_zh_data.jsonl \
    --save_path data/my_zh \
    --max_seq_length 320

python finetune.py \
    --dataset_path data/my_zh \
    --lora_rank 8 \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 1 \
    --max_steps 52000 \
    --save_steps 1000 \
    --save_total_limit 2 \
    --learning_rate 2e-5 \
    --fp16 \
    --remove_unused_columns false \
    --logging_steps 50 \
    --output_dir output
