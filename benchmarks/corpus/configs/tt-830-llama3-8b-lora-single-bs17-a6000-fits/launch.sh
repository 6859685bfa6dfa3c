tune run lora_finetune_single_device --config ./8B_lora_single_device.yaml batch_size=17
