GPU_NO=0
MODEL_PATH=/home/users/xxx/models/chinese-llama-2-13b-hf
DATASET=medical_qa
DATASET_DIR=/home/users/xxx/code/LLaMA-Factory/data
TEMP=llama2
TARGET=q_proj,v_proj
SFT_CHECKPOINT=/home/users/xxx/ckpt/chinese-llama-2-13b-lora

CUDA_VISIBLE_DEVICES=$GPU_NO  python /home/users/xxx/code/LLaMA-Factory/src/train_bash.py \
    --stage sft \
    --do_train \
    --model_name_or_path $MODEL_PATH \
    --dataset $DATASET \
    --dataset_dir $DATASET_DIR \
    --template $TEMP \
    --finetuning_type lora \
    --lora_target $TARGET \
    --output_dir $SFT_CHECKPOINT \
    --overwrite_cache \
    --overwrite_output_dir \
    --per_device_train_batch_size 4 \
    --gradient_accumulation_steps 4 \
    --lr_scheduler_type cosine \
    --logging_steps 10 \
    --save_steps 1000 \
    --learning_rate 5e-5 \
    --num_train_epochs 3.0 \
    --plot_loss \
    --fp16
