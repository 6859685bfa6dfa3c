#!/bin/bash
# torchtune README (April 2024): fine-tuning resource requirements, config copied locally
tune run lora_finetune_single_device --config ./7B_lora_single_device.yaml
