CUDA_VISIBLE_DEVICES=0,1 \
swift sft \
      --torch_dtype bfloat16 \
      --model /home/cache/Qwen2___5-14B-Instruct \
      --model_type qwen2_5 \
      --template qwen2_5 \
      --dataset swift/self-cognition \
      --max_length 1024 \
      --lora_rank 32 \
      --lora_alpha 8 \
      --init_weights True \
      --learning_rate 1e-4 \
      --attn_impl flash_attn \
      --gradient_accumulation_steps 16 \
      --eval_steps 500 \
      --output_dir /home/cache/output/v10-20241220-110008 \
      --add_version False \
      --output_dir /home/cache/output/v10-20241220-110008/v0-20241220-110057 \
      --logging_dir /home/cache/output/v10-20241220-110008/v0-20241220-110057/runs
