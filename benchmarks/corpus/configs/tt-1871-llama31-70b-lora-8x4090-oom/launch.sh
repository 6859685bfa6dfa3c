# reconstructed from the prose (command not posted)
tune run --nproc_per_node 8 lora_finetune_distributed --config llama3_1/70B_lora
