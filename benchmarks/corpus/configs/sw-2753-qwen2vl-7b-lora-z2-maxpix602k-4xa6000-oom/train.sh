SIZE_FACTOR=8 MAX_PIXELS=602112 CUDA_VISIBLE_DEVICES=0,1,2,3 NPROC_PER_NODE=4 swift sft \
  --model_type qwen2-vl-7b-instruct \
  --model_id_or_path /weights/Qwen2-VL-7B-Instruct/Qwen/Qwen2-VL-7B-Instruct \
  --sft_type lora \
  --deepspeed default-zero2 \
  --dataset /data/train_1224_fold1.json \
  --val_dataset /data/val_1224_fold1.json \
  --ddp_timeout 360000000 \
  --num_train_epochs 3
