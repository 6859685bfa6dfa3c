# launch line not posted; the usual one for this YAML (filled in)
llamafactory-cli train qwen2.5_14b_lora_sft.yaml
