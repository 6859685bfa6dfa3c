#3 multi gpu (OOM)
llamafactory-cli train examples/lora_multi_gpu/llama3_lora_sft.yaml
