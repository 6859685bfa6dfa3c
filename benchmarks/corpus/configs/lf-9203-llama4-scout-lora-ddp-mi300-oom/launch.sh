llamafactory-cli train examples/train_lora/qwen2_5vl_lora_sft.yaml
