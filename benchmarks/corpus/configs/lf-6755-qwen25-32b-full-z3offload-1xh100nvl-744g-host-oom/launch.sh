llamafactory-cli train qwen25_32b_full_sft.yaml
