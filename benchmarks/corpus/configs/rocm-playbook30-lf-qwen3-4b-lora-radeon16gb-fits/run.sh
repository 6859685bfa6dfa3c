llamafactory-cli train examples/train_lora/qwen3_lora_sft.yaml
