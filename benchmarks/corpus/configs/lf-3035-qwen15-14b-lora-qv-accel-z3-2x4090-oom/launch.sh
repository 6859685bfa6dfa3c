accelerate launch \
    --config_file duogou.yaml --main_process_port 9901 --num_processes 2 \
    src/train_bash.py \
    --stage sft \
    --do_train \
    --model_name_or_path /data/rich/model/qwen/Qwen1.5-14B-Chat-v3.0 \
    --dataset lima2.json \
    --dataset_dir ndata \
    --template qwen \
    --finetuning_type lora \
    --lora_target q_proj,v_proj \
    --output_dir saves/Qwen1.5-14B-Chat/lora/train_032801 \
    --overwrite_cache \
    --overwrite_output_dir \
    --cutoff_len 1024 \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 6 \
    --lr_scheduler_type cosine \
    --logging_steps 10 \
    --warmup_steps 20 \
    --save_steps 100 \
    --eval_steps 100 \
    --evaluation_strategy steps \
    --load_best_model_at_end \
    --learning_rate 5e-5 \
    --num_train_epochs 3.0 \
    --val_size 0.1 \
    --plot_loss \
    --bf16
# --- excerpt ends at '--num_train_e'; the last three options are reconstructed
