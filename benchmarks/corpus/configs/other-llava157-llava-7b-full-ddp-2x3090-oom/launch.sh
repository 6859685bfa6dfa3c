CUDA_VISIBLE_DEVICES=0,1 torchrun --nnodes=1 --nproc_per_node=2 --master_port=25001 \
    llava/train/train_mem.py \
    --model_name_or_path /data/zhaobo/codes/mm_reasoning/LLaVA/weights/models--lmsys--vicuna-7b-delta-v0/snapshots/f902a2f7e2ca5dfeedf40a0220320e50d2d4fa2a \
    --data_path /data/zhaobo/codes/mm_reasoning/datasets/LLaVA-Instruct-150K/llava_instruct_150k.json \
    --image_folder /data/zhaobo/codes/mm_reasoning/datasets/coco2014/train2014 \
    --vision_tower openai/clip-vit-large-patch14 \
    --mm_vision_select_layer -2 \
    --mm_use_im_start_end True \
    --bf16 True \
    --output_dir ./checkpoints \
    --num_train_epochs 3 \
    --per_device_train_batch_size 1 \
    --per_device_eval_batch_size 1 \
    --gradient_accumulation_steps 4 \
    --evaluation_strategy "no" \
    --save_strategy "steps" \
    --save_steps 5000 \
    --save_total_limit 3 \
    --learning_rate 2e-5 \
    --weight_decay 0. \
    --warmup_ratio 0.03 \
    --lr_scheduler_type "cosine" \
    --logging_s
# [post continues beyond the excerpt we could read]
