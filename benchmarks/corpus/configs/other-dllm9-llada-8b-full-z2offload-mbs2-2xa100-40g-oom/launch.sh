accelerate launch --config_file zero2_offload.yaml \
    examples/llada/sft.py \
    --model_name_or_path GSAI-ML/LLaDA-8B-Instruct \
    --dataset_args "data/forecast_train.jsonl" \
    --output_dir models/LLaDA-8B-Instruct/forecast \
    --per_device_train_batch_size 2 \
    --gradient_accumulation_steps 4 \
    --num_train_epochs 3 \
    --learning_rate 1e-5 \
    --bf16 True \
    --save_steps 100
