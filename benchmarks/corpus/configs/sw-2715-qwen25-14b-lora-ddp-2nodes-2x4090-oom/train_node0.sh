CUDA_VISIBLE_DEVICES=0,1 \
NNODES=2 \
NODE_RANK=0 \
MASTER_ADDR=192.168.1.10 \
NPROC_PER_NODE=2 \
swift sft \
      --model /home/cache/Qwen2___5-14B-Instruct \
      --model_type qwen2_5 \
      --template qwen2_5 \
      --train_type lora \
      --torch_dtype bfloat16 \
      --dataset swift/self-cognition#1000 \
      --num_train_epochs 100 \
      --attn_impl 'flash_attn' \
      --max_length '1024' \
      --lora_rank 8 \
      --lora_alpha 32 \
      --init_weights 'True' \
      --learning_rate 1e-4 \
      --gradient_accumulation_steps 16 \
      --eval_steps 500 \
      --save_steps 500 \
      --output_dir /home/cache/output
