FORCE_TORCHRUN=1 llamafactory-cli train llama3_full_sft.yaml
