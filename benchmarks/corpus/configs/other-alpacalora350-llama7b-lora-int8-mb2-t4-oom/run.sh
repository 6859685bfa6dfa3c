# Tesla T4 16G
python finetune.py \
    --base_model 'decapoda-research/llama-7b-hf' \
    --data_path './trans_chinese_alpaca_data.json' \
    --output_dir './lora-alpaca-zh' \
    --micro_batch_size 2 \
    --num_epochs 2

# Training Alpaca-LoRA model with params:
# base_model: decapoda-research/llama-7b-hf
# data_path: ./trans_chinese_alpaca_data.json
# output_dir: ./lora-alpaca-zh
# batch_size: 128
# micro_batch_size: 2
# num_epochs: 2
# learning_rate: 0.0003
# cutoff_len: 256
# val_set_size: 2000
# lora_r: 8
# lora_alpha: 16
# lora_dropout: 0.05
# lora_target_modules: ['q_proj', 'v_proj']
# train_on_inputs: True
# group_by_length: False
# wandb_project:
# wandb_run_name:
# wandb_watch:
# wandb_log_model:
# resume_from_checkpoint: False
# prompt template: alpaca
