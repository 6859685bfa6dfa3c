FORCE_TORCHRUN=1 llamafactory-cli train qwen2_5_3b_full_sft.yaml
