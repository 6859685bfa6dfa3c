# full-parameter SFT of llama-7b on 8x V100 32G (README's DeepSpeed example)
deepspeed --num_gpus 8 --master_port=9901 src/train_bash.py \
    --deepspeed ds_config.json \
    --stage sft \
    --model_name_or_path /data/models/llama-7b-hf \
    --do_train \
    --dataset alpaca_gpt4_zh \
    --template default \
    --finetuning_type full \
    --output_dir output/llama-7b-full-sft \
    --overwrite_cache \
    --per_device_train_batch_size 1 \
    --gradient_accumulation_steps 4 \
    --lr_scheduler_type cosine \
    --logging_steps 10 \
    --save_steps 1000 \
    --learning_rate 5e-5 \
    --num_train_epochs 3.0 \
    --plot_loss \
    --fp16
