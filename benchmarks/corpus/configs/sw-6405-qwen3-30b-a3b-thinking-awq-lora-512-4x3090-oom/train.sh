
# 环境变量设置
export NPROC_PER_NODE=4
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export CUDA_VISIBLE_DEVICES=1,2,3,4

# 数据集路径
DATASET="/home/test/code/finetune/traindata_3_simple_qwen3.json"

# 模型路径
MODEL_PATH="/home/test/.cache/huggingface/hub/cpatonn-mirror__Qwen3-30B-A3B-Thinking-2507-AWQ"

# 输出目录
OUTPUT_DIR="/home/test/code/finetune/output-at-a3b-test-qwen3"

# 日志文件
LOG_FILE="./train-qwen3-a3b-$(date +%Y%m%d-%H%M%S).log"

# 启动训练
swift sft \
  --dataset "$DATASET" \
  --output_dir "$OUTPUT_DIR" \
  --train_type lora \
  --model_type qwen3_moe_thinking \
  --model "$MODEL_PATH" \
  --learning_rate 1e-4 \
  --target_modules qproj k_proj v_proj o_proj \
  --lora_rank 8 \
  --lora_alpha 16 \
  --max_length 512 \
  --gradient_checkpointing true \
  --num_train_epochs 5 \
  --per_device_train_batch_size 1 \
  --per_device_eval_batch_size 1 \
  --gradient_accumulation_steps 16 \
  --save_steps 500 \
  --save_total_limit 2 \
  --logging_steps 5 \
  --warmup_steps 100 \
  > "$LOG_FILE" 2>&1 &


# --tp_size 4 \

