# torchrun --nproc_per_node=3 
# deepspeed 
accelerate config 
accelerate launch  src/train_sft.py \
    --model_name_or_path /home/wuwen/llm-model/baichuan-13b-chat \
    --do_train \
    --dataset firefly_train \
    --dataset_dir /home/wuwen/LLaMA-Efficient-Tuning/data \
    --finetuning_type full \
    --output_dir shuguang_baichuan_full \
    --per_device_train_batch_size 1 \
    --per_device_eval_batch_size 1 \
    --gradient_accumulation_steps 2 \
    --lr_scheduler_type cosine \
    --logging_steps 50 \
    --save_steps 5000 \
    --eval_steps 1000 \
    --learning_rate 2e-5 \
    --max_grad_norm 0.5 \
    --num_train_epochs 5.0 \
    --dev_ratio 0.01 \
    --evaluation_strategy steps \
    --load_best_model_at_end \
    --plot_loss \
    --weight_decay 0. \
    --warmup_ratio 0.03 \
    --max_source_length 2000 \
    --max_target_length 1200 \
    --deepspeed ./ds_config.json \
    --fp16
