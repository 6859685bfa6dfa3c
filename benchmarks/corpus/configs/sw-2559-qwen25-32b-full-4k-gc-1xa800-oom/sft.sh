dataset_name=dolly
model_name=Qwen2.5-32B-Instruct
gpu_id=1
CUDA_VISIBLE_DEVICES=${gpu_id} \
nohup swift sft \
    --model_type qwen2_5-32b-instruct \
    --model_id_or_path /home/usr/base_models/${model_name} \
    --model_revision master \
    --add_output_dir_suffix false \
    --sft_type full \
    --tuner_backend swift \
    --template_type AUTO \
    --dtype AUTO \
    --output_dir /home/usr/models/${model_name}/base/${dataset_name}/${model_name} \
    --custom_train_dataset_path /home/usr/Datasets/train_data/${dataset_name}.jsonl \
    --train_dataset_sample -1 \
    --num_train_epochs 3 \
    --max_length 4096 \
    --check_dataset_strategy warning \
    --gradient_checkpointing true \
    --batch_size 1 \
    --weight_decay 0.01 \
    --learning_rate 2e-5 \
    --gradient_accumulation_steps 16 \
    --max_grad_norm 0.5 \
    --warmup_ratio 0.03 \
    --eval_steps 100 \
    --save_steps 100 \
    --logging_steps 10 \
    --use_flash_attn true \
    --save_only_model true \
