llamafactory-cli train qwen35_27b_lora.yaml
