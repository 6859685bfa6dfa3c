tune run --nnodes 1 --nproc_per_node 2 lora_finetune_distributed --config 7B_lora_custom.yaml
