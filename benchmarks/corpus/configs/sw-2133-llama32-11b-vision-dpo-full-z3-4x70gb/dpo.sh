# GPU Memory: 4 * 70GB
NPROC_PER_NODE=4 \
CUDA_VISIBLE_DEVICES=0,1,2,3 swift rlhf \
    --rlhf_type dpo \
    --model_type llama3_2-11b-vision-instruct \
    --model_id_or_path  LLM-Research/Llama-3.2-11B-Vision-Instruct \
    --sft_type full \
    --freeze_vit true \
    --dataset rlaif-v#5000 \
    --deepspeed default-zero3
