# notebook cell in the blog (%%time)
tune run --nproc_per_node 8 lora_finetune_distributed --config my_llama3_1_custom_config.yaml
