# 4x A10G on an AWS g5.12xlarge
llamafactory-cli train examples/train_qlora/llama3_lora_sft_gptq.yaml
