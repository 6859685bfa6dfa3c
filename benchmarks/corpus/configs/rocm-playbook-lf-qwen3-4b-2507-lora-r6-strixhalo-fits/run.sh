# playbook: LLM Fine-tuning with llama factory (STX Halo, Linux)
cd LlamaFactory
sed -i.bak 's/lora_rank: 8/lora_rank: 6/g' examples/train_lora/qwen3_lora_sft.yaml
llamafactory-cli train examples/train_lora/qwen3_lora_sft.yaml
