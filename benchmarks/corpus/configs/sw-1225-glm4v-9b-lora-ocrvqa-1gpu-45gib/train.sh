# Experimental environment: A100
# ~45.5 GiB GPU memory (the maintainer's reply in modelscope/ms-swift#1225)
CUDA_VISIBLE_DEVICES=0 \
swift sft \
    --model_type glm4v-9b-chat \
    --dataset ocr-vqa#1000 \
    --num_train_epochs 1 \
    --sft_type lora \
    --ddp_find_unused_parameters true \
    --eval_steps 150 \
    --save_steps 150 \
