accelerate launch scripts/finetune.py examples/code-llama/34b/qlora.yml
