llamafactory-cli train examples/train_lora/llama3_lora_sft_ds3.yaml
