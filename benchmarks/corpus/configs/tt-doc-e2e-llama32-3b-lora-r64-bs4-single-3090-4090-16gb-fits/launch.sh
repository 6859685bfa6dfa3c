#!/bin/bash
# torchtune @ 0cd8bc4c (Dec 2024) E2E tutorial; the tutorial runs the built-in llama3_2/3B_lora_single_device, copied locally here
tune download meta-llama/Llama-3.2-3B-Instruct --output-dir /tmp/Llama-3.2-3B-Instruct --ignore-patterns "original/consolidated.00.pth"
tune run lora_finetune_single_device --config ./3B_lora_single_device.yaml
