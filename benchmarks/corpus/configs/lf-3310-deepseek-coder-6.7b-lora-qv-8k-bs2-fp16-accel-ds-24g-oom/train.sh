## train.sh
MODEL="/tmp/pretrain_model"

accelerate launch \
    --config_file ac_config.yaml \
    src/train_bash.py \
    --stage sft \
    --do_train \
    --model_name_or_path $MODEL \
    --dataset evol_instruct_code_80k \
    --dataset_dir data \
    --template deepseekcoder \
    --finetuning_type lora \
    --lora_target q_proj,v_proj \
    --output_dir /tmp/finetuned_model \
    --overwrite_cache \
    --overwrite_output_dir \
    --cutoff_len 8192 \
    --save_on_each_node \
    --preprocessing_num_workers 16 \
    --per_device_train_batch_size 2 \
    --per_device_eval_batch_size 4 \
    --lr_scheduler_type cosine \
    --logging_steps 10 \
    --warmup_steps 20 \
    --save_steps 10 \
    --eval_steps 10 \
    --evaluation_strategy steps \
    --load_best_model_at_end \
    --learning_rate 5e-5 \
    --num_train_epochs 3.0 \
    --max_samples 5000 \
    --val_size 0.1 \
    --ddp_timeout 180000000 \
    --plot_loss \
    --fp16 \
    --load_best_model_at_end False \
    --report_to wandb
