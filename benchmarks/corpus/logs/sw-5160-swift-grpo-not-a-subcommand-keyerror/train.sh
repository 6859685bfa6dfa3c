export CUDA_VISIBLE_DEVICES=1,2,3,4

# 实验参数配置
# - Batch Size per Device: 1
# - Gradient Accumulation Steps: 2
# - Training Steps: 500
# - Learning Rate: 1 × 10^-6
# - Temperature: 1.0
# - Maximum Response Length: 512
# - Number of Responses per GRPO Step: 8
# - Kullback-Leibler Coefficient: 0.04

swift grpo \
  --model_type qwen2-audio \
  --model_id_or_path Qwen/Qwen2-Audio-7B-Instruct \
  --output_dir "/data/Emotion/chenligen/Qwen2-Audio/output" \
  --dataset "/data/Emotion/chenligen/Qwen2-Audio/data/train_prompt1.jsonl" \
  --val_dataset "/data/Emotion/chenligen/Qwen2-Audio/data/val_prompt1.jsonl" \
  --per_device_train_batch_size 1 \
  --per_device_eval_batch_size 1 \
  --gradient_accumulation_steps 2 \
  --generation_batch_size 64 \
  --num_train_steps 500 \
  --learning_rate 1e-6 \
  --lr_scheduler_type cosine \
  --weight_decay 0.01 \
  --warmup_ratio 0.03 \
  --max_length 2048 \
  --max_completion_length 512 \
  --external_plugins  "plugin.py" \
  --reward_funcs reward_prompt1 \
  --reward_weights 1.0
