# LoRA training (README: 'For LoRA training on one GPU, run:'), model switched to 120b
python sft.py --config configs/sft_lora.yaml --model_name_or_path openai/gpt-oss-120b
