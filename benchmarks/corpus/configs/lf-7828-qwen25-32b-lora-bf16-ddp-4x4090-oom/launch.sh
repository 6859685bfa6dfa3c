CUDA_VISIBLE_DEVICES=0,1,2,3 llamafactory-cli train qwen25_32b_lora_sft.yaml
