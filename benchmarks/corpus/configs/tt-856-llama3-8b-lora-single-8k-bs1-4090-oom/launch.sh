# own dataset, 8k context, single RTX 4090 (docker)
tune run lora_finetune_single_device --config ./8B_lora_single_device.yaml batch_size=1 dataset.max_seq_len=8192
