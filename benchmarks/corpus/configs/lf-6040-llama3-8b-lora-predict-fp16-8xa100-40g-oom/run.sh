# 8x A100-SXM4-40GB, llamafactory 0.9.0
llamafactory-cli train examples/train_lora/llama3_lora_predict.yaml
